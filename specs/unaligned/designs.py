"""The unaligned presets (FLIP-76): every barrier unaligned, aligned first with a timeout, and
unaligned checkpoints on POINTWISE edges as PR #28523 proposes."""

from __future__ import annotations

from ckptcheck.model.assignment_pointwise import PointwiseStateAssignment

from ..baseline.designs import BASELINE


UNALIGNED = BASELINE.with_(
    name="flink-unaligned",
    description=(
        "Flink with unaligned checkpoints (FLIP-76), aligned-checkpoint-timeout 0: every barrier "
        "overtakes the records queued in front of it, which become channel state (the producer's "
        "output, the consumer's input); channel state is restored before new data."
    ),
    origin="the FLIP-76 thread; UC notes A.1-A.10, B.1 (SingleCheckpointBarrierHandler, "
    "SubtaskCheckpointCoordinatorImpl, PipelinedSubpartition, StreamTask.restoreInternal)",
    checkpoint_mode="unaligned",
)


UNALIGNED_TIMEOUT = UNALIGNED.with_(
    name="flink-unaligned-timeout",
    description=(
        "Flink with unaligned checkpoints and aligned-checkpoint-timeout > 0: every checkpoint "
        "starts aligned; a subtask whose alignment times out, or that receives an unaligned "
        "barrier from an upstream that switched, continues it unaligned."
    ),
    origin="UC notes A.4, A.7 (AlternatingWaitingForFirstBarrier, AlternatingCollectingBarriers)",
    checkpoint_mode="aligned-timeout",
)


UNALIGNED_POINTWISE = UNALIGNED.with_(
    name="flink-unaligned-pointwise",
    description=(
        "Unaligned checkpoints on POINTWISE (forward/rescale) edges as the pointwise-UC thread proposes and the open PR "
        "apache/flink#28523 implements: consumers of a pointwise edge take unaligned barriers (FORCE_UNALIGNED), "
        "each checkpoint records every edge's pattern, and a restore at another parallelism or pattern "
        "redistributes the edge's channel state by its topology (upstream tracing, recovery filter, "
        "primary-producer rule)."
    ),
    origin="the pointwise-UC thread; apache/flink#28523 (PointwiseChannelMappingUtils, TaskStateAssignment, "
    "EdgeDistributionPatternHook); UC notes C.1-C.5",
    unaligned_pointwise=True,
    assignment=PointwiseStateAssignment,
)


UNALIGNED_DURING_RECOVERY = UNALIGNED.with_(
    name="flink-unaligned-during-recovery",
    description=(
        "Flink with unaligned checkpoints and FLIP-547's two options on: a restore gives each producer's output "
        "channel state to its consumer as recovered input (recover-output-on-downstream), and a restored subtask "
        "takes checkpoints while it still reads its recovered channel state (checkpointing during recovery): a "
        "checkpoint that starts then holds the recovered records not read yet as input channel state; a subtask "
        "restored at a new parallelism takes none while it filters (it is INITIALIZING)."
    ),
    origin="FLIP-547 (FLINK-35761); execution.checkpointing.unaligned.recover-output-on-downstream.enabled and "
    "execution.checkpointing.during-recovery.enabled in Flink 2.3.0 (CheckpointingOptions, StreamTask.restoreStateAndGates, "
    "LocalInputChannel.checkpointStarted) and on master (apache/flink#28660's RecoveryCheckpointTrigger, #28605's "
    "FLINK-40016 fix)",
    recover_output_on_downstream=True,
    checkpointing_during_recovery=True,
)


UNALIGNED_POINTWISE_DOWNSTREAM = UNALIGNED_POINTWISE.with_(
    name="flink-unaligned-pointwise-downstream",
    description=(
        "The pointwise-UC PR apache/flink#28523 with FLIP-547's two options on: a restore gives each producer's output "
        "channel state to its consumer (distributePointwiseOutputBufferToDownstream: the new consumer d mod newDownP, on "
        "the channel of its first producer that inherited the buffer's producer), and restored subtasks take checkpoints "
        "while they read their recovered state."
    ),
    origin="apache/flink#28523 (TaskStateAssignment.distributePointwiseOutputBufferToDownstream, "
    "InputChannelRecoveredStateHandler.recoverPointwise; its IT cases run both options); FLIP-547 (Flink 2.3.0's options)",
    recover_output_on_downstream=True,
    checkpointing_during_recovery=True,
)
