"""``ckptcheck replay``: re-execute a saved trace and say whether it reaches the verdict it records."""

from __future__ import annotations

from ckptcheck.checks.run.trace import REPORT_SUFFIXES, load_trace_file, replay, traces_in_report
from ckptcheck.specs.catalog import all_designs

from .options import design_from_arg
from .printing import say, steps_text, warn


def cmd_replay(args) -> int:
    design = design_from_arg(args.design) if args.design else None
    if args.trace.lower().endswith(REPORT_SUFFIXES):
        traces = traces_in_report(args.trace)
        codes = []
        for k, (name, doc) in enumerate(traces, 1):
            say(f"== trace {k} of {len(traces)} embedded in {args.trace}: {name} ==")
            codes.append(_replay_one(args, doc, f"{args.trace}#{name}", design))
        return max(codes)
    return _replay_one(args, load_trace_file(args.trace), args.trace, design)


def _replay_one(args, doc: dict, where: str, design) -> int:
    outcome = replay(doc, where, design=design)
    name = outcome.spec.design.name
    if design is None and name not in all_designs():
        warn(f"{where}: design {name!r} is not a preset or catalog entry: replayed as flink-baseline with the recorded knobs")
    spec = outcome.spec
    say(f"design   {spec.design.name}")
    say(f"scope    {spec.scope.describe()}")
    if args.verbose:
        for line in steps_text(spec, outcome.actions):
            say(line)
    v = outcome.violation
    if v is None:
        say(f"replayed {outcome.steps} steps: no property violated on this trace")
    else:
        say(f"replayed {outcome.steps} steps: {v['property']} ({v['kind']}) VIOLATED at step {v['step']}: {v['reason']}")
        if outcome.earlier:
            e = outcome.earlier
            say(f"         earlier, at step {e['step']}: {e['property']} ({e['kind']}) VIOLATED: {e['reason']}")
    rec = outcome.recorded
    if rec is not None or v is not None:
        if outcome.reproduced:
            say("same verdict as recorded in the trace")
        else:
            said = "no violation" if rec is None else (
                f"{rec.get('property')} ({rec.get('kind')}) violated at step {rec.get('step')}: {rec.get('reason')}"
            )
            say(f"DIFFERENT from the recorded verdict, which says: {said}")
            return 1
    return 1 if v is not None else 0


def add_parser(sub) -> None:
    """``ckptcheck replay``."""
    r = sub.add_parser("replay", help="re-execute a trace and report its verdict")
    r.add_argument("trace", help="a trace file (.trace.json) written by check, compare, catalog or spark, or a report"
                   " (report.html, report.md) whose embedded traces are replayed one by one")
    r.add_argument("-v", "--verbose", action="store_true", help="print every step, in words")
    r.add_argument("--design", default=None, help="the design to replay with (module:NAME for a Python variant); "
                   "its components must be the ones the trace records")
    r.set_defaults(func=cmd_replay)
