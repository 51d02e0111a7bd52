"""Per-property verdicts and the result of one check, with their JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from model.design import Design
from model.scope import Scope

HOLDS = "holds"  # always/eventually: no violation in the searched space
VIOLATED = "violated"
HIT = "hit"  # sometimes: a witness was found
NOT_REACHED = "not reached"  # sometimes: no witness; the check may be vacuous
UNKNOWN = "unknown"  # the search stopped early before a verdict could be given
NOT_APPLICABLE = "not applicable"  # the property means nothing in this scope (e.g. termination of an unbounded job)


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

    @property
    def violated(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.status == VIOLATED]

    @property
    def ok(self) -> bool:
        return not self.violated

    @property
    def unreached(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.status == NOT_REACHED]

    def verdict(self, name: str) -> Verdict:
        for v in self.verdicts:
            if v.property == name:
                return v
        raise KeyError(name)

    def to_json(self, spec) -> dict[str, Any]:
        return {
            "design": {"name": self.design.name, "knobs": self.design.knobs(), "policies": self.design.policies()},
            "scope": self.scope.to_json(),
            "engine": self.engine,
            "seed": self.seed,
            "symmetry": self.symmetry,
            "complete": self.complete,
            "stats": self.stats,
            "ok": self.ok,
            "verdicts": [
                {
                    "property": v.property,
                    "kind": v.kind,
                    "statement": v.statement,
                    "status": v.status,
                    "reason": v.reason,
                    "trace_length": len(v.trace) if v.trace is not None else None,
                    "trace_file": v.trace_file,
                }
                for v in self.verdicts
            ],
        }
