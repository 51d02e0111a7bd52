"""FLIP-600 as PR #28963/#28964 implement it (preset ``flip600-pr``): each rule of
the sources page's rows B1-B18 that the preset takes, against the thread's reading
(``flip600-proposed``) in the same run, and the PR's live enumerator add-back (row B12)."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.model.actions import Ack, AssignSplit, Decline, EndOfInput, Notify, Timeout, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import FAILED, FINISHED, NOTIFY_ABORT, NOTIFY_FALLBACK
from ckptcheck.specs.designs import FLIP600_PR, FLIP600_PROPOSED
from ckptcheck.specs.findings import enumerator_scope
from ckptcheck.specs.scopes import scope

from conftest import SEARCH_WORKERS

PR = FLIP600_PR
# the thread's rules with the PR's ratio and counter, so that only the rule under test differs
THREAD = FLIP600_PROPOSED.with_(name="thread-at-pr-ratio", max_failed_region_percent=30)
KINDS = ("complete", "abort", "fallback")


class Four:
    """sources-4 (four regions of one subtask, no records): checkpoints driven by hand."""

    def __init__(self, design, bounded: bool = False, **limits):
        sc = scope("sources-4", records_per_split=0, bounded=bounded, max_checkpoints=6, max_failures=0,
                   max_declines=4, max_timeouts=1, max_lost_notifications=0, **limits)
        self.m = FlinkModel(design, sc)
        self.w = self.m.initial()

    def do(self, a):
        assert a in self.m.enabled(self.w), a.describe(self.m.topo)
        self.w = self.m.step(self.w, a)
        return self

    def respond(self, cp: int, decline=()):
        """Every ack in flight of ``cp`` arrives; the subtasks in ``decline`` decline instead."""
        for t, c, _ in list(self.w.acks):
            if c == cp:
                self.do(Decline(t, c) if t in decline else Ack(t, c))
        return self

    def notify_all(self):
        for t in range(4):
            while self.w.tasks[t].inbox:
                kind, c = self.w.tasks[t].inbox[0][:2]
                self.do(Notify(t, c, KINDS[kind]))
        return self

    def checkpoint(self, cp: int, decline=()):
        return self.do(TriggerCheckpoint(cp)).respond(cp, decline).notify_all()


def test_pr_rules_are_the_ones_review_section_b_names():
    """The preset is the thread's design with the PR's rules (rows B1, B3-B9, B12, B13, N1-N3, N5, and
    PR2's uncaught throw) and one reading of N4 (the findings report searches the other two), the
    gateway a fallback leaves closed (N6), no keep-alive of the fallback's merged segments
    (PR4), and, with local recovery on, the drop of a task's local copy that PR #28966's
    documentation describes."""
    changed = {k: v for k, v in PR.knobs().items() if FLIP600_PROPOSED.knobs()[k] != v}
    assert changed == {
        "max_failed_region_percent": 30, "regions_of_running_tasks": True, "forced_checkpoint_waits": True,
        "end_of_input_rule": "finished-forces-at-trigger", "timeouts_complete_regionally": True,
        "fallback_notice_reaches_operators": False, "coordinator_region_fallback": "add-back-live",
        "fallback_state_rule": "by-index-stuck", "fallback_notice_at_task": "none",
        "regional_finished_check": "after-fallback-counted", "regional_completion": "futures-late-ack-overwrites",
        "regional_gateway_on_fallback": "left-closed", "file_merging_keeps_fallback_alive": False,
        "local_recovery_rule": "fallback-drops-copy",
    }


def test_ratio_03_needs_four_regions():
    """B4: one failed region of four (25 %) completes regionally; of two (50 %) it aborts."""
    r = Four(PR).checkpoint(1).checkpoint(2, decline={0})
    assert r.w.coord.store[-1].id == 2 and r.w.coord.store[-1].refs == (1, 0, 0, 0)
    r = Four(PR).checkpoint(1).checkpoint(2, decline={0, 1})
    assert r.w.coord.store[-1].id == 1
    assert all(ts.status == FAILED for ts in r.w.tasks), "a counted abort over tolerable 0 fails the job"


def test_default_scope_has_four_regions_below_a_ratio_of_one_half():
    """forward-2x2 has two regions: at 0.3 one failed region aborts, so the regional path would
    never run; designs with a ratio below 0.5 get four one-subtask regions."""
    from ckptcheck.specs.designs import FLIP600
    from ckptcheck.specs.scopes import default_scope_for

    assert default_scope_for(PR).job_name == "sources-4" and default_scope_for(PR).max_timeouts == default_scope_for(PR).max_failures == 1
    assert default_scope_for(FLIP600).job_name == "forward-2x2"


def test_regions_are_counted_over_the_tasks_the_checkpoint_waits_for():
    """B3: ``regionIdProvider`` over ``tasksToWaitFor``: a finished region is not counted."""
    m = Four(PR).m
    waiting = 0b1110  # source[0] FINISHED
    assert len(m.regional.regions(waiting)) == 3
    assert len(Four(THREAD).m.regional.regions(waiting)) == 4


def test_forced_checkpoint_waits_for_every_response_then_tier2_resets():
    """B1, B6: two regional checkpoints force the third global; its decline is buffered
    until every task responded (the thread aborts at once); tier 2 then resets counter and
    flag."""
    r = Four(PR).checkpoint(1).checkpoint(2, decline={0}).checkpoint(3, decline={0})
    assert r.w.coord.consecutive_regional == 2 and r.w.coord.force_global
    r.do(TriggerCheckpoint(4)).do(Decline(0, 4))
    assert [p.id for p in r.w.coord.pending] == [4], "still pending: three tasks have not responded"
    r.respond(4)
    assert not r.w.coord.pending and r.w.coord.store[-1].id == 3
    assert r.w.coord.consecutive_regional == 0 and not r.w.coord.force_global
    t = Four(THREAD).checkpoint(1).checkpoint(2, decline={0}).checkpoint(3, decline={0})
    t.do(TriggerCheckpoint(4)).do(Decline(0, 4))
    assert not t.w.coord.pending, "the thread aborts a forced checkpoint at its first decline"


def test_a_ratio_abort_of_a_forced_checkpoint_keeps_the_force_and_the_counter():
    """B5, B6: the ratio check comes before the force flag, so a forced checkpoint that too
    many regions declined aborts without touching them."""
    r = Four(PR).checkpoint(1).checkpoint(2, decline={0}).checkpoint(3, decline={0})
    r.checkpoint(4, decline={0, 1})
    assert r.w.coord.force_global and r.w.coord.consecutive_regional == 2


def test_a_timeout_completes_regionally():
    """B9: the timeout marks the silent tasks declined and evaluates the checkpoint."""
    r = Four(PR).checkpoint(1).do(TriggerCheckpoint(2))
    for t in (1, 2, 3):
        r.do(Ack(t, 2))
    r.do(Timeout(2))
    assert r.w.coord.store[-1].id == 2 and r.w.coord.store[-1].refs == (1, 0, 0, 0)
    r.do(Ack(0, 2))  # the late acknowledgement is discarded with its file
    assert (2, 0) not in r.w.files
    t = Four(THREAD).checkpoint(1).do(TriggerCheckpoint(2))
    for x in (1, 2, 3):
        t.do(Ack(x, 2))
    t.do(Timeout(2))
    assert t.w.coord.store[-1].id == 1, "the thread's timeout aborts"


def test_end_of_input_forces_only_once_every_source_finished():
    """B8, B6: every source has ended (EndOfData sent, its final checkpoint pending), none is
    FINISHED.  The thread makes the next checkpoint global-only; the PR's check asks for
    FINISHED, so a decline still completes regionally (the window between "ended" and
    "finished")."""
    pr = Four(PR, bounded=True).checkpoint(1)
    thread = Four(THREAD, bounded=True).checkpoint(1)
    for r in (pr, thread):
        for t in range(4):
            r.do(EndOfInput(t))
        r.do(TriggerCheckpoint(2)).do(Decline(0, 2))
    assert [p.id for p in thread.w.coord.pending] == [], "the thread: global-only, aborted at the decline"
    pr.respond(2)
    assert pr.w.coord.store[-1].id == 2 and pr.w.coord.store[-1].refs[0] == 1


def test_fallback_notice_is_a_no_op():
    """B13: ``notifyRegionalCheckpointFallback`` is a no-op by default: the failed-region task
    neither commits nor counts the completion."""
    r = Four(PR).checkpoint(1).do(TriggerCheckpoint(2)).respond(2, decline={0})
    assert r.w.tasks[0].inbox[0][0] == NOTIFY_FALLBACK
    before = r.w.tasks[0]
    r.do(Notify(0, 2, "fallback"))
    assert r.w.tasks[0] == before._replace(inbox=before.inbox[1:])
    t = Four(THREAD).checkpoint(1).do(TriggerCheckpoint(2)).respond(2, decline={0})
    t.do(Notify(0, 2, "fallback"))
    assert t.w.tasks[0].notified == 2, "the thread's reading takes it as the completion (F1)"


@pytest.mark.parametrize("reading, notified, finished", [("none", 1, False), ("latest-reported", 2, False),
                                                         ("final", 2, True)])
def test_three_readings_of_the_fallback_notice_at_the_task(reading, notified, finished):
    """N4: every source ended, so checkpoint 2 is each one's final checkpoint; source[0]'s
    snapshot of it fails and 2 completes regionally.  What the fallback notice does to source[0]:
    nothing; ``latestReportCheckpointId`` 2 but no ``finalCheckpointCompleted``; or both, and the
    task finishes with checkpoint 1's state as its final checkpoint's (F1)."""
    design = PR.with_(name=f"pr-{reading}", fallback_notice_at_task=reading, tolerable_failed_checkpoints=1)
    r = Four(design, bounded=True).checkpoint(1)
    for t in range(4):
        r.do(EndOfInput(t))
    r.do(TriggerCheckpoint(2)).respond(2, decline={0}).do(Notify(0, 2, "fallback"))
    ts = r.w.tasks[0]
    assert (ts.notified, ts.final_done, ts.status == FINISHED) == (notified, finished, finished)
    if finished:
        return
    # checkpoint 3 fails in two regions of four and aborts; its abort notice carries 2, whose
    # completion the task replays first (FLINK-21080) unless 2 is already its latest reported id
    r.do(TriggerCheckpoint(3)).respond(3, decline={2, 3})
    assert r.w.tasks[0].inbox[-1][:3] == (NOTIFY_ABORT, 3, 2)
    r.do(Notify(0, 3, "abort"))
    assert r.w.tasks[0].final_done == (reading == "none"), "only a task that ignored the notice takes the replay"


@pytest.mark.claims  # 11 s; the default run replays the committed trace (tests/specs/test_findings.py)
def test_live_add_back_hands_a_split_to_a_second_reader():
    """B12: the PR puts a failed-region reader's later split back into the live enumerator
    while that reader keeps it; an idle reader is handed the same split, and both read it.
    Verdict: the PR reads a split twice (``split-read-once``, shortest counterexample 12
    steps: the trace the findings report shows)."""
    r = check(PR, enumerator_scope(), stop_at="split-read-once")
    v = r.verdict("split-read-once")
    assert v.status == "violated" and len(v.trace) == 12
    assert v.trace[-1] == AssignSplit(1, 0) and Decline(0, 2) in v.trace
    assert v.reason.startswith("split 0 is held by both source[0] (at offset 0) and source[1] (at offset 0)")


@pytest.mark.deep  # about 3 minutes with 2 workers
def test_live_add_back_fix_holds_in_the_same_scope():
    """The thread's correction (the checkpoint's copy only) holds where the PR reads twice:
    2,506,087 states, exhaustively (the completion waiting for the coordinators, row N5)."""
    fixed = PR.with_(name="flip600-pr-fix-B12", coordinator_region_fallback="fallback")
    r = check(fixed, enumerator_scope(), workers=SEARCH_WORKERS)
    assert r.complete and r.ok and r.stats["states"] == 2_506_087
    assert r.verdict("a-regional-checkpoint-completes").status == "hit"


@pytest.mark.claims  # three searches of the PR's second default scope, about 17 s
def test_second_default_scope_reaches_the_prs_end_of_input_rules():
    """``end_of_input_scope`` (its figure is in specs/figures.py): the PR holds there,
    exhaustively, and both end-of-input rules of the PR are reached: a declined checkpoint
    judged over the one region still running (the finished side region not counted, so a
    single region: it aborts), and a checkpoint triggered once every source FINISHED while the
    sink still runs, which the trigger forces global (row N2).  The thread's reading
    (``flip600-regional``) has neither rule: not applicable there; the PR's rule read at the
    evaluation instead never reaches the second here."""
    from ckptcheck.checks.run.results import HIT, NOT_APPLICABLE, NOT_REACHED
    from ckptcheck.specs.designs import FLIP600
    from ckptcheck.specs.scopes import (default_scopes_for, end_of_input_scope, four_region_scope,
                                        regional_coordinator_scope, regional_union_scope)

    assert default_scopes_for(PR) == (four_region_scope(), end_of_input_scope(), regional_union_scope(),
                                      regional_coordinator_scope())
    r = check(PR, end_of_input_scope(), workers=SEARCH_WORKERS)
    assert r.complete and r.ok, [v.reason for v in r.violated]
    v = r.verdict("a-finished-region-is-not-counted")
    assert v.status == HIT and "judged over 1 of 2 regions (side[0] had finished" in v.reason and "aborted" in v.reason
    v = r.verdict("finished-sources-force-global")
    assert v.status == HIT and "triggered once every source had FINISHED: the trigger set the force flag" in v.reason
    at_evaluation = check(PR.with_(name="pr-at-evaluation", end_of_input_rule="finished-sets-force"), end_of_input_scope(), workers=SEARCH_WORKERS)
    assert at_evaluation.verdict("finished-sources-force-global").status == NOT_REACHED
    thread = check(FLIP600, end_of_input_scope(), workers=SEARCH_WORKERS, max_states=1)
    for name in ("a-finished-region-is-not-counted", "finished-sources-force-global"):
        assert thread.verdict(name).status == NOT_APPLICABLE


@pytest.mark.claims  # 12 s; the figures flip600-pr-union and flip600-regional-union in the same tier
def test_third_default_scope_reaches_the_union_check_on_the_regional_path():
    """N3: a source subtask that ended snapshots the final checkpoint while a sibling's snapshot
    fails; the regional content would hold the union-state vertex partly finished.  The PR
    aborts it counted, after the coordinators' fallback (``finalizeRegionalCheckpoint``), and
    with no tolerable failure the job fails over; the thread's corrected design aborts it
    uncounted, before the fallback.  Both hold in the scope (the correct side of
    catalog K8, whose design skips the check and hangs)."""
    from ckptcheck.checks.run.results import HIT
    from ckptcheck.specs.designs import FLIP600
    from ckptcheck.specs.scopes import regional_union_scope

    for design, how, states in ((PR, "counted, the job fails over", 25_767), (FLIP600, "not counted", 19_958)):
        r = check(design, regional_union_scope(), workers=1, symmetry=True)
        assert r.complete and r.ok and r.stats["states"] == states, [v.reason for v in r.violated]
        v = r.verdict("a-regional-union-state-abort")
        assert v.status == HIT and f"aborts ({how}): union-state vertex source would be partly finished" in v.reason


@pytest.mark.claims  # 7 s; the figure flip600-pr-coordinators in the same tier, catalog K9 in the default run
def test_fourth_default_scope_reaches_a_late_ack_while_the_coordinators_fall_back():
    """N5: a reader given its split after checkpoint 1 does not acknowledge checkpoint 2 in time;
    the timeout marks it declined and the regional completion waits for the enumerator's
    fallback, which puts the split back.  The reader's acknowledgement arrives meanwhile: the PR
    takes it, so checkpoint 2 holds the split twice (13 steps); discarding it leaves only the
    live add-back's double read (B12); atomically, as the model had it, no acknowledgement can
    arrive in between and the witness is out of reach."""
    from ckptcheck.checks.run.results import HIT, NOT_APPLICABLE
    from ckptcheck.specs.scopes import regional_coordinator_scope

    sc = regional_coordinator_scope()
    r = check(PR, sc, workers=1)
    assert r.complete and r.stats["states"] == 46_369
    v = r.verdict("a-late-ack-while-coordinators-fall-back")
    assert v.status == HIT and "it replaces its fallback state" in v.reason
    assert sorted((x.property, len(x.trace)) for x in r.violated) == [("split-ownership-consistent", 13), ("split-read-once", 12)]
    assert "checkpoint 2 gives split 0 to both the split enumerator (unassigned) and source[" in r.verdict("split-ownership-consistent").reason
    discarded = check(PR.with_(name="pr-discarding", regional_completion="futures-late-ack-discarded"), sc, workers=1)
    assert [x.property for x in discarded.violated] == ["split-read-once"]
    assert "it is discarded at the completion" in discarded.verdict("a-late-ack-while-coordinators-fall-back").reason
    atomic = check(PR.with_(name="pr-atomic", regional_completion="atomic"), sc, workers=1)
    assert [x.property for x in atomic.violated] == ["split-read-once"]
    assert atomic.verdict("a-late-ack-while-coordinators-fall-back").status == NOT_APPLICABLE

