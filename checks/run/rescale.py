"""``search``: the explorer on rescaling from mixed checkpoints, with the run as readable lines."""

from __future__ import annotations

from dataclasses import dataclass

from ckptcheck.model import mixed
from ckptcheck.specs.rescaling import EACH_PARTITION_ONCE, Rescaling

from ckptcheck.checks.engine.explore import explore


@dataclass(frozen=True)
class Outcome:
    ok: bool
    states: int
    trace: tuple[str, ...]  # the shortest violating run, one line per step
    reason: str | None


def search(kind: str, rule: str, *, depth: int = 6, **shape) -> Outcome:
    """Breadth-first over every run of at most ``depth`` steps (``shape``: partitions, start_p,
    parallelisms); a violation is reported on a shortest run."""
    spec = Rescaling(kind, rule, **shape)
    out = explore(spec, max_depth=depth)
    d = out.discoveries.get(EACH_PARTITION_ONCE.name)
    if d is None:
        return Outcome(True, out.states, (), None)
    job, lines = spec.initial_states()[0], []
    for a in d.path:
        lines.append(mixed.describe(job, a))
        job = spec.next_state(job, a)
    return Outcome(False, out.states, tuple(lines), d.reason)
