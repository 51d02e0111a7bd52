"""What every action is: a small frozen record, the component method that handles it
(declared on the method with ``@handles``), and beside the record its words (``narrate``), its
footprint (``touch``, ``guard``, ``key``) and what a real run records for it (``observed``)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Callable, ClassVar, TypeVar

from ..topology import Expanded

if TYPE_CHECKING:  # pragma: no cover
    from ..footprint import Footprints
    from ..protocol import FlinkModel
    from ..world import World
    from .words import Event

#: every concrete action kind by its class name (``Action.__init_subclass__``)
ACTION_TYPES: dict[str, type["Action"]] = {}

#: the last element of an observation (``Action.observed``) that a real run may leave unrecorded
OPTIONAL = "optional"

F = TypeVar("F", bound=Callable[..., Any])


def handles(kind: type["Action"], *args: str, whole_world: bool = False) -> Callable[[F], F]:
    """Declare the component method that handles actions of ``kind``: ``FlinkModel.step``
    calls it with the step's transaction and the action's fields ``args``, in that order
    (``whole_world``: with the world alone, and it returns the next world, as a rescale that
    builds every subtask anew does).  One method per kind in a model; a subclass that overrides
    the method keeps the declaration (the model binds the method by name)."""

    def mark(fn: F) -> F:
        fn.__handles__ = (kind, args, whole_world)  # type: ignore[attr-defined]
        return fn

    return mark


class ActionError(ValueError):
    """A serialised action that cannot be read; ``field`` names the offending part."""

    def __init__(self, field_name: str, message: str):
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


@dataclass(frozen=True, slots=True)
class Action:
    """One step of the model.  ``fault``: an environment fault (liveness checks tell a run that
    is stuck from one that stopped injecting them); ``budget``: the ``Budget`` counter a step of
    it takes (``FlinkModel.step`` counts it before the handler runs).

    The model's own kinds are enabled by ``model.protocol_enabled``'s rule groups; a kind added
    beside them says when it is enabled with a classmethod ``enabled_in(model, w, out)`` that
    appends its enabled actions to ``out`` (the model adds it as a rule group wherever one of the
    design's components handles the kind).  Every concrete kind is registered by its class name
    (``ACTION_TYPES``), so that a trace can name it; a later class of the same name replaces an
    earlier one."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super(Action, cls).__init_subclass__(**kwargs)  # the slotted class (a zero-argument super names the first one)
        if not cls.__name__.startswith("_") and not cls.__dict__.get("abstract", False):
            ACTION_TYPES[cls.__name__] = cls

    fault: ClassVar[bool] = False
    budget: ClassVar[str] = ""
    enabled_in: ClassVar[Callable[..., None] | None] = None  # see the class docstring
    state_observed: ClassVar[bool] = True  # does a real run record what the step changed (``checks.validate``)?
    # fields holding a subtask id / channel id (serialised by name)
    _task_fields: ClassVar[tuple[str, ...]] = ()
    _channel_fields: ClassVar[tuple[str, ...]] = ()

    def _shown(self, topo: Expanded):
        """(field, value) with subtasks and channels by name."""
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in self._task_fields:
                v = topo.names[v]
            elif f.name in self._channel_fields:
                v = topo.channel_name(v)
            yield f.name, v

    def to_json(self, topo: Expanded) -> dict[str, Any]:
        return {"type": type(self).__name__, **dict(self._shown(topo))}

    def describe(self, topo: Expanded) -> str:
        return f"{type(self).__name__}({', '.join(str(v) for _, v in self._shown(topo))})"

    # -- the step ------------------------------------------------------------------------------
    def memo_key(self, model: "FlinkModel", w: "World") -> Any:
        """A key under which the successor of ``w`` by this action is the same for every action
        with that key (``FlinkModel.step`` computes it once per world), or None."""
        return None

    def before(self, model: "FlinkModel", tx: Any) -> None:
        """What the step does before the handler runs (an RPC that overtakes others is moved to
        the head of its inbox)."""

    # -- its words -----------------------------------------------------------------------------
    def narrate(self, model: "FlinkModel", w: "World", nxt: "World") -> tuple[str, list["Event"]]:
        """What the step did, in words, and its arrows and marks for a sequence diagram (the
        side effects every step may have are told by ``checks.run.narrate``)."""
        return self.describe(model.topo), []

    # -- its footprint (``model.footprint``) -----------------------------------------------------
    def key(self) -> tuple:
        """The kind and subject of the action: the actions that share it share a footprint."""
        return (type(self),)

    single: ClassVar[bool] = False  # the only action of its key, whatever the world (no checkpoint id in it)

    def touch(self, fp: "Footprints", w: "World | None", quiet: bool) -> int:
        """Every location the action may read or write (``Footprints.touch``)."""
        return fp.EVERY

    def guard(self, fp: "Footprints", quiet: bool) -> int:
        """What decides whether the action is enabled (``Footprints.guard``)."""
        return fp.EVERY

    # -- what a real run records (``checks.validate``) -------------------------------------------
    def observed(self, model: "FlinkModel", w: "World") -> list[tuple[int | None, tuple]]:
        """The events a real run records for this step beside those the observer reads off the
        change of state: (subtask, or None for the checkpoint coordinator, event key)."""
        return []
