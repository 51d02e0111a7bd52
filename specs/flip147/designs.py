"""The FLIP-147 preset: checkpoints after tasks finish, with two concurrent checkpoints."""

from __future__ import annotations

from ..baseline.designs import BASELINE


FLIP147 = BASELINE.with_(
    name="flip147",
    description=(
        "Flink's checkpointing today (flink-baseline: FLIP-147's checkpoints after tasks finish, Sink V2 "
        "where the job has one) with max-concurrent-checkpoints 2: a checkpoint may be triggered while "
        "another is pending, a later one may complete first and subsume it, and a finished task ends on "
        "the first completion of any checkpoint triggered after its finish()."
    ),
    origin="FLIP-147 (the 42/43/44 scenario); UC notes D; CheckpointRequestDecider, "
    "CheckpointCoordinator.completePendingCheckpoint (CHECKPOINT_SUBSUMED)",
    max_concurrent_checkpoints=2,
)

