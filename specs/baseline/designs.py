"""The baseline presets: Flink 2.x checkpointing as it is, aligned, and with incremental checkpoints."""

from __future__ import annotations

from ckptcheck.model.design import Design


BASELINE = Design(
    name="flink-baseline",
    description=(
        "Flink's checkpointing today: aligned barriers, 2PC sinks committing on "
        "notifyCheckpointComplete, num-retained = 1, tolerable failed checkpoints = 0, region "
        "failover, checkpoints after tasks finish (FLIP-147)."
    ),
    origin="mechanics notes 5-6 (Flink 2.0 CheckpointCoordinator)",
)


INCREMENTAL = BASELINE.with_(
    name="flink-incremental",
    description="Flink with incremental checkpoints (RocksDB, execution.checkpointing.incremental: true): "
    "a snapshot adds one shared file and refers to the backend's earlier ones, sending those of the last "
    "checkpoint it saw confirmed as placeholders; the SharedStateRegistry registers them at each acknowledgement "
    "and deletes a shared file once no retained checkpoint can use it; a confirmed upload's files that a newer "
    "snapshot sent again are not placeholders (Flink 2.3's PreviousSnapshot prune).",
    origin="RocksIncrementalSnapshotStrategy (uploadedSstFiles, lastCompletedCheckpointId), "
    "RocksDBSnapshotStrategyBase.PreviousSnapshot (pruneFirstCheckpointSstFiles), "
    "SharedStateRegistryImpl (registerReference, unregisterUnusedState), CheckpointCoordinator.receiveAcknowledgeMessage",
    incremental_checkpoints=True,
)

