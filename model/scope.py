"""The scope: how much of the world a search covers.  Recorded in every result and trace."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from .topology import JobGraph, Role, StateKind, edge_name


# scope fields that are not non-negative limits
NOT_LIMITS = ("job", "job_name", "bounded", "rescale", "repattern", "staggered_triggers", "stop_with_savepoint",
              "instant_acks", "spanning_records", "rpcs_overtake", "late_finish_reports",
              "rescaled_tasks_decline", "suspend_on_failure", "restart_aligned")
STOP_MODES = ("", "drain", "no-drain")


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
    # JobManager failovers (``JobManagerFailover``, an HA setup): the JobManager process fails and a
    # new one recovers the job from the HA store with a new CheckpointCoordinator
    max_jm_failovers: int = 0
    channel_capacity: int = 0  # records a producer's subpartition holds (0: unbounded); a full one backpressures its producer
    input_buffers: int = 0  # unaligned: records an input channel holds before its consumer reads them (0: read from the subpartition)
    rescale: tuple = ()  # ((vertex name, new parallelism), ...): the parallelism a ``Rescale`` restarts the job with
    max_rescales: int = 0  # restarts at another parallelism (each one toggles between the job's and ``rescale``'s)
    repattern: tuple = ()  # edge names (``topology.edge_name``) whose pattern the rescaled job flips (POINTWISE <-> ALL_TO_ALL)
    keys_per_split: int = 0  # 0: every record its own key; k: record (s, o) has key 1000*s + o % k (per-key order is checked)
    staggered_triggers: bool = False  # each task's trigger RPC arrives in a step of its own (False: all in the trigger's step)
    stop_with_savepoint: str = ""  # "drain" / "no-drain": the user may stop the job once with a savepoint ("": never)
    instant_acks: bool = False  # a reduction: acks count at the snapshot, the last one is a step (model.coordinator)
    spanning_records: bool = False  # unaligned: a record may straddle two buffers (its head read, its tail still queued)
    # with staggered triggers: a trigger RPC and a completion or abort notice sent to one task may
    # arrive in either order (``TaskState.inbox`` keeps each kind in order, not the two together)
    rpcs_overtake: bool = False
    # with staggered triggers: the JobManager learns that a task FINISHED in a step of its own
    # (``FinishReported``); until then its plan treats the task as running and triggers it
    late_finish_reports: bool = False
    # unaligned, with rescales: a subtask restored at a new parallelism declines a checkpoint
    # (TASK_NOT_READY, uncounted) until its recovered channel state is read
    # (``RescalingStreamTaskNetworkInput.prepareSnapshot``); otherwise it takes the checkpoint
    rescaled_tasks_decline: bool = False
    # Flink 2.3's ``ExecutionTrackingCheckpointCoordinatorDeActivator``: the checkpoint scheduler
    # stops while an execution is not RUNNING or FINISHED, so a task failure aborts the pending
    # checkpoints (CHECKPOINT_COORDINATOR_SUSPEND, uncounted) and nothing is triggered until every
    # restored subtask read its recovered input channel state (INITIALIZING until then); otherwise
    # a pending checkpoint survives a failure until the restore aborts it (rows N7, N8)
    suspend_on_failure: bool = False
    # the user's restart (``Rescale``, at the job's own parallelism: ``rescale`` stays empty) turns
    # unaligned checkpoints off (``execution.checkpointing.unaligned.enabled`` false): the restarted
    # job restores the checkpoint's channel state and takes aligned checkpoints (``FlinkModel.unaligned``)
    restart_aligned: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name in NOT_LIMITS:
                continue
            v = getattr(self, f.name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"scope.{f.name}: expected a non-negative integer, got {v!r}")
        for name in ("bounded", "staggered_triggers", "instant_acks", "spanning_records", "rpcs_overtake",
                     "late_finish_reports", "rescaled_tasks_decline", "suspend_on_failure", "restart_aligned"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"scope.{name}: expected true or false, got {getattr(self, name)!r}")
        if self.stop_with_savepoint not in STOP_MODES:
            raise ValueError(f"scope.stop_with_savepoint: expected one of {', '.join(repr(x) for x in STOP_MODES)},"
                             f" got {self.stop_with_savepoint!r}")
        if self.records_per_split < 0:
            raise ValueError("scope.records_per_split: must be >= 0")
        self._check_rescale()

    def _check_rescale(self) -> None:
        """``rescale`` names non-source vertices of the job and a new parallelism for each, within
        its max parallelism (which a restore keeps, as Flink requires); union state is refused
        (its restore depends on what the operator selects from the whole list), so is a Sink V2
        operator (``model.sinkv2``: committables name their writer by subtask), and so is a
        vertex with a split enumerator after a rescaled one (the enumerator names its readers by
        subtask id)."""
        if not isinstance(self.rescale, tuple):
            raise ValueError(f"scope.rescale: expected a tuple of (vertex, parallelism) pairs, got {self.rescale!r}")
        seen = set()
        for k, entry in enumerate(self.rescale):
            where = f"scope.rescale[{k}]"
            if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str)
                    and isinstance(entry[1], int) and not isinstance(entry[1], bool)):
                raise ValueError(f"{where}: expected (vertex name, parallelism), got {entry!r}")
            name, p = entry
            v = next((v for v in self.job.vertices if v.name == name), None)
            if v is None:
                raise ValueError(f"{where}: no vertex named {name!r} in the job (vertices: {', '.join(x.name for x in self.job.vertices)})")
            if name in seen:
                raise ValueError(f"{where}: vertex {name!r} is named twice")
            seen.add(name)
            if v.role is Role.SOURCE:
                raise ValueError(f"{where}: {name!r} is a source; rescaling sources (split reassignment) is not modelled")
            if StateKind.UNION in v.state:
                raise ValueError(f"{where}: {name!r} has union list state; rescaling it is not modelled")
            if v.sink_v2:
                raise ValueError(f"{where}: {name!r} is the {v.sink_v2} of a Sink V2 sink; rescaling it is not modelled")
            if not 1 <= p <= v.max_p:
                raise ValueError(f"{where}: parallelism must be in 1..{v.max_p} (the max parallelism of {name!r}), got {p}")
            if p == v.parallelism:
                raise ValueError(f"{where}: {name!r} already runs at parallelism {p}")
        names = [v.name for v in self.job.vertices]
        first = min((names.index(n) for n in seen), default=len(names))
        late = [v.name for v in self.job.vertices[first + 1:] if v.coordinator]
        if late:
            raise ValueError(f"scope.rescale: the split enumerator of {late[0]!r} comes after a rescaled vertex in the job;"
                             " its readers' subtask ids would shift (put sources with an enumerator first)")
        if self.restart_aligned:
            if self.rescale:
                raise ValueError("scope.restart_aligned: the restart without unaligned checkpoints is modelled at the job's own"
                                 " parallelism (leave scope.rescale empty)")
            if not self.max_rescales:
                raise ValueError("scope.restart_aligned: needs scope.max_rescales > 0 (the restart is a Rescale at the same"
                                 " parallelism)")
        elif self.max_rescales and not self.rescale:
            raise ValueError("scope.max_rescales: > 0 needs scope.rescale (which vertex, at which parallelism)")
        self._check_repattern()

    def _check_repattern(self) -> None:
        """``repattern`` names edges of the job, each once, and comes with a rescale: a pattern
        change is a restore at another parallelism (the pointwise-UC thread's four pattern changes)."""
        if not isinstance(self.repattern, tuple) or not all(isinstance(x, str) for x in self.repattern):
            raise ValueError(f"scope.repattern: expected a tuple of edge names like 'source->sink', got {self.repattern!r}")
        names = [edge_name(e) for e in self.job.edges]
        for k, name in enumerate(self.repattern):
            if name not in names:
                raise ValueError(f"scope.repattern[{k}]: no edge named {name!r} in the job (edges: {', '.join(names)})")
            if name in self.repattern[:k]:
                raise ValueError(f"scope.repattern[{k}]: edge {name!r} is named twice")
        if self.repattern and not self.rescale:
            raise ValueError("scope.repattern: a pattern change needs a rescale (scope.rescale, --rescale): it happens at a restore"
                             " at another parallelism")

    @property
    def rescaled_job(self) -> JobGraph:
        """The job at the parallelism ``rescale`` gives (max parallelism kept), with the
        ``repattern`` edges' patterns flipped."""
        job = self.job.rescaled(dict(self.rescale))
        return job.repatterned(self.repattern) if self.repattern else job

    def with_(self, **changes: Any) -> "Scope":
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "job"}
        d["job"] = self.job.to_json()
        d["rescale"] = [list(x) for x in self.rescale]
        d["repattern"] = list(self.repattern)
        return d

    def describe(self) -> str:
        return (
            f"job {self.job_name} [{self.job.describe()}], {self.records_per_split} record(s)/split"
            f" ({'bounded' if self.bounded else 'unbounded'}), at most {self.max_checkpoints} checkpoint(s)"
            f" before end of input; faults: at most {self.max_failures} failure(s), {self.max_declines} decline(s),"
            f" {self.max_timeouts} timeout(s), {self.max_lost_notifications} lost notification(s)"
            + (f", {self.max_jm_failovers} JobManager failover(s)" if self.max_jm_failovers else "")
            + (f"; subpartitions hold {self.channel_capacity} record(s)" if self.channel_capacity else "")
            + (f"; the records of a split share {self.keys_per_split} key(s)" if self.keys_per_split else "")
            + (f", input channels {self.input_buffers}" if self.input_buffers else "")
            + ("; trigger RPCs arrive one task at a time" if self.staggered_triggers else "")
            + (", and may overtake the notices sent before them (and be overtaken)" if self.rpcs_overtake else "")
            + ("; the JobManager learns of a finished task a step later" if self.late_finish_reports else "")
            + ("; a rescaled subtask declines checkpoints until its channel state is read"
               if self.rescaled_tasks_decline and self.max_rescales else "")
            + ("; a failure stops the checkpoint scheduler until every subtask runs again"
               if self.suspend_on_failure else "")
            + ("; acknowledgements in flight folded into the pending checkpoint (instant acks)" if self.instant_acks else "")
            + ("; records may straddle two buffers" if self.spanning_records else "")
            + (f"; the user may stop the job with a savepoint ({'--drain' if self.stop_with_savepoint == 'drain' else 'without --drain'})"
               if self.stop_with_savepoint else "")
            + (f"; at most {self.max_rescales} rescale(s) to " + ", ".join(f"{n} at {p}" for n, p in self.rescale)
               if self.max_rescales and not self.restart_aligned else "")
            + (f"; at most {self.max_rescales} restart(s) by the user, each toggling unaligned checkpoints (the first turns"
               " them off)" if self.restart_aligned else "")
            + (f", flipping the pattern of {', '.join(self.repattern)}" if self.max_rescales and self.repattern else "")
        )


SCOPE_LIMITS = tuple(f.name for f in fields(Scope) if f.name not in NOT_LIMITS)
