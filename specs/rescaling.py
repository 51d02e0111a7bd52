"""Rescaling from mixed checkpoints (``model.mixed``) behind the engine surface, so the
project's explorer checks it like any other model (``checks.run.rescale.search``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from ckptcheck.model import mixed

from .properties import ALWAYS, Property

EACH_PARTITION_ONCE = Property(
    "each-partition-once",
    ALWAYS,
    "the latest checkpoint holds every partition once, at one offset, and after a restore every partition has one owner",
    None,
)


def each_partition_once(partitions: int, job: mixed.Job) -> str | None:
    why = mixed.violation(job.latest, partitions) if job.latest is not None else None
    return why or mixed.restored_violation(job, partitions)


@dataclass(frozen=True, eq=False)
class Rescaling:
    """One operator's list state (``kind``: even-split or union) through global and regional
    checkpoints (failed subtasks fall back by ``rule``) and rescales among ``parallelisms``."""

    kind: str
    rule: str
    partitions: int = 4
    start_p: int = 4
    parallelisms: tuple[int, ...] = (1, 2, 4)
    canonical = None
    eventually: tuple = ()
    sometimes: tuple = ()
    always: tuple = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "always", ((EACH_PARTITION_ONCE, partial(each_partition_once, self.partitions)),))

    def initial_states(self) -> list[mixed.Job]:
        return [mixed.initial(self.partitions, self.start_p)]

    def actions(self, job: mixed.Job) -> list[tuple]:
        return mixed.actions(job, self.parallelisms)

    def next_state(self, job: mixed.Job, a: tuple) -> mixed.Job:
        return mixed.step(job, a, self.kind, self.rule)

    @staticmethod
    def is_progress(a) -> bool:
        return True
