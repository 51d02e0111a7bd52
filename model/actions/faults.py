"""The faults: a declined snapshot, a timeout, a failed subtask, a JobManager failover and a lost
RPC.  Each takes one unit of the scope's budget for it (``Action.budget``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..world import FAILED, World
from .base import Action
from .data import TaskAction
from .words import COORDINATOR, Event

if TYPE_CHECKING:  # pragma: no cover
    from ..footprint import Footprints
    from ..protocol import FlinkModel


@dataclass(frozen=True, slots=True)
class Decline(Action):
    """Fault: the asynchronous part of a subtask's snapshot fails; it declines instead of acking."""

    task: int
    checkpoint: int
    fault: ClassVar[bool] = True
    budget: ClassVar[str] = "declines"
    _task_fields: ClassVar = ("task",)

    def memo_key(self, model: "FlinkModel", w: World) -> Any:
        """A decline that fails the job over globally does not depend on who declined
        (``CheckpointCoordinator.decline_fails_job``), while the rules it runs are the stock ones."""
        if model._decline_memo and model.coordinator.decline_fails_job(w, self.checkpoint):
            return ("global decline", self.checkpoint)
        return None

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        names = model.topo.names
        text = f"FAULT: {names[self.task]} declines checkpoint {self.checkpoint} (its asynchronous snapshot failed)"
        failed = [names[t] for t, ts in enumerate(nxt.tasks) if ts.status == FAILED and w.tasks[t].status != FAILED]
        if failed:
            text += (f"; the CheckpointFailureManager counts the failure past the tolerable"
                     f" {model.design.tolerable_failed_checkpoints} and fails the job over: {', '.join(failed)}"
                     " are cancelled, to be restored from the latest completed checkpoint")
        return text, [Event(names[self.task], COORDINATOR, f"decline {self.checkpoint}", "fault")]

    def observed(self, model: "FlinkModel", w: World) -> list[tuple[int | None, tuple]]:
        return [(None, ("aborted", self.checkpoint, "declined"))]


@dataclass(frozen=True, slots=True)
class Timeout(Action):
    """Fault: the checkpoint's timeout fires before every task acknowledged."""

    checkpoint: int
    fault: ClassVar[bool] = True
    budget: ClassVar[str] = "timeouts"

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        return (f"FAULT: checkpoint {self.checkpoint} times out",
                [Event(COORDINATOR, None, f"timeout {self.checkpoint}", "fault")])

    def observed(self, model: "FlinkModel", w: World) -> list[tuple[int | None, tuple]]:
        return [(None, ("aborted", self.checkpoint, "expired"))]


@dataclass(frozen=True, slots=True)
class FailTask(Action):
    """Fault: a subtask fails; its failover region (or the whole job) is cancelled."""

    task: int
    fault: ClassVar[bool] = True
    budget: ClassVar[str] = "failures"
    state_observed: ClassVar[bool] = False  # a real run records the failure alone
    _task_fields: ClassVar = ("task",)

    def memo_key(self, model: "FlinkModel", w: World) -> Any:
        """The tasks its failover cancels: the failure of any of them has the same successor
        (``FailoverStrategy.on_task_failure``), while that rule is the stock one."""
        from ..failover import FailoverStrategy

        if type(model.failover).on_task_failure is not FailoverStrategy.on_task_failure:
            return None
        return model.failover.tasks_to_restart(self.task)

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        names = model.topo.names
        failed = [t for t, ts in enumerate(nxt.tasks) if ts.status == FAILED and w.tasks[t].status != FAILED]
        others = [names[t] for t in failed if t != self.task]
        tail = f"; its failover cancels {', '.join(others)}" if others else ""
        return f"FAULT: {names[self.task]} fails{tail}", [Event(names[self.task], None, "FAILS", "fault")]

    def observed(self, model: "FlinkModel", w: World) -> list[tuple[int | None, tuple]]:
        return [(self.task, ("fail",))]


@dataclass(frozen=True, slots=True)
class JobManagerFailover(Action):
    """Fault: the JobManager fails and, with high availability, a new leader recovers the job
    (``Dispatcher`` -> ``JobMaster``): every subtask is cancelled, a new execution graph with a new
    ``CheckpointCoordinator`` is built on the completed checkpoints recovered from the HA store,
    and every subtask is deployed with the state of checkpoint ``checkpoint`` (0: none)."""

    checkpoint: int
    fault: ClassVar[bool] = True
    budget: ClassVar[str] = "jm_failovers"

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        src = f"checkpoint {self.checkpoint}" if self.checkpoint else "no checkpoint (the initial state)"
        text = (f"FAULT: the JobManager fails over; every subtask is cancelled, the pending checkpoints are gone, and the"
                f" new JobManager's coordinator restores {src} to every subtask")
        if model.design.regional_checkpoints:
            text += (f" (FLIP-600: {w.coord.consecutive_regional} regional checkpoint(s) in a row before, the new handler"
                     f" counts {nxt.coord.consecutive_regional}{', forced global' if nxt.coord.force_global else ''})")
        if nxt.coord.restore_failure and not w.coord.restore_failure:
            text += f"; the restore fails: {nxt.coord.restore_failure}"
        return text, [Event(COORDINATOR, None, f"JobManager failover: restore {src}", "fault")]


@dataclass(frozen=True, slots=True)
class LoseNotification(TaskAction):
    """Fault: a coordinator RPC to a subtask is lost."""

    task: int
    checkpoint: int
    kind: str
    fault: ClassVar[bool] = True
    budget: ClassVar[str] = "lost"

    def touch(self, fp: "Footprints", w: World | None, quiet: bool) -> int:
        return fp.in_head[self.task] | fp.BUDGET

    def guard(self, fp: "Footprints", quiet: bool) -> int:  # an RPC in the inbox
        return self.touch(fp, None, False) | fp.in_head[self.task] | fp.in_tail[self.task]

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        name = model.topo.names[self.task]
        return (f"FAULT: the {self.kind} notification of checkpoint {self.checkpoint} to {name} is lost",
                [Event(COORDINATOR, name, f"{self.kind} {self.checkpoint} (lost)", "fault")])
