"""Incremental checkpoints and the SharedStateRegistry (``model.registry``): what a snapshot
sends as placeholders and uploads again, when the registry deletes a shared file, and FLIP-600's
failed-region backend (catalog K10)."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT
from ckptcheck.model.actions import Ack, Deliver, EmitRecord, Notify, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.registry import SharedStateRegistry
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.designs import BASELINE, FLIP600_INCREMENTAL, INCREMENTAL
from ckptcheck.specs.spec import Spec
from ckptcheck.specs.scopes import scope

from conftest import SEARCH_WORKERS
from test_protocol import Run

SOURCE, SINK = 0, 1  # keyed-1x1


class Job(Run):
    """keyed-1x1 (a source keyed into a 2PC sink), unbounded, checkpoints driven by hand."""

    def __init__(self, design=INCREMENTAL):
        super().__init__(FlinkModel(design, scope("keyed-1x1", records_per_split=1, bounded=False, max_checkpoints=3,
                                                  max_failures=0, max_declines=0, max_timeouts=0, max_lost_notifications=0)))

    def do(self, *actions):
        for a in actions:
            super().do(a)
        return self

    def checkpoint(self, cp: int, notify: bool = True):
        """Checkpoint ``cp`` from trigger to completion; with ``notify`` the sink learns of it."""
        self.do(TriggerCheckpoint(cp))
        while self.w.channels[0]:
            self.do(Deliver(0))
        self.do(Ack(SOURCE, cp), Ack(SINK, cp))
        if notify:
            self.do(Notify(SOURCE, cp, "complete"), Notify(SINK, cp, "complete"))
        return self


def test_a_confirmed_snapshots_files_are_placeholders_and_outlive_their_checkpoint():
    """Checkpoint 2's sink snapshot sends checkpoint 1's file as a placeholder; the store keeps
    only checkpoint 2, and the registry keeps the sink's file of checkpoint 1 (last used by 2)
    while the source's file of checkpoint 1, written in full, goes with its checkpoint."""
    j = Job().do(EmitRecord(SOURCE)).checkpoint(1).checkpoint(2)
    (c,) = j.w.coord.store
    assert c.id == 2 and c.snapshots[SINK].shared == ((1, SINK),) and c.snapshots[SINK].reuploaded == ()
    assert c.files == ((1, SINK), (2, SOURCE), (2, SINK))
    assert (1, SINK) in j.w.files and (1, SOURCE) not in j.w.files
    assert dict(j.w.reused)[(1, SINK)] == 2
    sink = j.w.tasks[SINK]
    assert sink.confirmed == 2 and sink.uploaded == ((2, (((1, SINK), (1, SINK)), ((2, SINK), (2, SINK)))),)


def test_a_backend_that_missed_the_confirmation_uploads_the_file_again_as_a_new_file():
    """The sink snapshots checkpoint 2 before it learns that 1 completed: no placeholder; its
    local file of checkpoint 1 goes again, into the new remote file of checkpoint 2 (a key of its
    own since FLINK-29913), and checkpoint 1's remote file goes when 2 subsumes 1."""
    j = Job().do(EmitRecord(SOURCE)).checkpoint(1, notify=False).checkpoint(2, notify=False)
    c = j.w.coord.store[-1]
    assert c.snapshots[SINK].shared == () and c.snapshots[SINK].reuploaded == ((1, SINK),)
    assert c.files == ((2, SOURCE), (2, SINK)) and (1, SINK) not in j.w.files
    assert dict(j.w.tasks[SINK].uploaded)[2] == (((1, SINK), (2, SINK)), ((2, SINK), (2, SINK)))


def test_a_late_confirmation_prunes_the_base_and_without_the_prune_the_registry_refuses():
    """Review rows T1 and T2, without a fault: the sink takes snapshot 2 before the notice of
    checkpoint 1 (so it uploads its file of 1 again, under a new key), 2 subsumes 1 and the
    registry deletes checkpoint 1's file; the notice of 1 then arrives (newer than anything the
    backend saw confirmed, and it has that upload).  Flink 2.3 prunes that file from snapshot
    3's placeholder base (``PreviousSnapshot.pruneFirstCheckpointSstFiles``): it goes again, and
    checkpoint 3 completes.  Without the prune (the 2.0 source, catalog
    ``incremental-base-not-pruned``) snapshot 3 names the deleted file by placeholder and the
    registry refuses the acknowledgement ("Attempt to reference unknown state"): checkpoint 3
    keeps waiting for the sink, and checkpoint 2, still the latest, refers to no deleted file."""
    unpruned = entry("incremental-base-not-pruned").design
    assert INCREMENTAL.registry is SharedStateRegistry and unpruned.registry is not SharedStateRegistry
    for design in (INCREMENTAL, unpruned):
        j = Job(design).do(EmitRecord(SOURCE)).checkpoint(1, notify=False).checkpoint(2, notify=False)
        j.do(Notify(SOURCE, 1, "complete"), Notify(SOURCE, 2, "complete"), Notify(SINK, 1, "complete"))
        assert j.w.tasks[SINK].confirmed == 1
        j.do(TriggerCheckpoint(3))
        while j.w.channels[0]:
            j.do(Deliver(0))
        snap = next(s for t, cp, s in j.w.acks if t == SINK and cp == 3)
        assert (1, SINK) not in j.w.files
        j.do(Ack(SOURCE, 3), Ack(SINK, 3))
        if design is INCREMENTAL:
            assert snap.shared == () and snap.reuploaded == ((1, SINK), (2, SINK))
            assert [c.id for c in j.w.coord.store] == [3] and not j.w.tasks[SINK].refused
            continue
        assert snap.shared == ((1, SINK),)
        (p,) = j.w.coord.pending
        assert p.id == 3 and SINK not in dict(p.acked) and p.waiting >> SINK & 1
        assert (3, SINK) not in j.w.files and [c.id for c in j.w.coord.store] == [2]
        assert all(f in j.w.files for f in j.w.coord.store[-1].files)
        assert j.w.tasks[SINK].refused == (3, 1)
        # the notice of 2 then makes 2 the confirmed checkpoint: the backend's next snapshot is sound again
        j.do(Notify(SINK, 2, "complete"))
        assert j.w.tasks[SINK].confirmed == 2


def test_the_backend_ignores_a_completion_it_has_no_newer_upload_for():
    """``RocksIncrementalSnapshotStrategy.notifyCheckpointComplete`` (FLINK-23949's guard): an id
    not newer than the last confirmed one, or one it never uploaded, changes nothing."""
    m = FlinkModel(INCREMENTAL, scope("keyed-1x1", max_checkpoints=1, max_failures=0, max_declines=0, max_timeouts=0,
                                      max_lost_notifications=0))
    from ckptcheck.model.tx import Tx
    tx = Tx(m.initial())
    ups = ((2, (((2, SINK), (2, SINK)),)), (3, (((2, SINK), (2, SINK)), ((3, SINK), (3, SINK)))))
    tx.tasks[SINK] = tx.tasks[SINK]._replace(confirmed=2, uploaded=ups, dbfiles=((2, SINK), (3, SINK)))
    for cp in (1, 2, 4):
        m.registry.on_complete(tx, SINK, cp, cp)
        assert tx.tasks[SINK].confirmed == 2 and tx.tasks[SINK].uploaded == ups, cp
    m.registry.on_complete(tx, SINK, 3, 3)
    assert tx.tasks[SINK].confirmed == 3 and tx.tasks[SINK].uploaded == ups[1:]


def test_the_registry_deletes_a_file_once_its_last_use_is_older_than_the_oldest_retained_checkpoint():
    m = FlinkModel(INCREMENTAL, scope("keyed-1x1", max_checkpoints=1, max_failures=0, max_declines=0, max_timeouts=0,
                                      max_lost_notifications=0))
    reg: SharedStateRegistry = m.registry
    from ckptcheck.model.tx import Tx
    tx = Tx(m.initial())
    tx.files = ((1, SINK), (2, SINK), (3, SOURCE))
    tx.reused = (((1, SINK), 3),)
    reg.unregister_unused(tx, 3)
    assert tx.files == ((1, SINK), (3, SOURCE))  # (1, sink) last used by 3; (2, sink) by 2; the source's is not shared
    reg.unregister_unused(tx, 4)
    assert tx.files == ((3, SOURCE),) and tx.reused == ()


def test_flink_incremental_holds_where_the_baseline_holds_and_hits_its_witnesses():
    sc = scope("keyed-2x1", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0, max_timeouts=0,
               max_lost_notifications=0)
    r = check(INCREMENTAL, sc, workers=SEARCH_WORKERS)
    assert r.complete and r.ok, [v.reason for v in r.violated]
    for w in ("a-placeholder-refers-to-an-earlier-file", "a-shared-file-outlives-its-checkpoint"):
        assert r.verdict(w).status == HIT, w
    assert "a-placeholder-refers-to-an-earlier-file" not in {p.name for p in Spec(BASELINE, sc).applicable}


class DeletesAtItsLastUse(SharedStateRegistry):
    """A registry that deletes a file whose last use is the oldest retained checkpoint."""

    def unregister_unused(self, tx, lowest):
        super().unregister_unused(tx, lowest + 1)


def test_a_registry_one_checkpoint_too_eager_breaks_a_retained_checkpoint():
    sc = scope("keyed-1x1", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0, max_timeouts=0,
               max_lost_notifications=0)
    r = check(INCREMENTAL.with_(name="eager-registry", registry=DeletesAtItsLastUse), sc, workers=1)
    assert "checkpoints-restorable" in {v.property for v in r.violated}


def test_the_failed_region_backend_confirms_the_fallback_not_the_regional_id():
    """Catalog K10's rule on the correct design: a failed-region sink's backend, told of regional
    checkpoint 2 with the fallback 1, keeps checkpoint 1's files as its placeholders; the flaw
    takes its own declined snapshot of 2, whose file the coordinator discarded."""
    e = entry("K10-backend-confirms-regional-id")
    for design, expected in ((FLIP600_INCREMENTAL, 1), (e.design, 2)):
        m = FlinkModel(design, e.scope)
        assert m.registry.confirmed_checkpoint(2, 1) == expected


@pytest.mark.parametrize("job", ["forward-2x2"])
def test_symmetry_commutes_with_the_backends_files(job):
    from test_explore import assert_step_commutes

    assert assert_step_commutes(INCREMENTAL, job, runs=40) > 100
    assert assert_step_commutes(FLIP600_INCREMENTAL, job, runs=40) > 100


def test_incremental_checkpoints_are_refused_where_not_modelled():
    with pytest.raises(ValueError, match="incremental_checkpoints"):
        INCREMENTAL.with_(file_merging=True)
    with pytest.raises(ValueError, match="incremental_checkpoints"):
        FlinkModel(INCREMENTAL, scope("keyed-1x1", rescale=(("sink", 2),), max_rescales=1))


def test_without_incremental_checkpoints_a_scale_down_subsumes_the_older_checkpoint():
    """Regression: a checkpoint taken at a higher parallelism names subtasks the rescaled job
    does not have; without incremental checkpoints none of its files is shared, and the store
    deletes them as before."""
    sc = scope("keyed-2x2", records_per_split=0, bounded=False, max_checkpoints=2, max_failures=0, max_declines=0,
               max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 1),), max_rescales=1)
    r = check(BASELINE, sc, workers=1)
    assert r.complete and r.ok and r.verdict("the-job-is-rescaled").status == HIT
