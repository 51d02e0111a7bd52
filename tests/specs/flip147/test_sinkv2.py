"""Sink V2 (writer, committer, global committer) and FLINK-38614: scripted runs that pin each
rule, and searches that show the properties catch a wrong sink."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HOLDS, VIOLATED
from ckptcheck.model.actions import Ack, Deliver, EmitRecord, EndOfInput, FailTask, Notify, Restore, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.sinkv2 import CommitterOperator, SinkWriterOperator
from ckptcheck.model.topology import JobGraph, Role, TopologyError, Vertex, Edge, Pattern
from ckptcheck.model.world import BARRIER, COMMITTABLE, COMMITTED, EOD, FINISHED, RUNNING
from ckptcheck.specs.catalog import entry, flip147_scope
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.jobs import sink_v2_pipeline

from conftest import SEARCH_WORKERS
from test_protocol import Run


def run(job: str = "sink-v2-global", checkpoints: int = 1, failures: int = 0) -> Run:
    return Run(FlinkModel(BASELINE, flip147_scope(job, checkpoints=checkpoints, failures=failures)))


def to_end_of_input(r: Run) -> Run:
    """The source's record and EndOfData through the writer and the committer."""
    src = r.t("source[0]")
    r.do(EmitRecord(src)).do(EndOfInput(src))
    return r.drain("source[0]->writer[0]")


def test_writer_emits_its_committables_ahead_of_the_barrier():
    r = run()
    r.do(EmitRecord(r.t("source[0]"))).do(TriggerCheckpoint(1)).drain("source[0]->writer[0]")
    assert r.w.channels[r.c("writer[0]->committer[0]")] == ((COMMITTABLE, 1, (r.t("writer[0]"), ((0, 0),))), (BARRIER, 1))
    assert r.w.tasks[r.t("writer[0]")].sink == (1, False, ())  # lastKnownCheckpointId = 1, nothing in progress


def test_end_of_input_committables_take_last_known_plus_one_before_end_of_data():
    r = run()
    r.do(EmitRecord(r.t("source[0]"))).do(TriggerCheckpoint(1)).drain("source[0]->writer[0]")
    r.do(EndOfInput(r.t("source[0]"))).drain("source[0]->writer[0]")
    items = r.w.channels[r.c("writer[0]->committer[0]")]
    # after checkpoint 1's committable and barrier: the end-of-input committable tagged 1 + 1, then EndOfData
    assert items[2:] == ((COMMITTABLE, 2, (r.t("writer[0]"), ())), EOD)


def test_committer_holds_end_of_data_until_its_final_committables_are_emitted():
    r = to_end_of_input(run(checkpoints=0))
    r.drain("writer[0]->committer[0]")
    committer = r.t("committer[0]")
    assert r.w.tasks[committer].ended and r.w.tasks[committer].sink[1]  # EndOfData held
    assert r.w.channels[r.c("committer[0]->global-committer[0]")] == ()
    r.do(TriggerCheckpoint(1))
    r.drain("source[0]->writer[0]").drain("writer[0]->committer[0]").drain("committer[0]->global-committer[0]")
    r.acks()
    r.do(Notify(committer, 1, "complete"))
    # the committed committables, then EndOfData: nothing travels behind it
    assert r.w.channels[r.c("committer[0]->global-committer[0]")] == (
        (COMMITTABLE, 1, (0, ((r.t("writer[0]"), ((0, 0),)),))), EOD)
    r.do(Deliver(r.c("committer[0]->global-committer[0]")))
    assert [x for x in r.w.txns if x.status == COMMITTED] and r.w.txns[0].records == ((0, 0),)


def test_released_committer_sends_end_of_data_first_and_the_committables_are_dropped():
    e = entry("FLINK-38614-end-of-data-before-committables")
    r = Run(FlinkModel(e.design, e.scope))
    to_end_of_input(r).drain("writer[0]->committer[0]")
    assert r.w.channels[r.c("committer[0]->global-committer[0]")] == (EOD,)


def test_flink_38614_reason_names_the_lost_committable():
    e = entry("FLINK-38614-end-of-data-before-committables")
    v = check(e.design, e.scope, workers=1).verdict(e.violates)
    assert v.status == VIOLATED
    assert "writer[0]'s committable (records (split 0, offset 0))" in v.reason and "global-committer[0]" in v.reason


class ForgetsRestoredCommittables(CommitterOperator):
    """Wrong: the committer does not take its committables back at a restore."""

    def state(self, snap, restored_from: int) -> tuple:
        return ((), False)


class EmitsAfterTheBarrier(SinkWriterOperator):
    """Wrong: the writer keeps its in-progress records past the barrier (no
    prepareSnapshotPreBarrier); they go into the next checkpoint's committable."""

    def prepare_snapshot_pre_barrier(self, tx, t: int, cp: int) -> None:
        return None


@pytest.mark.parametrize("variant,violates", [
    (BASELINE.with_(name="forgets-restored-committables", committer=ForgetsRestoredCommittables), "bounded-job-completes"),
    (BASELINE.with_(name="emits-after-the-barrier", writer=EmitsAfterTheBarrier), "checkpoints-consistent"),
])
def test_wrong_sinks_are_caught_where_the_sink_passes(variant, violates):
    sc = flip147_scope("sink-v2", checkpoints=1, failures=1)
    assert check(variant, sc, workers=SEARCH_WORKERS).verdict(violates).status == VIOLATED
    good = check(BASELINE, sc, workers=SEARCH_WORKERS)
    assert good.verdict(violates).status == HOLDS and good.complete


def test_golden_sink_v2_global_default_scope():
    """Pinned: source -> writer -> committer -> global committer, 1 record, 1 checkpoint,
    1 failure; every Sink V2 witness hit."""
    res = check(BASELINE, flip147_scope(checkpoints=1, failures=1), workers=SEARCH_WORKERS)
    assert res.complete and res.stats["states"] == 46_494
    for w in ("end-of-input-committables-committed", "a-committer-holds-end-of-data", "restored-committables-recommitted"):
        assert res.verdict(w).status == "hit", w


@pytest.mark.parametrize("job,field", [
    (lambda: JobGraph((Vertex("source", 1, Role.SOURCE), Vertex("w", 1, Role.SINK, sink_v2="writer")),
                      (Edge("source", "w", Pattern.POINTWISE),)), "w.sink_v2"),
    (lambda: sink_v2_pipeline(2, keyed=True).rescaled({"global-committer": 2}), "global-committer.parallelism"),
])
def test_a_sink_v2_topology_flink_would_not_build_is_refused(job, field):
    with pytest.raises(TopologyError) as e:
        job()
    assert field in str(e.value)


def settle(r: Run) -> Run:
    """Deliver, acknowledge and notify until none of those is enabled (no trigger, no fault)."""
    while True:
        step = next((a for a in r.m.enabled(r.w) if type(a) in (Deliver, Ack, Notify)), None)
        if step is None:
            return r
        r.do(step)


def test_a_fully_finished_vertex_runs_finished_on_restore_until_a_checkpoint_completes():
    """UC note D.4: the global committer's final checkpoint (2) comes after the
    others finished; it fails before it learns that 2 completed.  The restore deploys source,
    writer and committer FINISHED_ON_RESTORE: running, input ended, EndOfData sent; they
    acknowledge checkpoint 3 as finished and finish only once it completed."""
    r = run(checkpoints=0, failures=1)
    src, glob = r.t("source[0]"), r.t("global-committer[0]")
    r.do(EmitRecord(src)).do(EndOfInput(src)).do(TriggerCheckpoint(1))
    settle(r)
    assert [ts.status for ts in r.w.tasks[:3]] == [FINISHED] * 3 and r.w.tasks[glob].status == RUNNING
    r.do(TriggerCheckpoint(2))
    while r.w.acks or r.w.coord.pending:
        r.do(next(a for a in r.m.enabled(r.w) if type(a) in (Deliver, Ack)))
    assert r.w.coord.store[-1].id == 2 and r.w.coord.store[-1].snapshots[src].finished
    r.do(FailTask(glob)).do(Restore(2))
    for t in range(3):
        ts = r.w.tasks[t]
        assert ts.status == RUNNING and ts.finished_on_restore and ts.ended, r.names[t]
    assert r.w.channels[r.c("source[0]->writer[0]")] == (EOD,)
    settle(r)
    assert r.w.tasks[src].status == RUNNING, "a FINISHED_ON_RESTORE task waits for a checkpoint"
    r.do(TriggerCheckpoint(3))
    settle(r)
    assert r.w.coord.store[-1].id == 3 and all(r.w.coord.store[-1].snapshots[t].finished for t in range(3))
    assert all(ts.status == FINISHED for ts in r.w.tasks)
    assert [x.records for x in r.w.txns if x.status == COMMITTED] == [((0, 0),)]


def test_the_flink_38614_trace_reads_as_the_bug():
    """The narration names the committables: the writer's endInput emits them, the committer
    commits and emits them after its EndOfData went out."""
    from ckptcheck.checks.run.report import build_report
    from ckptcheck.reports.render import render_markdown

    from conftest import catalog_run

    e = entry("FLINK-38614-end-of-data-before-committables")
    md = render_markdown(build_report([catalog_run(e.name)], title="t", command="c"))
    flat = md.replace("\n    ", " ")
    assert "its endInput emits the committable of checkpoint 1 ({(0,0)})" in flat
    assert "commits and emits the committed committables of checkpoint 1" in flat


def test_a_scope_that_rescales_a_sink_v2_operator_is_refused():
    """``model.sinkv2`` does not model rescaling a Sink V2 sink; the scope says so at once."""
    from ckptcheck.specs.scopes import scope

    with pytest.raises(ValueError, match="committer of a Sink V2 sink; rescaling it is not modelled"):
        scope("sink-v2-2x2", rescale=(("committer", 1),), max_rescales=1)
