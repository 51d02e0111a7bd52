"""What runs the model, in rooms by job (each ``__init__`` names its public surface):

- ``engine``: the searches, which know only the engine surface of ``specs.spec.Spec``;
- ``run``: the Python API (``check``) and what a check produces: results, suites, traces, comparisons,
  findings, the catalog's runs, narration and the reports built from them;
- ``cli``: the command line, a module per subcommand;
- ``conform``: the model's rules against Flink's own classes, with their Java;
- ``proofs``: the Z3 proofs of the redistribution rules;
- ``validate``: real Flink runs recorded and searched for in the model;
- ``flinkjvm``: the JDK and Flink's jar, which conform and validate share;
- ``docgen``: the documentation's generated tables.

The rooms import one way: ``cli`` uses the others, ``run`` uses ``engine``; ``conform``, ``proofs``
and ``validate`` stand alone; none of them imports ``cli``, and ``engine`` imports no other room.
"""
