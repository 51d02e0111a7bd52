"""``ckptcheck spark generate`` and ``ckptcheck spark replay``: check random walks of a design, or
replay saved traces, on PySpark (``checks.run.spark`` does the work)."""

from __future__ import annotations

import sys
from pathlib import Path

from ckptcheck.checks.run.outputs import out_dir
from ckptcheck.checks.run.results import EXIT_STATUS, OUTCOME_SAMPLED

from .options import Parser, add_scope_options, design_from_arg, nonneg, positive, scope_from_args
from .printing import say


def _print_spark_summary(summary: dict, out: Path) -> None:
    say(
        f"{summary['traces']:,} traces, {summary['steps']:,} steps, {summary['distinct_states']:,} distinct states,"
        f" {summary['seconds']:.1f}s ({summary['traces_per_second'] or 0:,} traces/s, {summary['steps_per_second'] or 0:,} steps/s)"
        f" on {summary['master']}"
    )
    if summary["malformed"]:
        reasons = ", ".join(f"{k}: {v}" for k, v in sorted(summary["malformed_reasons"].items()))
        say(f"set aside {summary['malformed']:,} malformed trace(s) ({reasons}); see verdicts.parquet")
        for source, reason in summary.get("malformed_examples", []):
            say(f"  {source}: {reason}")
    for prop, n in sorted(summary["violations"].items()):
        say(f"VIOLATED {prop}: {n:,} trace(s); shortest: {summary['shortest_counterexamples'][prop]}")
    if not summary["violations"]:
        say(f"no violation in {summary['traces']:,} traces ({summary['steps']:,} steps): sampled, nothing is proved beyond them")
    say(f"summary written to {out / 'summary.json'}; verdicts in {out / 'verdicts.parquet'}")
    if summary["violations"]:
        say(f"report written to {out / 'report' / 'report.html'}")


def cmd_spark(args) -> int:
    from ckptcheck.checks.run import spark

    out = out_dir(args.out, "--out")
    spark.check_master(args.master)  # before Spark starts: Spark answers a bad URL with a Java traceback
    spark.require_pyspark()
    if args.spark_mode == "generate":
        design = design_from_arg(args.design)
        scope = scope_from_args(args, design)
        say(f"spark generate: {args.walks:,} random walks of {design.name}, <= {args.steps} steps, seed {args.seed}")
        summary = spark.run_generate(
            design, scope, walks=args.walks, max_steps=args.steps, seed=args.seed,
            partitions=args.partitions, out=out, master=args.master, say=lambda m: print(m, file=sys.stderr, flush=True),
        )
    else:
        say(f"spark replay: {', '.join(args.traces)}")
        summary = spark.run_replay(
            args.traces, out=out, master=args.master, partitions=args.partitions,
            say=lambda m: print(m, file=sys.stderr, flush=True),
        )
    from ckptcheck.checks.run.report import write_spark_report

    write_spark_report(summary, out)
    _print_spark_summary(summary, out)
    if summary["violations"]:
        return 1
    return EXIT_STATUS[OUTCOME_SAMPLED] if args.spark_mode == "generate" else 0


def add_parser(sub) -> None:
    """``ckptcheck spark`` and its two modes."""
    sp = sub.add_parser("spark", help="generate and check random walks, or replay traces, with PySpark")
    spm = sp.add_subparsers(dest="spark_mode", required=True, parser_class=Parser)
    g = spm.add_parser("generate", help="N random walks of a design in a scope, checked in parallel")
    g.add_argument("--design", default="flink-baseline", help="a preset, a catalog variant or a TOML design file (default flink-baseline)")
    g.add_argument("--walks", type=positive, default=10_000, help="number of random walks (default 10000)")
    g.add_argument("--steps", type=positive, default=80, help="maximum steps per walk (default 80)")
    g.add_argument("--seed", type=nonneg, default=0, help="walk i is seeded from (seed, i) (default 0)")
    g.add_argument("--partitions", type=nonneg, default=None)
    g.add_argument("--master", default=None, help="Spark master: local[N], spark://HOST:PORT, yarn, k8s://URL, ..."
                   " (default local[*], or what spark-submit set)")
    g.add_argument("--out", default="results/spark", help="output folder (default results/spark)")
    add_scope_options(g)
    g.set_defaults(func=cmd_spark)
    rr = spm.add_parser("replay", help="replay and check traces from trace files, JSON-lines or Parquet files")
    rr.add_argument("traces", nargs="+", help="trace files (.trace.json, one trace a file), JSON-lines files (one trace a line),"
                    " Parquet files (a string column trace), or folders of them")
    rr.add_argument("--partitions", type=nonneg, default=None)
    rr.add_argument("--master", default=None, help="Spark master, as for generate (default local[*], or what spark-submit set)")
    rr.add_argument("--out", default="results/spark-replay", help="output folder (default results/spark-replay)")
    rr.set_defaults(func=cmd_spark)
