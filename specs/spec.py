"""A spec binds a design and a scope to the model and the properties: what an engine checks.

Engines see only this small surface (the Stateright ``Model`` shape): ``initial_states()``,
``actions(s)``, ``next_state(s, a)`` (fused as ``successors(s)``), ``is_progress(a)``,
``canonical`` (or ``None``) and the property lists.  They never import the Flink model themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, Callable

from ckptcheck.model import symmetry
from ckptcheck.model.actions import Action, Rescale, action_from_json
from ckptcheck.model.design import Design
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.scope import Scope

from .properties import ALWAYS, BASELINE_PROPERTIES, EVENTUALLY, SOMETIMES, Property


@dataclass(frozen=True, eq=False)
class Spec:
    design: Design
    scope: Scope
    properties: tuple[Property, ...] = BASELINE_PROPERTIES
    symmetry: bool = False
    model: FlinkModel = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "model", FlinkModel(self.design, self.scope))

    # engine surface -------------------------------------------------------------------------
    def initial_states(self) -> list:
        return [self.model.initial()]

    def actions(self, s) -> list[Action]:
        return self.model.enabled(s)

    def next_state(self, s, a: Action):
        return self.model.step(s, a)

    def successors(self, s) -> list:
        """``(action, next state)`` for every action enabled in ``s``: ``actions`` and
        ``next_state`` fused (one call less per transition; engines use it only where it is
        as derived as both, ``checks.engine.bfs.successors_of``)."""
        step = self.model.step
        return [(a, step(s, a)) for a in self.model.enabled(s)]

    @staticmethod
    def is_progress(a: Action) -> bool:
        return not a.fault

    @cached_property
    def permutations(self) -> list:
        return subtask_permutations(self.design, self.scope) if self.symmetry else []

    @cached_property
    def canonical(self) -> Callable | None:
        perms = self.permutations
        if not perms:
            return None
        return symmetry.Canonical(perms)

    def _bound(self, kind: str) -> list[tuple[Property, Callable]]:
        """Each property with its check bound to the model; with a rescale in the scope, to the
        model of the parallelism the (first) world runs at."""
        model = self.model
        if len(model.configs) == 1:
            return [(p, partial(p.check, model)) for p in self.applicable if p.kind == kind]

        def bind(check: Callable) -> Callable:
            return lambda w, *rest: check(model.at(w), w, *rest)

        return [(p, bind(p.check)) for p in self.applicable if p.kind == kind]

    @cached_property
    def applicable(self) -> tuple[Property, ...]:
        return tuple(p for p in self.properties if p.applies(self.design, self.scope))

    @cached_property
    def always(self) -> list[tuple[Property, Callable]]:
        return self._bound(ALWAYS)

    @cached_property
    def eventually(self) -> list[tuple[Property, Callable]]:
        return self._bound(EVENTUALLY)

    @cached_property
    def sometimes(self) -> list[tuple[Property, Callable]]:
        return self._bound(SOMETIMES)

    # verdicts on one run -----------------------------------------------------------------------
    def always_violation(self, w, step: int) -> dict | None:
        """The first ``always`` property that ``w`` (reached after ``step`` actions) violates."""
        for prop, check in self.always:
            why = check(w)
            if why is not None:
                return {"property": prop.name, "kind": prop.kind, "step": step, "reason": why}
        return None

    def violation_of(self, name: str, w, step: int, end: bool) -> dict | None:
        """Does ``w`` violate property ``name``?  An ``eventually`` property is judged only at
        the end of a run (``end``) and where no progress is possible."""
        for prop, check in self.always + self.eventually:
            if prop.name != name:
                continue
            if prop.kind != ALWAYS and not (end and not any(self.is_progress(a) for a in self.actions(w))):
                return None
            why = check(w)
            return None if why is None else {"property": prop.name, "kind": prop.kind, "step": step, "reason": why}
        return None

    def end_violation(self, w, step: int) -> dict | None:
        """Where no progress action is enabled in ``w``: the first ``eventually`` violation."""
        if any(self.is_progress(a) for a in self.actions(w)):
            return None
        for prop, check in self.eventually:
            why = check(w)
            if why is not None:
                return {"property": prop.name, "kind": prop.kind, "step": step, "reason": why}
        return None

    # serialisation and display ----------------------------------------------------------------
    def topo_after(self, rescales: int):
        """The subtask and channel names after ``rescales`` rescales (a ``Rescale`` changes them)."""
        configs = self.model.configs
        return configs[rescales % len(configs)].topo

    def actions_to_json(self, actions: list) -> list[dict[str, Any]]:
        """A run's actions, each named at the parallelism it was taken at."""
        out, n = [], 0
        for a in actions:
            out.append(a.to_json(self.topo_after(n)))
            n += type(a) is Rescale
        return out

    def action_to_json(self, a: Action, rescales: int = 0) -> dict[str, Any]:
        return a.to_json(self.topo_after(rescales))

    def action_from_json(self, data: Any, where: str = "action", rescales: int = 0) -> Action:
        return action_from_json(data, self.topo_after(rescales), where)

    def describe_action(self, a: Action, rescales: int = 0) -> str:
        return a.describe(self.topo_after(rescales))


def subtask_permutations(design: Design, scope: Scope) -> list:
    """The permutations of subtask indexes that map the job onto itself, where the design allows any.
    Task-manager placement (file merging) is by subtask index: no index permutation there; channel
    state and the channels' two ends are not permuted (unaligned checkpoints); a rescale's
    redistribution depends on subtask indexes.  Computed from the job alone: asking whether symmetry
    applies builds no model."""
    if design.file_merging or design.checkpoint_mode != "aligned" or scope.max_rescales:
        return []
    return symmetry.permutations(scope.job.expand())


def why_not_symmetric(design: Design, scope: Scope) -> tuple[str, str] | None:
    """Why symmetry reduction does not apply to ``design`` in ``scope`` (the thing at fault and the reason),
    or ``None`` where it does.  It needs interchangeable subtasks (forward edges only, equal parallelism, no
    split enumerator, no task-manager file merging, aligned checkpoints) and the preset components, or
    replaced ones that declare ``treats_subtasks_alike`` (``Design.unlike_subtasks``): another replaced
    component may treat subtask indexes differently.  The one test ``check``, ``catalog`` and ``findings``
    all use."""
    if design.unlike_subtasks():
        return (f"design {design.name}", f"replaces components ({', '.join(design.unlike_subtasks())}) that may treat"
                " subtask indexes differently (their classes do not declare treats_subtasks_alike = True)")
    if not subtask_permutations(design, scope):
        return (f"job {scope.job_name}", f"no interchangeable subtasks for {design.name} (symmetry needs forward edges only,"
                " equal parallelism, no split enumerator, no task-manager file merging, aligned checkpoints)")
    return None


def symmetric(design: Design, scope: Scope) -> bool:
    """Does symmetry reduction apply (as ``ckptcheck check`` decides by default)?"""
    return why_not_symmetric(design, scope) is None
