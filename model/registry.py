"""Incremental checkpoints and their shared files: Flink's ``SharedStateRegistry``
(``SharedStateRegistryImpl``) on the job manager, and the part of an incremental state backend
(RocksDB's ``RocksIncrementalSnapshotStrategy``) that decides how a snapshot refers to them
(design knob ``incremental_checkpoints``).  The rules, as Flink 2.x has them, and where the model
differs are on the methods that make them.
"""

from __future__ import annotations

from functools import cached_property

from .component import Component, follows
from .tx import Tx
from .world import Completed, Snapshot


class SharedStateRegistry(Component):
    """``SharedStateRegistry`` and how an incremental backend refers to its shared files.

    Not with FLIP-306 file merging, FLINK-4120's recovery, a NO_CLAIM start (its forced full first
    snapshot), a rescale or a stop-with-savepoint (refused: their rules for shared files are not
    modelled with these), nor with instant acknowledgements (registration happens when an
    acknowledgement arrives)."""

    @cached_property
    def active(self) -> bool:
        return self.design.incremental_checkpoints

    @cached_property
    def incremental(self) -> tuple[bool, ...]:
        """Per subtask: does its state go into incremental shared files?

        Abstraction: the model's operator state stands for the keyed state a backend keeps: every
        stateful subtask has an incremental backend; a source's offset is written in full, as
        Flink's operator state is."""
        return tuple(self.active and s for s in self.model.stateful)

    # the backend (task side) ------------------------------------------------------------------
    @follows("RocksDBSnapshotStrategyBase.PreviousSnapshot.getUploaded")
    def confirmed_upload(self, ts, t: int) -> dict:
        """``PreviousSnapshot.confirmedSstFiles``: local file -> remote file in the upload of the
        last checkpoint the backend saw confirmed (empty if none, or if that upload is gone),
        less every local file a newer upload sent again (``pruneFirstCheckpointSstFiles``, Flink
        2.3; not in the 2.0 source: catalog ``incremental-base-not-pruned``).  A newer snapshot
        taken before the confirmation uploaded those files under new keys, so its
        acknowledgement does not keep the confirmed upload's entries, which go once it
        completes and subsumes the confirmed checkpoint."""
        return self.pruned(self.unpruned_upload(ts), ts.uploaded, ts.confirmed, t)

    @staticmethod
    def pruned(base: dict, uploads: tuple, confirmed: int, t: int) -> dict:
        """``base`` without the local files that an upload of ``uploads`` newer than
        ``confirmed`` sent again (into its own new file)."""
        if base:
            for i, pairs in uploads:
                if i > confirmed:
                    for f, r in pairs:
                        if r == (i, t) != f:
                            base.pop(f, None)
        return base

    def unpruned_upload(self, ts) -> dict:
        """``uploadedSstFiles.get(lastCompletedCheckpointId)`` as a map, local -> remote file,
        where it is the map's first entry: ``pruneFirstCheckpointSstFiles`` walks the uploads in
        ascending order and gives up (no base) at an older one first, such as an upload whose
        asynchronous part ended after a newer checkpoint was confirmed."""
        if not ts.confirmed or not ts.uploaded or min(c for c, _ in ts.uploaded) != ts.confirmed:
            return {}
        return dict(next((pairs for c, pairs in ts.uploaded if c == ts.confirmed), ()))

    def snapshot(self, tx: Tx, t: int, cp: int, snap: Snapshot) -> Snapshot:
        """``RocksIncrementalSnapshotStrategy`` for checkpoint ``cp``: a new local file and a new
        remote file ``(cp, t)``; the local files of the confirmed upload are sent as placeholders
        for its remote files, the others go again, into ``(cp, t)``; the upload is remembered
        until confirmed or aborted.

        A stateful subtask's state lives in local files (RocksDB's sst files).  The local files
        of the upload of the last checkpoint its backend saw confirmed
        (``lastCompletedCheckpointId``; ``uploadedSstFiles.get(lastCompletedCheckpointId)``,
        ``PreviousSnapshot.getUploaded``) are sent as placeholders naming that upload's remote
        files; the others are uploaded again, and an upload again is a new remote file with a
        registry key of its own (FLINK-29913, ``SharedStateRegistryKey.forStreamStateHandle``):
        here it goes into the new file ``(cp, t)``.  A backend that saw no confirmation, or whose
        confirmed upload is gone, uploads everything.

        Abstraction: one new local file per snapshot, even when the state did not change, and no
        compaction, so a local file once written stays in the backend's state and every later
        snapshot refers to it (deletion bugs stay visible; files a compaction would drop are never
        dropped, which hides nothing the registry does with them, as the backend would not refer
        to them either).  The files one upload sends again go into one remote file: they are
        always sent together afterwards (every later snapshot refers to all of them), so one entry
        stands for their entries."""
        if not self.incremental[t]:
            return snap
        ts = tx.tasks[t]
        base = self.confirmed_upload(ts, t)
        new = (cp, t)
        pairs = tuple(sorted([(f, base.get(f, new)) for f in ts.dbfiles] + [(new, new)]))
        placeholders = tuple(sorted({base[f] for f in ts.dbfiles if f in base}))
        again = tuple(f for f in ts.dbfiles if f not in base)
        dbfiles = tuple(sorted(ts.dbfiles + (new,)))
        if self.design.max_concurrent_checkpoints > 1:  # uploadedSstFiles gets it when the async part ends
            inflight = tuple(x for x in ts.inflight if x[0] != cp) + ((cp, pairs),)
            tx.tasks[t] = ts._replace(inflight=inflight, dbfiles=dbfiles)
        else:
            uploaded = tuple(x for x in ts.uploaded if x[0] != cp) + ((cp, pairs),)
            tx.tasks[t] = ts._replace(uploaded=uploaded, dbfiles=dbfiles)
        return snap._replace(shared=placeholders, reuploaded=again)

    @follows("RocksIncrementalSnapshotStrategy.RocksDBIncrementalSnapshotOperation.get")
    def upload_done(self, tx: Tx, t: int, cp: int) -> None:
        """The asynchronous part of ``t``'s snapshot of ``cp`` ended (``uploadedSstFiles.put``, in
        ``RocksDBIncrementalSnapshotOperation.get``, before the acknowledgement is sent): from now
        on the backend's confirmation and pruning see that upload.  The model lets it end when
        the acknowledgement arrives: any later moment a Flink run can have for it (the part runs
        as long as its upload takes).  With one checkpoint at most pending the upload is recorded
        at the snapshot instead: no later snapshot of the task can come before that
        acknowledgement unless its checkpoint was aborted, and an aborted upload only prunes more
        (no file of it is ever a placeholder's base).  With more than one concurrent checkpoint,
        a snapshot taken before the acknowledgement arrives is therefore not pruned of the files
        it sends again (catalog ``incremental-prune-misses-a-running-upload``: the registry then
        refuses an acknowledgement, seen on Flink 2.3.0)."""
        ts = tx.tasks[t]
        done = [x for x in ts.inflight if x[0] == cp]
        if done:
            tx.tasks[t] = ts._replace(inflight=tuple(x for x in ts.inflight if x[0] != cp),
                                      uploaded=tuple(sorted(ts.uploaded + tuple(done))))

    def confirmed_checkpoint(self, cp: int, upto: int) -> int:
        """The checkpoint a backend is told completed by a notification of checkpoint ``cp``
        that covers this subtask's state up to ``upto`` (a plain completion: ``cp`` itself;
        FLIP-600's notice to a failed-region subtask, where the operators are told at all: the
        fallback checkpoint whose state the subtask has in ``cp``, the id its operators commit
        up to)."""
        return upto

    @follows("RocksIncrementalSnapshotStrategy.notifyCheckpointComplete")
    def on_complete(self, tx: Tx, t: int, cp: int, upto: int) -> None:
        """``notifyCheckpointComplete`` reaches the backend (the operators' notification): a
        checkpoint newer than its last confirmed one, for which it has an upload, becomes the
        confirmed one (``lastCompletedCheckpointId``), and older uploads are forgotten; any other
        id is ignored (FLINK-23949's guard)."""
        if not self.incremental[t]:
            return
        c = self.confirmed_checkpoint(cp, upto)
        ts = tx.tasks[t]
        if c > ts.confirmed and any(i == c for i, _ in ts.uploaded):
            tx.tasks[t] = ts._replace(confirmed=c, uploaded=tuple(x for x in ts.uploaded if x[0] >= c))

    @follows("RocksIncrementalSnapshotStrategy.notifyCheckpointAborted")
    def on_abort(self, tx: Tx, t: int, cp: int) -> None:
        """``notifyCheckpointAborted(cp)`` reaches the backend: its upload for ``cp`` is forgotten
        (one still in flight is put afterwards in Flink, and never confirmed; the model drops it)."""
        ts = tx.tasks[t]
        if any(x[0] == cp for x in ts.uploaded) or any(x[0] == cp for x in ts.inflight):
            tx.tasks[t] = ts._replace(uploaded=tuple(x for x in ts.uploaded if x[0] != cp),
                                      inflight=tuple(x for x in ts.inflight if x[0] != cp))

    def restore(self, tx: Tx, t: int, latest: Completed | None) -> None:
        """A restored backend: its local files are the restored handle's remote files (this
        subtask's files in the checkpoint), all confirmed, as the upload of the handle's
        checkpoint (its newest file's: a grafted FLIP-600 handle is the fallback's), which is the
        last confirmed one (``RocksDBIncrementalRestoreOperation`` without rescaling).

        Abstraction: a restored backend's local files are named after the remote files they came
        from, as one remote file stands for the files one upload sent again (``snapshot``)."""
        if not self.incremental[t] or latest is None:
            return
        files = tuple(f for f in latest.files if f[1] == t)
        if files:
            c = max(f[0] for f in files)
            tx.tasks[t] = tx.tasks[t]._replace(confirmed=c, dbfiles=files, uploaded=((c, tuple((f, f) for f in files)),))

    # the registry (job manager) ---------------------------------------------------------------
    def snapshot_files(self, cp: int, t: int, snap: Snapshot) -> tuple:
        """Every remote file a subtask's acknowledged snapshot of ``cp`` refers to.  A declined or
        aborted snapshot's new file is discarded with it (the coordinator discards the pending
        checkpoint's state)."""
        return ((cp, t),) + snap.shared

    def is_shared(self, f: tuple[int, int]) -> bool:
        """Is file ``f`` a shared one (the registry, not the checkpoint, decides when it goes)?
        (Without incremental checkpoints none is; with them a rescale, which names the subtasks
        of another parallelism in a checkpoint's files, is refused.)"""
        return self.active and self.incremental[f[1]]

    def unknown_placeholder(self, files: tuple, snap: Snapshot) -> tuple[int, int] | None:
        """The first placeholder of ``snap`` whose entry the registry no longer has (its file is
        gone), or None."""
        return next((f for f in snap.shared if f not in files), None)

    @follows("SharedStateRegistryImpl.registerReference")
    def register_acknowledged(self, tx: Tx, t: int, cp: int, snap: Snapshot | None, awaited: bool) -> bool:
        """``receiveAcknowledgeMessage`` registers the acknowledged subtask state's shared files
        (``registerSharedStates``), pending checkpoint or not: every placeholder's last use
        becomes ``cp``.  False if a placeholder names an entry the registry no longer has
        (``registerReference``'s "Attempt to reference unknown state"): the acknowledgement is
        lost and its new file deleted; where its checkpoint still ``awaited`` it, the
        subtask's ghost ``refused`` records it (a late one only leaks its new file in Flink,
        which the exception keeps from ``discardSubtaskState``).

        Flink registers every acknowledgement when it arrives, whether its checkpoint is still
        pending or not (``CheckpointCoordinator.receiveAcknowledgeMessage`` before
        ``PendingCheckpoint.acknowledgeTask``; ``registerReference``): the new file gets an
        entry, and each placeholder's entry has its last use advanced to the checkpoint's id.
        When ``registerReference`` throws, ``ExecutionGraphHandler`` only logs the exception, so
        the acknowledgement never counts and its checkpoint can complete no more (it waits for
        its timeout).

        Abstraction: a refused acknowledgement is refused whole, its new file deleted at once:
        Flink may have registered some of its files before the unknown placeholder (their last
        use advanced, their deletion later) and leaves its new file to the registry or to nobody;
        neither changes which file a checkpoint can refer to.  The new file of an acknowledgement
        that arrives late is deleted at once, where Flink's registry deletes it at a later
        subsumption: no backend can confirm a checkpoint that did not complete, so no placeholder
        names it."""
        if not self.incremental[t] or snap is None or not snap.shared:
            return True
        gone = self.unknown_placeholder(tx.files, snap)
        if gone is not None:
            tx.files = tuple(f for f in tx.files if f != (cp, t))
            if awaited and not tx.tasks[t].refused:
                tx.tasks[t] = tx.tasks[t]._replace(refused=(cp, gone[0]))
            return False
        self.advance(tx, snap.shared, cp)
        return True

    @follows("SharedStateRegistryImpl.SharedStateEntry.advanceLastUsingCheckpointID")
    def advance(self, tx: Tx, files, cp: int) -> None:
        """``SharedStateEntry.advanceLastUsingCheckpointID(cp)`` for each shared file of ``files``
        older than ``cp``."""
        used = dict(tx.reused)
        changed = False
        for f in files:
            if f[0] < cp and self.incremental[f[1]] and used.get(f, f[0]) < cp:
                used[f] = cp
                changed = True
        if changed:
            tx.reused = tuple(sorted(used.items()))

    def register(self, tx: Tx, c: Completed) -> None:
        """A completed checkpoint ``c``: its own snapshots' files were registered at their
        acknowledgements; a FLIP-600 regional one registers the failed subtasks' grafted
        fallback files under its own id when it completes, as PR #28963's
        ``registerSharedStates(..., checkpointId)`` does."""
        if c.refs:
            self.advance(tx, tuple(f for f in c.files if c.refs[f[1]]), c.id)

    @follows("SharedStateRegistryImpl.registerAllAfterRestored")
    def recovered(self, tx: Tx) -> None:
        """The registry of a new JobManager: ``registerAllAfterRestored`` registers the shared
        files of every retained checkpoint under that checkpoint's id, so a file's last use is
        the newest retained checkpoint that refers to it; what only the old JobManager's pending
        checkpoints registered is gone (their files stay on the file system, unreferenced: Flink
        leaks them; the model deleted them with the pending checkpoints)."""
        if not self.active:
            return
        used: dict = {}
        for c in tx.coord.store:
            for f in c.files:
                if self.incremental[f[1]] and f[0] < c.id:
                    used[f] = max(used.get(f, 0), c.id)
        tx.reused = tuple(sorted(used.items()))

    @follows("SharedStateRegistryImpl.unregisterUnusedState")
    def unregister_unused(self, tx: Tx, lowest: int) -> None:
        """``unregisterUnusedState(lowest)``: delete every shared file last used before the oldest
        retained checkpoint, ``lowest``.  When the store subsumes checkpoints, their shared files
        go only through here: an entry goes, and its file with it, once its last use is older
        than the oldest checkpoint the store retains."""
        used = dict(tx.reused)
        gone = {f for f in tx.files if self.incremental[f[1]] and used.get(f, f[0]) < lowest}
        if gone:
            tx.files = tuple(f for f in tx.files if f not in gone)
            tx.reused = tuple(x for x in tx.reused if x[0] not in gone)

