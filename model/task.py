"""The task: Flink's ``StreamTask`` with its ``SubtaskCheckpointCoordinatorImpl`` and the
operator lifecycle of FLIP-147 (EndOfData, ``finish()``, the final checkpoint, EndOfPartition).
``StreamTask`` is one class (a variant subclasses it and overrides one method), its methods
grouped by concern a module each: ``task_input.py`` (each item a channel delivers, a restored
gate, input channel state), ``task_snapshot.py`` (trigger, snapshot, barriers, output channel
state, acknowledgement), ``task_finish.py`` (EndOfData, EndOfPartition, the final checkpoint);
this module: a (re)deployed subtask's state and the coordinator's notifications.  Each
abstraction is stated on the method that makes it; FLINK-4120's null-state recovery follows
``model.nullstate``.
"""

from __future__ import annotations

from .actions import EndOfRecovery, LoseNotification, Notify, handles
from .component import Component, follows
from .sinkv2 import COMMITTER, GLOBAL_COMMITTER, WRITER
from .task_finish import FinishMixin
from .task_input import InputMixin, priority_index  # noqa: F401  (priority_index re-exported)
from .tx import Tx
from .world import (
    FINISHED,
    FINISHED_SNAPSHOT,
    NOTIFY_COMPLETE,
    NOTIFY_FALLBACK,
    NOTIFY_TRIGGER,
    RUNNING,
    Snapshot,
    TaskState,
)


class StreamTask(InputMixin, FinishMixin, Component):
    """``StreamTask`` / ``SubtaskCheckpointCoordinatorImpl``: input processing, snapshots,
    notifications and finishing."""

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
        checkpoints again (``Scope.rescaled_tasks_decline``)."""
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
        if self.design.checkpoint_mode == "unaligned":
            ts = tx.tasks[t]
            live = self.model.all_inputs_mask[t] & ~ts.eop
            tx.tasks[t] = ts._replace(aligning=cp, blocked=live)  # virtual barriers on every open channel
            self.subtask_checkpoint.start_unaligned(tx, t, cp)
            self.barriers.maybe_complete_alignment(tx, t)
        else:
            self.subtask_checkpoint.snapshot(tx, t, cp)

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
