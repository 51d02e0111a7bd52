"""``Scope.suspend_on_failure``: Flink 2.3's checkpoint scheduler, which stops while an execution
is not RUNNING (``ExecutionTrackingCheckpointCoordinatorDeActivator``): a failure aborts the
pending checkpoints at once, uncounted, and nothing is triggered while a restored subtask still
reads its recovered input channel state (rows N7 and N8)."""

from __future__ import annotations

from ckptcheck.checks.run.api import check
from ckptcheck.checks.cli.main import main
from ckptcheck.checks.run.results import HIT, NOT_APPLICABLE
from ckptcheck.model.actions import Deliver, EmitRecord, FailTask, Restore, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import NOTIFY_ABORT, RECOVERED_INPUT
from ckptcheck.specs.designs import BASELINE, UNALIGNED
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.scopes import scope

from conftest import SEARCH_WORKERS
from test_protocol import Run

def _failed_with_checkpoint_pending(suspend: bool) -> Run:
    """forward-2x2 (two pipelined regions), checkpoint 1 triggered and snapshotted by every
    subtask, its acknowledgements still on their way, then source[0] fails: its region is
    cancelled, the other region runs on."""
    m = FlinkModel(BASELINE, scope("forward-2x2", records_per_split=1, max_checkpoints=1, max_failures=1,  # region failover
                                   max_declines=0, max_timeouts=0, max_lost_notifications=0, suspend_on_failure=suspend))
    r = Run(m)
    r.do(TriggerCheckpoint(1)).drain("source[0]->sink[0]").drain("source[1]->sink[1]")
    assert len(r.w.acks) == 4
    r.do(FailTask(r.t("source[0]")))
    return r


def test_a_failure_aborts_the_pending_checkpoint_uncounted_and_tells_the_region_still_running():
    r = _failed_with_checkpoint_pending(suspend=True)
    assert r.w.coord.pending == (), "stopCheckpointScheduler aborts every pending checkpoint"
    assert r.w.coord.failed_count == 0, "CHECKPOINT_COORDINATOR_SUSPEND is not counted"
    survivor = r.w.tasks[r.t("source[1]")]
    assert [m[:2] for m in survivor.inbox] == [(NOTIFY_ABORT, 1)], "the running region is told"
    assert r.w.tasks[r.t("source[0]")].inbox == (), "the failed region cannot be"
    assert [t for t, _, _ in r.w.acks] == [r.t("source[1]"), r.t("sink[1]")], "the failed region's acks are dropped"
    r.acks()  # the others arrive and are discarded
    assert r.w.coord.store == ()


def test_without_the_option_the_pending_checkpoint_waits_for_the_restore_and_may_complete():
    r = _failed_with_checkpoint_pending(suspend=False)
    assert [p.id for p in r.w.coord.pending] == [1]
    assert all(m[0] != NOTIFY_ABORT for m in r.w.tasks[r.t("source[1]")].inbox)
    r.acks()  # the acks sent before the failure still count
    assert [c.id for c in r.w.coord.store] == [1], "a checkpoint completes between a failure and its restore"


def _restored_with_input_state(suspend: bool) -> Run:
    """keyed-1x1 with one buffer in the sink's input channel: checkpoint 1's priority barrier
    overtakes the buffered record, which becomes the sink's input channel state; the
    checkpoint completes, the sink fails and is restored with it."""
    m = FlinkModel(UNALIGNED, scope("keyed-1x1", records_per_split=2, max_checkpoints=2, max_failures=1,
                                    max_declines=0, max_timeouts=0, max_lost_notifications=0, input_buffers=1,
                                    suspend_on_failure=suspend))
    r = Run(m)
    src, ch = r.t("source[0]"), r.c("source[0]->sink[0]")
    r.do(EmitRecord(src)).do(EmitRecord(src)).do(TriggerCheckpoint(1)).do(Deliver(ch)).acks()
    assert [c.id for c in r.w.coord.store] == [1]
    r.do(FailTask(r.t("sink[0]"))).do(Restore(1))
    assert r.m.network_input.recovery_phase(r.w.channels, r.t("sink[0]")) == RECOVERED_INPUT
    return r


def test_nothing_is_triggered_while_a_restored_subtask_reads_its_recovered_input():
    r = _restored_with_input_state(suspend=True)
    assert TriggerCheckpoint(2) not in r.m.enabled(r.w), "the sink is INITIALIZING"
    assert r.m.request_decider.initializing(r.w) == r.t("sink[0]")
    r.do(Deliver(r.c("source[0]->sink[0]")))  # the recovered record
    assert r.m.request_decider.initializing(r.w) is None
    assert TriggerCheckpoint(2) in r.m.enabled(r.w), "RUNNING again: the scheduler starts"


def test_without_the_option_a_checkpoint_is_triggered_while_the_sink_initializes():
    r = _restored_with_input_state(suspend=False)
    r.do(TriggerCheckpoint(2))
    assert [p.id for p in r.w.coord.pending] == [2]
    assert r.m.request_decider.initializing(r.w) == r.t("sink[0]")


# keyed-1x1 with a buffered input channel, one record, one checkpoint, one failure: the smallest
# scope where both witnesses are hit; the option removes the runs in which a checkpoint completes
# after a failure or is triggered while the restored sink initializes
SMALL = dict(records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=0, max_timeouts=0,
             max_lost_notifications=0, input_buffers=1)


def test_golden_counts_with_and_without_the_suspension_and_its_witnesses():
    on = check(UNALIGNED, scope("keyed-1x1", suspend_on_failure=True, **SMALL), workers=SEARCH_WORKERS)
    off = check(UNALIGNED, scope("keyed-1x1", **SMALL), workers=SEARCH_WORKERS)
    assert on.complete and on.ok and off.complete and off.ok
    assert (on.stats["states"], off.stats["states"]) == (3773, 4970)
    status = {v.property: v.status for v in on.verdicts}
    assert status["a-failure-aborts-the-pending-checkpoint"] == HIT
    assert status["a-trigger-waits-for-an-initializing-task"] == HIT
    assert status["a-checkpoint-completes-before-the-restore"] == NOT_APPLICABLE
    assert {v.property: v.status for v in off.verdicts}["a-checkpoint-completes-before-the-restore"] == HIT


def test_the_catalogs_scheduler_flaw_needs_the_option():
    """``scheduler-waits-for-finished-tasks`` (a deactivator that counts FINISHED as stopped)
    hangs a bounded job only where the scope models Flink 2.3's scheduler; without the option
    the same design holds in the same scope (the catalog test finds it with the option)."""
    e = entry("scheduler-waits-for-finished-tasks")
    assert e.scope.suspend_on_failure
    off = check(e.design, e.scope.with_(suspend_on_failure=False), workers=SEARCH_WORKERS)
    assert off.complete and off.ok


def test_the_option_is_refused_on_a_job_with_a_blocking_edge(capsys):
    """Flink installs the execution-tracking deactivator only in a job without BLOCKING outputs:
    one line, exit 2, before any search."""
    code = main(["check", "--design", "flink-baseline", "--job", "end-of-stream-partition", "--suspend-on-failure"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "suspend_on_failure" in err[0] and "BLOCKING" in err[0], err
