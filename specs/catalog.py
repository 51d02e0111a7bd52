"""The flaw catalog: design variants known to be wrong, each with the property it must violate
and the scope in which the violation is reachable.  ``ckptcheck catalog`` and the tests check
that every entry is caught *and* that the correct design passes the very same scope: that is
how the harness shows it can tell right from wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

from ckptcheck.model.assignment import PointwiseStateAssignment, StateAssignmentOperation
from ckptcheck.model.pointwise import ALL_TO_ALL, consumers_of
from ckptcheck.model.coordinator import CheckpointCoordinator
from ckptcheck.model.nullstate import NullStateRecovery
from ckptcheck.model.design import Design
from ckptcheck.model.regional import RegionalCheckpointHandler
from ckptcheck.model.sinkv2 import CommitterOperator
from ckptcheck.model.sources import SourceReader
from ckptcheck.model.store import CompletedCheckpointStore
from ckptcheck.model.task import StreamTask, priority_index
from ckptcheck.model.world import REC, RECOVERED_INPUT
from ckptcheck.model.scope import Scope

from .designs import (BASELINE, FLIP600, FLIP600_FILE_MERGING, FLIP600_NO_CLAIM, NULL_STATE, NULL_STATE_UNALIGNED, PRESETS,
                      UNALIGNED, UNALIGNED_POINTWISE)
from .scopes import scope


def _scope(checkpoints: int = 1, failures: int = 0) -> Scope:
    """keyed-2x2 with one record per split and only the faults an entry needs."""
    return scope("keyed-2x2", records_per_split=1, max_checkpoints=checkpoints, max_failures=failures,
                 max_declines=0, max_timeouts=0, max_lost_notifications=0)


def _flip600_scope(job: str = "forward-2x2", records: int = 0, checkpoints: int = 2, declines: int = 1,
                   bounded: bool = False) -> Scope:
    """FLIP-600 entries: two independent regions, only declines as faults.  Entries that do not
    need records flowing use none and unbounded sources: the regional machinery (declines,
    fallbacks, refs, retention, files) is exercised all the same, in a space small enough to
    check the correct design exhaustively next to each flaw."""
    return scope(job, records_per_split=records, bounded=bounded, max_checkpoints=checkpoints, max_failures=0,
                 max_declines=declines, max_timeouts=0, max_lost_notifications=0)


class RegionsBySubtaskIndex(RegionalCheckpointHandler):
    """Flawed region rule: subtask i of every vertex forms region i, whatever edge joins them
    (the thread's "each parallelism maps to an independent Region" applied to a keyBy job)."""

    def regions(self, waiting: int | None = None) -> list[frozenset[int]]:
        groups: dict[int, set[int]] = {}
        for t in range(self.topo.n_tasks):
            groups.setdefault(self.topo.index_of[t], set()).add(t)
        return [frozenset(g) for _, g in sorted(groups.items())]


class CleanerDeletesOlderThanPending(CompletedCheckpointStore):
    """Flawed cleaner: once a newer checkpoint is triggered, the older ones are garbage."""

    def discard(self, subsumed: tuple[int, ...], retained: tuple[int, ...], pending: tuple[int, ...]) -> tuple[int, ...]:
        newest = max(pending, default=0)
        return subsumed + tuple(c for c in retained if c < newest)


class RestartFromInitialOffset(SourceReader):
    """Flawed restore: the split reader starts again at the split's first offset."""

    def restore_position(self, snapshot_position: int) -> int:
        return 0


class OutputStateNotPersisted(StreamTask):
    """Flawed unaligned snapshot: only the input side is persisted; the records the priority
    barrier overtakes in the producer's subpartition are not written as output channel state."""

    def output_state(self, queued: tuple) -> tuple:
        return ()


class AckAtFirstBarrier(StreamTask):
    """Flawed unaligned snapshot: the task acknowledges at its first barrier, with the input
    channel state it has so far, instead of waiting for every channel's barrier."""

    def start_unaligned(self, tx, t: int, cp: int) -> None:
        super().start_unaligned(tx, t, cp)
        if tx.tasks[t].uc:
            self.finish_unaligned(tx, t)


class PersistsQueuedBuffersTwice(StreamTask):
    """FLINK-40016: a buffer queued in the input channel when the checkpoint started is
    persisted then (``checkpointStarted`` / ``startPersisting``) and again when the task polls
    it (``maybePersist``), as ``LocalInputChannel`` did.  Abstraction: in Flink the doubled
    bytes made the restore fail ("Corrupt stream"); the model restores the buffer twice, and
    ``checkpoints-consistent`` names the record that is in the channel state twice."""

    def persists_on_poll(self, ts, bit: int, r: tuple) -> bool:
        return super().persists_on_poll(ts, bit, r) or bool(ts.uc) and r in ts.uc[1][bit.bit_length() - 1]


class NewDataBeforeChannelState(StreamTask):
    """Flawed restore: the task reads new data before its recovered input channel state (its
    gate requests the upstream partitions at once instead of after the recovered buffers are
    consumed, ``StreamTask.restoreStateAndGates``, reference-flink-uc B.1): the first new
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

    def input_state_assignment(self, handles: list, mapper: str, old_p: int, new_p: int, up_new: int) -> list:
        if old_p == new_p:
            return [list(h) for h in handles]
        return super().input_state_assignment(handles, mapper, old_p, new_p, up_new)


class NoRecordFilter(StateAssignmentOperation):
    """Flawed restore at a new parallelism: channel state that an ambiguous mapper (RANGE)
    replicated to several new subtasks is kept by all of them (no ``RecordFilter``)."""

    def keeps(self, e, ambiguous: bool, consumer_index: int, r: tuple) -> bool:
        return True


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


@dataclass(frozen=True)
class Entry:
    name: str
    design: Design
    violates: str  # the property it must violate
    scope: Scope
    origin: str
    correct: Design = BASELINE  # the correct design, checked on the same scope


CATALOG: tuple[Entry, ...] = (
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
        "TwoPhaseCommitSinkFunction contract: commit only in notifyCheckpointComplete (seed 004, "
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
        "(seed 002: barriers 'block' the other channels until aligned)",
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
        "seed 004 (FLIP-147): 'the data sent after the last checkpoint would always not be able to "
        "be committed'",
    ),
)


FLIP600_CATALOG: tuple[Entry, ...] = (
    Entry(
        "K1-regional-final-checkpoint",
        FLIP600.with_(
            name="K1-regional-final-checkpoint",
            global_checkpoint_at_end_of_input=False,
            fallback_completes_final_checkpoint=True,
            description="FLIP-600 as first proposed: the checkpoint after end of input may be "
            "regional, and a failed-region task takes notifyCheckpointComplete(id, fallbackId) as "
            "the completion of its final checkpoint: it finishes, and the transaction it "
            "pre-committed for that checkpoint is never committed.",
        ),
        "finished-sinks-committed",
        _flip600_scope(records=1, checkpoints=1, bounded=True),
        "seed 000, Roman (19 Jun 2026): 'the job might complete with some subtasks/regions failing "
        "the final checkpoint ... This is essentially data loss'",
        FLIP600,
    ),
    Entry(
        "K2-regions-joined-by-keyby",
        FLIP600.with_(
            name="K2-regions-joined-by-keyby",
            regional=RegionsBySubtaskIndex,
            description="Regional mode across regions joined by an ALL_TO_ALL (keyBy) edge: a "
            "failed region's old state is mixed with a healthy region's new state that already "
            "holds records the failed region's source will replay.",
        ),
        "checkpoints-consistent",
        _flip600_scope(job="keyed-2x2", records=1, checkpoints=2),
        "seed 000: 'Our current scope is limited to embarrassingly parallel regions'; "
        "'BLOCKING/HYBRID edges between Regions -> Auto-disable at runtime'",
        FLIP600,
    ),
    Entry(
        "K3-no-coordinator-fallback",
        FLIP600.with_(
            name="K3-no-coordinator-fallback",
            coordinator_region_fallback="ignore",
            description="The split enumerator's own snapshot goes into a regional checkpoint as is: "
            "a split it assigned to a failed-region reader after the fallback checkpoint is neither "
            "unassigned in the enumerator's state nor in the reader's fallback state, so a restore "
            "never reads it.",
        ),
        "split-ownership-consistent",
        _flip600_scope(job="enumerator-and-side", records=1, checkpoints=2),
        "seed 000: 'State Correction — New checkpointCoordinatorForRegionFallback interface for "
        "OperatorCoordinators to produce consistent snapshots against the mixed view'",
        FLIP600,
    ),
    Entry(
        "K4-retention-ignores-refs",
        FLIP600.with_(
            name="K4-retention-ignores-refs",
            retention_follows_refs=False,
            description="The store subsumes checkpoints by id only: the fallback checkpoint a "
            "regional checkpoint refers to is subsumed and the cleaner deletes its files.",
        ),
        "checkpoints-restorable",
        _flip600_scope(),
        "seed 000: 'Track ref_checkpoint_id in metadata to prevent premature cleanup of referenced "
        "historical checkpoints'",
        FLIP600,
    ),
    Entry(
        "K5-no-consecutive-limit",
        FLIP600.with_(
            name="K5-no-consecutive-limit",
            force_global_after_max=False,
            description="No tier 1: regional checkpoints may follow each other without limit, so a "
            "region that keeps failing makes the refCheckpointId chain grow with every checkpoint.",
        ),
        "ref-chain-bounded",
        _flip600_scope(job="sources-2", checkpoints=4, declines=3),
        "seed 000, Tier 1: 'When consecutiveRegionalCount >= maxConsecutiveFailures, the next "
        "checkpoint is forced to be global'",
        FLIP600,
    ),
    Entry(
        "K6-file-merging-drops-fallback-segments",
        FLIP600_FILE_MERGING.with_(
            name="K6-file-merging-drops-fallback-segments",
            file_merging_keeps_fallback_alive=False,
            description="FLIP-306 task-manager file merging with regional checkpoints, without "
            "keeping the fallback segments alive: the subsumed notice that comes with the regional "
            "completion makes every subtask discard its segments of the fallback checkpoint, the "
            "physical file goes, and the regional checkpoint refers to it.",
        ),
        "checkpoints-restorable",
        _flip600_scope(),
        "seed 000, Zakelly (23 Jun 2026): 'The only thing we should do is to keep previous checkpoint "
        "files alive when a region checkpoint occurs'",
        FLIP600_FILE_MERGING,
    ),
    Entry(
        "K7-no-claim-snapshot-deleted-too-early",
        FLIP600_NO_CLAIM.with_(
            name="K7-no-claim-snapshot-deleted-too-early",
            no_claim_delete_after="first-checkpoint",
            description="The user deletes the NO_CLAIM snapshot once the first checkpoint completed, "
            "as Flink's documentation allows; that checkpoint was regional and its failed region "
            "still refers to the snapshot's files.",
        ),
        "checkpoints-restorable",
        _flip600_scope(),
        "seed 000: 'NO_CLAIM mode warning ... After restoring from a Regional Checkpoint, only a "
        "successful global checkpoint guarantees independence from the old state'",
        FLIP600_NO_CLAIM,
    ),
)

# What the model found in the design as proposed (flip600-proposed): each entry reverts one of
# flip600-regional's corrections to the proposal.
FINDINGS: tuple[Entry, ...] = (
    Entry(
        "F1-fallback-notice-finishes-task",
        FLIP600.with_(
            name="F1-fallback-notice-finishes-task",
            fallback_completes_final_checkpoint=True,
            description="The proposal's fix for bounded jobs (a global checkpoint once every source "
            "is exhausted), with a failed-region task taking notifyCheckpointComplete(id, fallbackId) "
            "as its final checkpoint: a region whose sources end first while another still runs "
            "finishes on a regional completion, and its sink's last transaction is never committed.",
        ),
        "finished-sinks-committed",
        _flip600_scope(job="pipeline-and-side", records=1, checkpoints=2, bounded=True),
        "seed 000, Raorao (23 Jun 2026): 'When all sources are exhausted, the JM will mark the next "
        "checkpoint as mandatory global'; refuted when regions end at different times",
        FLIP600,
    ),
    Entry(
        "F2-commit-past-own-state",
        FLIP600.with_(
            name="F2-commit-past-own-state",
            own_state_commit_bound=False,
            description="An abort notice carries the latest completed checkpoint id, and a task "
            "commits its transactions up to it (notifyCheckpointAbortAsync): a failed-region sink "
            "commits the transaction it pre-committed for the regional checkpoint that holds its "
            "fallback state instead, so a restore of that checkpoint replays the records.  (In the "
            "proposal the fallback notice itself counts as that completion (F1), so there it "
            "takes a lost fallback notice; with F1 fixed, it takes nothing.)",
        ),
        "committed-output-covered",
        scope("pipeline-and-side", records_per_split=1, bounded=False, max_checkpoints=3, max_failures=1,
              max_declines=1, max_timeouts=0, max_lost_notifications=0),
        "reference 6 (abort notices replay the latest completion) and 8.1 step 8 (failed-region tasks "
        "notified with the fallback id); found by ckptcheck spark generate (40,000 walks)",
        FLIP600,
    ),
    Entry(
        "F3-tier2-resets-the-chain-bound",
        FLIP600.with_(
            name="F3-tier2-resets-the-chain-bound",
            forced_global_failure_resets_counter=True,
            description="Tier 2: a forced global checkpoint that fails resets the counter, so the "
            "next regional checkpoint falls back to one that already refers back twice.",
        ),
        "ref-chain-bounded",
        _flip600_scope(job="sources-2", checkpoints=5, declines=4),
        "seed 000, Raorao (26 Jun 2026): 'The reference chain can only grow as deep as "
        "maxConsecutiveFailures'; Tier 2: 'The counter is then reset'",
        FLIP600,
    ),
)

UNALIGNED_CATALOG: tuple[Entry, ...] = (
    Entry(
        "uc-input-side-only",
        UNALIGNED.with_(
            name="uc-input-side-only",
            task=OutputStateNotPersisted,
            description="Unaligned checkpoints that persist only the input side: the records an "
            "unaligned barrier overtakes in the producer's subpartition are in no state, and a "
            "restore from that checkpoint loses them.",
        ),
        "checkpoints-consistent",
        _uc_scope(),
        "reference-flink-uc A.5-A.6 (PipelinedSubpartition.processPriorityBuffer copies the overtaken "
        "buffers to ChannelStateWriter.addOutputData); issue 12's design mistakes",
        UNALIGNED,
    ),
    Entry(
        "uc-ack-at-first-barrier",
        UNALIGNED.with_(
            name="uc-ack-at-first-barrier",
            task=AckAtFirstBarrier,
            description="An unaligned task acknowledges at its first barrier: the records it reads "
            "afterwards from a channel whose barrier has not arrived are in no channel state.",
        ),
        "checkpoints-consistent",
        _uc_scope(input_buffers=1),
        "reference-flink-uc A.5 item 7 and 'Things most likely to trip up a modeller' 1: acks wait "
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
        "reference-flink-uc B.3 (RescalingStreamTaskNetworkInput's RecordFilter on ambiguous virtual "
        "channels) and 'Things most likely to trip up a modeller' 4; issue 12's design mistakes",
        UNALIGNED,
    ),
    Entry(
        "FLINK-40016-buffers-persisted-twice",
        UNALIGNED.with_(
            name="FLINK-40016-buffers-persisted-twice",
            task=PersistsQueuedBuffersTwice,
            description="A record queued in the input channel when the unaligned barrier arrives is "
            "persisted then and again when the task reads it: the checkpoint's input channel state "
            "holds it twice.",
        ),
        "checkpoints-consistent",
        _uc_scope(input_buffers=1, checkpoints=1),
        "FLINK-40016 (apache/flink#28605): LocalInputChannel persisted recovered buffers in "
        "checkpointStarted and again through maybePersist (reference-flink-uc B.4)",
        UNALIGNED,
    ),
    Entry(
        "uc-new-data-before-channel-state",
        UNALIGNED.with_(
            name="uc-new-data-before-channel-state",
            task=NewDataBeforeChannelState,
            description="A restored task reads new data before its recovered input channel state: "
            "a record the source replays overtakes an earlier record of the same key that the "
            "checkpoint holds as channel state.",
        ),
        "per-key-order",
        scope("keyed-1x1", records_per_split=2, max_checkpoints=1, max_failures=1, max_declines=0, max_timeouts=0,
              max_lost_notifications=0, input_buffers=1, keys_per_split=1),
        "reference-flink-uc B.1 (recovered input buffers are consumed before new data: "
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
        "has output state or downstream input state; reference-flink-uc B.2)",
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
        "UnalignedCheckpointRescaleITCase Topology.CUSTOM_PARTITIONER); reference-flink-uc B.2",
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
        "UnalignedCheckpointRescaleSameUpstreamITCase); reference-flink-uc B.2",
        UNALIGNED,
    ),
)



class NoPrimaryProducerRule(PointwiseStateAssignment):
    """Seed 003 without its dedup: every new upstream that inherited an old upstream's output
    state writes it to each connected downstream (``computeNewLocalSubpartitionIndex`` without
    the lowest-producer check)."""

    def writes_recovered_output(self, u: int, d: int, pattern: str, new_up: int, new_down: int) -> bool:
        return pattern == ALL_TO_ALL or d in consumers_of(u, new_up, new_down)


class NoRecoveryFilter(PointwiseStateAssignment):
    """Seed 003 without "filters at recovery time": every new upstream writes all the output
    state it inherited, connected or not."""

    def writes_recovered_output(self, u: int, d: int, pattern: str, new_up: int, new_down: int) -> bool:
        return True


class NoUpstreamRecoveryTracker(StreamTask):
    """A restored gate without FLINK-19856's ``UpstreamRecoveryTracker``: each channel resumes
    on its own once it delivered its ``EndOfChannelStateEvent``, so a new record on one channel
    can overtake the recovered output an upstream re-sends on another channel of the gate."""

    def recovery_phase(self, channels: tuple, t: int) -> int:
        phase = super().recovery_phase(channels, t)
        return phase if phase == RECOVERED_INPUT else 0


class UnrecordedPattern(PointwiseStateAssignment):
    """Seed 003 without the pattern hook's record: the restore reads the new job's pattern as
    the old one (``resolveOldDistributionPattern`` given the new pattern instead of the recorded
    one, or ALL_TO_ALL)."""

    def read_pattern(self, recorded: str, new: str) -> str:
        return new


def keyed_order_scope() -> Scope:
    """Per-key order across a pointwise rescale (FLINK-21936's concern): ``three-stage-2x2x1``
    (source(2) -forward-> map(2) -keyBy-> keyed sink(1)), the map rescaled to 1, two records per
    split sharing one key, one checkpoint, unbounded, no fault."""
    return scope("three-stage-2x2x1", records_per_split=2, bounded=False, max_checkpoints=1, max_failures=0,
                 max_declines=0, max_timeouts=0, max_lost_notifications=0, rescale=(("map", 1),), max_rescales=1,
                 keys_per_split=1)


def _pointwise_rescale_scope() -> Scope:
    """Pointwise entries: two sources over a pointwise edge into one sink, rescaled to 2 and back
    (so a restore crosses POINTWISE 2:2 -> 2:1, where both sources inherit both old sources'
    output state); one record per split, unbounded, three checkpoints (the last one commits what the
    second restore put back), no fault."""
    return scope("pointwise-2x1", records_per_split=1, bounded=False, max_checkpoints=3, max_failures=0,
                 max_declines=0, max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=2)


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
        _pointwise_rescale_scope(),
        "seed 003 ('When multiple new upstreams trace to the same old upstream, a primary-producer rule "
        "deduplicates'); apache/flink#28523 computeNewLocalSubpartitionIndex; reference-flink-uc C.4",
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
        _pointwise_rescale_scope(),
        "seed 003 ('then filters at recovery time to only write buffers destined for its actually connected "
        "downstreams'); reference-flink-uc C.4",
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
        scope("rebalance-2x3", records_per_split=2, bounded=False, max_checkpoints=1, max_failures=0, max_declines=0,
              max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=1,
              repattern=("source->sink",)),
        "seed 003 ('the computation requires knowing the distribution pattern of edges in both old and new job "
        "versions. We leverage the MasterHook mechanism to record each edge's pattern'); apache/flink#28523 "
        "EdgeDistributionPatternHook; reference-flink-uc C.2",
        UNALIGNED_POINTWISE,
    ),
    Entry(
        "pointwise-no-upstream-recovery-tracker",
        UNALIGNED_POINTWISE.with_(
            name="pointwise-no-upstream-recovery-tracker",
            task=NoUpstreamRecoveryTracker,
            description="The pointwise restore with gates that resume each channel on its own: the primary-producer "
            "rule puts source[1]'s recovered record on source[0]'s channel, and the map reads source[1]'s next "
            "record of the same key first.",
        ),
        "per-key-order",
        keyed_order_scope(),
        "FLINK-19856 (UpstreamRecoveryTracker: a gate resumes its channels only once every one delivered "
        "EndOfChannelStateEvent); FLINK-21936's keyed-order concern; reference-flink-uc B.1, C.4",
        UNALIGNED_POINTWISE,
    ),
)



class EndOfDataBeforeCommittables(CommitterOperator):
    """FLINK-38614 as released (before apache/flink#28476): the committer task finishes its
    operators and broadcasts EndOfData as soon as its input ended; the final checkpoint's
    committables, emitted on ``notifyCheckpointComplete`` after it, reach a global committer
    that has already seen EndOfData and drops them (reference-flink-uc D.6)."""

    def forwards_end_of_data(self, tx, t: int) -> bool:
        return True


def flip147_scope(job: str = "sink-v2-global", checkpoints: int = 0, failures: int = 0) -> Scope:
    """FLIP-147 and Sink V2 entries: one record per split, ``checkpoints`` checkpoints before end
    of input (by default only the final ones) and ``failures`` failures, nothing else."""
    return scope(job, records_per_split=1, max_checkpoints=checkpoints, max_failures=failures, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


class LegacySourceFunction(SourceReader):
    """Seed 004: a legacy ``SourceFunction`` keeps each split's progress in union list state;
    FLIP-147 discards a finished subtask's state, so when its vertex is restored partly
    finished the split is read again from the start."""

    def finished_split_position(self) -> int:
        return 0


class UnionStateFinishesPartly(CheckpointCoordinator):
    """FLIP-147 without its union-list-state rule: a checkpoint completes while a vertex with
    union list state is partly finished (no ``PartialFinishingNotSupportedByStateException``)."""

    def partly_finished_union_vertex(self, tx, pending):
        return None


FLIP147_CATALOG: tuple[Entry, ...] = (
    Entry(
        "legacy-source-rereads-finished-split",
        BASELINE.with_(
            name="legacy-source-rereads-finished-split",
            source=LegacySourceFunction,
            description="A legacy SourceFunction keeps split progress in union list state. source[0] "
            "finishes, a checkpoint holds its empty FinishedOperatorSubtaskState while source[1] still "
            "runs; after a failure source[0] restarts and reads its split again: the sink commits its "
            "records twice.",
        ),
        "exactly-once-output",
        flip147_scope("keyed-2x1", checkpoints=1, failures=1),
        "seed 004: 'with this pattern if we discard the state for the finished splits, we would re-read "
        "them after failover'; FLIP-27 sources keep split state in the OperatorCoordinator",
    ),
    Entry(
        "union-state-finishes-partly",
        BASELINE.with_(
            name="union-state-finishes-partly",
            coordinator=UnionStateFinishesPartly,
            description="A checkpoint completes while only one subtask of a vertex with union list "
            "state finished: the finished subtask's part of the union state is discarded with its "
            "state, and a restore of that checkpoint loses it.",
        ),
        "checkpoints-consistent",
        flip147_scope("union-2x2", checkpoints=1),
        "seed 004, 'UnionListState': 'if an operator checkpoints UnionListState, it can only finish all "
        "at once'; PartialFinishingNotSupportedByStateException, reference-flink-uc D.3",
    ),
    Entry(
        "FLINK-38614-end-of-data-before-committables",
        BASELINE.with_(
            name="FLINK-38614-end-of-data-before-committables",
            committer=EndOfDataBeforeCommittables,
            description="Flink 2.3 as released: the Sink V2 committer task broadcasts EndOfData when its "
            "input ends, before the final checkpoint completes; the final committables it emits on that "
            "completion arrive at the global committer after EndOfData and are dropped.",
        ),
        "no-data-after-end-of-data",
        flip147_scope(),
        "FLINK-38614 (apache/flink#28476, open: 'Defer EndOfData until final checkpoint committables are "
        "emitted'); reference-flink-uc D.6",
    ),
)


def null_state_catalog_scope() -> Scope:
    """FLINK-4120 entries: one source, its recomputable window and a 2PC sink; two records, one
    checkpoint before end of input (a final one may follow), one failure: 8,214 states, every
    null-state witness hit.  Acknowledgements travel (no instant acks): an entry reads the
    window when its acknowledgement arrives."""
    return scope("null-state-1x1", records_per_split=2, max_checkpoints=1, max_failures=1, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


class TriggerDuringReplay(NullStateRecovery):
    """Checkpoints triggered while a re-inserted barrier is still on its way (the seed does not
    say when checkpointing resumes after a null-state recovery)."""

    def replaying(self, w) -> bool:
        return False


class SinksKeepReplayedRecords(NullStateRecovery):
    """Seed 001 without "Sinks must discard all records until this barrier reaches them"."""

    def discards(self, t: int) -> bool:
        return False


class BarrierAtRestart(NullStateRecovery):
    """The latest checkpoint's barrier re-inserted where the source restarts (the null-state
    checkpoint's position), not "in the position they were originally inserted"."""

    def reinsert_position(self, split: int, start: int, original: int) -> int:
        return start


class WatermarkAtAcknowledgement(NullStateRecovery):
    """The seed's "current null-state watermark", read when the acknowledgement reaches the
    coordinator instead of at the snapshot: the records that were in flight behind the
    barrier have moved the window on by then."""

    def reported_watermark(self, tx, t, snap):
        return self.watermark(tx.tasks[t].processed)


class RetentionIgnoresNullState(NullStateRecovery):
    """The store keeps only its ``num_retained`` newest checkpoints: the null-state checkpoint,
    older, is subsumed and its files deleted."""

    def retained_for_recovery(self, store: tuple) -> tuple[int, ...]:
        return ()


def null_state_unaligned_scope() -> Scope:
    """FLINK-4120 with unaligned checkpoints: job ``null-state-rebalance`` (an unaligned barrier
    overtakes a record on its way to the window and the sink), one record, one checkpoint before
    end of input, one failure (46,380 states)."""
    return scope("null-state-rebalance", records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


class WatermarkIgnoresInFlight(NullStateRecovery):
    """Unaligned checkpoints: the null-state watermark of the operator's own state only, not
    reaching back to the records in flight to it that the checkpoint holds as channel state."""

    def in_flight_watermark(self, c, t: int) -> tuple:
        return ()


class SinksDiscardOvertakenRecords(NullStateRecovery):
    """Unaligned checkpoints, the seed's rule as written: a sink discards every replayed record
    before the re-inserted barrier, also the ones the checkpoint's barrier had overtaken."""

    def kept_in_replay(self, c, t: int) -> tuple:
        return ()


def _null_state(name: str, rules: type[NullStateRecovery], description: str, base: Design = NULL_STATE) -> Design:
    return base.with_(name=name, null_state=rules, description=description)


NULL_STATE_CATALOG: tuple[Entry, ...] = (
    Entry(
        "null-state-sinks-keep-replayed-records",
        _null_state("null-state-sinks-keep-replayed-records", SinksKeepReplayedRecords,
                    "FLINK-4120's recovery with sinks that write the replayed records before the re-inserted barrier: "
                    "the sink's state from the latest checkpoint already holds them, so they are committed twice."),
        "exactly-once-output",
        null_state_catalog_scope(),
        "seed 001: 'Sinks must discard all records until this barrier reaches them'",
        NULL_STATE,
    ),
    Entry(
        "null-state-barrier-at-restart-position",
        _null_state("null-state-barrier-at-restart-position", BarrierAtRestart,
                    "FLINK-4120's recovery re-inserting the latest checkpoint's barrier where the sources restart: it "
                    "passes the window before the replay rebuilt the state the checkpoint held."),
        "recomputed-state-matches",
        null_state_catalog_scope(),
        "seed 001: 'the barriers belonging to that checkpoint must be inserted into the source streams in the "
        "position they were originally inserted'",
        NULL_STATE,
    ),
    Entry(
        "null-state-watermark-at-acknowledgement",
        _null_state("null-state-watermark-at-acknowledgement", WatermarkAtAcknowledgement,
                    "FLINK-4120's null-state watermark read from the operator when its acknowledgement arrives: records "
                    "that were in flight behind the barrier have entered the window, the watermark has passed records "
                    "the checkpoint's state holds, and the null-state checkpoint is too recent to rebuild it."),
        "recomputed-state-matches",
        null_state_catalog_scope(),
        "seed 001: 'each stateful operator should report its \"current null-state watermark\" as part of "
        "acknowledging the ongoing checkpoint'",
        NULL_STATE,
    ),
    Entry(
        "null-state-checkpoint-not-retained",
        _null_state("null-state-checkpoint-not-retained", RetentionIgnoresNullState,
                    "FLINK-4120's recovery with Flink's retention (num-retained 1): the null-state checkpoint of the "
                    "latest checkpoint is subsumed and deleted, and a recovery has nowhere to restart the sources."),
        "null-state-checkpoint-retained",
        null_state_catalog_scope(),
        "seed 001: 'the pipeline must be restarted from the latter to restore the state at the former' (the older "
        "checkpoint must outlive its subsumption); execution.checkpointing.num-retained",
        NULL_STATE,
    ),
    Entry(
        "null-state-checkpoint-during-replay",
        _null_state("null-state-checkpoint-during-replay", TriggerDuringReplay,
                    "FLINK-4120's recovery with checkpoints triggered during the replay: a checkpoint taken before the "
                    "re-inserted barrier reached the sink holds the sink's state from the latest checkpoint next to "
                    "source positions before it, so a recovery from it replays records the sink already has."),
        "checkpoints-consistent",
        scope("null-state-1x1", records_per_split=2, max_checkpoints=2, max_failures=1, max_declines=0, max_timeouts=0,
              max_lost_notifications=0),
        "seed 001 is silent on when checkpointing resumes after a recovery; model.nullstate holds triggers back until "
        "every re-inserted barrier has passed (NullStateRecovery.replaying)",
        NULL_STATE,
    ),
    Entry(
        "null-state-unaligned-watermark-ignores-in-flight",
        _null_state("null-state-unaligned-watermark-ignores-in-flight", WatermarkIgnoresInFlight,
                    "FLINK-4120's recovery with unaligned checkpoints, the null-state watermark taken from the operator's "
                    "state alone: the barrier overtook a record on its way to the window, so the null-state checkpoint "
                    "is one taken after that record and the replay never rebuilds it.", NULL_STATE_UNALIGNED),
        "recomputed-state-matches",
        null_state_unaligned_scope(),
        "seed 001: 'assuming the pipeline preserves the relative order of barriers and watermarks'; seed 002: the "
        "barrier overtakes in-flight data, stored as channel state",
        NULL_STATE_UNALIGNED,
    ),
    Entry(
        "null-state-unaligned-sinks-discard-overtaken-records",
        _null_state("null-state-unaligned-sinks-discard-overtaken-records", SinksDiscardOvertakenRecords,
                    "FLINK-4120's recovery with unaligned checkpoints and the seed's discard rule as written: the "
                    "barrier overtook a record on its way to the sink, whose state in the checkpoint does not hold it; "
                    "replayed before the re-inserted barrier, the sink discards it, and it is never committed.",
                    NULL_STATE_UNALIGNED),
        "bounded-job-completes",
        null_state_unaligned_scope(),
        "seed 001: 'Sinks must discard all records until this barrier reaches them' with 'assuming the pipeline "
        "preserves the relative order of barriers and watermarks'; seed 002",
        NULL_STATE_UNALIGNED,
    ),
)

CATALOG = CATALOG + FLIP600_CATALOG + FINDINGS + UNALIGNED_CATALOG + POINTWISE_CATALOG + FLIP147_CATALOG + NULL_STATE_CATALOG


def entry(name: str) -> Entry:
    for e in CATALOG:
        if e.name == name:
            return e
    raise KeyError(name)


def all_designs() -> dict[str, Design]:
    """Every named design: presets and catalog variants (for replay and the CLI)."""
    out = dict(PRESETS)
    for e in CATALOG:
        out[e.design.name] = e.design
    return out
