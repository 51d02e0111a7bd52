"""The operator-event gateway between a split enumerator and its readers (``model.gateway``,
row N6): events sent between the coordinator's checkpoint and a reader's own wait in the
reader's closed gateway; the reader's snapshot, the checkpoint's end or the reader's failure
release or drop them; FLIP-600 PR #28963 leaves a failed-region reader's gateway closed."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.model.actions import Ack, AssignSplit, Decline, FailTask, Notify, Restore, TriggerCheckpoint
from ckptcheck.model.gateway import OperatorCoordinatorHolder
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.tx import Tx
from ckptcheck.model.world import FAILED
from ckptcheck.specs.catalog import NoOperatorEventGateway
from ckptcheck.specs.designs import BASELINE, FLIP600_PR
from ckptcheck.specs.scopes import enumerator_default_scope, regional_coordinator_scope, scope

from conftest import SEARCH_WORKERS
from test_protocol import Run

SOURCE, SINK, SIDE = 0, 1, 2  # enumerator-and-side: the reader, its sink, the separate source


class Job(Run):
    """enumerator-and-side with staggered trigger RPCs, driven by hand (``Run.do``, several at once)."""

    def __init__(self, design=BASELINE, **limits):
        super().__init__(FlinkModel(design, scope("enumerator-and-side", **{
            **dict(records_per_split=1, bounded=True, max_checkpoints=2, max_failures=1, max_declines=1, max_timeouts=0,
                   max_lost_notifications=0, staggered_triggers=True), **limits})))

    def do(self, *actions):
        for a in actions:
            super().do(a)
        return self


def test_a_split_assigned_after_the_coordinators_checkpoint_waits_until_the_readers_snapshot():
    """The enumerator's snapshot has the split unassigned; the reader's has none; the reader gets
    the split right after its snapshot, so checkpoint 1 holds the split once."""
    j = Job().do(TriggerCheckpoint(1), AssignSplit(SOURCE, 0))
    assert j.w.coord.held == ((SOURCE, 1, 0),) and j.w.tasks[SOURCE].split == -1
    assert j.w.coord.unassigned == () and j.w.coord.assignments == ((2, SOURCE, 0),)  # the tracker records it at once
    assert not any(type(a) is AssignSplit for a in j.m.enabled(j.w))  # the reader waits for the split it asked for
    j.do(Notify(SOURCE, 1, "trigger"))
    assert j.w.coord.held == () and j.w.coord.gateways == ()  # the side source has no coordinator: no gateway
    assert j.w.tasks[SOURCE].split == 0 and j.w.tasks[SOURCE].position == 0
    [(_, _, snap)] = [x for x in j.w.acks if x[0] == SOURCE]
    assert snap.split == -1 and j.w.coord.pending[0].enum == (0,)


def test_without_the_gateway_the_reader_snapshots_the_split_the_enumerator_has_unassigned():
    """The catalog's flaw, step by step: the AddSplitEvent reaches the reader at once, and its
    snapshot of checkpoint 1 holds the split the enumerator's snapshot has unassigned."""
    j = Job(BASELINE.with_(name="no-gateway", gateways=NoOperatorEventGateway)).do(TriggerCheckpoint(1), AssignSplit(SOURCE, 0))
    assert j.w.coord.held == () and j.w.tasks[SOURCE].split == 0
    j.do(Notify(SOURCE, 1, "trigger"))
    [(_, _, snap)] = [x for x in j.w.acks if x[0] == SOURCE]
    assert snap.split == 0 and j.w.coord.pending[0].enum == (0,)


def test_an_abort_opens_the_gateway_before_the_readers_trigger_arrives():
    """``notifyCheckpointAborted`` reaches the holder: every gateway marked for the checkpoint
    opens, and the held event reaches the reader, whose trigger RPC is still on its way."""
    j = Job().do(TriggerCheckpoint(1), AssignSplit(SOURCE, 0), Notify(SIDE, 1, "trigger"), Decline(SIDE, 1))
    assert j.w.coord.pending == () and j.w.coord.gateways == () and j.w.coord.held == ()
    assert j.w.tasks[SOURCE].split == 0


def test_a_failed_reader_loses_its_held_event_and_the_restore_gives_the_split_back():
    j = Job().do(TriggerCheckpoint(1), AssignSplit(SOURCE, 0), FailTask(SOURCE))
    assert j.w.tasks[SOURCE].status == FAILED and j.w.coord.held == ()
    assert all(t != SOURCE for t, _ in j.w.coord.gateways)
    j.do(Restore(0))
    assert j.w.coord.unassigned == (0,) and j.w.tasks[SOURCE].split == -1 and j.w.coord.gateways == ()


def test_an_event_held_for_a_newer_checkpoint_moves_to_the_older_mark_when_the_newer_opens_first():
    """``openGatewayAndUnmarkCheckpoint``: events held for checkpoint 2 wait under checkpoint 1
    if 2 opens first; they are released only when the oldest mark opens."""
    m = FlinkModel(BASELINE, enumerator_default_scope())
    holder: OperatorCoordinatorHolder = m.gateways
    tx = Tx(m.initial())
    tx.coord = tx.coord._replace(gateways=((SOURCE, 1), (SOURCE, 2)))
    holder.send_add_split(tx, SOURCE, 0)
    assert tx.coord.held == ((SOURCE, 2, 0),)
    holder.open_gateway(tx, SOURCE, 2)
    assert tx.coord.held == ((SOURCE, 1, 0),) and tx.tasks[SOURCE].split == -1
    holder.open_gateway(tx, SOURCE, 3)  # not marked: nothing
    assert tx.coord.held == ((SOURCE, 1, 0),)
    holder.open_gateway(tx, SOURCE, 1)
    assert tx.coord.held == () and tx.coord.gateways == () and tx.tasks[SOURCE].split == 0


@pytest.mark.claims  # 72,504 states twice, about 20 s: the default run has catalog entry no-operator-event-gateway
def test_the_baselines_enumerator_scope_holds_and_the_gateway_is_what_keeps_it_holding():
    """The baseline's second default scope: the gateway's witness is hit and every property
    holds; without the gateway the same scope gives a split to two places (and, after a restore,
    commits a record twice)."""
    sc = enumerator_default_scope()
    good = check(BASELINE, sc, workers=SEARCH_WORKERS)
    assert good.complete and good.ok, [v.reason for v in good.violated]
    assert good.verdict("an-event-waits-for-a-closed-gateway").status == "hit"
    bad = check(BASELINE.with_(name="no-gateway", gateways=NoOperatorEventGateway), sc, workers=SEARCH_WORKERS)
    assert {v.property for v in bad.violated} == {"split-ownership-consistent", "exactly-once-output"}


def test_the_prs_fallback_leaves_a_failed_readers_gateway_closed_and_changes_no_verdict_in_the_model():
    """PR #28963: the coordinator of a reader in a failed region gets only the fallback notice,
    so that reader's gateway stays closed after the regional completion (the witness), until its
    trigger RPC arrives.  In the model such a reader always takes that snapshot or fails over, so
    both readings give the same verdicts in the PR's coordinator scope with staggered trigger RPCs,
    the left-closed one reaching states the other does not."""
    sc = regional_coordinator_scope().with_(staggered_triggers=True)
    pr = check(FLIP600_PR, sc, workers=SEARCH_WORKERS)
    opened = check(FLIP600_PR.with_(name="pr-gateways-reopened", regional_gateway_on_fallback="reopened"), sc, workers=SEARCH_WORKERS)
    assert pr.complete and opened.complete
    assert pr.verdict("a-gateway-stays-closed-after-a-fallback").status == "hit"
    assert opened.verdict("a-gateway-stays-closed-after-a-fallback").status == "not applicable"
    assert {v.property for v in pr.violated} == {v.property for v in opened.violated}
    assert pr.stats["states"] > opened.stats["states"]


def test_gateway_counts_are_pinned():
    """Golden counts of the gateway's scopes: a change of its rules moves them."""
    assert check(BASELINE, enumerator_default_scope().with_(max_failures=0, max_declines=0), workers=1).stats["states"] == 3_968
