"""The base of the model's components: one class per Flink component, each module named after the
Flink class whose rules it holds, composed by the model; the peers a component calls, the
registry ids traces name classes by, and the ``@follows`` tag naming a rule's Flink method.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from .assignment import StateAssignmentOperation
    from .barriers import CheckpointBarrierHandler
    from .checkpoint_plan import CheckpointPlanCalculator
    from .coordinator import CheckpointCoordinator
    from .design import Design
    from .failover import FailoverStrategy
    from .gateway import OperatorCoordinatorHolder
    from .local_state import TaskLocalStateStore
    from .network_input import StreamTaskNetworkInput
    from .nullstate import NullStateRecovery
    from .partitioner import StreamPartitioner
    from .protocol import FlinkModel
    from .regional import RegionalCheckpointHandler
    from .registry import SharedStateRegistry
    from .request_decider import CheckpointRequestDecider
    from .scope import Scope
    from .sinks import TwoPhaseCommitSink
    from .sinkv2 import CommitterOperator, GlobalCommitterOperator, SinkWriterOperator
    from .sources import SourceReader, SplitEnumerator
    from .store import CompletedCheckpointStore, FileMergingSnapshotManager
    from .subtask_checkpoint import SubtaskCheckpointCoordinator
    from .task import StreamTask
    from .topology import Expanded


class Peers:
    """The components of one model, one per design field (``model.design.COMPONENTS``), each
    the instance of the class the design names.  ``FlinkModel`` sets them on itself and on every
    component it builds (``FlinkModel.__post_init__``); declared here so that a reader, mypy and
    go-to-definition follow ``self.regional.on_decline`` to ``RegionalCheckpointHandler``.
    ``tests/model/test_types.py`` checks that this list and ``COMPONENTS`` agree."""

    partitioner: "StreamPartitioner"
    source: "SourceReader"
    enumerator: "SplitEnumerator"
    gateways: "OperatorCoordinatorHolder"
    barriers: "CheckpointBarrierHandler"
    sink: "TwoPhaseCommitSink"
    writer: "SinkWriterOperator"
    committer: "CommitterOperator"
    global_committer: "GlobalCommitterOperator"
    task: "StreamTask"
    network_input: "StreamTaskNetworkInput"
    subtask_checkpoint: "SubtaskCheckpointCoordinator"
    coordinator: "CheckpointCoordinator"
    request_decider: "CheckpointRequestDecider"
    checkpoint_plan: "CheckpointPlanCalculator"
    regional: "RegionalCheckpointHandler"
    store: "CompletedCheckpointStore"
    registry: "SharedStateRegistry"
    file_merging_manager: "FileMergingSnapshotManager"
    failover: "FailoverStrategy"
    assignment: "StateAssignmentOperation"
    null_state: "NullStateRecovery"
    local_state: "TaskLocalStateStore"


#: registry id (the class name) -> the component class: every component class of ckptcheck's own
#: (the model's components and readings, the catalog's variants), registered as it is defined;
#: a name defined twice names neither (``component_id`` then falls back to the class's path)
COMPONENT_IDS: dict[str, type | None] = {}


def component_id(cls: type) -> str:
    """How traces, results and reports name a component class: its registry id (the class name)
    for a class of ckptcheck's own, else ``module.QualName`` for a class a user wrote."""
    if COMPONENT_IDS.get(cls.__name__) is cls:
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


def names_component(recorded: str, cls: type) -> bool:
    """Does ``recorded``, a component name a trace or result holds, name ``cls``?  Its id, or the
    ``ckptcheck.<module>.<Name>`` path that traces recorded before the ids (the same class,
    wherever its module is now)."""
    mine = component_id(cls)
    return recorded == mine or (recorded.startswith("ckptcheck.") and recorded.rpartition(".")[2] == mine)


class Component(Peers):
    """One Flink component's rules, bound to a model (a design in a scope).

    So "what happens when a decline arrives" is answered in the file named after the class that
    handles it in Flink (``coordinator.py`` for ``CheckpointCoordinator``).  A design variant
    replaces a rule by subclassing one component and overriding one method::

        class EagerCleaner(CompletedCheckpointStore):
            def discard(self, subsumed, retained, pending):
                return subsumed + retained

        BASELINE.with_(name="eager-cleaner", store=EagerCleaner)

    Every component sees the model it belongs to (``self.model``), the design's knobs
    (``self.design``), the expanded job (``self.topo``) and its peers (``Peers``), through which
    it calls their rules.  Components hold no state of their own: everything that changes lives
    in the world, so a component is a set of pure rules over ``(world, event)``.

    ``treats_subtasks_alike``: a variant class sets it to ``True`` to declare that its rules do
    not depend on subtask indexes: renaming the subtasks of a job whose subtasks are
    interchangeable (``model.symmetry``) commutes with every rule it changes, so symmetry
    reduction stays sound with it (``ckptcheck check`` keeps it on where every replaced component
    declares this).  A rule that treats one index unlike another (picks subtask 0, breaks a tie
    or orders by index) must not declare it; one that relates indexes the same way whatever
    they are (subtask i of every vertex together) may.  The declaration is the class's own: a
    subclass of a declaring class declares again (``declares_alike``).  The commutation test
    of ``tests/checks/engine/test_explore.py`` checks every catalog variant that declares it on random runs
    (``assert_step_commutes``, which a test of a variant of one's own can call too)."""

    treats_subtasks_alike: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("ckptcheck.") and "+" not in cls.__name__:
            known = COMPONENT_IDS.get(cls.__name__, cls)
            COMPONENT_IDS[cls.__name__] = cls if known is cls or (known is not None and known.__qualname__ == cls.__qualname__
                                                                     and known.__module__ == cls.__module__) else None

    def __init__(self, model: "FlinkModel"):
        self.model = model
        self.design: Design = model.design
        self.scope: Scope = model.scope
        self.topo: Expanded = model.topo

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}({self.design.name})"


F = TypeVar("F", bound=Callable[..., Any])


def peer_names() -> tuple[str, ...]:
    """The peers every component (and the model) declares."""
    return tuple(Peers.__annotations__)


def declares_alike(cls: type) -> bool:
    """Does component class ``cls`` itself (not a class it inherits from) declare
    ``treats_subtasks_alike``?"""
    return bool(cls.__dict__.get("treats_subtasks_alike", False))


def follows(*methods: str) -> Callable[[F], F]:
    """Tag a rule with the Flink method(s) it follows, as ``Class.method`` (Flink 2.3.0), or
    ``#PR Class.method`` for a pull request's code that is not in a release.  The tags are
    data: ``checks.docgen`` builds the "Flink method -> model rule" page from them, and
    ``tests/docs/test_flink_index.py`` checks each 2.3.0 tag against Flink's jar."""

    def tag(fn: F) -> F:
        fn.__flink__ = methods  # type: ignore[attr-defined]
        return fn

    return tag


def flink_tags(cls: type) -> dict[str, tuple[str, ...]]:
    """The tagged rules of component class ``cls`` and the classes it derives from, by name
    (``Class.rule`` of the class that defines it)."""
    out: dict[str, tuple[str, ...]] = {}
    for klass in reversed(cls.__mro__):
        for attr, fn in vars(klass).items():
            target = fn.fget if isinstance(fn, property) else getattr(fn, "func", fn)
            tags = getattr(target, "__flink__", None)
            if tags:
                out[f"{klass.__name__}.{attr}"] = tags
    return out
