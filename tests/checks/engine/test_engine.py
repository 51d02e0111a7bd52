"""The exhaustive engine's stores and workers: the fingerprint store finds the very paths the
exact store finds, re-execution catches a fingerprint collision, and the level-synchronous
search over two processes gives the same counts and shortest counterexamples."""

from __future__ import annotations

import time

import pytest

from ckptcheck.checks.engine.explore import explore
from ckptcheck.checks.engine.bfs import FingerprintCollision, PathStore, collision_probability
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.scopes import scope
from ckptcheck.specs.spec import Spec
from ckptcheck.specs.twophase import TwoPhase

# a baseline flaw, a regional chain, the enumerator and NO_CLAIM (the deep run checks all 15)
ENTRIES = ["cleaner-deletes-restore-checkpoint", "K3-no-coordinator-fallback", "F3-tier2-resets-the-chain-bound",
           "K7-no-claim-snapshot-deleted-too-early"]


def _search(name: str, **engine):
    e = entry(name)
    return explore(Spec(e.design, e.scope), stop_when=lambda d: e.violates in d, **engine).discoveries[e.violates]


@pytest.mark.parametrize("name", ENTRIES)
def test_fingerprint_store_finds_the_exact_stores_path_and_two_workers_one_as_short(name):
    exact = _search(name, store="exact")
    fp = _search(name, store="fingerprint")
    par = _search(name, store="fingerprint", workers=2)
    assert fp.path == exact.path and fp.reason == exact.reason
    assert len(par.path) == len(exact.path)


@pytest.mark.claims  # 9.0 s (the default run was 352 s)
def test_parallel_search_is_deterministic_whatever_the_number_of_workers_and_reports_every_figure():
    """Which worker keeps a new world depends on timing; the results must not: the parent
    links and the discoveries are chosen by fingerprint, so two and three workers give the
    very same counterexamples, action for action, and the counts of one process.  With
    symmetry too, where the stored action indexes are those of canonical worlds and the
    rebuilt path must find, in each concrete state, an action that reaches the stored
    fingerprint (a violation's path is replayed and its reason computed again)."""
    sc = scope("keyed-2x1", max_checkpoints=1, max_failures=0, max_declines=1, max_lost_notifications=0)
    sym = scope("forward-2x2", max_checkpoints=1, max_failures=0, max_declines=1, max_lost_notifications=0)
    flawed = entry("commit-at-pre-commit")
    for spec in (Spec(BASELINE, sc), Spec(flawed.design, sym, symmetry=True)):
        a = explore(spec, store="fingerprint", workers=2)
        c = explore(spec, store="fingerprint", workers=3)
        one = explore(spec, store="fingerprint")
        figures = (one.states, one.transitions, one.depth, one.quiescent_states)
        assert (a.states, a.transitions, a.depth, a.quiescent_states) == figures == (c.states, c.transitions, c.depth, c.quiescent_states)
        assert len(a.discoveries) >= 5 and {k: (v.path, v.reason) for k, v in a.discoveries.items()} == {
            k: (v.path, v.reason) for k, v in c.discoveries.items()}
        assert {k: len(v.path) for k, v in a.discoveries.items()} == {k: len(v.path) for k, v in one.discoveries.items()}
        assert a.workers == 2 and a.collision_probability == collision_probability(a.states, a.transitions)
    bad = a.discoveries[flawed.violates]
    w = spec.initial_states()[0]
    for act in bad.path:
        assert act in spec.actions(w)
        w = spec.next_state(w, act)
    check_of = {prop.name: check for prop, check in spec.always}
    assert check_of[flawed.violates](w) == bad.reason


def test_batches_of_one_state_count_what_large_batches_count(monkeypatch):
    """A worker sends the fingerprints it does not own in batches, answers its peers between
    expansions, and gives an idle peer half of what it has left.  With a batch, a look at the
    inbox and a handover offered after every state (thousands of messages, answers crossing
    questions), the counts, the depth and the counterexamples must be those of large batches:
    a state claimed twice would be counted twice, a lost answer or handover would lose states,
    and a late lesser claim that did not become the parent link would change a path."""
    from ckptcheck.checks.engine import parallel

    sc = scope("keyed-2x1", max_checkpoints=1, max_failures=0, max_declines=1, max_lost_notifications=0)
    whole = explore(Spec(BASELINE, sc), workers=2)
    monkeypatch.setattr(parallel, "FLUSH", 1)
    monkeypatch.setattr(parallel, "POLL", 1)
    monkeypatch.setattr(parallel, "STEAL_MIN", 0)
    small = explore(Spec(BASELINE, sc), workers=2)
    assert (small.states, small.transitions, small.depth, small.quiescent_states) == (
        whole.states, whole.transitions, whole.depth, whole.quiescent_states)
    assert small.states == 10641
    assert {k: v.path for k, v in small.discoveries.items()} == {k: v.path for k, v in whole.discoveries.items()}


def test_uneven_frontiers_are_evened_out_by_moving_the_excess():
    from ckptcheck.checks.engine.parallel import _moves

    assert _moves([10, 0]) == [(0, 1, 5)]
    assert _moves([7, 1, 1]) == [(0, 1, 2), (0, 2, 2)]
    assert _moves([3, 3]) == []
    sizes = [13, 0, 5, 2]
    for src, dst, k in _moves(sizes):
        sizes[src] -= k
        sizes[dst] += k
    assert max(sizes) - min(sizes) <= 1 and sum(sizes) == 20


def test_bounds_end_a_parallel_search_incomplete():
    sc = scope("keyed-2x2", max_checkpoints=1, max_failures=1, max_declines=1, max_lost_notifications=0)
    by_depth = explore(Spec(BASELINE, sc), store="fingerprint", workers=2, max_depth=6)
    assert not by_depth.complete and by_depth.stopped == "depth bound 6 reached" and by_depth.depth == 6
    one = explore(Spec(BASELINE, sc), store="fingerprint", max_depth=6)
    assert by_depth.states == one.states
    by_states = explore(Spec(BASELINE, sc), store="fingerprint", workers=2, max_states=500)
    assert not by_states.complete and by_states.stopped == "state bound 500 reached"


def test_a_collision_on_a_rebuilt_path_is_detected_not_reported():
    spec = Spec(BASELINE, scope("forward-2x2", max_checkpoints=0, max_failures=0, max_declines=0, max_lost_notifications=0))
    s0 = spec.initial_states()[0]
    store = PathStore([s0])
    root = store.add(hash(s0), -1, 0)
    a = spec.actions(s0)[0]
    child = store.add(hash(spec.next_state(s0, a)), root, 0)
    assert store.rebuild(spec, child) == [a]
    store.fps[child] ^= 1  # another state with the same fingerprint was stored under this index
    with pytest.raises(FingerprintCollision):
        store.rebuild(spec, child)


def test_collision_probability_is_tlcs_estimate():
    assert collision_probability(9_017_680, 38_501_683) == pytest.approx(9_017_680 * (38_501_683 - 9_017_680) / 2**64)
    assert collision_probability(10, 5) == 0


def test_generic_models_run_on_every_engine():
    counts = {(kw.get("store"), kw.get("workers", 1)): explore(TwoPhase(3), **kw).states
              for kw in (dict(store="exact"), dict(store="fingerprint"), dict(store="fingerprint", workers=2))}
    assert len(set(counts.values())) == 1, counts


def test_store_and_workers_are_checked():
    spec = Spec(BASELINE, scope("forward-2x2"))
    with pytest.raises(ValueError, match="store"):
        explore(spec, store="disk")
    with pytest.raises(ValueError, match="workers"):
        explore(spec, workers=0)
    with pytest.raises(ValueError, match="exact store runs in one process"):
        explore(spec, store="exact", workers=2)


def test_a_component_that_raises_in_a_worker_is_reported_with_its_traceback():
    from ckptcheck.checks.engine.parallel import WorkerError
    from ckptcheck.model.sinks import TwoPhaseCommitSink

    class Broken(TwoPhaseCommitSink):
        def invoke(self, tx, t, ts, r):
            raise ZeroDivisionError("a bug in my sink")

    spec = Spec(BASELINE.with_(name="broken", sink=Broken), scope("forward-2x2", max_checkpoints=0, max_failures=0,
                                                                  max_declines=0, max_lost_notifications=0))
    with pytest.raises(WorkerError, match="ZeroDivisionError: a bug in my sink"):
        explore(spec, workers=2)


def test_a_worker_that_fails_alone_fails_the_search_instead_of_hanging(monkeypatch):
    """Only worker 1 raises: worker 0 then waits for worker 1's share of the level's exchange,
    so a coordinator that read worker 0's reply first waited for ever (found with a property
    that raised on a state only one worker held)."""
    from ckptcheck.checks.engine import parallel

    level = parallel._Worker.level

    def failing_level(self, *args):
        if self.rank == 1:
            raise ZeroDivisionError("only in worker 1")
        return level(self, *args)

    monkeypatch.setattr(parallel._Worker, "level", failing_level)
    spec = Spec(BASELINE, scope("keyed-2x2", records_per_split=1, max_checkpoints=0, max_failures=0,
                                max_declines=0, max_lost_notifications=0))
    started = time.perf_counter()
    with pytest.raises(parallel.WorkerError, match="ZeroDivisionError: only in worker 1"):
        explore(spec, workers=2)
    assert time.perf_counter() - started < 30


def test_two_workers_report_progress_inside_a_level():
    """A level of a large scope takes minutes; progress comes from counters the workers share,
    so lines keep coming inside a level: two lines at one depth with different counts, counts
    that never go back and never pass the final ones."""
    sc = scope("keyed-2x1", max_checkpoints=1, max_failures=0, max_declines=1, max_lost_notifications=0)
    lines = []
    out = explore(Spec(BASELINE, sc), workers=2, progress_every=0.001,
                  progress=lambda o, queue: lines.append((o.depth, o.states, o.transitions)))
    assert out.complete and len(lines) > out.depth
    assert any(a[0] == b[0] and a[1] < b[1] for a, b in zip(lines, lines[1:])), "no line inside a level"
    assert all(a[1] <= b[1] and a[2] <= b[2] for a, b in zip(lines, lines[1:]))
    assert lines[-1][1] <= out.states and lines[-1][2] <= out.transitions
