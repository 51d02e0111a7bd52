"""``ckptcheck findings``: search a design under review in the scopes of its findings manifest
and write a Markdown report (``checks.run.findings`` does the work)."""

from __future__ import annotations

import datetime
import os
import shlex

from ckptcheck.checks.run.outputs import out_dir
from ckptcheck.checks.run.trace import write_text_atomic
from ckptcheck.specs.errors import InputError
from ckptcheck.checks.engine import memo_core

from .options import positive_float, workers_arg
from .printing import say, warn


def cmd_findings(args) -> int:
    """Search a design under review in the scopes of its findings manifest and write one
    Markdown report with every violation, its replayable trace, its fix and the fix's search."""
    from ckptcheck.specs.findings import FINDINGS, READINGS, RULES

    if args.design not in FINDINGS:
        raise InputError("findings", args.design, f"expected a design with a findings manifest: {', '.join(sorted(FINDINGS))}")
    out = out_dir(args.out, "--out")
    when = args.date or datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    try:
        ok = len(when) == 10 and datetime.date.fromisoformat(when).isoformat() == when
    except ValueError:
        ok = False
    if not ok:
        raise InputError("--date", when, "expected a calendar date as YYYY-MM-DD")
    design, scopes = FINDINGS[args.design]
    if args.engine is None:  # the memo engine, unless workers are asked for where it cannot fork
        args.engine = "explore" if (args.workers or 1) > 1 and not memo_core.available() else "memo"
    elif args.engine == "reference":
        args.engine = "explore"
    if args.engine == "memo" and (args.workers or 1) > 1 and not memo_core.available():
        warn("--workers: the memo engine's workers run its compiled loop, which was not built here; one process")
    from ckptcheck.checks.run.findings import run_findings
    from ckptcheck.checks.run.report import findings_report

    workers = args.workers or ((os.cpu_count() or 1) if args.engine == "explore" else 1)
    run = run_findings(design, scopes, out / "traces", workers=workers,
                       max_seconds=args.max_seconds, progress=say, readings=READINGS.get(args.design), engine=args.engine,
                       rules=RULES.get(args.design, ()))
    if run.interrupted:
        for f in run.findings:
            say(f"{f.property} in scope {f.scope.name}: {len(f.trace)} steps, trace {f.trace_file}")
        readings = READINGS.get(args.design)
        total = len(scopes) * (len(readings.values) if readings else 1)
        say(f"interrupted: {len(run.runs)} of {total} searches ran to the end; no report written (a findings"
            " report covers every scope of the manifest)")
        return 130
    text = findings_report(run, command=command_line(args), when=when)
    path = out / f"{when}-{args.design}.md"
    write_text_atomic(path, text)
    for f in run.findings:
        if f.fix is None:
            fix = "no fix listed"
        elif f.fix_holds:
            fix = f"fix {f.fix.fixed.name} holds"
        elif f.fix_result is not None and f.fix_result.violated:
            fix = f"fix {f.fix.fixed.name} does NOT hold: " + "; ".join(v.property for v in f.fix_result.violated)
        else:  # cut short: as the report says it, never "does NOT hold"
                fix = (f"fix {f.fix.fixed.name}: {f.fix_result.headline()}" if f.fix_result else
                   f"fix {f.fix.fixed.name}: not searched, the --max-seconds bound was spent first")
        under = ""
        if run.readings is not None:
            under = f"; under {run.readings.knob} " + ", ".join(f"{r}: {f.under(r)}" for r in f.by_reading)
        say(f"{f.property} in scope {f.scope.name}: {len(f.trace)} steps, trace {f.trace_file}"
            f" {'replays' if f.replays else 'does NOT replay'}; {fix}{under}")
    for rr in run.rules:
        verdict = {True: f"still needed ({rr.result.violated[0].property if rr.result.violated else ''}, {rr.steps} steps)",
                   False: "moot here (every property holds)", None: "not settled"}[rr.needed]
        say(f"without {rr.check.rule.split(' (')[0]}: {verdict}" + ("" if rr.as_expected else "; NOT as the manifest expects"))
    for line, _ in run.not_found():
        say(line)
    say(f"report written to {path}")
    unsettled = run.unsettled
    if unsettled:
        say(f"RESULT: {len(unsettled)} of {len(run.manifest)} expected violation(s) not settled within --max-seconds"
            f" {args.max_seconds:g}: the report lists each; without the bound the run takes its whole time")
    else:
        say("RESULT: " + ("every expected violation found, every trace replays, every fix holds" if run.as_expected
                          else "the run differs from the manifest (above)"))
    return run.exit_status


def command_line(args) -> str:
    """The command that ran, with every option given (the report's ``Command:`` line)."""
    words = ["ckptcheck", "findings", args.design]
    if args.out != "reports/findings":
        words += ["--out", args.out]
    if args.date:
        words += ["--date", args.date]
    if args.workers:
        words += ["--workers", str(args.workers)]
    if args.engine != "memo":
        words += ["--engine", args.engine]
    if args.max_seconds:
        words += ["--max-seconds", f"{args.max_seconds:g}"]
    return shlex.join(words)


def add_parser(sub) -> None:
    """``ckptcheck findings``."""
    fd = sub.add_parser(
        "findings", help="search a design under review in its findings scopes and write a Markdown report",
        description="Search the design in every scope of its findings manifest (specs/flip600/findings.py for flip600-pr, "
        "specs/unaligned/findings.py for pointwise-downstream), save and replay "
        "the shortest counterexample of every property it violates, check each listed fix in the same scope, and "
        "write <out>/<date>-<design>.md with what holds.  Exit status: 0 every expected violation found, every "
        "trace replays and every fix holds; 1 the run settled something otherwise; 2 bad input; 3 nothing settled "
        "differs, but --max-seconds left an expected violation or a fix unsettled.",
    )
    fd.add_argument("design", help="a design with a findings manifest (flip600-pr, pointwise-downstream)")
    fd.add_argument("--out", default="reports/findings", help="where the report and its traces go (default reports/findings)")
    fd.add_argument("--date", default=None, help="the date in the report's name, YYYY-MM-DD (default today, UTC)")
    fd.add_argument("--workers", type=workers_arg, default=None, help="processes per search, 1 to 64 (default: the number of cores for explore, 1 for memo)")
    fd.add_argument("--engine", choices=("memo", "explore", "reference"), default=None,
                    help="the exhaustive engine: memo (the default: each model call computed once) or explore, also named"
                    " reference")
    fd.add_argument("--max-seconds", type=positive_float, default=None,
                    help="bound the whole run to S seconds: each search gets what the earlier ones left, the searches"
                         " left when it is spent are not run, and the report says of every expected violation whether"
                         " it was found, not found in the part searched, or not searched")
    fd.set_defaults(func=cmd_findings)
