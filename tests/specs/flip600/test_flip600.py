"""FLIP-600 regional checkpoints (the FLIP-600 thread): the mechanism, and the thread's claims decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.trace import load_trace_file, replay
from ckptcheck.model.actions import Ack, Decline, Deliver, Notify, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.scope import Scope
from ckptcheck.model.topology import Edge, Exchange, JobGraph, Pattern, Role, Vertex
from ckptcheck.model.world import NOTIFY_FALLBACK
from ckptcheck.specs.designs import FLIP600, FLIP600_PROPOSED
from ckptcheck.specs.properties import restorable
from ckptcheck.specs.scopes import scope

from conftest import one

DATA = Path(__file__).resolve().parents[2] / "data"
SRC0, SRC1, SINK0, SINK1 = 0, 1, 2, 3  # forward-2x2: region 0 = {0, 2}, region 1 = {1, 3}


def _regional_run(design):
    """cp1 completes globally; in cp2 sink[1] declines: region 1 falls back to cp1."""
    m = FlinkModel(design, scope("forward-2x2", max_checkpoints=3, max_declines=2, max_failures=0))
    w = m.initial()

    def do(a):
        nonlocal w
        assert a in m.enabled(w), a.describe(m.topo)
        w = m.step(w, a)

    for cp in (1, 2):
        do(TriggerCheckpoint(cp))
        for c in range(len(m.topo.channels)):
            while w.channels[c]:
                do(Deliver(c))
        while w.acks:
            t, c, _ = w.acks[0]
            if cp == 2 and t == SINK1:
                do(Decline(t, c))
            else:
                do(Ack(t, c))
        for t in range(4):
            while w.tasks[t].inbox:
                kind, c = w.tasks[t].inbox[0][:2]
                if cp == 2:
                    assert kind == (NOTIFY_FALLBACK if t in (SRC1, SINK1) else 0)
                do(Notify(t, c, ("complete", "abort", "fallback")[kind]))
    return m, w


def test_regional_checkpoint_takes_the_failed_regions_state_from_the_last_checkpoint():
    m, w = _regional_run(FLIP600)
    ids = [c.id for c in w.coord.store]
    assert ids == [1, 2], "num_retained = 1, but checkpoint 1 is kept: checkpoint 2 refers to it"
    cp1, cp2 = w.coord.store
    assert cp2.refs == (0, 1, 0, 1)
    assert cp2.snapshots[SINK1] == cp1.snapshots[SINK1] and cp2.snapshots[SRC1] == cp1.snapshots[SRC1]
    assert set(cp2.files) == {(2, SRC0), (1, SRC1), (2, SINK0), (1, SINK1)}
    assert w.coord.consecutive_regional == 1 and not w.coord.force_global
    assert restorable(m, w) is None


def test_K4_retention_that_ignores_refs_deletes_the_referenced_files():
    """the FLIP-600 thread: "Track ref_checkpoint_id in metadata to prevent premature cleanup of referenced
    historical checkpoints."  Without it, checkpoint 1 is subsumed and its files deleted."""
    m, w = _regional_run(FLIP600.with_(name="K4", retention_follows_refs=False))
    assert [c.id for c in w.coord.store] == [2]
    assert restorable(m, w).startswith("checkpoint 2 (the latest, which a restore would use) refers to file cp1/")


def test_tier1_forces_global_and_tier2_resets():
    """the FLIP-600 thread, tier 1: "When consecutiveRegionalCount >= maxConsecutiveFailures, the next
    checkpoint is forced to be global"; tier 2: "If that forced global checkpoint also fails ...
    aborted normally ... The counter is then reset"."""
    design = FLIP600_PROPOSED.with_(name="max1", max_consecutive_regional=1, tolerable_failed_checkpoints=5)
    m, w = _regional_run(design)
    assert w.coord.force_global and w.coord.consecutive_regional == 1
    w = m.step(w, TriggerCheckpoint(3))
    assert w.coord.pending[0].global_only
    t, cp, _ = w.acks[0]
    w = m.step(w, Decline(t, cp))
    assert not w.coord.pending, "a forced global checkpoint that fails is aborted"
    assert not w.coord.force_global and w.coord.consecutive_regional == 0


def test_regional_mode_is_disabled_across_blocking_edges():
    fwd = FlinkModel(FLIP600, scope("forward-2x2"))
    assert len(fwd.regional.regions()) == 2
    job = JobGraph(
        (Vertex("a", 2, Role.SOURCE), Vertex("b", 2, Role.SINK, two_phase_commit=True)),
        (Edge("a", "b", Pattern.POINTWISE, Exchange.BLOCKING),),
    )
    blocking = FlinkModel(FLIP600, Scope(job=job))
    assert len(blocking.topo.regions) == 4 and len(blocking.regional.regions()) == 1


def test_claim_global_checkpoint_at_end_of_input_prevents_the_data_loss_is_refuted():
    """the FLIP-600 thread (Raorao, 23 Jun 2026): "force a global checkpoint when the job is about to
    terminate. When all sources are exhausted, the JM will mark the next checkpoint as mandatory
    global".  Verdict: REFUTED when regions exhaust their sources at different times.  Region 0
    ends first; checkpoint 2 is not forced global (source[1] still runs); sink[0] declines it,
    region 0 falls back to checkpoint 1, its tasks take the regional completion as their final
    checkpoint and finish, and sink[0]'s last transaction is never committed (23 steps, the
    shortest).  That design lets a failed-region task treat notifyCheckpointComplete(id,
    fallbackId) as the completion of checkpoint id, as the PR's signature suggests;
    flip600-regional does not (Roman: "the final checkpoint must always be acked by all
    subtasks/regions"), and passes the same scope (deep test below)."""
    path = DATA / "flip600-jun23--finished-sinks-committed.trace.json"
    outcome = replay(load_trace_file(str(path)), str(path))
    assert outcome.reproduced
    assert outcome.violation["property"] == "finished-sinks-committed"
    assert outcome.violation["reason"] == (
        "sink[0] finished, but its transaction 1 with record (split 0, offset 0) was never committed: data loss"
    )
    assert outcome.violation["step"] == 23
    assert outcome.spec.design.global_checkpoint_at_end_of_input


@pytest.mark.deep  # about 5 minutes: the committed trace replays in the default run
def test_claim_refuted_from_scratch_and_fixed_by_waiting_for_an_own_checkpoint():
    """The 23 Jun design fails in 23 steps (38 until the job ends without the record);
    flip600-regional passes the same scope exhaustively."""
    sc = scope("forward-2x2", max_checkpoints=2, max_failures=0, max_declines=1, max_lost_notifications=0)
    jun23 = FLIP600_PROPOSED.with_(name="flip600-jun23")
    r = check(jun23, sc, stop_at="bounded-job-completes")
    assert len(r.verdict("finished-sinks-committed").trace) == 23
    assert len(r.verdict("bounded-job-completes").trace) == 38
    r = check(FLIP600, sc)
    assert r.complete and r.ok, [v.reason for v in r.violated]


def test_claim_ref_chain_bounded_by_max_consecutive_failures_is_refuted_by_tier2():
    """the FLIP-600 thread (Raorao, 26 Jun 2026): "The reference chain can only grow as deep as
    maxConsecutiveFailures. Once a global checkpoint succeeds, it's a fresh start."  Verdict:
    REFUTED with tier 2 ("If that forced global checkpoint also fails ... The counter is then
    reset").  With maxConsecutiveFailures = 1: checkpoint 1 global, 2 regional (ref 1), 3 forced
    global but declined, counter reset, 4 regional again with fallback 2: chain 4 -> 2 -> 1.
    Found by 40,000 Spark random walks (forward-2x2, 2 records/split, 4 checkpoints, 3 declines)."""
    path = DATA / "flip600-max1--ref-chain-bounded.trace.json"
    outcome = replay(load_trace_file(str(path)), str(path))
    assert outcome.reproduced
    assert outcome.violation["property"] == "ref-chain-bounded"
    assert "chain 4 -> 2 -> 1 of 2 refs, over max_consecutive_regional = 1" in outcome.violation["reason"]
    assert outcome.spec.design.regional_checkpoints and outcome.spec.design.max_consecutive_regional == 1


SMALL = ["--job", "forward-2x2", "--records", "0", "--unbounded", "--checkpoints", "2", "--failures", "0",
         "--declines", "1", "--lost-notifications", "0"]


def _cli(args, capsys):
    from ckptcheck.checks.cli.main import main

    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_toml_variant_max_consecutive_zero_still_completes_one_regional_checkpoint(tmp_path, capsys):
    """A user's variant, no code: max-consecutive-failures = 0.  Tier 1 forces a global
    checkpoint only after a regional one completed (PR #28963: "counter ≥ max-consecutive ->
    next forced global"), so 0 does not disable regional checkpoints: the first one completes
    with a ref, one over the configured maximum."""
    f = tmp_path / "max0.toml"
    f.write_text('based_on = "flip600-regional"\nmax_consecutive_regional = 0\n')
    code, out, err = _cli(["check", "--design", str(f), "--out", str(tmp_path / "out"), *SMALL], capsys)
    assert code == 1, out + err
    assert "ref-chain-bounded" in out and "of 1 refs, over max_consecutive_regional = 0" in out
    trace = one(tmp_path / "out", "max0.memo-*--ref-chain-bounded.trace.json")
    code, out, _ = _cli(["replay", str(trace)], capsys)
    assert code == 1 and "same verdict as recorded in the trace" in out


def test_toml_variant_file_merging_with_no_claim(tmp_path, capsys):
    """A user's variant, no code: FLIP-306 file merging on, started from a NO_CLAIM snapshot.
    Deleting the snapshot only once no checkpoint refers to it holds; deleting it after the
    first checkpoint (Flink's documented rule) breaks the regional checkpoint that still does."""
    f = tmp_path / "fm.toml"
    f.write_text(
        'based_on = "flip600-regional"\nfile_merging = true\nno_claim_restore = true\n'
        'no_claim_delete_after = "independent-checkpoint"\n'
    )
    code, out, err = _cli(["check", "--design", str(f), "--out", str(tmp_path / "a"), *SMALL], capsys)
    assert code == 0, out + err
    assert "a-regional-checkpoint-completes" in out and "RESULT: every property holds" in out
    f.write_text(f.read_text().replace("independent-checkpoint", "first-checkpoint"))
    code, out, err = _cli(["check", "--design", str(f), "--out", str(tmp_path / "b"), *SMALL], capsys)
    assert code == 1, out + err
    assert "of the NO_CLAIM snapshot, which the user deleted" in out


def _enumerator_run(design):
    """enumerator-2x2: checkpoint 1 completes before any split is assigned; the enumerator then
    assigns split 0 to source[0] and split 1 to source[1]; in checkpoint 2 sink[1] declines."""
    from ckptcheck.model.actions import AssignSplit

    m = FlinkModel(design, scope("enumerator-2x2", bounded=False, max_checkpoints=2, max_declines=1, max_failures=1,
                                 max_lost_notifications=0))
    w = m.initial()

    def do(a):
        nonlocal w
        assert a in m.enabled(w), a.describe(m.topo)
        w = m.step(w, a)

    def settle(cp, decline=None):
        for c in range(len(m.topo.channels)):
            while w.channels[c]:
                do(Deliver(c))
        while w.acks:
            t, c, _ = w.acks[0]
            do(Decline(t, c) if t == decline else Ack(t, c))
        for t in range(4):
            while w.tasks[t].inbox:
                kind, c = w.tasks[t].inbox[0][:2]
                do(Notify(t, c, ("complete", "abort", "fallback")[kind]))

    do(TriggerCheckpoint(1))
    settle(1)
    do(AssignSplit(SRC0, 0))
    do(AssignSplit(SRC1, 1))
    do(TriggerCheckpoint(2))
    settle(2, decline=SINK1)
    return m, w


def test_enumerator_falls_back_with_the_failed_region():
    """checkpointCoordinatorForRegionFallback: split 1, assigned to the failed region's reader
    after checkpoint 1, is unassigned in checkpoint 2's enumerator state; a region failover of
    source[1] restored from checkpoint 2 gets it back from the enumerator."""
    from ckptcheck.model.actions import FailTask, Restore
    from ckptcheck.specs.properties import consistent_cut, split_ownership

    m, w = _enumerator_run(FLIP600)
    cp2 = w.coord.store[-1]
    assert cp2.id == 2 and cp2.refs == (0, 1, 0, 1)
    assert cp2.enum == (1,) and cp2.snapshots[SRC0].split == 0 and cp2.snapshots[SRC1].split == -1
    assert split_ownership(m, w) is None and consistent_cut(m, w) is None
    w = m.step(w, FailTask(SRC1))
    w = m.step(w, Restore(2))
    assert w.coord.unassigned == (1,) and w.tasks[SRC1].split == -1


def test_enumerator_without_fallback_support_aborts_the_regional_checkpoint():
    """PR #28963 step 5: "If a coordinator inside a failed region does not support regional
    checkpoints -> abort"."""
    m, w = _enumerator_run(FLIP600.with_(name="no-support", coordinator_region_fallback="abort", tolerable_failed_checkpoints=1))
    assert [c.id for c in w.coord.store] == [1] and w.coord.failed_count == 1


def test_enumerator_state_taken_as_is_loses_the_split():
    """K3: the enumerator's own snapshot says split 1 is assigned; source[1]'s fallback state
    does not hold it."""
    from ckptcheck.specs.properties import split_ownership

    m, w = _enumerator_run(FLIP600.with_(name="K3", coordinator_region_fallback="ignore"))
    assert w.coord.store[-1].enum == ()
    assert split_ownership(m, w) == (
        "checkpoint 2 has split 1 neither unassigned in the enumerator nor held by a reader, yet record"
        " (split 1, offset 0) is in no downstream state: a restore never reads it"
    )


def test_tier2_breaks_the_chain_bound_of_the_proposal_and_keeping_the_force_fixes_it():
    """The ref-chain claim for the design as proposed (max 2), exhaustive on sources-2 (two
    one-subtask regions, no records).  With 4 checkpoints and 3 declines it holds; with 5 and 4,
    tier 2 resets the counter after the forced global checkpoint 4 fails, and checkpoint 5
    falls back to 3: chain 5 -> 3 -> 2 -> 1.  flip600-regional keeps the force until a global
    checkpoint completes (Roman: "we would not allow this particular failed region to fail the
    checkpoint again") and holds with 6 checkpoints and 5 declines."""

    def sc(cps):
        return scope("sources-2", records_per_split=0, bounded=False, max_checkpoints=cps, max_failures=0,
                     max_declines=cps - 1, max_timeouts=0, max_lost_notifications=0)

    assert check(FLIP600_PROPOSED, sc(4)).ok
    r = check(FLIP600_PROPOSED, sc(5), stop_at="ref-chain-bounded")
    v = r.verdict("ref-chain-bounded")
    assert "through a chain 5 -> 3 -> 2 -> 1 of 3 refs, over max_consecutive_regional = 2" in v.reason
    assert len(v.trace) == 15
    r = check(FLIP600, sc(6))
    assert r.complete and r.ok, [x.reason for x in r.violated]
