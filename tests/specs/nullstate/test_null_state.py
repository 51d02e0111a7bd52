"""FLINK-4120's null-state checkpoint (FLINK-4120) as a recovery strategy: the rules, a scripted
recovery, the preset's scopes, what the model refuses, and the seed's claims with verdicts.
The catalog entries built from the seed's conditions are checked with the others
(``tests/specs/test_catalog.py``)."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.cli.main import main
from ckptcheck.checks.run.results import VIOLATED
from ckptcheck.model.actions import EmitRecord, FailTask, Restore, TriggerCheckpoint
from ckptcheck.model.nullstate import NullStateRecovery
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import COMMITTED, REPLAY, RUNNING
from ckptcheck.specs.catalog import null_state_catalog_scope
from ckptcheck.specs.designs import BASELINE, NULL_STATE
from ckptcheck.specs.errors import InputError
from ckptcheck.specs.jobs import job_from_dict
from ckptcheck.specs.scopes import scope

from conftest import SEARCH_WORKERS, catalog_run
from test_protocol import Run

WITNESSES = ("a-recovery-from-an-older-null-state-checkpoint", "a-sink-discards-a-replayed-record", "a-barrier-is-reinserted")


def _witnessed(result) -> None:
    for name in WITNESSES:
        assert result.verdict(name).status == "hit", name


def test_window_keeps_the_last_records_of_each_split_and_its_watermark_is_their_lowest_offset():
    m = FlinkModel(NULL_STATE, scope("null-state", records_per_split=3))
    ns, w = m.null_state, m.topo.task_id("window[0]")
    assert ns.trim(w, ((0, 0), (0, 1), (0, 2), (1, 0))) == ((0, 2), (1, 0))
    assert ns.watermark(((0, 2), (1, 0))) == ((0, 2), (1, 0))
    assert ns.watermark(()) == ()


def _progress(run: Run, limit: int = 200) -> None:
    """Take the first enabled progress action until none is left."""
    for _ in range(limit):
        acts = [a for a in run.m.enabled(run.w) if not a.fault]
        if not acts:
            return
        run.do(acts[0])
    raise AssertionError("no end")


def test_a_recovery_restarts_from_the_null_state_checkpoint_and_replays_to_the_reinserted_barrier():
    """Checkpoint 1 at offsets (1, 0); checkpoint 2 at (2, 1) with the window holding (0,1) and
    (1,0): its null-state checkpoint is 1.  After a failure the sources resume at (1, 0), the
    window rebuilds {(0,1), (1,0)} by the re-inserted barrier, the sink discards what its
    state from checkpoint 2 holds, and every record is committed once."""
    m = FlinkModel(NULL_STATE, scope("null-state", records_per_split=2, max_checkpoints=2, max_failures=1, max_declines=0,
                                     max_timeouts=0, max_lost_notifications=0))
    r = Run(m)
    s0, s1, win, sink = r.t("source[0]"), r.t("source[1]"), r.t("window[0]"), r.t("sink[0]")

    def deliver_all():
        while True:
            acts = [a for a in m.enabled(r.w) if type(a).__name__ in ("Deliver", "Ack")]
            if not acts:
                return
            r.do(acts[0])

    r.do(EmitRecord(s0)).do(TriggerCheckpoint(1))
    deliver_all()
    r.do(EmitRecord(s0)).do(EmitRecord(s1)).do(TriggerCheckpoint(2))
    deliver_all()
    c1, c2 = r.w.coord.store
    assert c2.snapshots[win].watermark == ((0, 1), (1, 0)) and c2.null_state == 1
    assert c1.id == 1, "the store keeps checkpoint 2's null-state checkpoint beyond num-retained 1"
    r.do(FailTask(sink)).do(Restore(2))
    assert [ts.status for ts in r.w.tasks] == [RUNNING] * 4
    assert (r.w.tasks[s0].position, r.w.tasks[s1].position) == (1, 0), "the sources resume at checkpoint 1's offsets"
    assert r.w.tasks[win].processed == () and r.w.tasks[win].replay == (2, ((0, 1), (1, 0)), False)
    r.do(EmitRecord(s0))  # (0,1), then the re-inserted barrier at offset 2
    assert r.w.channels[r.c("source[0]->window[0]")][-1] == (REPLAY, 2)
    r.do(EmitRecord(s1))  # (1,0), then the barrier at offset 1
    deliver_all()
    assert not any(ts.replay for ts in r.w.tasks) and not any(ts.recomputed for ts in r.w.tasks)
    assert r.w.tasks[sink].processed == c2.snapshots[sink].processed, "the sink took no replayed record"
    _progress(r)
    committed = sorted(x for t in r.w.txns if t.status == COMMITTED for x in t.records)
    assert committed == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_catalog_scope_holds_exhaustively_with_every_null_state_witness():
    """The catalog's null-state scope: golden count, every witness hit."""
    result = check(NULL_STATE, null_state_catalog_scope(), workers=SEARCH_WORKERS)
    assert result.complete and result.ok and result.stats["states"] == 8_214
    _witnessed(result)


def test_a_sink_v2_writer_discards_until_the_reinserted_barrier():
    """FLINK-4120's sinks include Sink V2's: the writer restored from the latest checkpoint drops
    the replayed records (its committables for them are in the committer's state), holds
    exhaustively; a writer that keeps them commits a record twice."""
    sc = scope("null-state-sink-v2", records_per_split=2, max_checkpoints=1, max_failures=1, max_declines=0,
               max_timeouts=0, max_lost_notifications=0)
    good = check(NULL_STATE, sc, workers=SEARCH_WORKERS)
    assert good.complete and good.ok and good.stats["states"] == 30_371
    assert "writer[0] discards replayed record" in good.verdict("a-sink-discards-a-replayed-record").reason
    from ckptcheck.specs.catalog import entry
    bad = check(entry("null-state-sinks-keep-replayed-records").design, sc, stop_at="exactly-once-output", workers=SEARCH_WORKERS)
    assert "committed twice" in bad.verdict("exactly-once-output").reason


def test_refused_combinations():
    with pytest.raises(ValueError, match="failover_strategy 'full'"):
        NULL_STATE.with_(name="x", failover_strategy="region")
    with pytest.raises(ValueError, match="aligned-timeout"):
        NULL_STATE.with_(name="x", checkpoint_mode="aligned-timeout")
    with pytest.raises(ValueError, match="regional_checkpoints"):
        NULL_STATE.with_(name="x", regional_checkpoints=True)
    with pytest.raises(ValueError, match="needs a recomputable operator"):
        FlinkModel(NULL_STATE, scope("keyed-2x1"))
    with pytest.raises(ValueError, match="rescaling"):
        FlinkModel(NULL_STATE, scope("null-state-1x1", rescale=(("sink", 2),), max_rescales=1))


def test_a_window_outside_an_operator_is_one_line_naming_the_field():
    job = {"vertex": [{"name": "s", "parallelism": 1, "role": "source"},
                      {"name": "k", "parallelism": 1, "role": "sink", "window": 1}],
           "edge": [{"source": "s", "target": "k"}]}
    with pytest.raises(InputError, match="window: only an operator"):
        job_from_dict(job, "job.toml")
    job["vertex"][1].update(role="operator", window=True)
    with pytest.raises(InputError, match=r"vertex\[1\]\.window: expected an integer >= 0"):
        job_from_dict(job, "job.toml")


# -- the seed's claims --------------------------------------------------------------------------
class RestartFromLatest(NullStateRecovery):
    """The null-state checkpoint is the latest checkpoint itself."""

    def null_state_checkpoint(self, store, cp, snaps):
        return cp


class OneTooRecent(NullStateRecovery):
    """The checkpoint after the one the seed's rule picks (the latest if there is none)."""

    def null_state_checkpoint(self, store, cp, snaps):
        n = super().null_state_checkpoint(store, cp, snaps)
        return min([c.id for c in store if c.id > n] + [cp])


class FromTheStart(NullStateRecovery):
    """Every recovery replays from the job's start."""

    def null_state_checkpoint(self, store, cp, snaps):
        return 0


def _variant(rules):
    return NULL_STATE.with_(name=f"claim-{rules.__name__}", null_state=rules)


def test_claim_the_pipeline_must_restart_from_the_null_state_checkpoint():
    """FLINK-4120: "the pipeline must be restarted from the latter [the null-state checkpoint] to
    restore the state at the former [the latest]".  Verdict: CONFIRMED in the catalog scope,
    exhaustively: restarting from the latest checkpoint leaves the window without the records
    it held (the state is not persisted), while the preset holds the same scope."""
    sc = null_state_catalog_scope()
    bad = check(_variant(RestartFromLatest), sc, stop_at="recomputed-state-matches", workers=SEARCH_WORKERS)
    v = bad.verdict("recomputed-state-matches")
    assert v.status == VIOLATED and "window[0] was wrongly recomputed" in v.reason and "lacks record" in v.reason
    good = check(NULL_STATE, sc, workers=SEARCH_WORKERS)
    assert good.complete and good.ok


def test_claim_the_null_state_checkpoint_is_the_most_recent_one_preceding_every_watermark():
    """FLINK-4120: "The null-state checkpoint of the ongoing checkpoint is the most recent
    checkpoint preceding all the received null-state watermarks".  Verdict: CONFIRMED as the
    most recent safe choice, exhaustively in the catalog scope: one checkpoint more recent
    loses the window's oldest record, an older one (the job's start) is safe, it only replays
    more; the preset holds (``test_claim_the_pipeline_must_restart_...``)."""
    sc = null_state_catalog_scope()
    bad = check(_variant(OneTooRecent), sc, stop_at="recomputed-state-matches", workers=SEARCH_WORKERS)
    assert bad.verdict("recomputed-state-matches").status == VIOLATED
    older = check(_variant(FromTheStart), sc, workers=SEARCH_WORKERS)
    assert older.complete and older.ok


def test_claim_the_order_of_barriers_and_watermarks_is_assumed():
    """FLINK-4120: "assuming the pipeline preserves the relative order of barriers and
    watermarks".  Verdict: the assumption is NEEDED.  With unaligned checkpoints a barrier
    overtakes a record: a watermark from the operator's state alone gives a null-state
    checkpoint after that record (the window is wrongly recomputed), and sinks that discard
    until the re-inserted barrier drop it (never committed).  With both rules repaired
    (``flink-null-state-unaligned``) the same scope holds (``tests/specs/test_catalog.py``)."""
    wm = catalog_run("null-state-unaligned-watermark-ignores-in-flight").verdict("recomputed-state-matches")
    assert wm.status == VIOLATED and "lacks record (split 0, offset 0)" in wm.reason
    sink = catalog_run("null-state-unaligned-sinks-discard-overtaken-records").verdict("bounded-job-completes")
    assert sink.status == VIOLATED and "record (split 0, offset 0) was never committed" in sink.reason


def test_the_baseline_ignores_windows_it_persists(tmp_path, capsys):
    """A window is ordinary state for Flink's own recovery: the baseline checks the null-state
    job without the null-state properties."""
    code = main(["check", "--design", "flink-baseline", "--job", "null-state-1x1", "--records", "1", "--checkpoints", "1",
                 "--failures", "1", "--declines", "0", "--out", str(tmp_path), "--verbose"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "recomputed-state-matches     not applicable" in out
    assert BASELINE.recovery == "latest"


def test_replay_narrates_the_reinserted_barrier_and_the_discard(tmp_path, capsys):
    code = main(["check", "--design", "null-state-sinks-keep-replayed-records", "--job", "null-state-1x1", "--records", "2",
                 "--checkpoints", "1", "--failures", "1", "--declines", "0", "--no-instant-acks", "--out", str(tmp_path)])
    capsys.readouterr()
    assert code == 1
    trace = next(tmp_path.glob("*--exactly-once-output.trace.json"))
    assert main(["replay", "-v", str(trace)]) == 1, "the trace reproduces its violation"
    out = capsys.readouterr().out
    assert "null-state recovery: the sources resume at the positions of" in out
    assert "re-inserts the barrier of checkpoint" in out
    assert "committed twice" in out


def test_instant_acks_give_way_where_a_design_reads_the_watermark_at_the_acknowledgement():
    """Instant acks fold an acknowledgement into the snapshot; a design that reads the task when
    the acknowledgement arrives (catalog null-state-watermark-at-acknowledgement) would be
    checked at the wrong moment, so a default scope's instant acks give way to the full model."""
    from ckptcheck.model.protocol import fitted, scope_conflict
    from ckptcheck.specs.catalog import entry
    from ckptcheck.specs.designs import PRESETS
    from ckptcheck.specs.scopes import null_state_scope

    late = entry("null-state-watermark-at-acknowledgement").design
    assert scope_conflict(late, null_state_scope()).startswith("scope.instant_acks: not exact with a replaced")
    assert fitted(late, null_state_scope()) == null_state_scope().with_(instant_acks=False)
    assert fitted(PRESETS["flink-null-state"], null_state_scope()) == null_state_scope()


def test_every_method_on_an_acknowledgements_way_makes_instant_acks_give_way():
    """The same flaw as null-state-watermark-at-acknowledgement written one method higher, in
    ``on_acknowledge`` (the call instant acks make at the snapshot): kept under instant acks it
    holds (2,973 states), so a replacement of any method on an acknowledgement's way refuses them;
    in the full model the flaw is found."""
    from ckptcheck.checks.run.api import check
    from ckptcheck.model.coordinator import CheckpointCoordinator
    from ckptcheck.model.nullstate import NullStateRecovery
    from ckptcheck.model.protocol import fitted, replaced_acknowledgement_hooks, scope_conflict
    from ckptcheck.specs.catalog import null_state_catalog_scope
    from ckptcheck.specs.designs import PRESETS

    class WatermarkOfTheTaskNow(NullStateRecovery):
        def on_acknowledge(self, tx, t, snap):
            if not self.windows[t] or snap.finished:
                return snap
            return snap._replace(watermark=self.watermark(tx.tasks[t].processed))

    class CountsEveryArrival(CheckpointCoordinator):
        def drop_ack(self, tx, t, cp, keep_file=False):
            return super().drop_ack(tx, t, cp, keep_file)

    base = PRESETS["flink-null-state"]
    late = base.with_(name="watermark-of-the-task-now", null_state=WatermarkOfTheTaskNow)
    sc = null_state_catalog_scope().with_(instant_acks=True)
    assert replaced_acknowledgement_hooks(late) == ["NullStateRecovery.on_acknowledge"]
    assert replaced_acknowledgement_hooks(base.with_(name="x", coordinator=CountsEveryArrival)) == ["CheckpointCoordinator.drop_ack"]
    assert replaced_acknowledgement_hooks(base) == []
    assert "NullStateRecovery.on_acknowledge" in scope_conflict(late, sc)
    r = check(late, fitted(late, sc))
    assert [v.property for v in r.violated] == ["recomputed-state-matches"]
