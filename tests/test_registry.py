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
    assert j.w.tasks[SINK].base == ((1, SINK), (2, SINK))


def test_a_backend_that_missed_the_confirmation_uploads_the_file_again():
    """The sink snapshots checkpoint 2 before it learns that 1 completed: no placeholder, the
    file of checkpoint 1 is uploaded again, and the checkpoint refers to it all the same."""
    j = Job().do(EmitRecord(SOURCE)).checkpoint(1, notify=False).checkpoint(2, notify=False)
    c = j.w.coord.store[-1]
    assert c.snapshots[SINK].shared == () and c.snapshots[SINK].reuploaded == ((1, SINK),)
    assert (1, SINK) in c.files and (1, SINK) in j.w.files


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
