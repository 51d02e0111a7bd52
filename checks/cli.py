"""``ckptcheck``: check and compare designs, replay traces, list designs, run the flaw catalog.

Exit status: 0 every property holds after an exhaustive search, 1 a property fails (or a
catalog entry is missed), 2 bad input (one line on stderr naming the file, field and
expectation; nothing written), 3 no violation found but the search was cut short or sampled.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import sys
from pathlib import Path

from ckptcheck.model.design import KNOBS
from ckptcheck.model.protocol import scope_conflict
from ckptcheck.model.scope import Scope
from ckptcheck.specs.catalog import CATALOG, all_designs
from ckptcheck.specs.designs import PRESETS, load_design
from ckptcheck.specs.errors import InputError
from ckptcheck.specs.jobs import JOBS, load_job
from ckptcheck.specs.scopes import default_scope, default_scope_for, default_scopes_for, flip147_concurrent_scope, known_figures, regional_scope
from ckptcheck.specs.spec import Spec

from .api import ENGINES, check, run_id, save_traces
from .outputs import out_dir, out_file
from .results import (
    EXHAUSTIVE_ENGINES,
    EXIT_STATUS,
    HIT,
    HOLDS,
    NOT_APPLICABLE,
    NOT_REACHED,
    OUTCOME_HOLDS,
    OUTCOME_INCOMPLETE,
    OUTCOME_SAMPLED,
    OUTCOME_VIOLATED,
    VIOLATED,
    CheckResult,
)
from .stateful import PROFILES
from .suite import SuiteResult
from .trace import load_trace_file, replay, write_json_atomic, write_text_atomic


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse prints usage too)
        self.exit(2, f"ckptcheck: {message} (see '{self.prog} --help')\n")


MAX_COUNT = 1_000_000


def _count(minimum: int):
    """An argparse type: a whole number from ``minimum`` to ``MAX_COUNT``."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = None
        if v is None or not minimum <= v <= MAX_COUNT:
            raise argparse.ArgumentTypeError(f"expected an integer from {minimum} to {MAX_COUNT:,}, got {text!r}")
        return v

    return parse


_nonneg = _count(0)
_positive = _count(1)


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return v


def _say(msg: str = "") -> None:
    print(msg, flush=True)


def _warn(msg: str) -> None:
    print(f"ckptcheck: warning: {msg}", file=sys.stderr, flush=True)


def _load_design(spec: str):
    return load_design(spec, all_designs(), warn=_warn)


def _symmetry(args, designs: list, scope, warn=_warn) -> bool:
    """Symmetry reduction where every design allows it (``auto``, the default), never
    (``--no-symmetry``), or required (``--symmetry``: refused where it does not apply, before
    anything runs).  It needs interchangeable subtasks (forward edges only, equal parallelism,
    no split enumerator, no task-manager file merging, aligned checkpoints) and the preset components: a replaced
    component may treat subtask indexes differently."""
    if args.engine == "stateful":
        if args.symmetry == "on":
            warn("--symmetry applies to the exhaustive engines; --engine stateful ignores it")
        return False
    if args.symmetry == "off":
        return False
    why = None
    for d in designs:
        if d.replaced():
            why = (f"design {d.name}", f"replaces components ({', '.join(d.replaced())}) that may treat subtask indexes differently")
        elif not Spec(d, scope, symmetry=True).permutations:
            why = (f"job {scope.job_name}", f"no interchangeable subtasks for {d.name} (symmetry needs forward edges only,"
                   " equal parallelism, no split enumerator, no task-manager file merging, aligned checkpoints)")
        if why:
            if args.symmetry == "on":
                raise InputError("--symmetry", *why)
            return False
    return True


def _search_options(args, designs: list, scope, quiet: bool = False) -> dict:
    """The engine options that apply, with a warning for each one given that does not (not
    repeated with ``quiet``: a design's further default scopes)."""
    warn = (lambda msg: None) if quiet else _warn
    design = designs[0]
    explore_only = {"--max-states": args.max_states, "--max-seconds": args.max_seconds, "--max-depth": args.max_depth}
    stateful_only = {"--seed": args.seed, "--profile": args.profile}
    spark_only = {"--master": args.master, "--partitions": args.partitions}
    if args.engine in EXHAUSTIVE_ENGINES:
        for opt, v in stateful_only.items():
            if v is not None:
                warn(f"{opt} applies to --engine stateful; the exhaustive search ignores it")
    else:
        for opt, v in explore_only.items():
            if v is not None:
                warn(f"{opt} applies to --engine explore or spark; the stateful engine ignores it")
    if args.engine != "spark":
        for opt, v in spark_only.items():
            if v is not None:
                warn(f"{opt} applies to --engine spark; --engine {args.engine} ignores it")
    elif design.replaced():
        comp, qual = next(iter(design.replaced().items()))
        raise InputError(design.name, f"components.{comp}", f"--engine spark runs presets, catalog entries and TOML designs; {qual}"
                         " would have to be importable on every executor (use --engine explore)")
    opts = dict(symmetry=_symmetry(args, designs, scope, warn), seed=args.seed or 0, profile=args.profile or "ci")
    if args.engine == "explore":
        workers = args.workers or os.cpu_count() or 1
        if args.exact:
            if (args.workers or 1) > 1:
                warn("--workers: the exact store runs in one process")
            workers = 1
        opts.update(max_states=args.max_states, max_seconds=args.max_seconds, max_depth=args.max_depth,
                    store="exact" if args.exact else "fingerprint", workers=workers)
    else:
        for opt, v in {"--exact": args.exact or None, "--workers": args.workers}.items():
            if v is not None:
                warn(f"{opt} applies to --engine explore; --engine {args.engine} ignores it")
        if args.engine == "spark":
            opts.update(max_states=args.max_states, max_seconds=args.max_seconds, max_depth=args.max_depth,
                        master=args.master, partitions=args.partitions)
    return opts


LARGE = {"records_per_split": 3, "max_checkpoints": 6, "max_failures": 3, "max_declines": 4, "max_timeouts": 3,
         "max_lost_notifications": 3}


def _before_search(design, scope, symmetry: bool = False) -> None:
    """Say so before a search that will be large: its known figures, or the limits past which an
    exhaustive search is not expected to end."""
    big = [f"{k} = {getattr(scope, k)}" for k, v in LARGE.items() if getattr(scope, k) > v]
    if big:
        _warn(f"{', '.join(big)}: the state space grows exponentially with these limits, and an exhaustive"
              " search this large is not expected to end; bound it with --max-seconds or --max-states")
    figures = known_figures(design, scope, symmetry)
    if figures:
        _say(f"expect   {figures} (on 2 cores; --max-seconds or --max-states bound it)")


def _rss_mb() -> int:
    """Peak resident memory of this process, in MB."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


class _Progress:
    """A progress line as TLC prints it: states, rate, queue, depth, memory.  Every 2 s for the
    first 20 s, then every 15 s, so that a long run's log stays short."""

    def __init__(self) -> None:
        self.last = (0.0, 0)

    def __call__(self, outcome, queue: int) -> None:
        t0, n0 = self.last
        if outcome.elapsed > 20 and outcome.elapsed - t0 < 15:
            return
        rate = (outcome.states - n0) / (outcome.elapsed - t0) if outcome.elapsed > t0 else 0
        self.last = (outcome.elapsed, outcome.states)
        print(
            f"  ... {outcome.states:,} states ({rate:,.0f}/s), {outcome.transitions:,} transitions, queue {queue:,},"
            f" depth {outcome.depth}, {_rss_mb() + getattr(outcome, 'workers_peak_mb', 0):,} MB, {outcome.elapsed:.0f}s",
            file=sys.stderr,
            flush=True,
        )


def _add_search_options(p: argparse.ArgumentParser) -> None:
    """The engine and its bounds (check and compare)."""
    p.add_argument("--engine", choices=ENGINES, default="explore",
                   help="explore: exhaustive BFS (default); spark: the same search on Spark; stateful: Hypothesis random runs"
                   " (sampled: proves nothing)")
    p.add_argument("--master", default=None, help="spark: the Spark master URL (default local[*], or spark-submit's)")
    p.add_argument("--partitions", type=_positive, default=None,
                   help="spark: partitions of the frontier and visited set (default 2 x the cluster's cores)")
    sym = p.add_mutually_exclusive_group()
    sym.add_argument("--symmetry", dest="symmetry", action="store_const", const="on", default="auto",
                     help="require symmetry reduction (refused where subtasks are not interchangeable); by default it is"
                     " on wherever they are: forward edges only, equal parallelism, preset components")
    sym.add_argument("--no-symmetry", dest="symmetry", action="store_const", const="off",
                     help="search every state, not one per symmetry class")
    p.add_argument("--exact", action="store_true",
                   help="explore: store every state instead of 64-bit fingerprints (about 10x the memory, one process)")
    p.add_argument("--workers", type=_positive, default=None, help="explore: processes sharing the search (default: the number of cores)")
    p.add_argument("--seed", type=_nonneg, default=None, help="seed for the stateful engine (default 0)")
    p.add_argument("--profile", choices=tuple(PROFILES), default=None, help="Hypothesis settings profile (default ci)")
    p.add_argument("--max-states", type=_nonneg, default=None, help="explore: stop after N distinct states (the result is then incomplete)")
    p.add_argument("--max-seconds", type=_positive_float, default=None, help="explore: stop after S seconds (the result is then incomplete)")
    p.add_argument("--max-depth", type=_nonneg, default=None, help="explore: do not expand states at this depth (the result is then incomplete)")


def _add_scope_options(p: argparse.ArgumentParser) -> None:
    d = default_scope()
    r = regional_scope()
    c = flip147_concurrent_scope()
    g = p.add_argument_group(
        "scope",
        "options left out take the design's default scope: for regional designs "
        f"{r.job_name}, {r.max_checkpoints} checkpoints, {r.max_failures} failure, {r.max_declines} decline, instant acks"
        " (designs with a failure ratio below 50 % use sources-4);"
        f" for aligned designs with concurrent checkpoints (flip147) {c.job_name}, {c.max_checkpoints} checkpoints,"
        f" {c.max_failures} failure, {c.max_declines} decline, instant acks; the unaligned and null-state presets have"
        " their own;"
        f" otherwise {d.job_name}, {d.max_checkpoints} checkpoint, {d.max_failures} failure, {d.max_declines} decline."
        " With no scope option, check also searches a design's further default scopes (the unaligned presets: a"
        " rescale under backpressure; flip147: the union-state job) and says which witnesses each one hits;"
        " compare and spark use the first",
    )
    g.add_argument("--job", default=None, help=f"job preset ({', '.join(JOBS)}) or a TOML job file")
    g.add_argument("--records", type=_nonneg, default=None, help="records per source split")
    ends = g.add_mutually_exclusive_group()
    ends.add_argument("--unbounded", action="store_true", help="sources never reach end of input")
    ends.add_argument("--bounded", action="store_true",
                      help="sources reach end of input (the default, except where the design's default scope is unbounded)")
    g.add_argument("--checkpoints", type=_nonneg, default=None, help="checkpoints triggered before end of input")
    g.add_argument("--failures", type=_nonneg, default=None, help="task failures")
    g.add_argument("--declines", type=_nonneg, default=None, help="checkpoint declines")
    g.add_argument("--timeouts", type=_nonneg, default=None, help="checkpoint timeouts")
    g.add_argument("--lost-notifications", type=_nonneg, default=None, help="lost coordinator RPCs")
    g.add_argument("--channel-capacity", type=_nonneg, default=None,
                   help="records a subpartition holds (0: unbounded); a full one backpressures its producer")
    g.add_argument("--input-buffers", type=_nonneg, default=None,
                   help="unaligned checkpoints: records an input channel holds before its consumer reads them (0: local channels)")
    g.add_argument("--rescale", action="append", type=_rescale_arg, default=None, metavar="VERTEX=P",
                   help="the user may restart the job from its latest checkpoint with VERTEX at parallelism P (repeatable)")
    g.add_argument("--repattern", action="append", default=None, metavar="EDGE",
                   help="with --rescale: the rescaled job flips EDGE (source->target, or source->target/odd for a side"
                        " output) between POINTWISE and ALL_TO_ALL (repeatable)")
    g.add_argument("--keys-per-split", type=_nonneg, default=None,
                   help="0: every record its own key (default); K: the records of a split share K keys, and per-key order is checked")
    g.add_argument("--staggered-triggers", action=argparse.BooleanOptionalAction, default=None,
                   help="each task's trigger RPC arrives in a step of its own (default: as in the design's default scope)")
    g.add_argument("--instant-acks", action=argparse.BooleanOptionalAction, default=None,
                   help="a reduction for aligned designs (not with timeouts that complete regionally): an acknowledgement counts when the snapshot is"
                        " taken and the last one completes the checkpoint in a step of its own; every verdict is the"
                        " full model's, ack order is not shown (default: as in the design's default scope)")
    g.add_argument("--spanning-records", action=argparse.BooleanOptionalAction, default=None,
                   help="unaligned checkpoints: a record may straddle two buffers, its head in the consumer's"
                        " deserializer while its tail is still queued (default: as in the design's default scope)")
    g.add_argument("--stop-with-savepoint", choices=("drain", "no-drain"), default=None,
                   help="the user may stop the job once with a savepoint, with --drain or without (then resume from it)")
    g.add_argument("--rescales", type=_nonneg, default=None,
                   help="restarts at another parallelism (default 1 with --rescale; each toggles between the two)")


def _rescale_arg(text: str) -> tuple[str, int]:
    """``VERTEX=P`` for ``--rescale``."""
    name, sep, p = text.partition("=")
    if not sep or not name or not p.isdigit():
        raise argparse.ArgumentTypeError(f"expected VERTEX=PARALLELISM like sink=2, got {text!r}")
    return name, int(p)


def _scope_from_args(args, design) -> Scope:
    """The design's default scope, with every option the user gave."""
    d = default_scope_for(design)
    name, job = load_job(args.job) if args.job is not None else (d.job_name, d.job)

    def pick(value, default):
        return default if value is None else value

    try:
        scope = _scope(args, d, name, job, pick)
        problem = scope_conflict(design, scope)
        if problem.startswith("scope.instant_acks") and args.instant_acks is None and scope.instant_acks:
            scope = dataclasses.replace(scope, instant_acks=False)  # the default's reduction does not fit the options given
            problem = scope_conflict(design, scope)
        if problem:
            raise ValueError(problem.replace("scope.stop_with_savepoint", "--stop-with-savepoint")
                             .replace("scope.instant_acks", "--instant-acks")
                             .replace("scope.spanning_records", "--spanning-records"))
        return scope
    except ValueError as e:  # a limit the job cannot take (--rescale naming a source, ...)
        field, _, msg = str(e).partition(": ")
        raise InputError("options", field.replace("scope.rescale", "--rescale").replace("scope.repattern", "--repattern"),
                         msg) from None


def _scope(args, d: Scope, name: str, job, pick) -> Scope:
    return Scope(
        job=job,
        job_name=name,
        records_per_split=pick(args.records, d.records_per_split),
        bounded=True if args.bounded else False if args.unbounded else d.bounded,
        max_checkpoints=pick(args.checkpoints, d.max_checkpoints),
        max_failures=pick(args.failures, d.max_failures),
        max_declines=pick(args.declines, d.max_declines),
        max_timeouts=pick(args.timeouts, d.max_timeouts),
        max_lost_notifications=pick(args.lost_notifications, d.max_lost_notifications),
        channel_capacity=pick(args.channel_capacity, d.channel_capacity),
        input_buffers=pick(args.input_buffers, d.input_buffers),
        rescale=tuple(args.rescale) if args.rescale else (d.rescale if args.job is None else ()),
        max_rescales=pick(args.rescales, (1 if args.rescale else d.max_rescales if args.job is None else 0)),
        repattern=tuple(args.repattern) if args.repattern else (d.repattern if args.job is None and not args.rescale else ()),
        keys_per_split=pick(args.keys_per_split, d.keys_per_split),
        staggered_triggers=pick(args.staggered_triggers, d.staggered_triggers),
        stop_with_savepoint=pick(args.stop_with_savepoint, d.stop_with_savepoint),
        instant_acks=pick(args.instant_acks, d.instant_acks),
        spanning_records=pick(args.spanning_records, d.spanning_records),
    )


_MARK = {
    HOLDS: "holds",
    VIOLATED: "VIOLATED",
    HIT: "hit",
    NOT_REACHED: "NOT REACHED",
    NOT_APPLICABLE: "not applicable",
}


def _mark(result: CheckResult, v) -> str:
    words = result.verdict_words(v)
    return _MARK[v.status] if words == v.status else words


def _engine_line(result: CheckResult) -> str:
    s = result.stats
    if result.engine in EXHAUSTIVE_ENGINES:
        how = "exhaustive" if result.complete else f"INCOMPLETE: {s.get('stopped')}"
        sym = ", symmetry reduction on" if result.symmetry else ""
        store = "exact store" if s.get("store") == "exact" else "fingerprints"
        workers = f", {s.get('workers')} workers" if (s.get("workers") or 1) > 1 else ""
        if s.get("engine_detail"):
            workers = f", {s['engine_detail']}"
        line = (
            f"{result.engine} (BFS, {how}{sym}, {store}{workers}): {s['states']:,} distinct states, {s['transitions']:,}"
            f" transitions, depth {s['depth']}, {s['seconds']:.1f}s ({s['states_per_second'] or 0:,} states/s)"
        )
        if s.get("collision_probability") is not None:
            hint = "; --exact keeps states instead" if result.engine == "explore" else ""
            line += f"\n         fingerprint collision probability {s['collision_probability']:.1e} (TLC's estimate{hint})"
        return line
    return (
        f"stateful (Hypothesis, sampled, profile {s['profile']}, seed {s['seed']}): {s['runs']:,} runs,"
        f" {s['steps']:,} steps, max depth {s['max_depth']}, {s['distinct_states_seen']:,} distinct states"
        f" seen, {s['seconds']:.1f}s"
    )


def print_header(design, scope) -> None:
    """What is about to be searched, before the search (as TLC prints its configuration)."""
    _say(f"design   {design.name}: {design.description}")
    replaced = design.replaced()
    if replaced:
        _say(f"replaces {', '.join(f'{k} = {v}' for k, v in replaced.items())}")
    _say(f"scope    {scope.describe()}")


def print_result(result: CheckResult, header: bool = True, unreached: bool = True) -> None:
    """A scope's verdicts; ``unreached`` False leaves the warning about witnesses it does not
    hit to ``print_suite`` (another default scope may hit them)."""
    if header:
        print_header(result.design, result.scope)
    _say(f"engine   {_engine_line(result)}")
    for v in result.verdicts:
        line = f"  {v.kind:<10} {v.property:<28} {_mark(result, v)}"
        if v.status == VIOLATED:
            line += f" after {len(v.trace)} steps: {v.reason}"
        elif v.status == HIT:
            line += f" ({v.reason}, {len(v.trace)} steps)"
        _say(line)
        if v.trace_file:
            _say(f"             trace: {v.trace_file}  (ckptcheck replay {v.trace_file})")
    if result.unreached and unreached:
        names = ", ".join(v.property for v in result.unreached)
        if result.searched_whole_scope:
            _say(f"WARNING: no witness for {names}: this scope never exercises that behaviour, so the check says nothing about it.")
        else:
            _say(f"note: no witness for {names} in the part searched (the search did not cover the scope).")
    _say("RESULT: " + result.headline())


SCOPE_OPTIONS = ("job", "records", "unbounded", "bounded", "checkpoints", "failures", "declines", "timeouts",
                 "lost_notifications", "channel_capacity", "input_buffers", "rescale", "repattern", "keys_per_split",
                 "staggered_triggers", "stop_with_savepoint", "instant_acks", "spanning_records", "rescales")


def _scopes_from_args(args, design) -> tuple:
    """The scope the options name; with no scope option, every default scope of the design
    (``default_scopes_for``: most designs have one)."""
    first = _scope_from_args(args, design)
    given = [getattr(args, name, None) for name in SCOPE_OPTIONS]
    if any(v is not None and v is not False for v in given):  # --failures 0 names a scope too
        return (first,)
    return (first,) + default_scopes_for(design)[1:]


def _run_check(args, design, scope, opts, out):
    """Search one scope; write its result and traces."""
    print_header(design, scope)
    _before_search(design, scope, opts["symmetry"])
    result = check(design, scope, args.engine, progress=_Progress(), **opts)
    spec = Spec(design, scope, symmetry=opts["symmetry"])
    prefix = run_id(result)
    save_traces(result, spec, out, prefix=prefix)
    path = out / f"{prefix}.result.json"
    write_json_atomic(path, result.to_json(spec))
    return result, spec, path


def cmd_check(args) -> int:
    out = out_dir(args.out, "--out")
    report_dir = out_dir(args.report, "--report") if args.report else None
    design = _load_design(args.design)
    scopes = _scopes_from_args(args, design)
    # every scope's options are checked before the first search starts (--symmetry may be refused by any)
    opts = [_search_options(args, [design], scope, quiet=k > 0) for k, scope in enumerate(scopes)]
    runs = []
    for k, scope in enumerate(scopes):
        if len(scopes) > 1:
            _say(f"{'' if not k else chr(10)}== default scope {k + 1} of {len(scopes)} ==")
        result, spec, path = _run_check(args, design, scope, opts[k], out)
        runs.append((result, spec))
        if len(scopes) == 1:
            print_result(result, header=False)
        else:
            print_result(result, header=False, unreached=False)
        _say(f"result written to {path}")
        if result.interrupted:
            break
    together = None
    if len(scopes) > 1 and not runs[-1][0].interrupted:
        suite = SuiteResult(tuple(r for r, _ in runs))
        print_suite(suite)
        together = suite_lines(suite) + ["RESULT: " + suite.headline()]
    if report_dir is not None:
        from ckptcheck.reports.render import build_report, write_reports

        command = "ckptcheck " + " ".join(sys.argv[1:]) if sys.argv[1:] else f"ckptcheck check --design {design.name}"
        paths = write_reports(build_report(runs, title=f"ckptcheck: {design.name}", command=command, suite=together),
                              report_dir)
        _say(f"report written to {', '.join(str(p) for p in paths)}")
    if runs[-1][0].interrupted:
        _say("interrupted: the figures above are those of the part searched")
        return 130
    return SuiteResult(tuple(r for r, _ in runs)).exit_status if len(runs) > 1 else runs[0][0].exit_status


def suite_lines(suite: SuiteResult) -> list[str]:
    """What the default scopes say together, a line each (the console and the reports): each
    scope's result, the witnesses only it hits, where each witness a scope misses was hit, what
    the combination hides, the witnesses no scope hits."""
    lines = [f"scope {i + 1} (job {r.scope.job_name}): {r.headline()}" for i, r in enumerate(suite.results)]
    lines += [f"only scope {i + 1} hits: {', '.join(names)}" for i, names in sorted(suite.only_in.items())]
    for i, missed in sorted(suite.covered_elsewhere.items()):
        lines.append(f"not reached in scope {i + 1}, hit in another: {', '.join(f'{n} (scope {j + 1})' for n, j in missed)}")
    lines.append("each scope searches in combination only the mechanisms it hits; two mechanisms hit in different"
                 " scopes only are not checked together")
    if suite.unreached:
        names = ", ".join(suite.unreached)
        if all(r.searched_whole_scope for r in suite.results):
            lines.append(f"WARNING: no witness for {names} in any default scope: they never exercise that behaviour,"
                         " so the check says nothing about it.")
        else:
            lines.append(f"note: no witness for {names} in the parts searched (not every scope was searched whole).")
    return lines


def print_suite(suite: SuiteResult) -> None:
    _say("")
    _say(f"== the {len(suite.results)} default scopes together ==")
    for line in suite_lines(suite):
        _say(line if line.startswith(("WARNING", "note")) else f"  {line}")
    _say("RESULT: " + suite.headline())


def _steps_text(spec: Spec, actions: list) -> list[str]:
    from ckptcheck.reports.narrate import narrate

    steps, _ = narrate(spec, actions)
    return [f"{s.n:>5}. {s.action}: {s.text}" for s in steps]


def print_comparison(cmp) -> None:
    """Verdicts side by side, then what each variant changes against the reference."""
    from .compare import BREAKS, FIXES, LOSES_WITNESS

    results = [r for r, _ in cmp.results]
    ref = cmp.reference
    width = max(14, *(len(r.design.name) for r in results)) + 2
    _say(f"scope    {ref.scope.describe()}")
    for r in results:
        _say(f"design   {r.design.name}{' (reference)' if r is ref else ''}: {r.searched()}")
    _say("")
    shown = [v for v in ref.verdicts if any(r.verdict(v.property).status != NOT_APPLICABLE for r in results)]
    pw = max(len(v.property) for v in shown) + 1 if shown else 28
    _say(f"  {'':<10} {'property':<{pw}} " + "".join(f"{r.design.name:<{width}}" for r in results))
    for v in shown:
        cells = []
        for r in results:
            x = r.verdict(v.property)
            word = _mark(r, x)
            if x.status == VIOLATED:
                word += f" ({len(x.trace)})"
            cells.append(f"{word:<{width}}")
        _say(f"  {v.kind:<10} {v.property:<{pw}} " + "".join(cells).rstrip())
    for (r, spec) in cmp.results[1:]:
        mine = [c for c in cmp.changes if c.design == r.design.name]
        _say("")
        if not mine:
            _say(f"{r.design.name}: no change against {ref.design.name} in this scope")
            continue
        for c in mine:
            if c.what == BREAKS:
                was = "holds" if c.before.status == HOLDS else ref.verdict_words(c.before)
                _say(f"{r.design.name} BREAKS {c.property} ({was} in {ref.design.name}): {c.after.reason}")
                _say(f"  shortest counterexample, {len(c.after.trace)} steps:")
                for line in _steps_text(spec, c.after.trace):
                    _say(f"  {line}")
                if c.after.trace_file:
                    _say(f"  trace: {c.after.trace_file}  (ckptcheck replay {c.after.trace_file})")
            elif c.what == LOSES_WITNESS:
                _say(f"{r.design.name} LOSES WITNESS {c.property}: {c.reason}")
            elif c.what == FIXES:
                _say(f"{r.design.name} fixes {c.property}: {c.reason}")
    broken = {c.design for c in cmp.broken}
    unsure = [r.design.name for r in results if r.outcome not in (OUTCOME_HOLDS, OUTCOME_VIOLATED)]
    words = f"{len(broken)} of {len(results) - 1} variant(s) break a property that {ref.design.name} does not"
    if unsure:
        words += f"; searches of {', '.join(unsure)} were not exhaustive, so what holds there is not proved"
    _say("RESULT: " + words)


def cmd_compare(args) -> int:
    from .compare import compare

    out = out_dir(args.out, "--out")
    report_dir = out_dir(args.report, "--report") if args.report else None
    designs = [_load_design(d) for d in args.designs]
    if len(designs) < 2:
        raise InputError("compare", "designs", "expected at least two designs (the reference first)")
    names = [d.name for d in designs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError("compare", "designs", f"two designs are named {dup[0]!r}; give each variant its own name")
    scope = _scope_from_args(args, designs[0])
    opts = _search_options(args, designs, scope)
    _say(f"comparing {', '.join(names)} (reference: {names[0]}) ...")
    _before_search(designs[0], scope, opts["symmetry"])
    cmp = compare(designs, scope, trace_dir=out, engine=args.engine, progress=_Progress(), **opts)
    print_comparison(cmp)
    if report_dir is not None:
        from ckptcheck.reports.render import build_report, write_reports

        command = "ckptcheck compare " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else "ckptcheck compare"
        report = build_report(cmp.results, title=f"ckptcheck: {' vs '.join(names)}", command=command, changes=cmp.changes)
        paths = write_reports(report, report_dir)
        _say(f"report written to {', '.join(str(p) for p in paths)}")
    if cmp.broken:
        return 1
    return 0 if all(r.outcome in (OUTCOME_HOLDS, OUTCOME_VIOLATED) for r, _ in cmp.results) else EXIT_STATUS[OUTCOME_INCOMPLETE]


def cmd_replay(args) -> int:
    design = _load_design(args.design) if args.design else None
    doc = load_trace_file(args.trace)
    outcome = replay(doc, args.trace, design=design)
    name = outcome.spec.design.name
    if design is None and name not in all_designs():
        _warn(f"{args.trace}: design {name!r} is not a preset or catalog entry: replayed as flink-baseline with the recorded knobs")
    spec = outcome.spec
    _say(f"design   {spec.design.name}")
    _say(f"scope    {spec.scope.describe()}")
    if args.verbose:
        for line in _steps_text(spec, outcome.actions):
            _say(line)
    v = outcome.violation
    if v is None:
        _say(f"replayed {outcome.steps} steps: no property violated on this trace")
    else:
        _say(f"replayed {outcome.steps} steps: {v['property']} ({v['kind']}) VIOLATED at step {v['step']}: {v['reason']}")
        if outcome.earlier:
            e = outcome.earlier
            _say(f"         earlier, at step {e['step']}: {e['property']} ({e['kind']}) VIOLATED: {e['reason']}")
    rec = outcome.recorded
    if rec is not None or v is not None:
        if outcome.reproduced:
            _say("same verdict as recorded in the trace")
        else:
            said = "no violation" if rec is None else (
                f"{rec.get('property')} ({rec.get('kind')}) violated at step {rec.get('step')}: {rec.get('reason')}"
            )
            _say(f"DIFFERENT from the recorded verdict, which says: {said}")
            return 1
    return 1 if v is not None else 0


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def cmd_designs(args) -> int:
    _say("Presets:")
    for d in PRESETS.values():
        _say(f"  {d.name}: {d.description}")
    _say("Catalog variants (known flaws; ckptcheck catalog):")
    for e in CATALOG:
        _say(f"  {e.design.name}: violates {e.violates}")
    _say("Knobs: a design file is TOML; every line below is valid TOML to copy (flink-baseline's values):")
    _say('  based_on = "flink-baseline"   # a preset or catalog entry the file changes; name = "..." names it')
    base = PRESETS["flink-baseline"]
    for k in KNOBS:
        limits = [f"one of {', '.join(_toml_value(c) for c in k.choices)}"] if k.choices else []
        if k.minimum is not None:
            limits.append(f">= {k.minimum}")
        if k.maximum is not None:
            limits.append(f"<= {k.maximum}")
        _say(f"  # {k.doc}" + (f" ({'; '.join(limits)})" if limits else ""))
        _say(f"  {k.name} = {_toml_value(getattr(base, k.name))}")
    _say("Components (replace from Python with design.with_(name=..., FIELD=MySubclass)):")
    for name, cls in base.components().items():
        _say(f"  {name}: {cls}")
    _say("Jobs:")
    for name, (_, doc) in JOBS.items():
        _say(f"  {name}: {doc}")
    return 0


def cmd_catalog(args) -> int:
    out = out_dir(args.out, "--out")
    report_dir = out_dir(args.report, "--report") if args.report else None
    from .catalogrun import run_entry

    missed = 0
    correct_runs: dict = {}
    reported: list = []
    entries: list[dict] = []
    for e in CATALOG:
        row, bad, spec, good = run_entry(e, out, correct_runs, workers=os.cpu_count() or 1)
        entries.append(row)
        reported.append((bad, spec))
        missed += not row["found"]
        v = bad.verdict(e.violates)
        if v.status == VIOLATED:
            _say(f"found   {e.name}: {e.violates} violated in {len(v.trace)} steps: {v.reason}")
            replays = "to the same verdict" if row["replays"] else "DIFFERENTLY"
            _say(f"        trace {v.trace_file} replays {replays}")
        else:
            _say(f"MISSED  {e.name}: {e.violates} {bad.verdict_words(v)}")
        if good.holds:
            verdict = "passes"
        elif good.violated:
            verdict = "FAILS: " + "; ".join(x.reason for x in good.violated)
        else:
            verdict = f"was not searched to the end ({good.searched()})"
        _say(f"        correct design {e.correct.name} {verdict} on the same scope ({good.stats['states']:,} states,"
             f" {row['seconds']:.1f}s)")
    headline = f"{len(CATALOG) - missed}/{len(CATALOG)} catalog entries found"
    _say(f"RESULT: {headline}")
    if report_dir is not None:
        from ckptcheck.reports.render import build_report, write_reports

        report = build_report(reported, title="ckptcheck flaw catalog", command="ckptcheck catalog",
                              catalog=entries, catalog_summary=headline)
        paths = write_reports(report, report_dir)
        _say(f"report written to {', '.join(str(p) for p in paths)}")
    return 0 if missed == 0 else 1


def cmd_findings(args) -> int:
    """Search a design under review in the scopes of its findings manifest and write one
    Markdown report with every violation, its replayable trace, its fix and the fix's search."""
    from ckptcheck.specs.findings import FINDINGS

    if args.design not in FINDINGS:
        raise InputError("findings", args.design, f"expected a design with a findings manifest: {', '.join(sorted(FINDINGS))}")
    out = out_dir(args.out, "--out")
    when = args.date or datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    if not (len(when) == 10 and when[4] == when[7] == "-" and when.replace("-", "").isdigit()):
        raise InputError("--date", when, "expected a date as YYYY-MM-DD")
    design, scopes = FINDINGS[args.design]
    from ckptcheck.reports.render import render_findings

    from .findings import run_findings

    run = run_findings(design, scopes, out / "traces", workers=args.workers or os.cpu_count() or 1,
                       max_seconds=args.max_seconds, progress=_say)
    command = f"ckptcheck findings {args.design}" + (f" --out {args.out}" if args.out != "reports/findings" else "")
    text = render_findings(run, command=command, when=when)
    path = out / f"{when}-{args.design}.md"
    write_text_atomic(path, text)
    for f in run.findings:
        fix = "no fix listed" if f.fix is None else (f"fix {f.fix.fixed.name} holds" if f.fix_holds else f"fix {f.fix.fixed.name} does NOT hold")
        _say(f"{f.property} in scope {f.scope.name}: {len(f.trace)} steps, trace {f.trace_file}"
             f" {'replays' if f.replays else 'does NOT replay'}; {fix}")
    _say(f"report written to {path}")
    return 0 if run.as_expected else 1


def _print_spark_summary(summary: dict, out: Path) -> None:
    _say(
        f"{summary['traces']:,} traces, {summary['steps']:,} steps, {summary['distinct_states']:,} distinct states,"
        f" {summary['seconds']:.1f}s ({summary['traces_per_second'] or 0:,} traces/s, {summary['steps_per_second'] or 0:,} steps/s)"
        f" on {summary['master']}"
    )
    if summary["malformed"]:
        reasons = ", ".join(f"{k}: {v}" for k, v in sorted(summary["malformed_reasons"].items()))
        _say(f"set aside {summary['malformed']:,} malformed trace(s) ({reasons}); see verdicts.parquet")
        for source, reason in summary.get("malformed_examples", []):
            _say(f"  {source}: {reason}")
    for prop, n in sorted(summary["violations"].items()):
        _say(f"VIOLATED {prop}: {n:,} trace(s); shortest: {summary['shortest_counterexamples'][prop]}")
    if not summary["violations"]:
        _say(f"no violation in {summary['traces']:,} traces ({summary['steps']:,} steps): sampled, nothing is proved beyond them")
    _say(f"summary written to {out / 'summary.json'}; verdicts in {out / 'verdicts.parquet'}")
    if summary["violations"]:
        _say(f"report written to {out / 'report' / 'report.html'}")


def cmd_spark(args) -> int:
    from . import spark

    out = out_dir(args.out, "--out")
    if args.spark_mode == "generate":
        design = _load_design(args.design)
        scope = _scope_from_args(args, design)
        _say(f"spark generate: {args.walks:,} random walks of {design.name}, <= {args.steps} steps, seed {args.seed}")
        summary = spark.run_generate(
            design, scope, walks=args.walks, max_steps=args.steps, seed=args.seed,
            partitions=args.partitions, out=out, master=args.master, say=lambda m: print(m, file=sys.stderr, flush=True),
        )
    else:
        _say(f"spark replay: {', '.join(args.traces)}")
        summary = spark.run_replay(
            args.traces, out=out, master=args.master, partitions=args.partitions,
            say=lambda m: print(m, file=sys.stderr, flush=True),
        )
    _print_spark_summary(summary, out)
    if summary["violations"]:
        return 1
    return EXIT_STATUS[OUTCOME_SAMPLED] if args.spark_mode == "generate" else 0


def cmd_itf(args) -> int:
    from .itf import to_itf

    if args.out:
        out_file(args.out, "--out")
    outcome = replay(load_trace_file(args.trace), args.trace)
    out = out_file(args.out, "--out") if args.out else out_file(str(Path(args.trace).with_suffix(".itf.json")), "--out")
    write_json_atomic(out, to_itf(outcome, args.trace))
    _say(f"{outcome.steps + 1} states written to {out}")
    return 0


def cmd_report(args) -> int:
    from ckptcheck.reports.render import report_from_traces, write_reports

    out = out_dir(args.out, "--out")
    report = report_from_traces(args.traces, title="ckptcheck traces", command="ckptcheck report " + " ".join(args.traces))
    paths = write_reports(report, out)
    _say(f"{len(args.traces)} trace(s), {len(report.counterexamples)} counterexample(s); report written to {', '.join(str(p) for p in paths)}")
    return 0


def cmd_prove(args) -> int:
    """Prove each theorem, then refute its mutant (a proof whose wrong variant Z3 cannot
    refute proves nothing): a theorem counts as proved only when both hold."""
    from .proofs import PROVED, REFUTED, THEOREMS

    report_dir = out_dir(args.report, "--report") if args.report else None
    names = args.names or [t.name for t in THEOREMS]
    known = {t.name: t for t in THEOREMS}
    for n in names:
        if n not in known:
            raise InputError("prove", n, f"unknown theorem (known: {', '.join(known)})")
    failed = 0
    total = 0.0
    outcomes = []
    for n in names:
        t = known[n]
        o = t.prove()
        outcomes.append((n, o))
        total += o.seconds
        ok = o.verdict == PROVED
        failed += not ok
        _say(f"{o.verdict.upper():8} {t.name:34} {o.seconds:6.2f}s  {t.statement}")
        if o.detail:
            _say(f"         {'':34}          {o.detail}")
        if o.counterexample:
            shown = ", ".join(f"{k} = {v}" for k, v in o.counterexample.items())
            label = "counterexample" if ok else "COUNTEREXAMPLE"
            _say(f"         {'':34}          {label}: {shown}")
        if t.mutant_statement:
            mo = t.mutant()
            total += mo.seconds
            refuted = mo.verdict == REFUTED
            failed += ok and not refuted
            mark = "refuted" if refuted else f"NOT REFUTED ({mo.verdict})"
            _say(f"         mutant {mark} in {mo.seconds:.2f}s: {t.mutant_statement}")
            if mo.counterexample:
                _say(f"         {'':34}          counterexample: "
                     + ", ".join(f"{k} = {v}" for k, v in mo.counterexample.items()))
    _say(f"RESULT: {len(names) - failed}/{len(names)} theorems proved, each mutant refuted, in {total:.1f}s")
    if report_dir is not None:
        from ckptcheck.reports.render import build_report, write_reports

        rows = [
            {"name": n, "verdict": o.verdict, "seconds": o.seconds, "statement": known[n].statement,
             "counterexample": ", ".join(f"{k} = {v}" for k, v in (o.counterexample or {}).items())}
            for n, o in outcomes
        ]
        paths = write_reports(build_report([], title="ckptcheck proofs", command="ckptcheck prove", proofs=rows), report_dir)
        _say(f"report written to {', '.join(str(p) for p in paths)}")
    return 0 if failed == 0 else 1


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ckptcheck")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ckptcheck", description="Check Flink checkpointing designs against an executable model.")
    p.add_argument("--version", action="version", version=f"ckptcheck {_version()}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    c = sub.add_parser(
        "check", help="check a design in a scope",
        description="Check a design in a scope.  Exit status: 0 every property holds (exhaustive search), 1 a "
        "property is violated, 2 bad input, 3 no violation found but the search was cut short or sampled, 130 "
        "interrupted (the partial result is written).",
        epilog="examples: ckptcheck check --design flip600-regional | ckptcheck check --design my.toml --job "
        "forward-2x2 --checkpoints 1 --failures 0 | ckptcheck check --design mymod:MY_VARIANT --report rep",
    )
    c.add_argument("--design", default="flink-baseline",
                   help="a preset, a catalog variant, a TOML design file or module:NAME (default flink-baseline)")
    _add_search_options(c)
    c.add_argument("--out", default="results", help="where the result and counterexample traces go (default results)")
    c.add_argument("--report", default=None, metavar="DIR", help="also write report.html, report.md and junit.xml to DIR")
    _add_scope_options(c)
    c.set_defaults(func=cmd_check)

    cp = sub.add_parser(
        "compare",
        help="check designs in the same scope; show what each variant breaks against the first",
        description="Check every design in the same scope and engine, print the verdicts side by side, "
        "and for each variant the properties it breaks against the first design (with the shortest "
        "counterexample), the witnesses it loses and what it fixes.  A design is a preset, a catalog "
        "variant, a TOML design file, or module:NAME for a Design defined in Python.  Exit status: 0 no "
        "variant breaks a property, 1 some variant does, 2 bad input, 3 no variant breaks one but some "
        "search was not exhaustive.",
    )
    cp.add_argument("designs", nargs="+", metavar="DESIGN", help="the reference first, then the variants")
    _add_search_options(cp)
    cp.add_argument("--out", default="results/compare", help="where counterexample traces go")
    cp.add_argument("--report", default=None, metavar="DIR", help="also write report.html, report.md and junit.xml to DIR")
    _add_scope_options(cp)
    cp.set_defaults(func=cmd_compare)

    r = sub.add_parser("replay", help="re-execute a trace and report its verdict")
    r.add_argument("trace", help="a trace file (.trace.json) written by check, compare, catalog or spark")
    r.add_argument("-v", "--verbose", action="store_true", help="print every step, in words")
    r.add_argument("--design", default=None, help="the design to replay with (module:NAME for a Python variant); "
                   "its components must be the ones the trace records")
    r.set_defaults(func=cmd_replay)

    d = sub.add_parser("designs", help="list presets, catalog variants, knobs, components and jobs")
    d.set_defaults(func=cmd_designs)

    k = sub.add_parser("catalog", help="run every catalog entry and its correct design on the same scope")
    k.add_argument("--out", default="results/catalog", help="where counterexample traces go")
    k.add_argument("--report", default=None, metavar="DIR", help="also write report.html, report.md and junit.xml to DIR")
    k.set_defaults(func=cmd_catalog)
    fd = sub.add_parser(
        "findings", help="search a design under review in its findings scopes and write a Markdown report",
        description="Search the design in every scope of its findings manifest (specs/findings.py), save and replay "
        "the shortest counterexample of every property it violates, check each listed fix in the same scope, and "
        "write <out>/<date>-<design>.md with what holds.  Exit status: 0 every expected violation found, every "
        "trace replays and every fix holds; 1 otherwise; 2 bad input.",
    )
    fd.add_argument("design", help="a design with a findings manifest (flip600-pr)")
    fd.add_argument("--out", default="reports/findings", help="where the report and its traces go (default reports/findings)")
    fd.add_argument("--date", default=None, help="the date in the report's name, YYYY-MM-DD (default today, UTC)")
    fd.add_argument("--workers", type=_positive, default=None, help="processes per search (default: the number of cores)")
    fd.add_argument("--max-seconds", type=_positive_float, default=None,
                    help="stop each search after S seconds (what it did not search is then reported as incomplete)")
    fd.set_defaults(func=cmd_findings)
    rp = sub.add_parser("report", help="render saved traces as HTML, Markdown and JUnit")
    rp.add_argument("traces", nargs="+", help="trace files to replay and render")
    rp.add_argument("--out", default="reports/out", help="output folder (default reports/out)")
    rp.set_defaults(func=cmd_report)

    sp = sub.add_parser("spark", help="generate and check random walks, or replay traces, with PySpark")
    spm = sp.add_subparsers(dest="spark_mode", required=True, parser_class=_Parser)
    g = spm.add_parser("generate", help="N random walks of a design in a scope, checked in parallel")
    g.add_argument("--design", default="flink-baseline", help="a preset, a catalog variant or a TOML design file (default flink-baseline)")
    g.add_argument("--walks", type=_positive, default=10_000, help="number of random walks (default 10000)")
    g.add_argument("--steps", type=_positive, default=80, help="maximum steps per walk (default 80)")
    g.add_argument("--seed", type=_nonneg, default=0, help="walk i is seeded from (seed, i) (default 0)")
    g.add_argument("--partitions", type=_nonneg, default=None)
    g.add_argument("--master", default=None, help="Spark master (default local[*], or what spark-submit set)")
    g.add_argument("--out", default="results/spark", help="output folder (default results/spark)")
    _add_scope_options(g)
    g.set_defaults(func=cmd_spark)
    rr = spm.add_parser("replay", help="replay and check traces from JSON-lines or Parquet files")
    rr.add_argument("traces", nargs="+", help="JSON-lines files (one trace per line) or Parquet files/folders (a string column trace)")
    rr.add_argument("--partitions", type=_nonneg, default=None)
    rr.add_argument("--master", default=None)
    rr.add_argument("--out", default="results/spark-replay", help="output folder (default results/spark-replay)")
    rr.set_defaults(func=cmd_spark)

    it = sub.add_parser("itf", help="export a trace to the Informal Trace Format (Apalache/Quint viewers)")
    it.add_argument("trace", help="a trace file")
    it.add_argument("--out", default=None, help="output file (default: next to the trace, .itf.json)")
    it.set_defaults(func=cmd_itf)

    from .proofs import THEOREMS

    v = sub.add_parser("prove", help="prove the redistribution theorems with Z3")
    v.add_argument("names", nargs="*", metavar="THEOREM", help=f"theorem names (default: all): {', '.join(t.name for t in THEOREMS)}")
    v.add_argument("--report", default=None, metavar="DIR", help="also write report.html, report.md and junit.xml to DIR")
    v.set_defaults(func=cmd_prove)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InputError as e:
        print(f"ckptcheck: {e}", file=sys.stderr)
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
