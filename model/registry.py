"""Incremental checkpoints and their shared files: Flink's ``SharedStateRegistry``
(``SharedStateRegistryImpl``) on the job manager, and the part of an incremental state backend
(RocksDB's ``RocksIncrementalSnapshotStrategy``) that decides how a snapshot refers to them.

The rules, as Flink 2.x has them (design knob ``incremental_checkpoints``):

- A stateful subtask's state lives in shared files (RocksDB's sst files, registered under a key
  made of the backend's id and the file's name).  Its snapshot of checkpoint ``c`` adds one new
  file, ``(c, t)``, and refers to every file its state is in.  Of those, the files of the
  snapshot of the last checkpoint its backend saw confirmed (``lastCompletedCheckpointId``;
  ``uploadedSstFiles.get(lastCompletedCheckpointId)``) are sent as placeholders, without an
  upload; the others are uploaded again (a backend that saw no confirmation, or whose confirmed
  id it never uploaded, uploads everything).
- ``notifyCheckpointComplete(c)`` reaches the backend (the operators' notification): ``c``
  becomes ``lastCompletedCheckpointId`` and the uploads of older checkpoints are forgotten;
  ``notifyCheckpointAborted(c)`` forgets the upload of ``c``.  A restore makes the restored
  handle's files the backend's files and its confirmed ones (``RocksDBIncrementalRestoreOperation``
  without rescaling).
- On the job manager each completed checkpoint registers its shared files
  (``registerReference``): a file uploaded again exists again, and every file's
  ``lastUsedCheckpointID`` becomes the checkpoint's id; a FLIP-600 regional checkpoint registers
  the failed subtasks' grafted fallback files under its own id, as PR #28963's
  ``registerSharedStates(..., checkpointId)`` does.  A placeholder names a file the registry
  must still have.  When the store subsumes checkpoints, their shared files go only through
  ``unregisterUnusedState(lowestRetainedCheckpointId)``: a file goes once its last use is older
  than the oldest checkpoint the store retains.
- A declined or aborted snapshot's new file is discarded with it (the coordinator discards the
  pending checkpoint's state).

Abstractions: the model's operator state stands for the keyed state a backend keeps (every
stateful subtask has an incremental backend; a source's offset is written in full, as Flink's
operator state is); one new file per snapshot, even when the state did not change, and no
compaction, so a file once written stays in the backend's state and every later snapshot refers
to it (deletion bugs stay visible; files a compaction would drop are never dropped, which hides
nothing the registry does with them, as the backend would not refer to them either).  A file
uploaded again by a snapshot whose checkpoint then aborts is not made to exist again (it is only
once the checkpoint completes).  The registry's refusal of a placeholder whose file it no longer
has ("Attempt to reference unknown state") is not modelled: the checkpoint completes and
``checkpoints-restorable`` reports the file it refers to that no longer exists.  Not with FLIP-306
file merging, FLINK-4120's recovery, a NO_CLAIM start (its forced full first snapshot), a rescale
or a stop-with-savepoint (refused: their rules for shared files are not modelled with these).
"""

from __future__ import annotations

from functools import cached_property

from .component import Component
from .tx import Tx
from .world import Completed, Snapshot


class SharedStateRegistry(Component):
    """``SharedStateRegistry`` and how an incremental backend refers to its shared files."""

    @cached_property
    def active(self) -> bool:
        return self.design.incremental_checkpoints

    @cached_property
    def incremental(self) -> tuple[bool, ...]:
        """Per subtask: does its state go into incremental shared files?"""
        return tuple(self.active and s for s in self.model.stateful)

    # the backend (task side) ------------------------------------------------------------------
    def snapshot(self, tx: Tx, t: int, cp: int, snap: Snapshot) -> Snapshot:
        """``RocksIncrementalSnapshotStrategy`` for checkpoint ``cp``: a new file ``(cp, t)``;
        the confirmed files as placeholders, the rest of the backend's files uploaded again; the
        upload is remembered until confirmed or aborted."""
        if not self.incremental[t]:
            return snap
        ts = tx.tasks[t]
        base = set(ts.base)
        placeholders = tuple(f for f in ts.dbfiles if f in base)
        again = tuple(f for f in ts.dbfiles if f not in base)
        files = tuple(sorted(set(ts.dbfiles) | {(cp, t)}))
        uploaded = tuple(x for x in ts.uploaded if x[0] != cp) + ((cp, files),)
        tx.tasks[t] = ts._replace(uploaded=uploaded, dbfiles=files)
        return snap._replace(shared=placeholders, reuploaded=again)

    def confirmed_checkpoint(self, cp: int, upto: int) -> int:
        """The checkpoint a backend takes as its ``lastCompletedCheckpointId`` from a
        notification of checkpoint ``cp`` that covers this subtask's state up to ``upto`` (a
        plain completion: ``cp`` itself; FLIP-600's notice to a failed-region subtask, where the
        operators are told at all: the fallback checkpoint whose state the subtask has in
        ``cp``, the id its operators commit up to)."""
        return upto

    def on_complete(self, tx: Tx, t: int, cp: int, upto: int) -> None:
        """``notifyCheckpointComplete`` reaches the backend: the confirmed upload's files become
        the ones its next snapshot sends as placeholders (none if it has no upload for that
        id: the next snapshot uploads everything)."""
        if not self.incremental[t]:
            return
        c = self.confirmed_checkpoint(cp, upto)
        ts = tx.tasks[t]
        base = next((files for i, files in ts.uploaded if i == c), ())
        tx.tasks[t] = ts._replace(base=base, uploaded=tuple(x for x in ts.uploaded if x[0] >= c))

    def on_abort(self, tx: Tx, t: int, cp: int) -> None:
        """``notifyCheckpointAborted(cp)`` reaches the backend: its upload for ``cp`` is forgotten."""
        ts = tx.tasks[t]
        if ts.uploaded and any(x[0] == cp for x in ts.uploaded):
            tx.tasks[t] = ts._replace(uploaded=tuple(x for x in ts.uploaded if x[0] != cp))

    def restore(self, tx: Tx, t: int, latest: Completed | None) -> None:
        """A restored backend: its state is in the restored handle's files (the checkpoint's
        files of this subtask), all of them confirmed, as the upload of the handle's checkpoint
        (its newest file's: a grafted FLIP-600 handle is the fallback's)."""
        if not self.incremental[t] or latest is None:
            return
        files = tuple(f for f in latest.files if f[1] == t)
        if files:
            tx.tasks[t] = tx.tasks[t]._replace(base=files, dbfiles=files, uploaded=((max(f[0] for f in files), files),))

    # the registry (job manager) ---------------------------------------------------------------
    def snapshot_files(self, cp: int, t: int, snap: Snapshot) -> tuple:
        """Every file a subtask's acknowledged snapshot of ``cp`` refers to."""
        if not (snap.shared or snap.reuploaded):
            return ((cp, t),)
        return ((cp, t),) + snap.shared + snap.reuploaded

    def is_shared(self, f: tuple[int, int]) -> bool:
        """Is file ``f`` a shared one (the registry, not the checkpoint, decides when it goes)?
        (Without incremental checkpoints none is; with them a rescale, which names the subtasks
        of another parallelism in a checkpoint's files, is refused.)"""
        return self.active and self.incremental[f[1]]

    def register(self, tx: Tx, c: Completed) -> None:
        """``registerReference`` of every shared file of completed checkpoint ``c``: the files
        its own snapshots uploaded again exist again, and every file's last use becomes ``c``'s
        id (grafted fallback files too)."""
        again = [f for t, s in enumerate(c.snapshots) if s.reuploaded and not (c.refs and c.refs[t]) for f in s.reuploaded]
        if again:
            tx.files = tuple(sorted(set(tx.files).union(again)))
        used = dict(tx.reused)
        changed = False
        for f in c.files:
            if f[0] < c.id and self.incremental[f[1]] and used.get(f, f[0]) < c.id:
                used[f] = c.id
                changed = True
        if changed:
            tx.reused = tuple(sorted(used.items()))

    def unregister_unused(self, tx: Tx, lowest: int) -> None:
        """``unregisterUnusedState(lowest)``: delete every shared file last used before the oldest
        retained checkpoint, ``lowest``."""
        used = dict(tx.reused)
        gone = {f for f in tx.files if self.incremental[f[1]] and used.get(f, f[0]) < lowest}
        if gone:
            tx.files = tuple(f for f in tx.files if f not in gone)
            tx.reused = tuple(x for x in tx.reused if x[0] not in gone)
