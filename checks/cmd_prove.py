"""``ckptcheck prove``: prove the redistribution theorems with Z3, each with its mutant refuted
(``checks.proofs`` holds the theorems)."""

from __future__ import annotations

from ckptcheck.specs.errors import InputError

from .cli_common import _say
from .outputs import out_dir


def cmd_prove(args) -> int:
    """Prove each theorem, then refute its mutant (a proof whose wrong variant Z3 cannot
    refute proves nothing): a theorem counts as proved only when both hold."""
    from .proofs import PROVED, REFUTED, THEOREMS

    report_dir = out_dir(args.report, "--report") if args.report else None
    names = args.names or [t.name for t in THEOREMS]
    known = {t.name: t for t in THEOREMS}
    for n in names:
        if n not in known:
            raise InputError("prove", n, f"unknown theorem (known: {', '.join(known)})")
    failed = 0
    total = 0.0
    outcomes = []
    for n in names:
        t = known[n]
        o = t.prove()
        outcomes.append((n, o))
        total += o.seconds
        ok = o.verdict == PROVED
        failed += not ok
        _say(f"{o.verdict.upper():8} {t.name:34} {o.seconds:6.2f}s  {t.statement}")
        if o.detail:
            _say(f"         {'':34}          {o.detail}")
        if o.counterexample:
            shown = ", ".join(f"{k} = {v}" for k, v in o.counterexample.items())
            label = "counterexample" if ok else "COUNTEREXAMPLE"
            _say(f"         {'':34}          {label}: {shown}")
        if t.mutant_statement:
            mo = t.mutant()
            total += mo.seconds
            refuted = mo.verdict == REFUTED
            failed += ok and not refuted
            mark = "refuted" if refuted else f"NOT REFUTED ({mo.verdict})"
            _say(f"         mutant {mark} in {mo.seconds:.2f}s: {t.mutant_statement}")
            if mo.counterexample:
                _say(f"         {'':34}          counterexample: "
                     + ", ".join(f"{k} = {v}" for k, v in mo.counterexample.items()))
    _say(f"RESULT: {len(names) - failed}/{len(names)} theorems proved, each mutant refuted, in {total:.1f}s")
    if report_dir is not None:
        from ckptcheck.reports.render import build_report, write_reports

        rows = [
            {"name": n, "verdict": o.verdict, "seconds": o.seconds, "statement": known[n].statement,
             "counterexample": ", ".join(f"{k} = {v}" for k, v in (o.counterexample or {}).items())}
            for n, o in outcomes
        ]
        paths = write_reports(build_report([], title="ckptcheck proofs", command="ckptcheck prove", proofs=rows), report_dir)
        _say(f"report written to {', '.join(str(p) for p in paths)}")
    return 0 if failed == 0 else 1


def add_parser(sub) -> None:
    """``ckptcheck prove``."""
    from .proofs import THEOREMS

    v = sub.add_parser("prove", help="prove the redistribution theorems with Z3")
    v.add_argument("names", nargs="*", metavar="THEOREM", help=f"theorem names (default: all): {', '.join(t.name for t in THEOREMS)}")
    v.add_argument("--report", default=None, metavar="DIR", help="also write report.html, report.md and junit.xml to DIR")
    v.set_defaults(func=cmd_prove)
