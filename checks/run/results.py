"""Per-property verdicts and the result of one check, with their JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ckptcheck.model.design import Design
from ckptcheck.model.scope import Scope

from ckptcheck.specs.verdicts import (EXHAUSTIVE_ENGINES, HIT, HOLDS, NOT_APPLICABLE, NOT_REACHED, OUTCOME_HOLDS, OUTCOME_INCOMPLETE,
                                      OUTCOME_SAMPLED, OUTCOME_VIOLATED, SAMPLED, UNKNOWN, VIOLATED)

__all__ = ["EXHAUSTIVE_ENGINES", "EXIT_STATUS", "HIT", "HOLDS", "NOT_APPLICABLE", "NOT_REACHED", "OUTCOME_HOLDS", "OUTCOME_INCOMPLETE",
           "OUTCOME_SAMPLED", "OUTCOME_VIOLATED", "SAMPLED", "UNKNOWN", "VIOLATED", "CheckResult", "Verdict"]

EXIT_STATUS = {OUTCOME_HOLDS: 0, OUTCOME_VIOLATED: 1, OUTCOME_INCOMPLETE: 3, OUTCOME_SAMPLED: 3}


@dataclass
class Verdict:
    property: str
    kind: str
    statement: str
    status: str
    reason: str | None = None
    trace: list | None = None  # actions (objects) of the counterexample or witness
    trace_file: str | None = None

    @property
    def failed(self) -> bool:
        return self.status == VIOLATED


@dataclass
class CheckResult:
    design: Design
    scope: Scope
    engine: str
    seed: int | None
    verdicts: list[Verdict]
    stats: dict[str, Any] = field(default_factory=dict)  # states, depth, elapsed, ...
    complete: bool = True
    symmetry: bool = False
    # the model that was searched: its properties, topology and traces (``checks.run.api.check`` sets it, so a
    # caller that saves traces or draws a report never builds the scope's model again)
    spec: Any = field(default=None, repr=False, compare=False)

    @property
    def violated(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.status == VIOLATED]

    @property
    def ok(self) -> bool:
        return not self.violated

    @property
    def unreached(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.status == NOT_REACHED]

    @property
    def outcome(self) -> str:
        """``holds`` only after an exhaustive search of the whole scope."""
        if self.violated:
            return OUTCOME_VIOLATED
        if self.engine not in EXHAUSTIVE_ENGINES:
            return OUTCOME_SAMPLED
        return OUTCOME_HOLDS if self.complete else OUTCOME_INCOMPLETE

    @property
    def interrupted(self) -> bool:
        return str(self.stats.get("stopped") or "").startswith("interrupted")

    @property
    def searched_whole_scope(self) -> bool:
        return self.engine in EXHAUSTIVE_ENGINES and self.complete

    @property
    def holds(self) -> bool:
        """Every property holds, and the whole scope was searched."""
        return self.outcome == OUTCOME_HOLDS

    @property
    def exit_status(self) -> int:
        return EXIT_STATUS[self.outcome]

    def searched(self) -> str:
        """What was searched, in words that cannot be mistaken for a proof when it is not one."""
        s = self.stats
        if self.engine in EXHAUSTIVE_ENGINES:
            figures = f"{s.get('states', 0):,} states to depth {s.get('depth', 0)}"
            if self.complete:
                return f"exhaustive search of the scope, {s.get('states', 0):,} states, depth {s.get('depth', 0)}"
            return f"{figures} (incomplete: {s.get('stopped') or 'stopped early'})"
        cut = f", {s['stopped']}" if s.get("stopped") else ""
        return f"{s.get('runs', 0):,} runs of up to {s.get('max_steps', s.get('max_depth', 0))} steps (sampled, seed {s.get('seed')}{cut})"

    def headline(self) -> str:
        """The one-line result: each outcome in its own words."""
        outcome = self.outcome
        if outcome == OUTCOME_VIOLATED:
            return f"{len(self.violated)} property(ies) violated"
        if outcome == OUTCOME_HOLDS:
            return f"every property holds: {self.searched()}"
        if outcome == OUTCOME_INCOMPLETE:
            return f"no violation in {self.searched()}: nothing is proved beyond what was searched"
        return f"no violation in {self.searched()}: nothing is proved"

    def verdict_words(self, v: Verdict) -> str:
        """A property's status as the console and reports say it."""
        if v.status == UNKNOWN:
            return f"no violation in {self.stats.get('states', 0):,} states (incomplete)"
        if v.status == SAMPLED:
            return f"no violation in {self.stats.get('runs', 0):,} runs (sampled)"
        if v.status == NOT_REACHED and not self.searched_whole_scope:
            return "not reached in the part searched"
        return v.status

    def verdict(self, name: str) -> Verdict:
        for v in self.verdicts:
            if v.property == name:
                return v
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {
            "design": {"name": self.design.name, "knobs": self.design.knobs(), "components": self.design.components()},
            "scope": self.scope.to_json(),
            "engine": self.engine,
            "seed": self.seed,
            "symmetry": self.symmetry,
            "complete": self.complete,
            "stats": self.stats,
            "outcome": self.outcome,
            "ok": self.holds,  # true only when every property holds after an exhaustive search
            "summary": self.headline(),
            "verdicts": [
                {
                    "property": v.property,
                    "kind": v.kind,
                    "statement": v.statement,
                    "status": v.status,
                    "says": self.verdict_words(v),
                    "reason": v.reason,
                    "trace_length": len(v.trace) if v.trace is not None else None,
                    "trace_file": v.trace_file,
                }
                for v in self.verdicts
            ],
        }
