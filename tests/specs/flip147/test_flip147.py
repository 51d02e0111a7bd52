"""FLIP-147's claims (FLIP-147), each decided by the model within a stated scope, and the
FLIP-147 default scope.  Each test quotes the claim and states the verdict; the README's
FLIP-147 section lists them."""

from __future__ import annotations

import dataclasses

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT, VIOLATED
from ckptcheck.model.actions import Ack, EmitRecord, EndOfInput, LoseNotification, Notify, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import COMMITTED, EMPTY_SNAPSHOT, FINISHED, FINISHED_SNAPSHOT, RUNNING, Completed
from ckptcheck.specs.catalog import entry, flip147_scope
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.scopes import scope

from conftest import SEARCH_WORKERS, catalog_run
from test_protocol import Run

PARTIAL = ("a-checkpoint-with-a-partly-finished-vertex", "a-finished-subtask-restarts")


def test_claim_discarding_finished_state_is_safe_for_flip27_sources_not_for_legacy_ones():
    """FLIP-147: "g(I_F, ΔF) = Ø ... With legacy source API the source operators usually
    discover all the splits on startup and record the progress of each split in a union list
    state. ... if we discard the state for the finished splits, we would re-read them after
    failover ... The new source API would overcome this issue".  Verdict: CONFIRMED both ways
    in keyed-2x1 with one checkpoint and one failure.  With FLIP-27 readers (a finished
    reader restarts with no split) every property holds exhaustively (32,119 states), with a
    checkpoint holding a partly finished source and a finished subtask restarting from it;
    with a legacy source the restarted subtask reads its split again and the sink commits a
    record twice (35 steps, catalog ``legacy-source-rereads-finished-split``)."""
    e = entry("legacy-source-rereads-finished-split")
    good = check(BASELINE, e.scope, workers=SEARCH_WORKERS)
    assert good.complete and good.ok and good.stats["states"] == 32_119
    for w in PARTIAL:
        assert good.verdict(w).status == "hit", w
    v = catalog_run(e.name).verdict("exactly-once-output")
    assert v.status == VIOLATED and "committed twice" in v.reason and len(v.trace) == 35


def test_claim_union_list_state_vertices_finish_all_at_once():
    """FLIP-147: "if an operator checkpoints UnionListState, it can only finish all at once. We
    will decline checkpoints if not all of the tasks called finished and received
    notifyCheckpointComplete".  Verdict: NEEDED, and enough as Flink implements it.  Flink does
    not decline literally: ``finalizeCheckpoint`` aborts a checkpoint in which such a vertex
    would be partly finished (``PartialFinishingNotSupportedByStateException``, TASK_CLOSING,
    not counted; UC note D.3), so its fast subtasks wait for a checkpoint taken
    after every subtask ended.  In union-2x2 (one checkpoint, no fault) that passes
    exhaustively with the abort witnessed; without it a checkpoint holds a partly finished
    union vertex and loses the finished subtask's part (22 steps)."""
    e = entry("union-state-finishes-partly")
    good = check(BASELINE, e.scope, workers=SEARCH_WORKERS)
    assert good.complete and good.ok and good.verdict("a-union-state-abort").status == "hit"
    v = catalog_run(e.name).verdict(e.violates)
    assert v.status == VIOLATED and "union list state of sink[" in v.reason and len(v.trace) == 22


def test_claim_tasks_finishing_do_not_fail_pending_checkpoints():
    """FLIP-147, "Do Not Cancel Pending Checkpoint on Finish": "tasks finish should not fail the
    checkpoints and we would change the behavior to waiting for all the pending checkpoints to
    finish before task get finished".  Verdict: HOLDS in the model's Flink (no rule aborts a
    pending checkpoint when a task finishes, as in Flink 2.x, UC note D.2), and it
    happens: in keyed-2x1 with one checkpoint and one failure a checkpoint completes after a
    task it was triggered with finished (the witness), and every property holds there
    exhaustively (as in the baseline's default scope, test_deep)."""
    e = entry("legacy-source-rereads-finished-split")
    r = check(BASELINE, e.scope, workers=SEARCH_WORKERS)
    assert r.complete and r.ok and r.verdict("a-checkpoint-survives-a-finish").status == "hit"


def test_a_union_abort_carrying_the_latest_completion_ends_the_wait_for_a_final_checkpoint():
    """FLINK-21080 (UC note D.3): sink[1] lost the completion of its final
    checkpoint while sink[0] finished; every later checkpoint aborts (sink is a partly
    finished union-state vertex), and each abort notice carries the latest completed id, whose
    replay finishes sink[1].  The search is finite only because an abort notice carrying that
    id counts as the announced completion (``StreamTask.needs_final_checkpoint``): otherwise the
    coordinator could trigger new checkpoints forever before sink[1] reads its inbox."""
    sc = dataclasses.replace(flip147_scope("union-2x2"), records_per_split=0, max_lost_notifications=1)
    r = check(BASELINE, sc, workers=1, max_seconds=60)
    assert r.complete and r.ok and r.stats["states"] == 3221
    assert r.verdict("a-union-state-abort").status == "hit"


def test_claim_finish_on_the_first_completion_of_any_checkpoint_after_finish_42_43_44():
    """FLIP-147: "shutdown the task immediately after seeing first notifyCheckpointComplete(X),
    where X is any triggered checkpoint AFTER finish() ... If checkpoint 44 completes
    afterwards, it will still be valid".  Verdict: HOLDS.  The seed's scenario, scripted with
    three concurrent checkpoints: the sink ended before checkpoints 1, 2 and 3 (its final
    checkpoint is 1); the completion of 1 is lost, so the first it sees is 2's: it commits
    everything up to 2 and finishes with 3 pending, which it had acknowledged and which then
    completes with its state.  Searched exhaustively in keyed-1x1 with two concurrent
    checkpoints and a lost notification (test_concurrent), where every property holds and
    both orders are reached."""
    r = Run(FlinkModel(BASELINE.with_(name="concurrent-3", max_concurrent_checkpoints=3),
                       scope("keyed-1x1", records_per_split=1, max_checkpoints=3, max_lost_notifications=1)))
    src, sink = r.t("source[0]"), r.t("sink[0]")
    r.do(EmitRecord(src)).do(EndOfInput(src))
    r.do(TriggerCheckpoint(1)).do(TriggerCheckpoint(2)).do(TriggerCheckpoint(3)).drain("source[0]->sink[0]")
    assert r.w.tasks[sink].final_cp == 1 and [p.id for p in r.w.coord.pending] == [1, 2, 3]
    for cp in (1, 2):
        r.do(Ack(src, cp)).do(Ack(sink, cp))
    assert [p.id for p in r.w.coord.pending] == [3] and r.w.coord.store[-1].id == 2
    r.do(Notify(src, 1, "complete")).drain("source[0]->sink[0]")  # source finished: EndOfPartition
    r.do(LoseNotification(sink, 1, "complete"))
    assert r.w.tasks[sink].status == RUNNING
    r.do(Notify(sink, 2, "complete"))
    assert r.w.tasks[sink].status == FINISHED, "finished on the completion of 2, a checkpoint after its final one"
    assert [x.records for x in r.w.txns if x.status == COMMITTED] == [((0, 0),)]
    r.acks()
    assert r.w.coord.store[-1].id == 3 and not r.w.coord.store[-1].snapshots[sink].finished, \
        "checkpoint 3 completes after the sink finished, with the state it acknowledged"


def test_claim_list_state_is_not_reassigned_without_rescaling():
    """FLIP-147, ListState: "If src 1 finishes its state will be cleared. Than if after a restore
    the state of src 2 is assigned to src 1 ... later records from such partition will
    overtake earlier records".  Verdict: DOES NOT ARISE in Flink 2.x without rescaling: at an
    unchanged parallelism ``RoundRobinOperatorStateRepartitioner.repartitionState`` returns
    each subtask its own SPLIT_DISTRIBUTE list state (it redistributes only union state and
    partly finished broadcast state), and the finished subtask gets its empty
    ``FinishedOperatorSubtaskState``; the model's ``StateAssignmentOperation`` does the same,
    so the reassignment the example needs never happens.  (With rescaling list state does
    move; the model does not rescale sources.)"""
    m = FlinkModel(BASELINE, scope("three-stage", records_per_split=2))
    topo = m.topo
    src0, src1, map0, map1 = (topo.task_id(n) for n in ("source[0]", "source[1]", "map[0]", "map[1]"))
    snaps = [EMPTY_SNAPSHOT] * topo.n_tasks
    snaps[src0] = FINISHED_SNAPSHOT
    snaps[src1] = EMPTY_SNAPSHOT._replace(position=1)
    snaps[map1] = EMPTY_SNAPSHOT._replace(processed=((1, 0),))
    c = Completed(2, tuple(snaps), ())
    got = m.assignment.snapshots(c)
    assert got[src1].position == 1 and got[src0].finished and got[src0].position == 0, "src 1's state stays with src 1"
    assert got[map1].processed == ((1, 0),) and got[map0].processed == ()


def test_claim_stop_with_savepoint_drains_only_when_the_job_is_not_resumed():
    """FLIP-147: "for the first two cases [final checkpoint, stop-with-savepoint --drain], the
    job would not be expected to be restarted, thus we should flush all the records and
    commit all the records.  But for the third case [stop-with-savepoint], the job is expected
    to be re-started from the savepoint, thus in this case we should not flush".  Verdict:
    CONFIRMED, in sink-v2 with two records per split and one failure.  Without --drain no
    operator ends its input (EndOfData NO_DRAIN), the savepoint's committables are committed
    and the job resumed from the savepoint reads on: every property holds exhaustively
    (17,494 states).  With --drain the writer ends its input and keeps that in its state
    (``end_of_input_state``), so a job resumed from the drained savepoint, as the
    ``StopWithSavepointStoppingException`` advises after a failure that followed the
    savepoint, cannot run: its first record makes ``SinkWriterOperator.processElement`` throw
    (12 steps).  Flink's CLI documentation: "Use the --drain flag if you want to terminate the
    job permanently"; FLINK-30238."""
    def sc(mode):
        return scope("sink-v2", records_per_split=2, max_checkpoints=0, max_failures=1, max_declines=0, max_timeouts=0,
                     max_lost_notifications=0, stop_with_savepoint=mode)
    good = check(BASELINE, sc("no-drain"), workers=SEARCH_WORKERS)
    assert good.complete and good.ok and good.stats["states"] == 17_494
    for w in ("a-stop-savepoint-completes", "a-stopped-job-finishes", "a-job-resumes-from-its-savepoint", "a-stop-fails"):
        assert good.verdict(w).status == "hit", w
    drained = check(BASELINE, sc("drain"), workers=SEARCH_WORKERS, stop_at="writer-input-before-end-of-input")
    v = drained.verdict("writer-input-before-end-of-input")
    assert v.status == VIOLATED and "IllegalStateException" in v.reason and len(v.trace) == 12
    assert any(type(a).__name__ == "ResumeFromSavepoint" for a in v.trace)


@pytest.mark.claims
def test_symmetry_on_a_sink_v2_job_keeps_every_verdict_and_halves_the_states():
    """Symmetry reduction on ``union-sink-v2-2x2`` (committables name their writer, which the
    renaming covers): one checkpoint, no fault, instant acks.  The same verdicts and the same
    witnesses, the union-state abort among them, in 32,822 symmetry classes of the 65,197
    states (about 10 s in all)."""
    sc = scope("union-sink-v2-2x2", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0,
               max_timeouts=0, max_lost_notifications=0, instant_acks=True)
    full = check(BASELINE, sc, workers=SEARCH_WORKERS)
    reduced = check(BASELINE, sc, workers=SEARCH_WORKERS, symmetry=True)
    assert full.complete and reduced.complete and full.ok and reduced.ok
    assert (full.stats["states"], reduced.stats["states"]) == (65_197, 32_822)
    assert [(v.property, v.status) for v in full.verdicts] == [(v.property, v.status) for v in reduced.verdicts]
    assert reduced.verdict("a-union-state-abort").status == HIT


def test_without_checkpoints_after_finish_an_end_of_partition_aborts_the_alignment():
    """``SingleCheckpointBarrierHandler.processEndOfPartition`` with FLIP-147 off: an
    EndOfPartition reaching a task that aligns a checkpoint aborts it (INPUT_END_OF_STREAM,
    uncounted) instead of counting as the channel's barrier, so the task takes no snapshot.  The
    witness is hit in keyed-2x2 with staggered trigger RPCs and a decline (a source finishes
    between the plan and its trigger RPC)."""
    from ckptcheck.model.actions import Deliver, TriggerAfterClose
    from ckptcheck.model.barriers import CheckpointBarrierHandler

    class EndOfPartitionCountsAsBarrier(CheckpointBarrierHandler):
        def on_end_of_partition(self, tx, t):
            self.maybe_complete_alignment(tx, t)

    sc = scope("keyed-2x2", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=1, max_timeouts=0,
               max_lost_notifications=0, staggered_triggers=True)
    old = entry("no-checkpoints-after-finish").design
    trace = [EmitRecord(0), TriggerCheckpoint(1), EndOfInput(0), Deliver(0), TriggerAfterClose(0, 1), Notify(1, 1, "trigger"),
             Deliver(1), Deliver(0)]
    sink = 2
    for design, snapshots in ((old, False), (old.with_(name="eop-as-barrier", barriers=EndOfPartitionCountsAsBarrier), True)):
        m = FlinkModel(design, sc)
        w = m.initial()
        for a in trace[:-1]:
            assert a in m.enabled(w), a
            w = m.step(w, a)
        assert w.tasks[sink].aligning == 1 and w.channels[0][0] == (3,)  # EndOfPartition next, checkpoint 1 aligning
        w = m.step(w, trace[-1])
        assert (w.tasks[sink].last_barrier == 1 and w.tasks[sink].aligning == 0) and any(x[0] == sink for x in w.acks) is snapshots
    r = check(old, sc, workers=SEARCH_WORKERS)
    assert r.verdict("end-of-partition-aborts-a-checkpoint").status == HIT
    assert check(BASELINE, sc.with_(max_checkpoints=0), workers=1).verdict("end-of-partition-aborts-a-checkpoint").status == "not applicable"
