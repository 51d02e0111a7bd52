"""Completed checkpoints and their files: Flink's ``CompletedCheckpointStore``
(``DefaultCompletedCheckpointStore`` with ``CheckpointSubsumeHelper``), the
``CheckpointsCleaner``, FLIP-600's refCheckpointId closure, a NO_CLAIM start, and FLIP-306's
``FileMergingSnapshotManager`` on the task managers.  Each abstraction is on the class or the
method that makes it.
"""

from __future__ import annotations

import inspect
from functools import cached_property

from .actions import DeleteSnapshot, handles
from .component import Component, follows
from .tx import Tx
from .world import EMPTY_SNAPSHOT, Completed, World, remove_sorted


def ref_closure(store: tuple, ids) -> set[int]:
    """``ids`` and every checkpoint of ``store`` they reach through refCheckpointIds
    (``DefaultCompletedCheckpointStore.computeReferencedCheckpointIds``, mechanics note 8.1).  The
    store's own rule is ``CompletedCheckpointStore.referenced``, which a variant may replace."""
    by_id = {c.id: c for c in store}
    todo, closure = list(ids), set(ids)
    while todo:
        c = by_id.get(todo.pop())
        for r in c.refs if c else ():
            if r and r not in closure and r in by_id:
                closure.add(r)
                todo.append(r)
    return closure


class CompletedCheckpointStore(Component):
    """``DefaultCompletedCheckpointStore``: what is retained after each completion, and what the
    ``CheckpointsCleaner`` deletes.

    Abstraction: a file is ``(checkpoint, task)``: one state handle per subtask and checkpoint.
    Without ``incremental_checkpoints`` every snapshot is a full one, so NO_CLAIM's "first
    checkpoint is full" rule changes nothing here; with it a stateful subtask's files are shared
    between checkpoints and go only through the ``SharedStateRegistry`` (``model.registry``;
    refused together with a NO_CLAIM start)."""

    @cached_property
    def first_checkpoint_id(self) -> int:
        """The first checkpoint id this run triggers: 2 after a NO_CLAIM restore of snapshot 1
        (the id counter restarts at the snapshot's id + 1, ref 8.3)."""
        return 2 if self.design.no_claim_restore else 1

    def initial(self) -> tuple[tuple, tuple]:
        """The store and files the job starts with: empty, or with ``no_claim_restore`` snapshot
        1 (the initial state, unclaimed: its files are never deleted by Flink).

        Abstraction: a NO_CLAIM start is snapshot 1 holding the initial state; checkpoint ids
        continue at 2 (``first_checkpoint_id``)."""
        if not self.design.no_claim_restore:
            return (), ()
        n = self.topo.n_tasks
        files = tuple((1, t) for t in range(n))
        return (Completed(1, (EMPTY_SNAPSHOT,) * n, files, (), True, self.enumerator.all_splits),), files

    def retained_ids(self, completed: tuple[int, ...], num_retained: int) -> tuple[int, ...]:
        """Which completed checkpoints the store keeps after an add (``CheckpointSubsumeHelper``).

        Keeps the newest ``num_retained`` (a value <= 0 falls back to 1, as
        ``DefaultCompletedCheckpointStoreUtils`` does); the latest checkpoint is never subsumed
        (FLINK-21351).
        """
        n = max(1, num_retained)
        return tuple(completed[-n:])

    @follows("#28963 DefaultCompletedCheckpointStore.computeReferencedCheckpointIds")
    def referenced(self, store: tuple, ids) -> set[int]:
        """``ids`` and every checkpoint of ``store`` they reach through refCheckpointIds: what a
        FLIP-600 store keeps for them (``DefaultCompletedCheckpointStore.computeReferencedCheckpointIds``,
        mechanics note 8.1; ``ref_closure``).  ``retain`` asks it under ``retention_follows_refs`` and
        for ``discard``, ``may_delete_snapshot`` for the NO_CLAIM snapshot."""
        return ref_closure(store, ids)

    def retained_with_refs(self, store: tuple, ids: tuple[int, ...], keep: tuple[int, ...]) -> tuple[int, ...]:
        """The checkpoints retained once refs count: those ``keep`` names and every one they refer
        to (``retention_follows_refs``, the refCheckpointId closure; ``model.flip600`` reads it
        otherwise)."""
        closure = self.referenced(store, keep)
        return tuple(i for i in ids if i in closure)

    @follows("CheckpointsCleaner.cleanSubsumedCheckpoints")
    def discard(self, subsumed: tuple[int, ...], retained: tuple[int, ...], pending: tuple[int, ...],
                referenced: frozenset[int] = frozenset()) -> tuple[int, ...]:
        """Whose files the cleaner deletes (``CheckpointsCleaner.cleanSubsumedCheckpoints``).

        Only subsumed checkpoints, never one the store still retains, and never because of a
        pending checkpoint: a pending checkpoint may still fail.  ``referenced`` is the ref
        closure of ``retained`` (``referenced``): the checkpoints whose files a retained one
        still refers to, which the default leaves to the retention (``retention_follows_refs``
        retains them).  An override with only the first three parameters is called without it.
        """
        return subsumed

    @cached_property
    def _discard_reads_refs(self) -> bool:
        """Is ``discard`` an override that takes ``referenced``?  (One written before it existed
        does not; the default ignores it, so it is not computed for the default.)"""
        if type(self).discard is CompletedCheckpointStore.discard:
            return False
        return "referenced" in inspect.signature(self.discard).parameters

    @follows("CheckpointSubsumeHelper.subsume")
    def retain(self, tx: Tx) -> int:
        """After an add (or abort): keep what ``retained_ids`` says, plus the latest
        checkpoint's null-state checkpoint (FLINK-4120,
        ``NullStateRecovery.retained_for_recovery``), plus (FLIP-600,
        ``retention_follows_refs``) the transitive closure of their refCheckpointIds; then the
        cleaner deletes the files of the checkpoints ``discard`` names.

        Never deleted here: the files of an unclaimed (NO_CLAIM) snapshot, and FLIP-306 merged
        segments, which their task manager discards on the checkpoint notifications.  Returns
        the ``lastSubsumedCheckpointId`` those notifications carry when file merging is on (0
        otherwise)."""
        coord = tx.coord
        if self.registry.active and coord.store:
            self.registry.register(tx, coord.store[-1])
        ids = tuple(c.id for c in coord.store)
        pend = tuple(p.id for p in coord.pending)
        keep = tuple(self.retained_ids(ids, self.design.num_retained))
        extra = self.null_state.retained_for_recovery(coord.store)  # FLINK-4120
        if extra:
            keep = tuple(i for i in ids if i in keep or i in extra)
        last_subsumed = self.file_merging_manager.last_subsumed(ids, keep)
        keep = self.retained_with_refs(coord.store, ids, keep)
        subsumed = tuple(i for i in ids if i not in keep)
        if self._discard_reads_refs:
            gone = set(self.discard(subsumed, keep, pend, referenced=frozenset(self.referenced(coord.store, keep))))
        else:
            gone = set(self.discard(subsumed, keep, pend))
        if not subsumed and not gone:
            return last_subsumed
        merged = self.file_merging_manager.is_merged
        shared = self.registry.is_shared
        for c in coord.store:
            if c.id in gone and not c.unclaimed:
                tx.files = remove_sorted(tx.files, *(f for f in c.files if not merged(f[0]) and not shared(f)))
        tx.coord = coord._replace(store=tuple(c for c in coord.store if c.id in keep))
        if self.registry.active and keep:
            self.registry.unregister_unused(tx, min(keep))  # SharedStateRegistry.unregisterUnusedState
        return last_subsumed

    # NO_CLAIM ---------------------------------------------------------------------------------
    def may_delete_snapshot(self, w: World) -> bool:
        """The user may delete the NO_CLAIM snapshot (its files still exist): after the first
        completed checkpoint (Flink's documentation: "once a checkpoint succeeds you can
        manually delete the original snapshot"), or only once the latest completed checkpoint
        no longer refers to it through refCheckpointIds (the FLIP-600 thread: "NO_CLAIM restore mode ->
        Warn (require global checkpoint before snapshot deletion)")."""
        if not any(f[0] == 1 for f in w.files):
            return False
        coord = w.coord
        if not coord.completed_count:
            return False
        if self.design.no_claim_delete_after == "first-checkpoint":
            return True
        return 1 not in self.referenced(coord.store, (coord.store[-1].id,))

    @handles(DeleteSnapshot)
    def delete_snapshot(self, tx: Tx) -> None:
        """The user deletes the NO_CLAIM snapshot's files."""
        tx.files = tuple(f for f in tx.files if f[0] != 1)


class FileMergingSnapshotManager(Component):
    """FLIP-306 ``FileMergingSnapshotManager`` at task-manager level (mechanics note 8.2).

    Abstraction: one physical file per (checkpoint, task manager), holding that task manager's
    subtasks' segments; a physical file exists while one of its segments does
    (``physical_file``, ``file_exists``).  The segments of an aborted checkpoint or a lost ack
    are discarded at once (Flink does it on the abort notification)."""

    @cached_property
    def task_manager(self) -> tuple[int, ...]:
        """Per subtask, its task manager: slot i hosts subtask i of every vertex (slot sharing)."""
        k = self.design.slots_per_task_manager
        return tuple(self.topo.index_of[t] // k for t in range(self.topo.n_tasks))

    def is_merged(self, cp: int) -> bool:
        """Does checkpoint ``cp`` write merged segments?  (Not the NO_CLAIM snapshot: files
        restored from outside the managed directory are never merged or deleted.)"""
        return self.design.file_merging and cp >= self.store.first_checkpoint_id

    def physical_file(self, f: tuple[int, int]) -> tuple[int, int]:
        """The physical file holding segment ``f`` = (checkpoint, task): (checkpoint, task manager)."""
        return (f[0], self.task_manager[f[1]])

    def file_exists(self, w: World, f: tuple[int, int]) -> bool:
        """A plain file exists while it is in ``w.files``; a merged segment is readable while its
        physical file exists, that is while any segment of that file is not yet discarded."""
        if f in w.files:
            return True
        if not self.is_merged(f[0]):
            return False
        tm = self.task_manager[f[1]]
        return any(c == f[0] and self.task_manager[t] == tm for c, t in w.files)

    def last_subsumed(self, ids: tuple[int, ...], newest: tuple[int, ...]) -> int:
        """The ``lastSubsumedCheckpointId`` the next notifications carry (0 without merging):
        the newest checkpoint outside the last ``num_retained``, as Flink's subsume helper
        counts it, whatever refs say: the notice carries an id, not the store's refs."""
        if not self.design.file_merging:
            return 0
        older = [i for i in ids if i not in newest]
        return max(older) if older else 0

    def keep_alive(self, tx: Tx, files, cp: int) -> None:
        """A regional checkpoint ``cp`` re-registers the failed subtasks' fallback segments under
        its own id (mechanics note 8.1 step 6; the FLIP-600 thread, Zakelly: "keep previous checkpoint files
        alive when a region checkpoint occurs"), so a subsumed notice for an older checkpoint
        does not discard them."""
        used = dict(tx.reused)
        for f in files:
            if f[0] != cp and self.is_merged(f[0]):
                used[f] = max(used.get(f, f[0]), cp)
        tx.reused = tuple(sorted(used.items()))

    @follows("FileMergingSnapshotManagerBase.notifyCheckpointSubsumed")
    def notify_subsumed(self, tx: Tx, t: int, subsumed: int) -> None:
        """``notifyCheckpointSubsumed(subtask, subsumed)``: discard the subtask's segments of
        checkpoints <= ``subsumed`` whose lastUsed <= ``subsumed`` (ref 8.2).  A physical file
        goes once no segment in it is left (``file_exists``)."""
        used = dict(tx.reused)
        gone = [f for f in tx.files if f[1] == t and f[0] <= subsumed and self.is_merged(f[0]) and used.get(f, f[0]) <= subsumed]
        if gone:
            tx.files = remove_sorted(tx.files, *gone)
            tx.reused = tuple(x for x in tx.reused if x[0] not in gone)
