"""Flink's checkpointing protocol as a pure ``enabled(world)`` / ``step(world, action)``,
composed of the components that hold its rules, one module per Flink component:

| design field           | class                        | module            | Flink                                   |
| ---------------------- | ---------------------------- | ----------------- | --------------------------------------- |
| ``coordinator``        | ``CheckpointCoordinator``    | ``coordinator.py``| CheckpointCoordinator, plan, failures   |
| ``regional``           | ``RegionalCheckpointHandler``| ``regional.py``   | FLIP-600 regional completion            |
| ``store``              | ``CompletedCheckpointStore`` | ``store.py``      | store, subsume helper, cleaner, refs    |
| ``file_merging_manager``| ``FileMergingSnapshotManager``| ``store.py``     | FLIP-306 segments on task managers      |
| ``barriers``           | ``CheckpointBarrierHandler`` | ``barriers.py``   | SingleCheckpointBarrierHandler          |
| ``task``               | ``StreamTask``               | ``task.py``       | StreamTask, SubtaskCheckpointCoordinator|
| ``sink``               | ``TwoPhaseCommitSink``       | ``sinks.py``      | TwoPhaseCommitSinkFunction              |
| ``source``             | ``SourceReader``             | ``sources.py``    | SourceOperator / SourceReader           |
| ``enumerator``         | ``SplitEnumerator``          | ``sources.py``    | SourceCoordinator, SplitEnumerator      |
| ``failover``           | ``FailoverStrategy``         | ``failover.py``   | failover strategy, restore              |
| ``partitioner``        | ``StreamPartitioner``        | ``partitioner.py``| StreamPartitioner / ChannelSelector     |

The design names the class of each component (a variant subclasses one and overrides one
method); this module only builds them, lists what is enabled and dispatches each action to the
component whose Flink counterpart handles that event.  Every rule, and every abstraction the
model makes, is stated in the docstring of the component that holds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

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
from .design import COMPONENTS, Design
from .scope import Scope
from .topology import Expanded, Role
from .tx import Tx
from .world import EMPTY_SNAPSHOT, FAILED, NOTIFY_NAMES, RUNNING, Budget, Coordinator, World


@dataclass(frozen=True, eq=False)
class FlinkModel:
    """The protocol for one (design, scope): ``initial()``, ``enabled(w)``, ``step(w, a)``.

    Its components are attributes named after their design fields (``model.coordinator``,
    ``model.store`` ...), each an instance of the class the design names."""

    design: Design
    scope: Scope

    def __post_init__(self) -> None:
        # FailTask(t) depends on t only through the tasks its failover cancels: the successors of
        # one world for the same cancelled set are computed once (the last world's, by identity)
        object.__setattr__(self, "_fail_memo", (None, {}))
        parts = {name: getattr(self.design, name)(self) for name in COMPONENTS}
        for part in parts.values():
            for name, peer in parts.items():
                setattr(part, name, peer)
        for name, part in parts.items():
            object.__setattr__(self, name, part)

    # -- static structure of the job ------------------------------------------------------------
    @cached_property
    def topo(self) -> Expanded:
        return self.scope.job.expand()

    @cached_property
    def all_inputs_mask(self) -> tuple[int, ...]:
        return tuple((1 << len(ins)) - 1 for ins in self.topo.inputs)

    @cached_property
    def roles(self) -> tuple[Role, ...]:
        return tuple(self.topo.vertex(t).role for t in range(self.topo.n_tasks))

    @cached_property
    def two_pc(self) -> tuple[bool, ...]:
        return tuple(self.topo.vertex(t).two_phase_commit for t in range(self.topo.n_tasks))

    @cached_property
    def stateful(self) -> tuple[bool, ...]:
        """Subtasks whose state holds record effects: sinks and operators with state."""
        topo = self.topo
        return tuple(
            topo.vertex(t).role is Role.SINK or (topo.vertex(t).role is Role.OPERATOR and bool(topo.vertex(t).state))
            for t in range(topo.n_tasks)
        )

    @cached_property
    def all_out(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(c for cs in outs for c in cs) for outs in self.topo.outputs)

    # -- initial state ----------------------------------------------------------------------------
    def initial(self) -> World:
        """Every task fresh; with ``no_claim_restore`` the job starts from snapshot 1."""
        store, files = self.store.initial()
        start = 1 if store else 0
        tasks = tuple(self.task.fresh(t, EMPTY_SNAPSHOT, start, 0) for t in range(self.topo.n_tasks))
        return World(
            tasks=tasks,
            channels=tuple(() for _ in self.topo.channels),
            coord=Coordinator(
                next_id=start + 1, pending=(), store=store, failed_count=0, completed_count=0,
                unassigned=self.enumerator.all_splits,
            ),
            acks=(),
            files=files,
            txns=(),
            used=Budget(),
        )

    # -- enabled ----------------------------------------------------------------------------------
    def enabled(self, w: World) -> list[Action]:
        """Every action enabled in ``w``, in a fixed order: progress first, then faults."""
        scope = self.scope
        out: list[Action] = []
        tasks = w.tasks
        self.source.enabled(w, out)
        is_blocked = self.barriers.is_blocked
        for ch in self.topo.channels:
            if not w.channels[ch.id]:
                continue
            ts = tasks[ch.consumer]
            if ts.status != RUNNING or is_blocked(ts, ch.input_index):
                continue
            out.append(Deliver(ch.id))
        if self.coordinator.can_trigger(w):
            out.append(TriggerCheckpoint(w.coord.next_id))
        if w.acks:
            first: dict[int, int] = {}
            for t, cp, _ in w.acks:
                if t not in first:
                    first[t] = cp
            for t in sorted(first):
                out.append(Ack(t, first[t]))
        for t, ts in enumerate(tasks):
            if ts.inbox:
                kind, cp = ts.inbox[0][:2]
                out.append(Notify(t, cp, NOTIFY_NAMES[kind]))
        any_failed = any(ts.status == FAILED for ts in tasks)
        if any_failed:
            out.append(Restore(self.failover.restore_checkpoint(w)))
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
        if self.design.no_claim_restore and self.store.may_delete_snapshot(w):
            out.append(DeleteSnapshot(1))
        return out

    # -- step -------------------------------------------------------------------------------------
    def step(self, w: World, a: Action) -> World:
        """The world after ``a``.  ``a`` must be enabled in ``w`` (engines check this)."""
        tx = Tx(w)
        kind = type(a)
        if kind is Deliver:
            self.task.deliver(tx, a.channel)
        elif kind is EmitRecord:
            self.source.emit(tx, a.task)
        elif kind is Ack:
            self.coordinator.receive_acknowledge(tx, a.task, a.checkpoint)
        elif kind is Notify:
            self.task.notify(tx, a.task)
        elif kind is TriggerCheckpoint:
            self.coordinator.trigger(tx)
        elif kind is EndOfInput:
            self.source.end_of_input(tx, a.task)
        elif kind is Restore:
            self.failover.restore(tx)
        elif kind is AssignSplit:
            self.enumerator.assign(tx, a.task, a.split)
        elif kind is Decline:
            tx.used = tx.used._replace(declines=tx.used.declines + 1)
            self.coordinator.receive_decline(tx, a.task, a.checkpoint)
        elif kind is Timeout:
            tx.used = tx.used._replace(timeouts=tx.used.timeouts + 1)
            self.coordinator.on_timeout(tx)
        elif kind is FailTask:
            victims = self.failover.tasks_to_restart(a.task)
            memo = self._fail_memo
            if memo[0] is w and victims in memo[1]:
                return memo[1][victims]
            tx.used = tx.used._replace(failures=tx.used.failures + 1)
            self.failover.fail(tx, victims)
            nxt = tx.freeze()
            if memo[0] is not w:
                memo = (w, {})
                object.__setattr__(self, "_fail_memo", memo)
            memo[1][victims] = nxt
            return nxt
        elif kind is DeleteSnapshot:
            self.store.delete_snapshot(tx)
        elif kind is LoseNotification:
            tx.used = tx.used._replace(lost=tx.used.lost + 1)
            ts = tx.tasks[a.task]
            tx.tasks[a.task] = ts._replace(inbox=ts.inbox[1:])
        else:  # pragma: no cover - engines only pass actions from enabled()
            raise TypeError(f"not an action of this model: {a!r}")
        return tx.freeze()
