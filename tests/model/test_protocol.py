"""Protocol rules, one scripted run each: a wrong rule in the model fails one of these."""

from __future__ import annotations

import pytest

from ckptcheck.model.actions import (
    Ack,
    Decline,
    Deliver,
    EmitRecord,
    EndOfInput,
    FailTask,
    Notify,
    Restore,
    TriggerCheckpoint,
)
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import COMMITTED, FAILED, FINISHED, OPEN, RUNNING
from ckptcheck.specs.designs import BASELINE, FLIP600
from ckptcheck.specs.jobs import forward_pipeline, keyed_three_stage
from ckptcheck.specs.scopes import scope

from conftest import SEARCH_WORKERS


def model(design=BASELINE, job="keyed-2x2", **limits):
    limits.setdefault("max_checkpoints", 2)
    return FlinkModel(design, scope(job, **limits))


class Run:
    """Drive a model by action, asserting each is enabled."""

    def __init__(self, m: FlinkModel):
        self.m = m
        self.w = m.initial()
        self.names = m.topo.names

    def t(self, name: str) -> int:
        return self.m.topo.task_id(name)

    def c(self, name: str) -> int:
        return self.m.topo.channel_id(name)

    def do(self, a):
        assert a in self.m.enabled(self.w), f"{a.describe(self.m.topo)} not enabled"
        self.w = self.m.step(self.w, a)
        return self

    def drain(self, channel: str):
        while self.w.channels[self.c(channel)]:
            self.do(Deliver(self.c(channel)))
        return self

    def acks(self):
        while self.w.acks:
            t, cp, _ = self.w.acks[0]
            self.do(Ack(t, cp))
        return self

    def notify_all(self):
        for t in range(len(self.w.tasks)):
            while self.w.tasks[t].inbox:
                kind, cp = self.w.tasks[t].inbox[0][:2]
                self.do(Notify(t, cp, ("complete", "abort")[kind]))
        return self


def test_keyed_routing_sends_split0_to_sink1_and_split1_to_sink0():
    r = Run(model())
    r.do(EmitRecord(r.t("source[0]"))).do(EmitRecord(r.t("source[1]")))
    assert r.w.channels[r.c("source[0]->sink[1]")] == ((0, 0, 0),)
    assert r.w.channels[r.c("source[1]->sink[0]")] == ((0, 1, 0),)


def test_barrier_blocks_its_channel_until_aligned():
    r = Run(model())
    r.do(TriggerCheckpoint(1))  # both sources snapshot and emit barrier 1
    r.do(EmitRecord(r.t("source[0]")))  # record after the barrier on source[0]->sink[1]
    ch = r.c("source[0]->sink[1]")
    r.do(Deliver(ch))  # barrier arrives at sink[1]
    assert Deliver(ch) not in r.m.enabled(r.w), "channel must be blocked after its barrier"
    r.do(Deliver(r.c("source[1]->sink[1]")))  # second barrier: aligned, snapshot, unblocked
    sink1 = r.w.tasks[r.t("sink[1]")]
    assert sink1.last_barrier == 1 and sink1.blocked == 0
    assert Deliver(ch) in r.m.enabled(r.w)
    snap = [s for t, cp, s in r.w.acks if t == r.t("sink[1]")][0]
    assert snap.processed == (), "the post-barrier record must not be in checkpoint 1"


def test_sink_commits_only_on_notification():
    r = Run(model())
    r.do(EmitRecord(r.t("source[0]"))).drain("source[0]->sink[1]")
    r.do(TriggerCheckpoint(1))
    for ch in ("source[0]->sink[0]", "source[1]->sink[0]", "source[0]->sink[1]", "source[1]->sink[1]"):
        r.drain(ch)
    assert [x.status for x in r.w.txns] == [OPEN], "pre-committed, not yet committed"
    r.acks()
    assert r.w.coord.store[-1].id == 1
    assert [x.status for x in r.w.txns] == [OPEN], "completion alone does not commit"
    r.notify_all()
    assert [x.status for x in r.w.txns] == [COMMITTED]


def test_restore_recovers_and_commits_pending_and_aborts_the_rest():
    r = Run(model(max_failures=1))
    r.do(EmitRecord(r.t("source[0]"))).drain("source[0]->sink[1]")
    r.do(TriggerCheckpoint(1))
    for ch in ("source[0]->sink[0]", "source[1]->sink[0]", "source[0]->sink[1]", "source[1]->sink[1]"):
        r.drain(ch)
    r.acks()  # checkpoint 1 complete, notification not yet delivered
    r.do(EmitRecord(r.t("source[1]"))).drain("source[1]->sink[0]")  # sink[0] writes into a new txn
    assert len(r.w.txns) == 2
    r.do(FailTask(r.t("sink[0]")))  # one region: everybody fails
    assert all(ts.status == FAILED for ts in r.w.tasks)
    r.do(Restore(1))
    assert [(x.task, x.status, x.records) for x in r.w.txns] == [(r.t("sink[1]"), COMMITTED, ((0, 0),))]
    assert r.w.tasks[r.t("source[1]")].position == 0  # split 1 rewinds to its checkpointed offset
    assert r.w.tasks[r.t("source[0]")].position == 1


def test_decline_fails_the_job_when_no_failure_is_tolerable():
    r = Run(model(max_declines=1))
    r.do(TriggerCheckpoint(1))
    r.do(Decline(r.t("source[0]"), 1))
    assert all(ts.status == FAILED for ts in r.w.tasks)
    assert not r.w.coord.pending


def test_decline_is_tolerated_when_configured():
    r = Run(model(BASELINE.with_(name="tolerant", tolerable_failed_checkpoints=1), max_declines=1))
    r.do(TriggerCheckpoint(1))
    r.do(Decline(r.t("source[0]"), 1))
    assert all(ts.status == RUNNING for ts in r.w.tasks)
    assert r.w.coord.failed_count == 1
    assert all(ts.inbox and ts.inbox[0][0] == 1 for ts in r.w.tasks), "everybody is told of the abort"


def test_region_failover_restarts_only_the_failed_region():
    m = FlinkModel(BASELINE, scope("forward-2x2", max_failures=1))
    r = Run(m)
    r.do(FailTask(r.t("sink[1]")))
    status = [ts.status for ts in r.w.tasks]
    assert status[r.t("source[1]")] == FAILED and status[r.t("sink[1]")] == FAILED
    assert status[r.t("source[0]")] == RUNNING and status[r.t("sink[0]")] == RUNNING


def test_full_failover_restarts_everything():
    m = FlinkModel(BASELINE.with_(name="full", failover_strategy="full"), scope("forward-2x2", max_failures=1))
    r = Run(m)
    r.do(FailTask(r.t("sink[1]")))
    assert all(ts.status == FAILED for ts in r.w.tasks)


def test_tasks_wait_for_a_final_checkpoint_before_finishing():
    r = Run(model(max_checkpoints=0))
    for s in ("source[0]", "source[1]"):
        r.do(EmitRecord(r.t(s))).do(EndOfInput(r.t(s)))
    for ch in ("source[0]->sink[0]", "source[1]->sink[0]", "source[0]->sink[1]", "source[1]->sink[1]"):
        r.drain(ch)
    assert all(ts.status == RUNNING and ts.ended for ts in r.w.tasks), "ended, but waiting"
    assert TriggerCheckpoint(1) in r.m.enabled(r.w), "the final checkpoint is allowed beyond the budget"
    r.do(TriggerCheckpoint(1))
    for ch in ("source[0]->sink[0]", "source[1]->sink[0]", "source[0]->sink[1]", "source[1]->sink[1]"):
        r.drain(ch)
    r.acks().notify_all()
    for ch in ("source[0]->sink[0]", "source[1]->sink[0]", "source[0]->sink[1]", "source[1]->sink[1]"):
        r.drain(ch)
    assert all(ts.status == FINISHED for ts in r.w.tasks)
    assert sorted(rec for x in r.w.txns if x.status == COMMITTED for rec in x.records) == [(0, 0), (1, 0)]


THREE_STAGE_CHANNELS = ("source[0]->map[0]", "source[1]->map[1]", "map[0]->sink[0]", "map[1]->sink[0]",
                        "map[0]->sink[1]", "map[1]->sink[1]")


def _three_stage_with_source0_finished(max_failures: int) -> Run:
    """three-stage with no records: both sources end, checkpoint 1 (their final one) completes,
    and only source[0] learns of it, so it alone finishes."""
    r = Run(FlinkModel(BASELINE, scope("three-stage", max_checkpoints=2, records_per_split=0, max_failures=max_failures)))
    r.do(EndOfInput(r.t("source[0]"))).do(EndOfInput(r.t("source[1]")))
    for ch in THREE_STAGE_CHANNELS:
        r.drain(ch)
    r.do(TriggerCheckpoint(1))
    for ch in THREE_STAGE_CHANNELS:
        r.drain(ch)
    r.acks()
    src0 = r.t("source[0]")
    r.do(Notify(src0, 1, "complete"))
    assert r.w.tasks[src0].status == FINISHED
    return r


def test_flip147_plan_triggers_a_task_whose_pointwise_producer_finished():
    """ref section 5: trigger(v,i) iff running, every ALL_TO_ALL upstream vertex fully finished
    and no pointwise-connected producer running.  source -forward-> map -keyBy-> sink."""
    r = _three_stage_with_source0_finished(max_failures=0)
    src0 = r.t("source[0]")
    r.drain("source[0]->map[0]")  # its EndOfPartition
    r.do(TriggerCheckpoint(2))
    triggered = sorted(r.names[t] for t, cp, _ in r.w.acks if cp == 2)
    assert triggered == ["map[0]", "source[1]"]
    (pending,) = r.w.coord.pending
    assert pending.finished == 1 << src0
    assert pending.waiting == ((1 << len(r.w.tasks)) - 1) & ~(1 << src0)


def test_a_finished_subtask_of_a_partly_finished_vertex_restarts_as_a_regular_task():
    """UC note D.4: only a fully finished vertex is deployed FINISHED_ON_RESTORE.
    source[0] finished before checkpoint 2, source[1] did not: after a failure, source[0]
    restarts RUNNING with the empty ``FinishedOperatorSubtaskState`` (a FLIP-27 reader whose
    split is done: at its end) and ends its input again; the vertex is not finished at once."""
    r = _three_stage_with_source0_finished(max_failures=1)
    src0, src1 = r.t("source[0]"), r.t("source[1]")
    r.do(TriggerCheckpoint(2))
    for ch in THREE_STAGE_CHANNELS:
        r.drain(ch)
    r.acks()
    assert r.w.coord.store[-1].id == 2 and r.w.coord.store[-1].snapshots[src0].finished
    r.do(FailTask(src1)).do(Restore(2))
    assert r.w.tasks[src0].status == RUNNING and not r.w.tasks[src0].ended, "restarted, not FINISHED_ON_RESTORE"
    assert r.w.channels[r.c("source[0]->map[0]")] == (), "no EndOfData until it ends its input again"
    assert EndOfInput(src0) in r.m.enabled(r.w) and EmitRecord(src0) not in r.m.enabled(r.w)


def test_three_stage_job_wiring():
    x = keyed_three_stage().expand()
    assert [x.channel_name(c) for c in x.inputs[x.task_id("map[0]")]] == ["source[0]->map[0]"]
    assert len(x.inputs[x.task_id("sink[0]")]) == 2
    assert forward_pipeline().expand().n_tasks == 4


@pytest.mark.parametrize("job", ["keyed-2x2", "forward-2x2", "three-stage"])
def test_enabled_actions_are_deterministic(job):
    m = FlinkModel(BASELINE, scope(job))
    w = m.initial()
    for _ in range(30):
        acts = m.enabled(w)
        assert acts == m.enabled(w)
        if not acts:
            break
        w2 = m.step(w, acts[len(acts) // 2])
        assert w2 == m.step(w, acts[len(acts) // 2]), "step is a function"
        w = w2


# one fixed path per (design, scope), walked in a child process: every enabled list and a digest
# of every world on the way, as JSON (scopes with failures, a rescale, regions and union state)
_ENABLED_ALONG_A_PATH = """
import hashlib, json
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.specs.designs import BASELINE, FLIP600, UNALIGNED, UNALIGNED_POINTWISE
from ckptcheck.specs.scopes import scope, unaligned_scope

runs = [(BASELINE, scope("keyed-2x2", records_per_split=1, max_checkpoints=2, max_failures=1, max_declines=1)),
        (BASELINE, scope("union-2x2", records_per_split=1, max_checkpoints=2, max_failures=1)),
        (FLIP600, scope("forward-2x2", records_per_split=1, max_checkpoints=2, max_failures=1, max_declines=1)),
        (UNALIGNED, unaligned_scope()),
        (UNALIGNED_POINTWISE, scope("pointwise-2x1", records_per_split=1, bounded=False, max_checkpoints=3,
                                    rescale=(("sink", 2),), max_rescales=2))]
out = []
for design, sc in runs:
    m = FlinkModel(design, sc)
    w = m.initial()
    for i in range(60):
        acts = m.enabled(w)
        out.append([repr(a) for a in acts])
        if not acts:
            break
        w = m.step(w, acts[(5 * i + 3) % len(acts)])
        out.append(hashlib.sha256(repr(w).encode()).hexdigest())
print(json.dumps(out))
"""


def test_enabled_actions_and_their_order_do_not_depend_on_the_hash_seed():
    """Two processes with different ``PYTHONHASHSEED`` (string and enum hashes, set and dict
    order) walk the same path and see the same enabled actions, in the same order, and the same
    worlds: the search order and the shortest counterexamples do not depend on the process."""
    import json
    import os
    import subprocess
    import sys

    procs = [subprocess.Popen([sys.executable, "-c", _ENABLED_ALONG_A_PATH], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}) for seed in ("1", "4242")]
    outs = [p.communicate(timeout=60)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    a, b = (json.loads(o) for o in outs)
    assert len(a) > 200 and any("Rescale" in x for step in a if isinstance(step, list) for x in step)
    assert a == b

def test_a_cancellation_marker_aborts_an_alignment_where_a_failed_checkpoint_is_tolerated():
    """The witness of the marker path (A.3, A.8): map[1] learns of the abort before its barrier,
    sends a CancelCheckpointMarker, and a sink collecting that checkpoint aborts it.  Where
    nothing can send a marker (no operator, or a declined checkpoint fails the job over) the
    witness does not apply."""
    from ckptcheck.checks.run.api import check
    from ckptcheck.specs.scopes import scope as named_scope

    sc = named_scope("three-stage", records_per_split=0, bounded=False, max_checkpoints=2, max_failures=0,
                     max_declines=1, max_timeouts=0, max_lost_notifications=0)
    tolerant = BASELINE.with_(name="tolerates-one", tolerable_failed_checkpoints=1)
    r = check(tolerant, sc, workers=SEARCH_WORKERS, stop_at="a-cancel-marker-aborts")
    v = r.verdict("a-cancel-marker-aborts")
    assert v.status == "hit" and "aborted its alignment of checkpoint 1 on the cancellation marker from map[" in v.reason
    assert check(BASELINE, sc, max_depth=3).verdict("a-cancel-marker-aborts").status == "not applicable"


@pytest.mark.parametrize("design, job, limits", [
    (BASELINE, "forward-2x2", dict(records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=1)),
    (FLIP600, "forward-2x2", dict(records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=1)),
])
def test_faults_computed_once_per_world_equal_the_same_faults_computed_afresh(design, job, limits):
    """``FlinkModel.step`` computes each failover's successor once per world (``FailTask`` by
    cancelled set) and a decline that fails the job over globally once whoever declines.  On
    each world searched, each such fault must give what a model without the memo computes;
    a memo keyed too coarsely (a regional decline, a failover of another region) differs.  The
    search must also reuse a memo entry, or the test would not exercise it.  The first 12,000
    worlds of each scope, breadth first (the whole scope takes half a minute)."""
    m = FlinkModel(design, scope(job, max_timeouts=0, max_lost_notifications=0, **limits))
    ref = FlinkModel(design, m.scope)
    ref.__dict__["_decline_memo"] = False
    seen, frontier, reused = {m.initial()}, [m.initial()], 0
    while frontier and len(seen) < 12_000:
        nxt = []
        for w in frontier:
            faults = [a for a in m.enabled(w) if type(a) in (FailTask, Decline)]
            for a in m.enabled(w):
                t = m.step(w, a)
                if a in faults:
                    object.__setattr__(ref, "_fail_memo", (None, {}))
                    assert t == ref.step(w, a), f"{a!r} from a memo differs from its own successor"
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
            declines = [a for a in faults if type(a) is Decline]
            reused += len(declines) > 1 and m.coordinator.decline_fails_job(w, declines[0].checkpoint)
        frontier = nxt
    assert reused > 0


def test_a_variant_that_overrides_a_decline_rule_is_not_computed_once():
    """The decline memo assumes the stock rules; a variant's override may make the successor
    depend on who declined, so the model computes each of its declines."""
    from ckptcheck.model.coordinator import CheckpointCoordinator

    class NamesTheDecliner(CheckpointCoordinator):
        def receive_decline(self, tx, t, cp, counted=True):
            super().receive_decline(tx, t, cp, counted)

    assert model(job="forward-2x2")._decline_memo
    assert not model(BASELINE.with_(name="names-decliner", coordinator=NamesTheDecliner), job="forward-2x2")._decline_memo


def test_a_checkpoint_completes_between_a_failure_and_its_restore():
    """Row A24: the restore aborts the pending checkpoint (``SchedulerBase.restoreState``),
    not the failure.  source[0] and sink[0] acked checkpoint 1 before source[0] failed; the acks
    still arrive and complete it, and the restore then uses it."""
    r = Run(model(job="keyed-1x1", max_checkpoints=1, max_failures=1))
    src, sink = r.t("source[0]"), r.t("sink[0]")
    r.do(EmitRecord(src)).do(TriggerCheckpoint(1)).drain("source[0]->sink[0]")
    assert {t for t, cp, _ in r.w.acks} == {src, sink} and r.w.coord.pending
    r.do(FailTask(src))
    assert r.w.coord.pending, "still pending after the failure"
    r.acks()
    assert r.w.coord.store[-1].id == 1 and not r.w.coord.pending
    assert Restore(1) in r.m.enabled(r.w)
    r.do(Restore(1))
    assert r.w.tasks[src].position == 1, "resumes after the record checkpoint 1 covers"
