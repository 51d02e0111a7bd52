"""Local recovery (``model.local_state``): the task manager's copies, when they go, what a restore
reads, and the copy of a regional checkpoint that does not hold the subtask's state (catalog F6)."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT
from ckptcheck.model.actions import Decline, EmitRecord, Notify, Restore, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import FAILED
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.findings import FINDINGS
from ckptcheck.specs.scopes import scope

from conftest import SEARCH_WORKERS
from test_protocol import Run

LOCAL = BASELINE.with_(name="baseline-local-recovery", local_recovery=True)
KEYED_1X1 = scope("keyed-1x1", records_per_split=1, bounded=False, max_checkpoints=3, max_failures=1, max_declines=1,
                  max_timeouts=0, max_lost_notifications=0)
SOURCE, SINK = 0, 1


def _copies(r: Run, t: int) -> list[int]:
    return [c for c, _ in r.w.tasks[t].local]


def test_copies_are_stored_confirmed_aborted_and_read_at_a_restore():
    """A copy is stored as the acknowledgement leaves; a completion drops the older ones
    (``confirmCheckpoint``); a declined snapshot leaves none, and the copies outlive the job's
    failover; a restore of checkpoint 2 reads the copy of 2 and keeps only it
    (``pruneMatchingCheckpoints``)."""
    r = Run(FlinkModel(LOCAL, KEYED_1X1))
    r.do(EmitRecord(SOURCE)).do(TriggerCheckpoint(1))
    r.drain("source[0]->sink[0]")
    assert _copies(r, SOURCE) == [1] and _copies(r, SINK) == [1]
    r.acks().do(Notify(SOURCE, 1, "complete")).do(Notify(SINK, 1, "complete"))
    r.do(TriggerCheckpoint(2)).drain("source[0]->sink[0]")
    assert _copies(r, SINK) == [1, 2]
    r.acks().do(Notify(SINK, 2, "complete"))
    assert _copies(r, SINK) == [2], "confirmCheckpoint(2) drops the copy of 1"
    r.do(TriggerCheckpoint(3)).drain("source[0]->sink[0]").do(Decline(SINK, 3))
    assert _copies(r, SINK) == [2], "a failed asynchronous part stores no copy"
    assert all(ts.status == FAILED for ts in r.w.tasks), "counted past the tolerable 0: the job fails over"
    assert _copies(r, SINK) == [2], "the copies are the task manager's: they outlive the task"
    r.do(Restore(2))
    assert _copies(r, SINK) == [2] and r.w.tasks[SINK].processed == r.w.coord.store[-1].snapshots[SINK].processed


def test_flink_with_local_recovery_holds_where_it_holds_without():
    """A restore reads the copy of its checkpoint, which is the job manager's state there: the
    baseline with local recovery holds in a scope with a failure and a decline, the copy read."""
    res = check(LOCAL, KEYED_1X1, workers=SEARCH_WORKERS)
    assert res.holds, res.headline()
    assert "a-restore-reads-a-local-copy" in {v.property for v in res.verdicts if v.status == HIT}


@pytest.mark.parametrize("rule, holds", [("as-flink", False), ("fallback-drops-copy", False), ("restore-by-ref", True)])
def test_the_prs_documented_drop_comes_too_late(rule, holds):
    """flip600-pr with local recovery (findings scope ``local-recovery``): the sink acknowledged
    regional checkpoint 2, whose state for it is checkpoint 1's; it fails before it processes the
    fallback notice, so the copy the PR's documentation drops is still there, and the restore of 2
    commits the transaction the copy pre-committed while the source re-reads its record.  Reading
    the copy of the refCheckpointId holds."""
    design, scopes = FINDINGS["flip600-pr"]
    fs = next(f for f in scopes if f.name == "local-recovery")
    res = check(fs.configure(design).with_(local_recovery_rule=rule), fs.scope, workers=SEARCH_WORKERS,
                stop_at=("committed-output-covered",))
    assert res.holds is holds, res.headline()
    if not holds:
        assert [v.property for v in res.violated] == ["committed-output-covered"]
