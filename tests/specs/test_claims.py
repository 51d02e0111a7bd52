"""The FLIP-600 thread's claims (the FLIP-600 thread), each decided by the model within a stated scope.

Each test quotes the claim and states the verdict.  The claims about the final checkpoint and
the ref chain are in ``test_flip600.py`` (both refuted, with their counterexample traces).
"""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.rescale import search
from ckptcheck.model import mixed
from ckptcheck.model.mixed import EVEN_SPLIT, FALLBACK_AT_INDEX, FALLBACK_RESTORED, UNION
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.designs import BASELINE, FLIP600
from ckptcheck.specs.scopes import scope

from conftest import catalog_run

# Raorao's labels: at P=4 subtask i owns partitions i and i+4 (elements X0, X1)
LABEL = {0: "A0", 4: "A1", 1: "B0", 5: "B1", 2: "C0", 6: "C1", 3: "D0", 7: "D1"}


def _labels(entries) -> list[str]:
    """A partition still at offset 0 carries its ckp100 label; an advanced one is new state (E)."""
    return [LABEL[p] if o == 0 else "E" for p, o in entries]


def _raorao_run(kind: str):
    """ckp100 global at P=4; failover to P=2; new subtask 0 advances; ckp101 regional with new
    subtask 1 falling back (ref 100) to the assignment it was restored with."""
    job = mixed.initial(partitions=8, parallelism=4, first_id=100)
    job = mixed.complete(job, frozenset(), FALLBACK_RESTORED)
    job = mixed.restore(job, 2, kind)
    job = mixed.advance(job, 0)
    job = mixed.complete(job, frozenset({1}), FALLBACK_RESTORED)
    return job


def test_claim_worked_example_P4_2_1_even_split_reproduced():
    """the FLIP-600 thread (Raorao, 26 Jun 2026), even-split: "concatenate: [A0,A1, B0,B1, C0,C1, D0,D1]
    ... new subtask 0: [A0, A1, B0, B1] new subtask 1: [C0, C1, D0, D1]"; ckp101 "new-subtask 1
    decline, fallback to ckp100 -> [C0,C1,D0,D1] (ref=100)"; P=2 -> P=1 "[E0,E1,E2,E3, C0,C1,
    D0,D1]".  Verdict: REPRODUCED element for element, and the mixed checkpoint holds every
    partition once.  One correction: the example's ckp102 "REGIONAL" at P=1 cannot happen, a
    job of one region never completes a checkpoint regionally (PR #28963 step 1)."""
    job = mixed.initial(partitions=8, parallelism=4, first_id=100)
    job = mixed.complete(job, frozenset(), FALLBACK_RESTORED)
    assert [_labels(s.entries) for s in job.latest.subtasks] == [["A0", "A1"], ["B0", "B1"], ["C0", "C1"], ["D0", "D1"]]
    assert [_labels(e) for e in mixed.redistribute(job.latest, 2, EVEN_SPLIT)] == [
        ["A0", "A1", "B0", "B1"],
        ["C0", "C1", "D0", "D1"],
    ]
    job = _raorao_run(EVEN_SPLIT)
    ckp101 = job.latest
    assert ckp101.id == 101 and ckp101.refs == (0, 100)
    assert _labels(ckp101.subtasks[0].entries) == ["E"] * 4
    assert _labels(ckp101.subtasks[1].entries) == ["C0", "C1", "D0", "D1"]
    assert mixed.violation(ckp101, 8) is None
    (p1,) = mixed.redistribute(ckp101, 1, EVEN_SPLIT)
    assert _labels(p1) == ["E"] * 4 + ["C0", "C1", "D0", "D1"]
    assert mixed.restored_violation(mixed.restore(job, 1, EVEN_SPLIT), 8) is None


def test_claim_union_mixing_adds_no_new_complexity_is_refuted_across_a_rescale():
    """the FLIP-600 thread (Raorao, 26 Jun 2026): "Union is even simpler — each subtask always gets the
    complete state, so mixing doesn't add new complexity", with ckp101 = new subtask 0's state
    and subtask 1's fallback "[A0,A1,B0,B1,C0,C1,D0,D1] (ref=100)".  Verdict: REFUTED.  The
    fallback of a union-state subtask after a rescale is the whole list it was restored with,
    so the mixed checkpoint holds the partitions that subtask 0 advanced twice: at their new
    offset and at ckp100's.  Restoring at P=1 keeps one entry per partition; keeping the last
    one rewinds partition 0 to offset 0, and its first record is read and emitted again.
    Falling back to ckp100's subtask 1 instead (mechanics note 8.1 step 6) loses partitions 2 and 3.
    Without a rescale in between both rules are safe (see the stalled-subtask test)."""
    job = _raorao_run(UNION)
    ckp101 = job.latest
    assert _labels(ckp101.subtasks[1].entries) == ["A0", "A1", "B0", "B1", "C0", "C1", "D0", "D1"]
    why = mixed.violation(ckp101, 8)
    assert why == (
        "checkpoint 101 holds partition 0 at different offsets: subtask 0 (ref own) offset 1, subtask 1 (ref 100)"
        " offset 0; a restore that keeps one of them rewinds or skips records of partition 0"
    )
    rewound = mixed.restore(job, 1, UNION)
    assert dict(rewound.owned[0])[0] == 0, "partition 0 is read again from offset 0"
    # the shortest run that shows it, found by exhaustive search, for both fallback rules
    for rule in (FALLBACK_RESTORED, FALLBACK_AT_INDEX):
        out = search(UNION, rule, depth=5)
        assert not out.ok and len(out.trace) == 3 and "failover: restore checkpoint 1 at parallelism 2" in out.trace


def _without_origin(assignment):
    """Channel-state handles per new subtask as (old subtask, records), the origin dropped."""
    return [[(h[0], h[2]) for h in hs] for hs in assignment]


def test_claim_channel_state_redistribution_is_time_agnostic():
    """the FLIP-600 thread (Raorao, 26 Jun 2026): "TaskStateAssignment maps handles by their channel
    metadata — time of origin is irrelevant. Per-subtask channel state and operator state come
    from the same checkpoint snapshot".  Verdict: HOLDS.  For the mixed ckp101 the channel-state
    assignment at every new parallelism is the one a global checkpoint with the same layout
    gets; each handle goes to exactly one new subtask (ROUND_ROBIN, the mapper of forward
    edges); and each subtask's channel state has the origin of its operator state, the fallback
    included."""
    job = _raorao_run(EVEN_SPLIT)
    ckp101 = job.latest
    assert [s.origin for s in ckp101.subtasks] == [101, 100]  # subtask 1: the state restored from ckp100
    for st in ckp101.subtasks:
        if st.channel:
            assert st.channel[0] in st.entries, "in-flight record and operator state of one snapshot"
    same_time = mixed.Checkpoint(101, 2, tuple(s.__class__(s.entries, s.channel, 101) for s in ckp101.subtasks), (0, 0))
    for new_p in (1, 2, 3, 4):
        mixed_out = mixed.channel_assignment(ckp101, new_p)
        global_out = mixed.channel_assignment(same_time, new_p)
        assert _without_origin(mixed_out) == _without_origin(global_out)
        handles = [h[0] for hs in mixed_out for h in hs]
        assert sorted(handles) == [0, 1], f"P={new_p}: every handle exactly once"


@pytest.mark.claims  # 7.5 s (the default run was 289 s)
def test_claim_failed_subtask_is_a_stalled_subtask_holds_for_independent_regions_only():
    """the FLIP-600 thread (Gen): "assume the failed subtask simply stopped making progress after the
    previous checkpoint instead of failing. The resulting checkpoint would naturally contain
    the latest snapshots from healthy subtasks and the previous snapshot from that subtask".
    Verdict: HOLDS where its premise holds, REFUTED where it does not.
    - Independent regions (forward-2x2, flip600-regional, 1 record per split, 2 checkpoints,
      a decline, unbounded): every regional checkpoint is a consistent cut, exhaustively.
    - Even-split operator state, any sequence of 7 steps of processing, global and regional
      checkpoints and rescales between P = 4, 2 and 1, falling back to the restored
      assignment: every checkpoint holds each partition once, exhaustively.
    - Regions joined by a keyBy edge (catalog K2): the healthy region already holds records
      that the "stalled" region's source will replay; not a consistent cut.
    - Union state across a rescale: a stalled subtask would hold only its own partitions, the
      fallback holds the whole restored list (see the union claim)."""
    sc = scope("forward-2x2", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=0, max_declines=1,
               max_timeouts=0, max_lost_notifications=0)
    r = check(FLIP600, sc, workers=2)
    assert r.complete and r.ok
    assert r.verdict("a-regional-checkpoint-completes").status == "hit"
    out = search(EVEN_SPLIT, FALLBACK_RESTORED, depth=7)
    assert out.ok and out.states > 30_000
    k2 = entry("K2-regions-joined-by-keyby")
    assert k2.violates == "checkpoints-consistent"
    bad = catalog_run(k2.name)  # the catalog's search, shared with its tests
    assert "is not a consistent cut" in bad.verdict("checkpoints-consistent").reason
    assert not search(UNION, FALLBACK_RESTORED, depth=5).ok


def test_claim_failed_subtask_is_a_stalled_subtask_refuted_for_snapshot_epoch_state():
    """Gen's claim again, where its premise does not hold (Roman, dev@ 3 Jul 2026: the
    equivalence holds only for state that is a deterministic function of the data consumed;
    "globally agreed union state" such as an epoch is the counterexample; row B18).
    The sink keeps in union list state the id of the checkpoint each subtask last snapshotted
    (``StateKind.EPOCH``).  Verdict: REFUTED.  The regional checkpoint gives the union state
    the view {1, 2}: sink[0]'s entry from checkpoint 2, sink[1]'s from its fallback 1, which no
    checkpoint every subtask took part in can hold.  Flink's global checkpoints keep the view
    agreed in the same scope, exhaustively, so the property tells the two apart."""
    sc = scope("union-epoch-2x2", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=0,
               max_declines=1, max_timeouts=0, max_lost_notifications=0)
    bad = check(FLIP600, sc, stop_at="union-epoch-agreed")
    v = bad.verdict("union-epoch-agreed")
    assert v.status == "violated" and len(v.trace) == 14
    assert "the view {1, 2} (sink[0] from checkpoint 2, sink[1] from checkpoint 1)" in v.reason
    good = check(BASELINE, sc)
    assert good.complete and good.ok and good.stats["states"] == 21_512
    assert good.verdict("union-epoch-agreed").status == "holds"


def test_fallback_at_index_across_a_rescale_loses_even_split_state():
    """Reference 8.1 step 6 replaces a failed subtask's state with "the fallback checkpoint's
    OperatorSubtaskState"; after a rescale that is another subtask's state (Roman, 29 Jun 2026:
    "the restored (redistributed) assignment has to be retained until the first checkpoint
    completes at the new parallelism").  Verdict: the index rule loses partitions in 3 steps;
    the restored-assignment rule holds (previous test)."""
    out = search(EVEN_SPLIT, FALLBACK_AT_INDEX, depth=5)
    assert not out.ok
    assert out.trace == (
        "checkpoint 1 completes globally",
        "failover: restore checkpoint 1 at parallelism 2",
        "checkpoint 2 completes regionally: subtask 0 declines and falls back to checkpoint 1",
    )
    assert out.reason == "checkpoint 2 holds no entry for partition 1: a restore loses its position"
