"""The actions of the job's life that a user or the scheduler takes: restores after a failure,
a restart at another parallelism, a stop with a savepoint and the start from it, and the
deletion of a NO_CLAIM snapshot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ..topology import Role
from ..world import FAILED, REC, World
from .base import Action
from .words import COORDINATOR, Event, recs, restored_from

if TYPE_CHECKING:  # pragma: no cover
    from ..footprint import Footprints
    from ..protocol import FlinkModel


@dataclass(frozen=True, slots=True)
class StopWithSavepoint(Action):
    """The user stops the job with a savepoint (``flink stop``, with ``--drain`` or without, as
    the scope says): the coordinator triggers synchronous savepoint ``checkpoint``."""

    checkpoint: int

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        mode = "--drain" if nxt.coord.stop and nxt.coord.stop[1] == 1 else "without --drain"
        return ((f"the user stops the job with savepoint {self.checkpoint} ({mode}): pending checkpoints are aborted, the"
                 f" sources stop reading and send EndOfData ahead of the savepoint's barrier"),
                [Event(COORDINATOR, None, f"stop-with-savepoint {self.checkpoint} ({mode})", "control")])


@dataclass(frozen=True, slots=True)
class ResumeFromSavepoint(Action):
    """The user starts the job again from the stop's savepoint ``checkpoint``."""

    checkpoint: int

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        return (f"the user starts the job again from savepoint {self.checkpoint}",
                [Event(COORDINATOR, None, f"resume from savepoint {self.checkpoint}", "restore")])


@dataclass(frozen=True, slots=True)
class Restore(Action):
    """Failed subtasks are redeployed with the state of checkpoint ``checkpoint`` (0: none)."""

    checkpoint: int

    def guard(self, fp: "Footprints", quiet: bool) -> int:
        return fp.FAILED | fp.COORD

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        topo, names = model.topo, model.topo.names
        failed = [t for t, ts in enumerate(w.tasks) if ts.status == FAILED]
        src = f"checkpoint {self.checkpoint}" if self.checkpoint else "no checkpoint (initial state)"
        ev: list[Event] = []
        resumes = []
        for t in failed:
            y = nxt.tasks[t]
            if y.finished_on_restore:
                ev.append(Event(names[t], None, f"{restored_from(self)}: FINISHED_ON_RESTORE", "restore"))
                resumes.append(f"{names[t]} is finished in it: deployed FINISHED_ON_RESTORE, it ends its input at once"
                               " and finishes once a checkpoint completes")
            elif topo.vertex(t).role is Role.SOURCE:
                reader = t in model.enumerator.readers
                ev.append(Event(names[t], None, f"{restored_from(self)} @ offset {y.position}", "restore"))
                if reader and y.split < 0:
                    resumes.append(f"{names[t]} holds no split")
                else:
                    split = y.split if reader else topo.split_of[t]
                    resumes.append(f"{names[t]} resumes split {split} at offset {y.position}")
            else:
                ev.append(Event(names[t], None, restored_from(self), "restore"))
        for t in failed:  # a restore keeps only the local copy it read (TaskStateManagerImpl.prioritizedOperatorState)
            if self.checkpoint and nxt.tasks[t].local:
                resumes.append(f"{names[t]} restores the task manager's local copy of checkpoint {nxt.tasks[t].local[0][0]}"
                               " in place of the job manager's state (local recovery)")
        tail = f": {', '.join(resumes)}" if resumes else ""
        if self.checkpoint and model.null_state.active and not nxt.coord.restore_failure:
            n = w.coord.store[-1].null_state
            start = f"checkpoint {n}" if n else "the job's start"
            tail += (f"; null-state recovery: the sources resume at the positions of {start}, the null-state checkpoint"
                     f" of checkpoint {self.checkpoint}, and will re-insert its barrier; recomputable operators start empty")
        if nxt.coord.restore_failure and not w.coord.restore_failure:
            return f"the restore of checkpoint {self.checkpoint} fails: {nxt.coord.restore_failure}", ev
        return f"{len(failed)} failed subtask(s) are restored from {src}{tail}", ev


@dataclass(frozen=True, slots=True)
class Rescale(Action):
    """The user restarts the job from its latest completed checkpoint ``checkpoint`` at the
    parallelism the scope's ``rescale`` gives (or back at the job's own): every subtask is
    cancelled, and the state is redistributed (``StateAssignmentOperation``).  The subtask and
    channel names of the steps after it are those of the new parallelism.  With the scope's
    ``restart_aligned`` the parallelism stays and unaligned checkpoints turn off (or back on)."""

    checkpoint: int

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        new = model.configs[nxt.used.rescales % len(model.configs)]
        par = ", ".join(f"{v.name} {len(model.topo.tasks_of[k])} -> {len(new.topo.tasks_of[k])}"
                        for k, v in enumerate(new.topo.job.vertices) if len(model.topo.tasks_of[k]) != len(new.topo.tasks_of[k]))
        held = []
        for t, y in enumerate(nxt.tasks):
            if new.stateful[t] and y.processed:
                held.append(f"{new.topo.names[t]} holds {recs(y.processed)}")
        for c, items in enumerate(nxt.channels):
            records = [x for x in items if x[0] == REC]
            if records:
                held.append(f"{new.topo.channel_name(c)} carries {recs(r[1:3] for r in records)} of channel state")
        mode = f"unaligned checkpoints {'on' if new.unaligned else 'off'}"
        how = f"with {mode}" if model.scope.restart_aligned else f"at a new parallelism ({par})"
        event = (f"restart from checkpoint {self.checkpoint}, {mode}" if model.scope.restart_aligned
                 else f"rescale from checkpoint {self.checkpoint}: {par}")
        return ((f"the user restarts the job from checkpoint {self.checkpoint} {how}"
                 + (f": {'; '.join(held)}" if held else "")),
                [Event(COORDINATOR, None, event, "restore")])


@dataclass(frozen=True, slots=True)
class DeleteSnapshot(Action):
    """The user deletes the NO_CLAIM snapshot the job was started from, once the design says a
    completed checkpoint no longer needs it (an environment action, not progress)."""

    checkpoint: int
    fault: ClassVar[bool] = True

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        return (f"the user deletes the NO_CLAIM snapshot {self.checkpoint} the job was started from",
                [Event(COORDINATOR, None, f"user deletes snapshot {self.checkpoint}", "fault")])
