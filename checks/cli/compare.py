"""``ckptcheck compare``: check designs in the same scope, print their verdicts side by side and
what each variant breaks, loses or fixes against the first (``checks.run.compare`` does the work)."""

from __future__ import annotations

import sys

from ckptcheck.checks.run.outputs import out_dir
from ckptcheck.checks.run.results import (EXIT_STATUS, HOLDS, NOT_APPLICABLE, NOT_REACHED, OUTCOME_HOLDS, OUTCOME_INCOMPLETE,
                                         OUTCOME_VIOLATED, VIOLATED)
from ckptcheck.specs.errors import InputError
from ckptcheck.specs.scopes import expected_seconds
from ckptcheck.specs.verdicts import EXHAUSTIVE_ENGINES

from .options import add_scope_options, add_search_options, design_from_arg, scope_from_args, search_options
from .check import bounded
from .printing import Progress, before_search, expected_total, mark, say, steps_text


def print_comparison(cmp, verbose: bool = False) -> None:
    """Verdicts side by side, then what each variant changes against the reference: the first
    violation of each variant step by step, the others (all of them under ``verbose``) in one
    line with the trace that ``ckptcheck replay -v`` shows step by step."""
    from ckptcheck.checks.run.compare import BREAKS, FIXES, LOSES_WITNESS, UNSETTLED_WITNESS, VIOLATES

    results = cmp.results
    ref = cmp.reference
    width = max(14, *(len(r.design.name) for r in results)) + 2
    say(f"scope    {ref.scope.describe()}")
    for r in results:
        say(f"design   {r.design.name}{' (reference)' if r is ref else ''}: {r.searched()}")
    say("")
    # a witness no design reaches in a scope every design searched whole says nothing about the change: one line
    nowhere = [v.property for v in ref.verdicts if v.kind == "sometimes" and all(
        r.verdict(v.property).status == NOT_REACHED and r.searched_whole_scope for r in results)]
    shown = [v for v in ref.verdicts if any(r.verdict(v.property).status != NOT_APPLICABLE for r in results)
             and v.property not in nowhere]
    pw = max(len(v.property) for v in shown) + 1 if shown else 28

    def cell(r, prop: str) -> str:
        x = r.verdict(prop)
        return mark(r, x) + (f" ({len(x.trace)})" if x.status == VIOLATED else "")

    rows = [[cell(r, v.property) for r in results] for v in shown]
    widths = [max(width, *(len(row[k]) + 2 for row in rows)) if rows else width for k in range(len(results))]
    say(f"  {'':<10} {'property':<{pw}} " + "".join(f"{r.design.name:<{w}}" for r, w in zip(results, widths)))
    for v, row in zip(shown, rows):
        say(f"  {v.kind:<10} {v.property:<{pw}} " + "".join(f"{c:<{w}}" for c, w in zip(row, widths)).rstrip())
    if nowhere:
        say(f"  not reached by any design, each searched whole (this scope never exercises it): {', '.join(nowhere)}")
    for r in cmp.results[1:]:
        mine = [c for c in cmp.changes if c.design == r.design.name]
        say("")
        if not mine:
            say(f"{r.design.name}: no change against {ref.design.name} in this scope")
            continue
        shown = 0
        for c in mine:
            if c.what in (BREAKS, VIOLATES):
                if c.what == BREAKS:
                    was = "holds" if c.before.status == HOLDS else ref.verdict_words(c.before)
                    say(f"{r.design.name} BREAKS {c.property} ({was} in {ref.design.name}): {c.after.reason}")
                else:
                    say(f"{r.design.name} violates {c.property} ({ref.verdict_words(c.before)} in {ref.design.name},"
                        f" whose search was cut short: whether the change breaks it is not known): {c.after.reason}")
                if verbose or not shown:
                    say(f"  shortest counterexample, {len(c.after.trace)} steps:")
                    for line in steps_text(r.spec, c.after.trace):
                        say(f"  {line}")
                else:
                    say(f"  shortest counterexample, {len(c.after.trace)} steps (ckptcheck replay -v shows them; --verbose prints every one)")
                shown += 1
                if c.after.trace_file:
                    say(f"  trace: {c.after.trace_file}  (ckptcheck replay -v {c.after.trace_file})")
            elif c.what == LOSES_WITNESS:
                say(f"{r.design.name} LOSES WITNESS {c.property}: {c.reason}")
            elif c.what == FIXES:
                say(f"{r.design.name} fixes {c.property}: {c.reason}")
        unsettled = [c.property for c in mine if c.what == UNSETTLED_WITNESS]
        if unsettled:
            say(f"{r.design.name}: {len(unsettled)} witness(es) hit in {ref.design.name} not reached in the part searched,"
                f" so nothing is said about them ({', '.join(unsettled)}); the search covered {r.searched()}")
    broken = {c.design for c in cmp.broken if c.what == BREAKS}
    violating = {c.design for c in cmp.broken if c.what == VIOLATES} - broken
    unsure = [r.design.name for r in results if r.outcome not in (OUTCOME_HOLDS, OUTCOME_VIOLATED)]
    words = f"{len(broken)} of {len(results) - 1} variant(s) break a property that {ref.design.name} does not"
    if violating:
        words += (f"; {len(violating)} violate a property that the cut-short search of {ref.design.name} did not find"
                  " violated (not known to be broken by the change)")
    if unsure:
        words += f"; searches of {', '.join(unsure)} were not exhaustive, so what holds there is not proved"
    say("RESULT: " + words)


def cmd_compare(args) -> int:
    from ckptcheck.checks.run.compare import compare

    out = out_dir(args.out, "--out")
    report_dir = out_dir(args.report, "--report") if args.report else None
    designs = [design_from_arg(d) for d in args.designs]
    if len(designs) < 2:
        raise InputError("compare", "designs", "expected at least two designs (the reference first)")
    names = [d.name for d in designs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError("compare", "designs", f"two designs are named {dup[0]!r}; give each variant its own name")
    scope = scope_from_args(args, designs[0])
    opts = search_options(args, designs, scope)
    say(f"comparing {', '.join(names)} (reference: {names[0]}) ...")
    before_search(designs[0], scope, opts["symmetry"], expect=False)
    if args.engine in EXHAUSTIVE_ENGINES:
        say(expected_total([(d.name, expected_seconds(d, scope, opts["symmetry"])) for d in designs],
                           f"the {len(designs)} designs in this scope", bounded(args), engine=args.engine))
    cmp = compare(designs, scope, trace_dir=out, engine=args.engine, progress=Progress(), **opts)
    print_comparison(cmp, verbose=args.verbose)
    if report_dir is not None:
        from ckptcheck.checks.run.report import build_report, write_reports

        command = "ckptcheck compare " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else "ckptcheck compare"
        report = build_report(cmp.results, title=f"ckptcheck: {' vs '.join(names)}", command=command, changes=cmp.changes)
        paths = write_reports(report, report_dir)
        say(f"report written to {', '.join(str(p) for p in paths)}")
    if cmp.interrupted:
        searched = len(cmp.results)
        say(f"interrupted: {searched - 1} of {len(designs) - 1} variant(s) compared; the search of"
            f" {cmp.results[-1].design.name} was cut short and the designs after it were not searched")
        return 130
    if cmp.broken:
        return 1
    return 0 if all(r.outcome in (OUTCOME_HOLDS, OUTCOME_VIOLATED) for r in cmp.results) else EXIT_STATUS[OUTCOME_INCOMPLETE]


def add_parser(sub) -> None:
    """``ckptcheck compare``."""
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
    add_search_options(cp)
    cp.add_argument("--out", default="results/compare", help="where counterexample traces go")
    cp.add_argument("--report", default=None, metavar="DIR", help="also write report.html, report.md and junit.xml to DIR")
    add_scope_options(cp)
    cp.set_defaults(func=cmd_compare)
