"""The memo engine (``checks.engine.memo``) against the reference engine (``checks.engine.bfs``):
the same states, state for state, the same counts, discoveries and counterexamples; its cached
answers checked against the plain model on every catalog entry; a variant that keeps state of its
own caught by ``--memo-check``."""

from __future__ import annotations

import pytest

from ckptcheck.checks.cli.main import main
from ckptcheck.checks.engine import memo_core
from ckptcheck.checks.engine.bfs import bfs_search
from ckptcheck.checks.engine.explore import Discovery, ExploreOutcome, search_bounds
from ckptcheck.checks.engine.memo import MemoMismatch, MemoUnsupported, memo_search
from ckptcheck.checks.engine.memo_world import Layout, StandInEscaped, TracedWorld
from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import VIOLATED
from ckptcheck.model.request_decider import CheckpointRequestDecider
from ckptcheck.model.protocol import fitted
from ckptcheck.specs import scopes as S
from ckptcheck.specs.catalog import CATALOG
from ckptcheck.specs.designs import PRESETS
from ckptcheck.specs.figures import CATALOG_STEPS, FIGURES
from ckptcheck.specs.spec import Spec


def _visited(spec, engine: str, max_states: int | None = None, compiled: bool | None = None) -> tuple[ExploreOutcome, set, set]:
    """One engine's search of ``spec``: its outcome, the hashes of the concrete worlds it
    visited and the hashes of their canonical forms (``symmetry.Canonical``, the reference's).
    ``compiled``: the memo engine's loop (``None``: the compiled one where it applies)."""
    canon = spec.canonical or (lambda w: w)
    concrete, canonical = set(), set()

    def visit(w) -> None:
        concrete.add(hash(w))
        canonical.add(hash(canon(w)))

    out = ExploreOutcome()
    bounds = search_bounds(spec, lambda found: False, max_states, None, None, None)
    if engine == "memo":
        memo_search(spec, out, Discovery, bounds, visit=visit, compiled=compiled)
    else:
        bfs_search(spec, out, Discovery, bounds, exact=False, visit=visit)
    return out, concrete, canonical


def _assert_state_for_state(design: str, scope, symmetry: bool, max_states: int | None = None) -> None:
    """The memo engine against the reference engine: its compiled loop, where it was built, and
    its Python loop (the fallback) in the same scope."""
    spec = Spec(PRESETS[design], fitted(PRESETS[design], scope), symmetry=symmetry)
    ref = _visited(spec, "reference", max_states)
    loops = (None, False) if memo_core.available() else (None,)
    for compiled in loops:
        _assert_same(ref, _visited(spec, "memo", max_states, compiled))


def _assert_same(reference: tuple, memo_visited: tuple) -> None:
    ref, ref_concrete, ref_canonical = reference
    memo, memo_concrete, memo_canonical = memo_visited
    assert memo_canonical == ref_canonical, (f"{memo.engine_detail}: {len(memo_canonical - ref_canonical)} classes only the memo engine"
                                             f" visits, {len(ref_canonical - memo_canonical)} only the reference")
    # the same concrete worlds too: both expand the first member of each class they reach, in one order
    assert memo_concrete == ref_concrete
    assert (memo.states, memo.transitions, memo.depth, memo.quiescent_states, memo.complete) == \
        (ref.states, ref.transitions, ref.depth, ref.quiescent_states, ref.complete)
    assert {k: (d.path, d.reason) for k, d in memo.discoveries.items()} == \
        {k: (d.path, d.reason) for k, d in ref.discoveries.items()}


# the default run: scopes of a few thousand states, whole, and larger ones' first 20,000 states (the
# aligned-timeout ones since a local channel's barrier waits in its subpartition: 74,104 and 1,300,289 states)
SMALL = [
    ("flip600-regional", S.regional_chain_scope, True, None),  # FLIP-600, chains of refCheckpointId hops
    ("flip600-pr", S.regional_union_scope, True, None),  # the PR's readings, symmetric
    ("flink-unaligned", S.recovery_scope, False, None),  # an unaligned recovery scope
    ("flink-unaligned-timeout", S.spanning_records_scope, False, 20_000),  # records spanning buffers, a rescale, a timeout switch
    ("flink-unaligned-timeout", S.rescaled_recovery_scope, False, 20_000),  # a rescale with the JobManager's view
    ("flink-unaligned-pointwise", S.pointwise_fan_in_scope, False, 20_000),  # a pointwise scope (its first 20,000 states)
    ("flip147", S.jobmanager_view_scope, False, 20_000),  # Sink V2 and the JobManager's view
    ("flink-null-state", S.null_state_scope, False, 20_000),  # FLINK-4120's replay
]


@pytest.mark.parametrize("design,scope,symmetry,max_states", SMALL, ids=[f"{d}-{s.__name__}" for d, s, _, _ in SMALL])
def test_the_memo_engine_visits_the_reference_engines_states(design, scope, symmetry, max_states):
    _assert_state_for_state(design, scope(), symmetry, max_states)


LARGE = [pytest.param(f, marks=pytest.mark.claims) for f in ("flip600-regional-union", "baseline-default", "baseline-enumerator",
                                                              "baseline-jobmanager-view", "flip600-one-checkpoint", "pointwise-default")]
LARGE.append(pytest.param("flip600-pr-default", marks=pytest.mark.deep))


@pytest.mark.parametrize("figure", LARGE)
def test_the_memo_engine_visits_the_reference_engines_states_in_whole_default_scopes(figure):
    """A regional union scope, the baseline's three default scopes, FLIP-600 with one checkpoint
    and the pointwise preset's default (317,813 states, two rescales) in the claims run;
    flip600-pr's default (828,072 symmetry classes; 484 s for both engines, measured once) in the
    deep run.  Each searched whole by both engines."""
    f = next(x for x in FIGURES if x.id == figure)
    _assert_state_for_state(f.design, f.scope(), f.symmetry)


# entries whose checked search takes 3 to 20 s on one core run in the claims tier; those over 20 s
# (the pointwise entries, F2, K2, commit-at-pre-commit, K1, FLINK-40482, F6: 22 to 214 s each) in the deep tier
CHECKED_IN_CLAIMS = ("F1-fallback-notice-finishes-task", "P1-unchanged-pointwise-edge-in-a-rescaled-task", "null-state-unaligned-sinks-discard-overtaken-records",
                     "FLINK-40016-buffers-persisted-twice", "K10-backend-confirms-regional-id",
                     "legacy-source-rereads-finished-split", "union-state-finishes-partly", "cleaner-deletes-restore-checkpoint",
                     "no-alignment-block", "null-state-checkpoint-during-replay")
CHECKED_IN_DEEP = ("pointwise-no-primary-producer-rule", "pointwise-no-recovery-filter", "pointwise-pattern-not-recorded",
                   "pointwise-no-upstream-recovery-tracker", "F2-commit-past-own-state", "K2-regions-joined-by-keyby",
                   "commit-at-pre-commit", "K1-regional-final-checkpoint", "FLINK-40482-failed-task-planned-as-finished",
                   "F6-local-copy-beside-the-fallback")


def _tier(e):
    if e.name in CHECKED_IN_DEEP:
        return pytest.param(e, marks=pytest.mark.deep, id=e.name)
    if e.name in CHECKED_IN_CLAIMS:
        return pytest.param(e, marks=pytest.mark.claims, id=e.name)
    return pytest.param(e, id=e.name)


def test_the_tiers_name_catalog_entries():
    names = {e.name for e in CATALOG}
    assert set(CHECKED_IN_CLAIMS) <= names and set(CHECKED_IN_DEEP) <= names


@pytest.mark.parametrize("e", [_tier(e) for e in CATALOG])
def test_every_catalog_entry_is_found_with_every_cached_answer_checked(e):
    """``memo_check=1``: every answer taken from a table is computed again by the plain model;
    the entry is found at its catalog length."""
    r = check(e.design, e.scope, "memo", stop_at=e.violates, memo_check=1.0)
    v = r.verdict(e.violates)
    assert v.status == VIOLATED, f"{e.name} missed"
    assert len(v.trace) == CATALOG_STEPS[e.name]
    assert "run plainly" not in r.stats["engine_detail"], r.stats["engine_detail"]


class CountingDecider(CheckpointRequestDecider):
    """A variant with state of its own: it lets every other trigger through, counting calls on
    the class instead of reading the world.  The memo engine's tables cannot see that."""

    calls = 0

    def can_trigger(self, w) -> bool:
        CountingDecider.calls += 1
        return super().can_trigger(w) and CountingDecider.calls % 2 == 0


def test_a_variant_with_state_of_its_own_is_caught_by_the_memo_check():
    design = PRESETS["flink-baseline"].with_(name="counting", request_decider=CountingDecider)
    with pytest.raises(MemoMismatch, match="enabled group CheckpointRequestDecider|enabled group EnabledMixin._coordinator_actions"):
        check(design, S.scope("keyed-1x1", max_checkpoints=2), "memo", memo_check=1.0)


def test_the_command_says_the_mismatch_in_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "counting_variant.py").write_text(
        "from ckptcheck.model.request_decider import CheckpointRequestDecider\n"
        "from ckptcheck.specs.designs import BASELINE\n"
        "class Counting(CheckpointRequestDecider):\n"
        "    calls = 0\n"
        "    def can_trigger(self, w):\n"
        "        Counting.calls += 1\n"
        "        return super().can_trigger(w) and Counting.calls % 2 == 0\n"
        "DESIGN = BASELINE.with_(name='counting', request_decider=Counting)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(["check", "--design", "counting_variant:DESIGN", "--engine", "memo", "--memo-check", "1", "--job", "keyed-1x1",
                 "--out", str(tmp_path / "results")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("ckptcheck: --engine memo: memo check: enabled group EnabledMixin._coordinator_actions:")
    assert "Traceback" not in "\n".join(err)


def test_without_a_check_the_same_variant_searches_to_the_end():
    """What ``--memo-check`` is for: unchecked, the tables answer for the variant and the search
    ends normally, its figures not the plain model's."""
    design = PRESETS["flink-baseline"].with_(name="counting", request_decider=CountingDecider)
    assert check(design, S.scope("keyed-1x1", max_checkpoints=2), "memo").complete


def test_another_model_is_refused_with_the_reason():
    from ckptcheck.specs.twophase import TwoPhase

    spec = TwoPhase(3)
    with pytest.raises(MemoUnsupported, match="Flink specs only"):
        memo_search(spec, ExploreOutcome(), Discovery, search_bounds(spec, None, 10, None, None, None))


def test_a_stand_in_never_reaches_a_stored_value():
    """A record read through the engine and stored in a result is refused where it is interned."""
    spec = Spec(PRESETS["flink-baseline"], S.scope("keyed-1x1"))
    w = spec.model.initial()
    lay = Layout(len(w.tasks), len(w.channels))
    tw = TracedWorld(set(), lay, lay.encode(w))
    with pytest.raises(StandInEscaped):
        lay.intern(0, (tw.tasks[0],))


def test_reads_are_recorded_field_by_field():
    spec = Spec(PRESETS["flink-baseline"], S.scope("keyed-1x1"))
    w = spec.model.initial()
    lay = Layout(len(w.tasks), len(w.channels))
    reads: set = set()
    tw = TracedWorld(reads, lay, lay.encode(w))
    assert tw.tasks[1].status == w.tasks[1].status and tw.coord.next_id == w.coord.next_id
    assert {lay.slot_name(s) for s in reads} == {"tasks[1].status", "coord.next_id"}
    assert tw.tasks[0] == w.tasks[0]  # used whole: every field counts as read
    assert {lay.slot_name(s) for s in reads} >= {f"tasks[0].{f}" for f in w.tasks[0]._fields}


def test_the_command_searches_a_rescale_with_the_memo_engine(tmp_path, capsys):
    """A scope with a rescale through ``ckptcheck check --engine memo``: the reference engine's
    states, transitions and depth."""
    args = ["check", "--design", "flink-unaligned-timeout", "--job", "keyed-1x1", "--checkpoints", "1", "--failures", "0",
            "--declines", "0", "--rescale", "sink=2", "--out", str(tmp_path)]
    lines = {}
    for engine in ("memo", "explore"):
        assert main(args + ["--engine", engine, "--workers", "1"] if engine == "explore" else args + ["--engine", engine]) == 0
        engine_line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("engine"))
        lines[engine] = engine_line.rsplit("): ", 1)[1].split(", depth")[0] + engine_line.split(", depth")[1].split(",")[0]
    assert lines["memo"] == lines["explore"]


def test_where_the_compiled_loop_was_not_built_the_python_loop_gives_the_same_search(monkeypatch):
    """The fallback: without the extension (``memo_core.Core`` is ``None``, as after an install
    with no C compiler) ``memo_search`` runs its Python loop, and says so in its engine line."""
    spec = Spec(PRESETS["flip600-regional"], fitted(PRESETS["flip600-regional"], S.regional_chain_scope()), symmetry=True)
    ref = _visited(spec, "reference")
    monkeypatch.setattr(memo_core, "Core", None)
    assert not memo_core.available()
    got = _visited(spec, "memo")
    _assert_same(ref, got)
    assert got[0].engine_detail.startswith("Python loop: ")
    with pytest.raises(MemoUnsupported, match="the compiled loop was not built"):
        _visited(spec, "memo", compiled=True)


@pytest.mark.skipif(not memo_core.available(), reason="the compiled loop was not built here")
def test_the_compiled_loop_says_what_it_does_not_do():
    """``--memo-check`` runs on the Python loop: asking the compiled one for it is refused with
    the reason, and the default picks the Python loop for it; otherwise the compiled loop runs."""
    spec = Spec(PRESETS["flink-baseline"], S.scope("keyed-1x1", max_checkpoints=1))
    with pytest.raises(MemoUnsupported, match="takes no --memo-check"):
        memo_search(spec, ExploreOutcome(), Discovery, search_bounds(spec, None, None, None, None, None), memo_check=0.5,
                    compiled=True)
    design, sc = PRESETS["flink-baseline"], S.scope("keyed-1x1", max_checkpoints=1)
    assert check(design, sc, "memo").stats["engine_detail"].startswith("compiled loop: ")
    assert check(design, sc, "memo", memo_check=0.5).stats["engine_detail"].startswith("Python loop: ")


@pytest.mark.skipif(not memo_core.available(), reason="the compiled loop was not built here")
def test_the_compiled_loop_keeps_the_bounds_and_stops_where_the_python_loop_does():
    """A state bound, a depth bound and a stop at the first discovery: the same figures and
    the same reason on both loops."""
    spec = Spec(PRESETS["flink-baseline"], S.default_scope())
    for max_states, max_depth, stop in ((5_000, None, None), (None, 9, None), (None, None, lambda found: bool(found))):
        outs = []
        for compiled in (True, False):
            out = ExploreOutcome()
            bounds = search_bounds(spec, stop or (lambda found: False), max_states, None, max_depth, None)
            memo_search(spec, out, Discovery, bounds, compiled=compiled)
            # the model calls and those computed, as the engine line counts them: the same on both loops
            calls = out.engine_detail.split(": ", 1)[1].split(" us a computed call")[0].rsplit(", ", 1)[0]
            outs.append((out.states, out.transitions, out.depth, out.complete, out.stopped,
                         {k: d.path for k, d in out.discoveries.items()}, calls))
        assert outs[0] == outs[1]
        assert outs[0][4], "each bound stops the search"


@pytest.mark.claims
@pytest.mark.skipif(not memo_core.available(), reason="the compiled loop was not built here (the Python loop takes 25 minutes)")
def test_flip147_union_job_with_a_failure_is_searched_to_the_end():
    """The FLIP-147 page's figure: the second default scope with one failure added, which the
    reference engine never finished, searched whole on the compiled loop (about 3 minutes, 2.2 GB
    on two cores): every always-property holds, and ``bounded-job-completes`` is violated in 29
    steps (a restored union-state source waits for a checkpoint that every attempt aborts)."""
    design = PRESETS["flip147"]
    sc = fitted(design, S.flip147_union_scope().with_(max_failures=1))
    r = check(design, sc, "memo", symmetry=True, stop_at=None)
    assert r.complete and "compiled loop" in r.stats["engine_detail"]
    assert (r.stats["states"], r.stats["transitions"], r.stats["depth"]) == (12_510_942, 74_064_054, 63)
    violated = {v.property: len(v.trace) for v in r.verdicts if v.status == VIOLATED}
    assert violated == {"bounded-job-completes": 29}, violated


_FINGERPRINTS_ALONG_A_PATH = """
import json
from ckptcheck.checks.engine.memo import memo_specs
from ckptcheck.model.protocol import fitted
from ckptcheck.specs import scopes as S
from ckptcheck.specs.designs import PRESETS
from ckptcheck.specs.spec import Spec

out = []
for design, sc, symmetry in (("flip600-pr", S.regional_union_scope(), True),
                             ("flink-unaligned-timeout", S.rescaled_recovery_scope(), False)):
    spec = Spec(PRESETS[design], fitted(PRESETS[design], sc), symmetry=symmetry)
    configs = memo_specs(spec)
    w = spec.initial_states()[0]
    for i in range(80):
        ms = configs[w.used.rescales & 1] if len(configs) > 1 else configs[0]
        vec = ms.lay.encode(w)
        out.append([ms.world_fingerprint(w), ms.lay.to_digests(vec)[:12], list(ms.sums(vec))])
        acts = spec.actions(w)
        if not acts:
            break
        w = spec.next_state(w, acts[(7 * i + 2) % len(acts)])
print(json.dumps(out))
"""


def test_fingerprints_and_value_digests_do_not_depend_on_the_process():
    """Two processes with different ``PYTHONHASHSEED`` give each value the same digest and each
    state the same fingerprint sums, with symmetry and across a rescale: what the Spark search
    sends between executors (``sparkmemo``) means the same in each.  A fingerprint made of
    Python's string hashes, or of a process's own ids, would differ."""
    import json
    import os
    import subprocess
    import sys

    procs = [subprocess.Popen([sys.executable, "-c", _FINGERPRINTS_ALONG_A_PATH], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}) for seed in ("1", "4242")]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    a, b = (json.loads(o) for o in outs)
    assert len(a) > 40 and len({x[0] for x in a}) > 40
    assert any(len(x[2]) > 1 for x in a), "a scope with symmetry: a sum per permutation"
    assert a == b


def test_a_value_digest_is_of_its_contents():
    """Equal values have one digest whatever their type's name (a named tuple and its items,
    a bool and its int), different ones differ; a value learnt from another process with
    another digest is refused."""
    from ckptcheck.checks.engine.memo_world import DigestCollision, value_digest
    from ckptcheck.model.world import Budget

    u = Budget(*range(len(Budget._fields)))
    assert value_digest(3, u) == value_digest(3, tuple(u))
    assert value_digest(3, (True, "a")) == value_digest(3, (1, "a"))
    assert len({value_digest(3, v) for v in ("1", 1, (1,), ("1",), None, "", ("a", "b"), ("ab",), ("a,b",))}) == 9
    assert value_digest(3, 7) != value_digest(4, 7)
    lay = Layout(1, 0)
    lay.learn(0, value_digest(0, 5), 5)
    with pytest.raises(DigestCollision):
        lay.learn(0, value_digest(0, 5) ^ 1, 5)


def _memo_summary(o) -> tuple:
    return (o.states, o.transitions, o.depth, o.quiescent_states, o.complete, o.stopped,
            {k: (d.kind, len(d.path)) for k, d in o.discoveries.items()})


@pytest.mark.skipif(not memo_core.available(), reason="workers run the compiled loop, not built here")
@pytest.mark.parametrize("design,scope,symmetry", [
    ("flip600-regional", S.regional_chain_scope, True),  # symmetry: a sum per permutation, the least owned
    ("flink-unaligned-timeout", S.rescaled_recovery_scope, False),  # a rescale: successors in the other layout
])
def test_two_workers_count_what_one_process_counts(design, scope, symmetry, monkeypatch):
    """The compiled loop forked into two workers (at a level of 50 states here, so that these
    small scopes fork) counts the same states, transitions, depth and quiescent states as one
    process and finds every discovery at the same length; the engine line says when it forked
    and what each worker computed after.  A worker that expanded a state another owns, or lost
    a claim's answer, would count differently."""
    from ckptcheck.checks.engine import memo_workers, search

    monkeypatch.setattr(memo_workers, "FORK_AT", 50)
    spec = Spec(PRESETS[design], fitted(PRESETS[design], scope()), symmetry=symmetry)
    one, two = search(spec, "memo"), search(spec, "memo", workers=2)
    assert _memo_summary(two) == _memo_summary(one)
    assert one.complete and one.states > 1000
    assert two.workers == 2 and "2 workers from depth" in two.engine_detail, two.engine_detail


@pytest.mark.skipif(not memo_core.available(), reason="workers run the compiled loop, not built here")
def test_two_workers_find_a_violation_and_stop_where_one_process_does(monkeypatch):
    """A catalog entry's violation found by two workers: the same length as one process, its
    path rebuilt from the store of the worker that found it and replayed by the caller; a state
    bound stops both at a level's end."""
    from ckptcheck.checks.engine import memo_workers
    from ckptcheck.specs.catalog import entry

    monkeypatch.setattr(memo_workers, "FORK_AT", 50)
    e = entry("K5-no-consecutive-limit")
    one = check(e.design, e.scope, "memo", stop_at="never-stop")
    two = check(e.design, e.scope, "memo", stop_at="never-stop", workers=2)
    assert two.stats["workers"] == 2
    assert (two.stats["states"], two.stats["transitions"], two.stats["depth"]) == \
        (one.stats["states"], one.stats["transitions"], one.stats["depth"])
    lengths = {v.property: (v.status, len(v.trace) if v.trace else None) for v in one.verdicts}
    assert {v.property: (v.status, len(v.trace) if v.trace else None) for v in two.verdicts} == lengths
    assert lengths["ref-chain-bounded"] == (VIOLATED, CATALOG_STEPS[e.name])
    bounded = check(e.design, e.scope, "memo", workers=2, max_states=1500)
    assert not bounded.complete and bounded.stats["stopped"] == "state bound 1500 reached"
    assert bounded.stats["states"] >= 1500


@pytest.mark.skipif(not memo_core.available(), reason="workers run the compiled loop, not built here")
def test_a_worker_that_raises_is_reported_with_its_traceback(monkeypatch):
    """An error in a forked worker stops the search with ``WorkerError`` and the worker's
    traceback (not a hang at the next level's barrier)."""
    from ckptcheck.checks.engine import memo_workers, search
    from ckptcheck.checks.engine.memo_core import Driver, WorkerError

    monkeypatch.setattr(memo_workers, "FORK_AT", 50)
    real = Driver.always_miss

    def flaky(self, c, vec):
        if self.child:
            raise RuntimeError("a worker broke")
        return real(self, c, vec)

    monkeypatch.setattr(Driver, "always_miss", flaky)
    spec = Spec(PRESETS["flip600-regional"], fitted(PRESETS["flip600-regional"], S.regional_chain_scope()), symmetry=True)
    with pytest.raises(WorkerError, match="a worker broke"):
        search(spec, "memo", workers=2)
