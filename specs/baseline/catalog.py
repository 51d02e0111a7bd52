"""The catalog's entries for Flink's aligned checkpoints as they are (``flink-baseline``): a 2PC
sink committing at pre-commit, a source position not restored, a cleaner deleting the
checkpoint a restore needs, no alignment block, no checkpoint after tasks finish (before
FLIP-147), no operator-event gateway between a split enumerator and its readers, a checkpoint
scheduler that waits for finished tasks."""

from __future__ import annotations

from ckptcheck.model.checkpoint_plan import CheckpointPlanCalculator
from ckptcheck.model.gateway import OperatorCoordinatorHolder
from ckptcheck.model.registry import SharedStateRegistry
from ckptcheck.model.request_decider import CheckpointRequestDecider
from ckptcheck.model.scope import Scope
from ckptcheck.model.sources import SourceReader
from ckptcheck.model.store import CompletedCheckpointStore
from ckptcheck.model.world import FAILED, FINISHED, RUNNING

from ..catalog_entry import Entry

from .designs import BASELINE, INCREMENTAL
from .scopes import scope


def _scope(checkpoints: int = 1, failures: int = 0) -> Scope:
    """keyed-2x2 with one record per split and only the faults an entry needs."""
    return scope("keyed-2x2", records_per_split=1, max_checkpoints=checkpoints, max_failures=failures,
                 max_declines=0, max_timeouts=0, max_lost_notifications=0)


class BaseNotPruned(SharedStateRegistry):
    """The backend's placeholder base before Flink 2.3's prune (the 2.0 source,
    ``PreviousSnapshot.getUploaded`` on ``uploadedSstFiles.get(lastCompletedCheckpointId)`` as it
    is): a confirmed upload's files are placeholders even where a newer snapshot sent them
    again."""

    def confirmed_upload(self, ts, t: int) -> dict:
        return self.unpruned_upload(ts)


class PrunesUploadsInFlight(SharedStateRegistry):
    """A possible fix, not in Flink: the placeholder base is pruned also of the files that a
    newer snapshot still uploading sends again (``PreviousSnapshot.pruneFirstCheckpointSstFiles``
    reads ``uploadedSstFiles``, which gets a snapshot's upload only when its asynchronous part
    ends; the files a running snapshot uploads are known when its synchronous part ends)."""

    def confirmed_upload(self, ts, t: int) -> dict:
        return self.pruned(super().confirmed_upload(ts, t), ts.inflight, ts.confirmed, t)


INCREMENTAL_CONCURRENT = INCREMENTAL.with_(
    name="flink-incremental-concurrent",
    max_concurrent_checkpoints=2,
    description="flink-incremental with two concurrent checkpoints (execution.checkpointing.max-concurrent-checkpoints 2), "
    "Flink 2.3 as released.",
)


class TerminalAsFinished(CheckpointPlanCalculator):
    """FLINK-40482 before its fix (apache/flink#29031): ``DefaultCheckpointPlanCalculator`` took
    every terminal execution as finished (``Execution.isFinished()`` is ``state.isTerminal()``), so
    during a failover a FAILED or CANCELED task is planned as finished: left out of the tasks to
    wait for, its state in the checkpoint the empty ``FinishedOperatorSubtaskState``, and the
    trigger not refused (NOT_ALL_REQUIRED_TASKS_RUNNING) for it."""

    @staticmethod
    def _done(ts) -> bool:
        return ts.status == FAILED or (ts.status == FINISHED and not ts.unreported)

    def tasks_to_trigger(self, tasks: tuple) -> tuple[list[int], int, int]:
        waiting = finished = 0
        to_trigger = []
        for t, ts in enumerate(tasks):
            if self._done(ts):
                finished |= 1 << t
                continue
            waiting |= 1 << t
            a2a, pw = self.trigger_rule[t]
            if all(self._done(tasks[u]) for u in a2a) and not any(tasks[u].status == RUNNING or tasks[u].unreported for u in pw):
                to_trigger.append(t)
        return to_trigger, waiting, finished


class TerminalAsFinishedDecider(CheckpointRequestDecider):
    """FLINK-40482's other half: the trigger is not refused (NOT_ALL_REQUIRED_TASKS_RUNNING) for a
    FAILED task, judged as if it had finished."""

    def trigger_allowed_once_initialized(self, w) -> bool:
        if any(ts.status == FAILED for ts in w.tasks):  # judged as if the failed tasks had finished
            w = w._replace(tasks=tuple(ts._replace(status=FINISHED) if ts.status == FAILED else ts for ts in w.tasks))
        return super().trigger_allowed_once_initialized(w)


class CleanerDeletesOlderThanPending(CompletedCheckpointStore):
    """Flawed cleaner: once a newer checkpoint is triggered, the older ones are garbage."""

    def discard(self, subsumed: tuple[int, ...], retained: tuple[int, ...], pending: tuple[int, ...]) -> tuple[int, ...]:
        newest = max(pending, default=0)
        return subsumed + tuple(c for c in retained if c < newest)


class NoOperatorEventGateway(OperatorCoordinatorHolder):
    """Flawed coordinator holder: the readers' gateways are never closed at the coordinator's
    checkpoint, so an ``AddSplitEvent`` sent before a reader's snapshot reaches it at once."""

    treats_subtasks_alike = True

    def close_gateways(self, tx, cp: int) -> None:
        return


class RestartFromInitialOffset(SourceReader):
    """Flawed restore: the split reader starts again at the split's first offset."""

    def restore_position(self, snapshot_position: int) -> int:
        return 0


class SchedulerWaitsForFinishedTasks(CheckpointRequestDecider):
    """Flawed deactivator: the checkpoint scheduler runs only while every execution is RUNNING,
    a FINISHED one counting as stopped, where Flink 2.3's
    ``ExecutionTrackingCheckpointCoordinatorDeActivator`` accepts RUNNING or FINISHED.  Once a
    subtask finished, nothing is triggered any more, and a subtask that reaches its end of input
    later waits for its final checkpoint (FLIP-147) for ever.  It needs the scope's
    ``suspend_on_failure``: without it the model has no such scheduler."""

    treats_subtasks_alike = True

    def execution_not_running(self, w):
        stopped = super().execution_not_running(w)
        if stopped is not None:
            return stopped
        return next((t for t, ts in enumerate(w.tasks) if ts.status == FINISHED), None)


BASELINE_CATALOG: tuple[Entry, ...] = (
    Entry(
        "commit-at-pre-commit",
        BASELINE.with_(
            name="commit-at-pre-commit",
            sink_commit="pre-commit",
            description="The 2PC sink commits its transaction when it pre-commits at the snapshot, "
            "not on notifyCheckpointComplete: a failure before the checkpoint completes replays "
            "records that are already committed.",
        ),
        "exactly-once-output",
        _scope(checkpoints=1, failures=1),
        "TwoPhaseCommitSinkFunction contract: commit only in notifyCheckpointComplete (FLIP-147, "
        "'operators writing data to the external systems in 2pc style')",
    ),
    Entry(
        "source-position-not-restored",
        BASELINE.with_(
            name="source-position-not-restored",
            source=RestartFromInitialOffset,
            description="A restored source ignores the offset in its split state and reads its "
            "split from the start: records already committed are emitted again.",
        ),
        "exactly-once-output",
        scope("keyed-1x1", records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=0, max_timeouts=0,
              max_lost_notifications=0),
        "source split state (offsets) must be part of every checkpoint (reference section 6, restore)",
    ),
    Entry(
        "cleaner-deletes-restore-checkpoint",
        BASELINE.with_(
            name="cleaner-deletes-restore-checkpoint",
            store=CleanerDeletesOlderThanPending,
            description="The cleaner deletes a checkpoint's files as soon as a newer checkpoint "
            "is triggered, while the older one is still the latest completed checkpoint, the one "
            "a restore would use.",
        ),
        "checkpoints-restorable",
        _scope(checkpoints=1, failures=0),
        "CheckpointSubsumeHelper: the latest completed checkpoint is never subsumed (FLINK-21351); "
        "files are deleted only below the lowest retained id (reference section 6)",
    ),
    Entry(
        "no-alignment-block",
        BASELINE.with_(
            name="no-alignment-block",
            alignment_blocks_channels=False,
            description="A task keeps processing a channel after that channel's barrier and "
            "before its snapshot: the snapshot holds a record that the source's position says "
            "is after the checkpoint.",
        ),
        "checkpoints-consistent",
        _scope(checkpoints=1, failures=0),
        "aligned checkpoints: a channel is blocked after its barrier until every input delivered it "
        "(the FLIP-76 thread: barriers 'block' the other channels until aligned)",
    ),
    Entry(
        "no-checkpoints-after-finish",
        BASELINE.with_(
            name="no-checkpoints-after-finish",
            checkpoints_after_tasks_finish=False,
            description="Flink before FLIP-147: tasks finish as soon as their input ends and no "
            "checkpoint is taken after a task finished, so a 2PC sink's last transaction is "
            "never committed.",
        ),
        "bounded-job-completes",
        _scope(checkpoints=0, failures=0),
        "FLIP-147: 'the data sent after the last checkpoint would always not be able to "
        "be committed'",
    ),
    Entry(
        "no-operator-event-gateway",
        BASELINE.with_(
            name="no-operator-event-gateway",
            gateways=NoOperatorEventGateway,
            description="The split enumerator's events reach a reader between the coordinator's "
            "checkpoint and the reader's own: the enumerator's snapshot has the split unassigned "
            "and the reader's snapshot holds it, so a restore hands it out twice.",
        ),
        "split-ownership-consistent",
        scope("enumerator-and-side", records_per_split=1, bounded=True, max_checkpoints=1, max_failures=0,
              max_declines=0, max_timeouts=0, max_lost_notifications=0, staggered_triggers=True),
        "OperatorCoordinatorHolder.closeGateways at the coordinator's checkpoint, SubtaskGatewayImpl holding "
        "events until the subtask's AcknowledgeCheckpointEvent (row N6)",
    ),
    Entry(
        "scheduler-waits-for-finished-tasks",
        BASELINE.with_(
            name="scheduler-waits-for-finished-tasks",
            request_decider=SchedulerWaitsForFinishedTasks,
            description="The checkpoint scheduler starts again only when every execution is RUNNING, a FINISHED one "
            "counting as stopped: once one source finished, the other's final checkpoint is never triggered and the "
            "job never ends.",
        ),
        "bounded-job-completes",
        scope("keyed-2x1", records_per_split=0, max_checkpoints=1, max_failures=0, max_declines=0, max_timeouts=0,
              max_lost_notifications=0, suspend_on_failure=True),
        "ExecutionTrackingCheckpointCoordinatorDeActivator (Flink 2.3.0, DefaultExecutionGraph.enableCheckpointing): "
        "the scheduler restarts once every execution is RUNNING or FINISHED (rows N7, N8)",
    ),
    Entry(
        "FLINK-40482-failed-task-planned-as-finished",
        BASELINE.with_(
            name="FLINK-40482-failed-task-planned-as-finished",
            checkpoint_plan=TerminalAsFinished,
            request_decider=TerminalAsFinishedDecider,
            description="Flink before apache/flink#29031 (FLINK-40482): the checkpoint plan takes a FAILED task as "
            "finished, so a checkpoint triggered while one region fails over completes without that region's state: "
            "the failed sink is in it with empty finished state, a restore from it never replays the record the sink "
            "had not committed.",
        ),
        "checkpoints-consistent",
        scope("forward-2x2", records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=0, max_timeouts=0,
              max_lost_notifications=0),
        "apache/flink#29031 (FLINK-40482, merged 27 Aug 2026): DefaultCheckpointPlanCalculator.collectTaskRunningStatus "
        "used Execution.isFinished() (state.isTerminal()); the fix refuses a plan while a task is FAILED or CANCELED "
        "(checkNoTasksFailedOrCanceled), as the model's trigger does (CheckpointRequestDecider.trigger_allowed_once_initialized)",
    ),
    Entry(
        "incremental-prune-misses-a-running-upload",
        INCREMENTAL_CONCURRENT.with_(name="incremental-prune-misses-a-running-upload"),
        "shared-state-registered",
        scope("keyed-1x1", records_per_split=0, bounded=False, max_checkpoints=4, max_failures=0, max_declines=0,
              max_timeouts=0, max_lost_notifications=0),
        "Flink 2.3.0 as released, with two concurrent checkpoints: RocksDBSnapshotStrategyBase.PreviousSnapshot prunes "
        "the placeholder base only of uploads recorded in uploadedSstFiles, which RocksDBIncrementalSnapshotOperation.get "
        "puts when a snapshot's asynchronous part ends; a snapshot taken while the previous one still uploads names the "
        "confirmed checkpoint's files, which that previous one sent again under new keys and whose completion deletes "
        "them; the registry then refuses the acknowledgement. Seen on Flink 2.3.0: the validate configuration "
        "incremental-late-confirmation-p2 recorded an 'Attempt to reference unknown state' in 2 of about 20 runs "
        "(tests/data/runs/incremental-refused-ack-p2.jsonl)",
        correct=INCREMENTAL_CONCURRENT.with_(name="flink-incremental-prunes-running-uploads", registry=PrunesUploadsInFlight,
                                             description="A possible fix, not in Flink: the placeholder base is also "
                                             "pruned of the files a snapshot still uploading sends again."),
    ),
    Entry(
        "incremental-base-not-pruned",
        INCREMENTAL.with_(
            name="incremental-base-not-pruned",
            registry=BaseNotPruned,
            description="Incremental checkpoints without Flink 2.3's prune of the placeholder base (the 2.0 source): a "
            "backend that takes snapshot 2 before the notice of checkpoint 1 uploads checkpoint 1's files again under new "
            "keys; 2 subsumes 1 and the registry deletes 1's entries; the notice of 1 then arrives and makes 1 the "
            "confirmed checkpoint, so snapshot 3 names 1's deleted files by placeholder, and the registry refuses its "
            "acknowledgement: checkpoint 3 can never complete.",
        ),
        "shared-state-registered",
        scope("keyed-1x1", records_per_split=0, bounded=False, max_checkpoints=3, max_failures=0, max_declines=0,
              max_timeouts=0, max_lost_notifications=0),
        "RocksDBSnapshotStrategyBase.PreviousSnapshot in the 2.0 source (b48ccce) and in 2.3.0 (pruneFirstCheckpointSstFiles, "
        "whose comment gives this path), SharedStateRegistryKey.forStreamStateHandle (FLINK-29913), "
        "CheckpointCoordinator.receiveAcknowledgeMessage (registers at the ack), SharedStateRegistryImpl.registerReference "
        "(rows T1, T2); the validate configuration incremental-late-confirmation-p2 runs the path on Flink 2.3.0",
        correct=INCREMENTAL,
    ),
)
