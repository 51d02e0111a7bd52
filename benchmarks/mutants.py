"""Which test tier catches each one-line mutant of the model's rules.

    python benchmarks/mutants.py [--only NAME ...] [--tiers default,claims] [--list]

A mutant is a variant's override of one method of one component (``benchmarks/mutant_list.py``:
a small class whose method changes one line of the rule and calls ``super()`` for the rest).
For each mutant this script runs the README's test command (``pytest``, the default tier)
with the mutant installed and stops at the first failing test; if every test passes it runs
the claims tier (``pytest -m claims -n 0``) the same way.  A mutant that both tiers let through is
"survived": a rule no test checks.  A test that fails with the mutant is run again without it
(the control) and once more with it, alone: it counts as a catch only if it fails again with the
mutant and passes without.

How a mutant is installed: every component the model builds (``FlinkModel.__post_init__``)
that is an instance of the mutant's ``base`` gets, in place of its class, a subclass of that
class with the override mixed in first (a class that overrides the method itself, a variant
that replaced the rule, keeps its own).  The designs themselves are untouched, so what a
design records (its replaced components, symmetry, traces) is what it was: the model behaves
as if that line of the rule had been edited in the source.  Searches with workers fork, so the
workers run the mutant too.  The decline memo of ``FlinkModel.step`` assumes the stock rules;
a mutant that makes a decline's effect depend on which task declines could be hidden by it
(none of the list does).

Output: one line per mutant (name, component, tier that caught it, the first failing test,
seconds), then the table as Markdown, then the figure (mutants caught of mutants run).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

BOOT = """
import sys
sys.path.insert(0, {bench!r})
import mutants
mutants.install({name!r})
import pytest
sys.exit(pytest.main({args!r}))
"""


def install(name: str) -> None:
    """Install mutant ``name`` for this process (and the workers it forks)."""
    from mutant_list import MUTANTS

    from ckptcheck.model.protocol import FlinkModel

    m = next(x for x in MUTANTS if x.name == name)
    made: dict[type, type] = {}
    original = FlinkModel.__post_init__

    def post_init(self) -> None:
        original(self)
        part = getattr(self, m.component)
        cls = type(part)
        # a class that overrides the method keeps its own rule (a variant replaced it)
        if isinstance(part, m.base) and getattr(cls, m.method) is getattr(m.base, m.method):
            if cls not in made:
                made[cls] = type(cls.__name__, (m.override, cls), {"__module__": cls.__module__,
                                                                   "__qualname__": cls.__qualname__})
            part.__class__ = made[cls]

    FlinkModel.__post_init__ = post_init


FIRST = [f"tests/{f}.py" for f in ("test_golden_counts", "test_catalog", "test_explore", "test_protocol", "test_unaligned", "test_flip600",
                                    "test_flip147", "test_null_state", "test_sinkv2", "test_figures")]


def _pytest(name: str | None, args: list[str], timeout: float) -> tuple[int | None, list[str]]:
    """Run pytest in a fresh interpreter with mutant ``name`` installed (None: the stock model):
    its exit status (None if it did not finish) and the tests that failed."""
    code = BOOT.format(bench=str(Path(__file__).resolve().parent), name=name, args=args) if name else \
        f"import sys, pytest; sys.exit(pytest.main({args!r}))"
    try:
        r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                           env={**os.environ, "PYTHONHASHSEED": "0"})
    except subprocess.TimeoutExpired:
        return None, []
    return r.returncode, [ln.split(" ", 2)[1] for ln in r.stdout.splitlines() if ln.startswith("FAILED ")]


def run_tier(name: str, tier: str, timeout: float) -> tuple[bool, str, float]:
    """(caught, first failing test or "", seconds) for mutant ``name`` under ``tier``.  A test
    that fails is run again on the stock model (the control): one that fails there too (a
    timing-sensitive test on a loaded machine) is no catch; it is deselected and the tier runs
    on."""
    # tests/checks/run/test_interrupt.py checks Ctrl-C handling, no rule, and is timing-sensitive on a loaded machine
    # -n 0: the mutant is installed in this interpreter, which pytest-xdist's workers would not share
    base = ["-x", "-q", "-n", "0", "-p", "no:cacheprovider", "-o", "console_output_style=classic", "--no-header", "-rf",
            "--ignore=tests/checks/run/test_interrupt.py"]
    if tier == "claims":
        base += ["-m", "claims"]
    start, flaky = time.monotonic(), []
    while True:
        args = base + [f"--deselect={t}" for t in flaky] + FIRST + ["tests"]
        code, failed = _pytest(name, args, timeout)
        if code is None:
            return False, f"(not finished in {timeout:.0f} s)", time.monotonic() - start
        if code in (0, 5):
            return False, "", time.monotonic() - start
        if not failed:
            return True, f"exit {code}", time.monotonic() - start
        one = ["-q", "-p", "no:cacheprovider", "--no-header", "-rf", *(["-m", "claims"] if tier == "claims" else []), failed[0]]
        again, _ = _pytest(name, one, timeout)  # the same failure again, alone
        control, _ = _pytest(None, one, timeout)  # and not without the mutant
        if again not in (0, 5, None) and control in (0, 5):
            return True, failed[0], time.monotonic() - start
        flaky.append(failed[0])


def main(argv: list[str] | None = None) -> int:
    from mutant_list import MUTANTS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--tiers", default="default,claims")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds for one tier's run of one mutant")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if a.only is None or m.name in a.only]
    if a.list:
        for m in chosen:
            print(f"{m.name:45} {m.base.__name__}.{m.method}: {m.what}")
        return 0
    rows = []
    for m in chosen:
        caught, by, took = False, "", 0.0
        for tier in a.tiers.split(","):
            caught, by, seconds = run_tier(m.name, tier, a.timeout)
            took += seconds
            if caught:
                by = f"{tier}: {by}"
                break
        rows.append((m, caught, by, took))
        print(f"{m.name:45} {m.base.__name__}.{m.method:28} {'caught by ' + by if caught else 'SURVIVED'}  {took:.0f} s",
              flush=True)
    print()
    print("| mutant | component and method | the one-line change | caught by (tier: first failing test) |")
    print("| --- | --- | --- | --- |")
    for m, caught, by, _ in rows:
        print(f"| `{m.name}` | `{m.base.__name__}.{m.method}` | {m.what} | {by if caught else 'SURVIVED'} |")
    print()
    caught = sum(1 for _, c, _, _ in rows if c)
    print(f"mutants caught: {caught} of {len(rows)} ({sum(t for *_, t in rows):.0f} s)")
    return 0 if caught == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
