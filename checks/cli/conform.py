"""``ckptcheck conform``: the model's functions checked against the Flink classes they mirror
(``checks.conform.runner`` runs the cases; ``checks.flinkjvm`` reaches Flink)."""

from __future__ import annotations

import argparse
import sys

from ckptcheck.checks.run.outputs import out_dir
from ckptcheck.specs.errors import InputError

from .options import seed_arg
from .printing import say

DEFAULT_CASES = 1_000_000
MAX_CASES = 100_000_000


def _cases(text: str) -> int:
    try:
        v = int(text.replace("_", ""))
    except ValueError:
        v = None
    if v is None or not 0 <= v <= MAX_CASES:
        raise argparse.ArgumentTypeError(f"expected an integer from 0 to {MAX_CASES:,}, got {text!r}")
    return v


def cmd_conform(args) -> int:
    from ckptcheck.checks.conform import runner as conform
    from ckptcheck.checks import flinkjvm

    try:
        families = conform.select(args.families)
    except ValueError as e:
        raise InputError("conform", "--families", str(e).split(": ", 1)[1]) from None
    report_dir = out_dir(args.report, "--report") if args.report else None
    try:
        dist = flinkjvm.open_dist(args.flink_dist)
        classes, broken = flinkjvm.compile_helper(dist)
    except flinkjvm.FlinkUnavailable as e:
        print(f"ckptcheck: conform: {e}", file=sys.stderr)
        return 2
    say(f"conform  Flink {dist.version} ({dist.jar}); seed {args.seed}; {args.cases:,} random cases"
        f" over {len(families)} famil{'ies' if len(families) != 1 else 'y'}, plus each operation's exhaustive small ranges")
    progress = _progress_printer()
    try:
        with flinkjvm.FlinkJVM(dist, classes) as jvm:
            result = conform.run(jvm, families, random_cases=args.cases, seed=args.seed, flink_version=dist.version,
                                 flink_jar=str(dist.jar), broken=broken, progress=progress)
    except flinkjvm.FlinkUnavailable as e:
        print(f"ckptcheck: conform: {e}", file=sys.stderr)
        return 2
    progress(None)
    for line in conform.lines(result):
        say(line)
    for f in result.missing:
        print(f"ckptcheck: conform: {f.name}: {f.missing}", file=sys.stderr)
    if report_dir is not None:
        from ckptcheck.checks.run.report import write_texts
        from ckptcheck.reports.conform import render_conform

        command = "ckptcheck conform " + " ".join(sys.argv[2:]) if len(sys.argv) > 1 and sys.argv[1] == "conform" else "ckptcheck conform"
        paths = write_texts(render_conform(result, command=command), report_dir)
        say(f"report written to {', '.join(str(p) for p in paths)}")
    if result.interrupted:
        print("ckptcheck: interrupted", file=sys.stderr)
    return result.exit_status


def _progress_printer():
    """A progress line on standard error: rewritten in place at most every two seconds on a
    terminal, a new line at most every 15 seconds elsewhere; ``None`` clears it."""
    import time

    state = {"last": time.monotonic(), "shown": False}  # the first line after a first interval: a short run prints none
    tty = sys.stderr.isatty()

    def show(text: str | None) -> None:
        if text is None:
            if state["shown"] and tty:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()
            return
        now = time.monotonic()
        if now - state["last"] < (2.0 if tty else 15.0):
            return
        state["last"] = now
        state["shown"] = True
        sys.stderr.write(("\r\033[K" if tty else "") + text + ("" if tty else "\n"))
        sys.stderr.flush()

    return show


def add_parser(sub) -> None:
    """``ckptcheck conform``."""
    from ckptcheck.checks.conform.families import FAMILIES

    v = sub.add_parser(
        "conform", help="check the model's functions against the Flink classes they mirror (needs a JDK and a Flink jar)",
        description="Run seeded random cases and exhaustive small ranges through each model function and the Flink"
                    " class and method it mirrors; exit 0 when no case differs, 1 on a mismatch, 2 on bad input"
                    " (no JDK, no jar, not a Flink distribution, a family the build cannot run).")
    v.add_argument("--families", default=None, metavar="A,B",
                   help=f"comma-separated families (default: all): {', '.join(f.name for f in FAMILIES)}")
    v.add_argument("--cases", type=_cases, default=DEFAULT_CASES, metavar="N",
                   help=f"random cases in total, shared out by family (default {DEFAULT_CASES:,}); the exhaustive ranges come on top")
    v.add_argument("--seed", type=seed_arg, default=0, metavar="S", help="seed of the random cases (default 0): same seed, same cases")
    v.add_argument("--flink-dist", default=None, metavar="JAR",
                   help="a flink-dist-*.jar to check against (default: the installed apache-flink package's, else $FLINK_HOME/lib's)")
    v.add_argument("--report", default=None, metavar="DIR", help="also write report.html, report.md and junit.xml to DIR")
    v.set_defaults(func=cmd_conform)

