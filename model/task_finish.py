"""End of input and finishing, a part of the task (``model.task.StreamTask``): FLIP-147's operator
lifecycle (EndOfData, ``finish()``, the final checkpoint, EndOfPartition).

Flink: ``StreamTask.endData`` and ``StreamOperatorWrapper.finish`` (EndOfData on every input:
``endInput``, ``finish()``, EndOfData forwarded; a stop-with-savepoint without ``--drain``),
EndOfPartition on an input (``CheckpointedInputGate``), the final checkpoint and
``StreamTask.afterInvoke`` (the task closes once a checkpoint taken after its end of data
completed and ``ResultPartition.getAllDataProcessedFuture`` is done), and a trigger that reaches
a closed mailbox (``Task.triggerCheckpointBarrier``: TASK_CLOSING).  Each abstraction is stated
on the method that makes it.
"""

from __future__ import annotations

from .actions import TriggerAfterClose, handles
from .component import Component, follows
from .sinkv2 import COMMITTER, WRITER
from .tx import Tx
from .world import EOD, EOD_NO_DRAIN, EOP, FINISHED, NOTIFY_ABORT, NOTIFY_COMPLETE, NOTIFY_TRIGGER, RUNNING, TaskState, World


class FinishMixin(Component):
    """``StreamTask``'s end of input and finishing (FLIP-147): ``endData``, the final
    checkpoint, ``afterInvoke``.  A mixin of ``StreamTask``."""

    @follows("StreamTask.endData", "StreamOperatorWrapper.finish")
    def on_end_of_data(self, tx: Tx, t: int, bit: int, stop: bool = False) -> None:
        """EndOfData on one input; once every input delivered it, the operators ``finish()``
        (a Sink V2 writer's ``endInput`` emits its last committables) and the task forwards
        EndOfData (FLIP-147; a Sink V2 committer may hold it back, FLINK-38614).

        ``stop``: EndOfData of a stop-with-savepoint without ``--drain`` (StopMode.NO_DRAIN).
        One such input makes the gate's mode NO_DRAIN (``SingleInputGate``:
        ``shouldDrainOnEndOfData &= mode == DRAIN``): the operators neither ``endInput`` nor
        ``finish`` (``StreamOperatorWrapper.finish`` returns at once), the task forwards the
        NO_DRAIN EndOfData, and its input stays open: the status is STOPPED, not END_OF_DATA,
        so ``StreamOneInputProcessor`` does not switch to ``FinishedDataOutput`` (a writer's
        committables for the savepoint, sent after it, still arrive)."""
        ts = tx.tasks[t]
        eod = ts.eod | bit
        ts = ts._replace(eod=eod, stopped=ts.stopped or stop)
        tx.tasks[t] = ts
        if eod == self.model.all_inputs_mask[t] and not ts.ended:
            tx.tasks[t] = ts._replace(ended=True)
            part = self.model.sink_v2[t]
            if ts.stopped:
                if part == COMMITTER and not self.committer.forwards_end_of_data(tx, t):
                    return
                tx.push(self.model.all_out[t], EOD_NO_DRAIN)
                return
            if part == WRITER:
                self.writer.end_input(tx, t)
            elif part == COMMITTER and not self.committer.forwards_end_of_data(tx, t):
                return
            tx.push(self.model.all_out[t], EOD)

    def end_of_data_item(self, ts: TaskState) -> tuple:
        """The EndOfData event a task forwards: NO_DRAIN after a stop without ``--drain``."""
        return EOD_NO_DRAIN if ts.stopped else EOD

    def on_end_of_partition(self, tx: Tx, t: int, bit: int) -> None:
        """EndOfPartition on one input: it no longer takes part in alignment, and the task may
        finish."""
        ts = tx.tasks[t]
        tx.tasks[t] = ts._replace(eop=ts.eop | bit)
        self.barriers.on_end_of_partition(tx, t)
        self.maybe_finish(tx, t)

    def needs_final_checkpoint(self, ts: TaskState) -> bool:
        """A running task that reached end of input and has no completed (or announced: a
        completion, or an abort notice carrying a completion, in its inbox) checkpoint taken
        after it.  A task whose input has not ended yet does not count: it
        must first read its input (an RPC-triggered snapshot taken before it read a pending
        EndOfData is not its final checkpoint, and a scheduler that kept triggering instead
        of delivering would never end)."""
        if ts.status != RUNNING or not ts.ended:
            return False
        if not ts.final_cp:
            return True
        if ts.final_done:
            return False
        # an abort notice replays the latest completion it carries (FLINK-21080): announced too
        final = ts.final_cp
        seen = ts.notified
        return not any(m[0] == NOTIFY_COMPLETE and m[1] >= final and m[1] > seen
                       or m[0] == NOTIFY_ABORT and m[2] >= final and m[2] > seen for m in ts.inbox)

    def final_checkpoint_done(self, ts: TaskState) -> bool:
        """FLIP-147: has a checkpoint snapshotted after this task's end of data (its final
        checkpoint) completed, as far as the task knows?"""
        return ts.final_done

    @follows("ResultPartition.getAllDataProcessedFuture")
    def all_data_processed(self, tx: Tx, t: int) -> bool:
        """``ResultPartition.getAllDataProcessedFuture``: every consumer polled this task's
        EndOfData (``CheckpointedInputGate.handleEvent`` -> ``acknowledgeAllRecordsProcessed``),
        so every record before it was processed (UC note A.9 items 2-3).  With
        unaligned checkpoints this matters: a final checkpoint can complete while records the
        task sent are still in flight, as channel state.  A BLOCKING result's future is done at
        once (``TieredResultPartition.getAllDataProcessedFuture``: "Nothing to do"): its
        consumer is deployed only after the producer finished."""
        channels = tx.channels
        blocking = self.topo.blocking_channels
        return not any((EOD in channels[c] or EOD_NO_DRAIN in channels[c]) and c not in blocking for c in self.model.all_out[t])

    @follows("StreamTask.afterInvoke")
    def ready_to_finish(self, tx: Tx | World, t: int) -> bool:
        """Would the task finish now, but for a trigger RPC queued for it?  It ended, every
        input delivered EndOfPartition, a Sink V2 committer no longer holds EndOfData back, and
        (FLIP-147) a checkpoint taken after its end of data completed and its consumers
        processed all its data (``StreamTask.afterInvoke``, A.9 item 3)."""
        ts = tx.tasks[t]
        if ts.status != RUNNING or not ts.ended or ts.eop != self.model.all_inputs_mask[t]:
            return False
        if self.model.sink_v2[t] == COMMITTER and self.committer.holds_end_of_data(ts):
            return False
        if self.design.checkpoints_after_tasks_finish:
            return self.final_checkpoint_done(ts) and self.all_data_processed(tx, t)
        return True

    @follows("StreamTask.afterInvoke")
    def maybe_finish(self, tx: Tx, t: int) -> None:
        """A task finishes once ``ready_to_finish``: then it emits EndOfPartition.

        FLIP-147: "shutdown the task immediately after seeing first notifyCheckpointComplete(X),
        where X is any triggered checkpoint AFTER finish()".  Without FLIP-147 the task
        finishes as soon as its input ends, and a 2PC sink aborts its open transaction on
        close().  A trigger RPC queued for the task is served first: ``afterInvoke`` drains the
        mailbox (``prepareClose``) while the task still runs, so a trigger that reached it
        before is carried out (the task snapshots and acknowledges).  One that arrives after
        the mailbox closed is declined (``TriggerAfterClose``).
        """
        if not self.ready_to_finish(tx, t):
            return
        if any(m[0] == NOTIFY_TRIGGER for m in tx.tasks[t].inbox):
            return
        self.finish(tx, t)

    def finish(self, tx: Tx, t: int) -> None:
        """The task closes: FINISHED, its RPCs are gone, EndOfPartition on every output.  With the
        scope's ``late_finish_reports`` the JobManager learns of it in a later step
        (``FinishReported``)."""
        ts = tx.tasks[t]
        if not self.design.checkpoints_after_tasks_finish and self.model.two_pc[t]:
            self.sink.close_without_final_checkpoint(tx, t, ts)
        tx.tasks[t] = ts._replace(status=FINISHED, inbox=(), unreported=self.scope.late_finish_reports)
        tx.push(self.model.all_out[t], EOP)

    @follows("TaskExecutor.triggerCheckpoint", "CheckpointCoordinator.onTriggerFailure")
    def trigger_at_finished(self, tx: Tx, t: int, cp: int) -> None:
        """A trigger RPC reaches a task that already FINISHED (``Scope.late_finish_reports``: the
        JobManager's plan was computed before it processed the finish).  The task manager no
        longer knows the task: ``TaskExecutor.triggerCheckpoint`` fails the RPC with
        ``TASK_CHECKPOINT_FAILURE``, and the pending checkpoint aborts, uncounted
        (``CheckpointFailureManager``).  Seen in a real run
        (``tests/data/runs/finished-source-triggered.jsonl``): a source finishes after its final
        checkpoint, and the next checkpoint's trigger still reaches it.  The failed RPC is no
        decline: ``CheckpointCoordinator.triggerTasks``' future fails and ``onTriggerFailure``
        aborts the whole checkpoint (``CheckpointCoordinator.on_trigger_failure``), so FLIP-600's
        handler never sees it (row T7).  A completion or abort notice is never sent to a
        FINISHED task (the coordinator sends them to running ones), so it would be ignored on
        arrival in any case."""
        self.coordinator.on_trigger_failure(tx, cp)

    @handles(TriggerAfterClose, "task")
    @follows("Task.triggerCheckpointBarrier")
    def trigger_after_close(self, tx: Tx, t: int) -> None:
        """The task's mailbox closed (``StreamTask.afterInvoke``: the task finishes) before the
        trigger RPC at the head of its inbox arrived.  The RPC is declined, uncounted:
        ``CHECKPOINT_DECLINED_TASK_CLOSING`` (``Task.triggerCheckpointBarrier``: the mailbox
        rejects the mail), or ``TASK_CHECKPOINT_FAILURE`` once the task manager no longer knows
        the task (``TaskExecutor.triggerCheckpoint``); either way the pending checkpoint aborts
        and the failure manager does not count it (mechanics note 6,
        "Task finishing while a checkpoint is pending").  The plan was computed while the task
        ran: its status changed between the plan and the trigger.  Every trigger RPC queued
        behind it arrives later still, and is declined the same way."""
        cps = [m[1] for m in tx.tasks[t].inbox if m[0] == NOTIFY_TRIGGER]
        self.finish(tx, t)
        for cp in cps:
            self.coordinator.receive_decline(tx, t, cp, counted=False)
