"""The scope: how much of the world a search covers.  Recorded in every result and trace."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from .topology import JobGraph


@dataclass(frozen=True)
class Scope:
    job: JobGraph
    job_name: str = "custom"
    records_per_split: int = 1
    bounded: bool = True  # sources end after their records (EndOfData); unbounded ones never do
    max_checkpoints: int = 2  # checkpoints triggered before every source reached end of input
    max_failures: int = 1
    max_declines: int = 1
    max_timeouts: int = 0
    max_lost_notifications: int = 1
    channel_capacity: int = 0  # records a producer's subpartition holds (0: unbounded); a full one backpressures its producer
    input_buffers: int = 0  # unaligned: records an input channel holds before its consumer reads them (0: read from the subpartition)

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name in ("job", "job_name", "bounded"):
                continue
            v = getattr(self, f.name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"scope.{f.name}: expected a non-negative integer, got {v!r}")
        if self.records_per_split < 0:
            raise ValueError("scope.records_per_split: must be >= 0")

    def with_(self, **changes: Any) -> "Scope":
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "job"}
        d["job"] = self.job.to_json()
        return d

    def describe(self) -> str:
        return (
            f"job {self.job_name} [{self.job.describe()}], {self.records_per_split} record(s)/split"
            f" ({'bounded' if self.bounded else 'unbounded'}), at most {self.max_checkpoints} checkpoint(s)"
            f" before end of input; faults: at most {self.max_failures} failure(s), {self.max_declines} decline(s),"
            f" {self.max_timeouts} timeout(s), {self.max_lost_notifications} lost notification(s)"
            + (f"; subpartitions hold {self.channel_capacity} record(s)" if self.channel_capacity else "")
            + (f", input channels {self.input_buffers}" if self.input_buffers else "")
        )


SCOPE_LIMITS = tuple(
    f.name for f in fields(Scope) if f.name not in ("job", "job_name", "bounded")
)
