"""``ckptcheck itf``: export a trace to the Informal Trace Format (Apalache and Quint viewers)."""

from __future__ import annotations

from pathlib import Path

from ckptcheck.checks.run.outputs import out_file
from ckptcheck.checks.run.trace import load_trace_file, replay, write_json_atomic

from .printing import say


def cmd_itf(args) -> int:
    from ckptcheck.checks.run.itf import to_itf

    if args.out:
        out_file(args.out, "--out")
    outcome = replay(load_trace_file(args.trace), args.trace)
    out = out_file(args.out, "--out") if args.out else out_file(str(Path(args.trace).with_suffix(".itf.json")), "--out")
    write_json_atomic(out, to_itf(outcome, args.trace))
    say(f"{outcome.steps + 1} states written to {out}")
    return 0


def add_parser(sub) -> None:
    """``ckptcheck itf``."""
    it = sub.add_parser("itf", help="export a trace to the Informal Trace Format (Apalache/Quint viewers)")
    it.add_argument("trace", help="a trace file")
    it.add_argument("--out", default=None, help="output file (default: next to the trace, .itf.json)")
    it.set_defaults(func=cmd_itf)
