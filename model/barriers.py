"""Barrier handling: Flink's ``CheckpointBarrierHandler`` (``SingleCheckpointBarrierHandler``
with its ``BarrierHandlerState``s), as run by the task's ``CheckpointedInputGate``: alignment in
the three modes of the design's ``checkpoint_mode`` (UC note A.1-A.4), cancellation, the
receiver's alignment timer and barrier announcements.  The modes are on the class; each rule and
abstraction is on the method that makes it.
"""

from __future__ import annotations

from .component import Component, follows
from .network_input import priority_index
from .tx import Tx, consumer_end
from .world import BARRIER, CANCEL, TaskState


class CheckpointBarrierHandler(Component):
    """``SingleCheckpointBarrierHandler``: aligned, or alternating (unaligned checkpoints on).

    Three modes (the design's ``checkpoint_mode``; UC note A.1-A.4):

    - ``aligned`` (unaligned checkpoints off; ``WaitingForFirstBarrier`` / ``CollectingBarriers``):
      a channel that delivered the barrier being aligned is blocked until every live input (one
      that has not delivered EndOfPartition) has delivered it; then the task snapshots and
      forwards the barrier (``SubtaskCheckpointCoordinator.snapshot``).
    - ``unaligned`` (``aligned-checkpoint-timeout`` 0: every barrier is UNALIGNED): a task's first
      barrier of checkpoint n is a priority event that overtook the records in front of it; the
      task snapshots at once (``AlternatingWaitingForFirstBarrierUnaligned``), blocks nothing,
      records as input channel state what it reads from a channel until that channel's barrier
      n arrives, and acknowledges only once every open channel delivered barrier n or
      EndOfPartition (UC note A.5, item 7).
    - ``aligned-timeout`` (timeout > 0): every checkpoint starts aligned (``AlternatingWaitingFor
      FirstBarrier``/``AlternatingCollectingBarriers``) and switches to unaligned when the
      alignment timer fires (a nondeterministic ``AlignmentTimeout`` event: the model has no
      clocks; ``on_alignment_timeout``) or when an unaligned barrier arrives from an upstream
      that switched (UC note A.7).

    A node with an input edge that does not support unaligned checkpoints (POINTWISE, or not
    PIPELINED) aligns on all its inputs (UC note A.10, FLINK-21945): its upstreams send it
    FORCED_ALIGNED barriers, FIFO behind the data.  Both timers are modelled: the receiver's
    (here) and the sender's (FLINK-27251, ``SubtaskCheckpointCoordinator.on_sender_timeout``: a timeoutable barrier
    still queued in the producer's subpartition jumps ahead, and the producer's acknowledgement
    waits until each such barrier has left the subpartition or jumped)."""

    def is_blocked(self, ts: TaskState, input_index: int) -> bool:
        """Does the task hold back input ``input_index`` (it delivered the barrier being
        aligned)?  Never while the checkpoint is unaligned.  ``alignment_blocks_channels =
        false`` is the flawed handler that keeps reading it (catalog ``no-alignment-block``)."""
        return self.design.alignment_blocks_channels and not ts.uc and bool(ts.blocked >> input_index & 1)

    @follows("SingleCheckpointBarrierHandler.processBarrier")
    def on_barrier(self, tx: Tx, t: int, cp: int, bit: int, priority: bool = False, ahead: tuple = ()) -> None:
        """``processBarrier``.  An unaligned checkpoint being collected takes the channel's
        barrier and records ``ahead`` (the records the priority barrier overtook on this
        channel) as input state.  Otherwise a barrier older than the one being aligned (or
        already handled) is dropped; a newer one aborts the current one (subsumed) and starts
        its own (``checkNewCheckpoint``; ``CHECKPOINT_DECLINED_SUBSUMED``).  A priority barrier
        starts (or switches to) an unaligned checkpoint."""
        ts = tx.tasks[t]
        if ts.uc and ts.aligning == cp:
            self.network_input.record_input(tx, t, bit, ahead)
            ts = tx.tasks[t]
            tx.tasks[t] = ts._replace(blocked=ts.blocked | bit)
            self.maybe_complete_alignment(tx, t)
            return
        if cp <= ts.last_barrier or (ts.aligning and cp < ts.aligning):
            return
        if ts.rescaled and not ts.aligning:
            # RescalingStreamTaskNetworkInput.prepareSnapshot: TASK_NOT_READY until END_OF_RECOVERY
            self.abort(tx, t, cp)
            return
        if ts.aligning and cp > ts.aligning:
            self.abort(tx, t, ts.aligning)
            ts = tx.tasks[t]
        if ts.aligning == cp:
            ts = ts._replace(blocked=ts.blocked | bit)
        else:
            ts = ts._replace(aligning=cp, blocked=bit)
        tx.tasks[t] = ts
        if priority:
            self.subtask_checkpoint.start_unaligned(tx, t, cp)
            self.network_input.record_input(tx, t, bit, ahead)
        self.maybe_complete_alignment(tx, t)

    @follows("SingleCheckpointBarrierHandler.processBarrierAnnouncement")
    def announced(self, channels: tuple, t: int, ts: TaskState) -> int:
        """The checkpoint whose barrier subtask ``t``'s gate has seen announced but not read, or 0.

        A remote input channel that receives a timeoutable aligned barrier puts an
        ``EventAnnouncement`` of it at the head of its priority queue
        (``RemoteInputChannel.onBuffer``: ``dataType.requiresAnnouncement()``), and the handler
        takes the announcement before any buffer (``processBarrierAnnouncement`` ->
        ``checkNewCheckpoint``), which starts the alignment timer, counted from the
        checkpoint's start (``BarrierAlignmentUtil.getTimerDelay``).  In the model a barrier is
        in the input channel when it is before ``tx.consumer_end``; a ``LocalInputChannel``
        (the scope's ``input_buffers`` 0) announces nothing.  Only a subtask that is not
        collecting a checkpoint is asked (``CheckpointedInputGate``: an announcement of the
        checkpoint being collected only records the channel, ``announcementReceived``).

        Abstraction: a barrier still in the producer's subpartition is not announced (the network
        is fast, ``tx.consumer_end``: it has not reached the input channel); the timer of a
        subtask that collects an older checkpoint is not started by an announcement of a newer one
        (Flink's ``checkNewCheckpoint`` would abort the older one on the announcement; the model
        aborts it when the newer barrier is read, so the newer checkpoint switches later, never
        earlier, than Flink's)."""
        if not self.scope.input_buffers:
            return 0
        found = [self.announced_index(channels[c], ts.last_barrier) for c in self.topo.inputs[t]]
        cps = [channels[c][j][1] for c, j in zip(self.topo.inputs[t], found) if j >= 0]
        return min(cps, default=0)

    @follows("SingleCheckpointBarrierHandler.processBarrierAnnouncement")
    def announced_index(self, items: tuple, newer_than: int, cp: int = 0) -> int:
        """Where the first aligned barrier newer than ``newer_than`` (of ``cp`` if given) waits in
        a channel's input-channel part (before ``tx.consumer_end``), or -1; an older one is
        obsolete (``processBarrierAnnouncement``)."""
        for j, x in enumerate(items[:consumer_end(items, self.scope.input_buffers)]):
            if x[0] == BARRIER and len(x) == 2 and x[1] > newer_than:
                return j if not cp or x[1] == cp else -1
        return -1

    @follows("AlternatingCollectingBarriers.alignedCheckpointTimeout")
    def on_alignment_timeout(self, tx: Tx, t: int, cp: int) -> None:
        """The alignment timer of ``cp`` fires.  Flink counts it from the checkpoint's start
        (the barrier's timestamp), so it may fire as soon as the subtask knows of ``cp``: while
        it collects the barriers (``AlternatingCollectingBarriers.alignedCheckpointTimeout``:
        the operators snapshot at once, the channels that delivered the barrier are done, the
        others are recorded until theirs arrives), or before it read any barrier of ``cp``,
        when a barrier of it was announced (``AlternatingWaitingForFirstBarrier
        .alignedCheckpointTimeout``).  Either way every announced barrier is prioritised
        (``ChannelState.prioritizeAllAnnouncements`` -> ``InputChannel.convertToPriorityEvent``):
        it jumps the buffers queued in front of it in its input channel, which become input
        channel state, and is taken at once (a priority event: ``CheckpointedInputGate`` reads it
        before any buffer); the first one starts the unaligned checkpoint
        (``AlternatingWaitingForFirstBarrierUnaligned.barrierReceived``).

        Abstraction: the timer and the take of the prioritised barriers are one step (in Flink
        the priority barrier is the gate's next input; a mail such as a trigger RPC could run
        in between)."""
        if tx.tasks[t].aligning == cp:
            self.subtask_checkpoint.start_unaligned(tx, t, cp)
        if self.scope.input_buffers:  # a LocalInputChannel announces nothing
            self.prioritize_announcements(tx, t, cp)
        self.maybe_complete_alignment(tx, t)

    @follows("ChannelState.prioritizeAllAnnouncements")
    def prioritize_announcements(self, tx: Tx, t: int, cp: int) -> None:
        """``prioritizeAllAnnouncements``: each barrier of ``cp`` waiting in one of ``t``'s input
        channels becomes a priority barrier where it is, and the gate takes it
        (``StreamTask.deliver``: what it overtook is input channel state)."""
        for c in self.topo.inputs[t]:
            items = tx.channels[c]
            if priority_index(items) >= 0:
                continue  # a priority barrier is taken first; this one is read in turn and recorded up to
            j = self.announced_index(items, cp - 1, cp)
            if j >= 0:
                tx.channels[c] = items[:j] + ((BARRIER, cp, 1),) + items[j + 1:]
                self.network_input.deliver(tx, c)

    @follows("SingleCheckpointBarrierHandler.processCancellationBarrier")
    def on_cancel(self, tx: Tx, t: int, cp: int) -> None:
        """``processCancellationBarrier``: a marker for a newer checkpoint, or for the one
        being collected, aborts it; any other is ignored (UC note A.3, A.8)."""
        ts = tx.tasks[t]
        if cp > max(ts.last_barrier, ts.aligning) or cp == ts.aligning:
            self.abort(tx, t, cp)

    @follows("SingleCheckpointBarrierHandler.abortInternal")
    def abort(self, tx: Tx, t: int, cp: int, counted: bool = False) -> None:
        """``abortInternal``: forget checkpoint ``cp`` (its channel state is discarded), decline
        it (a reason the ``CheckpointFailureManager`` does not count, unless ``counted``) and
        forward a ``CancelCheckpointMarker`` (``SubtaskCheckpointCoordinatorImpl.abortCheckpointOnBarrier``)."""
        ts = tx.tasks[t]
        tx.tasks[t] = ts._replace(aligning=0, blocked=0, uc=(), last_barrier=max(ts.last_barrier, cp))
        self.coordinator.receive_decline(tx, t, cp, counted=counted)
        tx.push(self.model.all_out[t], (CANCEL, cp))

    @follows("SingleCheckpointBarrierHandler.processEndOfPartition")
    def on_end_of_partition(self, tx: Tx, t: int) -> None:
        """``processEndOfPartition``: an input that ended no longer needs to deliver the barrier
        (it counts as that channel's barrier, FLINK-21086).  Without checkpoints after tasks
        finish, a checkpoint being aligned aborts instead (``SingleCheckpointBarrierHandler.
        processEndOfPartition``: ``CHECKPOINT_DECLINED_INPUT_END_OF_STREAM``, which the
        ``CheckpointFailureManager`` does not count); a channel that ended before the
        alignment began still counts as delivered."""
        if not self.design.checkpoints_after_tasks_finish and tx.tasks[t].aligning:
            self.abort(tx, t, tx.tasks[t].aligning)
            return
        self.maybe_complete_alignment(tx, t)

    @follows("CheckpointBarrierHandler.notifyCheckpoint")
    def maybe_complete_alignment(self, tx: Tx, t: int) -> None:
        """Every live input delivered the barrier: an aligned task snapshots
        (``triggerCheckpointOnBarrier``); an unaligned one has its channel state complete and
        acknowledges."""
        ts = tx.tasks[t]
        if ts.aligning and (ts.blocked | ts.eop) == self.model.all_inputs_mask[t]:
            if ts.uc:
                self.subtask_checkpoint.finish_unaligned(tx, t)
            else:
                self.subtask_checkpoint.snapshot(tx, t, ts.aligning)
