"""FLIP-147's claims (seed 004), each decided by the model within a stated scope, and the
FLIP-147 default scope.  Each test quotes the claim and states the verdict; the README's
FLIP-147 section lists them."""

from __future__ import annotations

import dataclasses

import pytest

from ckptcheck.checks.api import check
from ckptcheck.checks.results import VIOLATED
from ckptcheck.specs.catalog import entry, flip147_scope
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.scopes import flip147_default_scope

from conftest import catalog_run

PARTIAL = ("a-checkpoint-with-a-partly-finished-vertex", "a-finished-subtask-restarts")


def test_claim_discarding_finished_state_is_safe_for_flip27_sources_not_for_legacy_ones():
    """Seed 004: "g(I_F, ΔF) = Ø ... With legacy source API the source operators usually
    discover all the splits on startup and record the progress of each split in a union list
    state. ... if we discard the state for the finished splits, we would re-read them after
    failover ... The new source API would overcome this issue".  Verdict: CONFIRMED both ways
    in keyed-2x1 with one checkpoint and one failure.  With FLIP-27 readers (a finished
    reader restarts with no split) every property holds exhaustively (32,119 states), with a
    checkpoint holding a partly finished source and a finished subtask restarting from it;
    with a legacy source the restarted subtask reads its split again and the sink commits a
    record twice (35 steps, catalog ``legacy-source-rereads-finished-split``)."""
    e = entry("legacy-source-rereads-finished-split")
    good = check(BASELINE, e.scope, workers=2)
    assert good.complete and good.ok and good.stats["states"] == 32_119
    for w in PARTIAL:
        assert good.verdict(w).status == "hit", w
    v = catalog_run(e.name).verdict("exactly-once-output")
    assert v.status == VIOLATED and "committed twice" in v.reason and len(v.trace) == 35


def test_claim_union_list_state_vertices_finish_all_at_once():
    """Seed 004: "if an operator checkpoints UnionListState, it can only finish all at once. We
    will decline checkpoints if not all of the tasks called finished and received
    notifyCheckpointComplete".  Verdict: NEEDED, and enough as Flink implements it.  Flink does
    not decline literally: ``finalizeCheckpoint`` aborts a checkpoint in which such a vertex
    would be partly finished (``PartialFinishingNotSupportedByStateException``, TASK_CLOSING,
    not counted; reference-flink-uc D.3), so its fast subtasks wait for a checkpoint taken
    after every subtask ended.  In union-2x2 (one checkpoint, no fault) that passes
    exhaustively with the abort witnessed; without it a checkpoint holds a partly finished
    union vertex and loses the finished subtask's part (22 steps)."""
    e = entry("union-state-finishes-partly")
    good = check(BASELINE, e.scope, workers=2)
    assert good.complete and good.ok and good.verdict("a-union-state-abort").status == "hit"
    v = catalog_run(e.name).verdict(e.violates)
    assert v.status == VIOLATED and "union list state of sink[" in v.reason and len(v.trace) == 22


def test_claim_tasks_finishing_do_not_fail_pending_checkpoints():
    """Seed 004, "Do Not Cancel Pending Checkpoint on Finish": "tasks finish should not fail the
    checkpoints and we would change the behavior to waiting for all the pending checkpoints to
    finish before task get finished".  Verdict: HOLDS in the model's Flink (no rule aborts a
    pending checkpoint when a task finishes, as in Flink 2.x, reference-flink-uc D.2), and it
    happens: in keyed-2x1 with one checkpoint and one failure a checkpoint completes after a
    task it was triggered with finished (the witness), and every property holds there
    exhaustively (as in the baseline's default scope, test_deep)."""
    e = entry("legacy-source-rereads-finished-split")
    r = check(BASELINE, e.scope, workers=2)
    assert r.complete and r.ok and r.verdict("a-checkpoint-survives-a-finish").status == "hit"


@pytest.mark.deep
def test_flip147_default_scope_holds_with_every_witness():
    """``ckptcheck check --design flink-baseline --job sink-v2-keyed-2x1``: FLIP-147's default
    scope (two sources ending at their own pace into a Sink V2 writer, committer and global
    committer; one record per split, one checkpoint, one failure, one decline)."""
    r = check(BASELINE, flip147_default_scope(), workers=2)
    assert r.complete and r.ok, [v.reason for v in r.violated]
    assert r.stats["states"] == 1_337_457
    missing = [v.property for v in r.verdicts if v.kind == "sometimes" and v.status != "hit" and v.status != "not applicable"]
    assert not missing, missing
    for w in ("a-task-triggered-after-its-producers-finished", "a-checkpoint-with-a-partly-finished-vertex",
              "a-vertex-restored-finished", "a-finished-subtask-restarts", "end-of-input-committables-committed",
              "a-committer-holds-end-of-data", "restored-committables-recommitted", "a-checkpoint-survives-a-finish"):
        assert r.verdict(w).status == "hit", w


def test_a_union_abort_carrying_the_latest_completion_ends_the_wait_for_a_final_checkpoint():
    """FLINK-21080 (reference-flink-uc D.3): sink[1] lost the completion of its final
    checkpoint while sink[0] finished; every later checkpoint aborts (sink is a partly
    finished union-state vertex), and each abort notice carries the latest completed id, whose
    replay finishes sink[1].  The search is finite only because an abort notice carrying that
    id counts as the announced completion (``StreamTask.needs_final_checkpoint``): otherwise the
    coordinator could trigger new checkpoints forever before sink[1] reads its inbox."""
    sc = dataclasses.replace(flip147_scope("union-2x2"), records_per_split=0, max_lost_notifications=1)
    r = check(BASELINE, sc, workers=1, max_seconds=60)
    assert r.complete and r.ok and r.stats["states"] == 3221
    assert r.verdict("a-union-state-abort").status == "hit"
