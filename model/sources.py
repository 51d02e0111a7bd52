"""Sources: the reader side (``SourceOperator`` / ``SourceReader``, and the legacy source of
one fixed split) and the FLIP-27 ``SourceCoordinator`` with its ``SplitEnumerator`` and
``SplitAssignmentTracker``.  Each abstraction is on the class that makes it.
"""

from __future__ import annotations

from functools import cached_property

from .actions import Action, AssignSplit, EmitRecord, EndOfInput, handles
from .component import Component, follows
from .topology import Role
from .tx import Tx
from .world import DRAIN, EOD, EOD_NO_DRAIN, REC, RUNNING, Completed, Coordinator, Pending, World, add_sorted, remove_sorted


class SourceReader(Component):
    """A source subtask: reading, end of input (FLIP-147 EndOfData) and where a restore resumes.

    Abstraction: a source subtask without an enumerator reads one fixed split (``topo.split_of``)
    of ``records_per_split`` records; its state is the next offset.  A record is
    ``(split, offset)``."""

    def enabled(self, w: World, out: list[Action]) -> None:
        """Append each source subtask's next action: emit, ask the enumerator for a split, or
        end its input (bounded scopes only)."""
        n_rec = self.scope.records_per_split
        readers = self.enumerator.readers
        bounded = self.scope.bounded
        for t in self.topo.sources:
            ts = w.tasks[t]
            if ts.status != RUNNING or ts.ended:
                continue
            if t in readers:
                if ts.split >= 0 and ts.position < n_rec:
                    if self.model.has_room(w, t):
                        out.append(EmitRecord(t))
                    continue
                if w.coord.held and self.gateways.holds_event_for(w, t):
                    continue  # its split is on its way, held by the closed gateway
                free = [s for s in w.coord.unassigned if s in readers[t]]
                if free:
                    out.append(AssignSplit(t, free[0]))
                elif bounded:
                    out.append(EndOfInput(t))
                continue
            if ts.position < n_rec:
                if self.model.has_room(w, t):
                    out.append(EmitRecord(t))
            elif bounded:
                out.append(EndOfInput(t))

    @handles(EmitRecord, "task")
    @follows("SourceReader.pollNext")
    def emit(self, tx: Tx, t: int) -> None:
        """``SourceReader.pollNext``: the next record of the split goes downstream."""
        ts = tx.tasks[t]
        rec = (REC, ts.split if t in self.enumerator.readers else self.topo.split_of[t], ts.position)
        targets, rr = self.partitioner.route(t, rec, ts.rr)
        tx.push(targets, rec)
        tx.tasks[t] = ts._replace(position=ts.position + 1, rr=rr)
        if ts.replay:  # FLINK-4120: a recovery's re-inserted barrier follows the record before it
            self.null_state.maybe_reinsert(tx, t)

    @handles(EndOfInput, "task")
    @follows("SourceOperator.emitNext")
    def end_of_input(self, tx: Tx, t: int) -> None:
        """A bounded source ends: it emits EndOfData and waits for its final checkpoint.

        FLIP-147: "Emit EndOfData[finished = true]" then wait until a checkpoint
        triggered after finish() completes.  Without FLIP-147 the task finishes at once.
        """
        tx.push(self.model.all_out[t], EOD)
        tx.tasks[t] = tx.tasks[t]._replace(ended=True)
        self.task.maybe_finish(tx, t)

    @follows("SourceOperatorStreamTask.triggerStopWithSavepointAsync", "SourceOperator.stop")
    def stop(self, tx: Tx, t: int, mode: int) -> None:
        """A stop-with-savepoint's trigger reaches a source that still reads
        (``SourceOperatorStreamTask.triggerStopWithSavepointAsync`` -> ``SourceOperator.stop``):
        it stops reading and sends EndOfData with the stop mode ahead of the savepoint's
        barrier.  With DRAIN the downstream operators ``endInput`` and ``finish``, as at end
        of input, and the records not read are never read (kept in ``Coordinator.stop``, with
        the splits no reader of this source will take); with NO_DRAIN they do neither, and the
        job resumes from the savepoint where the sources stopped."""
        ts = tx.tasks[t]
        if ts.ended:
            return
        if mode == DRAIN:
            n_rec = self.scope.records_per_split
            readers = self.enumerator.readers
            split = ts.split if t in readers else self.topo.split_of[t]
            unread = [(split, o) for o in range(ts.position, n_rec)] if split >= 0 else []
            if t in readers and all(tx.tasks[u].ended or u == t for u in readers if readers[u] == readers[t]):
                unread += [(sp, o) for sp in tx.coord.unassigned if sp in readers[t] for o in range(n_rec)]
            cp, m, gone = tx.coord.stop
            tx.coord = tx.coord._replace(stop=(cp, m, add_sorted(gone, *unread)))
        tx.push(self.model.all_out[t], EOD if mode == DRAIN else EOD_NO_DRAIN)
        tx.tasks[t] = ts._replace(ended=True, stopped=mode != DRAIN)

    def restore_position(self, snapshot_position: int) -> int:
        """The offset a restored source resumes at: the one stored in its split state."""
        return snapshot_position

    def finished_split_position(self) -> int:
        """Where the split of a source subtask that had finished resumes when its vertex is
        restored partly finished (the subtask restarts with the empty
        ``FinishedOperatorSubtaskState``): a FLIP-27 reader has no split left, the enumerator
        having recorded the split as done, so at its end.  FLIP-147: a legacy
        ``SourceFunction`` keeps each split's progress in union list state, which FLIP-147
        discards with the finished subtask, so it would read the split again from the start
        (catalog ``LegacySourceFunction``)."""
        return self.scope.records_per_split

    def restore_positions(self, c: Completed) -> dict[int, int]:
        """Where a restore of checkpoint ``c`` resumes each split (``FailoverStrategy.restore``
        and ``SplitEnumerator.on_restore``).  A fixed split: its source's position (the end when
        the source finished).  An enumerator split: the position in the reader snapshot that
        holds it; the start when the enumerator's state has it unassigned; otherwise it was read
        to the end (a reader took it, finished it and moved on, or finished)."""
        n_rec = self.scope.records_per_split
        readers = self.enumerator.readers
        pos = {}
        for t in self.topo.sources:
            if t in readers:
                continue
            s = c.snapshots[t]
            if not s.finished:
                pos[self.topo.split_of[t]] = s.position
            elif all(c.snapshots[u].finished for u in self.topo.tasks_of[self.topo.vertex_of[t]]):
                pos[self.topo.split_of[t]] = n_rec  # FINISHED_ON_RESTORE: the reader never runs
            else:
                pos[self.topo.split_of[t]] = self.finished_split_position()
        for sp in self.enumerator.all_splits:
            held = [s.position for t, s in enumerate(c.snapshots) if t in readers and s.split == sp]
            pos[sp] = held[0] if held else 0 if sp in c.enum else n_rec
        return pos


class SplitEnumerator(Component):
    """``SourceCoordinator`` (the operator coordinator of a FLIP-27 source), its
    ``SplitEnumerator`` and ``SplitAssignmentTracker``.

    Abstraction: with an enumerator (a vertex with ``coordinator``) a vertex of parallelism P has
    P splits, numbered as the fixed splits would be.  The enumerator hands its lowest unassigned
    split to a reader without one with an ``AddSplitEvent``, which reaches the reader at once
    unless the reader's operator-event gateway is closed for a checkpoint (``model.gateway``); a
    reader holds one split at a time.  The enumerator's snapshot is the set of unassigned splits,
    taken at trigger; the tracker keeps assignments by checkpoint epoch."""

    @cached_property
    def readers(self) -> dict[int, tuple[int, ...]]:
        """Source subtasks whose vertex has a split enumerator -> the splits of that vertex."""
        topo = self.topo
        out = {}
        for v, tasks in enumerate(topo.tasks_of):
            if topo.job.vertices[v].role is Role.SOURCE and topo.job.vertices[v].coordinator:
                splits = tuple(sorted(topo.split_of[t] for t in tasks))
                for t in tasks:
                    out[t] = splits
        return out

    @cached_property
    def all_splits(self) -> tuple[int, ...]:
        """The splits read by enumerator-driven readers (the enumerator's initial state)."""
        return tuple(sorted({s for ss in self.readers.values() for s in ss}))

    @handles(AssignSplit, "task", "split")
    @follows("SplitEnumerator.handleSplitRequest")
    def assign(self, tx: Tx, t: int, split: int) -> None:
        """``handleSplitRequest``: assign ``split`` to reader ``t`` (``AddSplitEvent``); the
        ``SplitAssignmentTracker`` records it under the epoch of the next checkpoint, so the
        assignment is part of checkpoint c iff its epoch <= c."""
        coord = tx.coord
        tx.coord = coord._replace(
            unassigned=remove_sorted(coord.unassigned, split),
            assignments=add_sorted(coord.assignments, (coord.next_id, t, split)),
        )
        self.gateways.send_add_split(tx, t, split)

    @follows("SourceCoordinator.checkpointCoordinator", "#28963 SourceCoordinator.checkpointCoordinatorForRegionFallback")
    def state_in_checkpoint(self, coord: Coordinator, pending: Pending, failed_readers: set, fallback_id: int):
        """The enumerator's state in checkpoint ``pending.id`` and its tracker after completion.

        Globally (no failed readers) that is the snapshot taken at trigger, and the tracker
        forgets the assignments the checkpoint covers (``onCheckpointComplete``).  Regionally, a
        failed reader's state is the fallback's, which lacks the splits assigned to it after
        the fallback checkpoint: ``checkpointCoordinatorForRegionFallback`` puts those back
        among the unassigned splits of this checkpoint and keeps them as not yet checkpointed,
        so that a reset of that reader to this checkpoint adds them back (the FLIP-600 thread, "State
        Correction ... for OperatorCoordinators to produce consistent snapshots against the
        mixed view").  With ``add-back-live`` (PR #28963,
        ``SourceCoordinator.checkpointCoordinatorForRegionFallback``, row B12) the tracker
        gives those assignments up instead (``add_back_live`` puts the splits back into the live
        enumerator).  With ``ignore`` the coordinator's own snapshot is taken as is.
        """
        cp = pending.id
        enum = set(pending.enum)
        keep = []
        for e, r, s in coord.assignments:
            if e > cp:
                keep.append((e, r, s))
            elif r in failed_readers and e > fallback_id:
                unassigned, kept = self.region_fallback_correction(cp, e, r, s)
                if unassigned:
                    enum.add(s)
                if kept is not None:
                    keep.append(kept)
        return tuple(sorted(enum)), tuple(sorted(keep))

    def region_fallback_correction(self, cp: int, e: int, r: int, s: int) -> tuple[bool, tuple | None]:
        """The state correction of split ``s``, assigned to failed-region reader ``r`` at epoch ``e``
        after the fallback checkpoint, in regional checkpoint ``cp``: is it among this
        checkpoint's unassigned splits, and which assignment does the tracker keep as not yet
        checkpointed?  The thread's correction: unassigned in ``cp``, kept, so that a reset of
        the reader to ``cp`` adds it back (``model.flip600`` holds the PR's and the others)."""
        return True, (cp + 1, r, s)

    def on_region_fallback(self, tx: Tx, coord: Coordinator, pending: Pending, failed_readers: set, fallback_id: int) -> None:
        """The live enumerator at a regional completion with failed readers: unchanged (the
        thread's correction touches the checkpoint's copy only)."""

    @follows("#28963 SourceCoordinator.checkpointCoordinatorForRegionFallback")
    def add_back_live(self, tx: Tx, coord: Coordinator, pending: Pending, failed_readers: set, fallback_id: int) -> None:
        """PR #28963's ``checkpointCoordinatorForRegionFallback``: the splits assigned to a
        failed-region reader after the fallback checkpoint go back to the live enumerator's
        unassigned splits (``SourceCoordinatorRegionalCheckpointTest``: ``getUnassignedSplits()``
        grows), while the reader, which only declined, keeps its split and reads on (review row
        B12).  The enumerator may then hand the split to another reader that asks.  The tracker
        gives those assignments up at once: if the checkpoint then aborts (row N3), the
        live coordinator stays as the fallback left it."""
        back = [x for x in coord.assignments if x[0] <= pending.id and x[1] in failed_readers and x[0] > fallback_id]
        if back:
            tx.coord = tx.coord._replace(unassigned=add_sorted(tx.coord.unassigned, *(s for _, _, s in back)),
                                         assignments=remove_sorted(tx.coord.assignments, *back))

    @follows("SourceCoordinator.resetToCheckpoint", "SourceCoordinator.subtaskReset", "SplitEnumerator.addSplitsBack")
    def on_restore(self, tx: Tx, latest: Completed | None, victims: list[int]) -> None:
        """The enumerator on restore.  A global failover resets it to the checkpoint's state
        (``resetToCheckpoint``; the initial state without one).  A regional failover keeps it
        running and, per restarted reader, adds back the splits assigned to that reader after
        the restored checkpoint (``subtaskReset`` -> ``addSplitsBack`` with the tracker's
        uncheckpointed assignments)."""
        coord = tx.coord
        if len(victims) == self.topo.n_tasks:
            tx.coord = coord._replace(unassigned=latest.enum if latest else self.all_splits, assignments=(), gateways=(),
                                      held=())
            return
        cp = latest.id if latest else 0
        back = [x for x in coord.assignments if x[1] in victims and x[0] > cp]
        if back:
            tx.coord = coord._replace(
                unassigned=add_sorted(coord.unassigned, *(s for _, _, s in back)),
                assignments=remove_sorted(coord.assignments, *back),
            )
