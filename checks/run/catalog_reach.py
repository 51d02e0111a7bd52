"""Does a design's default check catch its catalog's flaws?  ``ckptcheck catalog --default-scopes``.

A user runs ``ckptcheck check --design X`` with no scope option, so a flaw matters where the
default scopes of ``X`` reach it.  Each catalog entry is searched here, in the default scopes of
its correct design (``specs.scopes.default_scopes_for``), one scope after another, until one
violates the entry's property; its own scope (``Entry.scope``, which the plain ``catalog``
searches) plays no part.  The correct designs' verdicts in those scopes are not searched again:
they are those of ``ckptcheck check --design NAME`` (the claims tier's figures, ``specs/figures.py``).

An entry is ``found`` in the first default scope that violates its property (the shortest
counterexample in that scope; a later scope might have a shorter one), ``missed`` when every
default scope was searched to the end without it (a scope where the property does not apply,
such as split ownership in a job without a split enumerator, is not searched), and ``not
settled`` when a bound cut a search short first: a search cut short proves nothing, and the row
says how far it went.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ckptcheck.model.protocol import fitted
from ckptcheck.specs.catalog import Entry
from ckptcheck.specs.scopes import default_scopes_for
from ckptcheck.specs.spec import Spec, symmetric
from ckptcheck.checks.engine import engine_workers

from .api import check
from .results import VIOLATED, CheckResult

FOUND = "found"
MISSED = "missed"
NOT_SETTLED = "not settled"


@dataclass(frozen=True)
class ReachRow:
    """One entry's answer: where its flaw was found, or what was searched without finding it."""

    entry: str
    base: str  # the correct design whose default scopes were searched
    violates: str
    status: str  # FOUND, MISSED or NOT_SETTLED
    scopes: int  # the base design's default scopes
    scope: int  # FOUND: the (1-based) default scope that found it; otherwise 0
    job: str  # FOUND: that scope's job
    steps: int  # FOUND: the counterexample's length in that scope
    states: tuple[int, ...]  # states searched in each scope tried, in order (0: the property does not apply there)
    seconds: float
    reason: str  # FOUND: the violation's reason; otherwise how far each search went

    def searched(self) -> str:
        """Each default scope tried: its states, or that the property does not apply there (0)."""
        return "; ".join(f"scope {k}: {f'{n:,} states' if n else 'does not apply'}" for k, n in enumerate(self.states, 1))

    def line(self) -> str:
        if self.status == FOUND:
            return (f"found   {self.entry}: {self.violates} violated in default scope {self.scope} of {self.scopes}"
                    f" (job {self.job}), {self.steps} steps ({self.searched()}; {self.seconds:.1f}s)")
        if self.status == MISSED:
            return (f"MISSED  {self.entry}: {self.violates} not violated in any default scope of {self.base}, each"
                    f" searched to the end ({self.searched()}; {self.seconds:.1f}s)")
        return f"unsure  {self.entry}: {self.violates} not violated in the part searched ({self.reason})"

    def to_json(self) -> dict:
        return {"entry": self.entry, "base": self.base, "violates": self.violates, "status": self.status,
                "default_scopes": self.scopes, "found_in_scope": self.scope or None, "job": self.job or None,
                "steps": self.steps or None, "states": list(self.states), "seconds": round(self.seconds, 3),
                "reason": self.reason}


def reach_entry(e: Entry, workers: int = 1, max_seconds: float | None = None,
                engine: str = "memo") -> tuple[ReachRow, CheckResult | None]:
    """Search entry ``e`` in its correct design's default scopes, in order, each to the first
    violation of ``e.violates`` (``max_seconds`` bounds each search), with symmetry reduction
    where ``check`` would use it, on ``engine`` (``explore`` with ``workers``, or ``memo``); returns the row and the result that found it (None when none
    did).  Ctrl-C propagates as ``KeyboardInterrupt``."""
    t0 = time.perf_counter()
    scopes = tuple(fitted(e.design, s) for s in default_scopes_for(e.correct))  # as check's default scopes
    states: list[int] = []
    cut: list[str] = []
    for k, scope in enumerate(scopes, 1):
        if all(p.name != e.violates for p in Spec(e.design, scope).applicable):
            states.append(0)  # the property does not apply in this scope: nothing to search
            continue
        result = check(e.design, scope, engine, stop_at=e.violates, workers=engine_workers(engine, workers),
                       max_seconds=max_seconds,
                       symmetry=symmetric(e.design, scope))
        if result.interrupted:
            raise KeyboardInterrupt(e.name)
        states.append(result.stats["states"])
        v = result.verdict(e.violates)
        if v.status == VIOLATED:
            row = ReachRow(e.name, e.correct.name, e.violates, FOUND, len(scopes), k, scope.job_name, len(v.trace),
                           tuple(states), time.perf_counter() - t0, v.reason or "")
            return row, result
        if not result.complete:
            cut.append(f"scope {k}: {result.searched()}")
    status = NOT_SETTLED if cut else MISSED
    reason = "; ".join(cut) if cut else "every default scope searched to the end, or the property does not apply there"
    return ReachRow(e.name, e.correct.name, e.violates, status, len(scopes), 0, "", 0, tuple(states),
                    time.perf_counter() - t0, reason), None
