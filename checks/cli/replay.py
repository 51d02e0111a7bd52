"""``ckptcheck replay``: re-execute a saved trace and say whether it reaches the verdict it records."""

from __future__ import annotations

from ckptcheck.checks.run.trace import REPORT_SUFFIXES, load_trace_file, replay, traces_in_report
from ckptcheck.model.component import names_component
from ckptcheck.model.design import COMPONENTS
from ckptcheck.specs.catalog import all_designs
from ckptcheck.specs.portable import design_from_trace

from .options import design_from_arg
from .printing import say, steps_text, warn


def cmd_replay(args) -> int:
    designs = [design_from_arg(d) for d in args.design or ()]
    if args.trace.lower().endswith(REPORT_SUFFIXES):
        traces = traces_in_report(args.trace)
        for name, doc in traces:  # every trace's design settled before the first replay: a refusal replays nothing
            if isinstance(doc, dict):
                design_from_trace(doc.get("design"), f"{args.trace}#{name}", design_for(doc, designs, alone=False))
        codes = []
        for k, (name, doc) in enumerate(traces, 1):
            say(f"== trace {k} of {len(traces)} embedded in {args.trace}: {name} ==")
            where = f"{args.trace}#{name}"
            codes.append(_replay_one(args, doc, where, design_for(doc, designs, alone=False)))
        return max(codes)
    doc = load_trace_file(args.trace)
    return _replay_one(args, doc, args.trace, design_for(doc, designs, alone=True))


def design_for(doc, designs: list, alone: bool):
    """The design given with ``--design`` that replays ``doc``: the one whose components are those the
    trace recorded (the one of the trace's name first), so each trace of a report gets its own; for a
    trace file of its own (``alone``) and a single design given, that design (replay then says where its
    components differ); None: the trace's own design, by its name (a trace of a Python variant is then refused, naming the ``--design`` that
    replays it: ckptcheck never imports what a trace names)."""
    d = doc.get("design") if isinstance(doc, dict) else None
    recorded = d.get("components") if isinstance(d, dict) else None
    recorded = recorded if isinstance(recorded, dict) and all(isinstance(v, str) for v in recorded.values()) else {}
    fits = [x for x in designs if all(k in COMPONENTS and names_component(v, getattr(x, k)) for k, v in recorded.items())]
    if fits:
        same = [x for x in fits if x.name == d.get("name")]
        return (same or fits)[0]
    return designs[0] if alone and len(designs) == 1 else None


def _replay_one(args, doc: dict, where: str, design) -> int:
    outcome = replay(doc, where, design=design)
    if design is not None and isinstance(doc.get("design"), dict) and isinstance(doc["design"].get("knobs"), dict):
        changed = {k: v for k, v in doc["design"]["knobs"].items() if design.knobs().get(k, v) != v}
        if changed:
            say(f"note: the trace recorded {', '.join(f'{k} = {v!r}' for k, v in changed.items())}; replayed with"
                f" {design.name}'s {', '.join(f'{k} = {design.knobs()[k]!r}' for k in changed)}")
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


DESCRIPTION = ("Re-execute a trace (or every trace a report embeds) and say whether it reaches the verdict it records."
               "  Exit status: 0 no violation, as recorded; 1 a violation (or a verdict other than the recorded one, said"
               " DIFFERENT); 2 bad input, or a trace of a Python variant without the --design that names it.")


def add_parser(sub) -> None:
    """``ckptcheck replay``."""
    r = sub.add_parser("replay", help="re-execute a trace and report its verdict", description=DESCRIPTION)
    r.add_argument("trace", help="a trace file (.trace.json) written by check, compare, catalog or spark, or a report"
                   " (report.html, report.md) whose embedded traces are replayed one by one")
    r.add_argument("-v", "--verbose", action="store_true", help="print every step, in words")
    r.add_argument("--design", action="append", default=None,
                   help="a design to replay with (module:NAME for a Python variant), repeatable: each trace is replayed with"
                        " the one whose components it recorded, the others by their own names")
    r.set_defaults(func=cmd_replay)
