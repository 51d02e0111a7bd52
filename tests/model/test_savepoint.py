"""Stop-with-savepoint (FLIP-147's "Stop with Savepoint [with Drain]" columns), with and without
``--drain``, and resuming from the savepoint: scripted runs that pin each rule, and searches
that reach every stop witness.  A stop that kept checkpoints running, put the savepoint into
the store, let a no-drain stop ``endInput`` the operators, or dropped data after a no-drain
EndOfData fails one of these."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.model.actions import Decline, EmitRecord, ResumeFromSavepoint, StopWithSavepoint, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel, scope_conflict
from ckptcheck.model.world import (
    BARRIER, COMMITTABLE, COMMITTED, DRAIN, EOD, EOD_NO_DRAIN, FAILED, FINISHED, NO_DRAIN, NOTIFY_ABORT, RUNNING,
)
from ckptcheck.specs.designs import BASELINE, FLIP600, UNALIGNED
from ckptcheck.specs.properties import terminates_with_all_output
from ckptcheck.specs.scopes import scope

from conftest import SEARCH_WORKERS
from test_protocol import Run


def run(mode: str, job: str = "keyed-1x1", records: int = 2, **limits) -> Run:
    limits.setdefault("max_checkpoints", 1)
    return Run(FlinkModel(BASELINE, scope(job, records_per_split=records, stop_with_savepoint=mode, **limits)))


def committed(r: Run) -> list:
    return sorted(rec for x in r.w.txns if x.status == COMMITTED for rec in x.records)


def test_drain_stops_the_sources_ends_input_and_commits_what_was_read():
    """--drain: the pending checkpoint aborts, the source sends EndOfData(drain) then the
    savepoint's barrier; the savepoint is not stored, its completion commits, every task
    finishes, and the record never read is left out of the job's output by intent."""
    r = run("drain")
    src, sink = r.t("source[0]"), r.t("sink[0]")
    r.do(EmitRecord(src)).do(TriggerCheckpoint(1)).do(StopWithSavepoint(2))
    assert r.w.tasks[sink].inbox[-1][:2] == (NOTIFY_ABORT, 1), "stopCheckpointScheduler aborts pending checkpoints"
    assert [p.id for p in r.w.coord.pending] == [2] and r.w.coord.pending[0].savepoint == DRAIN
    assert r.w.coord.stop == (2, DRAIN, ((0, 1),)), "the source stopped before offset 1"
    assert r.w.channels[r.c("source[0]->sink[0]")][-2:] == (EOD, (BARRIER, 2)), "EndOfData ahead of the barrier"
    assert r.w.tasks[src].ended and not r.w.tasks[src].stopped
    assert not any(type(a) in (TriggerCheckpoint, StopWithSavepoint) for a in r.m.enabled(r.w))
    r.drain("source[0]->sink[0]").acks()
    assert r.w.coord.savepoint.id == 2 and not r.w.coord.store and r.w.coord.completed_count == 0
    r.notify_all().drain("source[0]->sink[0]")
    assert committed(r) == [(0, 0)]
    assert all(ts.status == FINISHED for ts in r.w.tasks) and not r.m.enabled(r.w)
    assert terminates_with_all_output(r.m, r.w) is None, "the unread record is not owed"


def test_without_drain_operators_do_not_end_input_and_the_job_resumes_from_the_savepoint():
    r = run("no-drain")
    src, sink = r.t("source[0]"), r.t("sink[0]")
    r.do(EmitRecord(src)).do(StopWithSavepoint(1))
    assert r.w.channels[r.c("source[0]->sink[0]")][-2:] == (EOD_NO_DRAIN, (BARRIER, 1))
    assert r.w.coord.stop == (1, NO_DRAIN, ())
    r.drain("source[0]->sink[0]")
    assert r.w.tasks[sink].stopped and r.w.tasks[sink].ended
    r.acks().notify_all().drain("source[0]->sink[0]")
    assert committed(r) == [(0, 0)] and all(ts.status == FINISHED for ts in r.w.tasks)
    assert r.m.enabled(r.w) == [ResumeFromSavepoint(1)], "a job stopped without drain is resumed, not done"
    r.do(ResumeFromSavepoint(1))
    assert all(ts.status == RUNNING and not ts.ended for ts in r.w.tasks)
    assert r.w.tasks[src].position == 1 and r.w.coord.store[-1].id == 1 and r.w.coord.store[-1].unclaimed
    assert not r.w.coord.stop and not r.w.coord.savepoint
    r.do(EmitRecord(src))
    assert r.w.channels[r.c("source[0]->sink[0]")] == ((0, 0, 1),), "it reads on where it stopped"


def test_a_writer_sends_its_savepoint_committables_after_a_no_drain_end_of_data_and_they_arrive():
    """Without drain the writer does not ``endInput``: its committables go out in
    ``prepareSnapshotPreBarrier`` of the savepoint, behind the NO_DRAIN EndOfData it already
    forwarded; the committer's input is STOPPED, not ended, so it takes them and commits them
    when the savepoint completes."""
    r = run("no-drain", job="sink-v2", records=1)
    src, writer = r.t("source[0]"), r.t("writer[0]")
    r.do(EmitRecord(src)).do(StopWithSavepoint(1)).drain("source[0]->writer[0]")
    assert r.w.tasks[writer].sink[1] is False, "no endInput"
    items = r.w.channels[r.c("writer[0]->committer[0]")]
    assert items[0] == EOD_NO_DRAIN and items[1][0] == COMMITTABLE and items[2] == (BARRIER, 1)
    r.drain("writer[0]->committer[0]").acks().notify_all().drain("source[0]->writer[0]").drain("writer[0]->committer[0]")
    assert committed(r) == [(0, 0)] and all(ts.status == FINISHED for ts in r.w.tasks)


def test_a_declined_savepoint_fails_the_job_over_and_checkpoints_resume():
    """A synchronous savepoint's task-level failure fails the job (``failJob``, not counted);
    the scheduler restarts (``terminateExceptionally``) and the job runs on: checkpoints are
    triggered again after the restore, and the user's one stop is spent."""
    r = run("drain", max_declines=1, max_checkpoints=2)  # the savepoint takes an id of the budget
    src = r.t("source[0]")
    r.do(StopWithSavepoint(1))
    r.do(Decline(src, 1))
    assert all(ts.status == FAILED for ts in r.w.tasks) and not r.w.coord.stop and not r.w.coord.pending
    assert r.w.coord.failed_count == 0
    restore = [a for a in r.m.enabled(r.w) if type(a).__name__ == "Restore"]
    r.do(restore[0])
    assert TriggerCheckpoint(2) in r.m.enabled(r.w) and not any(type(a) is StopWithSavepoint for a in r.m.enabled(r.w))


@pytest.mark.parametrize("design, field", [(UNALIGNED, "checkpoint_mode"), (FLIP600, "regional_checkpoints")])
def test_stop_with_savepoint_is_refused_where_the_model_does_not_cover_it(design, field):
    sc = scope("keyed-1x1", stop_with_savepoint="drain")
    assert field in scope_conflict(design, sc)
    with pytest.raises(ValueError, match="stop_with_savepoint"):
        FlinkModel(design, sc)
    assert scope_conflict(BASELINE, sc) == ""


@pytest.mark.parametrize("mode, states", [("drain", 24_450), ("no-drain", 36_449)])
def test_stop_with_savepoint_holds_with_every_stop_witness(mode, states):
    """keyed-1x1, two records, one checkpoint, one failure, one decline: every property holds
    exhaustively and the savepoint completes, the stopped job finishes, a stop fails and the
    job runs on, and the job resumes from its savepoint."""
    r = check(BASELINE, scope("keyed-1x1", records_per_split=2, max_checkpoints=1, max_failures=1, max_declines=1,
                              max_timeouts=0, max_lost_notifications=0, stop_with_savepoint=mode), workers=SEARCH_WORKERS)
    assert r.complete and r.ok, [v.reason for v in r.violated]
    assert r.stats["states"] == states
    for w in ("a-stop-savepoint-completes", "a-stopped-job-finishes", "a-stop-fails", "a-job-resumes-from-its-savepoint"):
        assert r.verdict(w).status == "hit", w
