"""Flink's checkpointing protocol as a pure ``enabled(world)`` / ``step(world, action)``.

Every rule cites the Flink mechanism it models (reference-flink-mechanics.md, "ref §n") or the
seed passage it comes from.  Where the model abstracts, the docstring says so.

Abstractions (each keeps the behaviour the properties can observe):

- A trigger reaches every task of the plan at once (``CheckpointCoordinator.triggerTasks`` is
  one RPC per task; the snapshots of different sources commute with each other's emissions,
  so taking them together loses no observable ordering).  Barriers are then carried by the
  channels, FIFO behind the data.
- The checkpoint id, the trigger plan and the failure counter are exact (ref §5, §6); timers
  are not modelled: a timeout is a fault action that may fire while a checkpoint is pending.
- A decline models the failure of a snapshot's asynchronous part (``CHECKPOINT_ASYNC_EXCEPTION``
  reported as a decline): the barrier has already gone downstream.
- The logical state of a stateful subtask is the set of records whose effect it holds
  (``processed``): the most precise abstraction of any operator state that depends on every
  record (a count, a sum, a window).  Keyed state is that set, partitioned by key group.
- A record's key is the Java int ``1000 * split + offset``; keyed routing uses Flink's exact
  ``KeyGroupStreamPartitioner`` arithmetic.  Rebalance and pointwise channels round-robin
  from channel 0 (``RescalePartitioner`` starts at 0; ``RebalancePartitioner`` starts at a
  random channel in Flink, fixed to 0 here).
- A 2PC sink follows ``TwoPhaseCommitSinkFunction``: records go into the open transaction,
  the snapshot pre-commits it and opens the next, ``notifyCheckpointComplete(c)`` commits every
  pending transaction of a checkpoint <= c, a restore recovers-and-commits the pending ones in
  the state and aborts every other open transaction of that subtask.  An empty transaction is
  not recorded (committing it changes nothing outside).
- Only ``max-concurrent-checkpoints = 1`` (Flink's default) is modelled.
- Acknowledgements reach the coordinator in the order the snapshots were taken (one FIFO
  queue).  The coordinator acts only on the last ack of a checkpoint, so the order among acks
  is not observable; their interleaving with every other event is kept.
- FLIP-27 sources (a vertex with ``coordinator``): the split enumerator hands its lowest
  unassigned split to a reader without one, atomically (the operator event valve holds events
  sent after the coordinator's snapshot until the tasks are triggered, and the trigger is
  atomic here).  Its snapshot is the set of unassigned splits, taken at trigger; the
  ``SplitAssignmentTracker`` keeps assignments by checkpoint epoch.
- FLIP-306 file merging: one physical file per (checkpoint, task manager), holding that task
  manager's subtasks' segments; a physical file exists while one of its segments does.  The
  segments of an aborted checkpoint or a lost ack are discarded at once (Flink does it on the
  abort notification).  ``lastSubsumedCheckpointId`` is the newest checkpoint outside the last
  ``num_retained``: the notice carries an id, not the store's refs.
- A NO_CLAIM start is snapshot 1 holding the initial state; checkpoint ids continue at 2.  Every
  snapshot is a full one, so NO_CLAIM's "first checkpoint is full" rule changes nothing here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from .actions import (
    Ack,
    Action,
    AssignSplit,
    Decline,
    DeleteSnapshot,
    Deliver,
    EmitRecord,
    EndOfInput,
    FailTask,
    LoseNotification,
    Notify,
    Restore,
    Timeout,
    TriggerCheckpoint,
)
from .design import Design
from .redistribution import assign_to_key_group, operator_index_for_key_group
from .scope import Scope
from .topology import Expanded, Pattern, Role
from .world import (
    BARRIER,
    COMMITTED,
    EMPTY_SNAPSHOT,
    EOD,
    EOP,
    FAILED,
    FINISHED,
    FINISHED_SNAPSHOT,
    NOTIFY_ABORT,
    NOTIFY_COMPLETE,
    NOTIFY_FALLBACK,
    NOTIFY_NAMES,
    OPEN,
    REC,
    RUNNING,
    Budget,
    Completed,
    Coordinator,
    Pending,
    Snapshot,
    TaskState,
    Txn,
    World,
    add_sorted,
    remove_sorted,
)


def record_key(split: int, offset: int) -> int:
    """The key of record (split, offset): a Java int, so Flink's hash routing applies."""
    return 1000 * split + offset


@lru_cache(maxsize=65536)
def record_key_group(split: int, offset: int, max_p: int) -> int:
    """The key group of record (split, offset) (``KeyGroupRangeAssignment.assignToKeyGroup``)."""
    return assign_to_key_group(record_key(split, offset), max_p)


def ref_closure(store: tuple, ids) -> set[int]:
    """``ids`` and every checkpoint of ``store`` they reach through refCheckpointIds
    (``DefaultCompletedCheckpointStore.computeReferencedCheckpointIds``, reference 8.1)."""
    by_id = {c.id: c for c in store}
    todo, closure = list(ids), set(ids)
    while todo:
        c = by_id.get(todo.pop())
        for r in c.refs if c else ():
            if r and r not in closure and r in by_id:
                closure.add(r)
                todo.append(r)
    return closure


class _Tx:
    """A mutable working copy of a world, used inside one ``step`` and then frozen."""

    __slots__ = ("tasks", "channels", "coord", "acks", "files", "txns", "used", "reused")

    def __init__(self, w: World):
        self.tasks = list(w.tasks)
        self.channels = list(w.channels)
        self.coord = w.coord
        self.acks = w.acks
        self.files = w.files
        self.txns = w.txns
        self.used = w.used
        self.reused = w.reused

    def freeze(self) -> World:
        return World(
            tuple(self.tasks), tuple(self.channels), self.coord, self.acks, self.files, self.txns, self.used,
            self.reused,
        )

    def push(self, cids, item) -> None:
        for c in cids:
            self.channels[c] = self.channels[c] + (item,)

    def set_txn(self, txn: Txn | None, remove: tuple[int, int] | None = None) -> None:
        by_key = {(t.task, t.seq): t for t in self.txns}
        if remove is not None:
            by_key.pop(remove, None)
        if txn is not None:
            by_key[(txn.task, txn.seq)] = txn
        self.txns = tuple(by_key[k] for k in sorted(by_key))


@dataclass(frozen=True, eq=False)
class FlinkModel:
    """The protocol for one (design, scope): ``initial()``, ``enabled(w)``, ``step(w, a)``."""

    design: Design
    scope: Scope

    # -- static structure -------------------------------------------------------------------
    @cached_property
    def topo(self) -> Expanded:
        return self.scope.job.expand()

    @cached_property
    def _all_inputs_mask(self) -> tuple[int, ...]:
        return tuple((1 << len(ins)) - 1 for ins in self.topo.inputs)

    @cached_property
    def _role(self) -> tuple[Role, ...]:
        return tuple(self.topo.vertex(t).role for t in range(self.topo.n_tasks))

    @cached_property
    def _two_pc(self) -> tuple[bool, ...]:
        return tuple(self.topo.vertex(t).two_phase_commit for t in range(self.topo.n_tasks))

    @cached_property
    def _stateful(self) -> tuple[bool, ...]:
        """Subtasks whose state holds record effects: sinks and operators with state."""
        topo = self.topo
        return tuple(
            topo.vertex(t).role is Role.SINK or (topo.vertex(t).role is Role.OPERATOR and bool(topo.vertex(t).state))
            for t in range(topo.n_tasks)
        )

    @cached_property
    def _all_out(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(c for cs in outs for c in cs) for outs in self.topo.outputs)

    @cached_property
    def _trigger_rule(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """Per task: (ALL_TO_ALL upstream subtasks, POINTWISE-connected producer subtasks).

        ``DefaultCheckpointPlanCalculator`` (ref §5): a running task is triggered iff every
        ALL_TO_ALL upstream vertex is fully finished and no pointwise-connected producer
        subtask is running.  Sources always qualify.
        """
        topo = self.topo
        out = []
        for t in range(topo.n_tasks):
            a2a: set[int] = set()
            pw: set[int] = set()
            for c in topo.inputs[t]:
                ch = topo.channels[c]
                e = topo.job.edges[ch.edge]
                if e.pattern is Pattern.ALL_TO_ALL:
                    a2a.update(topo.tasks_of[topo.vertex_of[ch.producer]])
                else:
                    pw.add(ch.producer)
            out.append((tuple(sorted(a2a)), tuple(sorted(pw))))
        return tuple(out)

    @cached_property
    def _first_id(self) -> int:
        """The first checkpoint id this run triggers: 2 after a NO_CLAIM restore of snapshot 1
        (the id counter restarts at the snapshot's id + 1, ref 8.3)."""
        return 2 if self.design.no_claim_restore else 1

    @cached_property
    def _readers(self) -> dict[int, tuple[int, ...]]:
        """Source subtasks whose vertex has a split enumerator -> the splits of that vertex.

        FLIP-27 sources: the enumerator (the vertex's operator coordinator) owns the splits and
        assigns them to readers on request; a vertex of parallelism P has P splits, numbered as
        the fixed splits of a plain source would be.  Other sources read split ``split_of[t]``."""
        topo = self.topo
        out = {}
        for v, tasks in enumerate(topo.tasks_of):
            if topo.job.vertices[v].role is Role.SOURCE and topo.job.vertices[v].coordinator:
                splits = tuple(sorted(topo.split_of[t] for t in tasks))
                for t in tasks:
                    out[t] = splits
        return out

    @cached_property
    def all_splits(self) -> tuple[int, ...]:
        """The splits read by enumerator-driven readers (the enumerator's initial state)."""
        return tuple(sorted({s for ss in self._readers.values() for s in ss}))

    def restore_positions(self, c: Completed) -> dict[int, int]:
        """Where a restore of checkpoint ``c`` resumes each split (``_restore`` and
        ``_reset_enumerator`` below).  A fixed split: its source's position (the end when the
        source finished).  An enumerator split: the position in the reader snapshot that holds
        it; the start when the enumerator's state has it unassigned; otherwise it was read to
        the end (a reader took it, finished it and moved on, or finished)."""
        topo = self.topo
        n_rec = self.scope.records_per_split
        readers = self._readers
        pos = {}
        for t in topo.sources:
            if t in readers:
                continue
            s = c.snapshots[t]
            pos[topo.split_of[t]] = n_rec if s.finished else s.position
        for sp in self.all_splits:
            held = [s.position for t, s in enumerate(c.snapshots) if t in readers and s.split == sp]
            pos[sp] = held[0] if held else 0 if sp in c.enum else n_rec
        return pos

    @cached_property
    def _task_manager(self) -> tuple[int, ...]:
        """Per subtask, its task manager: slot i hosts subtask i of every vertex (slot sharing)."""
        k = self.design.slots_per_task_manager
        return tuple(self.topo.index_of[t] // k for t in range(self.topo.n_tasks))

    def is_merged(self, cp: int) -> bool:
        """Does checkpoint ``cp`` write FLIP-306 merged segments?  (Not the NO_CLAIM snapshot:
        files restored from outside the managed directory are never merged or deleted.)"""
        return self.design.file_merging and cp >= self._first_id

    def physical_file(self, f: tuple[int, int]) -> tuple[int, int]:
        """The physical file holding segment ``f`` = (checkpoint, task): (checkpoint, task manager)."""
        return (f[0], self._task_manager[f[1]])

    def file_exists(self, w: World, f: tuple[int, int]) -> bool:
        """A plain file exists while it is in ``w.files``; a merged segment is readable while its
        physical file exists, that is while any segment of that file is not yet discarded."""
        if f in w.files:
            return True
        if not self.is_merged(f[0]):
            return False
        tm = self._task_manager[f[1]]
        return any(c == f[0] and self._task_manager[t] == tm for c, t in w.files)

    @cached_property
    def _failover_sets(self) -> tuple[frozenset[int], ...]:
        """Per task: the subtasks a failure of it cancels (ref §6 failover).

        Region failover restarts the failed task's pipelined region.  The model restarts the
        whole job when the design asks for it, and whenever the job has a BLOCKING or HYBRID
        edge (re-consuming a finished blocking result across regions is not modelled).
        """
        topo = self.topo
        everyone = frozenset(range(topo.n_tasks))
        if self.design.failover_strategy == "full" or not topo.all_pipelined:
            return tuple(everyone for _ in range(topo.n_tasks))
        return tuple(topo.regions[topo.region_of[t]] for t in range(topo.n_tasks))

    def _route(self, t: int, rec: tuple, rr: tuple) -> tuple[list[int], tuple]:
        """Channels that record ``rec`` goes to from task ``t``, and the new round-robin state."""
        topo = self.topo
        job = topo.job
        targets: list[int] = []
        new_rr = list(rr)
        for k, ek in enumerate(topo.out_edges[topo.vertex_of[t]]):
            cids = topo.outputs[t][k]
            e = job.edges[ek]
            if e.pattern is Pattern.ALL_TO_ALL and e.partitioner == "hash":
                dst = job.vertex(e.target)
                idx = operator_index_for_key_group(dst.max_p, dst.parallelism, record_key_group(rec[1], rec[2], dst.max_p))
                targets.append(cids[idx])
            else:
                targets.append(cids[rr[k] % len(cids)])
                new_rr[k] = (rr[k] + 1) % len(cids)
        return targets, tuple(new_rr)

    # -- initial state ----------------------------------------------------------------------
    def initial(self) -> World:
        """Every task fresh; with ``no_claim_restore`` the job starts from snapshot 1 (the
        initial state, retained in NO_CLAIM mode: unclaimed, its files never deleted by Flink)."""
        topo = self.topo
        store: tuple = ()
        files: tuple = ()
        start = 0
        if self.design.no_claim_restore:
            start = 1
            files = tuple((1, t) for t in range(topo.n_tasks))
            snaps = (EMPTY_SNAPSHOT,) * topo.n_tasks
            store = (Completed(1, snaps, files, (), True, self.all_splits),)
        tasks = tuple(self._fresh_task(t, EMPTY_SNAPSHOT, start, 0) for t in range(topo.n_tasks))
        return World(
            tasks=tasks,
            channels=tuple(() for _ in topo.channels),
            coord=Coordinator(
                next_id=start + 1, pending=(), store=store, failed_count=0, completed_count=0,
                unassigned=self.all_splits,
            ),
            acks=(),
            files=files,
            txns=(),
            used=Budget(),
        )

    def _fresh_task(self, t: int, snap: Snapshot, restored_from: int, txn: int) -> TaskState:
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
        )

    # -- enabled ----------------------------------------------------------------------------
    def enabled(self, w: World) -> list[Action]:
        """Every action enabled in ``w``, in a fixed order: progress first, then faults."""
        topo = self.topo
        scope = self.scope
        out: list[Action] = []
        tasks = w.tasks
        n_rec = scope.records_per_split
        readers = self._readers
        for t in topo.sources:
            ts = tasks[t]
            if ts.status != RUNNING or ts.ended:
                continue
            if t in readers:
                if ts.split >= 0 and ts.position < n_rec:
                    out.append(EmitRecord(t))
                    continue
                free = [s for s in w.coord.unassigned if s in readers[t]]
                if free:
                    out.append(AssignSplit(t, free[0]))
                elif scope.bounded:
                    out.append(EndOfInput(t))
                continue
            if ts.position < n_rec:
                out.append(EmitRecord(t))
            elif scope.bounded:
                out.append(EndOfInput(t))
        blocks = self.design.alignment_blocks_channels
        for ch in topo.channels:
            if not w.channels[ch.id]:
                continue
            ts = tasks[ch.consumer]
            if ts.status != RUNNING:
                continue
            if blocks and ts.blocked >> ch.input_index & 1:
                continue
            out.append(Deliver(ch.id))
        if self._can_trigger(w):
            out.append(TriggerCheckpoint(w.coord.next_id))
        if w.acks:
            t, cp, _ = w.acks[0]
            out.append(Ack(t, cp))
        for t, ts in enumerate(tasks):
            if ts.inbox:
                kind, cp = ts.inbox[0][:2]
                out.append(Notify(t, cp, NOTIFY_NAMES[kind]))
        any_failed = any(ts.status == FAILED for ts in tasks)
        if any_failed:
            store = w.coord.store
            out.append(Restore(store[-1].id if store else 0))
        # faults
        used = w.used
        pending = w.coord.pending
        if pending and used.declines < scope.max_declines:
            for t, cp, _ in w.acks:
                if cp == pending.id:
                    out.append(Decline(t, cp))
        if pending and used.timeouts < scope.max_timeouts:
            out.append(Timeout(pending.id))
        if used.failures < scope.max_failures and not any_failed:
            for t, ts in enumerate(tasks):
                if ts.status == RUNNING:
                    out.append(FailTask(t))
        if used.lost < scope.max_lost_notifications:
            for t, ts in enumerate(tasks):
                if ts.inbox:
                    kind, cp = ts.inbox[0][:2]
                    out.append(LoseNotification(t, cp, NOTIFY_NAMES[kind]))
        if self.design.no_claim_restore and self._may_delete_snapshot(w):
            out.append(DeleteSnapshot(1))
        return out

    def _may_delete_snapshot(self, w: World) -> bool:
        """The user may delete the NO_CLAIM snapshot (its files still exist): after the first
        completed checkpoint (Flink's documentation: "once a checkpoint succeeds you can
        manually delete the original snapshot"), or only once the latest completed checkpoint
        no longer refers to it through refCheckpointIds (seed 000: "NO_CLAIM restore mode ->
        Warn (require global checkpoint before snapshot deletion)")."""
        if not any(f[0] == 1 for f in w.files):
            return False
        coord = w.coord
        if not coord.completed_count:
            return False
        if self.design.no_claim_delete_after == "first-checkpoint":
            return True
        return 1 not in ref_closure(coord.store, (coord.store[-1].id,))

    def _can_trigger(self, w: World) -> bool:
        """``CheckpointCoordinator`` trigger preconditions (ref §5, §6) plus the scope budget.

        The budget (``max_checkpoints``) stops applying once every source reached end of
        input and some running task still needs its final checkpoint: FLIP-147's final
        checkpoint must always be possible, or a correct bounded job could not terminate in
        the scope.  A task whose inbox already holds the completion it waits for does not
        count, so every such extra trigger follows a fault (a lost notification, an abort, a
        failure) and their number is bounded by the fault budget.
        """
        if w.coord.pending:  # max-concurrent-checkpoints = 1
            return False
        tasks = w.tasks
        running = False
        for ts in tasks:
            if ts.status == FAILED:  # NOT_ALL_REQUIRED_TASKS_RUNNING
                return False
            if ts.status == FINISHED and not self.design.checkpoints_after_tasks_finish:
                return False
            if ts.status == RUNNING:
                running = True
        if not running:
            return False
        if w.coord.next_id - self._first_id < self.scope.max_checkpoints:
            return True
        for t in self.topo.sources:
            ts = tasks[t]
            if ts.status == RUNNING and not ts.ended:
                return False
        return any(self._needs_final_checkpoint(ts) for ts in tasks)

    @staticmethod
    def _needs_final_checkpoint(ts: TaskState) -> bool:
        """A running task that reached end of input and has no completed (or announced)
        checkpoint taken after it.  A task whose input has not ended yet does not count: it
        must first read its input (an RPC-triggered snapshot taken before it read a pending
        EndOfData is not its final checkpoint, and a scheduler that kept triggering instead
        of delivering would never end)."""
        if ts.status != RUNNING or not ts.ended:
            return False
        if not ts.final_cp:
            return True
        if ts.notified >= ts.final_cp:
            return False
        return not any(m[0] == NOTIFY_COMPLETE and m[1] >= ts.final_cp for m in ts.inbox)

    # -- step -------------------------------------------------------------------------------
    def step(self, w: World, a: Action) -> World:
        """The world after ``a``.  ``a`` must be enabled in ``w`` (engines check this)."""
        tx = _Tx(w)
        kind = type(a)
        if kind is EmitRecord:
            self._emit(tx, a.task)
        elif kind is EndOfInput:
            self._end_of_input(tx, a.task)
        elif kind is Deliver:
            self._deliver(tx, a.channel)
        elif kind is TriggerCheckpoint:
            self._trigger(tx)
        elif kind is Ack:
            self._ack(tx, a.task, a.checkpoint)
        elif kind is Notify:
            self._notify(tx, a.task)
        elif kind is Restore:
            self._restore(tx)
        elif kind is Decline:
            tx.used = tx.used._replace(declines=tx.used.declines + 1)
            self._drop_ack(tx, a.task, a.checkpoint)
            self._decline(tx, a.task)
        elif kind is Timeout:
            tx.used = tx.used._replace(timeouts=tx.used.timeouts + 1)
            self._abort(tx, counted=True)
        elif kind is FailTask:
            tx.used = tx.used._replace(failures=tx.used.failures + 1)
            self._fail(tx, self._failover_sets[a.task])
        elif kind is AssignSplit:
            self._assign_split(tx, a.task, a.split)
        elif kind is DeleteSnapshot:
            tx.files = tuple(f for f in tx.files if f[0] != 1)
        elif kind is LoseNotification:
            tx.used = tx.used._replace(lost=tx.used.lost + 1)
            ts = tx.tasks[a.task]
            tx.tasks[a.task] = ts._replace(inbox=ts.inbox[1:])
        else:  # pragma: no cover - engines only pass actions from enabled()
            raise TypeError(f"not an action of this model: {a!r}")
        return tx.freeze()

    # sources ------------------------------------------------------------------------------
    def _emit(self, tx: _Tx, t: int) -> None:
        ts = tx.tasks[t]
        rec = (REC, ts.split if t in self._readers else self.topo.split_of[t], ts.position)
        targets, rr = self._route(t, rec, ts.rr)
        tx.push(targets, rec)
        tx.tasks[t] = ts._replace(position=ts.position + 1, rr=rr)

    def _assign_split(self, tx: _Tx, t: int, split: int) -> None:
        """``SourceCoordinator`` assigns ``split`` to reader ``t`` (``AddSplitEvent``), and the
        ``SplitAssignmentTracker`` records it under the epoch of the next checkpoint: the
        assignment is part of checkpoint c iff its epoch <= c.  The event is atomic with the
        assignment: Flink's coordinator holds events sent after its snapshot until the tasks
        are triggered (the operator event valve), and the trigger here is atomic too."""
        coord = tx.coord
        tx.coord = coord._replace(
            unassigned=remove_sorted(coord.unassigned, split),
            assignments=add_sorted(coord.assignments, (coord.next_id, t, split)),
        )
        tx.tasks[t] = tx.tasks[t]._replace(split=split, position=0)

    def _end_of_input(self, tx: _Tx, t: int) -> None:
        """A bounded source ends: it emits EndOfData and waits for its final checkpoint.

        FLIP-147 (seed 004): "Emit EndOfData[finished = true]" then wait until a checkpoint
        triggered after finish() completes.  Without FLIP-147 the task finishes at once.
        """
        tx.push(self._all_out[t], EOD)
        tx.tasks[t] = tx.tasks[t]._replace(ended=True)
        self._maybe_finish(tx, t)

    # delivery -----------------------------------------------------------------------------
    def _deliver(self, tx: _Tx, c: int) -> None:
        ch = self.topo.channels[c]
        item = tx.channels[c][0]
        tx.channels[c] = tx.channels[c][1:]
        t = ch.consumer
        bit = 1 << ch.input_index
        ts = tx.tasks[t]
        if item[0] == REC:
            self._process(tx, t, item)
        elif item[0] == BARRIER:
            self._on_barrier(tx, t, item[1], bit)
        elif item[0] == EOD[0]:
            eod = ts.eod | bit
            ts = ts._replace(eod=eod)
            tx.tasks[t] = ts
            if eod == self._all_inputs_mask[t] and not ts.ended:
                # all inputs ended: finish() the operators, forward EndOfData
                tx.tasks[t] = ts._replace(ended=True)
                tx.push(self._all_out[t], EOD)
        else:  # EndOfPartition
            tx.tasks[t] = ts._replace(eop=ts.eop | bit)
            self._maybe_complete_alignment(tx, t)
            self._maybe_finish(tx, t)

    def _process(self, tx: _Tx, t: int, rec: tuple) -> None:
        ts = tx.tasks[t]
        r = (rec[1], rec[2])
        role = self._role[t]
        if self._stateful[t]:
            ts = ts._replace(processed=add_sorted(ts.processed, r))
        if role is Role.SINK:
            key = (t, ts.txn)
            old = next((x for x in tx.txns if (x.task, x.seq) == key), None)
            status = OPEN if self._two_pc[t] else COMMITTED
            records = (old.records if old else ()) + (r,)
            tx.set_txn(Txn(t, ts.txn, status, records))
        else:
            targets, rr = self._route(t, rec, ts.rr)
            tx.push(targets, rec)
            ts = ts._replace(rr=rr)
        tx.tasks[t] = ts

    def _on_barrier(self, tx: _Tx, t: int, cp: int, bit: int) -> None:
        """Aligned barrier handling (``SingleCheckpointBarrierHandler``).

        A barrier older than the one being aligned (or already handled) is dropped; a newer
        one cancels the current alignment and starts its own.  The channel that delivered the
        barrier is blocked until every live input (one that has not delivered EndOfPartition)
        has delivered it; then the task snapshots and forwards the barrier.
        """
        ts = tx.tasks[t]
        if cp <= ts.last_barrier or (ts.aligning and cp < ts.aligning):
            return
        if ts.aligning == cp:
            ts = ts._replace(blocked=ts.blocked | bit)
        else:
            ts = ts._replace(aligning=cp, blocked=bit)
        tx.tasks[t] = ts
        self._maybe_complete_alignment(tx, t)

    def _maybe_complete_alignment(self, tx: _Tx, t: int) -> None:
        ts = tx.tasks[t]
        if ts.aligning and (ts.blocked | ts.eop) == self._all_inputs_mask[t]:
            self._snapshot(tx, t, ts.aligning)

    def _snapshot(self, tx: _Tx, t: int, cp: int) -> None:
        """The synchronous snapshot of task ``t`` for checkpoint ``cp``, then its barrier.

        A checkpoint the task was already told is aborted is skipped
        (``SubtaskCheckpointCoordinatorImpl.checkpointState`` checks the aborted ids); the
        barrier still goes downstream (Flink sends a CancelCheckpointMarker, which the
        downstream handles the same way).  A 2PC sink pre-commits its open transaction and
        opens the next (``TwoPhaseCommitSinkFunction.snapshotState``).
        """
        ts = tx.tasks[t]
        ts = ts._replace(aligning=0, blocked=0, last_barrier=cp)
        if cp > ts.aborted:
            pending = ts.pending
            txn = ts.txn
            if self._two_pc[t]:
                has_records = any(x.task == t and x.seq == txn for x in tx.txns)
                if has_records:
                    if self.design.sink_commit == "pre-commit":
                        self._commit(tx, t, txn)
                    else:
                        pending = pending + ((cp, txn),)
                txn += 1
            final_cp = ts.final_cp or (cp if ts.ended else 0)
            snap = Snapshot(False, ts.position, ts.processed, pending, ts.split)
            ts = ts._replace(pending=pending, txn=txn, final_cp=final_cp)
            tx.acks = tx.acks + ((t, cp, snap),)
            tx.files = add_sorted(tx.files, (cp, t))
        tx.tasks[t] = ts
        tx.push(self._all_out[t], (BARRIER, cp))

    def _maybe_finish(self, tx: _Tx, t: int) -> None:
        """A task finishes once it ended, every input delivered EndOfPartition and (FLIP-147)
        a checkpoint taken after its end of data completed: then it emits EndOfPartition.

        Seed 004: "shutdown the task immediately after seeing first notifyCheckpointComplete(X),
        where X is any triggered checkpoint AFTER finish()".  Without FLIP-147 the task
        finishes as soon as its input ends, and a 2PC sink aborts its open transaction on
        close() (the data loss FLIP-147 was written to fix).
        """
        ts = tx.tasks[t]
        if ts.status != RUNNING or not ts.ended or ts.eop != self._all_inputs_mask[t]:
            return
        if self.design.checkpoints_after_tasks_finish:
            if not (ts.final_cp and ts.notified >= ts.final_cp):
                return
        elif self._two_pc[t]:
            self._abort_txn(tx, t, ts.txn)
        tx.tasks[t] = ts._replace(status=FINISHED, inbox=())
        tx.push(self._all_out[t], EOP)

    # coordinator --------------------------------------------------------------------------
    def _trigger(self, tx: _Tx) -> None:
        coord = tx.coord
        cp = coord.next_id
        waiting = finished = 0
        to_trigger = []
        tasks = tx.tasks
        for t, ts in enumerate(tasks):
            if ts.status == FINISHED:
                finished |= 1 << t
                continue
            waiting |= 1 << t
            a2a, pw = self._trigger_rule[t]
            if all(tasks[u].status == FINISHED for u in a2a) and not any(tasks[u].status == RUNNING for u in pw):
                to_trigger.append(t)
        global_only = self.design.regional_checkpoints and (
            coord.force_global
            or self.design.global_checkpoint_at_end_of_input
            and all(tasks[t].ended or tasks[t].status == FINISHED for t in self.topo.sources)
        )
        # the operator coordinators snapshot first (their checkpoint futures), then the tasks
        pending = Pending(cp, waiting, finished, (), 0, global_only, coord.unassigned)
        tx.coord = coord._replace(next_id=cp + 1, pending=pending)
        for t in to_trigger:
            self._snapshot(tx, t, cp)
        self._retain(tx)

    def _ack(self, tx: _Tx, t: int, cp: int) -> None:
        """``receiveAcknowledgeMessage``: an ack for an unknown or aborted checkpoint
        discards its state (ref §6); the last ack completes the checkpoint."""
        snap = self._drop_ack(tx, t, cp, keep_file=True)
        pending = tx.coord.pending
        if not pending or pending.id != cp or not pending.waiting >> t & 1:
            tx.files = remove_sorted(tx.files, (cp, t))
            return
        acked = tuple(sorted(pending.acked + ((t, snap),)))
        pending = pending._replace(acked=acked)
        tx.coord = tx.coord._replace(pending=pending)
        self._maybe_finalize(tx)

    def _maybe_finalize(self, tx: _Tx) -> None:
        """Every task of the plan acked (or, regionally, acked or declined): complete."""
        pending = tx.coord.pending
        if len(pending.acked) + bin(pending.declined).count("1") != bin(pending.waiting).count("1"):
            return
        if pending.declined:
            self._try_regional(tx, pending)
        else:
            self._complete(tx, pending)

    def _decline(self, tx: _Tx, t: int) -> None:
        """``receiveDeclineMessage``: abort, unless regional checkpoints are on and this
        checkpoint may complete regionally (FLIP-600: it waits until every task acked or
        declined).  A forced global checkpoint that fails aborts and resets the counter
        (tier 2, seed 000: "the checkpoint is aborted normally ... The counter is then reset")."""
        pending = tx.coord.pending
        if not self.design.regional_checkpoints or pending.global_only:
            if self.design.regional_checkpoints and tx.coord.force_global and self.design.forced_global_failure_resets_counter:
                tx.coord = tx.coord._replace(consecutive_regional=0, force_global=False)
            self._abort(tx, counted=True)
            return
        tx.coord = tx.coord._replace(pending=pending._replace(declined=pending.declined | 1 << t))
        self._maybe_finalize(tx)

    def _try_regional(self, tx: _Tx, pending: Pending) -> None:
        """``tryCompleteRegionalCheckpoint`` (reference 8.1, UNMERGED-PR FLIP-600).

        Aborts (counted) with one region or fewer, when too many regions failed, or without a
        completed checkpoint to fall back to.  Otherwise every subtask of a failed region takes
        its state from the latest completed checkpoint, tagged ``refCheckpointId`` = that id
        (its files are the fallback's), the counter grows and reaching the maximum forces the
        next checkpoint global (tier 1).  Healthy tasks are notified complete; failed-region
        tasks get the completion with the fallback id.
        """
        regions = self.design.regions(self.topo)
        failed = [r for r in regions if any(pending.declined >> t & 1 for t in r)]
        store = tx.coord.store
        if len(regions) <= 1 or 100 * len(failed) > self.design.max_failed_region_percent * len(regions) or not store:
            self._abort(tx, counted=True)
            return
        in_failed = set().union(*failed)
        failed_readers = in_failed.intersection(self._readers)
        if failed_readers and self.design.coordinator_region_fallback == "abort":
            # step 5: a coordinator in a failed region does not support regional checkpoints
            self._abort(tx, counted=True)
            return
        fallback = store[-1]
        n = self.topo.n_tasks
        acked = dict(pending.acked)
        snaps, refs, files = [], [], set()
        for t in range(n):
            if pending.finished >> t & 1:
                snaps.append(FINISHED_SNAPSHOT)
                refs.append(0)
            elif t in in_failed:
                snaps.append(fallback.snapshots[t])
                refs.append(fallback.id)
                files.update(f for f in fallback.files if f[1] == t)
            else:
                snaps.append(acked.get(t, EMPTY_SNAPSHOT))
                refs.append(0)
                if t in acked:
                    files.add((pending.id, t))
        # acked snapshots of failed-region tasks are not part of the checkpoint: discard them
        for t in acked:
            if t in in_failed:
                tx.files = remove_sorted(tx.files, (pending.id, t))
        if self.design.file_merging and self.design.file_merging_keeps_fallback_alive:
            # the fallback segments are re-registered under this checkpoint (reference 8.1 step 6;
            # seed 000, Zakelly: "keep previous checkpoint files alive when a region checkpoint occurs")
            used = dict(tx.reused)
            for f in files:
                if f[0] != pending.id and self.is_merged(f[0]):
                    used[f] = max(used.get(f, f[0]), pending.id)
            tx.reused = tuple(sorted(used.items()))
        enum, assignments = self._coordinator_state(tx.coord, pending, failed_readers, fallback.id)
        coord = tx.coord
        count = coord.consecutive_regional + 1
        tx.coord = coord._replace(
            assignments=assignments,
            pending=(),
            store=coord.store + (Completed(pending.id, tuple(snaps), tuple(sorted(files)), tuple(refs), False, enum),),
            failed_count=0,
            completed_count=coord.completed_count + 1,
            consecutive_regional=count,
            force_global=self.design.force_global_after_max and count >= self.design.max_consecutive_regional,
        )
        subsumed = self._retain(tx)
        for t in range(n):
            if pending.waiting >> t & 1 and tx.tasks[t].status == RUNNING:
                ts = tx.tasks[t]
                if t in in_failed:
                    own = self._latest_for(tx.coord.store, t) if self.design.own_state_commit_bound else fallback.id
                    msg = (NOTIFY_FALLBACK, pending.id, own, subsumed)
                else:
                    msg = (NOTIFY_COMPLETE, pending.id, 0, subsumed)
                tx.tasks[t] = ts._replace(inbox=ts.inbox + (msg,))

    def _coordinator_state(self, coord: Coordinator, pending: Pending, failed_readers: set, fallback_id: int):
        """The enumerator's state in checkpoint ``pending.id`` and its tracker after completion.

        Globally (no failed readers) that is the snapshot taken at trigger, and the tracker
        forgets the assignments the checkpoint covers (``onCheckpointComplete``).  Regionally, a
        failed reader's state is the fallback's, which lacks the splits assigned to it after
        the fallback checkpoint: ``checkpointCoordinatorForRegionFallback`` puts those back
        among the unassigned splits of this checkpoint and keeps them as not yet checkpointed,
        so that a reset of that reader to this checkpoint adds them back (seed 000, "State
        Correction ... for OperatorCoordinators to produce consistent snapshots against the
        mixed view").  With ``ignore`` the coordinator's own snapshot is taken as is.
        """
        cp = pending.id
        enum = set(pending.enum)
        keep = []
        for e, r, s in coord.assignments:
            if e > cp:
                keep.append((e, r, s))
            elif r in failed_readers and e > fallback_id and self.design.coordinator_region_fallback == "fallback":
                enum.add(s)
                keep.append((cp + 1, r, s))
        return tuple(sorted(enum)), tuple(sorted(keep))

    def _drop_ack(self, tx: _Tx, t: int, cp: int, keep_file: bool = False) -> Snapshot:
        snap = None
        rest = []
        for entry in tx.acks:
            if entry[0] == t and entry[1] == cp and snap is None:
                snap = entry[2]
            else:
                rest.append(entry)
        tx.acks = tuple(rest)
        if not keep_file:
            tx.files = remove_sorted(tx.files, (cp, t))
        return snap

    def _complete(self, tx: _Tx, pending: Pending) -> None:
        """``completePendingCheckpoint`` (ref §6): store, subsume, reset the failure counter,
        then ``notifyCheckpointComplete`` to every task of the plan."""
        n = self.topo.n_tasks
        acked = dict(pending.acked)
        snaps = tuple(
            FINISHED_SNAPSHOT if pending.finished >> t & 1 else acked.get(t, EMPTY_SNAPSHOT) for t in range(n)
        )
        files = tuple((pending.id, t) for t in sorted(acked))
        enum, assignments = self._coordinator_state(tx.coord, pending, set(), 0)
        coord = tx.coord
        tx.coord = coord._replace(
            assignments=assignments,
            pending=(),
            store=coord.store + (Completed(pending.id, snaps, files, (), False, enum),),
            failed_count=0,
            completed_count=coord.completed_count + 1,
            consecutive_regional=0,
            force_global=False,
        )
        subsumed = self._retain(tx)
        msg = (NOTIFY_COMPLETE, pending.id, 0, subsumed)
        for t in range(n):
            if pending.waiting >> t & 1 and tx.tasks[t].status == RUNNING:
                ts = tx.tasks[t]
                tx.tasks[t] = ts._replace(inbox=ts.inbox + (msg,))

    def _retain(self, tx: _Tx) -> int:
        """The store keeps what the design's ``retain`` says; the cleaner then deletes the files
        of the checkpoints the design's ``discard`` names (by default: exactly the subsumed).

        Never deleted: the files of an unclaimed (NO_CLAIM) snapshot, and FLIP-306 merged
        segments, which their task manager discards on the checkpoint notifications.  Returns
        the ``lastSubsumedCheckpointId`` those notifications carry when file merging is on (0
        otherwise): the newest checkpoint outside the last ``num_retained``, as Flink's
        subsume helper counts it.  The notice carries an id, not the store's ref closure, so a
        regional checkpoint must keep its fallback segments alive on the task managers."""
        coord = tx.coord
        ids = tuple(c.id for c in coord.store)
        pend = (coord.pending.id,) if coord.pending else ()
        keep = tuple(self.design.retain(ids, self.design.num_retained))
        newest = keep
        last_subsumed = 0
        if self.design.file_merging:
            older = [i for i in ids if i not in newest]
            last_subsumed = max(older) if older else 0
        if self.design.retention_follows_refs:
            # FLIP-600: the last n plus the transitive closure of their refCheckpointIds
            closure = ref_closure(coord.store, keep)
            keep = tuple(i for i in ids if i in closure)
        subsumed = tuple(i for i in ids if i not in keep)
        gone = set(self.design.discard(subsumed, keep, pend))
        if not subsumed and not gone:
            return last_subsumed
        for c in coord.store:
            if c.id in gone and not c.unclaimed:
                tx.files = remove_sorted(tx.files, *(f for f in c.files if not self.is_merged(f[0])))
        tx.coord = coord._replace(store=tuple(c for c in coord.store if c.id in keep))
        return last_subsumed

    def _latest_for(self, store: tuple, t: int) -> int:
        """The latest completed checkpoint id that task ``t`` is told of, and may commit up to.

        Flink sends every task the latest completed id (``notifyCheckpointAbortAsync``; the
        PR's fallback notice carries the fallback id).  With ``own_state_commit_bound`` a
        failed-region task is told the checkpoint its state really comes from: refs are
        followed, since a fallback may itself be a fallback, and committing a transaction that
        the task pre-committed for a checkpoint that does not hold its state commits records a
        restore of that checkpoint replays."""
        if not store:
            return 0
        c = store[-1]
        if not self.design.own_state_commit_bound:
            return c.id
        by_id = {x.id: x for x in store}
        while c.refs and c.refs[t] and c.refs[t] in by_id:
            c = by_id[c.refs[t]]
        return c.refs[t] if c.refs and c.refs[t] else c.id

    def _abort(self, tx: _Tx, counted: bool) -> None:
        """``abortPendingCheckpoint``: discard the collected state, tell the tasks (with the
        latest completed id, ref §6), and let the ``CheckpointFailureManager`` count it."""
        coord = tx.coord
        pending = coord.pending
        tx.files = remove_sorted(tx.files, *((pending.id, t) for t, _ in pending.acked))
        for t in range(self.topo.n_tasks):
            if pending.waiting >> t & 1 and tx.tasks[t].status == RUNNING:
                ts = tx.tasks[t]
                msg = (NOTIFY_ABORT, pending.id, self._latest_for(coord.store, t), 0)
                tx.tasks[t] = ts._replace(inbox=ts.inbox + (msg,))
        failed = coord.failed_count + (1 if counted else 0)
        tx.coord = coord._replace(pending=(), failed_count=failed)
        if failed > self.design.tolerable_failed_checkpoints:
            # "Exceeded checkpoint tolerable failure threshold": the job fails over globally
            tx.coord = tx.coord._replace(failed_count=0)
            self._fail(tx, frozenset(range(self.topo.n_tasks)))
        self._retain(tx)

    # notifications ------------------------------------------------------------------------
    def _notify(self, tx: _Tx, t: int) -> None:
        """A coordinator RPC reaches the task.  An abort first replays the completion of the
        latest completed checkpoint (``notifyCheckpointAbortAsync``, ref §6)."""
        ts = tx.tasks[t]
        kind, cp, latest, subsumed = ts.inbox[0]
        tx.tasks[t] = ts._replace(inbox=ts.inbox[1:])
        if subsumed:
            self._discard_segments(tx, t, subsumed)
        if kind == NOTIFY_COMPLETE:
            self._on_complete(tx, t, cp)
        elif kind == NOTIFY_FALLBACK:
            if self.design.fallback_completes_final_checkpoint:
                self._on_complete(tx, t, cp, commit_upto=latest)
            else:  # commit what the fallback state covers; keep waiting for an own checkpoint
                self._commit_pending(tx, t, latest)
        else:
            if latest:
                self._on_complete(tx, t, latest)
            ts = tx.tasks[t]
            tx.tasks[t] = ts._replace(aborted=max(ts.aborted, cp))
        self._maybe_finish(tx, t)

    def _discard_segments(self, tx: _Tx, t: int, subsumed: int) -> None:
        """FLIP-306 ``notifyCheckpointSubsumed(subtask, subsumed)`` on the task manager: discard
        the subtask's segments of checkpoints <= ``subsumed`` whose lastUsed <= ``subsumed``
        (ref 8.2).  A physical file goes once no segment in it is left (``file_exists``)."""
        used = dict(tx.reused)
        gone = [f for f in tx.files if f[1] == t and f[0] <= subsumed and self.is_merged(f[0]) and used.get(f, f[0]) <= subsumed]
        if gone:
            tx.files = remove_sorted(tx.files, *gone)
            tx.reused = tuple(x for x in tx.reused if x[0] not in gone)

    def _on_complete(self, tx: _Tx, t: int, cp: int, commit_upto: int | None = None) -> None:
        """``notifyCheckpointComplete(cp)``: commit pending transactions up to ``cp`` (for a
        failed-region task of a regional checkpoint, only up to the fallback checkpoint, whose
        state this task has in ``cp``).  Either way ``cp`` counts as complete for the task."""
        ts = tx.tasks[t]
        if cp <= ts.notified:
            return
        self._commit_pending(tx, t, cp if commit_upto is None else commit_upto)
        tx.tasks[t] = tx.tasks[t]._replace(notified=cp)

    def _commit_pending(self, tx: _Tx, t: int, upto: int) -> None:
        """Commit the task's pending transactions of checkpoints <= ``upto``."""
        ts = tx.tasks[t]
        keep = []
        for c, txn in ts.pending:
            if c <= upto:
                self._commit(tx, t, txn)
            else:
                keep.append((c, txn))
        tx.tasks[t] = ts._replace(pending=tuple(keep))

    def _commit(self, tx: _Tx, t: int, seq: int) -> None:
        old = next((x for x in tx.txns if x.task == t and x.seq == seq), None)
        if old is not None and old.status != COMMITTED:
            tx.set_txn(old._replace(status=COMMITTED))

    def _abort_txn(self, tx: _Tx, t: int, seq: int) -> None:
        old = next((x for x in tx.txns if x.task == t and x.seq == seq), None)
        if old is not None and old.status != COMMITTED:
            tx.set_txn(None, remove=(t, seq))

    # failures -----------------------------------------------------------------------------
    def _fail(self, tx: _Tx, victims: frozenset[int]) -> None:
        """Cancel ``victims``: pending checkpoints abort (``JOB_FAILOVER_REGION``, not counted),
        their channels are cleared, RPCs to them and acks from them are lost."""
        if tx.coord.pending:
            pending = tx.coord.pending
            tx.files = remove_sorted(tx.files, *((pending.id, t) for t, _ in pending.acked))
            for t in range(self.topo.n_tasks):
                if pending.waiting >> t & 1 and t not in victims and tx.tasks[t].status == RUNNING:
                    ts = tx.tasks[t]
                    msg = (NOTIFY_ABORT, pending.id, self._latest_for(tx.coord.store, t), 0)
                    tx.tasks[t] = ts._replace(inbox=ts.inbox + (msg,))
            tx.coord = tx.coord._replace(pending=())
        for t in victims:
            tx.tasks[t] = tx.tasks[t]._replace(status=FAILED, inbox=())
        dropped = [a for a in tx.acks if a[0] in victims]
        if dropped:
            tx.acks = tuple(a for a in tx.acks if a[0] not in victims)
            tx.files = remove_sorted(tx.files, *((a[1], a[0]) for a in dropped))
        for ch in self.topo.channels:
            if ch.producer in victims or ch.consumer in victims:
                tx.channels[ch.id] = ()

    def _reset_enumerator(self, tx: _Tx, latest: Completed | None, victims: list[int]) -> None:
        """The split enumerator on restore.  A global failover resets it to the checkpoint's
        state (``resetToCheckpoint``; the initial state without one).  A regional failover
        keeps it running and, per restarted reader, adds back the splits assigned to that
        reader after the restored checkpoint (``subtaskReset`` -> ``addSplitsBack`` with the
        tracker's uncheckpointed assignments)."""
        coord = tx.coord
        if len(victims) == self.topo.n_tasks:
            tx.coord = coord._replace(unassigned=latest.enum if latest else self.all_splits, assignments=())
            return
        cp = latest.id if latest else 0
        back = [x for x in coord.assignments if x[1] in victims and x[0] > cp]
        if back:
            tx.coord = coord._replace(
                unassigned=add_sorted(coord.unassigned, *(s for _, _, s in back)),
                assignments=remove_sorted(coord.assignments, *back),
            )

    def _restore(self, tx: _Tx) -> None:
        """Redeploy every failed task with the latest completed checkpoint's state.

        A task FINISHED in that checkpoint is deployed ``FINISHED_ON_RESTORE`` (ref §5): it
        emits EndOfData and EndOfPartition at once.  A source resumes at its stored position
        (through the design's ``source_restore_position``).  A 2PC sink recovers-and-commits
        the pending transactions of its state and aborts every other open transaction of its
        own (``TwoPhaseCommitSinkFunction.initializeState``).
        """
        store = tx.coord.store
        latest = store[-1] if store else None
        cp = latest.id if latest else 0
        victims = [t for t, ts in enumerate(tx.tasks) if ts.status == FAILED]
        if self._readers:
            self._reset_enumerator(tx, latest, victims)
        for t in victims:
            snap = latest.snapshots[t] if latest else EMPTY_SNAPSHOT
            old = tx.tasks[t]
            if snap.finished:
                tx.tasks[t] = old._replace(status=FINISHED, ended=True, inbox=())
                tx.push(self._all_out[t], EOD)
                tx.push(self._all_out[t], EOP)
                continue
            if self._role[t] is Role.SOURCE:
                snap = snap._replace(position=self.design.source_restore_position(snap.position))
            next_txn = old.txn
            if self._two_pc[t]:
                recommit = {seq for _, seq in snap.pending}
                for x in tuple(tx.txns):
                    if x.task != t or x.status == COMMITTED:
                        continue
                    if x.seq in recommit:
                        tx.set_txn(x._replace(status=COMMITTED))
                    else:
                        tx.set_txn(None, remove=(t, x.seq))
                next_txn = max([old.txn] + [x.seq for x in tx.txns if x.task == t]) + 1
            tx.tasks[t] = self._fresh_task(t, snap, cp, next_txn)
