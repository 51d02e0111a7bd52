"""A task's input: what it does with each item a channel delivers (record, barrier, cancellation
marker, EndOfData, EndOfPartition), in which order a restored gate reads its channels, and what
it persists as input channel state.

Flink: ``StreamOneInputProcessor`` and ``StreamTaskNetworkInput`` (``processElement``, the
deserializer's partial record), ``CheckpointedInputGate`` (priority events first; the barrier
rules are ``model.barriers``), ``ChannelStatePersister`` (``maybePersist``),
``UpstreamRecoveryTracker`` and ``StreamTask.restoreStateAndGates`` (a restored gate reads its
recovered state first).  Each abstraction is stated on the method that makes it.
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Deliver, ReadHead, handles
from .component import Component, follows
from .sinkv2 import WRITER
from .topology import Role
from .tx import Tx
from .world import (
    BARRIER,
    CANCEL,
    COMMITTABLE,
    EOD,
    EOD_NO_DRAIN,
    HEAD_READ,
    PART_HEAD,
    REC,
    RECOVERED_INPUT,
    RECOVERED_OUTPUT,
    REPLAY,
    TaskState,
    add_sorted,
    is_recovered,
)


class StreamTaskNetworkInput(Component):
    """``StreamTaskNetworkInput`` with ``StreamOneInputProcessor``, ``CheckpointedInputGate``,
    ``ChannelStatePersister`` and ``UpstreamRecoveryTracker``: every subtask's input (the
    subtask's state is its ``TaskState``; ``StreamTask`` holds what the task does at the end of its
    input and with its checkpoints)."""

    @handles(Deliver, "channel")
    @follows("AbstractStreamTaskNetworkInput.emitNext")
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
            ahead = tuple((x[1], x[2]) for x in items[:i] if x[0] == REC and not self.persisted_at_start(x))
            self.barriers.on_barrier(tx, t, item[1], bit, priority=True, ahead=ahead)
            return
        item = items[0]
        tx.channels[c] = items[1:]
        if tx.tasks[ch.producer].sending:  # a barrier behind this item may have left the subpartition
            self.subtask_checkpoint.maybe_sent(tx, ch.producer)
        kind = item[0]
        if (kind == REC or kind == COMMITTABLE) and tx.tasks[t].ended and not tx.tasks[t].stopped:
            return  # FinishedDataOutput: after EndOfData on every input, data is dropped (A.9 item 4)
        if kind == REC and self.null_state.drops(tx.tasks[t], (item[1], item[2])):
            return  # FLINK-4120: the state restored from the latest checkpoint already holds it
        if kind == REC:
            if self.persists_on_poll(tx.tasks[t], bit, (item[1], item[2])) and (
                    not self.persisted_at_start(item) or self.persists_recovered_on_poll()):
                self.record_input(tx, t, bit, ((item[1], item[2]),))
            self.process(tx, t, item)
        elif kind == COMMITTABLE:
            self.task.sink_v2_part(self.model.sink_v2[t]).receive(tx, t, item)
        elif kind == BARRIER:
            self.barriers.on_barrier(tx, t, item[1], bit)
        elif kind == CANCEL:
            self.barriers.on_cancel(tx, t, item[1])
        elif kind == REPLAY:
            self.null_state.on_barrier(tx, t, item[1], bit)
        elif item == EOD or item == EOD_NO_DRAIN:
            self.task.on_end_of_data(tx, t, bit, item == EOD_NO_DRAIN)
            self.task.maybe_finish(tx, ch.producer)  # its downstream processed all its data
        else:
            self.task.on_end_of_partition(tx, t, bit)

    @handles(ReadHead, "channel")
    @follows("ChannelStatePersister.maybePersist")
    def read_head(self, tx: Tx, c: int) -> None:
        """``ReadHead``: the consumer of ``c`` polls the buffer with the head of the channel's
        next record; its deserializer holds the partial record until the tail's buffer arrives.
        A buffer polled while an unaligned checkpoint waits for this channel's barrier is
        persisted (``ChannelStatePersister.maybePersist``): the head becomes input state.

        Abstraction: spanning records (``Scope.spanning_records``): a consumer may read the
        head of a record whose tail is still in the subpartition (``ReadHead``).  Its
        deserializer's partial record is the first input-state entry of that channel
        (``StreamTaskNetworkInput.prepareSnapshot`` writes ``getUnconsumedBuffer`` first, UC
        note A.6 step 1), and a priority barrier that overtakes the tail makes the tail
        output state: the record is then split between the two sides of the checkpoint,
        which a restore must put back together.  A record straddles at most two buffers, and
        only the next record of a channel can be partly read (the deserializer finishes one
        record before it starts the next); without the option records are whole, which hides
        every restore that separates a record's parts (FLINK-35351)."""
        ch = self.topo.channels[c]
        items = tx.channels[c]
        r = items[0]
        tx.channels[c] = ((REC, r[1], r[2], HEAD_READ),) + items[1:]
        bit = 1 << ch.input_index
        if self.persists_on_poll(tx.tasks[ch.consumer], bit, (r[1], r[2])):
            self.record_input(tx, ch.consumer, bit, ((r[1], r[2], PART_HEAD),))

    @follows("ChannelStatePersister.maybePersist")
    def persists_on_poll(self, ts: TaskState, bit: int, r: tuple) -> bool:
        """Does the task persist record ``r`` as input channel state when it reads it from the
        input ``bit`` names (``ChannelStatePersister.maybePersist``)?  While an unaligned
        checkpoint is in progress and that channel's barrier is still pending: the records
        queued in front of the barrier when it arrived were persisted then
        (``checkpointStarted``), and are not persisted again."""
        return bool(ts.uc) and not (ts.blocked | ts.eop) & bit

    def persisted_at_start(self, item: tuple) -> bool:
        """Is channel item ``item`` a recovered record that a checkpoint during recovery persisted
        when it started (``recovered_at_start``)?"""
        return self.model.cdr and is_recovered(item)

    @follows("LocalInputChannel.checkpointStarted")
    def recovered_at_start(self, channels: Sequence, t: int) -> tuple:
        """With checkpoints during recovery (``FlinkModel.cdr``): per input index of subtask
        ``t``, the recovered records still queued when a checkpoint starts there; they are input
        channel state of that checkpoint.  In Flink 2.3.0 ``LocalInputChannel.checkpointStarted``
        persists its ``toBeConsumedBuffers`` (``ChannelStatePersister.startPersisting``); on
        master the ``RecoveryCheckpointTrigger`` puts a ``RecoveryCheckpointBarrier`` behind the
        last recovered buffer of each channel still in recovery, and ``checkpointStarted``
        persists the data buffers in front of it (apache/flink#28660).  Either way exactly the
        recovered records not yet read: each channel's recovered records come before anything
        else in it.

        Abstraction: the model's subtask has one gate, and a channel's recovered records are
        in the channel the restore put them in (``StateAssignmentOperation.output_state_marker``)."""
        ins = self.topo.inputs[t]
        out: list[tuple] = [()] * len(ins)
        for c in ins:
            out[self.topo.channels[c].input_index] = tuple((x[1], x[2]) for x in channels[c] if x[0] == REC and is_recovered(x))
        return tuple(out)

    @follows("StreamTask.restoreStateAndGates")
    def reads_new_data_while_recovering(self) -> bool:
        """With checkpoints during recovery: may a subtask read new data on one channel while
        another channel of its gate still holds recovered records?  Yes: with the option
        ``restoreStateAndGates`` requests each gate's partitions once its filtering is done
        (Flink 2.3.0, read in its jar: ``getBufferFilteringCompleteFuture`` -> ``requestPartitions``),
        and each channel only keeps its own recovered buffers ahead of its new ones
        (``LocalInputChannel``'s ``toBeConsumedBuffers``; on master ``getNextBuffer`` holds upstream
        data back while the channel is in recovery).  Without the option the partitions are
        requested once every channel's state is consumed (``recovery_phase``)."""
        return True

    @follows("StreamTask.restoreStateAndGates")
    def recovery_barriers_inserted(self) -> bool:
        """With checkpoints during recovery: does a checkpoint that starts while a channel still
        holds recovered records find their end marked?  Yes: in Flink 2.3.0 the channel's
        ``toBeConsumedBuffers`` are all persisted (``recovered_at_start``); on master the
        ``RecoveryCheckpointTrigger`` inserts a ``RecoveryCheckpointBarrier`` into each channel
        still in recovery until every gate reported its state consumed, and only then becomes
        NO_OP (apache/flink#28660, ``StreamTaskRecoveryTriggerLifecycleTest``: "NO_OP only after
        all gates report state consumed").  The reading ``recovery_trigger_no_op = "after-drain"``
        (``model.flip547``) is the earlier code, where it did not."""
        return True

    @follows("LocalInputChannel.getNextRecoveredBuffer")
    def persists_recovered_on_poll(self) -> bool:
        """With checkpoints during recovery: is a recovered record read while its channel's
        barrier is still pending persisted (again)?  No: the checkpoint persisted it when it
        started (``recovered_at_start``), and FLINK-40016's fix (apache/flink#28605, merged July
        2026, after Flink 2.3.0 was built) keeps ``getNextRecoveredBuffer``'s buffer from
        ``maybePersist``.  Flink 2.3.0's jar persists it again (``LocalInputChannel
        .getNextRecoveredBuffer`` -> ``getBufferAndAvailability`` -> ``maybePersist``, read with
        javap): the catalog's ``FLINK-40016-recovered-buffers-persisted-twice``."""
        return False

    @follows("ChannelStatePersister.maybePersist")
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
        its ``EndOfChannelStateEvent``), else 0.

        Abstraction: a task's inputs form one gate: after a restore it reads its recovered
        input channel state before any new item on any channel
        (``StreamTask.restoreStateAndGates`` requests partitions once every channel's state
        is consumed), and declines a checkpoint triggered meanwhile (FLINK-20654,
        TASK_NOT_READY).  Then it reads its upstreams' re-sent output state, and no new item
        on any channel until every channel delivered its re-sent state: FLINK-19856's
        ``UpstreamRecoveryTracker`` resumes the subpartitions, which block after their
        ``EndOfChannelStateEvent``, only once that event arrived on every channel of the
        gate.  A channel still re-sending delivers its priority barrier first, as any
        channel does; a blocked one delivers nothing but a priority barrier, which overtakes
        the channel's ``EndOfChannelStateEvent`` if the event was not read yet (the model
        reads the event as late as possible, ``FlinkModel._enabled_unaligned``).  A rescaled
        task (``RescalingStreamTaskNetworkInput.prepareSnapshot``) declines a barrier that
        arrives before END_OF_RECOVERY as TASK_NOT_READY, uncounted, and the job goes on
        (real runs show it).  With the scope's ``rescaled_tasks_decline`` the model does so:
        a subtask restored at a new parallelism is ``rescaled`` until ``EndOfRecovery``
        (every channel's ``EndOfChannelStateEvent`` read), declines every barrier until
        then, and reads nothing else once its re-sent records are read (on in validation's
        scopes and in the unaligned presets' ``rescaled_recovery_scope``).  Abstraction, in
        the other preset scopes (the option off): the rescaled task takes the checkpoint,
        which hides the runs where that checkpoint aborts uncounted (a ``Decline`` fault is
        counted and fails the job over), and a downstream subtask of a rescaled vertex,
        which Flink gives a descriptor too, never declines."""
        phase = 0
        for c in self.topo.inputs[t]:
            for x in channels[c]:
                if len(x) == 4:
                    if x[3] == RECOVERED_INPUT:
                        return RECOVERED_INPUT
                    if x[3] == RECOVERED_OUTPUT:
                        phase = RECOVERED_OUTPUT
        return phase

    def is_recovering(self, channels: Sequence, t: int) -> bool:
        """Does subtask ``t`` still have recovered input channel state to read?"""
        return self.recovery_phase(channels, t) == RECOVERED_INPUT

    @follows("Input.processElement")
    def process(self, tx: Tx, t: int, rec: tuple) -> None:
        """``processElement``: a stateful subtask records the record's effect; a sink writes it,
        any other subtask forwards it.

        Abstraction: the logical state of a stateful subtask is the set of records whose
        effect it holds (``processed``): the most precise abstraction of any operator state
        that depends on every record (a count, a sum, a window).  Keyed state is that set,
        partitioned by key group."""
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


def priority_index(items: tuple) -> int:
    """Where the priority (unaligned) barrier in a channel is, or -1."""
    for i, x in enumerate(items):
        if len(x) == 3 and x[0] == BARRIER:
            return i
    return -1
