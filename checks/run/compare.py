"""What a design change breaks, side by side: each design checked in the same scope with the
same engine, and the differences against the first design (the reference, usually
``flink-baseline``): the properties a variant violates where the reference does not (with the
variant's shortest counterexample), the witnesses it loses, and the properties it fixes.

A difference is only claimed where both verdicts say something: a property whose search was
cut short is ``unknown`` and never counts as holding, and a witness a variant's cut-short (or
``--stop-at-first``) search did not reach is ``not reached in the part searched``, never lost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ckptcheck.model.design import Design
from ckptcheck.model.scope import Scope

from .api import check, run_id, save_traces
from .results import HIT, NOT_APPLICABLE, NOT_REACHED, VIOLATED, CheckResult, Verdict

BREAKS = "breaks"
VIOLATES = "violates"  # the variant violates it; the reference's search was cut short, so "breaks" is not known
LOSES_WITNESS = "loses witness"  # the variant's whole scope was searched and the witness is not in it
UNSETTLED_WITNESS = "not reached in the part searched"  # the variant's search was cut short or stopped before it
FIXES = "fixes"
ORDER = (BREAKS, VIOLATES, FIXES, LOSES_WITNESS, UNSETTLED_WITNESS)  # how changes are listed: what the change does first


@dataclass
class Change:
    """One property whose verdict differs between the reference and a variant."""

    design: str
    property: str
    kind: str
    what: str  # BREAKS, VIOLATES, LOSES_WITNESS or FIXES
    before: Verdict  # the reference's verdict
    after: Verdict  # the variant's verdict

    @property
    def reason(self) -> str:
        if self.what in (BREAKS, VIOLATES):
            return self.after.reason or ""
        if self.what == LOSES_WITNESS:
            return f"hit in the reference ({self.before.reason}), not reached in this design's whole scope"
        if self.what == UNSETTLED_WITNESS:
            return (f"hit in the reference ({self.before.reason}); this design's search was cut short or stopped before"
                    " reaching it, so whether the change loses it is not known")
        return f"violated in the reference ({self.before.reason}), {self.after.status} here"


@dataclass
class Comparison:
    reference: CheckResult
    results: list[CheckResult]  # every design, the reference first
    changes: list[Change] = field(default_factory=list)
    interrupted: bool = False  # Ctrl-C: the designs after the interrupted search were not searched

    @property
    def broken(self) -> list[Change]:
        """Violations a variant has and the reference has not (``BREAKS``), or may not have
        (``VIOLATES``: the reference's search was cut short)."""
        return [c for c in self.changes if c.what in (BREAKS, VIOLATES)]


def differences(reference: CheckResult, other: CheckResult) -> list[Change]:
    """The properties whose verdicts differ in a way that says something about the change."""
    out = []
    for after in other.verdicts:
        try:
            before = reference.verdict(after.property)
        except KeyError:
            continue
        if NOT_APPLICABLE in (before.status, after.status):
            continue
        what = None
        if after.status == VIOLATED and before.status != VIOLATED:
            what = BREAKS if reference.complete else VIOLATES
        elif before.status == VIOLATED and after.status != VIOLATED and other.complete:
            what = FIXES
        elif before.status == HIT and after.status == NOT_REACHED:
            what = LOSES_WITNESS if other.searched_whole_scope else UNSETTLED_WITNESS
        if what:
            out.append(Change(other.design.name, after.property, after.kind, what, before, after))
    return sorted(out, key=lambda c: ORDER.index(c.what))


def compare(
    designs: list[Design],
    scope: Scope,
    *,
    trace_dir: Path | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
    **check_options,
) -> Comparison:
    """Check every design in ``scope`` (same engine and options); compare each with the first."""
    if len(designs) < 2:
        raise ValueError("compare needs at least two designs")
    results = []
    # max_seconds bounds the whole comparison: each design gets what the earlier ones left
    deadline = time.monotonic() + check_options["max_seconds"] if check_options.get("max_seconds") else None
    for d in designs:
        if deadline is not None:
            check_options = {**check_options, "max_seconds": max(round(deadline - time.monotonic(), 1), 0.5)}
        named = getattr(check_options.get("progress"), "named", None)  # a progress line that names each design
        r = check(d, scope, **({**check_options, "progress": named(d.name)} if named else check_options))
        if trace_dir is not None:  # named by design, engine and a hash of the scope: another scope's traces stay
            save_traces(r, trace_dir, prefix=run_id(r))
        results.append(r)
        if on_result is not None:
            on_result(r)
        if r.interrupted:  # Ctrl-C ends the comparison, not only the running search
            break
    reference = results[0]
    changes = [c for r in results[1:] for c in differences(reference, r)]
    return Comparison(reference, results, changes, interrupted=results[-1].interrupted)
