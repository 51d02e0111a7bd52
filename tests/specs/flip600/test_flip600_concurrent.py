"""FLIP-600 with more than one concurrent checkpoint: one counter and one force flag for every
pending checkpoint (catalog F5), and a regional completion that subsumes the older pending ones."""

from __future__ import annotations

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT
from ckptcheck.model.actions import Ack, Decline, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import FAILED, NOTIFY_ABORT, NOTIFY_COMPLETE
from ckptcheck.specs.flip600.catalog import FLIP600_CONCURRENT
from ckptcheck.specs.designs import FLIP600_PR
from ckptcheck.specs.scopes import scope

from conftest import SEARCH_WORKERS
from test_protocol import Run

SOURCES_2 = scope("sources-2", records_per_split=0, bounded=False, max_checkpoints=5, max_failures=0, max_declines=3,
                  max_timeouts=0, max_lost_notifications=0)


def _limit_reached_with_4_pending(design) -> Run:
    """Checkpoints 1 global, 2 regional; 4 triggered while 3 is pending (so before the count
    reached the maximum); then 3 completes regionally: the count is at 2, the flag set, and 4,
    triggered unforced, is still pending."""
    r = Run(FlinkModel(design, SOURCES_2))
    r.do(TriggerCheckpoint(1)).acks()
    r.do(TriggerCheckpoint(2)).do(Decline(1, 2)).do(Ack(0, 2))
    r.do(TriggerCheckpoint(3)).do(TriggerCheckpoint(4))
    r.do(Decline(1, 3)).do(Ack(0, 3))
    assert r.w.coord.consecutive_regional == 2 and r.w.coord.force_global
    (p4,) = r.w.coord.pending
    assert p4.id == 4 and not p4.global_only
    return r


def test_the_limit_read_at_the_trigger_lets_a_checkpoint_past_it():
    """The thread's 'the next checkpoint is forced global', read as a mark at the trigger:
    checkpoint 4 completes regionally, a third hop (F5).  Read at the evaluation, its decline
    aborts it as a forced one (tier 2), and the chain stays at two hops."""
    r = _limit_reached_with_4_pending(FLIP600_CONCURRENT.with_(name="at-trigger", regional_limit_checked_at="trigger"))
    r.do(Decline(1, 4)).do(Ack(0, 4))
    assert r.w.coord.store[-1].id == 4 and r.w.coord.store[-1].refs == (0, 3)
    r = _limit_reached_with_4_pending(FLIP600_CONCURRENT)
    r.do(Decline(1, 4))  # counted, over the tolerable 0: the job fails over
    assert not r.w.coord.pending and r.w.coord.store[-1].id == 3 and all(ts.status == FAILED for ts in r.w.tasks)


def test_a_regional_completion_subsumes_the_older_pending_checkpoint():
    """Checkpoint 3 completes regionally while 2 is pending: 2 is aborted (CHECKPOINT_SUBSUMED,
    not counted) and every task of its plan is told, with checkpoint 3 as the latest completed."""
    r = Run(FlinkModel(FLIP600_CONCURRENT, SOURCES_2))
    r.do(TriggerCheckpoint(1)).acks()
    r.do(TriggerCheckpoint(2)).do(TriggerCheckpoint(3)).do(Decline(1, 3)).do(Ack(0, 3))
    assert [p.id for p in r.w.coord.pending] == [] and r.w.coord.store[-1].id == 3 and r.w.coord.failed_count == 0
    inbox = [(kind, cp, latest) for kind, cp, latest, _ in r.w.tasks[0].inbox]
    assert inbox == [(NOTIFY_COMPLETE, 1, 0), (NOTIFY_ABORT, 2, 3), (NOTIFY_COMPLETE, 3, 0)]


def test_the_shared_flag_is_cleared_under_a_newer_forced_checkpoint():
    """The PR reads its one force flag at the evaluation: an older checkpoint's tier 2 clears it
    while a newer one, triggered forced, is pending (the witness), and the PR's rules hold in
    this scope all the same; so do flip600-regional's with two concurrent checkpoints."""
    pr = FLIP600_PR.with_(name="pr-concurrent", max_concurrent_checkpoints=2, max_failed_region_percent=50)
    for design in (pr, FLIP600_CONCURRENT):
        res = check(design, SOURCES_2, symmetry=True, workers=SEARCH_WORKERS)
        assert res.holds, (design.name, res.headline())
        assert "an-older-checkpoint-clears-the-force-flag" in {v.property for v in res.verdicts if v.status == HIT}
