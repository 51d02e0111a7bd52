"""Flink's checkpointing protocol as a pure ``enabled(world)`` / ``step(world, action)``, composed
of the components that hold its rules, one class per Flink component (the design names each
class; ``docs/pages/model.md`` lists them).  This module builds them, lists what is enabled
(``protocol_enabled.py``) and dispatches each action to the component method that declares it
handles it (``@handles``); every rule and abstraction is stated on the component that holds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Callable, ClassVar

from .actions import Action
from .design import COMPONENTS, Design
from .nullstate import NullStateRecovery
from .reading import is_stock
from .protocol_enabled import EnabledMixin
from .scope import Scope
from .sinkv2 import COMMITTER, GLOBAL_COMMITTER
from .topology import Exchange, Expanded, Pattern, Role
from .tx import edit
from .world import EMPTY_SNAPSHOT, REC, Budget, Coordinator, World


def fitted(design: Design, scope: Scope) -> Scope:
    """``scope`` without instant acks where they are not exact for ``design``
    (``scope_conflict``): a default scope's reduction gives way to the full model."""
    if scope.instant_acks and scope_conflict(design, scope).startswith("scope.instant_acks"):
        return scope.with_(instant_acks=False)
    return scope


def replaced_acknowledgement_hooks(design: Design) -> list[str]:
    """The methods on an acknowledgement's way that ``design`` replaces.  Under instant acks
    ``SubtaskCheckpointCoordinator.acknowledge`` hands the snapshot to ``CheckpointCoordinator.acknowledge_at_once``,
    which runs ``NullStateRecovery.on_acknowledge`` (and so ``reported_watermark``) at the
    snapshot, and ``receive_acknowledge``, ``drop_ack`` and the calls of ``maybe_finalize`` before
    the last response never run: a replacement of any of them may read the world when the
    acknowledgement arrives, or act on an arrival, and would be checked at the wrong moment or
    not at all.  (What runs after the last response, at ``LastAck``, runs at the same moment in
    both models.)"""
    from .coordinator import CheckpointCoordinator
    from .subtask_checkpoint import SubtaskCheckpointCoordinator

    hooks = (("coordinator", CheckpointCoordinator, ("receive_acknowledge", "drop_ack", "maybe_finalize", "acknowledge_at_once")),
             ("null_state", NullStateRecovery, ("on_acknowledge", "reported_watermark")),
             ("subtask_checkpoint", SubtaskCheckpointCoordinator, ("acknowledge",)))
    return [f"{base.__name__}.{name}" for field, base, names in hooks for name in names
            if getattr(getattr(design, field), name) is not getattr(base, name)]


def scope_conflict(design: Design, scope: Scope) -> str:
    """Why the model cannot check ``design`` in ``scope``, or "".  A stop-with-savepoint is
    modelled for aligned designs without FLIP-600 that take checkpoints after tasks finish: a
    savepoint is always aligned (``CheckpointOptions.forConfig``), which the unaligned modes'
    barriers do not record, and the regional handler has no rule for a synchronous savepoint.
    Instant acks (``CheckpointCoordinator.acknowledge_at_once``) are exact only where nothing
    but the last response to a checkpoint acts on an acknowledgement's arrival: not with
    FLIP-600's timeouts that complete regionally (a timeout marks a task whose acknowledgement is
    in flight declined) nor with unaligned checkpoints (their witnesses read the
    acknowledgement's channel state as it arrives), nor where a design replaces a method on an
    acknowledgement's way (``replaced_acknowledgement_hooks``: ``NullStateRecovery.reported_watermark``
    may read the task at the acknowledgement's arrival, and catalog
    ``null-state-watermark-at-acknowledgement`` is found only without them).
    ``fitted`` drops a default scope's instant acks where they do not fit.  FLINK-4120's null-state recovery
    (``model.nullstate``) needs a recomputable operator and has no rule for a rescale, a
    stop-with-savepoint or a split enumerator."""
    exchanges = {e.exchange for e in scope.job.edges}
    if Exchange.HYBRID in exchanges:
        return ("scope.job: a HYBRID edge in a streaming job: Flink rejects the job when it builds its job graph"
                " (StreamingJobGraphGenerator.validateHybridShuffleExecuteInBatchMode: \"hybrid shuffle mode only supports"
                " batch job\"); use PIPELINED or BLOCKING")
    if Exchange.BLOCKING in exchanges:
        if design.checkpoint_mode != "aligned":
            return "scope.job: a BLOCKING edge is modelled with aligned checkpoints only (use an aligned design)"
        if scope.stop_with_savepoint or scope.max_rescales:
            return ("scope.job: a BLOCKING edge is not modelled with a stop-with-savepoint or a rescale (Flink fails a"
                    " savepoint with BLOCKING_OUTPUT_EXIST while a task with a blocking output runs)")
        if design.recovery == "null-state":
            return "scope.job: a BLOCKING edge is not modelled with recovery 'null-state'"
    if scope.instant_acks:
        if design.regional_checkpoints and design.timeouts_complete_regionally and scope.max_timeouts:
            return ("scope.instant_acks: not exact with timeouts that complete regionally (a timeout marks a task"
                    " whose acknowledgement is in flight declined)")
        if design.checkpoint_mode != "aligned":
            return f"scope.instant_acks: not modelled with checkpoint_mode {design.checkpoint_mode!r} (use an aligned design)"
        if design.incremental_checkpoints:
            return ("scope.instant_acks: not exact with incremental_checkpoints (the registry registers a snapshot's"
                    " shared files when its acknowledgement arrives, and may refuse it then)")
        replaced = replaced_acknowledgement_hooks(design)
        if replaced:
            return (f"scope.instant_acks: not exact with a replaced {replaced[0]} (it runs when an acknowledgement"
                    " arrives, a moment instant acks fold into the snapshot or skip)")
    if scope.rpcs_overtake and not scope.staggered_triggers:
        return "scope.rpcs_overtake: trigger RPCs are RPCs of their own only with staggered_triggers"
    if scope.late_finish_reports and not scope.staggered_triggers:
        return "scope.late_finish_reports: a trigger RPC reaches a finished task only with staggered_triggers"
    if scope.suspend_on_failure and any(e.exchange.value == "BLOCKING" for e in scope.job.edges):
        return ("scope.suspend_on_failure: Flink tracks executions so only in a job without BLOCKING outputs"
                " (CheckpointCoordinator.createActivatorDeactivator); a BLOCKING edge keeps its scheduler stopped instead")
    if scope.restart_aligned:
        if design.checkpoint_mode == "aligned":
            return "scope.restart_aligned: turns unaligned checkpoints off at the restart (use an unaligned design)"
        if design.recovery == "null-state":
            return "scope.restart_aligned: not modelled with recovery 'null-state'"
    if scope.spanning_records:
        if design.checkpoint_mode == "aligned":
            return "scope.spanning_records: a record's parts matter only in channel state (use an unaligned design)"
        if design.recovery == "null-state":
            return "scope.spanning_records: not modelled with recovery 'null-state'"
        if scope.max_rescales and (scope.repattern or any(e.pattern.value == "POINTWISE" for e in scope.job.edges)):
            return "scope.spanning_records: not modelled with a rescaled POINTWISE edge"
    if design.incremental_checkpoints and scope.max_rescales:
        return "scope.rescale: a restore at another parallelism is not modelled with incremental_checkpoints"
    if design.recovery == "null-state":
        job = scope.job
        if scope.max_rescales or scope.stop_with_savepoint or any(v.coordinator for v in job.vertices):
            return "recovery 'null-state' is not modelled with rescaling, stop-with-savepoint or split enumerators"
        if not any(v.window for v in job.vertices):
            return f"recovery 'null-state' needs a recomputable operator (a vertex with window > 0) in job {scope.job_name!r}"
        if design.checkpoint_mode != "aligned" and any(v.window and v.parallelism > 1 for v in job.vertices):
            return "recovery 'null-state' with unaligned checkpoints is modelled for recomputable operators of parallelism 1"
    if scope.stop_with_savepoint:
        if design.checkpoint_mode != "aligned":
            return f"scope.stop_with_savepoint: not modelled with checkpoint_mode {design.checkpoint_mode!r} (use an aligned design)"
        if design.regional_checkpoints:
            return "scope.stop_with_savepoint: not modelled with regional_checkpoints"
        if not design.checkpoints_after_tasks_finish:
            return "scope.stop_with_savepoint: not modelled without checkpoints_after_tasks_finish"
        if design.incremental_checkpoints:
            return "scope.stop_with_savepoint: not modelled with incremental_checkpoints (a savepoint is a full snapshot)"
    return ""


@dataclass(frozen=True)
class Handler:
    """The component method that handles one action kind (``actions.handles``)."""

    component: str  # its design field
    method: str
    args: tuple[str, ...]  # the action's fields it takes after the transaction
    whole_world: bool


def handlers(design: Design) -> dict[type[Action], Handler]:
    """Every action kind the components of ``design`` handle, and the method that does; one
    method per kind (a second declaration in another component is a ``TypeError`` naming both;
    a subclass that declares a kind again replaces its class's method)."""
    out: dict[type[Action], Handler] = {}
    for name in COMPONENTS:
        for klass in reversed(getattr(design, name).__mro__):
            for attr, fn in vars(klass).items():
                mark = getattr(fn, "__handles__", None)
                if mark is None:
                    continue
                kind, args, whole_world = mark
                prev = out.get(kind)
                if prev is not None and prev.component != name:
                    raise TypeError(f"{kind.__name__} is handled twice: by {prev.component}.{prev.method} and {name}.{attr}")
                out[kind] = Handler(name, attr, args, whole_world)
    return out


@dataclass(frozen=True, eq=False)
class FlinkModel(EnabledMixin):
    """The protocol for one (design, scope): ``initial()``, ``enabled(w)``, ``step(w, a)``.

    Its components are attributes named after their design fields (``model.coordinator``,
    ``model.store`` ...), each an instance of the class the design names."""

    if TYPE_CHECKING:  # set in __post_init__: the successors of the last world for one fault's effect
        _fail_memo: ClassVar[tuple]

    design: Design
    scope: Scope
    config: int = 0  # 0: the job's parallelism; 1: the parallelism of the scope's ``rescale``
    base: "FlinkModel | None" = None  # the config-0 model, for the config-1 one

    def __post_init__(self) -> None:
        # FailTask(t) depends on t only through the tasks its failover cancels, and a decline that
        # fails the job over globally not on t at all: the successors of one world for the same
        # effect are computed once (the last world's, by identity)
        object.__setattr__(self, "_fail_memo", (None, {}))
        problem = scope_conflict(self.design, self.scope)
        if problem:
            raise ValueError(problem)
        parts = {name: self.design.component_class(name)(self) for name in COMPONENTS}
        for part in parts.values():
            for name, peer in parts.items():
                setattr(part, name, peer)
        for name, part in parts.items():
            object.__setattr__(self, name, part)

    # -- static structure of the job ------------------------------------------------------------
    @cached_property
    def topo(self) -> Expanded:
        return (self.scope.rescaled_job if self.config else self.scope.job).expand()

    # -- parallelism configurations (a Rescale switches between them) ---------------------------
    @cached_property
    def configs(self) -> tuple["FlinkModel", ...]:
        """The models of the job at its own parallelism and, if the scope rescales, at the
        rescaled one.  A world's configuration is its number of rescales modulo 2."""
        if self.base is not None:
            return self.base.configs
        if not self.scope.max_rescales:
            return (self,)
        return (self, FlinkModel(self.design, self.scope, 1, self))

    def at(self, w: World) -> "FlinkModel":
        """The model of the parallelism world ``w`` runs at."""
        configs = self.configs
        return configs[w.used.rescales & 1] if len(configs) > 1 else self

    def model_of(self, c) -> "FlinkModel":
        """The model of the parallelism completed checkpoint ``c`` was taken at."""
        for m in self.configs:
            if m.topo.n_tasks == len(c.snapshots):
                return m
        raise ValueError(f"checkpoint {c.id} has {len(c.snapshots)} subtasks: no parallelism of this scope")

    @cached_property
    def global_names(self) -> tuple[str, ...]:
        """Every subtask name of every configuration: the job's own first, then the ones only
        the rescaled job has.  External transactions name their sink subtask by its index here
        (``gid``), so they keep their owner across a rescale."""
        own = self.configs[0].topo.names
        extra = [n for m in self.configs[1:] for n in m.topo.names if n not in own]
        return own + tuple(extra)

    @cached_property
    def gid(self) -> tuple[int, ...]:
        """Subtask index at this parallelism -> its global id (an index of ``global_names``)."""
        index = {n: i for i, n in enumerate(self.global_names)}
        return tuple(index[n] for n in self.topo.names)

    @cached_property
    def global_two_pc(self) -> frozenset[int]:
        """Global ids of the 2PC sink subtasks of every configuration."""
        return frozenset(m.gid[t] for m in self.configs for t in range(m.topo.n_tasks) if m.two_pc[t])

    @cached_property
    def lid(self) -> dict[int, int]:
        """Global id -> subtask index at this parallelism (subtasks this parallelism has)."""
        return {g: t for t, g in enumerate(self.gid)}

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
    def sink_v2(self) -> tuple[str, ...]:
        """Per subtask: its Sink V2 part ("writer", "committer", "global-committer") or ""."""
        return tuple(self.topo.vertex(t).sink_v2 for t in range(self.topo.n_tasks))

    @cached_property
    def stateful(self) -> tuple[bool, ...]:
        """Subtasks whose state holds record effects: sinks, operators with state (a recomputable
        window too) and Sink V2 committers.  A Sink V2 writer's committables leave it before
        each barrier, and a global committer's state trails the checkpoints (``model.sinkv2``),
        so neither holds a record effect a checkpoint must account for."""
        topo = self.topo
        out = []
        for t in range(topo.n_tasks):
            v = topo.vertex(t)
            if v.sink_v2:
                out.append(v.sink_v2 == COMMITTER)
            else:
                out.append(v.role is Role.SINK or (v.role is Role.OPERATOR and (bool(v.state) or v.window > 0)))
        return tuple(out)

    @cached_property
    def all_out(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(c for cs in outs for c in cs) for outs in self.topo.outputs)

    @cached_property
    def checkpoint_mode(self) -> str:
        """The design's ``checkpoint_mode`` in this configuration: "aligned" after the scope's
        ``restart_aligned`` restart, which turns unaligned checkpoints off."""
        return "aligned" if self.config and self.scope.restart_aligned else self.design.checkpoint_mode

    @cached_property
    def unaligned(self) -> bool:
        """Unaligned checkpoints are enabled (``execution.checkpointing.unaligned.enabled``) in
        this configuration."""
        return self.checkpoint_mode != "aligned"

    @cached_property
    def restores_channel_state(self) -> bool:
        """Can a restore here find channel state in its checkpoint?  With unaligned checkpoints,
        and after the scope's ``restart_aligned`` restart, whose job restores the unaligned
        checkpoint it started from (Flink restores channel state whatever the option says: a real
        run of Flink 2.3.0, ``tests/data/runs/unaligned-restart-aligned-p1.jsonl``, re-sends it)."""
        return self.unaligned or self.scope.restart_aligned

    @cached_property
    def cdr(self) -> bool:
        """Checkpoints during recovery (FLIP-547) are on in this configuration
        (``StreamTask.checkpointing_during_recovery``)."""
        return self.task.checkpointing_during_recovery()

    @cached_property
    def uc_inputs(self) -> tuple[bool, ...]:
        """Per subtask: may its inputs take unaligned barriers?  Only if every input edge of its
        vertex supports them (``StreamPartitioner.isSupportsUnalignedCheckpoint``: not
        POINTWISE, not broadcast; and PIPELINED), else the whole node aligns (FLINK-21945).
        A Sink V2 committer's and global committer's inputs never do (sink-internal edges,
        UC note A.10).
        The design knob ``unaligned_pointwise`` (the pointwise-UC thread's FORCE_UNALIGNED opt-in) lets
        POINTWISE edges take them too."""
        topo = self.topo
        pointwise_ok = self.design.unaligned_pointwise
        ok = []
        for t in range(topo.n_tasks):
            edges = [topo.job.edges[topo.channels[c].edge] for c in topo.inputs[t]]
            internal = topo.vertex(t).sink_v2 in (COMMITTER, GLOBAL_COMMITTER)  # A.10: sink-internal edges
            ok.append(self.unaligned and bool(edges) and not internal and all(
                (e.pattern is Pattern.ALL_TO_ALL or pointwise_ok) and e.exchange is Exchange.PIPELINED for e in edges))
        return tuple(ok)

    @cached_property
    def split(self) -> tuple[bool, ...]:
        """Per channel: do unaligned barriers travel on it (its consumer takes them)?  There the
        records still in the producer's subpartition (``tx.consumer_end``) are what a barrier
        overtakes; elsewhere barriers are FIFO.  Empty when unaligned checkpoints are off."""
        if not self.unaligned:
            return ()
        return tuple(self.uc_inputs[ch.consumer] for ch in self.topo.channels)

    @cached_property
    def timeoutable_out(self) -> tuple[bool, ...]:
        """Per subtask: does it send timeoutable barriers (``aligned-timeout``, an output to a
        node that takes unaligned ones)?"""
        if self.checkpoint_mode != "aligned-timeout":
            return (False,) * self.topo.n_tasks
        return tuple(any(self.split[c] for c in self.all_out[t]) for t in range(self.topo.n_tasks))

    @cached_property
    def timeoutable(self) -> tuple[bool, ...]:
        """Per subtask: can its alignment time out and switch to unaligned?"""
        return tuple(self.checkpoint_mode == "aligned-timeout" and ok for ok in self.uc_inputs)

    def has_room(self, w: World, t: int) -> bool:
        """Can subtask ``t`` produce a record: does every output subpartition hold fewer than
        the scope's ``channel_capacity`` records (the input channel holds ``input_buffers``
        more, see ``tx.consumer_end``)?  Flink's task only processes input while its record writers have
        buffers (``RecordWriter.isAvailable``): a full channel backpressures its producer."""
        cap = self.scope.channel_capacity
        if not cap:
            return True
        cap += self.scope.input_buffers
        channels = w.channels
        for c in self.all_out[t]:
            if sum(1 for x in channels[c] if x[0] == REC) >= cap:
                return False
        return True

    # -- initial state ----------------------------------------------------------------------------
    def initial(self) -> World:
        """Every task fresh; with ``no_claim_restore`` the job starts from snapshot 1."""
        store, files = self.store.initial()
        start = 1 if store else 0
        tasks = tuple(self.task.fresh(t, EMPTY_SNAPSHOT, start, 1) for t in range(self.topo.n_tasks))
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

    # -- step -------------------------------------------------------------------------------------
    def _remember(self, w: World, key, nxt: World) -> World:
        """Keep ``nxt`` as the successor of ``w`` for every fault of ``w`` with effect ``key``."""
        memo = self._fail_memo
        if memo[0] is not w:
            memo = (w, {})
            object.__setattr__(self, "_fail_memo", memo)
        memo[1][key] = nxt
        return nxt

    @cached_property
    def _decline_memo(self) -> bool:
        """May a decline that fails the job over globally be computed once per world
        (``CheckpointCoordinator.decline_fails_job``)?  Only while the rules it runs through
        are the stock ones: a variant overriding one of them may make the successor depend
        on who declined."""
        from .coordinator import CheckpointCoordinator
        from .failover import FailoverStrategy
        from .regional import RegionalCheckpointHandler
        from .subtask_checkpoint import SubtaskCheckpointCoordinator

        stock = ((self.subtask_checkpoint, SubtaskCheckpointCoordinator, ("decline_checkpoint",)),
                 (self.coordinator, CheckpointCoordinator, ("receive_decline", "drop_ack", "abort", "notify_aborted",
                                                             "abort_for_failover", "decline_fails_job")),
                 (self.regional, RegionalCheckpointHandler, ("on_decline",)),
                 (self.failover, FailoverStrategy, ("fail",)))
        if self.local_state.active:  # the decliner's local copy goes: the successor depends on who declined
            return False
        return all(is_stock(type(part), base, name) for part, base, names in stock for name in names)

    @cached_property
    def _steps(self) -> dict[type, Callable[[World, Action], World]]:
        """The step table: per action kind, a function of (world, action) that runs its handler,
        bound to this model's component (the method the design's class has under the declared
        name, so an override without the decorator is the one called), with what ``step`` does
        around it where the kind asks for it (``Action.memo_key``, ``Action.before``,
        ``Action.budget``)."""
        return {kind: self._stepper(kind, h) for kind, h in handlers(self.design).items()}

    def _stepper(self, kind: type[Action], h: Handler) -> Callable[[World, Action], World]:
        method = getattr(getattr(self, h.component), h.method)
        if h.whole_world:  # the handler builds the next world itself
            return lambda w, a: method(w)
        args = h.args
        f0 = args[0] if args else ""
        f1 = args[1] if len(args) > 1 else ""
        if kind.memo_key is Action.memo_key and kind.before is Action.before and not kind.budget and len(args) < 3:
            if len(args) == 1:
                def plain(w: World, a: Action) -> World:
                    tx = edit(w)
                    method(tx, getattr(a, f0))
                    return tx.freeze()
            elif len(args) == 2:
                def plain(w: World, a: Action) -> World:
                    tx = edit(w)
                    method(tx, getattr(a, f0), getattr(a, f1))
                    return tx.freeze()
            else:
                def plain(w: World, a: Action) -> World:
                    tx = edit(w)
                    method(tx)
                    return tx.freeze()
            return plain
        memo, before, budget = kind.memo_key is not Action.memo_key, kind.before is not Action.before, kind.budget

        def full(w: World, a: Action) -> World:
            key = a.memo_key(self, w) if memo else None
            if key is not None:
                remembered = self._fail_memo
                if remembered[0] is w and key in remembered[1]:
                    return remembered[1][key]
            tx = edit(w)
            if before:
                a.before(self, tx)
            if budget:
                tx.used = tx.used._replace(**{budget: getattr(tx.used, budget) + 1})
            method(tx, *[getattr(a, f) for f in args])
            if key is not None:
                return self._remember(w, key, tx.freeze())
            return tx.freeze()
        return full

    @property
    def handled_kinds(self) -> tuple[type[Action], ...]:
        """The action kinds this model's components handle."""
        return tuple(self._steps)

    def step(self, w: World, a: Action) -> World:
        """The world after ``a``, by the component method that handles its kind (``handlers``).
        ``a`` must be enabled in ``w`` (engines check this)."""
        if w.used.rescales & 1 != self.config:
            return self.at(w).step(w, a)
        stepper = self._steps.get(type(a))
        if stepper is None:  # pragma: no cover - engines only pass actions from enabled()
            raise TypeError(f"not an action of this model: {a!r}")
        return stepper(w, a)
