"""``ckptcheck``: check and compare designs, replay traces, list designs, run the flaw catalog.

Exit status: 0 every property holds after an exhaustive search, 1 a property fails (or a
catalog entry is missed), 2 bad input (one line on stderr naming the file, field and
expectation; nothing written), 3 no violation found but the search was cut short or sampled.

Each subcommand lives in a module of its own in this package, ``<name>.py``, with its
``cmd_<name>(args)`` and an ``add_parser(sub)`` that registers its options; what they share is in
``options.py`` (the search and scope options and how they become a search) and ``printing.py``
(the progress line, printing a result).  A new subcommand is a new module and a line in
``COMMANDS``.
"""

from __future__ import annotations

import argparse
import os
import sys

from ckptcheck.checks.engine.memo import MemoMismatch
from ckptcheck.specs.errors import InputError

from . import catalog, check, compare, conform, designs, findings, itf, prove, replay, report, spark, validate
from .options import Parser
from .user_code import user_code_error
from .options import scope_from_args as scope_from_args  # imported from here by tests/checks/cli/test_cli.py

# The subcommands, in the order ``ckptcheck --help`` lists them.
COMMANDS = (check, compare, replay, designs, catalog, findings, report, spark, itf, prove, conform, validate)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ckptcheck")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="ckptcheck", description="Check Flink checkpointing designs against an executable model.")
    p.add_argument("--version", action="version", version=f"ckptcheck {_version()}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InputError as e:
        print(f"ckptcheck: {e}", file=sys.stderr)
        return 2
    except MemoMismatch as e:  # --memo-check: the design's code reads something outside the world
        print(f"ckptcheck: --engine memo: {e}; search this design with --engine explore", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ckptcheck: interrupted", file=sys.stderr)
        return 130
    except OSError as e:  # a write that the checks before the work could not foresee (disk full, ...)
        if isinstance(e, BrokenPipeError):
            raise
        print(f"ckptcheck: {e.filename or 'output'}: {e.strerror or e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into a command that stopped reading (e.g. head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # a variant's own code raised: one line naming it (anything else is ckptcheck's, and raises)
        line = user_code_error(e)
        if line is None:
            raise
        print(f"ckptcheck: {line}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
