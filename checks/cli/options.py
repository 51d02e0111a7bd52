"""The command line's shared options: the parser class and its argument types, the search options
(``--engine``, ``--max-states``, ...) and the scope options (``--job``, ``--checkpoints``, ...), and how they
become an engine's options and a ``Scope``.  Each subcommand's module takes what it needs from here and
from ``printing``."""

from __future__ import annotations

import argparse
import os

from ckptcheck.model.protocol import fitted, scope_conflict
from ckptcheck.model.scope import Scope
from ckptcheck.specs.catalog import all_designs
from ckptcheck.specs.designs import load_design
from ckptcheck.specs.errors import InputError
from ckptcheck.specs.jobs import JOBS, job_by_name, load_job
from ckptcheck.specs.scopes import default_scope, default_scope_for, default_scopes_for, flip147_concurrent_scope, regional_scope
from ckptcheck.specs.spec import why_not_symmetric
from ckptcheck.specs.verdicts import EXHAUSTIVE_ENGINES

from ckptcheck.checks.engine import ENGINES, REFERENCE, default_engine, memo_core
from ckptcheck.checks.engine.stateful import PROFILES

from .printing import warn


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse prints usage too)
        self.exit(2, f"ckptcheck: {message} (see '{self.prog} --help')\n")


MAX_COUNT = 1_000_000
MAX_STATES = 10_000_000_000  # --max-states: the full FLIP-600 scope alone has 6.2 million symmetry classes


def count(minimum: int, maximum: int = MAX_COUNT):
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


def seed_arg(text: str) -> int:
    """An argparse type: any integer seed."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed, got {text!r}") from None


nonneg = count(0)
positive = count(1)


def positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not v > 0:  # refuses nan, which no comparison would ever stop on
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return v


def fraction(text: str) -> float:
    """A fraction from 0 to 1 (``--memo-check``)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction from 0 to 1, got {text!r}") from None
    if not 0 <= v <= 1:  # refuses nan too
        raise argparse.ArgumentTypeError(f"expected a fraction from 0 to 1, got {text!r}")
    return v


MAX_WORKERS = 64


def workers_arg(text: str) -> int:
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


def design_from_arg(spec: str):
    return load_design(spec, all_designs(), warn=warn)


def symmetry_for(args, designs: list, scope, warn=warn) -> bool:
    """Symmetry reduction where every design allows it (``auto``, the default), never
    (``--no-symmetry``), or required (``--symmetry``: refused where it does not apply, before
    anything runs); ``specs.spec.why_not_symmetric`` says where it applies."""
    if args.engine == "stateful":
        if args.symmetry == "on":
            warn("--symmetry applies to the exhaustive engines; --engine stateful ignores it")
        return False
    if args.symmetry == "off":
        return False
    for d in designs:
        why = why_not_symmetric(d, scope)
        if why:
            if args.symmetry == "on":
                raise InputError("--symmetry", *why)
            return False
    return True


MEMO_CHECK_FOR_PYTHON_COMPONENTS = 0.01


def resolve_engine(args, designs: list = ()) -> str:
    """``args.engine`` made definite: none named is ``memo``, or the reference engine
    (``explore``) where an option asks for what only it has: ``--exact``, or ``--workers`` above
    1 where the memo engine cannot fork (its compiled loop was not built, or a design with
    Python components of its own has it check its tables, on the Python loop).  ``reference``
    is ``explore``."""
    if args.engine is None:
        checked = args.memo_check if args.memo_check is not None else (
            MEMO_CHECK_FOR_PYTHON_COMPONENTS if any(d.replaced() for d in designs) else 0.0)
        args.engine = default_engine("exact" if args.exact else "fingerprint", args.workers or 1, checked)
    elif args.engine == REFERENCE:
        args.engine = "explore"
    return args.engine


def search_options(args, designs: list, scope, quiet: bool = False) -> dict:
    """The engine options that apply, with a warning for each one given that does not (not
    repeated with ``quiet``: a design's further default scopes)."""
    tell = (lambda msg: None) if quiet else warn
    resolve_engine(args, designs)
    design = designs[0]
    explore_only = {"--max-states": args.max_states, "--max-seconds": args.max_seconds, "--max-depth": args.max_depth}
    stateful_only = {"--seed": args.seed, "--profile": args.profile}
    spark_only = {"--master": args.master, "--partitions": args.partitions}
    if args.engine in EXHAUSTIVE_ENGINES:
        for opt, v in stateful_only.items():
            if v is not None:
                tell(f"{opt} applies to --engine stateful; the exhaustive search ignores it")
    else:
        for opt, v in explore_only.items():
            if v is not None:
                tell(f"{opt} applies to --engine explore or spark; the stateful engine ignores it")
    if args.engine != "memo" and args.memo_check is not None:
        tell(f"--memo-check applies to --engine memo; --engine {args.engine} ignores it")
    if args.engine != "spark":
        for opt, v in spark_only.items():
            if v is not None:
                tell(f"{opt} applies to --engine spark; --engine {args.engine} ignores it")
    elif design.replaced():
        comp, qual = next(iter(design.replaced().items()))
        raise InputError(design.name, f"components.{comp}", f"--engine spark runs presets, catalog entries and TOML designs; {qual}"
                         " would have to be importable on every executor (use --engine explore)")
    opts = dict(symmetry=symmetry_for(args, designs, scope, tell), seed=args.seed or 0, profile=args.profile or "ci",
                stop_at="any" if args.stop_at_first else None)
    if args.engine == "explore":
        workers = args.workers or os.cpu_count() or 1
        if args.exact:
            if (args.workers or 1) > 1:
                tell("--workers: the exact store runs in one process")
            workers = 1
        opts.update(max_states=args.max_states, max_seconds=args.max_seconds, max_depth=args.max_depth,
                    store="exact" if args.exact else "fingerprint", workers=workers)
    elif args.engine == "memo":
        if args.exact:
            tell("--exact applies to --engine explore; --engine memo ignores it")
        memo_check = args.memo_check
        if memo_check is None:  # a component of the user's own might keep state outside the world
            memo_check = MEMO_CHECK_FOR_PYTHON_COMPONENTS if any(d.replaced() for d in designs) else 0.0
        workers = args.workers or 1  # one process unless told: its results then are the same on every machine
        if workers > 1 and (memo_check or not memo_core.available()):  # workers run the compiled loop
            tell("--workers: the memo engine's workers run its compiled loop, which "
                 + ("was not built here" if not memo_core.available() else "--memo-check does not take") + "; one process")
            workers = 1
        opts.update(max_states=args.max_states, max_seconds=args.max_seconds, max_depth=args.max_depth,
                    memo_check=memo_check, workers=workers)
    else:
        # one worker is what the other engines run anyway: not worth a warning
        for opt, v in {"--exact": args.exact or None, "--workers": args.workers if (args.workers or 1) > 1 else None}.items():
            if v is not None:
                tell(f"{opt} applies to --engine explore or memo; --engine {args.engine} ignores it")
        if args.engine == "spark":
            from ckptcheck.checks.engine.spark_session import check_master, require_pyspark

            require_pyspark("--engine", "spark")  # one line before any work, not a traceback
            check_master(args.master)
            opts.update(max_states=args.max_states, max_seconds=args.max_seconds, max_depth=args.max_depth,
                        master=args.master, partitions=args.partitions)
    return opts


def add_search_options(p: argparse.ArgumentParser) -> None:
    """The engine and its bounds (check and compare)."""
    p.add_argument("--engine", choices=(*ENGINES, REFERENCE), default=None,
                   help="memo (the default): exhaustive BFS, each model call computed once (one process); explore, also"
                   " named reference: the same search calling the model on every state, the reference the memo engine"
                   " is tested against (the default where --exact asks for it, or --workers above 1 where the memo engine"
                   " cannot fork); spark: the same search on"
                   " Spark; stateful: Hypothesis random runs (sampled: proves nothing)")
    p.add_argument("--memo-check", type=fraction, default=None, metavar="P",
                   help="memo: compute this fraction of the answers taken from the tables again with the plain model"
                   " (0 to 1; a difference stops the search naming the function and the field; default 0, and"
                   f" {MEMO_CHECK_FOR_PYTHON_COMPONENTS:g} for a design with Python components of its own)")
    p.add_argument("--master", default=None, help="spark: the Spark master URL (default local[*], or spark-submit's)")
    p.add_argument("--partitions", type=positive, default=None,
                   help="spark: partitions of the frontier and visited set (default 2 x the cluster's cores)")
    sym = p.add_mutually_exclusive_group()
    sym.add_argument("--symmetry", dest="symmetry", action="store_const", const="on", default="auto",
                     help="require symmetry reduction (refused where subtasks are not interchangeable); by default it is"
                     " on wherever they are: forward edges only, equal parallelism, preset components")
    sym.add_argument("--no-symmetry", dest="symmetry", action="store_const", const="off",
                     help="search every state, not one per symmetry class")
    p.add_argument("--exact", action="store_true",
                   help="explore (the reference engine, which this option makes the default): store every state instead of"
                   " 64-bit fingerprints (about 10x the memory, one process)")
    p.add_argument("--workers", type=workers_arg, default=None,
                   help=f"processes sharing the search, 1 to {MAX_WORKERS}: explore's (default: the number of cores), or the memo"
                   " engine's compiled loop's (default 1; forked once a level has 2,000 states)")
    p.add_argument("--seed", type=nonneg, default=None, help="seed for the stateful engine (default 0)")
    p.add_argument("--profile", choices=tuple(PROFILES), default=None, help="Hypothesis settings profile (default ci)")
    p.add_argument("--max-states", type=count(0, MAX_STATES), default=None,
                   help="exhaustive engines: stop after N distinct states (the result is then incomplete)")
    p.add_argument("--max-seconds", type=positive_float, default=None, help="exhaustive engines: stop after S seconds (the result is then incomplete)")
    p.add_argument("--max-depth", type=nonneg, default=None, help="exhaustive engines: do not expand states at this depth (the result is then incomplete)")
    p.add_argument("--stop-at-first", action="store_true",
                   help="stop each search at the first violation of any property (the other properties are then not"
                   " decided)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="list every property on its own line, those that do not apply included, with each witness's reason")


def add_scope_options(p: argparse.ArgumentParser) -> None:
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
    g.add_argument("--records", type=nonneg, default=None, help="records per source split")
    ends = g.add_mutually_exclusive_group()
    ends.add_argument("--unbounded", action="store_true", help="sources never reach end of input")
    ends.add_argument("--bounded", action="store_true",
                      help="sources reach end of input (the default, except where the design's default scope is unbounded)")
    g.add_argument("--checkpoints", type=nonneg, default=None, help="checkpoints triggered before end of input")
    g.add_argument("--failures", type=nonneg, default=None, help="task failures")
    g.add_argument("--declines", type=nonneg, default=None, help="checkpoint declines")
    g.add_argument("--timeouts", type=nonneg, default=None, help="checkpoint timeouts")
    g.add_argument("--lost-notifications", type=nonneg, default=None, help="lost coordinator RPCs")
    g.add_argument("--jm-failovers", type=nonneg, default=None,
                   help="JobManager failovers (HA): a new JobManager recovers the job with a new CheckpointCoordinator")
    g.add_argument("--channel-capacity", type=nonneg, default=None,
                   help="records a subpartition holds (0: unbounded); a full one backpressures its producer")
    g.add_argument("--input-buffers", type=nonneg, default=None,
                   help="unaligned checkpoints: records an input channel holds before its consumer reads them (0: local channels)")
    g.add_argument("--rescale", action="append", type=rescale_arg, default=None, metavar="VERTEX=P",
                   help="the user may restart the job from its latest checkpoint with VERTEX at parallelism P (repeatable)")
    g.add_argument("--repattern", action="append", default=None, metavar="EDGE",
                   help="with --rescale: the rescaled job flips EDGE (source->target, or source->target/odd for a side"
                        " output) between POINTWISE and ALL_TO_ALL (repeatable)")
    g.add_argument("--keys-per-split", type=nonneg, default=None,
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
    g.add_argument("--restart-aligned", action=argparse.BooleanOptionalAction, default=None,
                   help="unaligned designs: the user restarts the job once (--rescales) at its own parallelism with"
                        " unaligned checkpoints off; the restarted job restores the checkpoint's channel state and takes"
                        " aligned checkpoints (default: as in the design's default scope)")
    g.add_argument("--instant-acks", action=argparse.BooleanOptionalAction, default=None,
                   help="a reduction for aligned designs (not with timeouts that complete regionally): an acknowledgement counts when the snapshot is"
                        " taken and the last one completes the checkpoint in a step of its own; every verdict is the"
                        " full model's, ack order is not shown (default: as in the design's default scope)")
    g.add_argument("--spanning-records", action=argparse.BooleanOptionalAction, default=None,
                   help="unaligned checkpoints: a record may straddle two buffers, its head in the consumer's"
                        " deserializer while its tail is still queued (default: as in the design's default scope)")
    g.add_argument("--stop-with-savepoint", choices=("drain", "no-drain"), default=None,
                   help="the user may stop the job once with a savepoint, with --drain or without (then resume from it)")
    g.add_argument("--rescales", type=nonneg, default=None,
                   help="restarts at another parallelism (default 1 with --rescale; each toggles between the two)")


def rescale_arg(text: str) -> tuple[str, int]:
    """``VERTEX=P`` for ``--rescale``."""
    name, sep, p = text.partition("=")
    if not sep or not name or not p.isdigit():
        raise argparse.ArgumentTypeError(f"expected VERTEX=PARALLELISM like sink=2, got {text!r}")
    return name, int(p)


def scope_from_args(args, design) -> Scope:
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
    restart_aligned = pick(getattr(args, "restart_aligned", None), d.restart_aligned)
    own = args.job is None and d.restart_aligned == restart_aligned  # the default scope's restarts still fit
    rescales = 1 if args.rescale or restart_aligned and not own else d.max_rescales if own else 0
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
        max_jm_failovers=pick(args.jm_failovers, d.max_jm_failovers),
        channel_capacity=pick(args.channel_capacity, d.channel_capacity),
        input_buffers=pick(args.input_buffers, d.input_buffers),
        rescale=tuple(args.rescale) if args.rescale else (d.rescale if args.job is None and not restart_aligned else ()),
        max_rescales=pick(args.rescales, rescales),
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
        restart_aligned=restart_aligned,
    )


SCOPE_OPTIONS = ("job", "records", "unbounded", "bounded", "checkpoints", "failures", "declines", "timeouts",
                 "lost_notifications", "jm_failovers", "channel_capacity", "input_buffers", "rescale", "repattern", "keys_per_split",
                 "staggered_triggers", "stop_with_savepoint", "instant_acks", "spanning_records", "rpcs_overtake",
                 "late_finish_reports", "rescaled_tasks_decline", "suspend_on_failure", "restart_aligned", "rescales")


def scopes_from_args(args, design) -> tuple:
    """The scope the options name; with no scope option, every default scope of the design
    (``default_scopes_for``: most designs have one)."""
    first = scope_from_args(args, design)
    if scope_named(args):
        return (first,)
    return (first,) + tuple(fitted(design, s) for s in default_scopes_for(design)[1:])


def scope_named(args) -> bool:
    """Does a scope option name the scope (``--failures 0`` names one too)?  Otherwise the
    design's default scopes are searched."""
    return any(v is not None and v is not False for v in (getattr(args, name, None) for name in SCOPE_OPTIONS))




# Scope field -> (option, how a value is written); booleans are --name / --no-name.
_OPTION_OF = (
    ("records_per_split", "--records"), ("max_checkpoints", "--checkpoints"), ("max_failures", "--failures"),
    ("max_declines", "--declines"), ("max_timeouts", "--timeouts"), ("max_lost_notifications", "--lost-notifications"),
    ("max_jm_failovers", "--jm-failovers"),
    ("channel_capacity", "--channel-capacity"), ("input_buffers", "--input-buffers"), ("keys_per_split", "--keys-per-split"),
    ("max_rescales", "--rescales"),
)
_FLAG_OF = (
    ("staggered_triggers", "--staggered-triggers"), ("rpcs_overtake", "--rpcs-overtake"),
    ("late_finish_reports", "--late-finish-reports"), ("rescaled_tasks_decline", "--rescaled-tasks-decline"),
    ("suspend_on_failure", "--suspend-on-failure"), ("restart_aligned", "--restart-aligned"), ("instant_acks", "--instant-acks"),
    ("spanning_records", "--spanning-records"),
)


def scope_options(design, scope: Scope) -> list[str] | None:
    """The command-line options that make ``check --design <design>`` search ``scope``: the job and every
    limit and flag, each written out (a named scope takes what it does not say from the design's default
    scope, which may change).  None where the options cannot say it: a job that is not a preset.  The
    options are parsed back and must give ``scope`` (so a printed command searches what it says)."""
    if scope.job_name not in JOBS or job_by_name(scope.job_name) != scope.job:
        return None
    words = ["--job", scope.job_name]
    for name, option in _OPTION_OF:
        words += [option, str(getattr(scope, name))]
    words.append("--bounded" if scope.bounded else "--unbounded")
    for name, option in _FLAG_OF:
        words.append(option if getattr(scope, name) else "--no-" + option[2:])
    for vertex, p in scope.rescale:
        words += ["--rescale", f"{vertex}={p}"]
    for edge in scope.repattern:
        words += ["--repattern", edge]
    if scope.stop_with_savepoint:
        words += ["--stop-with-savepoint", scope.stop_with_savepoint]
    from .main import build_parser  # the parser of every subcommand (main imports this module)

    args = build_parser().parse_args(["check", "--design", "flink-baseline", *words])
    try:
        same = scope_from_args(args, design) == scope
    except InputError:
        same = False
    return words if same else None
