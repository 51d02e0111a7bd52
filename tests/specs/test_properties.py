"""Each property predicate says the right thing on a hand-built world (and can fail)."""

from __future__ import annotations

from ckptcheck.model.actions import Restore
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import COMMITTED, FAILED, FINISHED, OPEN, RUNNING, Completed, Snapshot, Txn
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.properties import (
    consistent_cut,
    exactly_once_output,
    key_groups_owned_once,
    restorable,
    terminates_with_all_output,
)
from ckptcheck.specs.flip147.properties import w_finished_on_restore
from ckptcheck.specs.scopes import scope


def m():
    return FlinkModel(BASELINE, scope("keyed-2x2", max_checkpoints=1))


def test_exactly_once_names_record_and_both_transactions():
    model = m()
    w = model.initial()
    assert exactly_once_output(model, w) is None
    w = w._replace(txns=(Txn(3, 0, COMMITTED, ((0, 0),)), Txn(3, 2, COMMITTED, ((0, 0),))))
    assert exactly_once_output(model, w) == "record (split 0, offset 0) committed twice: txn 0 of sink[1] and txn 2 of sink[1]"
    w = w._replace(txns=(Txn(3, 0, COMMITTED, ((0, 0),)), Txn(3, 2, OPEN, ((0, 0),))))
    assert exactly_once_output(model, w) is None, "an open transaction is not output"


def _completed(model, cp, positions, processed, files):
    snaps = []
    for t in range(model.topo.n_tasks):
        if t in model.topo.sources:
            snaps.append(Snapshot(False, positions[t], (), ()))
        else:
            snaps.append(Snapshot(False, 0, tuple(processed.get(t, ())), ()))
    return Completed(cp, tuple(snaps), files)


def test_restorable_reports_missing_file_of_latest_checkpoint():
    model = m()
    w = model.initial()
    c = _completed(model, 1, {0: 0, 1: 0}, {}, ((1, 0), (1, 1)))
    w = w._replace(coord=w.coord._replace(store=(c,)), files=((1, 1),))
    assert restorable(model, w) == (
        "checkpoint 1 (the latest, which a restore would use) refers to file cp1/source[0], which the cleaner deleted"
    )
    assert restorable(model, w._replace(files=((1, 0), (1, 1)))) is None


def test_consistent_cut_finds_records_after_the_cut_and_lost_records():
    model = m()
    w = model.initial()
    ok = _completed(model, 1, {0: 1, 1: 0}, {3: [(0, 0)]}, ())
    assert consistent_cut(model, w._replace(coord=w.coord._replace(store=(ok,)))) is None
    after = _completed(model, 2, {0: 0, 1: 0}, {3: [(0, 0)]}, ())
    why = consistent_cut(model, w._replace(coord=w.coord._replace(store=(after,))))
    assert "record (split 0, offset 0) is in the state of sink[1] but at or after source[0]'s position 0" in why
    lost = _completed(model, 3, {0: 1, 1: 0}, {}, ())
    why = consistent_cut(model, w._replace(coord=w.coord._replace(store=(lost,))))
    assert "record (split 0, offset 0) is before source[0]'s position 1 but in no state of sink" in why


def test_key_groups_flag_state_held_by_the_wrong_subtask():
    model = m()
    w = model.initial()
    # record (split 0, offset 0) has key 0 -> key group 94 -> sink[1] (range [64, 127])
    tasks = list(w.tasks)
    tasks[3] = tasks[3]._replace(processed=((0, 0),))
    assert key_groups_owned_once(model, w._replace(tasks=tuple(tasks))) is None
    tasks = list(w.tasks)
    tasks[2] = tasks[2]._replace(processed=((0, 0),))
    assert key_groups_owned_once(model, w._replace(tasks=tuple(tasks))) == (
        "record (split 0, offset 0) (key group 94) is in the state of sink[0], whose key-group range is [0, 63]"
    )


def test_termination_property_names_the_stuck_task_and_missing_record():
    model = m()
    w = model.initial()
    assert terminates_with_all_output(model, w).startswith("no progress is possible but the job has not finished: source[0]")
    done = tuple(ts._replace(status=FINISHED) for ts in w.tasks)
    w = w._replace(tasks=done, txns=(Txn(3, 0, COMMITTED, ((0, 0),)),))
    assert terminates_with_all_output(model, w) == "the job finished but record (split 1, offset 0) was never committed"
    w = w._replace(txns=(Txn(3, 0, COMMITTED, ((0, 0),)), Txn(2, 0, COMMITTED, ((1, 0),))))
    assert terminates_with_all_output(model, w) is None


def test_vertex_restored_finished_counts_a_second_deployment():
    """``a-vertex-restored-finished``: a subtask a restore deploys FINISHED_ON_RESTORE counts
    also when its failed predecessor still carried the flag of an earlier restore (a failed
    subtask's fields are stale until it is deployed again); a subtask the restore left failed
    does not."""
    model = m()
    w = model.initial()
    flagged = w.tasks[0]._replace(finished_on_restore=True)
    restored = w._replace(tasks=(flagged,) + w.tasks[1:])
    again = w._replace(tasks=(flagged._replace(status=FAILED),) + w.tasks[1:])
    assert w_finished_on_restore(model, w, Restore(1), restored) == "source[0] restored FINISHED_ON_RESTORE from checkpoint 1"
    assert w_finished_on_restore(model, again, Restore(1), restored) == "source[0] restored FINISHED_ON_RESTORE from checkpoint 1"
    assert w_finished_on_restore(model, restored, Restore(1), restored) is None, "not deployed by this restore"
    assert w_finished_on_restore(model, again, Restore(1), again) is None, "still failed: not deployed"
    assert flagged.status == RUNNING
