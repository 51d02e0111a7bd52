"""More than one pending checkpoint (``max_concurrent_checkpoints``), and a task whose status
changes between the plan and its trigger RPC: scripted runs that pin each rule, and searches
that reach them.  A coordinator that kept only one pending checkpoint, delivered a task's acks
in checkpoint order only, did not abort the older pending checkpoints at a completion, or let
a closed task take a trigger fails one of these."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.model.actions import Ack, EmitRecord, EndOfInput, Notify, TriggerAfterClose, TriggerCheckpoint
from ckptcheck.model.design import knob_conflict
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import COMMITTED, FINISHED, NOTIFY_ABORT, NOTIFY_COMPLETE, RUNNING
from ckptcheck.specs.designs import BASELINE, FLIP600, UNALIGNED_TIMEOUT
from ckptcheck.specs.scopes import scope

from conftest import SEARCH_WORKERS
from test_protocol import Run

CONCURRENT = BASELINE.with_(name="concurrent-2", max_concurrent_checkpoints=2)


def run(design=CONCURRENT, job="keyed-1x1", **limits) -> Run:
    limits.setdefault("max_checkpoints", 2)
    return Run(FlinkModel(design, scope(job, **limits)))


def test_a_second_checkpoint_is_triggered_while_the_first_is_pending():
    r = run()
    r.do(TriggerCheckpoint(1)).do(TriggerCheckpoint(2))
    assert [p.id for p in r.w.coord.pending] == [1, 2]
    assert TriggerCheckpoint(3) not in r.m.enabled(r.w), "at most max_concurrent_checkpoints pending"
    one = run(design=BASELINE)
    one.do(TriggerCheckpoint(1))
    assert TriggerCheckpoint(2) not in one.m.enabled(one.w), "Flink's default: one at a time"


def test_a_later_checkpoint_completing_first_subsumes_the_older_one():
    """``dropSubsumedCheckpoints``: checkpoint 2 completes while 1 is pending (the async parts
    of one task's snapshots run on a thread pool, so its ack of 2 may arrive first); 1 is
    aborted, uncounted, and the sink is told so with the latest completed id, 2, which it
    replays first (it commits up to 2)."""
    r = run()
    src, sink = r.t("source[0]"), r.t("sink[0]")
    r.do(EmitRecord(src)).do(TriggerCheckpoint(1)).do(TriggerCheckpoint(2)).drain("source[0]->sink[0]")
    assert {(t, cp) for t, cp, _ in r.w.acks} == {(src, 1), (src, 2), (sink, 1), (sink, 2)}
    assert Ack(src, 2) in r.m.enabled(r.w), "any ack in flight may arrive next"
    r.do(Ack(src, 2)).do(Ack(sink, 2))
    assert not r.w.coord.pending and r.w.coord.store[-1].id == 2 and r.w.coord.failed_count == 0
    inbox = r.w.tasks[sink].inbox
    assert inbox[0][:3] == (NOTIFY_ABORT, 1, 2) and inbox[1][:2] == (NOTIFY_COMPLETE, 2)
    assert (1, src) in r.w.files and (1, sink) in r.w.files, "the acks of 1 are still in flight"
    r.do(Ack(src, 1))
    assert (1, src) not in r.w.files and r.w.coord.store[-1].id == 2, "a late ack's state is discarded on arrival"
    r.do(Notify(sink, 1, "abort"))
    assert [x for x in r.w.txns if x.status == COMMITTED][0].records == ((0, 0),)


def test_one_pending_checkpoint_keeps_a_tasks_acks_in_checkpoint_order():
    r = run(design=BASELINE)
    src = r.t("source[0]")
    r.do(TriggerCheckpoint(1))
    r.do(Ack(src, 1)).drain("source[0]->sink[0]").acks()
    assert r.w.coord.store[-1].id == 1


@pytest.mark.parametrize("knobs, problem", [
    (dict(max_concurrent_checkpoints=2, checkpoint_mode="aligned-timeout"), "aligned-timeout"),
])
def test_combinations_the_model_does_not_cover_are_refused(knobs, problem):
    assert problem in knob_conflict({**BASELINE.knobs(), **knobs})
    with pytest.raises(ValueError, match=problem):
        BASELINE.with_(name="x", **knobs)
    assert not knob_conflict({**FLIP600.knobs()}) and not knob_conflict({**UNALIGNED_TIMEOUT.knobs()})
    assert not knob_conflict({**FLIP600.knobs(), "max_concurrent_checkpoints": 2}), "FLIP-600 with two: tests/specs/flip600/test_flip600_concurrent.py"


def test_a_trigger_rpc_reaching_a_task_that_closed_is_declined_uncounted():
    """Staggered triggers: the source is ready to finish (its final checkpoint 1 completed)
    when checkpoint 2's trigger RPC is queued for it.  Either the mailbox still takes it (the
    RPC is served while the task drains its mailbox) or the task closes first and the RPC is
    declined (TASK_CLOSING): checkpoint 2 aborts and the failure manager does not count it.
    The race takes one of the scope's declines."""
    r = run(design=BASELINE, max_checkpoints=2, staggered_triggers=True)
    src, sink = r.t("source[0]"), r.t("sink[0]")
    r.do(EmitRecord(src)).do(EndOfInput(src)).do(TriggerCheckpoint(1)).do(Notify(src, 1, "trigger"))
    r.drain("source[0]->sink[0]").acks()
    assert r.w.coord.store[-1].id == 1
    r.do(TriggerCheckpoint(2))
    assert [m[:2] for m in r.w.tasks[src].inbox] == [(NOTIFY_COMPLETE, 1), (3, 2)]
    r.do(Notify(src, 1, "complete"))
    assert r.w.tasks[src].status == RUNNING, "a queued trigger is served before the task closes"
    enabled = r.m.enabled(r.w)
    assert Notify(src, 2, "trigger") in enabled and TriggerAfterClose(src, 2) in enabled
    r.do(TriggerAfterClose(src, 2))
    assert r.w.tasks[src].status == FINISHED
    assert not r.w.coord.pending and r.w.coord.failed_count == 0, "declined as TASK_CLOSING: aborted, not counted"
    assert r.w.used.declines == 1
    assert r.w.tasks[sink].inbox[-1][:2] == (NOTIFY_ABORT, 2)
    served = run(design=BASELINE, max_checkpoints=2, staggered_triggers=True)
    served.w = r.m.initial()
    served.do(EmitRecord(src)).do(EndOfInput(src)).do(TriggerCheckpoint(1)).do(Notify(src, 1, "trigger"))
    served.drain("source[0]->sink[0]").acks().do(TriggerCheckpoint(2)).do(Notify(src, 1, "complete"))
    served.do(Notify(src, 2, "trigger"))
    assert served.w.tasks[src].status == FINISHED and any(t == src and cp == 2 for t, cp, _ in served.w.acks), \
        "served: the task snapshots checkpoint 2 and acknowledges it, then closes"


def test_without_staggered_triggers_no_trigger_reaches_a_closed_task():
    r = run(design=BASELINE)
    src = r.t("source[0]")
    r.do(EmitRecord(src)).do(EndOfInput(src)).do(TriggerCheckpoint(1)).drain("source[0]->sink[0]").acks()
    r.do(Notify(src, 1, "complete"))
    assert not any(type(a) is TriggerAfterClose for a in r.m.enabled(r.w))


def test_concurrent_checkpoints_hold_and_reach_every_concurrency_witness():
    """keyed-1x1 with two concurrent checkpoints and one lost notification: every property
    holds exhaustively, and two checkpoints are pending at once, a later one completes first
    and subsumes the older, and a task finishes on a later completion or with a later
    checkpoint it acknowledged still pending (FLIP-147's 42/43/44)."""
    r = check(CONCURRENT, scope("keyed-1x1", records_per_split=1, max_checkpoints=2, max_failures=0, max_declines=0,
                                max_timeouts=0, max_lost_notifications=1), workers=SEARCH_WORKERS)
    assert r.complete and r.ok, [v.reason for v in r.violated]
    assert r.stats["states"] == 10_040
    for w in ("two-checkpoints-pending", "a-completion-subsumes-a-pending-checkpoint",
              "a-task-finishes-on-a-later-completion", "a-task-finishes-with-a-checkpoint-pending"):
        assert r.verdict(w).status == "hit", w


def test_a_closed_task_declining_its_trigger_is_reached_and_everything_holds():
    r = check(BASELINE, scope("keyed-1x1", records_per_split=1, max_checkpoints=2, max_failures=0, max_declines=1,
                              max_timeouts=0, max_lost_notifications=0, staggered_triggers=True), workers=SEARCH_WORKERS)
    assert r.complete and r.ok, [v.reason for v in r.violated]
    assert r.verdict("a-trigger-reaches-a-closed-task").status == "hit"
    none = check(BASELINE, scope("keyed-1x1", records_per_split=1, max_checkpoints=2, max_failures=0, max_declines=0,
                                 max_timeouts=0, max_lost_notifications=0, staggered_triggers=True), workers=SEARCH_WORKERS)
    assert none.verdict("a-trigger-reaches-a-closed-task").status == "not applicable", "it takes the decline budget"
