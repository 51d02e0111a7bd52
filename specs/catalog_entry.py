"""A catalog entry (:class:`Entry`: a flawed design, the property it must violate, the scope in
which the violation is reachable, and the correct design checked on the same scope).  Traces
name a variant class by its registry id, its class name (``model.component.component_id``)."""

from __future__ import annotations

from dataclasses import dataclass

from ckptcheck.model.design import Design
from ckptcheck.model.scope import Scope

from .designs import BASELINE

@dataclass(frozen=True)
class Entry:
    name: str
    design: Design
    violates: str  # the property it must violate
    scope: Scope
    origin: str
    correct: Design = BASELINE  # the correct design, checked on the same scope
