"""FLIP-147's measured searches and its catalog entries' counterexample lengths."""

from __future__ import annotations

from .. import scopes as S
from ..figure import CLAIMS, ONCE, Figure


FIGURES: tuple[Figure, ...] = (
    Figure("flip147-jobmanager-view", "flip147", S.jobmanager_view_scope, False, 236_644, 1_404_377, 47, CLAIMS,
           "about 20 s with 2 workers", "`flip147` third default scope (the baseline's third, with two concurrent "
           "checkpoints)", unreached=("a-task-declines", "a-sink-commits")),
    Figure("baseline-flip147", "flink-baseline", S.flip147_default_scope, False, 1_337_457, 7_695_409, 79, CLAIMS,
           "about 82 s with 2 workers", "FLIP-147 default (`flink-baseline --job sink-v2-keyed-2x1`: Sink V2 writer, committer and "
           "global committer; 1 checkpoint before end, 1 failure, 1 decline)"),
    Figure("flip147-default", "flip147", S.flip147_concurrent_scope, False, 8_494_887, 41_474_219, 75, ONCE,
           "about 9.5 minutes with 2 workers", "`flip147` default (sink-v2-keyed-2x1 with 2 concurrent checkpoints, 2 checkpoints "
           "before end, 1 failure, 1 decline, instant acks)",
           test="tests/model/test_instant_acks.py::test_flip147_default_holds_with_every_witness_the_concurrency_ones_included"),
    Figure("flip147-union", "flip147", S.flip147_union_scope, True, 2_703_977, 15_126_523, 56, ONCE,
           "about 9 minutes with 1 worker", "`flip147` second default scope (union-sink-v2-2x2, 2 checkpoints before end, no "
           "fault, instant acks; symmetry classes)", workers=1, unreached=None,
           test="tests/model/test_instant_acks.py::test_flip147_second_default_scope_reaches_the_union_abort_with_partial_finishing_and_concurrency"),
)

CATALOG_STEPS: dict[str, int] = {
    "legacy-source-rereads-finished-split": 35,
    "union-state-finishes-partly": 22,
    "FLINK-38614-end-of-data-before-committables": 16,
    "blocking-output-waits-for-final-checkpoint": 6,
    "blocking-side-finishes-before-its-result-is-read": 9,
}
