"""``ckptcheck validate``: real Flink runs checked against the model (``checks.validate.matching``), either
recorded runs given as files, or runs made here (``--runs N --seed S``) on a local MiniCluster
from a Flink distribution jar (``checks.validate.recorder``)."""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from ckptcheck.checks.run.outputs import out_dir
from ckptcheck.specs.errors import InputError

from .options import count, design_from_arg, seed_arg
from .printing import say

MAX_RUNS = 10_000


def cmd_validate(args) -> int:
    from ckptcheck.checks.validate.runfile import read_run
    from ckptcheck.checks.validate.matching import check_design, describe, design_for, validate

    design = design_from_arg(args.design) if args.design else None
    if args.run and args.runs:
        raise InputError("validate", "RUN", "give recorded runs or --runs N, not both")
    if not args.run and not args.runs:
        raise InputError("validate", "RUN", "expected a recorded run (a ckptcheck-run file) or --runs N to record runs here")
    if args.run:
        runs = [read_run(p) for p in args.run]  # every file read and checked before any search
        designs = [design_for(run, design) for run in runs]
        for run, d in zip(runs, designs):
            check_design(run, d)
        codes = []
        for run, d in zip(runs, designs):
            res = validate(run, d, max_states=args.max_states)
            for line in describe(res):
                say(line)
            codes.append(0 if res.validated else 1 if res.complete else 3)
        say("RESULT: " + _verdict(codes.count(0), codes.count(1), codes.count(3), 0, len(runs)))
        return max(codes)
    return _record_and_validate(args, design)


def _record_and_validate(args, design) -> int:
    from ckptcheck.checks import flinkjvm
    from ckptcheck.checks.validate import recorder
    from ckptcheck.checks.validate.runfile import Run, read_run
    from ckptcheck.checks.validate.matching import check_design, describe, design_for, validate

    keep = out_dir(args.keep, "--keep") if args.keep else None
    plan = recorder.schedule(args.runs, args.seed)
    if design is not None:  # the design against every configuration's job, before any run
        for cfg in plan:
            check_design(Run(f"--runs: configuration {cfg.name}", cfg.header(), ()), design)
    try:
        dist = flinkjvm.open_dist(args.flink_dist)
        classes = recorder.compile_job(dist)
    except flinkjvm.FlinkUnavailable as e:
        print(f"ckptcheck: validate: {e}", file=sys.stderr)
        return 2
    named = f"design {design.name}" if design else "each against Flink as released in its checkpointing mode"
    say(f"validate {args.runs} real run(s) of Flink {dist.version} ({dist.jar}), seed {args.seed}, {named}")
    # without --keep the recordings live in a temporary folder, removed at the end
    folder = keep or Path(tempfile.mkdtemp(prefix="ckptcheck-runs-"))
    folder.mkdir(parents=True, exist_ok=True)
    summary: dict[str, list[int]] = {}
    worst = 0
    done = 0
    interrupted = False
    try:
        for k, cfg in enumerate(plan, 1):
            path = folder / f"run-{k:04d}-{cfg.name}.jsonl"
            t0 = time.perf_counter()
            try:
                _record_whole(recorder, dist, classes, cfg, path)
            except recorder.RunFailed as e:
                say(f"[{k}/{len(plan)}] {cfg.describe()}: the real run failed: {e}")
                summary.setdefault(cfg.name, [0, 0, 0, 0])[3] += 1
                worst = max(worst, 1)
                done += 1
                continue
            took = time.perf_counter() - t0
            run = read_run(path)
            res = validate(run, design_for(run, design), max_states=args.max_states)
            code = 0 if res.validated else 1 if res.complete else 3
            worst = max(worst, code)
            row = summary.setdefault(cfg.name, [0, 0, 0, 0])
            row[0 if code == 0 else 1 if code == 1 else 2] += 1
            done += 1
            faults = sum(1 for e in run.events if e.kind in ("fail", "rescale") or e.kind == "aborted" and e.get("reason") == "CHECKPOINT_EXPIRED")
            verdict = (f"validated ({res.events} events, {res.states:,} states, {faults} fault(s) seen)" if code == 0 else
                       "NOT a behaviour of the model" if code == 1 else "not settled (search bound)")
            say(f"[{k}/{len(plan)}] {cfg.describe()}: ran {took:.1f}s; {verdict}" + (f"; {path}" if keep else ""))
            if code == 0:
                say(f"    the model run that records it hits: {', '.join(res.witnesses) or 'no witness'}")
            if code:
                for line in describe(res)[4:]:
                    say("    " + line)
    except KeyboardInterrupt:  # Ctrl-C: the runs validated so far are summed up, the run under way is not kept
        interrupted = True
    finally:
        if keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    say("per configuration: validated / not a behaviour / not settled / run failed")
    for name, (ok, bad, open_, failed) in sorted(summary.items()):
        say(f"  {name}: {ok} / {bad} / {open_} / {failed}")
    say(f"recordings kept in {keep}" if keep else "recordings not kept (--keep DIR keeps them)")
    totals = [sum(row[i] for row in summary.values()) for i in range(4)]
    verdict = _verdict(*totals, len(plan))
    if interrupted:
        say(f"RESULT: interrupted after {done} of {len(plan)} run(s): {verdict}")
        print("ckptcheck: interrupted", file=sys.stderr)
        return 130
    say("RESULT: " + verdict)
    return worst


def _record_whole(recorder, dist, classes, cfg, path: Path) -> None:
    """Record one run into ``path`` whole or not at all: the job writes a hidden file beside it, renamed
    into place once the run finished (a failed or interrupted run leaves nothing)."""
    part = path.with_name(f".{path.name}.part")
    try:
        recorder.record(dist, classes, cfg, part)
        part.replace(path)
    finally:
        part.unlink(missing_ok=True)


def _verdict(validated: int, not_behaviours: int, unsettled: int, failed: int, total: int) -> str:
    """What the runs say together, in one line."""
    counts = ((not_behaviours, "NOT a behaviour of the model (a model bug, or Flink's)"), (unsettled, "not settled (--max-states)"),
              (failed, "real run(s) failed"))
    return "; ".join([f"{validated} of {total} run(s) validated as behaviours of the model",
                      *(f"{n} {what}" for n, what in counts if n)])


def add_parser(sub) -> None:
    """``ckptcheck validate``."""
    v = sub.add_parser("validate", help="check real Flink runs against the model (trace validation)")
    v.add_argument("run", nargs="*", help="recorded runs (ckptcheck-run JSON lines, see the README)")
    v.add_argument("--design", default=None,
                   help="the design the runs should be behaviours of: a preset, a catalog entry, a .toml file or module:NAME"
                        " (default: Flink as released in the run's checkpointing mode, flink-baseline, flink-unaligned or"
                        " flink-unaligned-timeout)")
    v.add_argument("--runs", type=count(1, MAX_RUNS), default=0, help="record N real runs here on a local MiniCluster and validate each")
    v.add_argument("--seed", type=seed_arg, default=0, help="the seed that draws the runs' configurations and fault schedules (default 0)")
    v.add_argument("--flink-dist", default=None, help="the Flink distribution jar to run (default: the apache-flink package's,"
                   " else $FLINK_HOME/lib)")
    v.add_argument("--keep", default=None, help="a folder to keep the recordings in (default: they are removed at the end)")
    v.add_argument("--max-states", type=count(1, 100_000_000), default=2_000_000,
                   help="stop a run's search after this many (model state, position) pairs (default 2,000,000): then the run is not settled, exit 3")
    v.set_defaults(func=cmd_validate)

