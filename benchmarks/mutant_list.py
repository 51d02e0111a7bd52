"""The one-line mutants ``benchmarks/mutants.py`` runs the test tiers against.

Each is a variant's override of one method of one component, as a design change is written
(``docs/pages/designs.md``): a subclass of the component whose method changes one line of the
rule (a condition negated, a bound moved by one, a step left out) and calls ``super()`` for the
rest.  ``component`` is the design field that holds the class; the mutant applies to every
design whose component is ``base`` or a subclass of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ckptcheck.model.assignment import StateAssignmentOperation
from ckptcheck.model.barriers import CheckpointBarrierHandler
from ckptcheck.model.component import Component
from ckptcheck.model.coordinator import CheckpointCoordinator
from ckptcheck.model.failover import FailoverStrategy
from ckptcheck.model.gateway import OperatorCoordinatorHolder
from ckptcheck.model.network_input import StreamTaskNetworkInput
from ckptcheck.model.nullstate import NullStateRecovery
from ckptcheck.model.partitioner import StreamPartitioner
from ckptcheck.model.regional import RegionalCheckpointHandler
from ckptcheck.model.registry import SharedStateRegistry
from ckptcheck.model.sinks import TwoPhaseCommitSink
from ckptcheck.model.sinkv2 import CommitterOperator, GlobalCommitterOperator, SinkWriterOperator
from ckptcheck.model.sources import SourceReader, SplitEnumerator
from ckptcheck.model.store import CompletedCheckpointStore, FileMergingSnapshotManager
from ckptcheck.model.subtask_checkpoint import SubtaskCheckpointCoordinator
from ckptcheck.model.task import StreamTask


@dataclass(frozen=True)
class Mutant:
    name: str
    component: str
    base: type[Component]
    method: str
    what: str
    override: type

    def __post_init__(self) -> None:
        assert issubclass(self.override, self.base) and self.method in self.override.__dict__, self.name


# -- partitioner -------------------------------------------------------------------------------
class RebalanceNeverAdvances(StreamPartitioner):
    def route(self, t, rec, rr):
        return super().route(t, rec, rr)[0], rr


# -- source and enumerator ---------------------------------------------------------------------
class SourceIgnoresRestoredOffset(SourceReader):
    def restore_position(self, snapshot_position):
        return super().restore_position(0)


class FinishedSplitRereadFromStart(SourceReader):
    def finished_split_position(self):
        return 0


class EnumeratorForgetsSplitsOfRestartedReader(SplitEnumerator):
    def on_restore(self, tx, latest, victims):
        if len(victims) == self.topo.n_tasks:
            super().on_restore(tx, latest, victims)


# -- operator-event gateways ---------------------------------------------------------------------
class FailedReaderKeepsHeldEvents(OperatorCoordinatorHolder):
    def on_failure(self, tx, victims):
        pass


# -- shared state registry ---------------------------------------------------------------------
class RegistryDeletesAtLastUse(SharedStateRegistry):
    def unregister_unused(self, tx, lowest):
        super().unregister_unused(tx, lowest + 1)


# -- barrier handler ---------------------------------------------------------------------------
class AlignmentBlocksNextChannel(CheckpointBarrierHandler):
    def is_blocked(self, ts, input_index):
        return super().is_blocked(ts, input_index + 1)


class EndOfPartitionLeavesAlignmentOpen(CheckpointBarrierHandler):
    def on_end_of_partition(self, tx, t):
        pass


class CancelMarkerOfCurrentCheckpointIgnored(CheckpointBarrierHandler):
    def on_cancel(self, tx, t, cp):
        if cp != tx.tasks[t].aligning:
            super().on_cancel(tx, t, cp)


# -- 2PC sink and Sink V2 ----------------------------------------------------------------------
class SinkCommitsOneCheckpointShort(TwoPhaseCommitSink):
    def commit_up_to(self, tx, t, upto):
        super().commit_up_to(tx, t, upto - 1)


class SinkCommitsOneCheckpointAhead(TwoPhaseCommitSink):
    def commit_up_to(self, tx, t, upto):
        super().commit_up_to(tx, t, upto + 1)


class SinkAbortsRestoredPendingTransactions(TwoPhaseCommitSink):
    def initialize_state(self, tx, t, snap):
        return super().initialize_state(tx, t, snap._replace(pending=()))


class WriterTagsEndOfInputWithLastCheckpoint(SinkWriterOperator):
    def end_of_input_checkpoint(self, last_known):
        return super().end_of_input_checkpoint(last_known) - 1


class CommitterCommitsOneCheckpointAhead(CommitterOperator):
    def commit_and_emit(self, tx, t, upto):
        super().commit_and_emit(tx, t, upto + 1)


class CommitterForwardsEndOfDataAtOnce(CommitterOperator):
    def forwards_end_of_data(self, tx, t):
        return True


class GlobalCommitterOneCheckpointBehind(GlobalCommitterOperator):
    def commit(self, tx, t, cp):
        super().commit(tx, t, cp - 1)


# -- task --------------------------------------------------------------------------------------
class TaskFinishesWithoutFinalCompletion(StreamTask):
    def final_checkpoint_done(self, ts):
        return bool(ts.final_cp)


class InputStateNotPersistedOnPoll(StreamTaskNetworkInput):
    def persists_on_poll(self, ts, bit, r):
        return False


class OutputStateSkipsFirstRecord(SubtaskCheckpointCoordinator):
    def output_state(self, queued):
        return super().output_state(queued)[1:]


class FinishWithoutConsumersProcessingData(StreamTask):
    def all_data_processed(self, tx, t):
        return True


# -- coordinator -------------------------------------------------------------------------------
class CoordinatorIgnoresTolerance(CheckpointCoordinator):
    def over_tolerable(self, failed):
        return False


class AbortNoticeWithoutLatestCompleted(CheckpointCoordinator):
    def latest_completed_for(self, store, t):
        return 0


class FailoverKeepsPendingCheckpoint(CheckpointCoordinator):
    def abort_for_failover(self, tx, victims):
        pass


# -- FLIP-600 regional handler -----------------------------------------------------------------
class FailedRegionGetsPlainCompletion(RegionalCheckpointHandler):
    def notice_for_failed_region(self, tx, t, pending, fallback, subsumed):
        self.coordinator.send_complete(tx, t, pending.id, subsumed)


class FailureRatioAtMaximumAborts(RegionalCheckpointHandler):
    def judged_regions(self, pending):
        regions, failed, too_many = super().judged_regions(pending)
        return regions, failed, too_many or 100 * len(failed) == self.design.max_failed_region_percent * len(regions)


class EndOfInputNotForcedGlobal(RegionalCheckpointHandler):
    def must_be_global(self, tx):
        return super().must_be_global(tx) and tx.coord.force_global


# -- store and file merging --------------------------------------------------------------------
class CleanerDeletesOneCheckpointTooMany(CompletedCheckpointStore):
    def discard(self, subsumed, retained, pending):
        return super().discard(subsumed, retained, pending) + retained[:1]


class StoreIgnoresRefCheckpointIds(CompletedCheckpointStore):
    def referenced(self, store, ids):
        return set(ids)


class NoClaimSnapshotDeletableAfterFirstCheckpoint(CompletedCheckpointStore):
    def may_delete_snapshot(self, w):
        return bool(w.coord.completed_count) and any(f[0] == 1 for f in w.files)


class FileMergingDiscardsOneCheckpointTooMany(FileMergingSnapshotManager):
    def notify_subsumed(self, tx, t, subsumed):
        super().notify_subsumed(tx, t, subsumed + 1)


# -- failover and state assignment -------------------------------------------------------------
class FailoverRestartsOnlyFailedTask(FailoverStrategy):
    def tasks_to_restart(self, t):
        return frozenset((t,))


class RecordFilterNotApplied(StateAssignmentOperation):
    def keeps(self, e, ambiguous, consumer_index, r, *, old_consumer=None, old_producer=None):
        return super().keeps(e, False, consumer_index, r, old_consumer=old_consumer, old_producer=old_producer)


class KeyGroupRangesShiftedBySubtask(StateAssignmentOperation):
    @staticmethod
    def keyed(max_p, new_p, olds, keys=0):
        out = StateAssignmentOperation.keyed(max_p, new_p, olds, keys)
        return out[1:] + out[:1]


# -- FLINK-4120 null-state recovery ------------------------------------------------------------
class BarrierReinsertedOneRecordLate(NullStateRecovery):
    def reinsert_position(self, split, start, original):
        return super().reinsert_position(split, start, original) + 1


class NullStateCheckpointNotRetained(NullStateRecovery):
    def retained_for_recovery(self, store):
        return ()


MUTANTS: tuple[Mutant, ...] = (
    Mutant("partitioner-round-robin-never-advances", "partitioner", StreamPartitioner, "route",
           "`RebalancePartitioner.selectChannel` does not advance its round-robin channel: every record goes to "
           "the same channel", RebalanceNeverAdvances),
    Mutant("source-ignores-restored-offset", "source", SourceReader, "restore_position",
           "a restored `SourceReader` does not seek to the offset in its split state but re-reads the split from "
           "offset 0", SourceIgnoresRestoredOffset),
    Mutant("source-rereads-finished-split", "source", SourceReader, "finished_split_position",
           "a finished subtask of a partly finished source vertex restarts its split from offset 0 instead of at its "
           "end (the split's progress is lost with the `FinishedOperatorSubtaskState`)", FinishedSplitRereadFromStart),
    Mutant("enumerator-forgets-splits-of-restarted-reader", "enumerator", SplitEnumerator, "on_restore",
           "on a regional failover `SourceCoordinator.subtaskReset` does not `addSplitsBack` the splits assigned to "
           "the restarted reader after the restored checkpoint", EnumeratorForgetsSplitsOfRestartedReader),
    Mutant("failed-reader-keeps-held-events", "gateways", OperatorCoordinatorHolder, "on_failure",
           "a failed reader's `SubtaskGatewayImpl` keeps its closed marks and blocked `AddSplitEvent`s for the new attempt "
           "(`subtaskReset` gives the new attempt a fresh, open gateway)", FailedReaderKeepsHeldEvents),
    Mutant("registry-deletes-at-last-use", "registry", SharedStateRegistry, "unregister_unused",
           "`SharedStateRegistryImpl.unregisterUnusedState(lowest)` also deletes the shared files last used by the "
           "oldest retained checkpoint itself", RegistryDeletesAtLastUse),
    Mutant("alignment-blocks-next-channel", "barriers", CheckpointBarrierHandler, "is_blocked",
           "`CheckpointBarrierHandler` blocks channel i + 1 instead of channel i when channel i delivers the "
           "barrier (the channel that delivered it is unblocked too early)", AlignmentBlocksNextChannel),
    Mutant("end-of-partition-leaves-alignment-open", "barriers", CheckpointBarrierHandler, "on_end_of_partition",
           "`processEndOfPartition` does not re-check the alignment, so an EndOfPartition that arrives after the "
           "other channels' barriers never completes it", EndOfPartitionLeavesAlignmentOpen),
    Mutant("cancel-marker-of-current-checkpoint-ignored", "barriers", CheckpointBarrierHandler, "on_cancel",
           "`processCancellationBarrier` ignores a `CancelCheckpointMarker` for the checkpoint being aligned "
           "(only newer ones abort)", CancelMarkerOfCurrentCheckpointIgnored),
    Mutant("sink-commits-one-checkpoint-short", "sink", TwoPhaseCommitSink, "commit_up_to",
           "`notifyCheckpointComplete(n)` commits the transactions of checkpoints up to n - 1", SinkCommitsOneCheckpointShort),
    Mutant("sink-commits-one-checkpoint-ahead", "sink", TwoPhaseCommitSink, "commit_up_to",
           "`TwoPhaseCommitSinkFunction.notifyCheckpointComplete(n)` also commits the transaction pre-committed for "
           "checkpoint n + 1, which has not completed", SinkCommitsOneCheckpointAhead),
    Mutant("sink-aborts-restored-pending-transactions", "sink", TwoPhaseCommitSink, "initialize_state",
           "`TwoPhaseCommitSinkFunction.initializeState` skips `recoverAndCommit`: the pending transactions in the "
           "restored state are aborted with the other open ones", SinkAbortsRestoredPendingTransactions),
    Mutant("writer-tags-end-of-input-with-last-checkpoint", "writer", SinkWriterOperator, "end_of_input_checkpoint",
           "`SinkWriterOperator.endInput` tags its last committables with `lastKnownCheckpointId` instead of "
           "`lastKnownCheckpointId + 1` (FLINK-37605)", WriterTagsEndOfInputWithLastCheckpoint),
    Mutant("committer-commits-one-checkpoint-ahead", "committer", CommitterOperator, "commit_and_emit",
           "`CommitterOperator.notifyCheckpointComplete(n)` commits the committables of checkpoint n + 1 too, "
           "before that checkpoint completes", CommitterCommitsOneCheckpointAhead),
    Mutant("committer-forwards-end-of-data-at-once", "committer", CommitterOperator, "forwards_end_of_data",
           "the committer task broadcasts EndOfData as soon as its input ended, before the final checkpoint's "
           "committables were emitted (FLINK-38614's released behaviour)", CommitterForwardsEndOfDataAtOnce),
    Mutant("global-committer-one-checkpoint-behind", "global_committer", GlobalCommitterOperator, "commit",
           "`GlobalCommitterOperator.commit` takes the incoming checkpoint as one lower, committing only up to "
           "n - 1 on a message of checkpoint n", GlobalCommitterOneCheckpointBehind),
    Mutant("task-finishes-without-final-completion", "task", StreamTask, "final_checkpoint_done",
           "`StreamTask.afterInvoke` closes the task once its final checkpoint was snapshotted, without waiting for "
           "its `notifyCheckpointComplete` (FLIP-147)", TaskFinishesWithoutFinalCompletion),
    Mutant("input-state-not-persisted-on-poll", "network_input", StreamTaskNetworkInput, "persists_on_poll",
           "`ChannelStatePersister.maybePersist` never persists a record read before its channel's unaligned "
           "barrier arrived", InputStateNotPersistedOnPoll),
    Mutant("output-state-skips-first-record", "subtask_checkpoint", SubtaskCheckpointCoordinator, "output_state",
           "`ChannelStateWriter.addOutputData` leaves out the first record a priority barrier overtook in a "
           "subpartition", OutputStateSkipsFirstRecord),
    Mutant("finish-without-consumers-processing-data", "task", StreamTask, "all_data_processed",
           "`StreamTask.afterInvoke` does not wait for `ResultPartition.getAllDataProcessedFuture`: a task whose "
           "final checkpoint completed finishes while its EndOfData is still unread downstream",
           FinishWithoutConsumersProcessingData),
    Mutant("coordinator-ignores-tolerable-failures", "coordinator", CheckpointCoordinator, "over_tolerable",
           "a failed checkpoint never exceeds `tolerable-failed-checkpoints`", CoordinatorIgnoresTolerance),
    Mutant("abort-notice-without-latest-completed", "coordinator", CheckpointCoordinator, "latest_completed_for",
           "`notifyCheckpointAborted` carries no latest completed checkpoint id, so a task that lost a completion "
           "notice does not commit on the abort (FLINK-21080's replay dropped)", AbortNoticeWithoutLatestCompleted),
    Mutant("failover-keeps-pending-checkpoint", "coordinator", CheckpointCoordinator, "abort_for_failover",
           "a restore does not call `abortPendingCheckpoints(JOB_FAILOVER_REGION)`: the pending checkpoint waits "
           "for acks of cancelled attempts", FailoverKeepsPendingCheckpoint),
    Mutant("failed-region-gets-plain-completion", "regional", RegionalCheckpointHandler, "notice_for_failed_region",
           "FLIP-600: a failed-region task gets a plain `notifyCheckpointComplete(n)` for a regional checkpoint "
           "instead of the notice with the fallback id", FailedRegionGetsPlainCompletion),
    Mutant("failure-ratio-at-maximum-aborts", "regional", RegionalCheckpointHandler, "judged_regions",
           "FLIP-600 `tryCompleteRegionalCheckpoint` compares the failed-region ratio with >= instead of >: a ratio "
           "exactly at `region.max-failure-ratio` aborts", FailureRatioAtMaximumAborts),
    Mutant("end-of-input-not-forced-global", "regional", RegionalCheckpointHandler, "must_be_global",
           "FLIP-600: a checkpoint triggered once every source is exhausted is not forced global (only tier 1 "
           "forces)", EndOfInputNotForcedGlobal),
    Mutant("cleaner-deletes-one-checkpoint-too-many", "store", CompletedCheckpointStore, "discard",
           "`CheckpointsCleaner.cleanSubsumedCheckpoints` also deletes the files of the oldest retained checkpoint "
           "(one checkpoint too many; with num-retained 1 the latest)", CleanerDeletesOneCheckpointTooMany),
    Mutant("store-ignores-ref-checkpoint-ids", "store", CompletedCheckpointStore, "referenced",
           "FLIP-600 `computeReferencedCheckpointIds` does not follow refCheckpointId: a fallback checkpoint a "
           "retained one refers to is subsumed and its files deleted", StoreIgnoresRefCheckpointIds),
    Mutant("no-claim-snapshot-deletable-after-first-checkpoint", "store", CompletedCheckpointStore,
           "may_delete_snapshot",
           "the NO_CLAIM snapshot may be deleted after the first completed checkpoint even while the latest "
           "checkpoint still refers to it (refCheckpointId)", NoClaimSnapshotDeletableAfterFirstCheckpoint),
    Mutant("file-merging-discards-one-checkpoint-too-many", "file_merging_manager", FileMergingSnapshotManager,
           "notify_subsumed",
           "`FileMergingSnapshotManager.notifyCheckpointSubsumed(n)` discards the segments of checkpoint n + 1, "
           "which is still retained", FileMergingDiscardsOneCheckpointTooMany),
    Mutant("failover-restarts-only-failed-task", "failover", FailoverStrategy, "tasks_to_restart",
           "`RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart` returns only the failed subtask: its "
           "downstream tasks in the region are not cancelled", FailoverRestartsOnlyFailedTask),
    Mutant("record-filter-not-applied", "assignment", StateAssignmentOperation, "keeps",
           "the channel-state assignment drops the `RecordFilter` of ambiguous virtual channels: every replica of "
           "a rescaled record is kept", RecordFilterNotApplied),
    Mutant("key-group-ranges-shifted-by-subtask", "assignment", StateAssignmentOperation, "keyed",
           "`reDistributeKeyedStates` gives new subtask i the keyed state of subtask i + 1's key-group range",
           KeyGroupRangesShiftedBySubtask),
    Mutant("barrier-reinserted-one-record-late", "null_state", NullStateRecovery, "reinsert_position",
           "FLINK-4120: a recovering source re-inserts the latest checkpoint's barrier one record after its "
           "original position", BarrierReinsertedOneRecordLate),
    Mutant("null-state-checkpoint-not-retained", "null_state", NullStateRecovery, "retained_for_recovery",
           "FLINK-4120: the store does not keep the latest checkpoint's null-state checkpoint beyond "
           "`num-retained`", NullStateCheckpointNotRetained),
)
