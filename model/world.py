"""The world: one immutable, hashable value holding everything the protocol knows (``World``),
and the records and channel items it is made of.  Why these types are tuples, and what each
channel item is, are on ``World``.
"""

from __future__ import annotations

from typing import NamedTuple

# task status
RUNNING = 0
FAILED = 1  # failed or cancelled by a failover, waiting to be restored
FINISHED = 2
STATUS_NAMES = ("RUNNING", "FAILED", "FINISHED")

# channel item kinds
REC = 0
RECOVERED_INPUT = 1  # fourth field of a recovered record: the consumer's input channel state
RECOVERED_OUTPUT = 2  # ... the producer's output channel state, re-sent
HEAD_READ = 3  # ... spanning records: its head is in the consumer's deserializer, its tail in the subpartition
PART_HEAD = 1  # third field of a channel-state entry: the head of a record (the deserializer's partial record)
PART_TAIL = 2  # ... the tail of a record whose head the consumer's deserializer held
BARRIER = 1
EOD = (2,)
EOD_NO_DRAIN = (2, 1)  # EndOfData(StopMode.NO_DRAIN): stop-with-savepoint without --drain
EOP = (3,)
CANCEL = 4
COMMITTABLE = 5  # Sink V2: (COMMITTABLE, checkpoint, payload), see ``model.sinkv2``
REPLAY = 6  # FLINK-4120: (REPLAY, checkpoint), the latest checkpoint's barrier re-inserted, see ``model.nullstate``

# stop modes of a stop-with-savepoint (``Pending.savepoint``, ``Coordinator.stop``)
DRAIN = 1  # --drain: SavepointType.terminate, EndOfData(StopMode.DRAIN)
NO_DRAIN = 2  # SavepointType.suspend, EndOfData(StopMode.NO_DRAIN)

# external transaction status (a pre-committed transaction is still OPEN to the outside)
OPEN = 0
COMMITTED = 1

Record = tuple[int, int]  # (split, offset)


class Snapshot(NamedTuple):
    """One subtask's state in a checkpoint."""

    finished: bool  # FLIP-147 FinishedOperatorSubtaskState: the subtask had finished
    position: int  # sources: the next offset of its split
    processed: tuple  # sorted records whose effect is in the state (the logical operator state)
    pending: tuple  # 2PC sinks: ((checkpoint, txn), ...) to recover-and-commit on restore
    split: int = -1  # readers of a source with a split enumerator: the split held (-1: none)
    inputs: tuple = ()  # unaligned: input channel state, per input index: the records, in order
    outputs: tuple = ()  # unaligned: output channel state, per output channel (``all_out`` order): the records
    owners: tuple = ()  # 2PC sinks restored at a new parallelism: the old subtasks (global ids) whose sink state this one got
    sink: tuple = ()  # Sink V2 operators: their operator state (``model.sinkv2`` says what each keeps)
    # ghost (for the properties only, no rule reads it): records whose effect FLIP-147 discarded
    # with the state of a finished subtask (``FinishedOperatorSubtaskState`` is empty), kept
    # with the subtask that restarted from it (``FailoverStrategy.finished_subtask_state``)
    discarded: tuple = ()
    # incremental checkpoints (``model.registry``): the shared files of earlier checkpoints this
    # snapshot sends as placeholders, sorted (checkpoint, task) (``shared``), and the backend's
    # local files it uploads again (``reuploaded``), which go into its own new file, (its
    # checkpoint, task), with the new one
    shared: tuple = ()
    reuploaded: tuple = ()
    # FLINK-4120 (``model.nullstate``): the null-state watermark a recomputable operator reported
    # with its acknowledgement, ((split, offset), ...): its state is recomputable from the
    # records of each split at or after that offset; set when the acknowledgement is received
    watermark: tuple = ()
    # ghost (for the properties only, no rule reads it): checkpoints during recovery (FLIP-547), the
    # records of ``inputs`` that were recovered channel state still unread when the checkpoint
    # started on this subtask (``SubtaskCheckpointCoordinator.start_unaligned``)
    recovered: tuple = ()


FINISHED_SNAPSHOT = Snapshot(True, 0, (), ())
EMPTY_SNAPSHOT = Snapshot(False, 0, (), ())

# coordinator RPC kinds (in a task's inbox)
NOTIFY_COMPLETE = 0
NOTIFY_ABORT = 1
NOTIFY_FALLBACK = 2  # FLIP-600: complete, but this task's state is the fallback checkpoint's
NOTIFY_TRIGGER = 3  # the trigger RPC itself, when the scope staggers triggers (``Scope.staggered_triggers``)
NOTIFY_NAMES = ("complete", "abort", "fallback", "trigger")


class TaskState(NamedTuple):
    status: int
    position: int  # sources: next offset to read
    ended: bool  # reached end of data (a source emitted EndOfData; others got it on every input)
    final_cp: int  # first checkpoint snapshotted after end of data (0: none yet)
    notified: int  # highest checkpoint this task knows is complete (``StreamTask.latestReportCheckpointId``)
    aborted: int  # highest checkpoint this task was told is aborted
    aligning: int  # checkpoint whose barriers are being aligned (0: none)
    blocked: int  # bitmask of inputs that delivered the aligning barrier
    last_barrier: int  # highest checkpoint this task snapshotted (or skipped)
    eod: int  # bitmask of inputs that delivered EndOfData
    eop: int  # bitmask of inputs that delivered EndOfPartition
    processed: tuple  # sorted records whose effect is in this task's state
    txn: int  # 2PC sinks: sequence number of the open transaction
    pending: tuple  # 2PC sinks: ((checkpoint, txn), ...) pre-committed, not yet committed
    rr: tuple  # round-robin counter per output edge
    inbox: tuple  # coordinator RPCs, FIFO: (kind, checkpoint, latest completed or fallback id, last subsumed)
    split: int = -1  # readers of a source with a split enumerator: the split being read (-1: none)
    uc: tuple = ()  # an unaligned checkpoint started, its barriers still arriving: (Snapshot, input state per input index)
    sending: tuple = ()  # aligned-timeout: (checkpoint, Snapshot) taken, acknowledged once its timeoutable barriers left the subpartitions
    sink: tuple = ()  # Sink V2 operators: their working state (``model.sinkv2`` says what each keeps)
    discarded: tuple = ()  # ghost: see ``Snapshot.discarded``
    finished_on_restore: bool = False  # deployed FINISHED_ON_RESTORE: runs ``FinishedOperatorChain`` until a checkpoint completes
    stopped: bool = False  # its end of data is a stop without --drain (StopMode.NO_DRAIN): no endInput/finish, data still processed
    # FLINK-4120 null-state recovery under way (``model.nullstate``), () when none: a source
    # (checkpoint, offset at which it re-inserts the checkpoint's barrier); any other task
    # (checkpoint, records, whether it discards records until the barrier arrived), the records
    # being a recomputable operator's state in the checkpoint (ghost) or the replayed records a
    # discarding task still takes (``NullStateRecovery.kept_in_replay``)
    replay: tuple = ()
    # ghost: (checkpoint, rebuilt, expected) when a recomputable operator's state, as the
    # re-inserted barrier passed it, differed from the one the checkpoint held
    recomputed: tuple = ()
    # FLIP-147: a completion of a checkpoint at or after ``final_cp`` reached the task
    # (``StreamTask.finalCheckpointCompleted``); apart from ``notified`` only because FLIP-600's
    # fallback notice may set one without the other (``fallback_notice_at_task``)
    final_done: bool = False
    # incremental checkpoints (``model.registry``): the backend's uploads, ((checkpoint,
    # ((local file, remote file), ...)), ...) (``uploadedSstFiles``), the last checkpoint it saw
    # confirmed (``lastCompletedCheckpointId``, 0: none), whose upload's remote files its next
    # snapshot sends as placeholders, and its local files (the database's files)
    uploaded: tuple = ()
    confirmed: int = 0
    dbfiles: tuple = ()
    # with more than one concurrent checkpoint: the uploads whose asynchronous part has not
    # ended yet, ((checkpoint, pairs), ...), which ``uploaded`` gets when the acknowledgement
    # arrives (``SharedStateRegistry.snapshot``)
    inflight: tuple = ()
    # ``Scope.late_finish_reports``: FINISHED, and the JobManager has not processed it yet
    # (``FinishReported``): its checkpoint plan still counts the task as running
    unreported: bool = False
    # ``Scope.rescaled_tasks_decline``: restored at a new parallelism with channel state, its input
    # a ``RescalingStreamTaskNetworkInput`` until its recovery ends
    rescaled: bool = False
    # ghost (for the properties only, no rule reads it): incremental checkpoints' registry refused
    # this subtask's acknowledgement: (its checkpoint, the checkpoint of the deleted file its
    # placeholder named) (``SharedStateRegistry.register_acknowledged``)
    refused: tuple = ()
    # FLIP-600's reading ``replayed-after-restart`` (``fallback_notice_at_task``): the fallback
    # notices a failed task had not processed, redelivered to its next attempt after the restore
    held: tuple = ()
    # local recovery (``model.local_state``): the task manager's copies of this subtask's
    # snapshots, ((checkpoint, Snapshot), ...)
    local: tuple = ()


class Pending(NamedTuple):
    id: int
    waiting: int  # bitmask of tasks that must acknowledge (the plan's tasksToWaitFor)
    finished: int  # bitmask of tasks that were FINISHED at trigger (FLIP-147 finished tasks)
    acked: tuple  # ((task, Snapshot), ...) sorted by task
    declined: int = 0  # FLIP-600: bitmask of tasks that declined (regional mode only)
    global_only: bool = False  # FLIP-600: this checkpoint may not complete regionally
    enum: tuple = ()  # the split enumerator's snapshot, taken at trigger (unassigned splits)
    savepoint: int = 0  # a stop-with-savepoint's synchronous savepoint: DRAIN (terminate) or NO_DRAIN (suspend); 0: a checkpoint
    # FLIP-600 (``regional_completion`` waiting for the coordinators): (fallback id, failed-region
    # mask, mask of the tasks acknowledged at the evaluation) while the coordinators' fallback runs;
    # (0, 0, 0) once its evaluation threw and it stays pending for good (``regional.STUCK``)
    completing: tuple = ()

    @property
    def falling_back(self) -> bool:
        """Judged regional and waiting for the operator coordinators' fallback (not stuck)."""
        return bool(self.completing) and self.completing[0] != 0

    @property
    def responded(self) -> int:
        """How many tasks of the plan acknowledged or (regionally) declined."""
        return len(self.acked) + bin(self.declined).count("1")

    @property
    def expected(self) -> int:
        """How many tasks of the plan must respond (``tasksToWaitFor``)."""
        return bin(self.waiting).count("1")


class Completed(NamedTuple):
    id: int
    snapshots: tuple  # Snapshot per task
    files: tuple  # sorted files the checkpoint refers to: (checkpoint, task)
    refs: tuple = ()  # FLIP-600 refCheckpointId per task (0: its own state); () when none
    unclaimed: bool = False  # a snapshot restored in NO_CLAIM mode: Flink never deletes its files
    enum: tuple = ()  # split enumerator state: the unassigned splits (sorted), jobs with a coordinator
    null_state: int = 0  # FLINK-4120: its null-state checkpoint (0: the job's start), see ``model.nullstate``


class Coordinator(NamedTuple):
    next_id: int
    pending: tuple  # the pending checkpoints (``Pending``), oldest first; () when none
    store: tuple  # Completed, oldest first (the CompletedCheckpointStore)
    failed_count: int  # CheckpointFailureManager's continuous failure counter
    completed_count: int
    consecutive_regional: int = 0  # FLIP-600 counter of regional completions since a global one
    force_global: bool = False  # FLIP-600 tier 1: the next checkpoint must be global
    unassigned: tuple = ()  # split enumerator: splits not assigned to any reader (sorted)
    assignments: tuple = ()  # SplitAssignmentTracker: ((epoch, reader, split), ...) not yet covered by a completed checkpoint
    restore_failure: str = ""  # why the last restore could not deploy the job (Flink's exception), or ""
    stop: tuple = ()  # a stop-with-savepoint under way or done: (savepoint id, DRAIN or NO_DRAIN, records its sources never read)
    savepoint: tuple = ()  # the stop's completed synchronous savepoint (a ``Completed``, never in the store), or ()
    # operator-event gateways (``model.gateway``): ((reader, checkpoint), ...) a reader's gateway is
    # closed for, and ((reader, checkpoint, split), ...) the AddSplitEvents held in them
    gateways: tuple = ()
    held: tuple = ()
    # ghost (for the properties only, no rule reads it): the first checkpoint a subtask declined
    # for a reason of its own that the failure manager counts, (subtask, checkpoint, the first
    # recovered record it had not read), or ():
    # checkpoints during recovery's "Missing RecoveryCheckpointBarrier" (``model.flip547``)
    declined_by_itself: tuple = ()


class Txn(NamedTuple):
    task: int  # the sink subtask's global id (``FlinkModel.gid``): its index at the job's own parallelism
    seq: int
    status: int
    records: tuple  # records written, in order


class Budget(NamedTuple):
    failures: int = 0
    declines: int = 0
    timeouts: int = 0
    lost: int = 0
    rescales: int = 0  # restarts at another parallelism so far: the world's parallelism is the job's when even
    stops: int = 0  # stop-with-savepoint requests so far
    jm_failovers: int = 0  # JobManager failovers so far


class World(NamedTuple):
    """Everything the protocol knows, as one immutable, hashable value.

    The hot types (this one and the records in it) are ``NamedTuple`` rather than dataclasses on
    purpose: the explorer hashes and compares millions of worlds, and a tuple's hash and equality
    run in C.  They are still immutable, typed records.  Equal worlds are equal tuples: every set
    is kept as a sorted tuple and "none" is the empty tuple, so worlds contain only ints, bools
    and tuples.  That makes them totally ordered (symmetry reduction picks the least
    permutation) and gives them the same hash in every process (no ``None`` or ``str`` inside,
    whose hashes vary per process in Python 3.11).

    Channel items are small tuples: ``(REC, split, offset)``, ``(BARRIER, checkpoint)``,
    ``EOD`` (EndOfData), ``EOD_NO_DRAIN`` (EndOfData of a stop-with-savepoint without
    ``--drain``), ``EOP`` (EndOfPartition), ``(CANCEL, checkpoint)``
    (``CancelCheckpointMarker``) and, between the operators of a Sink V2 sink,
    ``(COMMITTABLE, checkpoint, payload)`` (a ``CommittableSummary`` with its committables).
    With FLINK-4120's null-state recovery (``model.nullstate``) a restored source re-inserts the
    latest checkpoint's barrier at its original position as ``(REPLAY, checkpoint)``.
    With unaligned checkpoints two more appear: a priority
    (unaligned) barrier ``(BARRIER, checkpoint, 1)``, and a recovered record
    ``(REC, split, offset, 1)``: input channel state put back into the channel at a restore, which
    the consumer reads before anything new (``RecoveredInputChannel``), and a re-sent record
    ``(REC, split, offset, 2)``: the producer's output channel state put back into its subpartition
    at a restore, ahead of its new records.  The marker tells the consumer when its gate has
    delivered all recovered state (``EndOfChannelStateEvent``, FLINK-19856); a snapshot strips it.
    With a scope's ``spanning_records`` a record can straddle two buffers: ``(REC, split, offset,
    HEAD_READ)`` at the head of a channel is a record whose head the consumer's deserializer holds
    while its tail is still in the producer's subpartition.  Channel state then holds parts:
    ``(split, offset, PART_HEAD)`` (the deserializer's unconsumed bytes, the first input-state entry
    of that channel) and ``(split, offset, PART_TAIL)`` (the producer's output state), which a restore
    joins when both reach one virtual channel (``StateAssignmentOperation.join_parts``)."""

    tasks: tuple  # TaskState per subtask
    channels: tuple  # tuple of items per channel
    coord: Coordinator
    acks: tuple  # acknowledgements in flight, a set sorted by (task, checkpoint): ((task, checkpoint, Snapshot), ...)
    files: tuple  # sorted checkpoint files that exist: (checkpoint, task)
    txns: tuple  # the external system's transactions (aborted ones are gone), sorted
    used: Budget  # faults injected so far
    # the SharedStateRegistry's lastUsedCheckpointID of files a later checkpoint reuses:
    # ((checkpoint, task), lastUsed) for FLIP-306 segments, or incremental checkpoints' shared files
    reused: tuple = ()


def _fast_replace(cls) -> None:
    """Give a NamedTuple a ``_replace`` that copies a list and builds the tuple directly: the
    same result as ``NamedTuple._replace`` at about 40 % of its cost (it runs several times in
    every step of every search)."""
    index = {name: i for i, name in enumerate(cls._fields)}
    new = tuple.__new__

    def _replace(self, **changes):
        values = list(self)
        try:
            for k, v in changes.items():
                values[index[k]] = v
        except KeyError:
            raise ValueError(f"Got unexpected field names: {sorted(set(changes) - set(index))!r}") from None
        return new(cls, values)

    cls._replace = _replace


for _cls in (Snapshot, TaskState, Pending, Completed, Coordinator, Txn, Budget, World):
    _fast_replace(_cls)


def is_recovered(item: tuple) -> bool:
    """Is channel item ``item`` recovered channel state (input, or output re-sent)?"""
    return len(item) == 4 and item[3] != HEAD_READ


def is_head_read(item: tuple) -> bool:
    """Is channel item ``item`` a record whose head the consumer's deserializer already holds
    (spanning records)?"""
    return len(item) == 4 and item[3] == HEAD_READ


def whole_records(entries: tuple) -> tuple:
    """Channel-state entries as the records they stand for: a head counts as its record, a
    tail as nothing (its head, in the consumer's input state, already counts it)."""
    if all(len(r) == 2 for r in entries):
        return entries
    return tuple(r[:2] for r in entries if len(r) == 2 or r[2] == PART_HEAD)


def add_sorted(items: tuple, *new) -> tuple:
    """A sorted tuple with ``new`` added (set semantics)."""
    return tuple(sorted(set(items).union(new)))


def remove_sorted(items: tuple, *gone) -> tuple:
    g = set(gone)
    return tuple(x for x in items if x not in g)
