"""Local recovery: a task manager's copy of each subtask's snapshot (``TaskLocalStateStoreImpl``,
``state.backend.local-recovery``), and which copy a restore reads (``TaskStateManagerImpl``).
Knob ``local_recovery`` turns the store on (Flink's default is off).  Flink's rules, as the 2.x
source has them, and the readings of knob ``local_recovery_rule`` are on the methods that make
them; what FLIP-600 changes and the abstractions are on the class.
"""

from __future__ import annotations

from functools import cached_property

from .component import Component, follows
from .tx import Tx
from .world import Snapshot


class TaskLocalStateStore(Component):
    """``TaskLocalStateStoreImpl`` of every subtask: ``TaskState.local``, ((checkpoint, Snapshot), ...).

    FLIP-600 puts a state into checkpoint ``c`` that is not the subtask's own snapshot of ``c``: a
    failed-region subtask that acknowledged (or acknowledged late) keeps its own copy of ``c``
    while ``c`` holds its fallback state.  Knob ``local_recovery_rule`` says what keeps that copy
    from a restore of ``c`` (``on_fallback``, ``copy_asked_for``).

    Abstraction: a restarted subtask comes back on the task manager that holds its copies (Flink's
    local recovery schedules it there when it can; elsewhere it reads the job manager's state,
    which is the run without local recovery); a task manager never fails (its copies would go
    with it); a restore at another parallelism starts without copies."""

    @cached_property
    def active(self) -> bool:
        return self.design.local_recovery

    @follows("TaskLocalStateStoreImpl.storeLocalState")
    def keep(self, tx: Tx, t: int, cp: int, snap: Snapshot) -> None:
        """``storeLocalState(cp, snapshot)``, as the acknowledgement leaves: when a snapshot's
        asynchronous part ends, ``TaskStateManagerImpl.reportTaskStateSnapshots`` stores the local
        copy before the acknowledgement goes to the coordinator."""
        ts = tx.tasks[t]
        tx.tasks[t] = ts._replace(local=tuple(x for x in ts.local if x[0] != cp) + ((cp, snap),))

    @follows("TaskLocalStateStoreImpl.confirmCheckpoint")
    def confirm(self, tx: Tx, t: int, cp: int) -> None:
        """``confirmCheckpoint(cp)``: the copies older than ``cp`` go.  ``notifyCheckpointComplete``
        reaches the task manager's store through ``SubtaskCheckpointCoordinatorImpl.notifyCheckpoint``
        (after ``StreamTask``'s own guard)."""
        ts = tx.tasks[t]
        if any(c < cp for c, _ in ts.local):
            tx.tasks[t] = ts._replace(local=tuple(x for x in ts.local if x[0] >= cp))

    @follows("TaskLocalStateStoreImpl.abortCheckpoint")
    def abort(self, tx: Tx, t: int, cp: int) -> None:
        """``abortCheckpoint(cp)``: the copy of ``cp`` goes (``notifyCheckpointAborted(cp)``)."""
        ts = tx.tasks[t]
        if any(c == cp for c, _ in ts.local):
            tx.tasks[t] = ts._replace(local=tuple(x for x in ts.local if x[0] != cp))

    def on_fallback(self, tx: Tx, t: int, cp: int) -> None:
        """FLIP-600's fallback notice of regional checkpoint ``cp`` reaches the task manager:
        nothing happens to the store (``as-flink``; ``model.flip600.FallbackDropsCopy`` reads it
        otherwise).  With ``as-flink`` nothing keeps the copy from a restore of ``cp``: the
        fallback notice touches the store only as ``fallback_notice_at_task``'s completion path
        does.  With ``fallback-drops-copy`` the fallback notice drops it (PR #28966's
        documentation of ``notifyRegionalCheckpointFallback``; a failure before the notice is
        processed still leaves it)."""

    @follows("TaskStateManagerImpl.prioritizedOperatorState")
    def restored(self, ts, cp: int, snap: Snapshot, ref: int) -> tuple[Snapshot, tuple]:
        """A restore of checkpoint ``cp`` whose job-manager state for the subtask is ``snap`` (grafted
        from checkpoint ``ref`` by FLIP-600, 0: its own): the state it restores and the copies its
        store keeps.  The copy asked for (``copy_asked_for``) replaces ``snap`` when present, and
        every other copy goes (``pruneMatchingCheckpoints``).  Flink restores the local copy in
        place of the job manager's state where it matches it (``PrioritizedOperatorSubtaskState``:
        keyed state by key-group range, operator state by its partition offsets), which a
        subtask's own snapshot at the same parallelism always does."""
        want = self.copy_asked_for(cp, ref)
        kept = tuple(x for x in ts.local if x[0] == want)
        return (kept[0][1] if kept else snap), kept

    def copy_asked_for(self, cp: int, ref: int) -> int:
        """The checkpoint whose copy a restore of ``cp`` asks the store for
        (``retrieveLocalState(restoreCheckpointId)``): ``cp`` itself, whatever checkpoint its
        state was grafted from (``ref``; ``model.flip600.RestoreByRef`` reads it otherwise).
        With ``restore-by-ref`` a grafted subtask's restore asks for the checkpoint whose state it
        is, its refCheckpointId."""
        return cp
