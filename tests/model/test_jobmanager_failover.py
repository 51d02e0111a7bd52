"""A JobManager failover (``JobManagerFailover``): the new JobManager's coordinator, its store and
registry recovered, FLIP-600's counter (catalog F4), and the finished-state check its restore runs."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT
from ckptcheck.model.actions import Ack, Decline, Deliver, EmitRecord, FailTask, JobManagerFailover, Restore, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import FAILED, RUNNING
from ckptcheck.specs.designs import BASELINE, FLIP600, FLIP600_PROPOSED, INCREMENTAL
from ckptcheck.specs.scopes import scope

from conftest import SEARCH_WORKERS
from test_protocol import Run
from test_registry import SINK, SOURCE, Job

CHAIN = scope("sources-2", records_per_split=0, bounded=False, max_checkpoints=5, max_failures=0, max_declines=4,
              max_timeouts=0, max_lost_notifications=0, max_jm_failovers=1)


def _two_regional(design) -> Run:
    """Checkpoint 1 global, then 2 and 3 regional (source[1] declines both): the counter at the
    maximum of 2, the next checkpoint forced global."""
    r = Run(FlinkModel(design, CHAIN))
    r.do(TriggerCheckpoint(1)).acks()
    for cp in (2, 3):
        r.do(TriggerCheckpoint(cp)).do(Decline(1, cp)).do(Ack(0, cp))
    assert r.w.coord.consecutive_regional == 2 and r.w.coord.force_global
    assert r.w.coord.store[-1].refs == (0, 2)
    return r


def test_new_coordinator_starts_its_count_as_the_knob_says():
    """The PR's handler is new with the coordinator: count 0, not forced, so checkpoint 4 may
    complete regionally onto a checkpoint that refers back twice (F4).  Read back from the store,
    the count is the chain's 2 and checkpoint 4 is forced global."""
    r = _two_regional(FLIP600_PROPOSED)
    r.do(JobManagerFailover(3))
    assert (r.w.coord.consecutive_regional, r.w.coord.force_global) == (0, False)
    r.do(TriggerCheckpoint(4)).do(Decline(1, 4)).do(Ack(0, 4))
    assert r.w.coord.store[-1].id == 4 and r.w.coord.store[-1].refs == (0, 3)  # a third hop: 4 -> 3 -> 2 -> 1
    fixed = _two_regional(FLIP600)
    fixed.do(JobManagerFailover(3))
    assert (fixed.w.coord.consecutive_regional, fixed.w.coord.force_global) == (2, True)
    fixed.do(TriggerCheckpoint(4)).do(Decline(1, 4))
    assert fixed.w.coord.store[-1].id == 3, "a forced global checkpoint that a region declines does not complete"


def test_failover_cancels_everything_and_restores_the_latest_checkpoint():
    """A JobManager failover while checkpoint 2 is pending with an acknowledgement in flight: the
    pending checkpoint and the acknowledgement are gone (and its file), every subtask runs again
    with checkpoint 1's state, the failure counter is 0, and the ids go on from the HA counter."""
    m = FlinkModel(BASELINE, scope("keyed-2x1", records_per_split=1, bounded=False, max_checkpoints=3, max_failures=0,
                                   max_declines=0, max_timeouts=0, max_lost_notifications=0, max_jm_failovers=1))
    r = Run(m)
    r.do(TriggerCheckpoint(1))
    while r.w.coord.completed_count == 0:
        r.do(next(a for a in m.enabled(r.w) if type(a).__name__ in ("Deliver", "Ack")))
    r.do(TriggerCheckpoint(2))
    assert r.w.acks and r.w.coord.pending
    before = r.w
    r.do(JobManagerFailover(1))
    w = r.w
    assert not w.coord.pending and not w.acks and w.coord.failed_count == 0 and w.coord.next_id == before.coord.next_id
    assert all(ts.status == RUNNING for ts in w.tasks) and not any(f[0] == 2 for f in w.files)
    assert w.used.jm_failovers == 1 and JobManagerFailover(1) not in m.enabled(w), "the scope allows one"
    assert not any(ts.status == FAILED for ts in w.tasks)


def test_registry_is_rebuilt_from_the_retained_checkpoints():
    """The sink's file of checkpoint 1, last used by 2, has its last use advanced to 3 when the
    sink's acknowledgement of pending checkpoint 3 arrives; after a JobManager failover the new
    registry knows only what the retained checkpoint 2 registers again
    (``registerAllAfterRestored``): last use 2, and checkpoint 3's new file is gone with it.
    flink-incremental holds across a failover, with the witness hit."""
    sc = scope("keyed-1x1", records_per_split=1, bounded=False, max_checkpoints=3, max_failures=0, max_declines=0,
               max_timeouts=0, max_lost_notifications=0, max_jm_failovers=1)
    j = Job().do(EmitRecord(SOURCE)).checkpoint(1).checkpoint(2)
    j.m = FlinkModel(INCREMENTAL, sc)  # the same job, a scope with a JobManager failover
    j.do(TriggerCheckpoint(3)).do(Deliver(0)).do(Ack(SINK, 3))
    assert dict(j.w.reused)[(1, SINK)] == 3 and (3, SINK) in j.w.files
    j.do(JobManagerFailover(2))
    assert j.w.reused == (((1, SINK), 2),) and (3, SINK) not in j.w.files
    assert j.w.tasks[SINK].confirmed == 2 and j.w.tasks[SINK].dbfiles == ((1, SINK), (2, SINK))
    good = check(INCREMENTAL, sc, workers=SEARCH_WORKERS)
    assert good.holds, good.headline()
    assert {"a-jobmanager-fails-over", "a-placeholder-refers-to-an-earlier-file"} <= {
        v.property for v in good.verdicts if v.status == HIT}


def test_failover_restore_runs_the_finished_state_check():
    """``restoreInitialCheckpointIfPresent`` checks the finished state, as a user's restore does:
    a bounded job whose sources finished in a checkpoint fails over onto it, and the check
    accepts it (the witness), with every property holding."""
    sc = scope("keyed-2x1", records_per_split=0, bounded=True, max_checkpoints=2, max_failures=0, max_declines=0,
               max_timeouts=0, max_lost_notifications=0, max_jm_failovers=1)
    r = check(BASELINE, sc, workers=SEARCH_WORKERS)
    assert r.holds, r.headline()
    hit = {v.property for v in r.verdicts if v.status == HIT}
    assert {"a-jobmanager-fails-over", "a-user-restore-checks-finished-state"} <= hit


def test_the_adaptive_schedulers_restart_builds_a_new_coordinator():
    """Under the adaptive scheduler a task failure restarts the whole job on a new execution graph
    (``Restore`` -> ``FailoverStrategy.new_execution_graph``): the same new coordinator as after a
    JobManager failover, its count as the knob says.  The default scheduler's restore keeps the
    coordinator and its count."""
    sc = CHAIN.with_(max_failures=1, max_jm_failovers=0)
    counts = {}
    for name, design in (("reset", FLIP600_PROPOSED), ("from-store", FLIP600), ("default", FLIP600_PROPOSED)):
        if name != "default":
            design = design.with_(name=f"adaptive-{name}", scheduler="adaptive", failover_strategy="full")
        r = Run(FlinkModel(design, sc))
        r.do(TriggerCheckpoint(1)).acks()
        for cp in (2, 3):
            r.do(TriggerCheckpoint(cp)).do(Decline(1, cp)).do(Ack(0, cp))
        r.do(FailTask(0)).do(Restore(3))
        counts[name] = (r.w.coord.consecutive_regional, r.w.coord.force_global)
    assert counts == {"reset": (0, False), "from-store": (2, True), "default": (2, True)}


def test_the_adaptive_scheduler_needs_a_full_restart():
    with pytest.raises(ValueError, match="failover_strategy 'full'"):
        FLIP600.with_(name="x", scheduler="adaptive")
