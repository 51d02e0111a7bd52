"""Instant acks (``Scope.instant_acks``, ``CheckpointCoordinator.acknowledge_at_once``): the
acknowledgements in flight folded into the pending checkpoints.  The claim is that this is
exactly the full model's state space up to the folding, so every verdict carries over; these
tests compare the two state by state on scopes small enough to search twice, then compare
verdicts of catalog entries.  A fold that forgot the decline of a counted ack, completed a
checkpoint at its last acknowledgement in the same step, or kept a late ack's file would give
different sets here."""

from __future__ import annotations

import dataclasses
import json
from collections import deque
from pathlib import Path

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.cli.main import main
from ckptcheck.checks.run.results import HIT, NOT_APPLICABLE, VIOLATED
from ckptcheck.model.actions import Ack, Decline, EmitRecord, LastAck, Timeout, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel, scope_conflict
from ckptcheck.model.world import World, remove_sorted
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.designs import BASELINE, FLIP147, FLIP600, FLIP600_PR, UNALIGNED
from ckptcheck.specs.scopes import default_scope_for, flip147_concurrent_scope, flip147_union_scope, scope

from conftest import SEARCH_WORKERS
from test_protocol import Run

CONCURRENT = BASELINE.with_(name="concurrent-2", max_concurrent_checkpoints=2)


def fold(w: World) -> World:
    """The full model's world as instant acks see it: each ack in flight of a pending checkpoint
    that waits for its task counted in that checkpoint, every other one gone with its file."""
    if not w.acks:
        return w
    pending = list(w.coord.pending)
    files = w.files
    for t, cp, snap in w.acks:
        i = next((k for k, p in enumerate(pending) if p.id == cp), None)
        if i is None or not pending[i].waiting >> t & 1:
            files = remove_sorted(files, (cp, t))
        else:
            pending[i] = pending[i]._replace(acked=tuple(sorted(pending[i].acked + ((t, snap),))))
    return w._replace(acks=(), files=files, coord=w.coord._replace(pending=tuple(pending)))


def reachable(model: FlinkModel) -> set[World]:
    seen = {model.initial()}
    todo = deque(seen)
    while todo:
        w = todo.popleft()
        for a in model.enabled(w):
            n = model.step(w, a)
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


REGIONAL_PR = FLIP600_PR.with_(name="flip600-pr-ratio-50", max_failed_region_percent=50)


@pytest.mark.parametrize("design, job, limits, full, folded", [
    (BASELINE, "sink-v2", dict(max_checkpoints=1, max_failures=1, max_declines=1), 5_839, 2_446),
    # FLIP-600: a decline may be the last response; it evaluates the checkpoint at once only
    # where no other acknowledgement could still be in flight, else LastAck does
    (FLIP600, "forward-2x2", dict(max_checkpoints=1, max_declines=1), 31_007, 10_249),
    (FLIP600_PR, "sources-4", dict(max_checkpoints=2, max_declines=2, records_per_split=0, bounded=False), 1_572, 670),
    pytest.param(REGIONAL_PR, "forward-2x2", dict(max_checkpoints=1, max_declines=1), 175_389, 43_282,
                 marks=pytest.mark.claims),  # 19 s
    pytest.param(FLIP600, "forward-2x2", dict(max_checkpoints=1, max_failures=1, max_declines=1), 428_577, 64_785,
                 marks=pytest.mark.claims),  # 55 s
    (CONCURRENT, "keyed-1x1", dict(max_checkpoints=2, max_failures=1, max_declines=1), 14_677, 4_776),
    pytest.param(CONCURRENT, "sink-v2", dict(max_checkpoints=2), 41_608, 5_596, marks=pytest.mark.claims),  # 5.5 s
])
def test_instant_acks_reach_exactly_the_folded_states_of_the_full_model(design, job, limits, full, folded):
    limits = {"records_per_split": 1, "max_failures": 0, "max_declines": 0, "max_timeouts": 0, "max_lost_notifications": 0,
              **limits}
    sc = scope(job, **limits)
    whole = reachable(FlinkModel(design, sc))
    instant = reachable(FlinkModel(design, dataclasses.replace(sc, instant_acks=True)))
    assert {fold(w) for w in whole} == instant
    assert (len(whole), len(instant)) == (full, folded)


def test_an_ack_counts_at_the_snapshot_may_still_be_declined_and_the_last_one_is_a_step():
    """Acks of a pending checkpoint count at once, a counted one may still turn into a decline
    (its async part failed instead), and the checkpoint completes in a ``LastAck`` step once
    every task of the plan acknowledged: never in the step of the last snapshot, so a fault
    may come in between, as it may in Flink before the last ack arrives."""
    r = Run(FlinkModel(BASELINE, scope("keyed-1x1", max_checkpoints=1, max_declines=1, instant_acks=True)))
    src, sink = r.t("source[0]"), r.t("sink[0]")
    r.do(EmitRecord(src)).do(TriggerCheckpoint(1))
    p = r.w.coord.pending[0]
    assert not r.w.acks and [t for t, _ in p.acked] == [src] and (1, src) in r.w.files
    enabled = r.m.enabled(r.w)
    assert Decline(src, 1) in enabled and not any(type(a) in (Ack, LastAck) for a in enabled)
    r.drain("source[0]->sink[0]")
    assert r.w.coord.pending and LastAck(1) in r.m.enabled(r.w), "the last snapshot does not complete the checkpoint"
    assert Decline(sink, 1) in r.m.enabled(r.w)
    r.do(LastAck(1))
    assert not r.w.coord.pending and r.w.coord.store[-1].id == 1


def test_a_late_ack_is_discarded_with_its_file_at_once():
    """A snapshot of a checkpoint already aborted (the task had not yet heard) leaves no ack and
    no file behind: the coordinator would discard both when the ack arrived."""
    r = Run(FlinkModel(BASELINE, scope("keyed-1x1", max_checkpoints=1, max_timeouts=1, instant_acks=True)))
    r.do(EmitRecord(r.t("source[0]"))).do(TriggerCheckpoint(1)).do(Timeout(1))
    assert not r.w.coord.pending and not any(f[0] == 1 for f in r.w.files)
    r.drain("source[0]->sink[0]")
    assert not r.w.acks and not any(f[0] == 1 for f in r.w.files)


@pytest.mark.parametrize("name", ["FLINK-38614-end-of-data-before-committables",
                                  pytest.param("union-state-finishes-partly", marks=pytest.mark.claims),  # 2.5 s
                                  "K4-retention-ignores-refs", "K7-no-claim-snapshot-deleted-too-early",
                                  "F3-tier2-resets-the-chain-bound",
                                  pytest.param("K1-regional-final-checkpoint", marks=pytest.mark.claims),
                                  pytest.param("F2-commit-past-own-state", marks=pytest.mark.claims)])  # 17 s
def test_catalog_entries_keep_their_verdicts_with_instant_acks(name):
    """The FLIP-147 and FLIP-600 entries are found with instant acks too, by a counterexample no
    longer than the full model's (it drops the arrivals of all acks but the last), and the
    correct design still passes the same scope.  (Every regional entry was checked so once: each
    is found in 1 to 5 steps fewer, each correct design holds.)"""
    e = entry(name)
    sc = dataclasses.replace(e.scope, instant_acks=True)
    full = check(e.design, e.scope, stop_at=e.violates, workers=1)
    fast = check(e.design, sc, stop_at=e.violates, workers=1)
    v, u = full.verdict(e.violates), fast.verdict(e.violates)
    assert v.status == u.status == VIOLATED
    assert len(u.trace) <= len(v.trace)
    good = check(e.correct, sc, workers=1)
    assert good.complete and good.ok, [x.reason for x in good.violated]


def test_instant_acks_are_refused_where_they_would_not_be_exact():
    sc = scope("forward-2x2", instant_acks=True)
    assert scope_conflict(FLIP600, sc) == ""
    timing = FLIP600.with_(name="t", timeouts_complete_regionally=True)
    assert scope_conflict(timing, dataclasses.replace(sc, max_timeouts=0)) == ""
    assert "timeouts that complete regionally" in scope_conflict(timing, dataclasses.replace(sc, max_timeouts=1))
    assert "checkpoint_mode 'unaligned'" in scope_conflict(UNALIGNED, sc)
    assert scope_conflict(BASELINE, sc) == ""
    with pytest.raises(ValueError, match="scope.instant_acks: expected true or false"):
        scope("keyed-1x1", instant_acks=1)


def test_the_flip147_preset_runs_its_concurrent_default_scope():
    """``ckptcheck check --design flip147`` searches FLIP-147's job with two concurrent
    checkpoints, two before end of input (so that two can be pending), and instant acks."""
    sc = default_scope_for(FLIP147)
    assert sc == flip147_concurrent_scope() and FLIP147.max_concurrent_checkpoints == 2
    assert sc.instant_acks and sc.max_checkpoints == 2 and sc.job_name == "sink-v2-keyed-2x1"
    assert default_scope_for(BASELINE) != sc


def test_an_instant_ack_counterexample_replays_from_its_trace(tmp_path, capsys):
    out = tmp_path / "r"
    code = main(["check", "--design", "FLINK-38614-end-of-data-before-committables", "--job", "sink-v2-global",
                 "--checkpoints", "0", "--failures", "0", "--declines", "0", "--instant-acks", "--out", str(out)])
    assert code == 1
    traces = sorted(out.glob("*no-data-after-end-of-data*.trace.json"))
    assert len(traces) == 1
    doc = json.loads(traces[0].read_text())
    assert doc["scope"]["instant_acks"] is True and any(a["type"] == "LastAck" for a in doc["actions"])
    schema = json.loads((Path(__file__).resolve().parents[2] / "checks" / "run" / "trace.schema.json").read_text())
    assert "instant_acks" in schema["properties"]["scope"]["properties"]
    assert any("LastAck" in (alt["properties"]["type"].get("enum") or ()) for alt in schema["$defs"]["action"]["oneOf"])
    capsys.readouterr()
    assert main(["replay", str(traces[0])]) == 1
    assert "no-data-after-end-of-data" in capsys.readouterr().out


@pytest.mark.deep
def test_flip147_default_holds_with_every_witness_the_concurrency_ones_included():
    """Issue 14's default scope with two concurrent checkpoints (the README's figure, about 9.5
    minutes): every property holds exhaustively and every applicable witness is hit."""
    r = check(FLIP147, flip147_concurrent_scope(), workers=SEARCH_WORKERS)
    assert r.complete and r.ok, [v.reason for v in r.violated]
    assert r.stats["states"] == 8_494_887
    hit = {v.property for v in r.verdicts if v.status == HIT}
    assert all(v.status == HIT for v in r.verdicts if v.kind == "sometimes" and v.status != NOT_APPLICABLE), [
        v.property for v in r.unreached]
    assert {"two-checkpoints-pending", "a-completion-subsumes-a-pending-checkpoint", "a-task-finishes-with-a-checkpoint-pending",
            "a-task-triggered-after-its-producers-finished", "a-checkpoint-with-a-partly-finished-vertex",
            "a-vertex-restored-finished", "a-checkpoint-completes-before-the-restore",
            "end-of-input-committables-committed"} <= hit


@pytest.mark.deep
def test_flip147_second_default_scope_reaches_the_union_abort_with_partial_finishing_and_concurrency():
    """Issue 14, item 6: the union-state abort, which the first default scope cannot reach (its
    only vertex of parallelism 2 is the sources'), in the union job with two concurrent
    checkpoints (the README's figure, about 9 minutes with 1 worker): every property holds
    exhaustively, with symmetry reduction; the abort is hit with the writer finishing partly in
    a completed checkpoint and two checkpoints pending; only the fault witnesses are not (no
    fault in this scope), and the first default scope hits each of them.  No task here is
    triggered by RPC because its producers finished (no global committer: a writer's final
    checkpoint is its source's), so that witness does not apply."""
    r = check(FLIP147, flip147_union_scope(), workers=SEARCH_WORKERS, symmetry=True)
    assert r.complete and r.ok, [v.reason for v in r.violated]
    assert r.stats["states"] == 2_703_977
    for w in ("a-union-state-abort", "a-checkpoint-with-a-partly-finished-vertex", "two-checkpoints-pending",
              "a-completion-subsumes-a-pending-checkpoint", "a-task-finishes-with-a-checkpoint-pending",
              "end-of-input-committables-committed", "a-checkpoint-survives-a-finish"):
        assert r.verdict(w).status == HIT, w
    assert {v.property for v in r.unreached} == {"a-task-declines", "a-task-fails", "restore-from-checkpoint"}
