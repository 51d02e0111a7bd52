"""The catalog's entries for unaligned checkpoints: ``UNALIGNED_CATALOG`` (what the output
channel state, the acknowledgement, the restore order and ``StateAssignmentOperation`` must
get right, with FLINK-40016, FLINK-31963, FLINK-35351 and FLINK-40269) and
``POINTWISE_CATALOG`` (the pointwise-UC thread's restore of channel state on POINTWISE edges,
apache/flink#28523), with their scopes and variant classes."""

from __future__ import annotations

from ckptcheck.model.assignment import StateAssignmentOperation
from ckptcheck.model.assignment_pointwise import PointwiseStateAssignment
from ckptcheck.model.barriers import CheckpointBarrierHandler
from ckptcheck.model.network_input import StreamTaskNetworkInput, priority_index
from ckptcheck.model.pointwise import ALL_TO_ALL, consumers_of
from ckptcheck.model.scope import Scope
from ckptcheck.model.subtask_checkpoint import SubtaskCheckpointCoordinator
from ckptcheck.model.task import StreamTask
from ckptcheck.model.world import BARRIER, REC, RECOVERED_INPUT

from ..baseline.scopes import scope
from ..catalog_entry import Entry
from .designs import UNALIGNED, UNALIGNED_DURING_RECOVERY, UNALIGNED_POINTWISE, UNALIGNED_TIMEOUT
from .scopes import (pointwise_fan_in_scope, pointwise_keyed_order_scope, pointwise_pattern_change_scope, recovery_scope,
                     restart_aligned_scope, unaligned_scope)


class OutputStateNotPersisted(SubtaskCheckpointCoordinator):
    """Flawed unaligned snapshot: only the input side is persisted; the records the priority
    barrier overtakes in the producer's subpartition are not written as output channel state."""

    def output_state(self, queued: tuple) -> tuple:
        return ()


class AckAtFirstBarrier(SubtaskCheckpointCoordinator):
    """Flawed unaligned snapshot: the task acknowledges at its first barrier, with the input
    channel state it has so far, instead of waiting for every channel's barrier."""

    def start_unaligned(self, tx, t: int, cp: int) -> None:
        super().start_unaligned(tx, t, cp)
        if tx.tasks[t].uc:
            self.finish_unaligned(tx, t)


class PersistsQueuedBuffersTwice(StreamTaskNetworkInput):
    """FLINK-40016: a buffer queued in the input channel when the checkpoint started is
    persisted then (``checkpointStarted`` / ``startPersisting``) and again when the task polls
    it (``maybePersist``), as ``LocalInputChannel`` did.  Abstraction: in Flink the doubled
    bytes made the restore fail ("Corrupt stream"); the model restores the buffer twice, and
    ``checkpoints-consistent`` names the record that is in the channel state twice."""

    def persists_on_poll(self, ts, bit: int, r: tuple) -> bool:
        return super().persists_on_poll(ts, bit, r) or bool(ts.uc) and r in ts.uc[1][bit.bit_length() - 1]


class RecoveredBufferPersistedAgain(StreamTaskNetworkInput):
    """FLINK-40016 as Flink 2.3.0 has it, with checkpoints during recovery: the checkpoint
    persists the recovered buffers still queued when it starts (``LocalInputChannel
    .checkpointStarted``), and ``getNextRecoveredBuffer`` hands each one it polls while the
    channel's barrier is pending to ``getBufferAndAvailability``, whose ``maybePersist`` persists
    it again (read in Flink 2.3.0's jar with javap; fixed by apache/flink#28605)."""

    def persists_recovered_on_poll(self) -> bool:
        return True


class DuringRecoveryWithoutUnaligned(StreamTask):
    """FLINK-40518 (before apache/flink#29055): ``CheckpointingOptions
    .isCheckpointingDuringRecoveryEnabled`` asked the two FLIP-547 options and not whether
    unaligned checkpoints are on, so a job restarted with them off reads its recovered channel
    state as a RUNNING task behind the aligned barrier handler, whose ``RecoveryCheckpointTrigger``
    is NO_OP: a checkpoint triggered meanwhile is neither taken nor declined until the recovery
    ends."""

    def checkpointing_during_recovery(self) -> bool:
        return self.design.checkpointing_during_recovery and self.design.recover_output_on_downstream


class NewDataBeforeChannelState(StreamTaskNetworkInput):
    """Flawed restore: the task reads new data before its recovered input channel state (its
    gate requests the upstream partitions at once instead of after the recovered buffers are
    consumed, ``StreamTask.restoreStateAndGates``, UC note B.1): the first new
    record in a channel is read ahead of the recovered records in front of it."""

    def deliver(self, tx, c: int) -> None:
        items = tx.channels[c]
        j = next((i for i, x in enumerate(items) if len(x) != 4), 0)
        if j and items[j][0] == REC and priority_index(items) < 0:
            tx.channels[c] = (items[j],) + items[:j] + items[j + 1:]
        super().deliver(tx, c)


class SkipsStatelessVertices(StateAssignmentOperation):
    """FLINK-31963 (before apache/flink#22584): ``StateAssignmentOperation`` reassigns only
    vertices with state of their own (operator state, or channel state of their own subtasks);
    a stateless vertex whose in-flight input is its upstream's output state gets no rescaling
    descriptor, so it reads that state without virtual channels and without the
    ``RecordFilter``.  Abstraction: the model shows what the missing filter lets through; it
    does not model the missing demultiplexing itself."""

    def has_rescaling_descriptor(self, k: int, c, old) -> bool:
        tasks = old.topo.tasks_of[k]
        own = any(any(c.snapshots[t].inputs) or any(c.snapshots[t].outputs) for t in tasks)
        return own or any(old.stateful[t] for t in tasks)


class PeerGateByPosition(StateAssignmentOperation):
    """FLINK-40269 (before apache/flink#28856): ``TaskStateAssignment`` found the peer's gate by
    the position of the peer assignment among those joining the two vertices (``indexOf`` on
    ``[D, D]`` returns 0), so the upstream's output state of the second edge between the same
    vertices is routed with the first edge's input mapping.  Where that mapping sends a buffer
    to a subtask without a virtual channel for its old subpartition the restore fails, as in
    Flink's reports ("Cannot select SubtaskConnectionDescriptor"); where it does not (the
    catalog's scope: sink 1 -> 2), the keyBy filter of the subtask that gets the buffer drops
    the record another subtask owns, and it is lost without an error (traced by hand in
    Flink's code; not a reported symptom)."""

    def peer_edge(self, ek: int) -> int:
        e = self.topo.job.edges[ek]
        return next(k for k, x in enumerate(self.topo.job.edges) if (x.source, x.target) == (e.source, e.target))


class InputStateOneToOne(StateAssignmentOperation):
    """FLINK-35351 (before apache/flink#24857, commit 691ce18): ``reDistributeInputChannelStates``
    assigned a vertex's input channel state 1:1 whenever the vertex kept its parallelism, even
    behind a custom partitioner (downstream mapper FULL) whose upstream was rescaled.  The
    gate's descriptor was the FULL mapping all the same (``TaskStateAssignment.getInputMapping``
    did not change in the fix): every new subtask has a virtual channel for every old one and
    gets the upstream's output state of every old subpartition.  A record split between old
    consumer d's input state (its head, the deserializer's partial record) and the upstream's
    output state for d (its tail) reaches every other subtask as a tail alone, and the
    deserializer of that virtual channel starts mid-record.  With whole records (no
    ``spanning_records``) the two assignments restore the same records: the filter drops the
    replicas."""

    def input_state_assignment(self, handles: list, mapper: str, old_p: int, new_p: int, up_new: int,
                               redistribute: bool | None = None) -> list:
        if old_p == new_p:
            return [list(h) for h in handles]
        return super().input_state_assignment(handles, mapper, old_p, new_p, up_new, redistribute)


class NoRecordFilter(StateAssignmentOperation):
    """Flawed restore at a new parallelism: channel state that an ambiguous mapper (RANGE)
    replicated to several new subtasks is kept by all of them (no ``RecordFilter``)."""

    def keeps(self, e, ambiguous: bool, consumer_index: int, r: tuple, *, old_consumer=None, old_producer=None) -> bool:
        return True


class AnnouncedBarrierSkipsQueued(CheckpointBarrierHandler):
    """Flawed switch on an announcement: the announced barrier is moved to the head of its input
    channel as a priority event, but the buffers queued in front of it are not taken as input
    channel state (``checkpointStarted`` would hand the channel's in-flight buffers up to the
    announced sequence number to the ``ChannelStateWriter``).  The task reads them after its
    snapshot, and the checkpoint holds them nowhere."""

    def prioritize_announcements(self, tx, t: int, cp: int) -> None:
        for c in self.topo.inputs[t]:
            items = tx.channels[c]
            j = self.announced_index(items, cp - 1, cp)
            if j >= 0:
                tx.channels[c] = ((BARRIER, cp, 1),) + items[:j] + items[j + 1:]
                self.network_input.deliver(tx, c)


def announcement_entry_scope() -> Scope:
    """The announcement entry's scope: ``keyed-1x1`` with one buffer in the sink's remote input
    channel, two records, one checkpoint before end of input, one failure, no decline."""
    return scope("keyed-1x1", records_per_split=2, max_checkpoints=1, max_failures=1, max_declines=0, max_timeouts=0,
                 max_lost_notifications=0, input_buffers=1)


def _uc_rescale_scope() -> Scope:
    """Unaligned entries about rescaling: source(1) -keyBy-> keyed 2PC sink(1), the sink
    rescaled to 2, one record, only the final checkpoints, no fault."""
    return scope("keyed-1x1", records_per_split=1, max_checkpoints=0, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=1)


def _uc_unbounded_rescale_scope(job: str, vertex: str, records: int) -> Scope:
    """Unaligned entries about the restore of channel state at a new parallelism: ``vertex``
    rescaled to 2, unbounded sources (no end-of-input phase), two checkpoints (one to restore
    from, one at the new parallelism), no fault."""
    return scope(job, records_per_split=records, bounded=False, max_checkpoints=2, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0, rescale=((vertex, 2),), max_rescales=1)


def _uc_spanning_scope() -> Scope:
    """FLINK-35351's shape: a stateless map rescaled 2 -> 1 in front of a custom-partitioned
    2PC sink that keeps parallelism 2 (``custom-map``), records that may straddle two buffers,
    one record, one checkpoint, unbounded, no fault."""
    return scope("custom-map", records_per_split=1, bounded=False, max_checkpoints=1, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0, rescale=(("map", 1),), max_rescales=1, spanning_records=True)


def _uc_scope(input_buffers: int = 0, checkpoints: int = 0) -> Scope:
    """Unaligned entries: two sources into one keyed sink, one record per split, ``checkpoints``
    checkpoints before end of input (by default none: only the final ones), no fault."""
    return scope("keyed-2x1", records_per_split=1, max_checkpoints=checkpoints, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0, input_buffers=input_buffers)


UNALIGNED_CATALOG: tuple[Entry, ...] = (
    Entry(
        "uc-input-side-only",
        UNALIGNED.with_(
            name="uc-input-side-only",
            subtask_checkpoint=OutputStateNotPersisted,
            description="Unaligned checkpoints that persist only the input side: the records an "
            "unaligned barrier overtakes in the producer's subpartition are in no state, and a "
            "restore from that checkpoint loses them.",
        ),
        "checkpoints-consistent",
        _uc_scope(),
        "UC note A.5-A.6 (PipelinedSubpartition.processPriorityBuffer copies the overtaken "
        "buffers to ChannelStateWriter.addOutputData); issue 12's design mistakes",
        UNALIGNED,
    ),
    Entry(
        "uc-ack-at-first-barrier",
        UNALIGNED.with_(
            name="uc-ack-at-first-barrier",
            subtask_checkpoint=AckAtFirstBarrier,
            description="An unaligned task acknowledges at its first barrier: the records it reads "
            "afterwards from a channel whose barrier has not arrived are in no channel state.",
        ),
        "checkpoints-consistent",
        _uc_scope(input_buffers=1),
        "UC note A.5 item 7 and 'Things most likely to trip up a modeller' 1: acks wait "
        "for alignment even in UC (ChannelStatePendingResult completes after completeInput)",
        UNALIGNED,
    ),
    Entry(
        "uc-no-record-filter",
        UNALIGNED.with_(
            name="uc-no-record-filter",
            assignment=NoRecordFilter,
            description="A restore at a new parallelism without record filtering: the keyBy edge's "
            "RANGE mapper gives an old subtask's channel state to every new subtask that inherits "
            "part of its key groups, and each of them processes (and commits) the record.",
        ),
        "exactly-once-output",
        _uc_rescale_scope(),
        "UC note B.3 (RescalingStreamTaskNetworkInput's RecordFilter on ambiguous virtual "
        "channels) and 'Things most likely to trip up a modeller' 4; issue 12's design mistakes",
        UNALIGNED,
    ),
    Entry(
        "FLINK-40016-buffers-persisted-twice",
        UNALIGNED.with_(
            name="FLINK-40016-buffers-persisted-twice",
            network_input=PersistsQueuedBuffersTwice,
            description="A record queued in the input channel when the unaligned barrier arrives is "
            "persisted then and again when the task reads it: the checkpoint's input channel state "
            "holds it twice.",
        ),
        "checkpoints-consistent",
        _uc_scope(input_buffers=1, checkpoints=1),
        "FLINK-40016 (apache/flink#28605): LocalInputChannel persisted recovered buffers in "
        "checkpointStarted and again through maybePersist (UC note B.4)",
        UNALIGNED,
    ),
    Entry(
        "uc-announced-barrier-skips-queued-buffers",
        UNALIGNED_TIMEOUT.with_(
            name="uc-announced-barrier-skips-queued-buffers",
            barriers=AnnouncedBarrierSkipsQueued,
            description="With an alignment timeout, the timer fires on a barrier's announcement and the "
            "announced barrier jumps to the head of its input channel, but the records queued in front "
            "of it are not persisted as input channel state: the consumer reads them after its snapshot, "
            "and a restore from that checkpoint loses them.",
        ),
        "checkpoints-consistent",
        announcement_entry_scope(),
        "Flink's unit tests of barrier announcements (SingleCheckpointBarrierHandler."
        "processBarrierAnnouncement, ChannelState.prioritizeAllAnnouncements, RemoteInputChannel."
        "convertToPriorityEvent and checkpointStarted's in-flight buffers)",
        UNALIGNED_TIMEOUT,
    ),
    Entry(
        "uc-new-data-before-channel-state",
        UNALIGNED.with_(
            name="uc-new-data-before-channel-state",
            network_input=NewDataBeforeChannelState,
            description="A restored task reads new data before its recovered input channel state: "
            "a record the source replays overtakes an earlier record of the same key that the "
            "checkpoint holds as channel state.",
        ),
        "per-key-order",
        scope("keyed-1x1", records_per_split=2, max_checkpoints=1, max_failures=1, max_declines=0, max_timeouts=0,
              max_lost_notifications=0, input_buffers=1, keys_per_split=1),
        "UC note B.1 (recovered input buffers are consumed before new data: "
        "StreamTask.restoreStateAndGates, FLINK-19856's UpstreamRecoveryTracker); issue 12's design mistakes",
        UNALIGNED,
    ),
    Entry(
        "FLINK-31963-stateless-vertex-not-reassigned",
        UNALIGNED.with_(
            name="FLINK-31963-stateless-vertex-not-reassigned",
            assignment=SkipsStatelessVertices,
            description="A stateless vertex rescaled behind a keyBy edge is not reassigned: the "
            "source's output channel state, replicated by the RANGE mapper to every new subtask "
            "that inherits part of the old one's key groups, reaches each of them unfiltered.",
        ),
        "exactly-once-output",
        _uc_unbounded_rescale_scope("keyed-map", "map", records=1),
        "FLINK-31963 (apache/flink#22584: StateAssignmentOperation skipped stateless operators whose upstream "
        "has output state or downstream input state; UC note B.2)",
        UNALIGNED,
    ),
    Entry(
        "FLINK-35351-custom-partitioner-input-state",
        UNALIGNED.with_(
            name="FLINK-35351-custom-partitioner-input-state",
            assignment=InputStateOneToOne,
            description="A vertex that keeps its parallelism behind a custom partitioner gets its own "
            "input channel state back 1:1 while its upstream was rescaled: a record whose head is in one "
            "old subtask's input state and whose tail is in the upstream's output state reaches the "
            "other subtasks as a tail without its head.",
        ),
        "restores-succeed",
        _uc_spanning_scope(),
        "FLINK-35351 (apache/flink#24857: StateAssignmentOperation.reDistributeInputChannelStates assigned "
        "input channel state 1:1 behind a FULL-mapped edge whose upstream was rescaled; "
        "UnalignedCheckpointRescaleITCase Topology.CUSTOM_PARTITIONER); UC note B.2",
        UNALIGNED,
    ),
    Entry(
        "FLINK-40269-same-upstream-gates",
        UNALIGNED.with_(
            name="FLINK-40269-same-upstream-gates",
            assignment=PeerGateByPosition,
            description="Two input gates of the sink read the same source (a rebalance side output "
            "and a keyBy side output): at a restore at a new parallelism the source's output state "
            "of the keyBy edge is routed with the rebalance edge's mapping, and the keyBy filter of "
            "the one sink subtask that gets it drops the record another subtask owns.",
        ),
        "checkpoints-consistent",
        _uc_unbounded_rescale_scope("side-outputs", "sink", records=2),
        "FLINK-40269 (apache/flink#28856: TaskStateAssignment resolved the peer gate by position, "
        "so two edges between the same job vertices shared the first one's mapping; "
        "UnalignedCheckpointRescaleSameUpstreamITCase); UC note B.2",
        UNALIGNED,
    ),
    Entry(
        "FLINK-40016-recovered-buffers-persisted-twice",
        UNALIGNED_DURING_RECOVERY.with_(
            name="FLINK-40016-recovered-buffers-persisted-twice",
            network_input=RecoveredBufferPersistedAgain,
            description="Checkpoints during recovery as Flink 2.3.0 ships them: a checkpoint that starts while a "
            "restored subtask still holds recovered records persists them, and the subtask persists each one it "
            "reads before that channel's barrier a second time: the checkpoint's input channel state holds it twice.",
        ),
        "checkpoints-consistent",
        unaligned_scope(),
        "FLINK-40016 (apache/flink#28605, merged July 2026, after Flink 2.3.0): LocalInputChannel.checkpointStarted "
        "persisted the toBeConsumedBuffers and getNextRecoveredBuffer -> getBufferAndAvailability -> maybePersist "
        "persisted them again (Flink 2.3.0's jar, read with javap)",
        UNALIGNED_DURING_RECOVERY,
    ),
    Entry(
        "FLINK-40518-aligned-checkpoint-waits-for-recovery",
        UNALIGNED_DURING_RECOVERY.with_(
            name="FLINK-40518-aligned-checkpoint-waits-for-recovery",
            task=DuringRecoveryWithoutUnaligned,
            description="Checkpoints during recovery stay on in a job restarted with unaligned checkpoints off: the "
            "restored sink reads its recovered records as a RUNNING task, so the scheduler triggers a checkpoint whose "
            "aligned barrier queues behind them; the aligned handler inserts no recovery barrier, so the checkpoint is "
            "neither taken nor declined until the recovery ends, and expires when the recovery outlasts its timeout.",
        ),
        "no-checkpoint-waits-for-a-recovery",
        restart_aligned_scope(),
        "FLINK-40518 (apache/flink#29055, merged August 2026): CheckpointingOptions.isCheckpointingDuringRecoveryEnabled "
        "did not require unaligned checkpoints; with them off the aligned barrier handler gets a NO_OP "
        "RecoveryCheckpointTrigger and a checkpoint triggered mid-recovery hangs until it expires, then the job loops "
        "in failover",
        UNALIGNED_DURING_RECOVERY,
    ),
    Entry(
        "FLIP-547-no-op-before-the-sentinel",
        UNALIGNED_DURING_RECOVERY.with_(
            name="FLIP-547-no-op-before-the-sentinel",
            recovery_trigger_no_op="after-drain",
            description="The RecoveryCheckpointTrigger turns NO_OP once the drain handed every recovered buffer to "
            "its channel, before the channels polled their EndOfFetchedChannelStateEvent: a checkpoint that starts "
            "while a subtask still reads recovered records inserts no RecoveryCheckpointBarrier, the subtask "
            "declines it (Missing RecoveryCheckpointBarrier, CHECKPOINT_DECLINED, counted) and the job fails over "
            "into the same window.",
        ),
        "no-checkpoint-declined-by-itself",
        recovery_scope(),
        "1996fanrui's review of apache/flink#28554 (StreamTask, 30 June 2026): the NO_OP swap fires when drain() "
        "completes, but a channel leaves recovery only when the mailbox polls the sentinel; apache/flink#28660 sets "
        "NO_OP only after every gate reported its state consumed (StreamTaskRecoveryTriggerLifecycleTest)",
        UNALIGNED_DURING_RECOVERY,
    ),
)


class NoPrimaryProducerRule(PointwiseStateAssignment):
    """the pointwise-UC thread without its dedup: every new upstream that inherited an old upstream's output
    state writes it to each connected downstream (``computeNewLocalSubpartitionIndex`` without
    the lowest-producer check)."""

    def writes_recovered_output(self, u: int, d: int, pattern: str, new_up: int, new_down: int) -> bool:
        return pattern == ALL_TO_ALL or d in consumers_of(u, new_up, new_down)


class NoRecoveryFilter(PointwiseStateAssignment):
    """the pointwise-UC thread without "filters at recovery time": every new upstream writes all the output
    state it inherited, connected or not."""

    def writes_recovered_output(self, u: int, d: int, pattern: str, new_up: int, new_down: int) -> bool:
        return True


class NoUpstreamRecoveryTracker(StreamTaskNetworkInput):
    """A restored gate without FLINK-19856's ``UpstreamRecoveryTracker``: each channel resumes
    on its own once it delivered its ``EndOfChannelStateEvent``, so a new record on one channel
    can overtake the recovered output an upstream re-sends on another channel of the gate."""

    def recovery_phase(self, channels: tuple, t: int) -> int:
        phase = super().recovery_phase(channels, t)
        return phase if phase == RECOVERED_INPUT else 0


class UnrecordedPattern(PointwiseStateAssignment):
    """the pointwise-UC thread without the pattern hook's record: the restore reads the new job's pattern as
    the old one (``resolveOldDistributionPattern`` given the new pattern instead of the recorded
    one, or ALL_TO_ALL)."""

    def read_pattern(self, recorded: str, new: str) -> str:
        return new


class UnchangedEdgesKeepTheirState(PointwiseStateAssignment):
    """The fix of finding P1: an unchanged edge keeps its channel state where it was even when
    another gate or partition of the same task changed (the task manager's ``recoverPointwise``
    skipping a descriptor whose ``MappingType`` is ``IDENTITY``, as the job manager's
    ``distributePointwiseOutputBufferToDownstream`` skips an identity mapping)."""

    def routes_unchanged_edge(self, k: int, inputs: bool, c, old) -> bool:
        return False


def unchanged_edge_scope() -> Scope:
    """Finding P1's scope: ``pointwise-fan-in-and-side`` (source(2) -rescale()-> sink(1) for even
    offsets, -rebalance()-> side(1) for odd ones), the side rescaled to 2 so that the sources'
    pointwise edge stays as it was, two records per split, unbounded, one checkpoint, no fault,
    local channels (a record in a subpartition at the snapshot is output state)."""
    return scope("pointwise-fan-in-and-side", records_per_split=2, bounded=False, max_checkpoints=1, max_failures=0,
                 max_declines=0, max_timeouts=0, max_lost_notifications=0, rescale=(("side", 2),), max_rescales=1,
                 input_buffers=0)


POINTWISE_CATALOG: tuple[Entry, ...] = (
    Entry(
        "pointwise-no-primary-producer-rule",
        UNALIGNED_POINTWISE.with_(
            name="pointwise-no-primary-producer-rule",
            assignment=NoPrimaryProducerRule,
            description="The pointwise restore without the primary-producer rule: when the sink goes back "
            "from 2 subtasks to 1, both sources inherit both old sources' output state and both write it "
            "to the one sink.",
        ),
        "exactly-once-output",
        pointwise_fan_in_scope(),
        "the pointwise-UC thread ('When multiple new upstreams trace to the same old upstream, a primary-producer rule "
        "deduplicates'); apache/flink#28523 computeNewLocalSubpartitionIndex; UC note C.4",
        UNALIGNED_POINTWISE,
    ),
    Entry(
        "pointwise-no-recovery-filter",
        UNALIGNED_POINTWISE.with_(
            name="pointwise-no-recovery-filter",
            assignment=NoRecoveryFilter,
            description="The pointwise restore without the recovery-time filter: every new upstream writes "
            "all the output state it inherited.",
        ),
        "exactly-once-output",
        pointwise_fan_in_scope(),
        "the pointwise-UC thread ('then filters at recovery time to only write buffers destined for its actually connected "
        "downstreams'); UC note C.4",
        UNALIGNED_POINTWISE,
    ),
    Entry(
        "pointwise-pattern-not-recorded",
        UNALIGNED_POINTWISE.with_(
            name="pointwise-pattern-not-recorded",
            assignment=UnrecordedPattern,
            description="The pointwise restore reading the new job's pattern for the checkpoint's edge: an edge "
            "that was ALL_TO_ALL at 2:3 is restored as if it had been POINTWISE, and an old source's buffer for a "
            "sink it was connected to has no writer.",
        ),
        "rescaled-channel-state-exact",
        pointwise_pattern_change_scope(),
        "the pointwise-UC thread ('the computation requires knowing the distribution pattern of edges in both old and new job "
        "versions. We leverage the MasterHook mechanism to record each edge's pattern'); apache/flink#28523 "
        "EdgeDistributionPatternHook; UC note C.2",
        UNALIGNED_POINTWISE,
    ),
    Entry(
        "P1-unchanged-pointwise-edge-in-a-rescaled-task",
        UNALIGNED_POINTWISE.with_(
            name="P1-unchanged-pointwise-edge-in-a-rescaled-task",
            description="The PR as it is (apache/flink at 081b131): a source whose rebalance partition changed at a "
            "restore gets a RESCALING descriptor, and its unchanged 2:1 rescale() partition is recovered by the "
            "pointwise rules too; computeNewLocalSubpartitionIndex drops source[1]'s buffer for the sink, whose first "
            "producer is source[0], although the job manager gave that buffer to source[1] alone.",
        ),
        "rescaled-channel-state-exact",
        unchanged_edge_scope(),
        "apache/flink#28523 at 081b131: TaskStateAssignment.createRescalingDescriptor (NO_RESCALE only if every "
        "descriptor is an identity) and createPointwiseRescalingDescriptor (an unchanged edge keeps its "
        "PointwiseRescaleParams, so isPointwiseRescaling()); RecoveredChannelStateHandler's "
        "ResultSubpartitionRecoveredStateHandler.recoverPointwise (no identity case); read, not run",
        UNALIGNED_POINTWISE.with_(
            name="pointwise-unchanged-edges-keep-their-state",
            assignment=UnchangedEdgesKeepTheirState,
            description="apache/flink#28523 with an identity case in the task manager's recoverPointwise: an unchanged "
            "edge keeps its channel state where it was.",
        ),
    ),
    Entry(
        "pointwise-no-upstream-recovery-tracker",
        UNALIGNED_POINTWISE.with_(
            name="pointwise-no-upstream-recovery-tracker",
            network_input=NoUpstreamRecoveryTracker,
            description="The pointwise restore with gates that resume each channel on its own: the primary-producer "
            "rule puts source[1]'s recovered record on source[0]'s channel, and the map reads source[1]'s next "
            "record of the same key first.",
        ),
        "per-key-order",
        pointwise_keyed_order_scope(),
        "FLINK-19856 (UpstreamRecoveryTracker: a gate resumes its channels only once every one delivered "
        "EndOfChannelStateEvent); FLINK-21936's keyed-order concern; UC note B.1, C.4",
        UNALIGNED_POINTWISE,
    ),
)
