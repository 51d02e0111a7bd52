"""The rules a design variant can replace by overriding one method, as a FLIP author would: each
test subclasses one component, overrides one method, and shows the change has its effect (a
verdict, a witness or a restored state differs) while the preset's rule is unchanged."""

from __future__ import annotations

import json

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.cli.main import main
from ckptcheck.checks.run.results import HOLDS, VIOLATED
from ckptcheck.model.actions import Ack, Decline, Deliver, EmitRecord, FailTask, LoseNotification, Notify, Rescale, Restore
from ckptcheck.model.actions import TriggerCheckpoint
from ckptcheck.model.assignment import PointwiseStateAssignment, StateAssignmentOperation
from ckptcheck.model.coordinator import CheckpointCoordinator
from ckptcheck.model.nullstate import NullStateRecovery
from ckptcheck.model.pointwise import producers_of
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.regional import RegionalCheckpointHandler
from ckptcheck.model.store import CompletedCheckpointStore
from ckptcheck.model.topology import Role
from ckptcheck.model.world import COMMITTED, NOTIFY_ABORT, NOTIFY_FALLBACK, NOTIFY_NAMES, REC, RECOVERED_INPUT
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.designs import BASELINE, FLIP600, FLIP600_PR, NULL_STATE, UNALIGNED, UNALIGNED_POINTWISE
from ckptcheck.specs.scopes import scope

from conftest import one
from test_explore import assert_step_commutes
from test_rescale import Run as RescaleRun
from test_rescale import owner, rescale_scope


def _deliver_all(r, kinds=(Deliver,)) -> None:
    """Take the first enabled action of ``kinds`` until none is left."""
    while True:
        acts = [a for a in r.m.enabled(r.w) if isinstance(a, kinds)]
        if not acts:
            return
        r.do(acts[0])


# -- 1. pointwise routing: PointwiseStateAssignment.new_consumer_of and primary_upstream ----------
class MirroredConsumers(PointwiseStateAssignment):
    """Old consumer d's channel state goes to new consumer newDownP - 1 - d mod newDownP."""

    def new_consumer_of(self, old_consumer, new_down_p):
        return new_down_p - 1 - old_consumer % new_down_p


class LastPrimaryProducer(PointwiseStateAssignment):
    """A recovered input buffer goes on the channel of the last producer that inherited its old
    producer, not the first."""

    def primary_upstream(self, u, d_new, held, new_pattern, new_up, new_down):
        candidates = producers_of(d_new, new_up, new_down) if new_pattern == "POINTWISE" else range(new_up)
        return next((x for x in reversed(list(candidates)) if u in held[x]), -1)


def test_the_new_consumer_rule_is_a_method_and_a_wrong_one_loses_a_buffer():
    sc = entry("pointwise-no-primary-producer-rule").scope  # pointwise-2x1, the sink rescaled to 2 and back
    bad = check(UNALIGNED_POINTWISE.with_(name="mirrored", assignment=MirroredConsumers), sc,
                stop_at="rescaled-channel-state-exact").verdict("rescaled-channel-state-exact")
    assert bad.status == VIOLATED
    assert "restored at sink 1 -> 2, loses record (split 0, offset 0)" in bad.reason and "no channel gets it back" in bad.reason
    same_depth = check(UNALIGNED_POINTWISE, sc, max_depth=len(bad.trace))
    assert same_depth.verdict("rescaled-channel-state-exact").status != VIOLATED


def _pointwise_input_state_restored(assignment) -> dict:
    """pointwise-2x1 at sink 2 (2:2): each source's record in its sink's input channel state
    (checkpoint 2), restored at sink 1 (2:1): which channel gets what."""
    sc = scope("pointwise-2x1", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=0, max_declines=0,
               max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=2, input_buffers=1)
    r = RescaleRun(FlinkModel(UNALIGNED_POINTWISE.with_(name="pw", assignment=assignment), sc))
    r.do(TriggerCheckpoint(1)).do(Deliver(r.c("source[0]->sink[0]"))).do(Deliver(r.c("source[1]->sink[0]"))).acks()
    r.do(Rescale(1))
    r.do(EmitRecord(r.t("source[0]"))).do(EmitRecord(r.t("source[1]"))).do(TriggerCheckpoint(2))
    r.do(Deliver(r.c("source[0]->sink[0]"))).do(Deliver(r.c("source[1]->sink[1]"))).acks()
    assert [s.inputs for s in r.w.coord.store[-1].snapshots][2:] == [(((0, 0),),), (((1, 0),),)]
    r.do(Rescale(2))
    return {r.topo.channel_name(ch): items for ch, items in enumerate(r.w.channels) if items}


def test_the_primary_producer_rule_is_a_method():
    both = ((REC, 0, 0, RECOVERED_INPUT), (REC, 1, 0, RECOVERED_INPUT))
    assert _pointwise_input_state_restored(PointwiseStateAssignment) == {"source[0]->sink[0]": both}
    assert _pointwise_input_state_restored(LastPrimaryProducer) == {"source[1]->sink[0]": both}


# -- 2. the RecordFilter sees the old side of its virtual channel ---------------------------------
SEEN: list = []


class KeepsAtOldIndex(StateAssignmentOperation):
    """A replicated record is kept by the new subtask with its old consumer's index."""

    def keeps(self, e, ambiguous, consumer_index, r, *, old_consumer=None, old_producer=None):
        SEEN.append((r, consumer_index, old_consumer, old_producer))
        return not ambiguous or consumer_index == old_consumer


def _output_state_restored(assignment) -> dict:
    """test_rescale's keyed-2x1 run: both sources' records are output channel state for old
    sink[0], restored at sink 2."""
    r = RescaleRun(FlinkModel(UNALIGNED.with_(name="filter", assignment=assignment), rescale_scope()))
    r.do(EmitRecord(r.t("source[0]"))).do(EmitRecord(r.t("source[1]"))).do(TriggerCheckpoint(1))
    r.do(Deliver(r.c("source[0]->sink[0]"))).do(Deliver(r.c("source[1]->sink[0]"))).acks()
    r.do(Rescale(1))
    return {r.topo.channel_name(ch): tuple(x[1:3] for x in items) for ch, items in enumerate(r.w.channels) if items}


def test_the_record_filter_gets_the_old_consumer_and_the_old_producer():
    assert _output_state_restored(StateAssignmentOperation) == {
        f"source[{x[0]}]->sink[{owner(x)}]": (x,) for x in ((0, 0), (1, 0))}
    assert {owner((0, 0)), owner((1, 0))} == {0, 1}
    SEEN.clear()
    assert _output_state_restored(KeepsAtOldIndex) == {"source[0]->sink[0]": ((0, 0),), "source[1]->sink[0]": ((1, 0),)}
    # every copy: new consumer 0 and 1, each on the virtual channel (old sink[0], old source[split])
    assert sorted(SEEN) == [((0, 0), 0, 0, 0), ((0, 0), 1, 0, 0), ((1, 0), 0, 0, 1), ((1, 0), 1, 0, 1)]
    # the replica sink[0] keeps is another subtask's key group: the catalog's uc-no-record-filter scope says so
    bad = check(UNALIGNED.with_(name="keeps-at-old-index", assignment=KeepsAtOldIndex), entry("uc-no-record-filter").scope,
                stop_at="key-groups-owned-once").verdict("key-groups-owned-once")
    assert bad.status == VIOLATED and "is in the state of sink[0], whose key-group range is [0, 63]" in bad.reason
    # a caller that does not know the old side still calls the preset's filter as before
    m = FlinkModel(UNALIGNED, rescale_scope()).configs[1]
    assert m.assignment.keeps(m.topo.job.edges[0], True, owner((0, 0)), (0, 0))


# -- 3. null-state recovery: the null-state checkpoint's snapshots --------------------------------
class SinkFromNullStateCheckpoint(NullStateRecovery):
    """A sink restarts with its state in the null-state checkpoint, not the latest one."""

    def restored_state(self, t, snap, plan, null_checkpoint=None):
        if self.model.roles[t] is Role.SINK and null_checkpoint is not None:
            return null_checkpoint.snapshots[t]
        return super().restored_state(t, snap, plan, null_checkpoint)


def _null_state_restore(rules):
    """test_null_state's scripted recovery: checkpoint 2's null-state checkpoint is 1; the sink
    fails and the job restores."""
    m = FlinkModel(NULL_STATE.with_(name="ns", null_state=rules), scope(
        "null-state", records_per_split=2, max_checkpoints=2, max_failures=1, max_declines=0, max_timeouts=0,
        max_lost_notifications=0))
    r = RescaleRun(m)
    s0, s1, sink = r.t("source[0]"), r.t("source[1]"), r.t("sink[0]")
    for emits, cp in (((s0,), 1), ((s0, s1), 2)):
        for s in emits:
            r.do(EmitRecord(s))
        r.do(TriggerCheckpoint(cp))
        _deliver_all(r, (Deliver, Ack))
    c1, c2 = r.w.coord.store
    assert c2.null_state == 1 and c1.snapshots[sink].processed != c2.snapshots[sink].processed
    r.do(FailTask(sink)).do(Restore(2))
    return r.w.tasks[sink].processed, c1.snapshots[sink].processed, c2.snapshots[sink].processed


def test_the_null_state_restore_sees_the_null_state_checkpoint():
    got, _, latest = _null_state_restore(NullStateRecovery)
    assert got == latest
    got, null_state, _ = _null_state_restore(SinkFromNullStateCheckpoint)
    assert got == null_state


# -- 4 and 6. the notice a failed region gets, and each notice a method of the coordinator --------
class AbortForFailedRegions(RegionalCheckpointHandler):
    """A failed region's tasks are told the regional checkpoint aborted (with the fallback id)."""

    def notice_for_failed_region(self, tx, t, pending, fallback, subsumed):
        self.coordinator.send_abort(tx, t, pending.id, fallback.id)


def _regional_notices(regional) -> dict:
    """forward-2x2: checkpoint 1 completes globally, sink[1] declines checkpoint 2, which completes
    regionally; each task's notices for it."""
    r = RescaleRun(FlinkModel(FLIP600.with_(name="rg", regional=regional),
                              scope("forward-2x2", max_checkpoints=3, max_declines=2, max_failures=0)))
    for cp in (1, 2):
        r.do(TriggerCheckpoint(cp))
        _deliver_all(r)
        while r.w.acks:
            t, c, _ = r.w.acks[0]
            r.do(Decline(t, c) if (cp, t) == (2, r.t("sink[1]")) else Ack(t, c))
        for t in range(4) if cp == 1 else ():
            while r.w.tasks[t].inbox:
                r.do(Notify(t, 1, NOTIFY_NAMES[r.w.tasks[t].inbox[0][0]]))
    return {r.topo.names[t]: r.w.tasks[t].inbox for t in range(4)}


def test_the_notice_of_a_failed_region_is_a_method():
    assert _regional_notices(RegionalCheckpointHandler) == {
        "source[0]": ((0, 2, 0, 0),), "sink[0]": ((0, 2, 0, 0),),
        "source[1]": ((NOTIFY_FALLBACK, 2, 1, 0),), "sink[1]": ((NOTIFY_FALLBACK, 2, 1, 0),)}
    got = _regional_notices(AbortForFailedRegions)
    assert got["source[1]"] == got["sink[1]"] == ((NOTIFY_ABORT, 2, 1, 0),) and got["sink[0]"] == ((0, 2, 0, 0),)


class AbortWithoutCompletedId(CheckpointCoordinator):
    """notifyCheckpointAborted carries no latest completed id: an abort commits nothing."""

    def send_abort(self, tx, t, cp, latest):
        super().send_abort(tx, t, cp, 0)


def _abort_after_a_lost_completion(coordinator) -> tuple:
    """sink[0] loses checkpoint 1's completion, declines checkpoint 2 and reads its abort notice:
    its notice and its transaction of checkpoint 1 then."""
    sc = scope("forward-2x2", records_per_split=1, max_checkpoints=2, max_failures=0, max_declines=1, max_timeouts=0,
               max_lost_notifications=1)
    r = RescaleRun(FlinkModel(BASELINE.with_(name="ab", coordinator=coordinator, tolerable_failed_checkpoints=1), sc))
    sink = r.t("sink[0]")
    r.do(EmitRecord(r.t("source[0]"))).do(TriggerCheckpoint(1))
    _deliver_all(r)
    r.acks().do(LoseNotification(sink, 1, "complete")).do(TriggerCheckpoint(2))
    _deliver_all(r)
    r.do(Decline(sink, 2))
    notice = r.w.tasks[sink].inbox
    r.do(Notify(sink, 2, "abort"))
    return notice, [(x.seq, x.status) for x in r.w.txns if x.task == sink]


def test_each_notice_is_sent_by_a_method_of_the_coordinator():
    notice, txns = _abort_after_a_lost_completion(CheckpointCoordinator)
    assert notice == ((NOTIFY_ABORT, 2, 1, 0),) and txns == [(1, COMMITTED)], "the abort notice commits checkpoint 1"
    notice, txns = _abort_after_a_lost_completion(AbortWithoutCompletedId)
    assert notice == ((NOTIFY_ABORT, 2, 0, 0),) and txns and txns[0][1] != COMMITTED


# -- 5. the ref chain: CompletedCheckpointStore.referenced and discard(..., referenced) -----------
class RefsNotFollowed(CompletedCheckpointStore):
    """The store's ref closure is the ids alone (no refCheckpointId is followed)."""

    def referenced(self, store, ids):
        return set(ids)


class CleanerSparesReferenced(CompletedCheckpointStore):
    """The cleaner keeps the files of a subsumed checkpoint that a retained one refers to."""

    def discard(self, subsumed, retained, pending, referenced=frozenset()):
        return tuple(i for i in subsumed if i not in referenced)


def test_the_ref_closure_and_the_cleaner_see_the_refs():
    e = entry("K4-retention-ignores-refs")  # FLIP600 whose retention ignores refs: the fallback's files go
    not_followed = check(FLIP600.with_(name="refs-not-followed", store=RefsNotFollowed), e.scope, stop_at="checkpoints-restorable")
    assert not_followed.verdict("checkpoints-restorable").status == VIOLATED
    spared = check(e.design.with_(name="K4-cleaner-spares-referenced", store=CleanerSparesReferenced), e.scope)
    preset = check(FLIP600, e.scope)
    assert spared.complete and spared.verdict("checkpoints-restorable").status == HOLDS
    assert preset.complete and preset.ok and preset.stats["states"] == 1860


def test_a_cleaner_written_for_three_parameters_still_runs():
    calls = []

    class Old(CompletedCheckpointStore):
        def discard(self, subsumed, retained, pending):
            calls.append(subsumed)
            return subsumed

    m = FlinkModel(FLIP600.with_(name="old-cleaner", store=Old), scope("forward-2x2", max_checkpoints=1))
    m.step(m.initial(), TriggerCheckpoint(1))
    assert calls == [()]


# -- 7. symmetry: a component that declares treats_subtasks_alike keeps it on ---------------------
class SameNoticeDeclared(RegionalCheckpointHandler):
    """flip600-pr's notice, through the method, declared alike."""

    treats_subtasks_alike = True

    def notice_for_failed_region(self, tx, t, pending, fallback, subsumed):
        super().notice_for_failed_region(tx, t, pending, fallback, subsumed)


class SameNoticeUndeclared(RegionalCheckpointHandler):
    """The same, not declared: symmetry reduction goes off for it."""

    def notice_for_failed_region(self, tx, t, pending, fallback, subsumed):
        super().notice_for_failed_region(tx, t, pending, fallback, subsumed)


PR_DECLARED = FLIP600_PR.with_(name="pr-declared", regional=SameNoticeDeclared)
PR_UNDECLARED = FLIP600_PR.with_(name="pr-undeclared", regional=SameNoticeUndeclared)
FOUR = ["--job", "sources-4", "--records", "0", "--unbounded", "--checkpoints", "2", "--failures", "0", "--declines", "1",
        "--timeouts", "0", "--lost-notifications", "0"]


def _cli_states(design: str, tmp_path, capsys) -> tuple[int, str]:
    out = tmp_path / design.replace(":", "-")
    assert main(["check", "--design", design, "--out", str(out), *FOUR]) == 0
    text = capsys.readouterr().out
    doc = json.loads(one(out, "*.result.json").read_text())
    return doc["stats"]["states"], text


def test_a_declared_variant_of_flip600_pr_searches_as_few_states_as_the_preset(tmp_path, capsys):
    preset, _ = _cli_states("flip600-pr", tmp_path, capsys)
    declared, text = _cli_states("test_variant_api:PR_DECLARED", tmp_path, capsys)
    undeclared, _ = _cli_states("test_variant_api:PR_UNDECLARED", tmp_path, capsys)
    assert "symmetry reduction on" in text
    assert declared == preset < undeclared
    assert assert_step_commutes(PR_DECLARED, "forward-2x2", runs=30) > 500


class RegionOfSubtaskZero(RegionalCheckpointHandler):
    """Declared alike, wrongly: the subtasks of index 0 are a region inside the whole job's, so a
    decline there fails both regions (the checkpoint aborts) and one elsewhere only one."""

    treats_subtasks_alike = True

    def regions(self, waiting=None):
        zero = frozenset(t for t in range(self.topo.n_tasks) if self.topo.index_of[t] == 0)
        return [zero, frozenset(range(self.topo.n_tasks))]


def test_the_commutation_test_refutes_a_false_declaration():
    with pytest.raises(AssertionError, match="does not commute"):
        assert_step_commutes(FLIP600.with_(name="zero-region", regional=RegionOfSubtaskZero), "forward-2x2")


# -- 8. --stop-at-first ------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["check", "compare"])
def test_stop_at_first_stops_at_the_first_violation_of_any_property(command, tmp_path, capsys):
    e = entry("K4-retention-ignores-refs")
    designs = ["--design", e.design.name] if command == "check" else ["flip600-regional", e.design.name]
    args = [command, *designs, "--out", str(tmp_path), "--job", "forward-2x2", "--records", "0", "--unbounded",
            "--checkpoints", "2", "--failures", "0", "--declines", "1", "--timeouts", "0", "--lost-notifications", "0",
            "--no-instant-acks", "--stop-at-first"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "stopped at the first violation of checkpoints-restorable" in out
    full = check(e.design, e.scope)
    assert full.stats["states"] > 931 and check(e.design, e.scope, stop_at="any").stats["states"] == 931


# -- 9. every variant above on the memo engine, each cached answer checked -----------------------
def _memo_cases():
    four = scope("sources-4", records_per_split=0, bounded=False, max_checkpoints=2, max_failures=0, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)
    k4 = entry("K4-retention-ignores-refs").scope
    return [
        pytest.param(UNALIGNED_POINTWISE.with_(name="mirrored", assignment=MirroredConsumers),
                     entry("pointwise-no-primary-producer-rule").scope, "rescaled-channel-state-exact", id="mirrored-consumers"),
        pytest.param(UNALIGNED_POINTWISE.with_(name="last-primary", assignment=LastPrimaryProducer),
                     entry("pointwise-no-primary-producer-rule").scope, "rescaled-channel-state-exact", id="last-primary-producer",
                     marks=pytest.mark.deep),  # 155 s on one core, measured once
        pytest.param(UNALIGNED.with_(name="keeps-at-old-index", assignment=KeepsAtOldIndex), entry("uc-no-record-filter").scope,
                     "key-groups-owned-once", id="keeps-at-old-index"),
        pytest.param(FLIP600.with_(name="refs-not-followed", store=RefsNotFollowed), k4, "checkpoints-restorable", id="refs-not-followed"),
        pytest.param(entry("K4-retention-ignores-refs").design.with_(name="K4-cleaner-spares-referenced", store=CleanerSparesReferenced),
                     k4, None, id="cleaner-spares-referenced"),
        pytest.param(PR_DECLARED, four, None, id="pr-declared"),
        pytest.param(PR_UNDECLARED, four, None, id="pr-undeclared"),
    ]


@pytest.mark.parametrize("design,sc,stop_at", _memo_cases())
def test_each_variant_here_searches_alike_on_the_memo_engine_with_every_answer_checked(design, sc, stop_at):
    """``--memo-check 1`` on the variants this file defines: no cached answer differs from the
    plain model's, and the memo engine gives the reference engine's states and verdicts."""
    ref = check(design, sc, stop_at=stop_at)
    memo = check(design, sc, "memo", stop_at=stop_at, memo_check=1.0)
    assert "run plainly" not in memo.stats["engine_detail"], memo.stats["engine_detail"]
    assert (memo.stats["states"], memo.complete) == (ref.stats["states"], ref.complete)
    assert {v.property: (v.status, len(v.trace or ())) for v in memo.verdicts} == \
        {v.property: (v.status, len(v.trace or ())) for v in ref.verdicts}
