"""FLINK-4120's null-state recovery, aligned and unaligned: a design Flink never built."""

from __future__ import annotations

from ..baseline.designs import BASELINE


NULL_STATE = BASELINE.with_(
    name="flink-null-state",
    description=(
        "FLINK-4120's null-state recovery, which Flink never built: a recomputable operator's "
        "state is not persisted; it reports its null-state watermark with each acknowledgement, the "
        "coordinator computes each checkpoint's null-state checkpoint and the store keeps it; a restart "
        "resumes the sources there, re-inserts the latest checkpoint's barrier at its original positions "
        "and the sinks discard every record until it reaches them. The whole job restarts."
    ),
    origin="FLINK-4120; UC note E (no later design or code)",
    recovery="null-state",
    failover_strategy="full",
)


NULL_STATE_UNALIGNED = NULL_STATE.with_(
    name="flink-null-state-unaligned",
    description=(
        "flink-null-state with unaligned checkpoints, where barriers overtake records and the seed's assumption "
        "('the pipeline preserves the relative order of barriers and watermarks') does not hold; with two rules "
        "the seed does not have: a recomputable operator's null-state watermark reaches back to the records in "
        "flight to it, and a sink takes the replayed records the barrier overtook on their way to it."
    ),
    origin="FLINK-4120 with the FLIP-76 thread; model.nullstate",
    checkpoint_mode="unaligned",
)

