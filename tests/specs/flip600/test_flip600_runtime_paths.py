"""FLIP-600 on two runtime paths outside the decline handler: a trigger RPC that reaches a task its
task manager no longer has (row T7), and a timeout while a regional completion waits for
the coordinators' fallback (row T5, a reading)."""

from __future__ import annotations

from collections import deque

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT
from ckptcheck.model.actions import Notify
from ckptcheck.model.coordinator import pending_of
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import FINISHED
from ckptcheck.specs.designs import FLIP600
from ckptcheck.specs.findings import FINDINGS, LATE_ACK_FIX
from ckptcheck.specs.scopes import regional_coordinator_scope, scope

from conftest import SEARCH_WORKERS


def test_a_trigger_at_a_finished_task_aborts_the_whole_checkpoint_uncounted():
    """Every transition of a bounded two-region job in which a trigger RPC reaches a task that
    finished before the JobManager saw it (``late_finish_reports``) ends the pending checkpoint
    there, without a count: ``onTriggerFailure`` aborts it whole; the regional handler, which
    would have buffered a decline and completed the checkpoint with the other region, never sees it."""
    m = FlinkModel(FLIP600, scope("sources-2", records_per_split=0, bounded=True, max_checkpoints=2, max_failures=0,
                                  max_declines=0, max_timeouts=0, max_lost_notifications=0, staggered_triggers=True,
                                  late_finish_reports=True))
    seen, queue, hits = {m.initial()}, deque([m.initial()]), 0
    while queue:
        w = queue.popleft()
        for a in m.enabled(w):
            nxt = m.step(w, a)
            if type(a) is Notify and a.kind == "trigger" and w.tasks[a.task].status == FINISHED \
                    and pending_of(w.coord, a.checkpoint) is not None:
                hits += 1
                assert pending_of(nxt.coord, a.checkpoint) is None and nxt.coord.failed_count == w.coord.failed_count
                assert nxt.coord.completed_count == w.coord.completed_count, "no regional completion on this path"
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    assert hits > 0 and len(seen) < 50_000


def test_a_second_evaluation_during_the_wait_keeps_the_late_acknowledged_reader_declined():
    """Reading ``timeout-reevaluates`` (findings scope ``timeout-during-the-wait``): the second
    timer judges the checkpoint again with every task declined so far, so the late-acknowledged
    reader takes its fallback state again; the late-ack fix holds with two timeouts, the
    witness hit, and the PR violates what it violates with one."""
    design, scopes = FINDINGS["flip600-pr"]
    fs = next(f for f in scopes if f.name == "timeout-during-the-wait")
    fix = check(LATE_ACK_FIX.with_(name="fix-reentry", regional_wait_reentry="timeout-reevaluates"), fs.scope,
                workers=SEARCH_WORKERS)
    assert fix.holds, fix.headline()
    assert "a-timeout-while-coordinators-fall-back" in {v.property for v in fix.verdicts if v.status == HIT}
    pr = check(fs.configure(design), fs.scope, workers=SEARCH_WORKERS)
    assert {v.property for v in pr.violated} == {"split-ownership-consistent", "split-read-once"}
    assert fs.scope == regional_coordinator_scope().with_(max_timeouts=2)
