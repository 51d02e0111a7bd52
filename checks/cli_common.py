"""What the subcommands share: the parser class and its argument types, the search and scope
options (``--engine``, ``--max-states``, ``--job``, ``--checkpoints``, ...) and how they become an
engine's options and a ``Scope``, the progress line, and how a result's verdicts are printed.
Each subcommand lives in a ``cmd_<name>`` module of its own and takes what it needs from here."""

from __future__ import annotations

import argparse
import os
import sys

from ckptcheck.model.protocol import fitted, scope_conflict
from ckptcheck.model.scope import Scope
from ckptcheck.specs.catalog import all_designs
from ckptcheck.specs.designs import load_design
from ckptcheck.specs.errors import InputError
from ckptcheck.specs.jobs import JOBS, load_job
from ckptcheck.specs.scopes import default_scope, default_scope_for, default_scopes_for, flip147_concurrent_scope, known_figures, regional_scope
from ckptcheck.specs.spec import Spec

from .api import ENGINES
from .results import EXHAUSTIVE_ENGINES, HIT, HOLDS, NOT_APPLICABLE, NOT_REACHED, VIOLATED, CheckResult
from .stateful import PROFILES


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse prints usage too)
        self.exit(2, f"ckptcheck: {message} (see '{self.prog} --help')\n")


MAX_COUNT = 1_000_000


def _count(minimum: int, maximum: int = MAX_COUNT):
    """An argparse type: a whole number from ``minimum`` to ``maximum``."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = None
        if v is None or not minimum <= v <= maximum:
            raise argparse.ArgumentTypeError(f"expected an integer from {minimum} to {maximum:,}, got {text!r}")
        return v

    return parse


def _seed(text: str) -> int:
    """An argparse type: any integer seed."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed, got {text!r}") from None


_nonneg = _count(0)
_positive = _count(1)


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not v > 0:  # refuses nan, which no comparison would ever stop on
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return v


MAX_WORKERS = 64


def _workers(text: str) -> int:
    """An argparse type: 1 to ``MAX_WORKERS`` processes (each holds pipes to every other and a
    share of the visited set; far more than the cores only slows a search)."""
    try:
        v = int(text)
    except ValueError:
        v = None
    if v is None or not 1 <= v <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"expected a number of processes from 1 to {MAX_WORKERS} (this machine has"
                                         f" {os.cpu_count() or 1} cores), got {text!r}")
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
    no split enumerator, no task-manager file merging, aligned checkpoints) and the preset components, or replaced
    ones that declare ``treats_subtasks_alike`` (``Design.unlike_subtasks``): another replaced component may treat
    subtask indexes differently."""
    if args.engine == "stateful":
        if args.symmetry == "on":
            warn("--symmetry applies to the exhaustive engines; --engine stateful ignores it")
        return False
    if args.symmetry == "off":
        return False
    why = None
    for d in designs:
        if d.unlike_subtasks():
            why = (f"design {d.name}", f"replaces components ({', '.join(d.unlike_subtasks())}) that may treat subtask indexes"
                   " differently (their classes do not declare treats_subtasks_alike = True)")
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
    opts = dict(symmetry=_symmetry(args, designs, scope, warn), seed=args.seed or 0, profile=args.profile or "ci",
                stop_at="any" if args.stop_at_first else None)
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
            from .spark import check_master, require_pyspark

            require_pyspark("--engine", "spark")  # one line before any work, not a traceback
            check_master(args.master)
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

    def __init__(self, design: str = "") -> None:
        self.last = (0.0, 0)
        self.design = design  # named on a violation's line where several designs are searched in turn

    def named(self, design: str) -> "_Progress":
        """The same progress line for the search of ``design`` (``compare`` searches several)."""
        return _Progress(design)

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

    def violation(self, name: str, kind: str, steps: int) -> None:
        """A violation named the moment the search finds it (its counterexample comes with the
        result, once the search ends)."""
        where = f" in {self.design}" if self.design else ""
        print(f"  ... VIOLATED {name} ({kind}){where}, {steps} steps from the start: the shortest counterexample"
              " follows with the result", file=sys.stderr, flush=True)


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
    p.add_argument("--workers", type=_workers, default=None,
                   help=f"explore: processes sharing the search, 1 to {MAX_WORKERS} (default: the number of cores)")
    p.add_argument("--seed", type=_nonneg, default=None, help="seed for the stateful engine (default 0)")
    p.add_argument("--profile", choices=tuple(PROFILES), default=None, help="Hypothesis settings profile (default ci)")
    p.add_argument("--max-states", type=_nonneg, default=None, help="explore: stop after N distinct states (the result is then incomplete)")
    p.add_argument("--max-seconds", type=_positive_float, default=None, help="explore: stop after S seconds (the result is then incomplete)")
    p.add_argument("--max-depth", type=_nonneg, default=None, help="explore: do not expand states at this depth (the result is then incomplete)")
    p.add_argument("--stop-at-first", action="store_true",
                   help="stop each search at the first violation of any property (the other properties are then not"
                   " decided)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="list every property on its own line, those that do not apply included, with each witness's reason")


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
    g.add_argument("--rpcs-overtake", action=argparse.BooleanOptionalAction, default=None,
                   help="with --staggered-triggers: a trigger RPC may reach a task before a completion or abort notice sent"
                        " to it earlier, and the other way round, as in Flink (default: as in the design's default scope)")
    g.add_argument("--rescaled-tasks-decline", action=argparse.BooleanOptionalAction, default=None,
                   help="unaligned, with --rescale: a subtask restored at a new parallelism declines checkpoints"
                        " (TASK_NOT_READY, not counted) until its channel state is read, as in Flink (default: as in"
                        " the design's default scope)")
    g.add_argument("--late-finish-reports", action=argparse.BooleanOptionalAction, default=None,
                   help="with --staggered-triggers: the JobManager learns that a task finished a step later, and may"
                        " trigger it meanwhile, as in Flink (default: as in the design's default scope)")
    g.add_argument("--suspend-on-failure", action=argparse.BooleanOptionalAction, default=None,
                   help="a task failure aborts the pending checkpoints at once (not counted) and nothing is triggered"
                        " until every restored subtask read its recovered input, as Flink 2.3's checkpoint scheduler"
                        " does (default: as in the design's default scope)")
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
        if args.instant_acks is None:
            scope = fitted(design, scope)  # the default's reduction gives way where it does not fit
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
        rpcs_overtake=pick(args.rpcs_overtake, d.rpcs_overtake),
        late_finish_reports=pick(args.late_finish_reports, d.late_finish_reports),
        rescaled_tasks_decline=pick(args.rescaled_tasks_decline, d.rescaled_tasks_decline),
        suspend_on_failure=pick(args.suspend_on_failure, d.suspend_on_failure),
    )


SCOPE_OPTIONS = ("job", "records", "unbounded", "bounded", "checkpoints", "failures", "declines", "timeouts",
                 "lost_notifications", "channel_capacity", "input_buffers", "rescale", "repattern", "keys_per_split",
                 "staggered_triggers", "stop_with_savepoint", "instant_acks", "spanning_records", "rpcs_overtake",
                 "late_finish_reports", "rescaled_tasks_decline", "suspend_on_failure", "rescales")


def _scopes_from_args(args, design) -> tuple:
    """The scope the options name; with no scope option, every default scope of the design
    (``default_scopes_for``: most designs have one)."""
    first = _scope_from_args(args, design)
    if scope_named(args):
        return (first,)
    return (first,) + tuple(fitted(design, s) for s in default_scopes_for(design)[1:])


def scope_named(args) -> bool:
    """Does a scope option name the scope (``--failures 0`` names one too)?  Otherwise the
    design's default scopes are searched."""
    return any(v is not None and v is not False for v in (getattr(args, name, None) for name in SCOPE_OPTIONS))


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


def _wrapped(head: str, items: list[str], width: int = 110) -> list[str]:
    """``head`` and a comma-separated list, wrapped under the list's first column."""
    lines, cur = [], head
    for k, item in enumerate(items):
        piece = item + ("," if k < len(items) - 1 else "")
        if len(cur) + 1 + len(piece) > width and cur.strip() != head.strip():
            lines.append(cur)
            cur = " " * len(head) + " " + piece
        else:
            cur = f"{cur} {piece}" if cur else piece
    lines.append(cur)
    return lines


def _grouped(result: CheckResult) -> list[str]:
    """The short account: properties that hold and witnesses hit, a line group per kind; the
    properties that do not apply, one line."""
    out: list[str] = []
    plain = [v for v in result.verdicts if result.verdict_words(v) == v.status]
    for kind, status, word in (("always", HOLDS, "hold:"), ("eventually", HOLDS, "holds:"), ("sometimes", HIT, "hit:")):
        names = [v.property + (f" ({len(v.trace)} steps)" if status == HIT else "")
                 for v in plain if v.kind == kind and v.status == status]
        if names:
            out += _wrapped(f"  {kind:<10} {word:<6}", names)
    na = sum(1 for v in plain if v.status == NOT_APPLICABLE)
    if na:
        out.append(f"  {na} properties do not apply to this design and scope (--verbose lists every property, and each"
                   " witness's reason)")
    return out


def print_result(result: CheckResult, header: bool = True, unreached: bool = True, verbose: bool = False) -> None:
    """A scope's verdicts; ``unreached`` False leaves the warning about witnesses it does not
    hit to ``print_suite`` (another default scope may hit them).  By default the properties
    that hold and the witnesses hit are grouped by kind and those that do not apply are one
    line; ``verbose`` lists every property on its own line, as the reports do.  A violation,
    a witness not reached and anything short of a plain verdict always get their own line."""
    if header:
        print_header(result.design, result.scope)
    _say(f"engine   {_engine_line(result)}")
    shown = result.verdicts if verbose else [v for v in result.verdicts if v.status not in (HOLDS, HIT, NOT_APPLICABLE)
                                             or result.verdict_words(v) != v.status]
    if not verbose:
        for line in _grouped(result):
            _say(line)
    for v in shown:
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


def _steps_text(spec: Spec, actions: list) -> list[str]:
    from ckptcheck.reports.narrate import narrate

    steps, _ = narrate(spec, actions)
    return [f"{s.n:>5}. {s.action}: {s.text}" for s in steps]
