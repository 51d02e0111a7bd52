"""Sink V2 (FLIP-143/FLIP-191/FLIP-372), as every connector of Flink 2.x writes: a writer
operator that turns records into committables at each checkpoint, a committer operator that
commits them once the checkpoint completed, and optionally a global committer behind it
(UC note D.5-D.6).  The legacy ``TwoPhaseCommitSinkFunction`` is ``model.sinks``.  Each
operator's rules and abstractions are on its class; rescaling a Sink V2 sink is not modelled
(``Scope`` refuses it).
"""

from __future__ import annotations

from .component import Component, follows
from .tx import Tx
from .world import COMMITTABLE, COMMITTED, Snapshot, TaskState, Txn, add_sorted

WRITER = "writer"
COMMITTER = "committer"
GLOBAL_COMMITTER = "global-committer"


def commit_committable(tx: Tx, writer: int, cp: int, records: tuple) -> None:
    """The external system commits the committable of ``writer`` (a global subtask id) for
    checkpoint ``cp`` holding ``records``: idempotently.

    Abstraction: the external system is ``World.txns``: committing a committable adds the transaction
    ``(writer, checkpoint)`` with its records, COMMITTED.  Committing the same committable again
    changes nothing (Sink V2 committers must be idempotent: a restore re-commits); a different
    committable with the same writer and checkpoint adds its records to that transaction, so a
    record committed by both shows as committed twice.  What it can hide: two committables of
    identical content from two attempts, both committed (a duplicate in Flink, one transaction
    here); a correct run cannot commit both, since committing one needs its checkpoint complete.
    Connectors differ on a committable whose (writer, checkpoint) was committed before: Kafka's
    is a new transaction under a fenced id, an Iceberg-style committer skips every committable
    at or below the table's highest committed checkpoint id.  The model's external system adds
    its records to the committed transaction, which shows a re-emitted committable as records
    committed twice; a committer of the second kind would drop them instead, a loss the model
    shows as a duplicate (row N10: reachable only by re-emitting under a committed id)."""
    if not records:
        return
    old = tx.txn(writer, cp)
    if old is None:
        tx.set_txn(Txn(writer, cp, COMMITTED, records))
    elif old.records != records:
        tx.set_txn(old._replace(records=old.records + records))


class SinkWriterOperator(Component):
    """``SinkWriterOperator``: records into committables, per checkpoint and at end of input.

    ``SinkWriterOperator`` (working state ``(lastKnownCheckpointId, endOfInput, in-progress
    records)``; snapshot ``(endOfInput,)``, its ``end_of_input_state``):

    - ``processElement`` writes the record into the in-progress output (a file being written, an
      open transaction): invisible outside until a committer commits it;
    - ``prepareSnapshotPreBarrier(n)``, unless end of input was reached: ``prepareCommit`` and
      emit the committables of checkpoint ``n`` (a ``CommittableSummary`` and its
      ``CommittableWithLineage``s, one item here) ahead of barrier ``n``;
    - ``endInput``: emit the remaining committables tagged ``lastKnownCheckpointId + 1``
      (FLINK-37605), where ``lastKnownCheckpointId`` is the restored checkpoint id and then the id
      of the last emission; afterwards ``endOfInput`` is set and stays set in its state, so a
      writer restored from a checkpoint taken after its end of input emits nothing more
      (``initializeState``)."""

    @follows("SinkWriterOperator.initializeState")
    def state(self, snap: Snapshot, restored_from: int) -> tuple:
        """``initializeState``: ``(lastKnownCheckpointId, endOfInput, in-progress records)``;
        ``endOfInput`` holds when the restored ``end_of_input_state`` says so."""
        return (restored_from, bool(snap.sink and snap.sink[0]), ())

    @follows("SinkWriterOperator.processElement")
    def write(self, tx: Tx, t: int, r: tuple[int, int]) -> None:
        """``processElement``: the record goes into the in-progress output."""
        ts = tx.tasks[t]
        last, eoi, written = ts.sink
        tx.tasks[t] = ts._replace(sink=(last, eoi, add_sorted(written, r)))

    @follows("SinkWriterOperator.prepareSnapshotPreBarrier")
    def prepare_snapshot_pre_barrier(self, tx: Tx, t: int, cp: int) -> None:
        """``prepareSnapshotPreBarrier(cp)``: unless end of input was reached, the committables
        of ``cp``, ahead of the barrier."""
        if not tx.tasks[t].sink[1]:
            self.emit(tx, t, cp)

    @follows("SinkWriterOperator.endInput")
    def end_input(self, tx: Tx, t: int) -> None:
        """``endInput``: the remaining committables, tagged ``lastKnownCheckpointId + 1``
        (FLINK-37605), once."""
        last, eoi, _ = tx.tasks[t].sink
        if eoi:
            return
        self.emit(tx, t, self.end_of_input_checkpoint(last))
        ts = tx.tasks[t]
        tx.tasks[t] = ts._replace(sink=(ts.sink[0], True, ()))

    def end_of_input_checkpoint(self, last_known: int) -> int:
        """The checkpoint id the writer gives its end-of-input committables (FLINK-37605)."""
        return last_known + 1

    @follows("SinkWriterOperator.emitCommittables")
    def emit(self, tx: Tx, t: int, cp: int) -> None:
        """``emitCommittables(cp)``: ``prepareCommit`` and one message to the committer.

    Abstraction: a writer always emits a summary, even of no committable, as Flink does; one item per
    checkpoint carries the summary and its committables together."""
        ts = tx.tasks[t]
        _, eoi, written = ts.sink
        tx.push(self.model.all_out[t], (COMMITTABLE, cp, (self.model.gid[t], written)))
        tx.tasks[t] = ts._replace(sink=(cp, eoi, ()))

    @follows("SinkWriterOperator.snapshotState")
    def snapshot_state(self, ts: TaskState) -> tuple:
        """``snapshotState``: the ``end_of_input_state``."""
        return (ts.sink[1],)


class CommitterOperator(Component):
    """``CommitterOperator``: commits the committables of completed checkpoints.

    ``CommitterOperator`` (working state ``(collector, EndOfData held)``; snapshot
    ``(collector,)``; the collector holds ``(checkpoint, writer, records)`` per committable):

    - ``processElement`` adds a committable to the ``CommittableCollector``;
    - ``notifyCheckpointComplete(n)`` commits every committable of a checkpoint <= n in
      ascending checkpoint order and, with a post-commit topology (the global committer), emits
      them downstream, one message per checkpoint; then removes them;
    - ``initializeState`` on restore merges the restored collector and commits (and emits) at
      once up to the restored checkpoint;
    - ``endInput`` commits nothing with checkpointing enabled: the final checkpoint does.

    The committer task and EndOfData (FLINK-38614, ``apache/flink#28476``, UC note D.6):
    released Flink finishes the committer's operators and broadcasts EndOfData as soon as its
    input ended, before the final checkpoint completes; the committables it emits on that
    completion then reach a global committer that has seen EndOfData on every input and drops
    them (``FinishedDataOutput``).  The model's ``CommitterOperator`` is the fix, the PR's title:
    EndOfData is held until the final checkpoint's committables were emitted;
    ``catalog.EndOfDataBeforeCommittables`` is the released behaviour.

    Abstraction: committables travel on the sink's internal edges, which never take unaligned barriers
    (UC note A.10): all committables of checkpoint n reach the committer before
    barrier n."""

    @follows("CommitterOperator.initializeState")
    def state(self, snap: Snapshot, restored_from: int) -> tuple:
        """``initializeState``: the restored collector, EndOfData not held."""
        return (snap.sink[0] if snap.sink else (), False)

    @follows("CommitterOperator.processElement")
    def receive(self, tx: Tx, t: int, item: tuple) -> None:
        """``processElement``: a writer's committables of one checkpoint into the collector.
        The committer's logical state (``processed``) is every record whose committable it
        received: a checkpoint of it is consistent when that covers exactly the records
        before the sources' positions.

    Abstraction: ``CheckpointCommittableManagerImpl.commit`` checks that every committable a writer subtask
    announced in its summary arrived (FLINK-36287) and fails the task if not; the model's
    committer commits what its collector holds.  In the model a checkpoint's summary and
    committables are one item (below) on an aligned internal edge, so they arrive whole before
    the checkpoint's barrier and the check cannot fail (row N11); it could with a
    rescaled Sink V2, which ``Scope`` refuses."""
        cp, (writer, records) = item[1], item[2]
        ts = tx.tasks[t]
        collector, held = ts.sink
        tx.tasks[t] = ts._replace(
            sink=(add_sorted(collector, (cp, writer, records)), held),
            processed=add_sorted(ts.processed, *records),
        )

    @follows("CommitterOperator.commitAndEmitCheckpoints")
    def commit_and_emit(self, tx: Tx, t: int, upto: int) -> None:
        """Commit every committable of a checkpoint <= ``upto``, ascending, emitting each
        checkpoint's to the global committer when there is one; then the EndOfData held
        back, if this was the last (``release_end_of_data``)."""
        ts = tx.tasks[t]
        collector, held = ts.sink
        due = [x for x in collector if x[0] <= upto]
        if not due:
            return
        out = self.model.all_out[t]
        for cp in sorted({x[0] for x in due}):
            entries = tuple((w, recs) for c, w, recs in due if c == cp)
            if out:
                tx.push(out, (COMMITTABLE, cp, (self.topo.index_of[t], entries)))
            else:
                for w, recs in entries:
                    commit_committable(tx, w, cp, recs)
        tx.tasks[t] = ts._replace(sink=(tuple(x for x in collector if x[0] > upto), held))
        self.release_end_of_data(tx, t)

    def forwards_end_of_data(self, tx: Tx, t: int) -> bool:
        """The committer's input ended: does its task broadcast EndOfData now?  Only once every
        committable it holds was committed and emitted (the fix of FLINK-38614); otherwise
        EndOfData is held until ``commit_and_emit`` empties the collector."""
        ts = tx.tasks[t]
        collector, _ = ts.sink
        if not collector or not self.model.all_out[t]:
            return True
        tx.tasks[t] = ts._replace(sink=(collector, True))
        return False

    def release_end_of_data(self, tx: Tx, t: int) -> None:
        """Send the EndOfData held back once nothing is left to emit."""
        ts = tx.tasks[t]
        collector, held = ts.sink
        if held and not collector:
            tx.tasks[t] = ts._replace(sink=((), False))
            tx.push(self.model.all_out[t], self.task.end_of_data_item(ts))

    def holds_end_of_data(self, ts: TaskState) -> bool:
        """Is EndOfData held back (the task may not finish: its consumers would never get it)?"""
        return bool(ts.sink) and ts.sink[1]

    @follows("CommitterOperator.snapshotState")
    def snapshot_state(self, ts: TaskState) -> tuple:
        """``snapshotState``: a copy of the collector."""
        return (ts.sink[0],)


class GlobalCommitterOperator(Component):
    """``GlobalCommitterOperator`` behind a committer: commits on input.

    ``GlobalCommitterOperator`` (working state ``(lastCompletedCheckpointId, collector)``;
    snapshot ``(collector,)``; the collector holds ``(checkpoint, committer subtask,
    committables)`` per message): behind a committer it commits on input (``commitOnInput``):
    a checkpoint's committables once every committer subtask's message for it arrived
    (``hasGloballyReceivedAll``), in ascending order, stopping at the first incomplete one; the
    restored collector is committed at restore.

    Abstraction: with a global committer the committer's own commit has no visible effect; the global
    committer's does (as a data-lake sink that writes files in the writer and commits a table
    snapshot globally)."""

    @follows("GlobalCommitterOperator.initializeState")
    def state(self, snap: Snapshot, restored_from: int) -> tuple:
        """``initializeState``: ``(lastCompletedCheckpointId, collector)``."""
        return (restored_from, snap.sink[0] if snap.sink else ())

    @follows("GlobalCommitterOperator.processElement")
    def receive(self, tx: Tx, t: int, item: tuple) -> None:
        """``processElement``: a committer subtask's message of one checkpoint, then
        ``commit`` up to that checkpoint (``commitOnInput``)."""
        ts = tx.tasks[t]
        last, collector = ts.sink
        tx.tasks[t] = ts._replace(sink=(last, add_sorted(collector, (item[1],) + item[2])))
        self.commit(tx, t, item[1])

    @follows("GlobalCommitterOperator.commit")
    def commit(self, tx: Tx, t: int, cp: int) -> None:
        """``commit``: ``lastCompletedCheckpointId = max(it, cp)``; then, for each checkpoint up
        to it in ascending order, commit once every committer subtask's message arrived
        (``hasGloballyReceivedAll``), else stop."""
        ts = tx.tasks[t]
        last, collector = ts.sink
        last = max(last, cp)
        senders = len(self.topo.inputs[t])
        keep = list(collector)
        for c in sorted({x[0] for x in collector if x[0] <= last}):
            got = [x for x in collector if x[0] == c]
            if len({x[1] for x in got}) < senders:
                break
            for _, _, entries in got:
                for w, recs in entries:
                    commit_committable(tx, w, c, recs)
            keep = [x for x in keep if x[0] != c]
        tx.tasks[t] = ts._replace(sink=(last, tuple(keep)))

    @follows("GlobalCommitterOperator.snapshotState")
    def snapshot_state(self, ts: TaskState) -> tuple:
        """``snapshotState``: a copy of the collector."""
        return (ts.sink[1],)
