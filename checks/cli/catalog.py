"""``ckptcheck catalog``: run every catalog entry (a known flaw) and its correct design on the same
scope, and say which flaws the search finds."""

from __future__ import annotations

import os
import sys
import time

from ckptcheck.checks.run.outputs import out_dir
from ckptcheck.checks.run.results import VIOLATED
from ckptcheck.checks.run.trace import write_json_atomic
from ckptcheck.specs.catalog import CATALOG
from ckptcheck.specs.errors import InputError

from .options import positive_float
from .printing import say


def selected(args) -> tuple:
    """The catalog entries ``--entries`` names (all of them by default), in catalog order; an
    unknown name is bad input, found before any search."""
    if not args.entries:
        return tuple(CATALOG)
    names = [n.strip() for n in args.entries.split(",") if n.strip()]
    known = {e.name for e in CATALOG}
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise InputError("options", "--entries", f"expected catalog entry names separated by commas (ckptcheck designs"
                         f" lists them), got {', '.join(map(repr, unknown)) or repr(args.entries)}")
    return tuple(e for e in CATALOG if e.name in names)


def cmd_catalog(args) -> int:
    catalog = selected(args)
    if args.engine == "reference":
        args.engine = "explore"
    if args.default_scopes and args.report:
        raise InputError("options", "--report", "not with --default-scopes (its table is written to --out as"
                         " default-scopes.json)")
    out = out_dir(args.out, "--out")
    report_dir = out_dir(args.report, "--report") if args.report else None
    if args.default_scopes:
        return cmd_catalog_default_scopes(args, out, catalog)
    from ckptcheck.checks.run.catalog import run_entry

    missed = 0
    cut = 0
    correct_runs: dict = {}
    reported: list = []
    entries: list[dict] = []
    interrupted = None
    for i, e in enumerate(catalog, 1):
        print(f"catalog  [{i}/{len(catalog)}] {e.name}: searching for {e.violates}, then {e.correct.name} on the same scope",
              file=sys.stderr, flush=True)
        try:
            row, bad, good = run_entry(e, out, correct_runs, workers=os.cpu_count() or 1, max_seconds=args.max_seconds,
                                       engine=args.engine)
        except KeyboardInterrupt:  # CatalogInterrupted, or Ctrl-C between searches
            interrupted = f"interrupted during entry {i} of {len(catalog)} ({e.name}); the entries above are complete"
            break
        entries.append(row)
        reported.append(bad)
        missed += not row["found"]
        cut += not row["found"] and not (bad.complete or bad.verdict(e.violates).status == VIOLATED and good.complete)
        v = bad.verdict(e.violates)
        if v.status == VIOLATED:
            say(f"found   {e.name}: {e.violates} violated in {len(v.trace)} steps: {v.reason}")
            replays = "to the same verdict" if row["replays"] else "DIFFERENTLY"
            say(f"        trace {v.trace_file} replays {replays}")
        else:
            say(f"MISSED  {e.name}: {e.violates} {bad.verdict_words(v)}")
        if good.holds:
            verdict = "passes"
        elif good.violated:
            verdict = "FAILS: " + "; ".join(x.reason for x in good.violated)
        else:
            verdict = f"was not searched to the end ({good.searched()})"
        say(f"        correct design {e.correct.name} {verdict} on the same scope ({good.stats['states']:,} states,"
            f" {row['seconds']:.1f}s)")
    done = len(entries)
    headline = f"{done - missed}/{len(catalog)} catalog entries found"
    if cut:
        headline += f"; {cut} not found within --max-seconds {args.max_seconds:g} (a search cut short proves nothing)"
    if interrupted:
        headline += f"; {interrupted}"
    say(f"RESULT: {headline}")
    if report_dir is not None:
        from ckptcheck.checks.run.report import build_report, write_reports

        report = build_report(reported, title="ckptcheck flaw catalog", command="ckptcheck catalog",
                              catalog=entries, catalog_summary=headline)
        paths = write_reports(report, report_dir)
        say(f"report written to {', '.join(str(p) for p in paths)}")
    if interrupted:
        print("ckptcheck: interrupted", file=sys.stderr)
        return 130
    if missed and missed == cut:
        return 3
    return 0 if missed == 0 else 1


def cmd_catalog_default_scopes(args, out, catalog: tuple) -> int:
    """``catalog --default-scopes``: each entry in its correct design's default scopes
    (``checks.run.catalog_reach``); the table on the console and in ``OUT/default-scopes.json``."""
    from ckptcheck.checks.run.api import save_traces
    from ckptcheck.checks.run.catalog_reach import FOUND, MISSED, reach_entry

    rows = []
    interrupted = None
    t0 = time.perf_counter()
    for i, e in enumerate(catalog, 1):
        print(f"catalog  [{i}/{len(catalog)}] {e.name}: searching for {e.violates} in the default scopes of {e.correct.name}",
              file=sys.stderr, flush=True)
        try:
            row, found = reach_entry(e, workers=os.cpu_count() or 1, max_seconds=args.max_seconds, engine=args.engine)
        except KeyboardInterrupt:
            interrupted = f"interrupted during entry {i} of {len(catalog)} ({e.name}); the entries above are complete"
            break
        rows.append(row)
        say(row.line())
        if found is not None:
            paths = save_traces(found, out,
                                prefix=f"{e.name}.default-scope-{row.scope}")
            say(f"        trace {', '.join(str(p) for p in paths if p.name.endswith(f'--{e.violates}.trace.json'))}")
    found_n = sum(r.status == FOUND for r in rows)
    missed = [r.entry for r in rows if r.status == MISSED]
    unsure = [r.entry for r in rows if r.status not in (FOUND, MISSED)]
    headline = f"{found_n}/{len(catalog)} catalog entries found in their base design's default scopes"
    if missed:
        headline += f"; missed (every default scope searched to the end): {', '.join(missed)}"
    if unsure:
        headline += f"; not settled within --max-seconds {args.max_seconds:g}: {', '.join(unsure)}"
    if interrupted:
        headline += f"; {interrupted}"
    path = out / "default-scopes.json"
    write_json_atomic(path, {"headline": headline, "max_seconds": args.max_seconds,
                             "seconds": round(time.perf_counter() - t0, 1), "entries": [r.to_json() for r in rows]})
    say(f"RESULT: {headline}")
    say(f"table written to {path}")
    if interrupted:
        print("ckptcheck: interrupted", file=sys.stderr)
        return 130
    if missed:
        return 1
    return 3 if unsure else 0


def add_parser(sub) -> None:
    """``ckptcheck catalog``."""
    k = sub.add_parser("catalog", help="run every catalog entry and its correct design on the same scope")
    k.add_argument("--out", default="results/catalog", help="where counterexample traces go")
    k.add_argument("--report", default=None, metavar="DIR", help="also write report.html, report.md and junit.xml to DIR")
    k.add_argument("--max-seconds", type=positive_float, default=None, metavar="S",
                   help="bound each of an entry's two searches (the flaw's, the correct design's; with --default-scopes, each"
                   " default scope's) to S seconds; an entry not settled in time is reported as not found within the bound,"
                   " exit 3 if that is all that is missing")
    k.add_argument("--engine", choices=("memo", "explore", "reference"), default="memo",
                   help="the exhaustive engine: memo (the default: one process, each model call computed once; see"
                   " docs/pages/engines.md) or explore, also named reference (workers on every core)")
    k.add_argument("--entries", default=None, metavar="A,B",
                   help="run only these entries (names separated by commas; default every entry)")
    k.add_argument("--default-scopes", action="store_true",
                   help="search each entry in the default scopes of its correct design instead of its own scope (what"
                   " `ckptcheck check --design NAME` would find), and print found or missed per entry; exit 1 if an entry"
                   " is missed in every default scope searched to the end, 3 if one was not settled within --max-seconds")
    k.set_defaults(func=cmd_catalog)
