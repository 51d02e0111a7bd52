"""Checkpoints during recovery (FLIP-547, ``checkpointing_during_recovery``), one scripted run per
rule: a model that keeps a recovering subtask from checkpointing, holds every channel's new data
behind another channel's recovered records, loses the recovered records a checkpoint started
before reading, or persists them twice fails one of these."""

from __future__ import annotations

import pytest

from ckptcheck.model.actions import Deliver, EmitRecord, Notify, Rescale, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import BARRIER, FAILED, REC, RECOVERED_INPUT
from ckptcheck.specs.catalog import CATALOG
from ckptcheck.specs.designs import BASELINE, UNALIGNED, UNALIGNED_DURING_RECOVERY
from ckptcheck.specs.properties import channel_state, consistent_cut, waits_for_recovery
from ckptcheck.specs.scopes import restart_aligned_scope

from test_protocol import Run
from test_unaligned import _restored_with_input_and_output_state

DOWNSTREAM = UNALIGNED.with_(name="recover-downstream", recover_output_on_downstream=True)


def _variant(name: str):
    return next(e.design for e in CATALOG if e.name == name)


def test_the_option_needs_recovery_on_the_downstream_and_unaligned_checkpoints():
    """``CheckpointingOptions.isCheckpointingDuringRecoveryEnabled``: the option alone, or with
    aligned checkpoints (FLINK-40518), is refused in one line, not silently ignored."""
    with pytest.raises(ValueError, match="only with recover_output_on_downstream"):
        UNALIGNED.with_(name="x", checkpointing_during_recovery=True)
    with pytest.raises(ValueError, match="needs unaligned checkpoints"):
        UNALIGNED_DURING_RECOVERY.with_(name="x", checkpoint_mode="aligned")
    assert FlinkModel(UNALIGNED_DURING_RECOVERY, _restored_with_input_and_output_state().m.scope).cdr


def test_a_recovering_subtask_reads_new_data_of_another_channel_and_takes_a_trigger():
    """Its gates request their partitions once filtering is done (``restoreStateAndGates`` with
    the option), so the sink reads source[0]'s new record while source[1]'s channel still holds
    recovered records (each channel's own recovered records stay first), is RUNNING (no
    INITIALIZING hold) and not "not ready"; with recovery on the downstream alone it reads
    nothing new until every recovered record is read."""
    r = _restored_with_input_and_output_state(UNALIGNED_DURING_RECOVERY)
    alone = _restored_with_input_and_output_state(DOWNSTREAM)
    sink, c0, c1 = r.t("sink[0]"), r.c("source[0]->sink[0]"), r.c("source[1]->sink[0]")
    for run in (r, alone):
        run.do(EmitRecord(run.t("source[1]"))).do(EmitRecord(run.t("source[0]")))
    delivers = lambda run: {a for a in run.m.enabled(run.w) if type(a) is Deliver}  # noqa: E731
    assert delivers(alone) == {Deliver(c1)}
    assert delivers(r) == {Deliver(c0), Deliver(c1)}
    assert r.w.channels[c1][:2] == ((REC, 1, 0, RECOVERED_INPUT), (REC, 1, 1, RECOVERED_INPUT))
    assert r.m.request_decider.initializing(r.w) is None and alone.m.request_decider.initializing(alone.w) == sink
    r.do(Deliver(c0))
    assert r.w.tasks[sink].processed == ((0, 0),), "new data of one channel before another channel's recovered records"


def _checkpoint_during_recovery(design):
    """The restored sink reads its first recovered record (1, 0), then checkpoint 2's barrier
    reaches it on source[0]'s channel (staggered trigger RPCs: source[1] has not snapshotted yet)
    while (1, 1) is still recovered and unread on source[1]'s; it reads (1, 1) before that
    channel's barrier, then the barrier."""
    r = _restored_with_input_and_output_state(design, staggered_triggers=True)
    sink, c0, c1 = r.t("sink[0]"), r.c("source[0]->sink[0]"), r.c("source[1]->sink[0]")
    r.do(Deliver(c1))
    r.do(TriggerCheckpoint(2)).do(Notify(r.t("source[0]"), 2, "trigger")).do(Deliver(c0))
    started = r.w.tasks[sink].uc
    r.do(Deliver(c1))  # the recovered (1, 1), read while source[1]'s barrier is still to come
    r.do(Notify(r.t("source[1]"), 2, "trigger")).do(Deliver(c1))
    r.acks().notify_all()
    return r, started


def test_a_checkpoint_during_recovery_holds_the_recovered_records_not_read_yet_once():
    """``recovered_at_start``: checkpoint 2 starts at the sink with (1, 1) unread on source[1]'s
    channel, so (1, 1) is that channel's input state, once (its later read is not persisted
    again, FLINK-40016's fix), the snapshot's ghost names it, and the cut is consistent; the
    recovered (1, 0) read before is in the operator state.  Flink 2.3.0's
    ``getNextRecoveredBuffer`` persists (1, 1) again: the cut holds it twice."""
    r, started = _checkpoint_during_recovery(UNALIGNED_DURING_RECOVERY)
    sink, c1 = r.t("sink[0]"), r.c("source[1]->sink[0]")
    assert started and started[1][r.m.topo.channels[c1].input_index] == ((1, 1),), "persisted when it started"
    c = r.w.coord.store[-1]
    assert c.id == 2 and c.snapshots[sink].recovered == ((1, 1),) and c.snapshots[sink].processed == ((1, 0),)
    assert ("input channel state of sink[0] on source[1]->sink[0]", ((1, 1),)) in [
        (where, recs) for _, where, recs in channel_state(r.m, c)]
    assert consistent_cut(r.m, r.w) is None
    bad, _ = _checkpoint_during_recovery(_variant("FLINK-40016-recovered-buffers-persisted-twice"))
    why = consistent_cut(bad.m, bad.w)
    assert why and "(split 1, offset 1)" in why and "a restore applies it twice" in why


def test_a_no_op_trigger_before_the_sentinel_declines_counted():
    """The reading ``recovery_trigger_no_op = "after-drain"`` (apache/flink#28554's review): the
    same checkpoint finds no RecoveryCheckpointBarrier on source[1]'s channel, which still holds
    (1, 1); the sink declines it, counted, and the job fails over (tolerable 0)."""
    r = _restored_with_input_and_output_state(_variant("FLIP-547-no-op-before-the-sentinel"))
    sink, c0, c1 = r.t("sink[0]"), r.c("source[0]->sink[0]"), r.c("source[1]->sink[0]")
    r.do(Deliver(c1)).do(TriggerCheckpoint(2)).do(Deliver(c0))
    assert r.w.coord.declined_by_itself == (sink, 2, (1, 1))
    assert r.w.coord.pending == () and r.w.tasks[sink].uc == ()
    assert all(ts.status == FAILED for ts in r.w.tasks), "counted past tolerable_failed_checkpoints 0: a global failover"


def _restarted_aligned(design):
    """keyed-1x1 with one credit (``restart_aligned_scope``): the source's record (0, 0) is
    overtaken by unaligned checkpoint 1's barrier and lies in its channel state; the user
    restarts the job from checkpoint 1 with unaligned checkpoints off."""
    r = Run(FlinkModel(design, restart_aligned_scope()))
    source, c = r.t("source[0]"), r.c("source[0]->sink[0]")
    r.do(EmitRecord(source)).do(TriggerCheckpoint(1)).do(Deliver(c)).acks().notify_all()
    assert [recs for _, _, recs in channel_state(r.m, r.w.coord.store[-1])] == [((0, 0),)]
    return r.do(Rescale(1))


def test_a_job_restarted_with_unaligned_checkpoints_off_restores_channel_state_and_waits_for_its_recovery():
    """``restart_aligned``: the restarted job restores checkpoint 1's channel state although it
    takes aligned checkpoints, and its sink is INITIALIZING until it read the recovered record
    (``restoreStateAndGates`` does not ask the option), so Flink's scheduler triggers nothing: with
    ``isCheckpointingDuringRecoveryEnabled`` requiring unaligned checkpoints (FLINK-40518's fix)
    checkpoints during recovery are off there.  A model that restored no channel state into an
    aligned job, or let the trigger through, fails here."""
    r = _restarted_aligned(UNALIGNED_DURING_RECOVERY)
    sink, c = r.t("sink[0]"), r.c("source[0]->sink[0]")
    new = r.m.at(r.w)
    assert (new.unaligned, new.cdr, r.m.unaligned, r.m.cdr) == (False, False, True, True)
    assert r.w.channels[c] == ((REC, 0, 0, RECOVERED_INPUT),)
    assert new.request_decider.initializing(r.w) == sink
    assert not any(type(a) is TriggerCheckpoint for a in r.m.enabled(r.w))
    r.do(Deliver(c))
    assert r.w.tasks[sink].processed == ((0, 0),) and new.request_decider.initializing(r.w) is None
    r.do(TriggerCheckpoint(2)).do(EmitRecord(r.t("source[0]")))
    assert r.w.channels[c] == ((BARRIER, 2), (REC, 0, 1)), "aligned: FIFO, no priority barrier"
    assert waits_for_recovery(r.m, r.w) is None


def test_before_flink_40518_the_aligned_restart_triggers_a_checkpoint_that_waits_behind_the_recovered_record():
    """``DuringRecoveryWithoutUnaligned`` (the gate before apache/flink#29055): the sink counts
    as RUNNING while it reads its recovered record, so checkpoint 2 is triggered and its aligned
    barrier queues behind the record: no recovery barrier, no decline; it is taken only once the
    record is read."""
    r = _restarted_aligned(_variant("FLINK-40518-aligned-checkpoint-waits-for-recovery"))
    sink, c = r.t("sink[0]"), r.c("source[0]->sink[0]")
    assert r.m.at(r.w).cdr and r.m.at(r.w).request_decider.initializing(r.w) is None
    r.do(TriggerCheckpoint(2))
    assert r.w.channels[c] == ((REC, 0, 0, RECOVERED_INPUT), (BARRIER, 2))
    why = waits_for_recovery(r.m, r.w)
    assert why and why.startswith("checkpoint 2 waits at sink[0] behind recovered record (split 0, offset 0) on"
                                  " source[0]->sink[0]"), why
    assert not any(type(a) is Deliver and a.channel != c for a in r.m.enabled(r.w))
    r.do(Deliver(c)).do(Deliver(c))
    assert waits_for_recovery(r.m, r.w) is None and any(p == (sink, 2) for p in ((t, cp) for t, cp, _ in r.w.acks))


def test_restart_aligned_is_refused_where_it_cannot_mean_anything():
    """One line each: with a rescale, without a restart, with an aligned design."""
    with pytest.raises(ValueError, match="restart_aligned: the restart without unaligned checkpoints is modelled at"):
        restart_aligned_scope().with_(rescale=(("sink", 2),))
    with pytest.raises(ValueError, match=r"restart_aligned: needs scope.max_rescales > 0"):
        restart_aligned_scope().with_(max_rescales=0)
    with pytest.raises(ValueError, match="use an unaligned design"):
        FlinkModel(BASELINE, restart_aligned_scope())
