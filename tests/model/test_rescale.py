"""Rescaling at restore in the main state machine (``Rescale``, ``StateAssignmentOperation``):
keyed state by key-group range, a 2PC sink's transactions, channel state replicated by an
ambiguous mapper and filtered by the new partitioner, names after the rescale, and the verdicts
of small exhaustive scopes.  A model that hands state out by subtask index, forgets the filter or
loses a sink's pending transaction fails one of these."""

from __future__ import annotations

from functools import lru_cache

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT, VIOLATED
from ckptcheck.checks.run.trace import replay, trace_document
from ckptcheck.model.actions import Deliver, EmitRecord, Rescale, TriggerCheckpoint
from ckptcheck.model.assignment import StateAssignmentOperation
from ckptcheck.model.keygroups import operator_index_for_key_group
from ckptcheck.model.partitioner import record_key_group
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import COMMITTED, REC, RECOVERED_INPUT, RECOVERED_OUTPUT, RUNNING
from ckptcheck.specs.catalog import NoRecordFilter
from ckptcheck.specs.designs import BASELINE, UNALIGNED
from ckptcheck.specs.scopes import scope
from ckptcheck.specs.spec import Spec

from conftest import SEARCH_WORKERS
from test_catalog import correct_result
from test_protocol import Run as ProtocolRun


def rescale_scope(job="keyed-2x1", **limits):
    base = dict(records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0, max_timeouts=0,
                max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=1)
    return scope(job, **{**base, **limits})


def owner(r, p=2):
    """The sink subtask that owns record ``r`` at parallelism ``p`` (max parallelism 128)."""
    return operator_index_for_key_group(128, p, record_key_group(r[0], r[1], 128))


class Run(ProtocolRun):
    """``test_protocol.Run``, naming subtasks and channels at the world's parallelism."""

    @property
    def topo(self):
        return self.m.at(self.w).topo

    def t(self, name):
        return self.topo.task_id(name)

    def c(self, name):
        return self.topo.channel_id(name)

    def do(self, a):
        assert a in self.m.enabled(self.w), f"{a.describe(self.topo)} not enabled"
        self.w = self.m.step(self.w, a)
        return self


def test_the_rescaled_job_has_its_own_subtasks_and_global_ids_keep_the_old_names():
    m = FlinkModel(BASELINE, rescale_scope())
    new = m.configs[1]
    assert new.topo.names == ("source[0]", "source[1]", "sink[0]", "sink[1]")
    assert m.global_names == ("source[0]", "source[1]", "sink[0]", "sink[1]")
    assert new.gid == (0, 1, 2, 3) and new.configs is m.configs
    assert new.topo.job.vertex("sink").max_p == m.topo.job.vertex("sink").max_p == 128


def test_keyed_state_goes_to_the_owner_of_its_key_group_and_pending_transactions_are_committed():
    r = Run(FlinkModel(BASELINE, rescale_scope()))
    s0, s1, sink = r.t("source[0]"), r.t("source[1]"), r.t("sink[0]")
    r.do(EmitRecord(s0)).do(EmitRecord(s1))
    r.do(Deliver(r.c("source[0]->sink[0]"))).do(Deliver(r.c("source[1]->sink[0]")))
    r.do(TriggerCheckpoint(1))
    r.do(Deliver(r.c("source[0]->sink[0]"))).do(Deliver(r.c("source[1]->sink[0]"))).acks()
    assert r.w.tasks[sink].processed == ((0, 0), (1, 0))
    assert Rescale(1) in r.m.enabled(r.w)
    r.do(Rescale(1))
    assert len(r.w.tasks) == 4 and all(ts.status == RUNNING for ts in r.w.tasks)
    for r_ in ((0, 0), (1, 0)):
        held = [name for name in ("sink[0]", "sink[1]") if r_ in r.w.tasks[r.t(name)].processed]
        assert held == [f"sink[{owner(r_)}]"], f"record {r_} (key group owner sink[{owner(r_)}]) is held by {held}"
    assert {owner((0, 0)), owner((1, 0))} == {0, 1}, "the scope splits the state over both new subtasks"
    # the pre-committed transaction of the old sink[0] was recovered and committed by a new subtask
    assert [(x.task, x.status) for x in r.w.txns] == [(2, COMMITTED)]
    assert r.w.txns[0].records == ((0, 0), (1, 0))
    assert Rescale(1) not in r.m.enabled(r.w), "the scope allows one rescale"


def test_channel_state_is_replicated_by_the_range_mapper_and_filtered_by_the_new_partitioner():
    r = Run(FlinkModel(UNALIGNED, rescale_scope()))
    s0, s1 = r.t("source[0]"), r.t("source[1]")
    r.do(EmitRecord(s0)).do(EmitRecord(s1)).do(TriggerCheckpoint(1))
    # both records are overtaken by the priority barriers: output channel state of the sources
    r.do(Deliver(r.c("source[0]->sink[0]"))).do(Deliver(r.c("source[1]->sink[0]"))).acks()
    c = r.w.coord.store[-1]
    assert c.snapshots[s0].outputs == (((0, 0),),) and c.snapshots[s1].outputs == (((1, 0),),)
    r.do(Rescale(1))
    new = r.m.at(r.w)
    got = {new.topo.channel_name(ch): items for ch, items in enumerate(r.w.channels) if items}
    want = {f"source[{r_[0]}]->sink[{owner(r_)}]": ((REC, r_[0], r_[1], RECOVERED_OUTPUT),) for r_ in ((0, 0), (1, 0))}
    assert got == want, "each record on the one channel to the subtask that owns its key"
    assert new.assignment.filtered(c) == 2, "old subtask sink[0] is read by both new ones: one copy each dropped"


def test_input_channel_state_goes_to_the_new_consumers_and_is_read_first():
    r = Run(FlinkModel(UNALIGNED, rescale_scope(input_buffers=1)))
    s0, s1 = r.t("source[0]"), r.t("source[1]")
    r.do(EmitRecord(s0)).do(EmitRecord(s1)).do(TriggerCheckpoint(1))
    r.do(Deliver(r.c("source[0]->sink[0]"))).do(Deliver(r.c("source[1]->sink[0]")))
    sink = r.t("sink[0]")
    assert r.w.tasks[sink].uc == () and any(t == sink for t, _, _ in r.w.acks)
    r.acks()
    c = r.w.coord.store[-1]
    assert c.snapshots[sink].inputs == (((0, 0),), ((1, 0),)), "the credit let both records reach the sink"
    r.do(Rescale(1))
    new = r.m.at(r.w)
    for r_ in ((0, 0), (1, 0)):
        ch = r.c(f"source[{r_[0]}]->sink[{owner(r_)}]")
        assert r.w.channels[ch][0] == (REC, r_[0], r_[1], RECOVERED_INPUT), "recovered input state, marked, at the head"
    assert sum(len(items) for items in r.w.channels) == 2
    assert new.network_input.is_recovering(r.w.channels, r.t(f"sink[{owner((0, 0))}]"))


def test_a_rescale_cancels_the_pending_checkpoint_and_in_flight_acks():
    r = Run(FlinkModel(BASELINE, rescale_scope(max_checkpoints=2)))
    s0 = r.t("source[0]")
    r.do(TriggerCheckpoint(1))
    r.do(Deliver(r.c("source[0]->sink[0]"))).do(Deliver(r.c("source[1]->sink[0]"))).acks()
    r.do(EmitRecord(s0)).do(TriggerCheckpoint(2))
    assert r.w.coord.pending and r.w.acks
    r.do(Rescale(1))
    assert not r.w.coord.pending and not r.w.acks
    assert r.w.tasks[r.t("source[0]")].position == 0, "the source resumes at checkpoint 1's position"
    assert {f for f in r.w.files if f[0] == 2} == set(), "the aborted checkpoint's files are gone"


class ByIndex(StateAssignmentOperation):
    """Wrong: new subtask i takes old subtask i mod old P's keyed state, whatever its key groups."""

    @staticmethod
    def keyed(max_p, new_p, olds, keys=0):
        return [list(olds[i % len(olds)].processed) for i in range(new_p)]


@lru_cache(maxsize=None)
def _run(design, sc):
    return check(design, sc, workers=SEARCH_WORKERS)


def test_the_correct_redistribution_holds_and_wrong_ones_are_caught_in_the_same_scope():
    sc = rescale_scope("keyed-1x1", records_per_split=2)
    ok = _run(BASELINE, sc)
    assert ok.complete and ok.ok, [v.reason for v in ok.violated]
    assert {v.property for v in ok.verdicts if v.status == HIT} >= {"the-job-is-rescaled"}
    bad = check(BASELINE.with_(name="keyed-by-index", assignment=ByIndex), sc, stop_at="key-groups-owned-once")
    reasons = [v.reason for v in bad.violated if v.property == "key-groups-owned-once"]
    assert reasons and "is in the state of sink[0]" in reasons[0], reasons


@pytest.mark.claims  # about 8 s; the default tier finds the catalog's uc-no-record-filter
def test_without_the_record_filter_a_replicated_record_is_committed_twice():
    sc = rescale_scope("keyed-1x1", max_checkpoints=0)
    ok = correct_result(UNALIGNED.name, repr(sc))  # the catalog's uc-no-record-filter scope: one shared search
    assert ok.complete and ok.ok, [v.reason for v in ok.violated]
    hit = {v.property for v in ok.verdicts if v.status == HIT}
    assert {"the-job-is-rescaled", "a-rescale-restores-channel-state", "a-replica-is-filtered"} <= hit
    bad = check(UNALIGNED.with_(name="no-filter", assignment=NoRecordFilter), sc, stop_at="exactly-once-output")
    why = [v.reason for v in bad.violated if v.property == "exactly-once-output"]
    assert why and "committed twice" in why[0], why


def test_a_counterexample_across_a_rescale_replays_from_its_trace_file():
    sc = rescale_scope("keyed-1x1", max_checkpoints=0)
    d = UNALIGNED.with_(name="no-filter", assignment=NoRecordFilter)
    bad = check(d, sc, stop_at="exactly-once-output")
    v = next(v for v in bad.violated if v.property == "exactly-once-output")
    spec = Spec(d, sc)
    doc = trace_document(spec, v.trace, engine="explore", seed=None,
                         violation={"property": v.property, "step": len(v.trace)})
    assert any(a["type"] == "Rescale" for a in doc["actions"])
    assert any("sink[1]" in str(a) for a in doc["actions"]), "steps after the rescale name the new subtasks"
    out = replay(doc, "<test>", d)
    assert out.reproduced, out.violation


@pytest.mark.claims  # 9.4 s (the default run was 293-300 s); the default run checks restores-succeed in the test below
def test_a_restore_flink_cannot_carry_out_is_a_verdict_naming_flinks_exception():
    """FLINK-40269 at sink 4 -> 2: the keyBy edge's output state of old subpartition 2 routed
    with the rebalance edge's mapping reaches sink[0], which reads old subtasks [0, 1] on that
    gate: Flink's ``DemultiplexingRecordDeserializer.select`` throws, the restore fails, and
    ``restores-succeed`` says so; the correct assignment restores the same checkpoints."""
    from ckptcheck.model.scope import Scope
    from ckptcheck.model.topology import Edge, JobGraph, Pattern, Role, Vertex
    from ckptcheck.specs.catalog import PeerGateByPosition

    job = JobGraph((Vertex("source", 1, Role.SOURCE), Vertex("sink", 4, Role.SINK, two_phase_commit=True)),
                   (Edge("source", "sink", Pattern.ALL_TO_ALL, partitioner="rebalance", records="even"),
                    Edge("source", "sink", Pattern.ALL_TO_ALL, partitioner="hash", records="odd")))
    sc = Scope(job=job, records_per_split=2, bounded=False, max_checkpoints=1, max_failures=0, max_declines=0,
               max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=1)
    bad = check(UNALIGNED.with_(name="peer-by-position", assignment=PeerGateByPosition), sc, workers=1,
                stop_at="restores-succeed").verdict("restores-succeed")
    assert bad.status == VIOLATED
    assert bad.reason.startswith("restoring checkpoint 1 fails: IllegalStateException: Cannot select")
    assert "sink[0] reads old subtasks [0, 1]" in bad.reason
    good = check(UNALIGNED, sc, workers=1)
    assert good.complete and good.ok and good.verdict("restores-succeed").status == "holds"
    assert good.verdict("a-rescale-restores-channel-state").status == HIT


def test_two_edges_between_one_pair_of_vertices_must_be_disjoint_side_outputs():
    from ckptcheck.model.topology import Edge, JobGraph, Pattern, Role, TopologyError, Vertex

    vs = (Vertex("source", 1, Role.SOURCE), Vertex("sink", 1, Role.SINK))
    for records in (("all", "odd"), ("odd", "odd"), ("even", "all")):
        with pytest.raises(TopologyError, match="side outputs"):
            JobGraph(vs, tuple(Edge("source", "sink", Pattern.ALL_TO_ALL, records=r) for r in records))
    with pytest.raises(TopologyError, match="records"):
        JobGraph(vs, (Edge("source", "sink", Pattern.ALL_TO_ALL, records="some"),))
    ok = JobGraph(vs, (Edge("source", "sink", Pattern.ALL_TO_ALL, records="even"),
                       Edge("source", "sink", Pattern.ALL_TO_ALL, partitioner="rebalance", records="odd")))
    assert [e.carries(o) for e in ok.edges for o in (0, 1)] == [True, False, False, True]


def test_unaligned_pointwise_edges_with_flinks_redistribution_fail_a_rescaled_restore():
    """the pointwise-UC thread's opt-in (``unaligned_pointwise``) without the proposal's redistribution: the
    forward edge's in-flight data cannot be redistributed when the sink is rescaled, and the
    restore fails with Flink's ``UnsupportedOperationException``; Flink's default (the node
    aligns, FLINK-21945) has no channel state there, and the same scope holds."""
    sc = scope("pipeline-and-side", records_per_split=1, bounded=False, max_checkpoints=1, max_failures=0,
               max_declines=0, max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=1)
    forced = UNALIGNED.with_(name="uc-pointwise-forced", unaligned_pointwise=True)
    v = check(forced, sc, workers=1, stop_at="restores-succeed").verdict("restores-succeed")
    assert v.status == VIOLATED and len(v.trace) == 7
    assert v.reason.startswith("restoring checkpoint 1 fails: UnsupportedOperationException: Cannot rescale the given"
                               " pointwise partitioner.")
    assert any(type(a) is Rescale for a in v.trace)
    fallback = check(UNALIGNED, sc, workers=1)
    assert fallback.complete and fallback.ok and fallback.verdict("the-job-is-rescaled").status == HIT


def _custom_map_checkpoint(m: FlinkModel, inputs: dict, outputs: dict):
    """A checkpoint of job ``custom-map`` taken with the map at parallelism 2: ``inputs`` maps a
    channel name to the sink's input state on it, ``outputs`` to the map's output state."""
    from ckptcheck.model.world import EMPTY_SNAPSHOT, Completed

    old = m.configs[0]
    topo = old.topo
    snaps = [EMPTY_SNAPSHOT] * topo.n_tasks
    for t in range(topo.n_tasks):
        ins = [()] * sum(1 for ch in topo.channels if ch.consumer == t)
        outs = [()] * len(old.all_out[t])
        for ch in topo.channels:
            name = topo.channel_name(ch.id)
            if ch.consumer == t and name in inputs:
                ins[ch.input_index] = inputs[name]
            if ch.producer == t and name in outputs:
                outs[old.all_out[t].index(ch.id)] = outputs[name]
        snaps[t] = EMPTY_SNAPSHOT._replace(inputs=tuple(ins) if any(ins) else (), outputs=tuple(outs) if any(outs) else ())
    return Completed(1, tuple(snaps), ())


def test_a_full_mapped_edge_restores_every_old_subtasks_channel_state_to_every_consumer_filtered():
    """FLINK-35351 as Flink 2.x has it (apache/flink#24857; ``TaskStateAssignment``,
    ``StateAssignmentOperation.reDistributeInputChannelStates``): behind a custom partitioner
    (``CustomPartitionerWrapper``: upstream ARBITRARY, downstream FULL) the sink keeps
    parallelism 2 while the map goes from 2 to 1, whose new parallelism differs from the sink's
    old one.  Each sink subtask then gets the input state of both old sink subtasks (Flink's
    test ``testChannelStateAssignmentTwoGatesPartiallyDownscaling``: every subtask gets all
    handles), the map's output state for each old subpartition reaches both sink subtasks
    (``ResultSubpartitionRecoveredStateHandler`` inverts the FULL mapping), and the
    ``RecordFilter`` (the custom partitioner at the new parallelism, after deserialization)
    keeps each record on the one subtask it routes to.  (A model that sets up no virtual
    channels at the sink's unchanged parallelism gives each sink subtask both old subtasks'
    input state unfiltered: a duplicate of each record.)"""
    from ckptcheck.model.partitioner import custom_channel

    m = FlinkModel(UNALIGNED, scope("custom-map", records_per_split=4, rescale=(("map", 1),), max_rescales=1))
    assert [custom_channel(0, o, 2) for o in range(4)] == [0, 1, 0, 1]  # key % 2
    c = _custom_map_checkpoint(
        m,
        inputs={"map[0]->sink[0]": ((0, 0),), "map[1]->sink[1]": ((0, 1),)},
        outputs={"map[0]->sink[1]": ((0, 3),), "map[1]->sink[0]": ((0, 2),)},
    )
    new = m.configs[1]
    got = {new.topo.channel_name(cid): items for cid, items in new.assignment.channel_state(c).items()}
    assert got == {
        "map[0]->sink[0]": ((REC, 0, 0, RECOVERED_INPUT), (REC, 0, 2, RECOVERED_OUTPUT)),
        "map[0]->sink[1]": ((REC, 0, 1, RECOVERED_INPUT), (REC, 0, 3, RECOVERED_OUTPUT)),
    }
    assert new.assignment.filtered(c) == 4  # one replica of each record dropped
    # at unchanged parallelism everywhere the channel state stays where it was (NO_RESCALE)
    same = {m.topo.channel_name(cid): items for cid, items in m.assignment.channel_state(c).items()}
    assert same["map[1]->sink[0]"] == ((REC, 0, 2, RECOVERED_OUTPUT),)
    assert same["map[0]->sink[0]"] == ((REC, 0, 0, RECOVERED_INPUT),)


def test_a_custom_partitioner_routes_a_record_by_its_key_modulo_the_channels():
    """``partitionCustom`` with the ITCase's ``Integer.parseInt(key) % numPartitions``: record
    (split 0, offset o) has key o, so the map sends even offsets to sink[0], odd ones to
    sink[1], whatever its round-robin state."""
    m = FlinkModel(UNALIGNED, scope("custom-map", records_per_split=4))
    topo = m.topo
    t = topo.task_id("map[1]")
    for o in range(4):
        targets, rr = m.partitioner.route(t, (REC, 0, o), (1,))
        assert [topo.channel_name(c) for c in targets] == [f"map[1]->sink[{o % 2}]"]
        assert rr == (1,)
