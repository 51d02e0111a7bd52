"""What the model finds in a design under review, as a manifest the findings report runs.

A design's findings are the scopes in which it is searched, and for each property it is
expected to violate there, the fix: the same design with one rule changed.  The manifest states
expectations only; ``checks.findings`` searches every scope afresh, reports what it finds
(including violations nobody listed, and listed ones it no longer finds), checks each fix in the
same scope, and says what holds with the scope searched.  ``tests/test_findings.py`` holds the
manifest to the searches.
"""

from __future__ import annotations

from dataclasses import dataclass

from ckptcheck.model.design import Design
from ckptcheck.model.scope import Scope

from .designs import FLIP600_PR
from .scopes import scope


@dataclass(frozen=True)
class Fix:
    """A property ``violates`` that ``design`` is expected to violate in the finding's scope, the
    rule responsible, and ``fixed``: the design with that rule changed, expected to hold there."""

    violates: str
    rule: str  # the design's rule that leads to the violation, with its source
    fixed: Design
    change: str  # the fix in one sentence


@dataclass(frozen=True)
class FindingScope:
    name: str
    scope: Scope
    why: str  # what this scope can reach
    fixes: tuple[Fix, ...] = ()


def enumerator_scope() -> Scope:
    """Two FLIP-27 readers and two other sources, each its own region (so one failed region is
    within the ratio 0.3); one record per split, unbounded; two checkpoints, one decline: a
    checkpoint completes, then a reader that was given its split after it declines the next."""
    return scope("enumerator-2-and-sides", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=0,
                 max_declines=1, max_timeouts=0, max_lost_notifications=0)


FLIP600_PR_FINDINGS: tuple[FindingScope, ...] = (
    FindingScope(
        "live-enumerator-add-back",
        enumerator_scope(),
        "a reader in a failed region keeps reading after the fallback (review row B12)",
        (
            Fix(
                "split-read-once",
                "SourceCoordinator.checkpointCoordinatorForRegionFallback puts the splits a failed-region reader "
                "was given after the fallback checkpoint back into the live enumerator, while that reader, which "
                "only declined, keeps them (PR #28963; SourceCoordinatorRegionalCheckpointTest; review row B12)",
                FLIP600_PR.with_(name="flip600-pr-fix-B12", coordinator_region_fallback="fallback"),
                "correct only the checkpoint's copy of the enumerator state: the splits are unassigned in the "
                "regional checkpoint and stay assigned to the live reader, whose reset (subtaskReset) adds them back",
            ),
        ),
    ),
)

FINDINGS: dict[str, tuple[Design, tuple[FindingScope, ...]]] = {
    "flip600-pr": (FLIP600_PR, FLIP600_PR_FINDINGS),
}
