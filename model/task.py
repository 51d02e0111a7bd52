"""The task: Flink's ``StreamTask``, a (re)deployed subtask's state, the trigger and the
coordinator's notifications, and FLIP-147's operator lifecycle (EndOfData, ``finish()``, the
final checkpoint, EndOfPartition, ``afterInvoke``).  Its input is ``StreamTaskNetworkInput``
(``model.network_input``), its snapshots ``SubtaskCheckpointCoordinator``
(``model.subtask_checkpoint``).  Each abstraction is stated on the method that makes it.
"""

from __future__ import annotations

from .actions import EndOfRecovery, LoseNotification, Notify, TriggerAfterClose, handles
from .component import Component, follows
from .network_input import priority_index  # noqa: F401  (re-exported: where a channel's priority barrier is)
from .sinkv2 import COMMITTER, GLOBAL_COMMITTER, WRITER
from .tx import Tx
from .world import (
    EOD,
    EOD_NO_DRAIN,
    EOP,
    FINISHED,
    FINISHED_SNAPSHOT,
    NOTIFY_ABORT,
    NOTIFY_COMPLETE,
    NOTIFY_FALLBACK,
    NOTIFY_TRIGGER,
    RUNNING,
    Snapshot,
    TaskState,
    World,
)


class StreamTask(Component):
    """``StreamTask``: a subtask's deployment, its trigger and notifications, its end of input and
    finishing (FLIP-147)."""

    @follows("CheckpointingOptions.isCheckpointingDuringRecoveryEnabled")
    def checkpointing_during_recovery(self) -> bool:
        """Are checkpoints during recovery (FLIP-547) on for this job?  The one gate every call
        site of Flink's master asks: ``execution.checkpointing.during-recovery.enabled`` and
        ``execution.checkpointing.unaligned.recover-output-on-downstream.enabled``, and, since
        FLINK-40518 (apache/flink#29055), unaligned checkpoints enabled (``FlinkModel.unaligned``:
        off after the scope's ``restart_aligned`` restart).  ``knob_conflict`` refuses the first
        option alone, or with an aligned design."""
        d = self.design
        return d.checkpointing_during_recovery and d.recover_output_on_downstream and self.model.unaligned

    def fresh(self, t: int, snap: Snapshot, restored_from: int, txn: int) -> TaskState:
        """A (re)deployed subtask with state ``snap``, restored from checkpoint ``restored_from``."""
        n_out = len(self.topo.out_edges[self.topo.vertex_of[t]])
        return TaskState(
            status=RUNNING,
            position=snap.position,
            ended=False,
            final_cp=0,
            notified=restored_from,
            aborted=0,
            aligning=0,
            blocked=0,
            last_barrier=restored_from,
            eod=0,
            eop=0,
            processed=snap.processed,
            txn=txn,
            pending=(),
            rr=(0,) * n_out,
            inbox=(),
            split=snap.split,
            sink=self.sink_operator_state(t, snap, restored_from),
            discarded=snap.discarded,
        )

    def finished_on_restore(self, t: int, snap: Snapshot, restored_from: int) -> TaskState:
        """A subtask of a fully finished vertex, deployed ``FINISHED_ON_RESTORE``
        (UC note D.4): it runs ``FinishedOperatorChain``, whose operators are never
        opened; its inputs end at once and it broadcasts EndOfData; it takes part in
        checkpoints, acknowledging them as finished, and finishes (EndOfPartition) like any
        task once a checkpoint after its end completed."""
        return self.fresh(t, snap._replace(finished=False), restored_from, 0)._replace(
            ended=True, eod=self.model.all_inputs_mask[t], finished_on_restore=True, sink=())

    def finished_snapshot(self, ts: TaskState) -> Snapshot:
        """The state of a subtask in a checkpoint it is finished in: the empty
        ``FinishedOperatorSubtaskState`` (the ghost ``discarded`` keeps what its state held)."""
        gone = ts.discarded + ts.processed if ts.processed else ts.discarded
        return FINISHED_SNAPSHOT._replace(discarded=tuple(sorted(set(gone)))) if gone else FINISHED_SNAPSHOT

    def sink_operator_state(self, t: int, snap: Snapshot, restored_from: int) -> tuple:
        """A Sink V2 operator's working state after ``initializeState`` (``model.sinkv2``)."""
        part = self.model.sink_v2[t]
        if not part:
            return ()
        return self.sink_v2_part(part).state(snap, restored_from)

    def sink_v2_part(self, part: str):
        """The component holding the rules of Sink V2 operator ``part``."""
        return {WRITER: self.writer, COMMITTER: self.committer, GLOBAL_COMMITTER: self.global_committer}[part]

    @handles(EndOfRecovery, "task")
    @follows("RescalingStreamTaskNetworkInput.finishRecovery")
    def finish_recovery(self, tx: Tx, t: int) -> None:
        """Subtask ``t``, restored at a new parallelism, has read every channel's
        ``EndOfChannelStateEvent`` (``RescalingStreamTaskNetworkInput.finishRecovery``): it takes
        checkpoints again (``Scope.rescaled_tasks_decline``).  With checkpoints during recovery
        (``FlinkModel.cdr``) the action is the end of its filtering instead, before it reads any
        recovered buffer (FLINK-38930: filtering before processing; ``getBufferFilteringCompleteFuture``
        in Flink 2.3.0, ``RecoveryCheckpointTrigger`` leaving NOT_READY on master, apache/flink#28660)."""
        tx.tasks[t] = tx.tasks[t]._replace(rescaled=False)

    @handles(LoseNotification, "task")
    def lose_rpc(self, tx: Tx, t: int) -> None:
        """Fault: the coordinator RPC at the head of subtask ``t``'s inbox is lost."""
        ts = tx.tasks[t]
        tx.tasks[t] = ts._replace(inbox=ts.inbox[1:])

    # notifications ----------------------------------------------------------------------------
    @handles(Notify, "task")
    @follows("StreamTask.notifyCheckpointCompleteAsync", "StreamTask.notifyCheckpointAbortAsync")
    def notify(self, tx: Tx, t: int) -> None:
        """The coordinator RPC at the head of the inbox reaches the task.

        ``complete``: ``notifyCheckpointComplete``.  ``fallback`` (FLIP-600): complete, but this
        task's state in it is the fallback checkpoint's.  ``abort``:
        ``notifyCheckpointAborted``, which first replays the completion of the latest completed
        checkpoint it carries (``notifyCheckpointAbortAsync``, mechanics note 6).  A notice may carry
        FLIP-306's ``lastSubsumedCheckpointId``.
        

        Abstraction: notifications are coordinator RPCs queued in the task's inbox, FIFO; a
        lost one is a fault."""
        ts = tx.tasks[t]
        kind, cp, latest, subsumed = ts.inbox[0]
        tx.tasks[t] = ts._replace(inbox=ts.inbox[1:])
        if ts.status == FINISHED:  # only a trigger is ever queued for a finished task
            self.trigger_at_finished(tx, t, cp)
            return
        if subsumed:
            self.file_merging_manager.notify_subsumed(tx, t, subsumed)
        if kind == NOTIFY_TRIGGER:
            self.on_trigger_rpc(tx, t, cp, latest)  # a trigger's third field: its savepoint type
            self.maybe_finish(tx, t)  # a task that waited only for this RPC closes now
            return
        if kind == NOTIFY_COMPLETE:
            self.on_complete(tx, t, cp)
        elif kind == NOTIFY_FALLBACK:
            self.on_fallback(tx, t, cp, latest)
        else:
            if latest:
                self.on_complete(tx, t, latest)
            ts = tx.tasks[t]
            tx.tasks[t] = ts._replace(aborted=max(ts.aborted, cp))
            if self.registry.active:
                self.registry.on_abort(tx, t, cp)
            if self.local_state.active:  # TaskStateManagerImpl.notifyCheckpointAborted
                self.local_state.abort(tx, t, cp)
        self.maybe_finish(tx, t)

    @follows("StreamTask.triggerCheckpointAsync")
    def trigger(self, tx: Tx, t: int, cp: int, savepoint: int = 0) -> None:
        """The coordinator's trigger RPC (``triggerCheckpointAsync``): sources, and tasks whose
        upstreams all finished (FLIP-147), snapshot at once; in ``unaligned`` mode the barriers
        they send are priority ones and the records they overtake are output state
        (``SubtaskCheckpointCoordinator``).  A stop's
        synchronous savepoint (``savepoint``: its stop mode) first stops a source that still
        reads (``SourceReader.stop``); savepoints are aligned (stop-with-savepoint is modelled
        with aligned designs only)."""
        if savepoint and t in self.topo.sources:
            self.source.stop(tx, t, savepoint)
        if self.model.checkpoint_mode == "unaligned":
            ts = tx.tasks[t]
            live = self.model.all_inputs_mask[t] & ~ts.eop
            tx.tasks[t] = ts._replace(aligning=cp, blocked=live)  # virtual barriers on every open channel
            self.subtask_checkpoint.start_unaligned(tx, t, cp)
            self.barriers.maybe_complete_alignment(tx, t)
        else:
            self.subtask_checkpoint.snapshot(tx, t, cp)

    def not_ready_for_trigger(self, tx: Tx, t: int) -> bool:
        """Does a trigger RPC reaching subtask ``t`` now get declined as not ready (FLINK-20654,
        ``CHECKPOINT_DECLINED_TASK_NOT_READY``): is it still INITIALIZING
        (``CheckpointRequestDecider.is_initializing``: reading recovered channel state, or with
        checkpoints during recovery only while it filters, ``RecoveryCheckpointTrigger.NOT_READY``,
        apache/flink#28660)?"""
        return self.request_decider.is_initializing(tx, t)

    @follows("Task.triggerCheckpointBarrier")
    def on_trigger_rpc(self, tx: Tx, t: int, cp: int, savepoint: int = 0) -> None:
        """A staggered trigger RPC arrives (``Task.triggerCheckpointBarrier``): a subtask not
        ready for it declines it, uncounted (``not_ready_for_trigger``); otherwise it is
        triggered.  An RPC for a checkpoint aborted meanwhile still triggers: its abort notice
        is behind it in the inbox, as in Flink's mailbox."""
        if self.not_ready_for_trigger(tx, t):
            self.model.coordinator.receive_decline(tx, t, cp, counted=False)
        else:
            self.trigger(tx, t, cp, savepoint)

    def on_fallback(self, tx: Tx, t: int, cp: int, own: int) -> None:
        """FLIP-600's notice to a failed-region task: regional checkpoint ``cp`` completed with
        this task's state taken from checkpoint ``own``.

        Two questions, a reading each (``take_fallback_notice``, ``fallback_reaches_operators``).
        What the task's ``StreamTask`` does with ``cp`` (``fallback_notice_at_task``, row N4):
        nothing; record it as
        ``latestReportCheckpointId``, so that a later completion or abort replay of an id up to
        ``cp`` is ignored (``notifyCheckpointComplete``'s early return), without completing
        ``finalCheckpointCompleted``; or take it as a completion in full, the final checkpoint
        included (the proposal, catalog F1); or, as PR #28966's documentation says (row PR3), the
        notice "survives task restarts and is applied after the task recovers": a completion in
        full that a restarted attempt gets again after its restore (``replayed-after-restart``,
        ``FailoverStrategy.fail`` keeps it in ``TaskState.held``).  PR #28963's documentation says
        the notice is "delivered via the same task-side checkpoint-complete RPC path", which fits
        the last three; its ``StreamTask`` change is not indexed, so every reading is searched
        (``specs.findings``).  And whether the operators act on it
        (``fallback_notice_reaches_operators``): they commit what the fallback state covers, up
        to ``own``; in the PR the notice reaches ``CheckpointListener.notifyRegionalCheckpointFallback``,
        a no-op unless an operator overrides it (row B13)."""
        if self.local_state.active:
            self.local_state.on_fallback(tx, t, cp)
        self.take_fallback_notice(tx, t, cp, own)

    def take_fallback_notice(self, tx: Tx, t: int, cp: int, own: int) -> None:
        """What ``StreamTask`` does with the fallback notice of ``cp`` (``fallback_notice_at_task``):
        here the proposal's reading, a completion in full, the final checkpoint included (catalog
        F1), the operators committing up to ``own`` where the notice reaches them
        (``fallback_reaches_operators``).  ``model.flip600`` holds the other readings."""
        self.on_complete(tx, t, cp, commit_upto=own, final=True, operators=self.fallback_reaches_operators())

    def fallback_reaches_operators(self) -> bool:
        """Do the operators act on a fallback notice (``fallback_notice_reaches_operators``)?  Here
        they do: they commit what the fallback state covers."""
        return True

    @follows("StreamTask.notifyCheckpointComplete")
    def on_complete(self, tx: Tx, t: int, cp: int, commit_upto: int | None = None, final: bool = True,
                    operators: bool = True) -> None:
        """``StreamTask.notifyCheckpointComplete(cp)``: ignored unless ``cp`` is above
        ``latestReportCheckpointId`` (``notified``), which it becomes; the operators commit
        pending transactions up to ``cp`` (or up to ``commit_upto``, the checkpoint whose state
        the task has in ``cp``); and ``finalCheckpointCompleted`` completes once ``cp`` reaches
        the final checkpoint (``finalCheckpointMinId``).  ``final`` and ``operators`` false: a
        FLIP-600 fallback notice read as ``on_fallback`` says."""
        ts = tx.tasks[t]
        if cp <= ts.notified:
            return
        done = ts.final_done or final and bool(ts.final_cp) and cp >= ts.final_cp
        if ts.finished_on_restore:  # FinishedOperatorChain: notifications reach no operator
            tx.tasks[t] = ts._replace(notified=cp, final_done=done)
            return
        if operators:
            upto = cp if commit_upto is None else commit_upto
            self.sink.commit_up_to(tx, t, upto)
            if self.model.sink_v2[t] == COMMITTER:
                self.committer.commit_and_emit(tx, t, upto)
            if self.registry.active:
                self.registry.on_complete(tx, t, cp, upto)
        tx.tasks[t] = tx.tasks[t]._replace(notified=cp, final_done=done)
        if self.local_state.active:  # SubtaskCheckpointCoordinatorImpl.notifyCheckpoint -> confirmCheckpoint
            self.local_state.confirm(tx, t, cp)

    # end of input and finishing (FLIP-147) ------------------------------------------------------
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
