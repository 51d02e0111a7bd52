"""FLINK-4120's measured searches and its catalog entries' counterexample lengths."""

from __future__ import annotations

from .. import scopes as S
from ..figure import CLAIMS, Figure


FIGURES: tuple[Figure, ...] = (
    Figure("null-state-default", "flink-null-state", S.null_state_scope, False, 938_862, 3_702_353, 68, CLAIMS,
           "about 60-80 s with 2 workers", "`flink-null-state` default (job null-state, 2 checkpoints before end, 1 failure, "
           "1 decline, instant acks)"),
    Figure("null-state-unaligned-default", "flink-null-state-unaligned", S.null_state_unaligned_default_scope, False, 248_244,
           918_225, 76, CLAIMS, "about 21 s with 2 workers", "`flink-null-state-unaligned` default (job null-state-rebalance, "
           "2 records, 1 checkpoint before end, 1 failure, 1 decline, 1 buffer per input channel)"),
)

CATALOG_STEPS: dict[str, int] = {
    "null-state-sinks-keep-replayed-records": 29,
    "null-state-barrier-at-restart-position": 12,
    "null-state-watermark-at-acknowledgement": 14,
    "null-state-checkpoint-not-retained": 21,
    "null-state-checkpoint-during-replay": 17,
    "null-state-unaligned-watermark-ignores-in-flight": 10,
    "null-state-unaligned-sinks-discard-overtaken-records": 28,
}
