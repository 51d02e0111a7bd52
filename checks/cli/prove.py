"""``ckptcheck prove``: prove the redistribution theorems with Z3, each with its mutant refuted
(``checks.proofs.theorems`` holds the theorems)."""

from __future__ import annotations

from ckptcheck.checks.run.outputs import out_dir
from ckptcheck.specs.errors import InputError

from .printing import say


def cmd_prove(args) -> int:
    """Prove each theorem, then refute its mutant (a proof whose wrong variant Z3 cannot
    refute proves nothing): a theorem counts as proved only when both hold.  Ctrl-C ends the
    command with the theorems done so far said and written (exit 130)."""
    import z3

    from ckptcheck.checks.proofs.theorems import THEOREMS

    report_dir = out_dir(args.report, "--report") if args.report else None
    names = args.names or [t.name for t in THEOREMS]
    known = {t.name: t for t in THEOREMS}
    for n in names:
        if n not in known:
            raise InputError("prove", n, f"unknown theorem (known: {', '.join(known)})")
    # Z3 catches SIGINT during a check and answers "unknown" (its ctrl_c parameter); turned off,
    # Ctrl-C reaches Python and ends the whole command, not one proof
    z3.set_param("ctrl_c", False)
    outcomes: list = []  # (name, outcome, mutant refuted or None)
    try:
        for n in names:
            outcomes.append(_prove_one(known[n]))
    except KeyboardInterrupt:
        say(f"interrupted after {len(outcomes)} of {len(names)} theorems: the verdicts above are complete, the rest"
            " were not proved")
        _write(report_dir, outcomes, known)
        return 130
    from ckptcheck.checks.proofs.theorems import PROVED

    failed = sum(1 for _, o, refuted, _ in outcomes if o.verdict != PROVED or refuted is False)
    total = sum(seconds for _, _, _, seconds in outcomes)
    say(f"RESULT: {len(names) - failed}/{len(names)} theorems proved, each mutant refuted, in {total:.1f}s")
    _write(report_dir, outcomes, known)
    return 0 if failed == 0 else 1


def _prove_one(t) -> tuple:
    """Prove ``t`` and refute its mutant, saying each: (name, outcome, mutant refuted or None, seconds)."""
    from ckptcheck.checks.proofs.theorems import PROVED, REFUTED

    o = t.prove()
    seconds = o.seconds
    ok = o.verdict == PROVED
    say(f"{o.verdict.upper():8} {t.name:34} {o.seconds:6.2f}s  {t.statement}")
    if o.detail:
        say(f"         {'':34}          {o.detail}")
    if o.counterexample:
        shown = ", ".join(f"{k} = {v}" for k, v in o.counterexample.items())
        label = "counterexample" if ok else "COUNTEREXAMPLE"
        say(f"         {'':34}          {label}: {shown}")
    refuted = None
    if t.mutant_statement:
        mo = t.mutant()
        seconds += mo.seconds
        refuted = mo.verdict == REFUTED
        mark = "refuted" if refuted else f"NOT REFUTED ({mo.verdict})"
        say(f"         mutant {mark} in {mo.seconds:.2f}s: {t.mutant_statement}")
        if mo.counterexample:
            say(f"         {'':34}          counterexample: " + ", ".join(f"{k} = {v}" for k, v in mo.counterexample.items()))
    return t.name, o, refuted, seconds


def _write(report_dir, outcomes, known) -> None:
    if report_dir is None:
        return
    from ckptcheck.checks.run.report import build_report, write_reports

    rows = [
        {"name": n, "verdict": o.verdict, "seconds": o.seconds, "statement": known[n].statement,
         "counterexample": ", ".join(f"{k} = {v}" for k, v in (o.counterexample or {}).items())}
        for n, o, _, _ in outcomes
    ]
    paths = write_reports(build_report([], title="ckptcheck proofs", command="ckptcheck prove", proofs=rows), report_dir)
    say(f"report written to {', '.join(str(p) for p in paths)}")


def add_parser(sub) -> None:
    """``ckptcheck prove``."""
    from ckptcheck.checks.proofs.theorems import THEOREMS

    v = sub.add_parser("prove", help="prove the redistribution theorems with Z3")
    v.add_argument("names", nargs="*", metavar="THEOREM", help=f"theorem names (default: all): {', '.join(t.name for t in THEOREMS)}")
    v.add_argument("--report", default=None, metavar="DIR", help="also write report.html, report.md and junit.xml to DIR")
    v.set_defaults(func=cmd_prove)
