"""``ckptcheck catalog``: run every catalog entry (a known flaw) and its correct design on the same
scope, and say which flaws the search finds."""

from __future__ import annotations

import os
import sys

from ckptcheck.specs.catalog import CATALOG

from .cli_common import _positive_float, _say
from .outputs import out_dir
from .results import VIOLATED


def cmd_catalog(args) -> int:
    out = out_dir(args.out, "--out")
    report_dir = out_dir(args.report, "--report") if args.report else None
    from .catalogrun import run_entry

    from .catalogrun import CatalogInterrupted

    missed = 0
    cut = 0
    correct_runs: dict = {}
    reported: list = []
    entries: list[dict] = []
    interrupted = None
    for i, e in enumerate(CATALOG, 1):
        print(f"catalog  [{i}/{len(CATALOG)}] {e.name}: searching for {e.violates}, then {e.correct.name} on the same scope",
              file=sys.stderr, flush=True)
        try:
            row, bad, spec, good = run_entry(e, out, correct_runs, workers=os.cpu_count() or 1, max_seconds=args.max_seconds)
        except KeyboardInterrupt:  # CatalogInterrupted, or Ctrl-C between searches
            interrupted = f"interrupted during entry {i} of {len(CATALOG)} ({e.name}); the entries above are complete"
            break
        entries.append(row)
        reported.append((bad, spec))
        missed += not row["found"]
        cut += not row["found"] and not (bad.complete or bad.verdict(e.violates).status == VIOLATED and good.complete)
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
    done = len(entries)
    headline = f"{done - missed}/{len(CATALOG)} catalog entries found"
    if cut:
        headline += f"; {cut} not found within --max-seconds {args.max_seconds:g} (a search cut short proves nothing)"
    if interrupted:
        headline += f"; {interrupted}"
    _say(f"RESULT: {headline}")
    if report_dir is not None:
        from ckptcheck.reports.render import build_report, write_reports

        report = build_report(reported, title="ckptcheck flaw catalog", command="ckptcheck catalog",
                              catalog=entries, catalog_summary=headline)
        paths = write_reports(report, report_dir)
        _say(f"report written to {', '.join(str(p) for p in paths)}")
    if interrupted:
        print("ckptcheck: interrupted", file=sys.stderr)
        return 130
    if missed and missed == cut:
        return 3
    return 0 if missed == 0 else 1


def add_parser(sub) -> None:
    """``ckptcheck catalog``."""
    k = sub.add_parser("catalog", help="run every catalog entry and its correct design on the same scope")
    k.add_argument("--out", default="results/catalog", help="where counterexample traces go")
    k.add_argument("--report", default=None, metavar="DIR", help="also write report.html, report.md and junit.xml to DIR")
    k.add_argument("--max-seconds", type=_positive_float, default=None, metavar="S",
                   help="bound each of an entry's two searches (the flaw's, the correct design's) to S seconds; an entry"
                   " not settled in time is reported as not found within the bound, exit 3 if that is all that is missing")
    k.set_defaults(func=cmd_catalog)
