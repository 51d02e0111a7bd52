"""The vocabulary of the properties (``ckptcheck.specs.properties``): a ``Property`` and its
three kinds, and the helpers more than one feature module uses: ``rec`` names a record,
``_first_over_store`` asks a cached verdict of each retained checkpoint, and ``_bounded`` and
``_regional`` are the ``applies`` predicates of more than one feature."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import World

ALWAYS = "always"
EVENTUALLY = "eventually"
SOMETIMES = "sometimes"


def _always_applies(design, scope) -> bool:
    return True


def _bounded(design, scope) -> bool:
    return scope.bounded


def _regional(design, scope) -> bool:
    return design.regional_checkpoints


@dataclass(frozen=True)
class Property:
    name: str
    kind: str
    statement: str
    check: Callable  # (model, world) or (model, prev, action, next) -> str | None
    applies: Callable = _always_applies  # (design, scope) -> bool: does the property mean anything here?


def rec(r: tuple[int, int]) -> str:
    return f"(split {r[0]}, offset {r[1]})"


def _first_over_store(m: FlinkModel, w: World, verdict: Callable) -> str | None:
    """The first retained checkpoint's reason from ``verdict(m, checkpoint)`` (a cached
    function: checkpoints repeat across millions of worlds)."""
    for c in w.coord.store:
        why = verdict(m.model_of(c), c)
        if why:
            return why
    return None
