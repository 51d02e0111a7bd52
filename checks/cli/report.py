"""``ckptcheck report``: replay saved traces and render them as HTML, Markdown and JUnit."""

from __future__ import annotations

from ckptcheck.checks.run.outputs import out_dir

from .printing import say


def cmd_report(args) -> int:
    from ckptcheck.checks.run.report import report_from_traces, write_reports

    out = out_dir(args.out, "--out")
    report = report_from_traces(args.traces, title="ckptcheck traces", command="ckptcheck report " + " ".join(args.traces))
    paths = write_reports(report, out)
    say(f"{len(args.traces)} trace(s), {len(report.counterexamples)} counterexample(s); report written to {', '.join(str(p) for p in paths)}")
    return 0


def add_parser(sub) -> None:
    """``ckptcheck report``."""
    rp = sub.add_parser("report", help="render saved traces as HTML, Markdown and JUnit")
    rp.add_argument("traces", nargs="+", help="trace files to replay and render")
    rp.add_argument("--out", default="reports/out", help="output folder (default reports/out)")
    rp.set_defaults(func=cmd_report)
