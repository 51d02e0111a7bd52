"""The command line: ``main`` parses and dispatches; a module per subcommand (``check``, ``compare``,
``replay``, ...), each with ``cmd_<name>(args)`` and ``add_parser(sub)``; what they share is in
``options`` (search and scope options) and ``printing`` (messages, progress, results)."""
