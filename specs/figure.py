"""A ``Figure``: one exhaustive search whose counts a page states (a preset, a scope, symmetry on or
off, and what the search gives).  Each feature lists its figures in its folder; ``specs.figures``
collects them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ckptcheck.model.scope import Scope

CLAIMS, ONCE = "claims", "once"
GENERIC = "tests/specs/test_figures.py::test_figure"  # the test that searches every figure no other test names


@dataclass(frozen=True)
class Figure:
    id: str
    design: str
    scope: Callable[[], Scope]
    symmetry: bool
    states: int | None
    transitions: int | None
    depth: int | None
    tier: str
    cost: str
    what: str
    violates: tuple[str, ...] = ()  # the properties the search finds violated (none: every property holds)
    unreached: tuple[str, ...] | None = ()  # applicable witnesses the search does not hit (none: every one is hit)
    workers: int = 2
    test: str = GENERIC
    """``unreached=None``: the scope is not meant to reach every witness, so only the verdicts and
    the counts are compared."""

    def numbers(self) -> tuple[int, ...]:
        return tuple(n for n in (self.states, self.transitions) if n is not None)

    @property
    def seconds(self) -> float | None:
        """``cost`` in seconds: the upper end of a range, a minute as 60 s, under a second as 1 s; None
        where ``cost`` names no time."""
        if self.cost.startswith("under a second"):
            return 1.0
        m = re.search(r"([\d,.]+)(?:-([\d,.]+))? (s\b|seconds?|minutes?)", self.cost)
        if m is None:
            return None
        value = float((m.group(2) or m.group(1)).replace(",", ""))
        return value * 60 if m.group(3).startswith("minute") else value

    @property
    def verdict(self) -> str:
        return f"violates {', '.join(self.violates)}" if self.violates else "holds"

