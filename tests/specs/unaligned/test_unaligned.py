"""Unaligned checkpoints (FLIP-76) and channel state, one scripted run per rule: a model that
blocks channels, acks early, forgets a side of the channel state, or restores it in the wrong
order fails one of these."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT
from ckptcheck.model.actions import (AlignmentTimeout, Decline, Deliver, EmitRecord, EndOfInput, FailTask, LoseNotification, Notify,
                                     Restore, TriggerCheckpoint)
from ckptcheck.model.checkpoint_plan import CheckpointPlanCalculator
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.tx import consumer_end
from ckptcheck.model.world import (BARRIER, CANCEL, EOD, FINISHED, NOTIFY_TRIGGER, REC, RECOVERED_INPUT, RECOVERED_OUTPUT,
                                   RUNNING)
from ckptcheck.specs.designs import BASELINE, UNALIGNED, UNALIGNED_TIMEOUT
from ckptcheck.specs.catalog import CATALOG
from ckptcheck.specs.properties import channel_state, consistent_cut
from ckptcheck.specs.scopes import default_scope_for, scope, unaligned_scope
from ckptcheck.specs.spec import Spec

from conftest import SEARCH_WORKERS
from test_catalog import correct_result
from test_protocol import Run


def model(design=UNALIGNED, job="keyed-2x1", **limits):
    limits.setdefault("max_checkpoints", 2)
    limits.setdefault("records_per_split", 2)
    return FlinkModel(design, scope(job, **limits))


def test_the_consumer_end_holds_recovered_state_then_its_credit_in_records():
    r0, r1, rec = (REC, 0, 0), (REC, 0, 1), (REC, 1, 0, 1)
    assert consumer_end((r0, r1), 0) == 0  # a local channel: everything is in the subpartition
    assert consumer_end((r0, EOD, r1), 1) == 2  # one credit: the first record and the event behind it
    assert consumer_end((rec, r0, r1), 0) == 1  # recovered input state is at the consumer already
    assert consumer_end((EOD,), 0) == 0  # a local channel: an event too stays in the subpartition until polled
    assert consumer_end((EOD,), 1) == 1  # a remote channel: events take no credit


def test_an_unaligned_barrier_overtakes_queued_records_which_become_output_state():
    r = Run(model())
    src, ch = r.t("source[0]"), r.c("source[0]->sink[0]")
    r.do(EmitRecord(src)).do(EmitRecord(src)).do(TriggerCheckpoint(1))
    assert r.w.channels[ch] == ((BARRIER, 1, 1), (REC, 0, 0), (REC, 0, 1)), "priority barrier at the head"
    snap = next(s for t, cp, s in r.w.acks if t == src)
    assert snap.position == 2 and snap.outputs == (((0, 0), (0, 1)),)


def test_with_a_credit_the_barrier_lands_behind_the_received_record_which_becomes_input_state():
    r = Run(model(input_buffers=1))
    src, sink, ch = r.t("source[0]"), r.t("sink[0]"), r.c("source[0]->sink[0]")
    r.do(EmitRecord(src)).do(EmitRecord(src)).do(TriggerCheckpoint(1))
    assert r.w.channels[ch] == ((REC, 0, 0), (BARRIER, 1, 1), (REC, 0, 1))
    assert next(s for t, cp, s in r.w.acks if t == src).outputs == (((0, 1),),)
    assert r.m.enabled(r.w).count(Deliver(ch)) == 1
    r.do(Deliver(ch))  # the priority barrier first: the sink snapshots before reading (0, 0)
    ts = r.w.tasks[sink]
    assert ts.uc and ts.uc[0].processed == () and ts.uc[1][0] == ((0, 0),), "overtaken record is input state"
    assert r.w.channels[ch] == ((REC, 0, 0), (REC, 0, 1)), "and still processed afterwards"


def test_a_task_records_a_channel_until_its_barrier_and_acks_only_then():
    r = Run(model(records_per_split=1))
    sink = r.t("sink[0]")
    c0, c1 = r.c("source[0]->sink[0]"), r.c("source[1]->sink[0]")
    r.do(EmitRecord(r.t("source[1]"))).do(TriggerCheckpoint(1))
    r.do(Deliver(c0))  # barrier from source[0]: snapshot now, nothing blocked
    assert r.w.tasks[sink].uc and not any(t == sink for t, _, _ in r.w.acks), "no ack before every barrier"
    r.do(Deliver(c1))  # barrier from source[1] overtook (1, 0), its output state
    snap = next(s for t, cp, s in r.w.acks if t == sink)
    assert snap.inputs == ((), ()) and snap.processed == ()
    # records read between the first and the last barrier are input state
    r2 = Run(model(records_per_split=1))
    r2.do(TriggerCheckpoint(1)).do(Deliver(c0))
    r2.do(EmitRecord(r2.t("source[1]")))  # after source[1]'s snapshot: behind its barrier
    assert Deliver(c1) in r2.m.enabled(r2.w)
    r2.do(Deliver(c1))  # the barrier: source[1]'s record is behind it, not recorded
    assert next(s for t, cp, s in r2.w.acks if t == sink).inputs == ((), ())


def test_staggered_trigger_rpcs_let_a_later_sources_record_become_input_state():
    """With one trigger RPC per task arriving on its own (``CheckpointCoordinator.triggerTasks``
    sends one ``triggerCheckpointAsync`` per task), the sink can take source[0]'s barrier while
    source[1], not yet triggered, still sends a record ahead of its own barrier: that record
    is processed and recorded as input channel state.  Triggered in one step, both priority
    barriers would head their channels first and no record could be input state."""
    r = Run(model(records_per_split=1, staggered_triggers=True))
    src0, src1, sink = r.t("source[0]"), r.t("source[1]"), r.t("sink[0]")
    c0, c1 = r.c("source[0]->sink[0]"), r.c("source[1]->sink[0]")
    r.do(TriggerCheckpoint(1))
    assert r.w.channels[c0] == () and not r.w.acks, "nothing is snapshotted before an RPC arrives"
    assert [m[:2] for m in r.w.tasks[src0].inbox] == [(NOTIFY_TRIGGER, 1)] == [m[:2] for m in r.w.tasks[src1].inbox]
    assert not any(isinstance(a, LoseNotification) for a in r.m.enabled(r.w)), "trigger RPCs are not lost"
    r.do(Notify(src0, 1, "trigger")).do(Deliver(c0))  # the sink starts its unaligned checkpoint
    assert r.w.tasks[sink].uc
    r.do(EmitRecord(src1)).do(Deliver(c1))  # source[1]'s record, ahead of its barrier
    r.do(Notify(src1, 1, "trigger")).do(Deliver(c1))
    snap = next(s for t, cp, s in r.w.acks if t == sink)
    assert snap.inputs == ((), ((1, 0),)) and snap.processed == ()


def test_a_task_with_a_trigger_rpc_queued_does_not_finish_before_serving_it():
    m = model(records_per_split=0, max_checkpoints=0, staggered_triggers=True)
    r = Run(m)
    src0 = r.t("source[0]")
    r.do(EndOfInput(src0)).do(EndOfInput(r.t("source[1]")))
    r.drain("source[0]->sink[0]").drain("source[1]->sink[0]")  # its consumer processed all its data
    r.do(TriggerCheckpoint(1))  # the final checkpoint
    ts = r.w.tasks[src0]
    assert ts.ended and ts.inbox and not m.task.final_checkpoint_done(ts)
    w = r.w
    tasks = list(w.tasks)
    tasks[src0] = ts._replace(notified=1, final_cp=1)  # as if its final checkpoint were done
    from ckptcheck.model.tx import Tx

    tx = Tx(w._replace(tasks=tuple(tasks)))
    m.task.maybe_finish(tx, src0)
    assert tx.tasks[src0].status != FINISHED, "the queued trigger RPC is served first"


def test_records_read_after_the_snapshot_before_the_channels_barrier_are_input_state():
    # flink-unaligned-timeout: the sink aligns, times out, and then reads source[1]'s record
    # that was queued in front of source[1]'s (aligned) barrier
    r = Run(model(UNALIGNED_TIMEOUT, records_per_split=1))
    sink = r.t("sink[0]")
    c0, c1 = r.c("source[0]->sink[0]"), r.c("source[1]->sink[0]")
    r.do(EmitRecord(r.t("source[1]"))).do(TriggerCheckpoint(1))
    assert r.w.channels[c1] == ((REC, 1, 0), (BARRIER, 1)), "timeoutable barriers travel FIFO"
    r.do(Deliver(c0))
    assert Deliver(c0) not in r.m.enabled(r.w), "aligned: the channel is blocked"
    r.do(AlignmentTimeout(sink, 1))
    assert r.w.tasks[sink].uc, "switched to unaligned"
    r.do(Deliver(c1))  # (1, 0): processed and recorded
    r.do(Deliver(c1))  # the barrier: complete
    snap = next(s for t, cp, s in r.w.acks if t == sink)
    assert snap.inputs == ((), ((1, 0),)) and snap.processed == ()
    assert r.w.tasks[sink].processed == ((1, 0),)


def test_a_timeoutable_barrier_holds_the_ack_until_sent_and_the_senders_timer_makes_it_unaligned():
    r = Run(model(UNALIGNED_TIMEOUT, records_per_split=1))
    src, sink, ch = r.t("source[0]"), r.t("sink[0]"), r.c("source[0]->sink[0]")
    r.do(EmitRecord(src)).do(TriggerCheckpoint(1))
    assert r.w.channels[ch] == ((REC, 0, 0), (BARRIER, 1)), "timeoutable: FIFO"
    assert r.w.tasks[src].sending and not any(t == src for t, _, _ in r.w.acks), "ack waits: barrier still queued"
    # a local channel: source[1]'s barrier at the head is still in its subpartition until the sink polls it
    assert r.w.tasks[r.t("source[1]")].sending and not any(t == r.t("source[1]") for t, _, _ in r.w.acks)
    r.do(Deliver(r.c("source[1]->sink[0]")))  # the sink aligns on source[1]'s barrier
    assert r.w.tasks[r.t("source[1]")].sending == () and any(t == r.t("source[1]") for t, _, _ in r.w.acks)
    r.do(AlignmentTimeout(src, 1))  # the sender's timer: the barrier jumps ahead of (0, 0)
    assert r.w.channels[ch] == ((BARRIER, 1, 1), (REC, 0, 0))
    assert next(s for t, cp, s in r.w.acks if t == src).outputs == (((0, 0),),)
    r.do(Deliver(ch))  # the unaligned barrier switches the sink, and completes its checkpoint
    snap = next(s for t, cp, s in r.w.acks if t == sink)
    assert r.w.tasks[sink].uc == () and snap.processed == () and snap.inputs == ((), ())
    # without the timer the ack goes once the sink polled the barrier, after the record in front of it
    r2 = Run(model(UNALIGNED_TIMEOUT, records_per_split=1))
    r2.do(EmitRecord(src)).do(TriggerCheckpoint(1)).do(Deliver(ch))
    assert r2.w.tasks[src].sending, "the barrier is at the head of the subpartition, not polled yet"
    r2.do(Deliver(ch))
    assert r2.w.tasks[src].sending == () and next(s for t, cp, s in r2.w.acks if t == src).outputs == ((),)


def test_the_timer_counts_from_the_start_and_fires_on_an_announced_barrier_which_jumps_the_queued_record():
    """One input channel, so the sink never aligns: only a timer started by the barrier's
    announcement (a remote channel, ``input_buffers`` 1) can make its side unaligned, and then
    the announced barrier jumps the record in front of it, which is input channel state and is
    read after the snapshot without being persisted twice."""
    r = Run(model(UNALIGNED_TIMEOUT, job="keyed-1x1", max_checkpoints=1, input_buffers=1))
    src, sink, ch = r.t("source[0]"), r.t("sink[0]"), r.c("source[0]->sink[0]")
    r.do(EmitRecord(src)).do(EmitRecord(src)).do(TriggerCheckpoint(1))
    assert r.w.channels[ch] == ((REC, 0, 0), (REC, 0, 1), (BARRIER, 1))
    assert AlignmentTimeout(sink, 1) not in r.m.enabled(r.w), "the barrier is still in the subpartition: not announced"
    r.do(Deliver(ch))  # (0, 0) read: (0, 1) and the barrier behind it reach the input channel
    assert r.w.tasks[src].sending == (), "the barrier left the subpartition: the source acknowledged"
    assert AlignmentTimeout(sink, 1) in r.m.enabled(r.w), "announced: the timer runs"
    r.do(AlignmentTimeout(sink, 1))
    snap = next(s for t, cp, s in r.w.acks if t == sink)
    assert snap.inputs == (((0, 1),),) and snap.processed == ((0, 0),), "the jumped record is input channel state"
    assert r.w.channels[ch] == ((REC, 0, 1),)
    r.do(Deliver(ch))
    assert r.w.tasks[sink].processed == ((0, 0), (0, 1)) and r.w.tasks[sink].uc == ()
    # a local channel announces nothing: the single-channel sink reads the barrier aligned
    r2 = Run(model(UNALIGNED_TIMEOUT, job="keyed-1x1", max_checkpoints=1, input_buffers=0))
    r2.do(EmitRecord(src)).do(TriggerCheckpoint(1)).do(Deliver(ch))
    assert r2.w.channels[ch] == ((BARRIER, 1),) and AlignmentTimeout(sink, 1) not in r2.m.enabled(r2.w)


def test_the_announcement_scope_holds_and_hits_the_announcement_witness_which_the_local_channel_scopes_cannot():
    from ckptcheck.specs.scopes import announcement_scope, default_scopes_for
    r = check(UNALIGNED_TIMEOUT, announcement_scope())
    assert r.complete and r.ok, [v.reason for v in r.violated]
    assert r.verdict("a-timer-fires-on-an-announcement").status == HIT
    assert "sink[0]'s alignment timer for checkpoint 1 fired" in r.verdict("a-timer-fires-on-an-announcement").reason
    assert r.stats["states"] == 37_149
    scopes = default_scopes_for(UNALIGNED_TIMEOUT)
    others = scopes[:scopes.index(announcement_scope())]
    assert all(s.input_buffers == 0 for s in others), "the scopes before it have local channels only"


def _restored_with_input_and_output_state(design=UNALIGNED, **limits) -> Run:
    """keyed-2x1 with one credit: checkpoint 1 holds the sink's input state (1, 0) and
    source[1]'s output state (1, 1), both on source[1]->sink[0]; the sink fails and the job is
    restored from it (``design``: stock ``flink-unaligned`` unless given)."""
    r = Run(model(design, records_per_split=3, max_checkpoints=3, max_failures=1, input_buffers=1, **limits))
    s1, sink = r.t("source[1]"), r.t("sink[0]")
    c0, c1 = r.c("source[0]->sink[0]"), r.c("source[1]->sink[0]")
    r.do(EmitRecord(s1)).do(EmitRecord(s1)).do(TriggerCheckpoint(1))
    for t in (r.t("source[0]"), s1) if limits.get("staggered_triggers") else ():
        r.do(Notify(t, 1, "trigger"))
    r.do(Deliver(c0))  # the sink's first barrier: it records source[1]'s channel until that barrier
    r.do(Deliver(c1)).do(Deliver(c1))  # (1, 0), read behind the credit: input state; then the barrier
    r.acks().notify_all()
    assert [(where, recs) for _, where, recs in channel_state(r.m, r.w.coord.store[-1])] == [
        ("input channel state of sink[0] on source[1]->sink[0]", ((1, 0),)),
        ("output channel state of source[1] on source[1]->sink[0]", ((1, 1),))]
    assert consistent_cut(r.m, r.w) is None
    r.do(FailTask(sink)).do(Restore(1))
    return r


def test_recovery_on_the_downstream_reads_the_producers_output_state_as_recovered_input():
    """``recover_output_on_downstream`` (Flink 2.3.0, FLINK-38542): the same restore gives
    source[1]'s output state (1, 1) to the sink as recovered input, behind its own input state;
    the sink reads both before any new record, while it is still recovering its input (so a
    trigger would find it INITIALIZING), and no re-sent phase follows."""
    r = _restored_with_input_and_output_state(UNALIGNED.with_(name="recover-downstream", recover_output_on_downstream=True))
    stock = _restored_with_input_and_output_state()
    s0, s1, sink = r.t("source[0]"), r.t("source[1]"), r.t("sink[0]")
    c0, c1 = r.c("source[0]->sink[0]"), r.c("source[1]->sink[0]")
    assert r.m.assignment.output_state_marker() == RECOVERED_INPUT != stock.m.assignment.output_state_marker()
    assert r.w.channels[c1] == ((REC, 1, 0, RECOVERED_INPUT), (REC, 1, 1, RECOVERED_INPUT)), "both read as recovered input"
    r.do(EmitRecord(s1)).do(EmitRecord(s0))
    delivers = lambda: [a for a in r.m.enabled(r.w) if type(a) is Deliver]  # noqa: E731
    assert r.m.network_input.recovery_phase(r.w.channels, sink) == RECOVERED_INPUT
    r.do(Deliver(c1))
    assert r.m.network_input.is_recovering(r.w.channels, sink), "the producer's output state is still recovered input"
    assert delivers() == [Deliver(c1)]
    r.do(Deliver(c1))
    assert r.w.tasks[sink].processed == ((1, 0), (1, 1))
    assert r.m.network_input.recovery_phase(r.w.channels, sink) == 0, "no re-sent phase"
    assert set(delivers()) == {Deliver(c0), Deliver(c1)}


def test_a_restore_puts_input_state_before_output_state_before_new_data():
    r = _restored_with_input_and_output_state()
    s0, s1, sink = r.t("source[0]"), r.t("source[1]"), r.t("sink[0]")
    c0, c1 = r.c("source[0]->sink[0]"), r.c("source[1]->sink[0]")
    assert r.w.channels[c1] == ((REC, 1, 0, RECOVERED_INPUT), (REC, 1, 1, RECOVERED_OUTPUT)), "input, then output state"
    assert r.w.tasks[s1].position == 2, "the source resumes after the records its output state holds"
    r.do(EmitRecord(s1)).do(EmitRecord(s0))  # new data on both channels of the gate
    assert r.w.channels[c1][2:] == ((REC, 1, 2),) and r.w.channels[c0] == ((REC, 0, 0),)
    delivers = lambda: [a for a in r.m.enabled(r.w) if type(a) is Deliver]  # noqa: E731
    assert delivers() == [Deliver(c1)], "recovered input state first, no new record on any channel"
    r.do(Deliver(c1))
    assert r.w.tasks[sink].processed == ((1, 0),)
    assert delivers() == [Deliver(c1)], "then the re-sent output state, still before any new record"
    r.do(Deliver(c1))
    assert r.w.tasks[sink].processed == ((1, 0), (1, 1))
    assert set(delivers()) == {Deliver(c0), Deliver(c1)}, "new data only once every channel is recovered"


class TriggersEveryRunningTask(CheckpointPlanCalculator):
    """A plan that sends the trigger RPC to every running task.  Flink's plan
    (``tasks_to_trigger``) reaches a task with inputs only once its upstreams finished, and they
    finish only after it read their EndOfData, which is behind its recovered input: with the
    stock plan no trigger reaches a recovering task, so this one makes it, to reach the
    FLINK-20654 rule."""

    def tasks_to_trigger(self, tasks: tuple) -> tuple[list[int], int, int]:
        _, waiting, finished = super().tasks_to_trigger(tasks)
        return [t for t, ts in enumerate(tasks) if ts.status == RUNNING], waiting, finished


@pytest.mark.parametrize("staggered", [False, True], ids=["trigger-in-plan", "trigger-rpc"])
def test_a_task_reading_recovered_input_declines_a_trigger_meanwhile(staggered):
    """FLINK-20654 (``CHECKPOINT_DECLINED_TASK_NOT_READY``): a trigger reaching the restored sink
    while it still reads recovered input is declined, uncounted, and the checkpoint aborts; once
    the recovered input is read the same trigger is taken.  Both ways a trigger arrives: in the
    coordinator's step (``trigger_tasks``) and as a staggered RPC (``StreamTask.on_trigger_rpc``)."""
    r = _restored_with_input_and_output_state(staggered_triggers=staggered)
    r.m = FlinkModel(UNALIGNED.with_(name="triggers-every-running-task", checkpoint_plan=TriggersEveryRunningTask),
                     r.m.scope)  # the same world, a plan that reaches the sink
    sink, c1 = r.t("sink[0]"), r.c("source[1]->sink[0]")

    def trigger(cp: int) -> None:
        r.do(TriggerCheckpoint(cp))
        for t in range(len(r.w.tasks)) if staggered else ():
            r.do(Notify(t, cp, "trigger"))

    assert r.m.network_input.is_recovering(r.w.channels, sink)
    trigger(2)
    assert r.w.coord.pending == (), "declined: checkpoint 2 aborted"
    assert r.w.coord.failed_count == 0 and r.w.used.declines == 0, "uncounted, and no Decline fault spent"
    assert r.w.tasks[sink].uc == () and r.w.tasks[sink].aligning == 0, "the sink took no snapshot"
    assert r.w.channels[c1][:2] == ((REC, 1, 0, RECOVERED_INPUT), (REC, 1, 1, RECOVERED_OUTPUT))
    r.notify_all()
    while r.m.network_input.is_recovering(r.w.channels, sink):  # the aborted checkpoint's priority barrier, then (1, 0)
        r.do(Deliver(c1))
    trigger(3)
    assert [p.id for p in r.w.coord.pending] == [3], "read its recovered input: the sink takes the trigger"
    assert any(t == sink and cp == 3 for t, cp, _ in r.w.acks)


def test_a_restore_resends_output_state_before_new_records():
    r = Run(model(records_per_split=2, max_failures=1))
    src, ch = r.t("source[0]"), r.c("source[0]->sink[0]")
    r.do(EmitRecord(src)).do(TriggerCheckpoint(1)).do(Deliver(ch)).do(Deliver(r.c("source[1]->sink[0]")))
    r.acks().notify_all()
    assert r.w.coord.store[-1].snapshots[src].outputs == (((0, 0),),)
    r.do(FailTask(src)).do(Restore(1))
    assert r.w.channels[ch] == ((REC, 0, 0, RECOVERED_OUTPUT),) and r.w.tasks[src].position == 1
    r.do(EmitRecord(src))
    assert r.w.channels[ch] == ((REC, 0, 0, RECOVERED_OUTPUT), (REC, 0, 1)), "output state first, then new records"


def test_no_new_record_on_any_channel_of_a_gate_until_every_channel_delivered_its_resent_output():
    """FLINK-19856 (``UpstreamRecoveryTracker``): source[1]'s new record waits behind source[0]'s
    re-sent output state, on another channel of the sink's gate."""
    r = Run(model(records_per_split=2, max_failures=1))
    s0, s1 = r.t("source[0]"), r.t("source[1]")
    c0, c1 = r.c("source[0]->sink[0]"), r.c("source[1]->sink[0]")
    r.do(EmitRecord(s0)).do(TriggerCheckpoint(1)).do(Deliver(c0)).do(Deliver(c1))
    r.acks().notify_all()
    r.do(FailTask(s0)).do(Restore(1))
    r.do(EmitRecord(s1))
    assert r.w.channels[c0] == ((REC, 0, 0, RECOVERED_OUTPUT),) and r.w.channels[c1] == ((REC, 1, 0),)
    enabled = r.m.enabled(r.w)
    assert Deliver(c0) in enabled and Deliver(c1) not in enabled, "the gate is still recovering"
    r.do(Deliver(c0))
    assert Deliver(c1) in r.m.enabled(r.w), "every channel delivered its re-sent state: the gate resumes"


def test_a_node_that_had_to_align_sends_unaligned_barriers_again_on_its_keyed_output():
    """Reference-flink-uc A.5 step 3: the map aligns on its forward input (FORCED_ALIGNED), then
    ``withUnalignedSupported`` makes its own barrier on the keyBy edge a priority one, which
    overtakes the record queued there; that record is the map's output channel state."""
    r = Run(model(job="three-stage-2x2x1", records_per_split=1))
    s0, m0 = r.t("source[0]"), r.t("map[0]")
    c_in, c_out = r.c("source[0]->map[0]"), r.c("map[0]->sink[0]")
    r.do(EmitRecord(s0)).do(Deliver(c_in)).do(TriggerCheckpoint(1))
    assert r.w.channels[c_in] == ((BARRIER, 1),), "a forward edge: FORCED_ALIGNED, FIFO"
    r.do(Deliver(c_in))
    assert r.w.channels[c_out] == ((BARRIER, 1, 1), (REC, 0, 0)), "the keyBy edge: a priority barrier ahead of the record"
    assert next(s for t, cp, s in r.w.acks if t == m0).outputs == (((0, 0),),)


def test_one_channel_restores_the_consumers_input_state_before_the_producers_output_state():
    r = Run(model(input_buffers=1, max_failures=1))
    src, ch = r.t("source[0]"), r.c("source[0]->sink[0]")
    r.do(EmitRecord(src)).do(EmitRecord(src)).do(TriggerCheckpoint(1))
    r.do(Deliver(ch)).do(Deliver(r.c("source[1]->sink[0]")))  # both barriers: (0, 0) input, (0, 1) output state
    r.acks().notify_all()
    r.do(FailTask(src)).do(Restore(1))
    assert r.w.channels[ch] == ((REC, 0, 0, RECOVERED_INPUT), (REC, 0, 1, RECOVERED_OUTPUT)), "input state, then output state"


def test_a_cancellation_marker_aborts_the_alignment_declines_and_is_forwarded():
    tolerant = BASELINE.with_(name="tolerant", tolerable_failed_checkpoints=1)  # a decline aborts, no failover
    r = Run(FlinkModel(tolerant, scope("three-stage", records_per_split=0, max_checkpoints=2, max_declines=1)))
    sink = r.t("sink[0]")
    r.do(TriggerCheckpoint(1)).do(Decline(r.t("source[0]"), 1))
    r.notify_all()  # the maps learn that checkpoint 1 aborted before its barrier reaches them
    r.drain("source[1]->map[1]")  # map[1] skips the snapshot and sends a CancelCheckpointMarker
    assert r.w.channels[r.c("map[1]->sink[0]")] == ((CANCEL, 1),)
    r.drain("map[1]->sink[0]")
    assert r.w.tasks[sink].last_barrier == 1 and r.w.tasks[sink].aligning == 0
    r.drain("source[0]->map[0]").drain("map[0]->sink[0]")
    assert not any(t == sink for t, _, _ in r.w.acks), "no snapshot of an aborted checkpoint"


def test_the_whole_node_aligns_when_one_input_edge_cannot_take_unaligned_barriers():
    m = FlinkModel(UNALIGNED, scope("three-stage", records_per_split=1, max_checkpoints=1))
    topo = m.topo
    assert m.uc_inputs[topo.task_id("map[0]")] is False, "forward input: map aligns"
    assert m.uc_inputs[topo.task_id("sink[0]")] is True
    r = Run(m)
    r.do(TriggerCheckpoint(1))
    assert r.w.channels[r.c("source[0]->map[0]")] == ((BARRIER, 1),), "FORCED_ALIGNED: FIFO, no priority"


# Golden distinct-state counts of small unaligned scopes (keyed-2x1, one record per split, no
# checkpoint before end of input): any change to the unaligned semantics moves them.
UC_GOLDEN = [
    (UNALIGNED, dict(), 3812),
    (UNALIGNED_TIMEOUT, dict(), 13065),
    (UNALIGNED, dict(max_failures=1), 45463),
    pytest.param(UNALIGNED_TIMEOUT, dict(max_failures=1), 175188, marks=pytest.mark.claims),
]


@lru_cache(maxsize=None)
def _run(design, sc):
    """One exhaustive search per (design, scope) for the tests below."""
    return check(design, sc, workers=SEARCH_WORKERS)


def _uc_scope(**limits):
    base = dict(records_per_split=1, max_checkpoints=0, max_failures=0, max_declines=0, max_timeouts=0,
                max_lost_notifications=0)
    return scope("keyed-2x1", **{**base, **limits})


@pytest.mark.parametrize("design, limits, states", UC_GOLDEN,
                         ids=["unaligned", "timeout", "unaligned-failure", "timeout-failure"])
def test_golden_state_counts_of_unaligned_scopes(design, limits, states):
    r = _run(design, _uc_scope(**limits))
    assert r.complete and r.ok, [v.reason for v in r.violated]
    assert r.stats["states"] == states


def test_every_unaligned_witness_is_reached_in_small_scopes():
    """Each mechanism of the unaligned path is reached somewhere in the default run (the
    default scopes, which reach them together, run in the deep run)."""
    hit: dict[str, set] = {}
    runs = [(UNALIGNED, _uc_scope(max_failures=1)), (UNALIGNED_TIMEOUT, _uc_scope())]
    for design, sc in runs:
        r = _run(design, sc)
        hit[design.name] = {v.property for v in r.verdicts if v.status == HIT}
    # the scope of a catalog entry (an input channel with one buffer), searched once for both
    e = next(x for x in CATALOG if x.name == "uc-ack-at-first-barrier")
    hit["catalog"] = {v.property for v in correct_result(e.correct.name, repr(e.scope)).verdicts if v.status == HIT}
    assert {"a-barrier-overtakes-a-record", "output-channel-state-recorded", "channel-state-restored"} <= hit["flink-unaligned"]
    assert {"switch-to-unaligned", "input-channel-state-recorded", "output-channel-state-recorded"} <= hit["flink-unaligned-timeout"]
    assert "input-channel-state-recorded" in hit["catalog"]


def test_the_default_scope_of_an_unaligned_design_is_the_unaligned_one():
    assert default_scope_for(UNALIGNED) == unaligned_scope() == default_scope_for(UNALIGNED_TIMEOUT)
    sc = unaligned_scope()
    assert sc.job_name == "keyed-2x1" and sc.max_failures == 1 and sc.max_declines == 1


def test_unaligned_designs_refuse_symmetry_reduction():
    assert Spec(UNALIGNED, scope("forward-2x2", max_checkpoints=1), symmetry=True).permutations == []


def test_records_of_a_split_share_keys_only_where_the_scope_says_so():
    from ckptcheck.model.partitioner import record_key, record_key_group

    assert [record_key(1, o) for o in range(3)] == [1000, 1001, 1002]  # each record its own key
    assert [record_key(1, o, 1) for o in range(3)] == [1000, 1000, 1000]  # one key per split
    assert [record_key(1, o, 2) for o in range(4)] == [1000, 1001, 1000, 1001]
    # one key: the whole split goes to one key group, hence one subtask of a keyed vertex
    assert len({record_key_group(1, o, 128, 1) for o in range(5)}) == 1
    assert len({record_key_group(1, o, 128) for o in range(5)}) > 1


def test_per_key_order_holds_in_flink_and_names_the_overtaken_record():
    """The property holds for aligned and unaligned checkpoints across a failure and restore,
    exhaustively; on a world where the later record of a key is held without the earlier one
    it names both."""
    sc = scope("keyed-1x1", records_per_split=2, max_checkpoints=1, max_failures=1, max_declines=0, max_timeouts=0,
               max_lost_notifications=0, input_buffers=1, keys_per_split=1)
    for design in (BASELINE, UNALIGNED):
        r = check(design, sc, workers=1)
        assert r.complete and r.ok and r.verdict("per-key-order").status == "holds", design.name
    m = FlinkModel(UNALIGNED, sc)
    from ckptcheck.specs.properties import per_key_order

    w = m.initial()
    sink = m.topo.tasks_of[1][0]
    tasks = list(w.tasks)
    tasks[sink] = tasks[sink]._replace(processed=((0, 1),))
    assert per_key_order(m, w._replace(tasks=tuple(tasks))) == (
        "sink[0] holds record (split 0, offset 1) but not the earlier record (split 0, offset 0) of the same key"
        " (0): the key's records were not processed in source order")
    own_keys = FlinkModel(UNALIGNED, replace(sc, keys_per_split=0))
    assert per_key_order(own_keys, w._replace(tasks=tuple(tasks))) is None  # each record its own key


def test_a_single_input_switches_to_unaligned_only_by_the_senders_timer():
    """A consumer with one input channel never aligns, so its checkpoint goes unaligned only
    when the producer's timer fires with the timeoutable barrier still queued behind a record
    (FLINK-27251): the witness names that switch.  (It counted only a consumer's switch
    during alignment before, so one-input scopes never hit it.)"""
    sc = scope("keyed-1x1", records_per_split=2, max_checkpoints=1, max_failures=0, max_declines=0, max_timeouts=0,
               max_lost_notifications=0, channel_capacity=1)
    r = check(UNALIGNED_TIMEOUT, sc)
    assert r.complete and r.ok
    v = r.verdict("switch-to-unaligned")
    assert v.status == HIT and "sender timer switched checkpoint 1" in v.reason and "jumped ahead of record" in v.reason
    assert type(v.trace[-1]) is AlignmentTimeout


def test_recovery_on_the_downstream_holds_in_the_rescaled_recovery_scope_and_hits_its_witness():
    """The rescaled recovery scope (the sink rescaled 1 -> 2 from a checkpoint with output state):
    with ``recover_output_on_downstream`` every property holds, a rescaled sink reads source[0]'s
    output state as recovered input (the witness), and the state count is below the stock
    preset's 350,179 (no re-sent phase); the witnesses of the re-sent phase do not apply."""
    from ckptcheck.checks.run.api import NOT_APPLICABLE
    from ckptcheck.specs.scopes import rescaled_recovery_scope

    design = UNALIGNED.with_(name="recover-downstream", recover_output_on_downstream=True)
    r = check(design, rescaled_recovery_scope())
    assert not [v.property for v in r.verdicts if v.failed]
    assert r.stats["states"] == 346_613
    w = r.verdict("output-state-recovered-downstream")
    assert w.status == HIT and "output channel state with its recovered input" in w.reason
    from ckptcheck.specs.properties import BASELINE_PROPERTIES
    from ckptcheck.specs.scopes import unaligned_scope

    resent = [p for p in BASELINE_PROPERTIES if p.name in ("a-gate-waits-for-resent-output", "a-barrier-passes-the-end-of-resent-state")]
    assert len(resent) == 2 and all(p.applies(UNALIGNED, unaligned_scope()) and not p.applies(design, unaligned_scope()) for p in resent)
    assert check(UNALIGNED, rescaled_recovery_scope()).verdict("output-state-recovered-downstream").status == NOT_APPLICABLE
