"""The baseline's measured searches (flink-baseline, flink-incremental) and its catalog entries' counterexample lengths."""

from __future__ import annotations

from .. import scopes as S
from ..figure import CLAIMS, Figure


FIGURES: tuple[Figure, ...] = (
    Figure("baseline-default", "flink-baseline", S.default_scope, False, 398_946, 2_190_771, 58, CLAIMS,
           "about 25 s with 2 workers", "`flink-baseline` default (keyed-2x2, 1 checkpoint before end, 1 failure, 1 decline)"),
    Figure("baseline-enumerator", "flink-baseline", S.enumerator_default_scope, False, 72_504, 269_194, 44, CLAIMS,
           "about 4 s with 2 workers", "`flink-baseline` second default scope (enumerator-and-side: a FLIP-27 source with a "
           "split enumerator, 1 checkpoint before end, 1 failure, 1 decline, staggered trigger RPCs)"),
    Figure("baseline-jobmanager-view", "flink-baseline", S.jobmanager_view_scope, False, 65_058, 285_957, 47, CLAIMS,
           "about 4 s with 2 workers", "`flink-baseline` third default scope (keyed-2x1, no records, 2 checkpoints before end, "
           "1 failure; trigger RPCs one task at a time that may overtake notices, late finish reports, the scheduler "
           "suspended at a failure)", unreached=("a-task-declines", "a-sink-commits")),
    Figure("incremental-jobmanager-view", "flink-incremental", S.jobmanager_view_scope, False, 104_037, 434_653, 49, CLAIMS,
           "about 3 s with 2 workers", "`flink-incremental` third default scope (the baseline's third)",
           unreached=("a-task-declines", "a-sink-commits")),
    Figure("incremental-default", "flink-incremental", S.default_scope, False, 646_313, 3_377_426, 66, CLAIMS,
           "about 30 s with 2 workers", "`flink-incremental` default (the baseline's first default scope, keyed-2x2, with "
           "incremental checkpoints)", unreached=("a-snapshot-prunes-files-sent-again",)),
    Figure("incremental-enumerator", "flink-incremental", S.enumerator_default_scope, False, 95_850, 346_679, 49, CLAIMS,
           "about 3 s with 2 workers", "`flink-incremental` second default scope (enumerator-and-side, the baseline's second)"),
)

CATALOG_STEPS: dict[str, int] = {
    "commit-at-pre-commit": 17,
    "source-position-not-restored": 17,
    "cleaner-deletes-restore-checkpoint": 14,
    "no-alignment-block": 11,
    "no-checkpoints-after-finish": 14,
    "no-operator-event-gateway": 8,
    "scheduler-waits-for-finished-tasks": 14,
    "FLINK-40482-failed-task-planned-as-finished": 18,
    "incremental-prune-misses-a-running-upload": 12,
    "incremental-base-not-pruned": 12,
}
