"""The explorer: golden state counts, verdicts, symmetry reduction, and genericity (TwoPhase)."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.engine.explore import explore
from ckptcheck.checks.run.results import HIT, HOLDS, NOT_REACHED
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.scopes import scope
from ckptcheck.specs.twophase import TwoPhase

# Golden distinct-state counts: any change to the model's semantics moves them.
GOLDEN = [
    ("keyed-2x2", dict(max_checkpoints=0, max_failures=1, max_declines=0, max_lost_notifications=0), 10111),
    ("forward-2x2", dict(max_checkpoints=1, max_failures=0, max_declines=1, max_lost_notifications=0), 25752),
    ("three-stage", dict(max_checkpoints=0, max_failures=0, max_declines=0, max_lost_notifications=0), 5248),
]


# the one-worker fingerprint store runs in the claims tier: the exact store and two workers pin
# the same counts in the default run (which was 283-307 s)
ENGINES = [dict(store="exact"), pytest.param(dict(store="fingerprint"), marks=pytest.mark.claims),
           dict(store="fingerprint", workers=2), dict(engine="memo")]


@pytest.mark.parametrize("engine", ENGINES, ids=["exact", "fingerprint", "fingerprint-2-workers", "memo"])
@pytest.mark.parametrize("job, limits, states", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden_state_counts(job, limits, states, engine):
    """The same counts with every store and any number of workers."""
    r = check(BASELINE, scope(job, **limits), **engine)
    assert r.complete
    assert r.stats["states"] == states
    assert r.ok, [v.reason for v in r.violated]


@pytest.mark.claims  # 6.6 s; the default run searches the same scope in test_cli (87,384 states, NOT REACHED witnesses)
def test_baseline_holds_and_reports_unreached_witnesses(tiny_scope):
    """Also the correct pass of catalog entry no-alignment-block, whose scope this is."""
    assert entry("no-alignment-block").scope == tiny_scope and entry("no-alignment-block").correct == BASELINE
    r = check(BASELINE, tiny_scope, workers=2)
    assert r.complete and r.ok
    assert r.stats["states"] == 87384
    status = {v.property: v.status for v in r.verdicts}
    assert status["exactly-once-output"] == HOLDS
    assert status["two-checkpoints-complete"] == HIT
    assert status["the-job-finishes"] == HIT
    # no fault in this scope: the fault witnesses must be reported as not reached
    assert status["a-task-fails"] == NOT_REACHED
    assert status["a-task-declines"] == NOT_REACHED


@pytest.mark.claims  # 9.3 s (the default run was 352 s)
def test_symmetry_keeps_every_verdict_and_cuts_states():
    sc = scope("forward-2x2", **GOLDEN[1][1])
    counts = {}
    for design in (BASELINE, entry("commit-at-pre-commit").design):
        plain = check(design, sc)
        reduced = check(design, sc, symmetry=True)
        counts[design.name] = reduced.stats["states"]
        assert [(v.property, v.status) for v in plain.verdicts] == [(v.property, v.status) for v in reduced.verdicts]
        for a, b in zip(plain.verdicts, reduced.verdicts):
            if a.trace is not None and a.status != HIT:
                assert len(a.trace) == len(b.trace)
        assert reduced.stats["states"] < plain.stats["states"]
    assert counts[BASELINE.name] == 13028


def test_fast_canonical_form_is_the_least_permutation():
    """``symmetry.Canonical`` (memoised parts, early rejection on the task tuple) against the
    reference definition, the least of a world and all its permutations, on worlds of random
    runs of the FLIP-600 default job with faults; and on the same worlds twice, so that answers
    from the memo are compared too.  A canonical form that picked another representative would
    merge states that are not symmetric, or split ones that are."""
    import random

    from ckptcheck.model import symmetry
    from ckptcheck.specs.designs import FLIP600
    from ckptcheck.specs.scopes import regional_scope
    from ckptcheck.specs.spec import Spec

    sp = Spec(FLIP600, regional_scope(), symmetry=True)
    perms = sp.permutations
    assert len(perms) == 1
    fast = symmetry.Canonical(perms, limit=50)  # a small memo: it is emptied during the test
    rng = random.Random(7)
    worlds = []
    for _ in range(60):
        w = sp.initial_states()[0]
        for _ in range(40):
            acts = sp.actions(w)
            if not acts:
                break
            w = sp.next_state(w, rng.choice(acts))
            worlds.append(w)
    swapped = 0
    for w in worlds + worlds:
        ref = symmetry.canonical(w, perms)
        assert fast(w) == ref
        assert fast(symmetry.permute(w, perms[0])) == ref  # both members of the orbit, one representative
        swapped += ref != w
    assert 0 < swapped < len(worlds) * 2


def _declared_alike() -> list[str]:
    """The catalog variants whose every replaced component declares ``treats_subtasks_alike``
    (``ckptcheck check`` searches them with symmetry reduction): the test below checks each."""
    from ckptcheck.specs.catalog import CATALOG

    return [e.design.name for e in CATALOG if e.design.replaced() and not e.design.unlike_subtasks()]


def assert_step_commutes(design, job: str, runs: int = 120, seed: int = 11) -> int:
    """On random runs with faults from ``regional_scope`` on ``job``, the canonical forms of the
    successors of each world ``w`` and of its permutation are the same set: renaming the subtask
    indexes commutes with ``step``.  Returns the number of steps taken."""
    import random

    from ckptcheck.model import symmetry
    from ckptcheck.specs.jobs import job_by_name
    from ckptcheck.specs.scopes import regional_scope
    from ckptcheck.specs.spec import Spec

    sp = Spec(design, regional_scope().with_(job=job_by_name(job), job_name=job), symmetry=True)
    (perm,) = sp.permutations
    canon = sp.canonical
    rng = random.Random(seed)
    steps = 0
    for _ in range(runs):
        w = sp.initial_states()[0]
        for _ in range(45):
            pw = symmetry.permute(w, perm)
            mine = {canon(sp.next_state(w, a)) for a in sp.actions(w)}
            theirs = {canon(sp.next_state(pw, a)) for a in sp.actions(pw)}
            assert mine == theirs, f"{design.name}: step does not commute with renaming the subtasks"
            acts = sp.actions(w)
            if not acts:
                break
            w = sp.next_state(w, rng.choice(acts))
            steps += 1
    return steps


@pytest.mark.parametrize("name,job", [("flip600-regional", "forward-2x2"), ("flink-baseline", "forward-2x2"),
                                      ("K1-regional-final-checkpoint", "forward-2x2"),
                                      ("F3-tier2-resets-the-chain-bound", "forward-2x2"),
                                      ("flip147", "union-sink-v2-2x2")]
                         + [(name, "forward-2x2") for name in _declared_alike()])
def test_the_model_is_symmetric_where_symmetry_reduction_is_applied(name, job):
    """Symmetry reduction is sound only if renaming the subtask indexes commutes with ``step``:
    the successors of a world renamed are the renamed successors.  On random runs with faults,
    the canonical forms of the successors of ``w`` and of its permutation must be the same set.
    A rule that breaks a tie by subtask index (acks queued in index order at a trigger did) makes
    the reduced search miss states, and counts then depend on which member of an orbit is met
    first (one worker and two disagreed).  Sink V2: a committable names its writer, so the
    writer's index is renamed in the channel, the committer's collector and its snapshots (a
    committable left unrenamed fails here).  Every catalog variant whose replaced components
    declare ``treats_subtasks_alike`` is checked too (``_declared_alike``): the declaration is
    what keeps symmetry reduction on for it."""
    from ckptcheck.specs.catalog import all_designs

    assert assert_step_commutes(all_designs()[name], job) > 3000


def test_the_catalog_declares_subtasks_alike_where_the_commutation_test_checks_it():
    """K2's region rule (subtask i of every vertex together) declares ``treats_subtasks_alike``;
    a variant that declares nothing does not, nor does a subclass of a declaring class."""
    from ckptcheck.model.component import declares_alike
    from ckptcheck.specs.catalog import RegionsBySubtaskIndex

    assert "K2-regions-joined-by-keyby" in _declared_alike()
    assert "uc-no-record-filter" not in _declared_alike()

    class Sub(RegionsBySubtaskIndex):
        pass

    assert declares_alike(RegionsBySubtaskIndex) and not declares_alike(Sub)


def test_no_symmetry_on_keyed_jobs(tiny_scope):
    from ckptcheck.specs.spec import Spec

    assert Spec(BASELINE, tiny_scope, symmetry=True).canonical is None


def test_depth_bound_makes_the_search_incomplete(tiny_scope):
    r = check(BASELINE, tiny_scope, max_depth=5)
    assert not r.complete
    assert all(v.status != HOLDS for v in r.verdicts if v.kind == "always")


@pytest.mark.parametrize("n, states", [(3, 288), (5, 8832)])
def test_two_phase_commit_state_counts(n, states):
    out = explore(TwoPhase(n))
    assert out.complete
    assert out.states == states
    assert not out.discoveries


def test_fused_successors_agree_with_actions_and_next_state():
    """TwoPhase offers ``successors(s)``; the engine re-executes counterexamples with
    ``actions`` and ``next_state``, so both must give the same transitions in the same order."""
    from ckptcheck.checks.engine.bfs import successors_of

    m = TwoPhase(3)
    seen, todo = set(), list(m.initial_states())
    while todo:
        s = todo.pop()
        if s in seen:
            continue
        seen.add(s)
        fused = m.successors(s)
        assert fused == [(a, m.next_state(s, a)) for a in m.actions(s)]
        todo.extend(t for _, t in fused)
    assert len(seen) == 288
    assert successors_of(m) == m.successors


def test_two_phase_commit_violation_is_found_when_spec_is_broken():
    """A subclass that overrides ``actions`` only is searched through its ``actions``, not its
    parent's fused ``successors`` (which would miss the broken action)."""
    class Broken(TwoPhase):
        def actions(self, s):  # TM commits without waiting for every prepared message
            acts = super().actions(s)
            if s[1] == 0:
                acts.append((1, -1))
            return acts

    out = explore(Broken(3))
    assert "TCConsistent" in out.discoveries
    assert len(out.discoveries["TCConsistent"].path) == 3  # abort RM 0, commit TM, RM 1 receives commit
