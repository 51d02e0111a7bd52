"""The actions of a checkpoint's life: the trigger, the RPCs that reach a subtask, its
acknowledgement, the completion, the regional fallback's end, and the alignment timer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ..world import COMMITTABLE, EOD, FINISHED, NOTIFY_NAMES, NOTIFY_TRIGGER, World
from .base import OPTIONAL, Action
from .data import TaskAction
from .words import COORDINATOR, Event, committables, new_acks, parts_recorded

if TYPE_CHECKING:  # pragma: no cover
    from ..footprint import Footprints
    from ..protocol import FlinkModel
    from ..tx import Tx


def rpc_first(tx: "Tx", t: int, cp: int, kind: str) -> None:
    """``Scope.rpcs_overtake``: the RPC the action takes, moved to the head of the task's
    inbox when it overtakes the ones before it (``protocol_enabled.overtaking``); the
    components then read the head as always."""
    inbox = tx.tasks[t].inbox
    want = NOTIFY_NAMES.index(kind)
    if inbox[0][0] == want and inbox[0][1] == cp:
        return
    k = next(i for i, r in enumerate(inbox) if r[0] == want and r[1] == cp)
    tx.tasks[t] = tx.tasks[t]._replace(inbox=(inbox[k],) + inbox[:k] + inbox[k + 1:])


@dataclass(frozen=True, slots=True)
class AlignmentTimeout(TaskAction):
    """``aligned-checkpoint-timeout``: a subtask's alignment timer for checkpoint ``checkpoint``
    fires (a nondeterministic event: no clocks).  The receiver's timer, counted from the
    checkpoint's start, while the subtask aligns it or once a barrier of it was announced in an
    input channel: the checkpoint goes unaligned.  The sender's, while a timeoutable barrier of it is still
    queued in one of the subtask's subpartitions: the barrier jumps ahead as an unaligned one."""

    task: int
    checkpoint: int


@dataclass(frozen=True, slots=True)
class TriggerCheckpoint(Action):
    """The coordinator triggers checkpoint ``checkpoint`` on the tasks of its plan."""

    checkpoint: int

    def touch(self, fp: "Footprints", w: World | None, quiet: bool) -> int:
        x = fp.COORD | fp.ALL_STATUS
        if fp.model.scope.staggered_triggers:  # the trigger RPCs
            return x | fp.ALL_IN_TAIL
        for t in fp.model.topo.sources:  # the sources snapshot in the trigger's step
            x |= fp._task[t]
        return x

    def guard(self, fp: "Footprints", quiet: bool) -> int:
        return self.touch(fp, None, False)

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        names, cp = model.topo.names, self.checkpoint
        snapped = [t for t, c in new_acks(w, nxt) if c == cp]
        ev = [Event(COORDINATOR, names[t], f"trigger {cp}", "control") for t in snapped]
        if not snapped:
            sent = [names[t] for t, ts in enumerate(nxt.tasks) if any(m[0] == NOTIFY_TRIGGER and m[1] == cp for m in ts.inbox)]
            rpcs = f"its trigger RPCs to {', '.join(sent)} are on their way" if sent else "no task snapshots at once"
            return f"the coordinator triggers checkpoint {cp}; {rpcs}", ev
        parts = "".join(parts_recorded(model, w, nxt, t) for t in snapped)
        who = ", ".join(names[t] for t in snapped)
        return f"the coordinator triggers checkpoint {cp}; {who} snapshot at once and emit the barrier{parts}", ev

    def observed(self, model: "FlinkModel", w: World) -> list[tuple[int | None, tuple]]:
        return [(None, ("trigger", self.checkpoint))]


@dataclass(frozen=True, slots=True)
class Ack(Action):
    """A subtask's acknowledgement (with its state handle) reaches the coordinator."""

    task: int
    checkpoint: int
    _task_fields: ClassVar = ("task",)

    def key(self) -> tuple:
        return (Ack, self.task)

    def _completes(self, w: World) -> bool:
        """Would it complete (or end) its pending checkpoint in ``w``: is it the last one the
        checkpoint waits for?"""
        p = next((p for p in w.coord.pending if p.id == self.checkpoint), None)
        if p is None or not p.waiting >> self.task & 1:
            return False
        return len(p.acked) + 1 >= bin(p.waiting).count("1")

    def touch(self, fp: "Footprints", w: World | None, quiet: bool) -> int:
        if w is not None and not self._completes(w):  # it only adds itself to the pending checkpoint, or is dropped
            return fp.ack[self.task] | fp.COORD
        return fp.ack[self.task] | fp.COORD | fp.STORE | fp.ALL_IN_TAIL

    def guard(self, fp: "Footprints", quiet: bool) -> int:  # its first acknowledgement in flight
        return fp.ack[self.task]

    def _refused(self, model: "FlinkModel", w: World):
        """The file of an earlier checkpoint its placeholder names and the registry deleted, or None."""
        snap = next((s for t, cp, s in w.acks if t == self.task and cp == self.checkpoint), None)
        return model.registry.unknown_placeholder(w.files, snap) if model.registry.active and snap is not None else None

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        name, cp = model.topo.names[self.task], self.checkpoint
        ev = [Event(name, COORDINATOR, f"ack {cp}", "control")]
        gone = self._refused(model, w)
        if gone is not None:
            return (f"the coordinator receives {name}'s ack of checkpoint {cp}; the registry refuses it:"
                    f" its placeholder names {name}'s file of checkpoint {gone[0]}, which the registry deleted"
                    " (\"Attempt to reference unknown state\"), and the ack goes no further"), ev
        p = next((p for p in w.coord.pending if p.id == cp), None)
        if p is None:
            return f"the coordinator receives {name}'s late ack of checkpoint {cp} and discards its state", ev
        if p.falling_back and p.declined >> self.task & 1:
            return (f"the coordinator receives {name}'s late ack of checkpoint {cp}, whose timeout"
                    " marked it declined, while the coordinators fall back; the pending checkpoint takes it"), ev
        return f"the coordinator receives {name}'s ack of checkpoint {cp}", ev

    def observed(self, model: "FlinkModel", w: World) -> list[tuple[int | None, tuple]]:
        return [(None, ("ack-refused",))] if self._refused(model, w) is not None else []


@dataclass(frozen=True, slots=True)
class LastAck(Action):
    """With the scope's instant acks: the last acknowledgement of checkpoint ``checkpoint``
    reaches the coordinator, which completes it (``CheckpointCoordinator.acknowledge_at_once``)."""

    checkpoint: int

    def touch(self, fp: "Footprints", w: World | None, quiet: bool) -> int:
        return fp.COORD | fp.STORE | fp.ALL_IN_TAIL | fp.ALL_ACK

    def guard(self, fp: "Footprints", quiet: bool) -> int:
        return fp.COORD | fp.ALL_ACK

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        return (f"the coordinator receives the last acknowledgement of checkpoint {self.checkpoint}",
                [Event(COORDINATOR, None, f"last ack {self.checkpoint}", "control")])


@dataclass(frozen=True, slots=True)
class CoordinatorsFellBack(Action):
    """FLIP-600 (``regional_completion`` waiting for the coordinators): the futures of the
    operator coordinators' fallback for checkpoint ``checkpoint`` complete, and the regional
    completion goes on (``RegionalCheckpointHandler.after_coordinators``)."""

    checkpoint: int

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        return ((f"the operator coordinators' fallback for checkpoint {self.checkpoint} completes, and so does the"
                 " regional completion"), [Event(COORDINATOR, None, f"coordinators fell back {self.checkpoint}", "control")])


@dataclass(frozen=True, slots=True)
class Notify(TaskAction):
    """A coordinator RPC (``complete``, ``abort``, FLIP-600's ``fallback``, or with staggered
    triggers ``trigger``) reaches a subtask."""

    task: int
    checkpoint: int
    kind: str

    def before(self, model: "FlinkModel", tx: "Tx") -> None:
        rpc_first(tx, self.task, self.checkpoint, self.kind)

    def touch(self, fp: "Footprints", w: World | None, quiet: bool) -> int:
        if self.kind == "trigger":  # a trigger reaching a finished task aborts the checkpoint
            return fp._task[self.task] | fp.COORD | fp.ALL_IN_TAIL | fp.ALL_ACK
        return fp._task[self.task]

    def guard(self, fp: "Footprints", quiet: bool) -> int:  # an RPC in the inbox
        return self.touch(fp, None, False) | fp.in_head[self.task] | fp.in_tail[self.task]

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        name, cp, t = model.topo.names[self.task], self.checkpoint, self.task
        if self.kind == "trigger":
            ev = [Event(COORDINATOR, name, f"trigger {cp}", "control")]
            if w.tasks[t].status == FINISHED:
                ev.append(Event(name, COORDINATOR, f"fail {cp}: TASK_CHECKPOINT_FAILURE", "fault"))
                return (f"the trigger RPC of checkpoint {cp} reaches {name}, which finished before the"
                        f" JobManager saw it: the RPC fails (TASK_CHECKPOINT_FAILURE, not counted) and checkpoint"
                        f" {cp} aborts"), ev
            acked = [c for x, c in new_acks(w, nxt) if x == t]
            if any(x == t and c == cp for x, c, _ in w.acks) or acked or nxt.tasks[t].uc:
                return (f"the trigger RPC of checkpoint {cp} reaches {name}: it snapshots and emits the barrier"
                        + parts_recorded(model, w, nxt, t)), ev
            if not any(p.id == cp for p in nxt.coord.pending) and any(p.id == cp for p in w.coord.pending):
                return f"the trigger RPC of checkpoint {cp} reaches {name}, which declines it (TASK_NOT_READY)", ev
            return f"the trigger RPC of checkpoint {cp} reaches {name}", ev
        latest = w.tasks[t].inbox[0][2]
        subsumed = w.tasks[t].inbox[0][3]
        verb = {
            "complete": "completed",
            "abort": f"was aborted (the notice carries latest completed checkpoint {latest}, which it treats as complete)"
            if latest else "was aborted",
            "fallback": f"completed regionally, its state in it taken from checkpoint {latest} (it may commit up to {latest})",
        }[self.kind]
        label = {"complete": f"complete {cp}", "abort": f"abort {cp}" + (f" (latest {latest})" if latest else ""),
                 "fallback": f"fallback {cp} (state from {latest})"}[self.kind]
        tone = {"complete": "complete", "abort": "control", "fallback": "regional"}[self.kind]
        ev = [Event(COORDINATOR, name, label, tone)]
        tail = f"; its task manager discards its merged segments of checkpoints <= {subsumed} (subsumed)" if subsumed else ""
        sent = [x for c in model.all_out[t] for x in nxt.channels[c][len(w.channels[c]):] if x[0] == COMMITTABLE]
        if sent:
            tail += "; it commits and emits " + ", ".join(committables(model, t, x) for x in sent)
        if any(x == EOD for c in model.all_out[t] for x in nxt.channels[c][len(w.channels[c]):]):
            tail += ", then the EndOfData it held back"
        return f"{name} learns that checkpoint {cp} {verb}{tail}", ev

    def observed(self, model: "FlinkModel", w: World) -> list[tuple[int | None, tuple]]:
        if w.tasks[self.task].status == FINISHED:  # the task manager no longer knows the task
            return [(None, ("aborted", self.checkpoint, "declined"))]
        if self.kind in ("complete", "abort"):
            key: tuple = (f"notify-{self.kind}", self.checkpoint)
            if self.kind == "complete" and model.task.ready_to_finish(w, self.task):
                key = (*key, OPTIONAL)  # a finishing task may have stopped running: the notice is ignored
            return [(self.task, key)]
        return []


@dataclass(frozen=True, slots=True)
class EndOfRecovery(TaskAction):
    """A subtask restored at a new parallelism has read every channel's
    ``EndOfChannelStateEvent``: ``RescalingStreamTaskNetworkInput.finishRecovery`` replaces it by
    a plain ``StreamTaskNetworkInput``, and the subtask takes checkpoints again
    (``Scope.rescaled_tasks_decline``)."""

    task: int
    single: ClassVar[bool] = True

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        name = model.topo.names[self.task]
        return ((f"{name} has read every channel's end of re-sent state: its recovery at the new parallelism"
                 " ends, and it takes checkpoints again"), [Event(name, None, "end of recovery", "restore")])


@dataclass(frozen=True, slots=True)
class FinishReported(TaskAction):
    """The JobManager processes a subtask's switch to FINISHED (``Execution.markFinished``, from
    the task manager's ``updateTaskExecutionState`` RPC): from now on its checkpoint plan
    leaves the subtask out (``Scope.late_finish_reports``)."""

    task: int
    single: ClassVar[bool] = True

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        name = model.topo.names[self.task]
        return f"the JobManager learns that {name} finished", [Event(name, COORDINATOR, "FINISHED", "control")]


@dataclass(frozen=True, slots=True)
class TriggerAfterClose(Action):
    """A subtask that is ready to finish closes its mailbox before the trigger RPC of
    ``checkpoint`` reaches it (staggered triggers): it finishes, and declines the RPC
    (TASK_CLOSING, not counted).  A race, not a fault, but a decline: it takes one of the
    scope's ``max_declines``, which bounds how often a search lets it happen."""

    task: int
    checkpoint: int
    budget: ClassVar[str] = "declines"
    _task_fields: ClassVar = ("task",)

    def before(self, model: "FlinkModel", tx: "Tx") -> None:
        rpc_first(tx, self.task, self.checkpoint, "trigger")

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        name, cp = model.topo.names[self.task], self.checkpoint
        return ((f"{name} finishes before the trigger RPC of checkpoint {cp} reaches it; the RPC"
                 f" is declined (TASK_CLOSING, not counted) and checkpoint {cp} aborts"),
                [Event(COORDINATOR, name, f"trigger {cp} (after close)", "control"),
                 Event(name, COORDINATOR, f"decline {cp}: TASK_CLOSING", "fault")])

    def observed(self, model: "FlinkModel", w: World) -> list[tuple[int | None, tuple]]:
        return [(None, ("aborted", self.checkpoint, "declined"))]
