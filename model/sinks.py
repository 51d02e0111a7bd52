"""Sinks: Flink's ``TwoPhaseCommitSinkFunction`` (the 2PC sink of the legacy sink API), and a
plain sink whose writes are visible at once (``two_phase_commit = false``).  The external system
and the numbering of transactions are on ``TwoPhaseCommitSink``; each rule and abstraction of
the sink is on the method that makes it.
"""

from __future__ import annotations

from .component import Component, follows
from .tx import Tx
from .world import COMMITTED, OPEN, Snapshot, TaskState, Txn


class TwoPhaseCommitSink(Component):
    """``TwoPhaseCommitSinkFunction`` (and a non-transactional sink).

    A 2PC sink writes records into its open transaction; its snapshot pre-commits that
    transaction and opens the next (``snapshotState``: ``preCommit`` + ``beginTransaction``);
    ``notifyCheckpointComplete(c)`` commits every pending transaction of a checkpoint <= c; a
    restore recovers-and-commits the pending transactions in its state and aborts every other
    open transaction of its own (``initializeState``).

    Abstraction: the external system is the set of transactions in ``World.txns`` (an aborted one
    is gone).  A transaction names its subtask by global id (``FlinkModel.gid``), which a rescale
    keeps.  Transaction numbers are identities, not a history.  A number that names nothing (a
    snapshot of an empty transaction, an open transaction aborted at a restore) is taken again
    by the next transaction: a subtask's next number is one past the highest it has in the
    external system.  Numbering by a counter instead, as Flink's transactional ids do, would make
    worlds that differ only in how many transactions were ever opened distinct states with the
    same future (the FLIP-600 scope with one checkpoint has half the states this way: 112,875
    against 232,300).  What it can hide: a bug that depends on a transactional id being reused
    (a producer fenced by a later one with the same id, as Kafka's transactional.id does) cannot
    show, since no id outlives its transaction."""

    @follows("TwoPhaseCommitSinkFunction.invoke")
    def invoke(self, tx: Tx, t: int, ts: TaskState, r: tuple[int, int]) -> None:
        """``invoke``: record ``r`` goes into the open transaction (a plain sink's write is
        committed at once)."""
        g = self.model.gid[t]
        old = tx.txn(g, ts.txn)
        status = OPEN if self.model.two_pc[t] else COMMITTED
        records = (old.records if old else ()) + (r,)
        tx.set_txn(Txn(g, ts.txn, status, records))

    @follows("TwoPhaseCommitSinkFunction.snapshotState")
    def snapshot_state(self, tx: Tx, t: int, ts: TaskState, cp: int) -> tuple[tuple, int]:
        """``snapshotState`` for checkpoint ``cp``: pre-commit the open transaction (if it holds
        records) and open the next.  Returns the new pending list and open transaction (an
        empty one keeps its number, see the class docstring).
        ``sink_commit = "pre-commit"`` is the flawed sink that commits here (catalog
        ``commit-at-pre-commit``).

        Abstraction: an empty transaction is not recorded (committing it changes nothing
        outside)."""
        pending, txn = ts.pending, ts.txn
        if tx.txn(self.model.gid[t], txn) is None:
            return pending, txn  # nothing written: the next transaction takes the unused number
        if self.design.sink_commit == "pre-commit":
            self.commit(tx, t, txn)
        else:
            pending = pending + ((cp, txn),)
        return pending, txn + 1

    @follows("TwoPhaseCommitSinkFunction.notifyCheckpointComplete")
    def commit_up_to(self, tx: Tx, t: int, upto: int) -> None:
        """``notifyCheckpointComplete``: commit the pending transactions of checkpoints <= ``upto``."""
        ts = tx.tasks[t]
        keep = []
        for c, txn in ts.pending:
            if c <= upto:
                self.commit(tx, t, txn)
            else:
                keep.append((c, txn))
        tx.tasks[t] = ts._replace(pending=tuple(keep))

    def commit(self, tx: Tx, t: int, seq: int) -> None:
        """``commit``: the external system makes transaction ``seq`` visible (idempotent)."""
        old = tx.txn(self.model.gid[t], seq)
        if old is not None and old.status != COMMITTED:
            tx.set_txn(old._replace(status=COMMITTED))

    def abort(self, tx: Tx, t: int, seq: int) -> None:
        """``abort``: an open transaction is dropped by the external system."""
        g = self.model.gid[t]
        old = tx.txn(g, seq)
        if old is not None and old.status != COMMITTED:
            tx.set_txn(None, remove=(g, seq))

    def close_without_final_checkpoint(self, tx: Tx, t: int, ts: TaskState) -> None:
        """Before FLIP-147 a finishing sink is closed with no checkpoint after its last records:
        ``close()`` aborts the open transaction (the data loss FLIP-147 was written to fix)."""
        self.abort(tx, t, ts.txn)

    @follows("TwoPhaseCommitSinkFunction.initializeState")
    def initialize_state(self, tx: Tx, t: int, snap: Snapshot) -> int:
        """``initializeState`` on restore: recover-and-commit the pending transactions in the
        restored state, abort every other open transaction of the subtasks whose state it got
        (its own, or after a rescale the old subtasks in ``snap.owners``, whose pending entries
        name their owner).  Returns the number of the transaction it opens next: one past the
        highest of its own still in the external system (see the class docstring).

        Abstraction: Flink's ``TwoPhaseCommitSinkFunction.initializeState`` aborts only the
        open transaction the restored state names (``recoverAndAbort``), and the failed
        attempt's ``close`` its current one; a transaction pre-committed for a checkpoint that
        never completed stays open in the external system until the system's own timeout (a
        real run shows it: ``ckptcheck validate``, which therefore matches commits only).  The
        model aborts it here, as a connector that fences its old transactions does.  What it
        can hide: nothing a property reads, since no rule commits a transaction it aborted or
        reads an open one; a bug in a sink that commits an orphaned transaction later would
        need that transaction kept open."""
        g = self.model.gid[t]
        owners = set(snap.owners) if snap.owners else {g}
        recommit = {(p[2] if len(p) > 2 else g, p[1]) for p in snap.pending}
        for x in tuple(tx.txns):
            if x.task not in owners or x.status == COMMITTED:
                continue
            if (x.task, x.seq) in recommit:
                tx.set_txn(x._replace(status=COMMITTED))
            else:
                tx.set_txn(None, remove=(x.task, x.seq))
        return max([0] + [x.seq for x in tx.txns if x.task == g]) + 1
