"""A subtask's checkpoints: Flink's ``SubtaskCheckpointCoordinatorImpl``, the synchronous snapshot,
the barriers sent downstream, the output channel state of an unaligned checkpoint and the
acknowledgement; ``StreamTask.trigger`` (``model.task``) starts it.

Flink: ``SubtaskCheckpointCoordinatorImpl.checkpointState``
(``prepareSnapshotPreBarrier``, the operators' snapshot, the barrier or a
``CancelCheckpointMarker``, ``withUnalignedSupported``), ``AsyncCheckpointRunnable`` (the
acknowledgement), ``ChannelStateWriter.addOutputData`` and ``PipelinedSubpartition`` (priority
barriers, ``processPriorityBuffer``; timeoutable barriers and the sender's alignment timer,
FLINK-27251).  Each abstraction is stated on the method that makes it.
"""

from __future__ import annotations

from .actions import AlignmentTimeout, Decline, handles
from .component import Component, follows
from .sinkv2 import WRITER
from .tx import Tx, consumer_end
from .world import BARRIER, CANCEL, PART_HEAD, PART_TAIL, REC, Snapshot, add_sorted, is_head_read


class SubtaskCheckpointCoordinator(Component):
    """``SubtaskCheckpointCoordinatorImpl``: a subtask's snapshot, the barriers it sends, its
    output channel state and its acknowledgement, for every subtask of the job (the task's state
    is ``TaskState``; ``StreamTask`` triggers it and holds the rest of the task's rules)."""

    @follows("SubtaskCheckpointCoordinatorImpl.checkpointState")
    def operator_snapshot(self, tx: Tx, t: int, cp: int) -> Snapshot | None:
        """The synchronous part of ``SubtaskCheckpointCoordinatorImpl.checkpointState`` for
        ``cp``: the operators' state, or ``None`` for a checkpoint the task was already told is
        aborted (then it sends a ``CancelCheckpointMarker`` instead of the barrier).  A 2PC
        sink pre-commits (``TwoPhaseCommitSink.snapshot_state``); a Sink V2 writer emits its
        committables first (``prepareSnapshotPreBarrier``).  The first checkpoint
        snapshotted after end of data is the task's final checkpoint (FLIP-147)."""
        ts = tx.tasks[t]
        if cp <= ts.aborted:
            tx.tasks[t] = ts._replace(aligning=0, blocked=0, last_barrier=cp)
            tx.push(self.model.all_out[t], (CANCEL, cp))
            return None
        if ts.finished_on_restore:  # AsyncCheckpointRunnable.finalizedFinishedSnapshots: acked FINISHED_ON_RESTORE
            tx.tasks[t] = ts._replace(final_cp=ts.final_cp or cp, last_barrier=cp)
            return self.task.finished_snapshot(ts)
        part = self.model.sink_v2[t]
        if part == WRITER:
            self.writer.prepare_snapshot_pre_barrier(tx, t, cp)
            ts = tx.tasks[t]
        pending, txn = ts.pending, ts.txn
        if self.model.two_pc[t]:
            pending, txn = self.sink.snapshot_state(tx, t, ts, cp)
        final_cp = ts.final_cp or (cp if ts.ended else 0)
        tx.tasks[t] = ts._replace(pending=pending, txn=txn, final_cp=final_cp, last_barrier=cp)
        sink = self.task.sink_v2_part(part).snapshot_state(ts) if part else ()
        snap = Snapshot(False, ts.position, ts.processed, pending, ts.split, sink=sink, discarded=ts.discarded)
        if self.registry.active:  # an incremental backend reuses the files it saw confirmed
            snap = self.registry.snapshot(tx, t, cp, snap)
        if tx.coord.gateways:  # a reader's AcknowledgeCheckpointEvent opens its operator-event gateway
            self.gateways.on_subtask_snapshot(tx, t, cp)
        return snap

    @follows("TaskStateManagerImpl.reportTaskStateSnapshots")
    def acknowledge(self, tx: Tx, t: int, cp: int, snap: Snapshot) -> None:
        """The snapshot is written: its acknowledgement goes to the coordinator (with the scope's
        instant acks it counts at once, ``CheckpointCoordinator.acknowledge_at_once``); with local
        recovery its local copy is stored first (``TaskStateManagerImpl.reportTaskStateSnapshots``)."""
        if self.local_state.active:
            self.local_state.keep(tx, t, cp, snap)
        if self.scope.instant_acks:
            self.coordinator.acknowledge_at_once(tx, t, cp, snap)
            return
        tx.acks = tuple(sorted(tx.acks + ((t, cp, snap),)))  # in flight: a set, see World.acks
        tx.files = add_sorted(tx.files, (cp, t))

    @follows("SubtaskCheckpointCoordinatorImpl.checkpointState")
    def snapshot(self, tx: Tx, t: int, cp: int) -> None:
        """An aligned snapshot of ``cp`` (every input delivered the barrier, or a trigger RPC),
        then the barrier downstream, FIFO behind the data, and the acknowledgement.  With
        ``aligned-timeout`` a barrier to a node that takes unaligned ones is timeoutable: the
        acknowledgement waits until each such barrier has left the subpartition, or the
        sender's timer fired (``PipelinedSubpartition``'s channel-state future, FLINK-27251).
        With aligned-checkpoint-timeout 0 a node that had to align (FORCED_ALIGNED, a
        POINTWISE input) sends unaligned barriers again on its outputs that take them
        (``SubtaskCheckpointCoordinatorImpl.checkpointState``: ``withUnalignedSupported``,
        UC note A.5 step 3), and what they overtake is its output channel state.

        Abstraction: a snapshot is synchronous and atomic with the barrier's forwarding; its
        asynchronous part fails only as a ``Decline`` fault (the barrier has already gone
        downstream)."""
        snap = self.operator_snapshot(tx, t, cp)
        tx.tasks[t] = tx.tasks[t]._replace(aligning=0, blocked=0)
        if snap is None:
            return
        if self.model.checkpoint_mode == "unaligned" and any(self.model.split[c] for c in self.model.all_out[t]):
            self.acknowledge(tx, t, cp, snap._replace(outputs=self.send_unaligned_barriers(tx, t, cp)))
            return
        tx.push(self.model.all_out[t], (BARRIER, cp))
        if self.model.timeoutable_out[t]:
            tx.tasks[t] = tx.tasks[t]._replace(sending=(cp, snap._replace(outputs=((),) * len(self.model.all_out[t]))))
            self.maybe_sent(tx, t)
        else:
            self.acknowledge(tx, t, cp, snap)

    def queued_barrier(self, items: tuple, cp: int) -> int:
        """Where the aligned barrier ``cp`` waits in a channel's subpartition, or -1 (sent)."""
        for j, x in enumerate(items):
            if x[0] == BARRIER and len(x) == 2 and x[1] == cp:
                return j if j >= consumer_end(items, self.scope.input_buffers) else -1
        return -1

    @follows("PipelinedSubpartition.completeTimeoutableCheckpointBarrier")
    def maybe_sent(self, tx: Tx, t: int) -> None:
        """Acknowledge the snapshot ``sending`` waits for once no timeoutable barrier of it is
        queued in a subpartition any more (``completeTimeoutableCheckpointBarrier``)."""
        cp, snap = tx.tasks[t].sending
        split = self.model.split
        if any(split[c] and self.queued_barrier(tx.channels[c], cp) >= 0 for c in self.model.all_out[t]):
            return
        tx.tasks[t] = tx.tasks[t]._replace(sending=())
        self.acknowledge(tx, t, cp, snap)

    @handles(AlignmentTimeout, "task", "checkpoint")
    def on_alignment_timer(self, tx: Tx, t: int, cp: int) -> None:
        """An alignment timer of checkpoint ``cp`` fires at subtask ``t``: the sender's while a
        timeoutable barrier of the snapshot it sends is still queued (``on_sender_timeout``),
        else the receiver's (``CheckpointBarrierHandler.on_alignment_timeout``)."""
        sending = tx.tasks[t].sending
        if sending and sending[0] == cp:
            self.on_sender_timeout(tx, t)
        else:
            self.barriers.on_alignment_timeout(tx, t, cp)

    @handles(Decline, "task", "checkpoint")
    @follows("AsyncCheckpointRunnable.handleExecutionException")
    def decline_checkpoint(self, tx: Tx, t: int, cp: int) -> None:
        """The asynchronous part of the snapshot of ``cp`` fails
        (``AsyncCheckpointRunnable.handleExecutionException``): ``reportTaskStateSnapshots``
        stores no local copy (with local recovery, ``TaskLocalStateStore.abort``), and the task
        declines (``CheckpointCoordinator.receive_decline``)."""
        if self.local_state.active:
            self.local_state.abort(tx, t, cp)
        self.coordinator.receive_decline(tx, t, cp)

    @follows("PipelinedSubpartition.alignedBarrierTimeout")
    def on_sender_timeout(self, tx: Tx, t: int) -> None:
        """The sender's alignment timer fires (``alignedBarrierTimeout`` on every subpartition):
        each timeoutable barrier still queued jumps to the head of its subpartition as an
        unaligned one, and the records it overtakes become output channel state."""
        cp, snap = tx.tasks[t].sending
        outputs = list(snap.outputs)
        split = self.model.split
        for i, c in enumerate(self.model.all_out[t]):
            j = self.queued_barrier(tx.channels[c], cp) if split[c] else -1
            if j >= 0:
                outputs[i] = self.put_priority_barrier(tx, c, cp, queued_at=j)
        tx.tasks[t] = tx.tasks[t]._replace(sending=(cp, snap._replace(outputs=tuple(outputs))))
        self.maybe_sent(tx, t)

    def start_unaligned(self, tx: Tx, t: int, cp: int) -> None:
        """The first barrier of an unaligned checkpoint (A.5): the operator snapshot, and on
        every output a priority barrier at the head of the subpartition, overtaking the records
        queued there, which become output channel state.  An output to a node that cannot take
        unaligned checkpoints gets a FORCED_ALIGNED barrier, FIFO, and no output state (A.10).

        Abstraction: unaligned checkpoints (UC note A.5-A.6): the operator snapshot, the
        output channel state (the records still in each subpartition, which the priority
        barrier overtakes) and the barriers are one step at the task's first barrier; the
        input channel state is what the task reads from a channel after that and before the
        channel's barrier, plus what the barrier overtook on it.  Each record is thus in
        exactly one of the producer's output state, the consumer's input state or the
        consumer's operator state (A.6).  Records read after the snapshot are processed
        normally."""
        waiting = self.model.cdr and not self.network_input.recovery_barriers_inserted() and next(
            (r[0] for r in self.network_input.recovered_at_start(tx.channels, t) if r), None)
        if waiting:
            # collectPreRecoveryBarrier: "Missing RecoveryCheckpointBarrier", CHECKPOINT_DECLINED (counted)
            if not tx.coord.declined_by_itself:
                tx.coord = tx.coord._replace(declined_by_itself=(t, cp, waiting))
            self.barriers.abort(tx, t, cp, counted=True)
            return
        snap = self.operator_snapshot(tx, t, cp)
        if snap is None:
            return
        outputs = self.send_unaligned_barriers(tx, t, cp)
        ins = self.topo.inputs[t]
        inputs = [()] * len(ins)
        if self.scope.spanning_records:  # the deserializers' partial records come first (A.6 step 1)
            for c in ins:  # a priority barrier may be queued in front of the partly read record
                x = next((x for x in tx.channels[c] if is_head_read(x)), None)
                if x is not None:
                    inputs[self.topo.channels[c].input_index] = ((x[1], x[2], PART_HEAD),)
        if self.model.cdr:  # checkpointStarted: the recovered records not read yet come next
            recovered = self.network_input.recovered_at_start(tx.channels, t)
            inputs = [held + r for held, r in zip(inputs, recovered)]
            snap = snap._replace(recovered=tuple(sorted({r for rs in recovered for r in rs})))
        ts = tx.tasks[t]
        tx.tasks[t] = ts._replace(uc=(snap._replace(outputs=outputs), tuple(inputs)))

    def send_unaligned_barriers(self, tx: Tx, t: int, cp: int) -> tuple:
        """Barrier ``cp`` on every output of ``t``: a priority one where the consumer takes
        unaligned barriers, returning what it overtook (the output channel state per output),
        a FORCED_ALIGNED one, FIFO and with no output state, elsewhere (A.10)."""
        outputs = []
        split = self.model.split
        for c in self.model.all_out[t]:
            if split[c]:
                outputs.append(self.put_priority_barrier(tx, c, cp))
            else:
                outputs.append(())
                tx.push((c,), (BARRIER, cp))
        return tuple(outputs)

    @follows("PipelinedSubpartition.processPriorityBuffer")
    def put_priority_barrier(self, tx: Tx, c: int, cp: int, queued_at: int | None = None) -> tuple:
        """An unaligned barrier of ``cp`` at the head of subpartition ``c``, behind what the
        input channel already holds (``PipelinedSubpartition.processPriorityBuffer``); what it
        overtakes is returned as output channel state: every record queued, or with
        ``queued_at`` the records in front of the timeoutable barrier at that position, which
        it replaces (the sender's alignment timer, FLINK-27251)."""
        items = tx.channels[c]
        k = consumer_end(items, self.scope.input_buffers)
        end = len(items) if queued_at is None else queued_at
        state = self.output_state(tuple((x[1], x[2], PART_TAIL) if is_head_read(x) else (x[1], x[2])
                                        for x in items[k:end] if x[0] == REC))
        tx.channels[c] = items[:k] + ((BARRIER, cp, 1),) + items[k:end] + items[end + (queued_at is not None):]
        return state

    @follows("ChannelStateWriter.addOutputData")
    def output_state(self, queued: tuple) -> tuple:
        """What the task persists of the records a priority barrier overtook in one of its
        subpartitions (``ChannelStateWriter.addOutputData``): all of them."""
        return queued

    def finish_unaligned(self, tx: Tx, t: int) -> None:
        """Every open channel delivered the barrier: the channel state is complete and the task
        acknowledges (``AsyncCheckpointRunnable`` waits for it, A.5 item 7)."""
        ts = tx.tasks[t]
        snap, inputs = ts.uc
        tx.tasks[t] = ts._replace(uc=(), aligning=0, blocked=0)
        self.acknowledge(tx, t, ts.aligning, snap._replace(inputs=inputs))
