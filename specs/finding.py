"""What the model finds in a design under review, as a manifest the findings report runs.

A design's findings are the scopes in which it is searched, and for each property it is
expected to violate there, the fix: the same design with one rule changed.  The manifest states
expectations only; ``checks.run.findings`` searches every scope afresh, reports what it finds
(including violations nobody listed, and listed ones it no longer finds), checks each fix in the
same scope, and says what holds with the scope searched.  ``tests/specs/test_findings.py`` holds the
manifest to the searches.  Each feature keeps its manifest in its folder (``flip600/findings.py``);
``specs.findings`` collects them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ckptcheck.model.design import KNOB_BY_NAME, Design
from ckptcheck.model.scope import Scope


@dataclass(frozen=True)
class Fix:
    """A property ``violates`` that ``design`` is expected to violate in the finding's scope, the
    rule responsible, and ``fixed``: the design with that rule changed, expected to hold there.
    ``readings``: the readings (``Readings``) under which the violation is expected; empty, all."""

    violates: str
    rule: str  # the design's rule that leads to the violation, with its source
    fixed: Design
    change: str  # the fix in one sentence
    readings: tuple = ()


@dataclass(frozen=True)
class Readings:
    """A rule of the design under review that its source does not settle, as the classes that read
    it: each a reading (``model.reading.Reading``, a component subclass selected by one value of
    its knob) or the component itself (the knob's default: the component's own rule).  The
    findings report searches every scope under each of them, and says per finding under which it
    holds: a verdict that depends on a reading is stated with it."""

    rules: tuple[type, ...]  # in the order the report lists them (the design's own is searched first)
    why: str  # why the source does not settle it

    def __post_init__(self) -> None:
        knobs = {c.knob for c in self.rules if getattr(c, "knob", "")}
        if len(knobs) != 1:
            raise ValueError(f"readings {[c.__name__ for c in self.rules]}: the reading classes must share one knob, not {knobs}")

    @property
    def knob(self) -> str:
        return next(c.knob for c in self.rules if getattr(c, "knob", ""))

    def value_of(self, rule: type) -> Any:
        """The knob value that selects ``rule`` (its default, for the component's own rule)."""
        return rule.value if getattr(rule, "knob", "") else KNOB_BY_NAME[self.knob].default

    @property
    def values(self) -> tuple:
        """Every value the knob may take under the source as read, one per class."""
        return tuple(self.value_of(c) for c in self.rules)

    def rule_of(self, value: Any) -> type:
        """The class that reads the rule as ``value``."""
        return next(c for c in self.rules if self.value_of(c) == value)

    def named(self, value: Any) -> str:
        """``value`` with the class that makes it, e.g. ``none (FallbackNoticeIgnored)``."""
        rule = self.rule_of(value)
        return f"{value} ({rule.__name__}{'' if getattr(rule, 'knob', '') else ', its own rule'})"

    def apply(self, design: Design, value) -> Design:
        """``design`` under reading ``value`` (the design itself when it already reads so)."""
        if design.knobs()[self.knob] == value:
            return design
        return design.with_(name=f"{design.name}[{self.knob}={value}]", **{self.knob: value})


@dataclass(frozen=True)
class RuleCheck:
    """One rule of the design under review, checked by its absence: ``without`` is the design with
    that rule dropped (a catalog variant), searched in ``scope``.  ``needed``: the manifest expects a
    violation there (the rule still carries weight); False: it expects none (the rule is moot in
    this design).  The report states what the search found, with the shortest counterexample of
    a rule that is still needed."""

    rule: str  # the rule, with its source
    without: Design
    scope_name: str
    scope: Scope
    needed: bool


@dataclass(frozen=True)
class FindingScope:
    name: str
    scope: Scope
    why: str  # what this scope can reach
    fixes: tuple[Fix, ...] = ()
    # knob settings a user of the design chooses for this scope (the fixes carry them too), e.g.
    # a failure ratio that lets two regions complete regionally; empty: the design's defaults
    settings: tuple[tuple[str, object], ...] = ()
    settings_why: str = ""  # why the scope departs from the design's own knobs (required with ``settings``)

    def __post_init__(self) -> None:
        if self.settings and not self.settings_why:
            raise ValueError(f"finding scope {self.name}: settings {self.settings} need settings_why")

    def configure(self, design: Design) -> Design:
        """The design as this scope runs it: with ``settings`` applied, under a name that says so."""
        if not self.settings:
            return design
        what = ", ".join(f"{k}={v}" for k, v in self.settings)
        return design.with_(name=f"{design.name}[{what}]", **dict(self.settings))
