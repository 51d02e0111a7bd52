"""A catalog entry (:class:`Entry`: a flawed design, the property it must violate, the scope in
which the violation is reachable, and the correct design checked on the same scope), and
:func:`catalog_class`, which keeps each ``specs.catalog_*`` variant class recorded as
``ckptcheck.specs.catalog.<Class>``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from ckptcheck.model.design import Design
from ckptcheck.model.scope import Scope

from .designs import BASELINE

CATALOG_MODULE = "ckptcheck.specs.catalog"

V = TypeVar("V", bound=type)


def catalog_class(cls: V) -> V:
    """Give a variant class the qualified name it had when the catalog was one module,
    ``ckptcheck.specs.catalog.<Class>``.  Results and traces record a design's components by
    qualified name (``model.design.qualified_name``), and a replay refuses a trace whose names
    differ from those of the design it resolves to (``specs.portable.design_from_trace``), so the
    name must stay what earlier traces recorded.  ``specs.catalog`` imports every variant
    class: the name also resolves (for ``pickle`` too)."""
    cls.__module__ = CATALOG_MODULE
    return cls


@dataclass(frozen=True)
class Entry:
    name: str
    design: Design
    violates: str  # the property it must violate
    scope: Scope
    origin: str
    correct: Design = BASELINE  # the correct design, checked on the same scope
