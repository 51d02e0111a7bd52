"""The task: Flink's ``StreamTask`` with its ``SubtaskCheckpointCoordinatorImpl`` and the
operator lifecycle of FLIP-147 (EndOfData, ``finish()``, the final checkpoint, EndOfPartition).

What a task does with each input item (record, barrier, EndOfData, EndOfPartition), how it
snapshots, how it reacts to the coordinator's notifications, and when it finishes.

Abstractions:

- The logical state of a stateful subtask is the set of records whose effect it holds
  (``processed``): the most precise abstraction of any operator state that depends on every
  record (a count, a sum, a window).  Keyed state is that set, partitioned by key group.
- A snapshot is synchronous and atomic with the barrier's forwarding; its asynchronous part
  fails only as a ``Decline`` fault (the barrier has already gone downstream).
- Notifications are coordinator RPCs queued in the task's inbox, FIFO; a lost one is a fault.
- Unaligned checkpoints (reference-flink-uc A.5-A.6): the operator snapshot, the output channel
  state (the records still in each subpartition, which the priority barrier overtakes) and the
  barriers are one step at the task's first barrier; the input channel state is what the task
  reads from a channel after that and before the channel's barrier, plus what the barrier
  overtook on it.  Each record is thus in exactly one of the producer's output state, the
  consumer's input state or the consumer's operator state (A.6).  Records read after the
  snapshot are processed normally.
- Spanning records (``Scope.spanning_records``): a consumer may read the head of a record
  whose tail is still in the subpartition (``ReadHead``).  Its deserializer's partial record is
  the first input-state entry of that channel (``StreamTaskNetworkInput.prepareSnapshot`` writes
  ``getUnconsumedBuffer`` first, reference-flink-uc A.6 step 1), and a priority barrier that
  overtakes the tail makes the tail output state: the record is then split between the two
  sides of the checkpoint, which a restore must put back together.  A record straddles at most
  two buffers, and only the next record of a channel can be partly read (the deserializer
  finishes one record before it starts the next); without the option records are whole, which
  hides every restore that separates a record's parts (FLINK-35351).
- A task's inputs form one gate: after a restore it reads its recovered input channel state
  before any new item on any channel (``StreamTask.restoreStateAndGates`` requests partitions
  once every channel's state is consumed), and declines a checkpoint triggered meanwhile
  (FLINK-20654, TASK_NOT_READY).  Then it reads its upstreams' re-sent output state, and no new
  item on any channel until every channel delivered its re-sent state: FLINK-19856's
  ``UpstreamRecoveryTracker`` resumes the subpartitions, which block after their
  ``EndOfChannelStateEvent``, only once that event arrived on every channel of the gate.  A
  channel still re-sending delivers its priority barrier first, as any channel does; a
  blocked one delivers nothing.  Abstraction: a rescaled task
  (``RescalingStreamTaskNetworkInput.prepareSnapshot``) declines a barrier that arrives
  before END_OF_RECOVERY as TASK_NOT_READY; the model lets it take the checkpoint, so it
  explores more runs than Flink, never fewer (a ``Decline`` fault covers the decline).
- FLINK-4120's null-state recovery (not in Flink): a recomputable operator trims its state to
  its window, a re-inserted barrier and the records dropped before it follow
  ``model.nullstate``'s rules.
"""

from __future__ import annotations

from .component import Component
from .sinkv2 import COMMITTER, GLOBAL_COMMITTER, WRITER
from .topology import Role
from .tx import Tx, consumer_end
from .world import (
    BARRIER,
    CANCEL,
    COMMITTABLE,
    EOD,
    EOD_NO_DRAIN,
    EOP,
    FINISHED,
    FINISHED_SNAPSHOT,
    HEAD_READ,
    NOTIFY_ABORT,
    NOTIFY_COMPLETE,
    NOTIFY_FALLBACK,
    NOTIFY_TRIGGER,
    PART_HEAD,
    PART_TAIL,
    REC,
    RECOVERED_INPUT,
    REPLAY,
    RECOVERED_OUTPUT,
    RUNNING,
    Snapshot,
    TaskState,
    World,
    add_sorted,
    is_head_read,
)


class StreamTask(Component):
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
        (reference-flink-uc D.4): it runs ``FinishedOperatorChain``, whose operators are never
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

    # input ------------------------------------------------------------------------------------
    def deliver(self, tx: Tx, c: int) -> None:
        """The next item of channel ``c`` reaches its consumer (``StreamOneInputProcessor``): a
        priority (unaligned) barrier in the channel first (``CheckpointedInputGate`` handles
        priority events as mails, before the next record), else the head."""
        ch = self.topo.channels[c]
        items = tx.channels[c]
        i = priority_index(items)
        t = ch.consumer
        bit = 1 << ch.input_index
        if i >= 0:
            item = items[i]
            tx.channels[c] = items[:i] + items[i + 1:]
            ahead = tuple((x[1], x[2]) for x in items[:i] if x[0] == REC)
            self.barriers.on_barrier(tx, t, item[1], bit, priority=True, ahead=ahead)
            return
        item = items[0]
        tx.channels[c] = items[1:]
        if tx.tasks[ch.producer].sending:  # a barrier behind this item may have left the subpartition
            self.maybe_sent(tx, ch.producer)
        kind = item[0]
        if (kind == REC or kind == COMMITTABLE) and tx.tasks[t].ended and not tx.tasks[t].stopped:
            return  # FinishedDataOutput: after EndOfData on every input, data is dropped (A.9 item 4)
        if kind == REC and self.null_state.drops(tx.tasks[t], (item[1], item[2])):
            return  # FLINK-4120: the state restored from the latest checkpoint already holds it
        if kind == REC:
            if self.persists_on_poll(tx.tasks[t], bit, (item[1], item[2])):
                self.record_input(tx, t, bit, ((item[1], item[2]),))
            self.process(tx, t, item)
        elif kind == COMMITTABLE:
            self.sink_v2_part(self.model.sink_v2[t]).receive(tx, t, item)
        elif kind == BARRIER:
            self.barriers.on_barrier(tx, t, item[1], bit)
        elif kind == CANCEL:
            self.barriers.on_cancel(tx, t, item[1])
        elif kind == REPLAY:
            self.null_state.on_barrier(tx, t, item[1], bit)
        elif item == EOD or item == EOD_NO_DRAIN:
            self.on_end_of_data(tx, t, bit, item == EOD_NO_DRAIN)
            self.maybe_finish(tx, ch.producer)  # its downstream processed all its data
        else:
            self.on_end_of_partition(tx, t, bit)

    def read_head(self, tx: Tx, c: int) -> None:
        """``ReadHead``: the consumer of ``c`` polls the buffer with the head of the channel's
        next record; its deserializer holds the partial record until the tail's buffer arrives.
        A buffer polled while an unaligned checkpoint waits for this channel's barrier is
        persisted (``ChannelStatePersister.maybePersist``): the head becomes input state."""
        ch = self.topo.channels[c]
        items = tx.channels[c]
        r = items[0]
        tx.channels[c] = ((REC, r[1], r[2], HEAD_READ),) + items[1:]
        bit = 1 << ch.input_index
        if self.persists_on_poll(tx.tasks[ch.consumer], bit, (r[1], r[2])):
            self.record_input(tx, ch.consumer, bit, ((r[1], r[2], PART_HEAD),))

    def persists_on_poll(self, ts: TaskState, bit: int, r: tuple) -> bool:
        """Does the task persist record ``r`` as input channel state when it reads it from the
        input ``bit`` names (``ChannelStatePersister.maybePersist``)?  While an unaligned
        checkpoint is in progress and that channel's barrier is still pending: the records
        queued in front of the barrier when it arrived were persisted then
        (``checkpointStarted``), and are not persisted again."""
        return bool(ts.uc) and not (ts.blocked | ts.eop) & bit

    def record_input(self, tx: Tx, t: int, bit: int, records: tuple) -> None:
        """Append ``records`` to the input channel state of the unaligned checkpoint in progress,
        on the input ``bit`` names (``ChannelStatePersister.maybePersist``)."""
        ts = tx.tasks[t]
        if not records or not ts.uc:
            return
        snap, inputs = ts.uc
        i = bit.bit_length() - 1
        held = inputs[i]
        if held and len(held[-1]) == 3 and held[-1][:2] == records[0]:  # the tail of the partial record persisted
            held = held[:-1]
        inputs = inputs[:i] + (held + records,) + inputs[i + 1:]
        tx.tasks[t] = ts._replace(uc=(snap, inputs))

    def recovery_phase(self, channels: tuple, t: int) -> int:
        """Where subtask ``t``'s gate is in its recovery: ``RECOVERED_INPUT`` while it still has
        recovered input channel state to read, ``RECOVERED_OUTPUT`` while some channel still
        holds re-sent output state (``UpstreamRecoveryTracker``: not every channel has delivered
        its ``EndOfChannelStateEvent``), else 0."""
        phase = 0
        for c in self.topo.inputs[t]:
            for x in channels[c]:
                if len(x) == 4:
                    if x[3] == RECOVERED_INPUT:
                        return RECOVERED_INPUT
                    if x[3] == RECOVERED_OUTPUT:
                        phase = RECOVERED_OUTPUT
        return phase

    def is_recovering(self, channels: tuple, t: int) -> bool:
        """Does subtask ``t`` still have recovered input channel state to read?"""
        return self.recovery_phase(channels, t) == RECOVERED_INPUT

    def not_ready_for_trigger(self, tx: Tx, t: int) -> bool:
        """Does a trigger RPC reaching subtask ``t`` now get declined as not ready (FLINK-20654,
        ``CHECKPOINT_DECLINED_TASK_NOT_READY``): unaligned, and still reading recovered channel
        state?"""
        return self.model.unaligned and self.is_recovering(tx.channels, t)

    def process(self, tx: Tx, t: int, rec: tuple) -> None:
        """``processElement``: a stateful subtask records the record's effect; a sink writes it,
        any other subtask forwards it."""
        ts = tx.tasks[t]
        r = (rec[1], rec[2])
        if len(rec) == 4:  # recovered channel state, or a record read in two parts: forwarded as an ordinary record
            rec = rec[:3]
        if self.model.sink_v2[t] == WRITER:
            self.writer.write(tx, t, r)
            return
        if self.model.stateful[t]:
            ts = ts._replace(processed=add_sorted(ts.processed, r))
            if self.null_state.windows[t]:
                ts = ts._replace(processed=self.null_state.trim(t, ts.processed))
        if self.model.roles[t] is Role.SINK:
            self.sink.invoke(tx, t, ts, r)
        else:
            targets, rr = self.partitioner.route(t, rec, ts.rr)
            tx.push(targets, rec)
            ts = ts._replace(rr=rr)
        tx.tasks[t] = ts

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

    # snapshots --------------------------------------------------------------------------------
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
            return self.finished_snapshot(ts)
        part = self.model.sink_v2[t]
        if part == WRITER:
            self.writer.prepare_snapshot_pre_barrier(tx, t, cp)
            ts = tx.tasks[t]
        pending, txn = ts.pending, ts.txn
        if self.model.two_pc[t]:
            pending, txn = self.sink.snapshot_state(tx, t, ts, cp)
        final_cp = ts.final_cp or (cp if ts.ended else 0)
        tx.tasks[t] = ts._replace(pending=pending, txn=txn, final_cp=final_cp, last_barrier=cp)
        sink = self.sink_v2_part(part).snapshot_state(ts) if part else ()
        return Snapshot(False, ts.position, ts.processed, pending, ts.split, sink=sink, discarded=ts.discarded)

    def acknowledge(self, tx: Tx, t: int, cp: int, snap: Snapshot) -> None:
        """The snapshot is written: its acknowledgement goes to the coordinator (with the scope's
        instant acks it counts at once, ``CheckpointCoordinator.acknowledge_at_once``)."""
        if self.scope.instant_acks:
            self.coordinator.acknowledge_at_once(tx, t, cp, snap)
            return
        tx.acks = tuple(sorted(tx.acks + ((t, cp, snap),)))  # in flight: a set, see World.acks
        tx.files = add_sorted(tx.files, (cp, t))

    def snapshot(self, tx: Tx, t: int, cp: int) -> None:
        """An aligned snapshot of ``cp`` (every input delivered the barrier, or a trigger RPC),
        then the barrier downstream, FIFO behind the data, and the acknowledgement.  With
        ``aligned-timeout`` a barrier to a node that takes unaligned ones is timeoutable: the
        acknowledgement waits until each such barrier has left the subpartition, or the
        sender's timer fired (``PipelinedSubpartition``'s channel-state future, FLINK-27251).
        With aligned-checkpoint-timeout 0 a node that had to align (FORCED_ALIGNED, a
        POINTWISE input) sends unaligned barriers again on its outputs that take them
        (``SubtaskCheckpointCoordinatorImpl.checkpointState``: ``withUnalignedSupported``,
        reference-flink-uc A.5 step 3), and what they overtake is its output channel state."""
        snap = self.operator_snapshot(tx, t, cp)
        tx.tasks[t] = tx.tasks[t]._replace(aligning=0, blocked=0)
        if snap is None:
            return
        if self.design.checkpoint_mode == "unaligned" and any(self.model.split[c] for c in self.model.all_out[t]):
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

    def maybe_sent(self, tx: Tx, t: int) -> None:
        """Acknowledge the snapshot ``sending`` waits for once no timeoutable barrier of it is
        queued in a subpartition any more (``completeTimeoutableCheckpointBarrier``)."""
        cp, snap = tx.tasks[t].sending
        split = self.model.split
        if any(split[c] and self.queued_barrier(tx.channels[c], cp) >= 0 for c in self.model.all_out[t]):
            return
        tx.tasks[t] = tx.tasks[t]._replace(sending=())
        self.acknowledge(tx, t, cp, snap)

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

    def trigger(self, tx: Tx, t: int, cp: int, savepoint: int = 0) -> None:
        """The coordinator's trigger RPC (``triggerCheckpointAsync``): sources, and tasks whose
        upstreams all finished (FLIP-147), snapshot at once; in ``unaligned`` mode the barriers
        they send are priority ones and the records they overtake are output state.  A stop's
        synchronous savepoint (``savepoint``: its stop mode) first stops a source that still
        reads (``SourceReader.stop``); savepoints are aligned (stop-with-savepoint is modelled
        with aligned designs only)."""
        if savepoint and t in self.topo.sources:
            self.source.stop(tx, t, savepoint)
        if self.design.checkpoint_mode == "unaligned":
            ts = tx.tasks[t]
            live = self.model.all_inputs_mask[t] & ~ts.eop
            tx.tasks[t] = ts._replace(aligning=cp, blocked=live)  # virtual barriers on every open channel
            self.start_unaligned(tx, t, cp)
            self.barriers.maybe_complete_alignment(tx, t)
        else:
            self.snapshot(tx, t, cp)

    def start_unaligned(self, tx: Tx, t: int, cp: int) -> None:
        """The first barrier of an unaligned checkpoint (A.5): the operator snapshot, and on
        every output a priority barrier at the head of the subpartition, overtaking the records
        queued there, which become output channel state.  An output to a node that cannot take
        unaligned checkpoints gets a FORCED_ALIGNED barrier, FIFO, and no output state (A.10)."""
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

    # finishing --------------------------------------------------------------------------------
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
        if ts.notified >= ts.final_cp:
            return False
        # an abort notice replays the latest completion it carries (FLINK-21080): announced too
        final = ts.final_cp
        return not any(m[0] == NOTIFY_COMPLETE and m[1] >= final or m[0] == NOTIFY_ABORT and m[2] >= final
                       for m in ts.inbox)

    def final_checkpoint_done(self, ts: TaskState) -> bool:
        """FLIP-147: has a checkpoint snapshotted after this task's end of data (its final
        checkpoint) completed, as far as the task knows?"""
        return bool(ts.final_cp) and ts.notified >= ts.final_cp

    def all_data_processed(self, tx: Tx, t: int) -> bool:
        """``ResultPartition.getAllDataProcessedFuture``: every consumer polled this task's
        EndOfData (``CheckpointedInputGate.handleEvent`` -> ``acknowledgeAllRecordsProcessed``),
        so every record before it was processed (reference-flink-uc A.9 items 2-3).  With
        unaligned checkpoints this matters: a final checkpoint can complete while records the
        task sent are still in flight, as channel state."""
        channels = tx.channels
        return not any(EOD in channels[c] or EOD_NO_DRAIN in channels[c] for c in self.model.all_out[t])

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

    def maybe_finish(self, tx: Tx, t: int) -> None:
        """A task finishes once ``ready_to_finish``: then it emits EndOfPartition.

        Seed 004: "shutdown the task immediately after seeing first notifyCheckpointComplete(X),
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
        """The task closes: FINISHED, its RPCs are gone, EndOfPartition on every output."""
        ts = tx.tasks[t]
        if not self.design.checkpoints_after_tasks_finish and self.model.two_pc[t]:
            self.sink.close_without_final_checkpoint(tx, t, ts)
        tx.tasks[t] = ts._replace(status=FINISHED, inbox=())
        tx.push(self.model.all_out[t], EOP)

    def trigger_after_close(self, tx: Tx, t: int) -> None:
        """The task's mailbox closed (``StreamTask.afterInvoke``: the task finishes) before the
        trigger RPC at the head of its inbox arrived.  The RPC is declined, uncounted:
        ``CHECKPOINT_DECLINED_TASK_CLOSING`` (``Task.triggerCheckpointBarrier``: the mailbox
        rejects the mail), or ``TASK_CHECKPOINT_FAILURE`` once the task manager no longer knows
        the task (``TaskExecutor.triggerCheckpoint``); either way the pending checkpoint aborts
        and the failure manager does not count it (reference-flink-mechanics section 6,
        "Task finishing while a checkpoint is pending").  The plan was computed while the task
        ran: its status changed between the plan and the trigger.  Every trigger RPC queued
        behind it arrives later still, and is declined the same way."""
        cps = [m[1] for m in tx.tasks[t].inbox if m[0] == NOTIFY_TRIGGER]
        self.finish(tx, t)
        for cp in cps:
            self.coordinator.receive_decline(tx, t, cp, counted=False)

    # notifications ----------------------------------------------------------------------------
    def notify(self, tx: Tx, t: int) -> None:
        """The coordinator RPC at the head of the inbox reaches the task.

        ``complete``: ``notifyCheckpointComplete``.  ``fallback`` (FLIP-600): complete, but this
        task's state in it is the fallback checkpoint's.  ``abort``:
        ``notifyCheckpointAborted``, which first replays the completion of the latest completed
        checkpoint it carries (``notifyCheckpointAbortAsync``, ref §6).  A notice may carry
        FLIP-306's ``lastSubsumedCheckpointId``.
        """
        ts = tx.tasks[t]
        kind, cp, latest, subsumed = ts.inbox[0]
        tx.tasks[t] = ts._replace(inbox=ts.inbox[1:])
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
        self.maybe_finish(tx, t)

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
        this task's state taken from checkpoint ``own``.  The proposal takes it as the
        completion of ``cp`` (``fallback_completes_final_checkpoint``, catalog F1); otherwise
        the task commits what its fallback state covers and keeps waiting for a checkpoint of
        its own.  In PR #28963 the notice reaches ``CheckpointListener.notifyRegionalCheckpointFallback``,
        a no-op unless an operator overrides it (``fallback_notice_reaches_operators`` false,
        review row B13): the task does nothing.  Which reading the PR's ``StreamTask`` takes for
        ``finalCheckpointCompleted`` is not in the indexed code; the no-op is the preset's."""
        if not self.design.fallback_notice_reaches_operators:
            return
        if self.design.fallback_completes_final_checkpoint:
            self.on_complete(tx, t, cp, commit_upto=own)
        else:
            self.sink.commit_up_to(tx, t, own)

    def on_complete(self, tx: Tx, t: int, cp: int, commit_upto: int | None = None) -> None:
        """``notifyCheckpointComplete(cp)``: commit pending transactions up to ``cp`` (or up to
        ``commit_upto``, the checkpoint whose state the task has in ``cp``).  Either way ``cp``
        counts as complete for the task."""
        ts = tx.tasks[t]
        if cp <= ts.notified:
            return
        if ts.finished_on_restore:  # FinishedOperatorChain: notifications reach no operator
            tx.tasks[t] = ts._replace(notified=cp)
            return
        upto = cp if commit_upto is None else commit_upto
        self.sink.commit_up_to(tx, t, upto)
        if self.model.sink_v2[t] == COMMITTER:
            self.committer.commit_and_emit(tx, t, upto)
        tx.tasks[t] = tx.tasks[t]._replace(notified=cp)


def priority_index(items: tuple) -> int:
    """Where the priority (unaligned) barrier in a channel is, or -1."""
    for i, x in enumerate(items):
        if len(x) == 3 and x[0] == BARRIER:
            return i
    return -1
