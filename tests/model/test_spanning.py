"""Records that straddle two buffers (``Scope.spanning_records``): a consumer's deserializer holds
a record's head while its tail is still queued, so a checkpoint can hold the record in two parts
(UC note A.6 step 1) that a restore must put back together.  Each scripted run fails
on a model that records the parts on the wrong side, counts them twice, or joins them across
virtual channels; the search tests fail on one that cannot tell FLINK-35351 from the fix."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT
from ckptcheck.model.actions import Deliver, EmitRecord, Notify, ReadHead, TriggerCheckpoint
from ckptcheck.model.assignment import RestoreFailure, StateAssignmentOperation
from ckptcheck.model.protocol import FlinkModel, scope_conflict
from ckptcheck.model.tx import consumer_end
from ckptcheck.model.world import BARRIER, HEAD_READ, PART_HEAD, PART_TAIL, REC, RECOVERED_OUTPUT
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.designs import BASELINE, UNALIGNED, UNALIGNED_TIMEOUT
from ckptcheck.specs.properties import channel_state
from ckptcheck.specs.scopes import scope, spanning_records_scope

from test_protocol import Run


def spanning(job="keyed-1x1", **limits) -> FlinkModel:
    limits = {"records_per_split": 2, "max_checkpoints": 1, "max_failures": 0, "max_declines": 0, "max_timeouts": 0,
              "max_lost_notifications": 0, "spanning_records": True, **limits}
    return FlinkModel(UNALIGNED, scope(job, **limits))


def split_checkpoint() -> Run:
    """keyed-1x1 with local channels: the sink reads the head of (0, 0), then the source's
    priority barrier overtakes the tail, and the sink snapshots on it."""
    r = Run(spanning())
    src, ch = r.t("source[0]"), r.c("source[0]->sink[0]")
    r.do(EmitRecord(src)).do(EmitRecord(src))
    assert ReadHead(ch) in r.m.enabled(r.w), "a plain record at the head of the channel can be read in part"
    r.do(ReadHead(ch))
    assert r.w.channels[ch][0] == (REC, 0, 0, HEAD_READ)
    assert ReadHead(ch) not in r.m.enabled(r.w), "the deserializer holds one partial record at a time"
    r.do(TriggerCheckpoint(1))
    return r


def test_a_partly_read_record_has_its_tail_in_the_subpartition():
    head, r1 = (REC, 0, 0, HEAD_READ), (REC, 0, 1)
    assert consumer_end((head, r1), 0) == 0
    assert consumer_end((head, r1), 2) == 0, "credit does not reach past a record whose tail is still queued"
    assert consumer_end(((REC, 0, 0), r1), 1) == 1


def test_the_barrier_overtakes_the_tail_and_the_head_is_the_first_input_state_entry():
    r = split_checkpoint()
    src, sink, ch = r.t("source[0]"), r.t("sink[0]"), r.c("source[0]->sink[0]")
    assert r.w.channels[ch] == ((BARRIER, 1, 1), (REC, 0, 0, HEAD_READ), (REC, 0, 1))
    out = next(s for t, cp, s in r.w.acks if t == src).outputs
    assert out == (((0, 0, PART_TAIL), (0, 1)),), "the tail and the queued record are output state"
    r.do(Deliver(ch))  # the priority barrier: the sink snapshots with its deserializer's partial record
    snap = next(s for t, cp, s in r.w.acks if t == sink)
    assert snap.inputs == (((0, 0, PART_HEAD),),) and (0, 0) not in snap.processed
    r.do(Deliver(ch))  # the tail arrives: the record is processed after the snapshot
    assert (0, 0) in r.w.tasks[sink].processed and r.w.channels[ch] == ((REC, 0, 1),)


def test_a_split_record_counts_once_and_a_restore_joins_it_behind_the_recovered_input():
    r = split_checkpoint()
    ch = r.c("source[0]->sink[0]")
    r.do(Deliver(ch)).acks()
    (c,) = [x for x in r.w.coord.store if x.id == 1]
    held = [recs for _, _, recs in channel_state(r.m, c)]
    assert sorted(x for recs in held for x in recs) == [(0, 0), (0, 1)], "head and tail are one record"
    restored = r.m.assignment.channel_state(c)[ch]
    assert restored == ((REC, 0, 0, RECOVERED_OUTPUT), (REC, 0, 1, RECOVERED_OUTPUT)), (
        "the record is whole again and completes when the re-sent output arrives")


def _head_read_during_the_checkpoint() -> Run:
    """keyed-2x1 with staggered triggers: the sink starts its unaligned checkpoint on source[1]'s
    barrier; source[0], not yet triggered, emits (0, 0) and the sink reads its head while that
    channel's barrier is pending."""
    r = Run(spanning(job="keyed-2x1", records_per_split=1, staggered_triggers=True))
    s0, s1, sink = r.t("source[0]"), r.t("source[1]"), r.t("sink[0]")
    c0, c1 = r.c("source[0]->sink[0]"), r.c("source[1]->sink[0]")
    r.do(TriggerCheckpoint(1)).do(Notify(s1, 1, "trigger")).do(Deliver(c1))
    assert r.w.tasks[sink].uc, "the sink's unaligned checkpoint is under way"
    r.do(EmitRecord(s0)).do(ReadHead(c0))
    i = r.m.topo.channels[c0].input_index
    assert r.w.tasks[sink].uc[1][i] == ((0, 0, PART_HEAD),), "the polled head buffer is persisted"
    return r


def test_a_head_read_during_the_checkpoint_is_persisted_and_its_tail_then_overtaken_is_output_state():
    r = _head_read_during_the_checkpoint()
    s0, sink, c0 = r.t("source[0]"), r.t("sink[0]"), r.c("source[0]->sink[0]")
    r.do(Notify(s0, 1, "trigger"))  # source[0]'s priority barrier goes ahead of the tail
    assert r.w.channels[c0] == ((BARRIER, 1, 1), (REC, 0, 0, HEAD_READ))
    assert next(s for t, cp, s in r.w.acks if t == s0).outputs == (((0, 0, PART_TAIL),),)
    r.do(Deliver(c0))
    snap = next(s for t, cp, s in r.w.acks if t == sink)
    assert snap.inputs[r.m.topo.channels[c0].input_index] == ((0, 0, PART_HEAD),)


def test_a_tail_read_before_the_barrier_makes_the_persisted_head_a_whole_record():
    r = _head_read_during_the_checkpoint()
    s0, sink, c0 = r.t("source[0]"), r.t("sink[0]"), r.c("source[0]->sink[0]")
    r.do(Deliver(c0))  # the tail: the record is processed and persisted whole, once
    i = r.m.topo.channels[c0].input_index
    assert r.w.tasks[sink].uc[1][i] == ((0, 0),) and (0, 0) in r.w.tasks[sink].processed
    r.do(Notify(s0, 1, "trigger")).do(Deliver(c0))
    assert next(s for t, cp, s in r.w.acks if t == s0).outputs == ((),)
    assert next(s for t, cp, s in r.w.acks if t == sink).inputs[i] == ((0, 0),)


def test_join_parts_fails_a_restore_that_separates_a_records_parts():
    join = StateAssignmentOperation.join_parts
    ins = [(("d2=1", 0, 0), "p", ((0, 5), (0, 6, PART_HEAD)))]
    outs = [(("d2=1", 0, 0), "q", ((0, 6, PART_TAIL), (0, 7)))]
    got_in, got_out = join(ins, outs, str)
    assert got_in[0][2] == ((0, 5),) and got_out[0][2] == ((0, 6), (0, 7))
    with pytest.raises(RestoreFailure, match=r"tail of record \(split 0, offset 6\) without its head"):
        join(ins, [(("d2=0", 0, 0), "q", outs[0][2])], str)
    with pytest.raises(RestoreFailure, match=r"head of record \(split 0, offset 6\) and then no tail"):
        join(ins, [], str)


def test_spanning_records_need_channel_state():
    sc = spanning_records_scope()
    assert "unaligned" in scope_conflict(BASELINE, sc)
    assert scope_conflict(UNALIGNED, sc) == ""


def test_flink_35351_needs_split_records_to_show():
    """The released code before apache/flink#24857 assigned input channel state 1:1 behind the
    custom partitioner: with whole records its restore is the fix's (the filter drops the
    replicas); with spanning records a tail reaches another sink subtask without its head."""
    e = entry("FLINK-35351-custom-partitioner-input-state")
    whole = e.scope.with_(spanning_records=False)
    assert check(e.design, whole).holds
    bad = check(e.design, e.scope, stop_at="restores-succeed").verdict("restores-succeed")
    assert bad.status == "violated" and "without its head" in bad.reason
    good = check(UNALIGNED, e.scope)
    assert good.holds and good.verdict("a-split-record-is-restored").status == HIT
    assert good.verdict("a-replica-is-filtered").status == HIT


# the timeout preset's scope (10 s) is a claims figure too (``specs/figures.py``, unaligned-timeout-spanning): claims tier
@pytest.mark.parametrize("design, states", [(UNALIGNED, 13_429), pytest.param(UNALIGNED_TIMEOUT, 74_104, marks=pytest.mark.claims)],
                         ids=lambda x: getattr(x, "name", x))
def test_the_default_spanning_scope_hits_its_witnesses_and_holds(design, states):
    r = check(design, spanning_records_scope())
    assert r.complete and r.holds and r.stats["states"] == states
    for name in ("a-record-spans-the-checkpoint", "a-split-record-is-restored", "a-replica-is-filtered",
                 "the-job-is-rescaled", "a-task-fails", "a-task-declines"):
        assert r.verdict(name).status == HIT, name
