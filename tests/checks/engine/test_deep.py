"""The default scopes, bigger scopes and long random runs: all behind ``-m deep``."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT, HOLDS, NOT_APPLICABLE
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.scopes import default_scope, scope


@pytest.mark.deep
def test_baseline_with_lost_notifications_and_timeouts():
    sc = scope("keyed-2x2", max_checkpoints=1, max_failures=1, max_declines=0, max_timeouts=1, max_lost_notifications=1)
    r = check(BASELINE, sc)
    assert r.complete and r.ok, [v.reason for v in r.violated]


@pytest.mark.deep
def test_baseline_three_stage_with_a_failure():
    r = check(BASELINE, scope("three-stage", max_checkpoints=1, max_failures=1, max_declines=0, max_lost_notifications=0))
    assert r.complete and r.ok, [v.reason for v in r.violated]


@pytest.mark.deep
def test_stateful_deep_profile_on_the_default_scope():
    r = check(BASELINE, default_scope(), "stateful", profile="deep", seed=11)
    assert all(v.status in (HOLDS, NOT_APPLICABLE) for v in r.verdicts if v.kind != "sometimes"), [v.reason for v in r.violated]


@pytest.mark.deep
def test_spark_generate_100k_walks(tmp_path):
    pytest.importorskip("pyspark", reason="PySpark is not installed: pip install -e '.[test]' brings it")
    from ckptcheck.checks.run import spark

    s = spark.run_generate(BASELINE, default_scope(), walks=100_000, max_steps=80, seed=0, partitions=None, out=tmp_path, master="local[2]", say=lambda m: None)
    assert s["traces"] == 100_000 and s["violations"] == {} and s["distinct_states"] > 100_000


@pytest.mark.deep
def test_K5_on_forward_2x2():
    """K5's pair on two regions of two subtasks (the catalog uses sources-2 to stay fast)."""
    from ckptcheck.specs.catalog import entry

    e = entry("K5-no-consecutive-limit")
    sc = scope("forward-2x2", records_per_split=0, bounded=False, max_checkpoints=4, max_failures=0, max_declines=3,
               max_timeouts=0, max_lost_notifications=0)
    bad = check(e.design, sc, stop_at=e.violates)
    assert "chain 4 -> 3 -> 2 -> 1" in bad.verdict(e.violates).reason
    good = check(e.correct, sc)
    assert good.complete and good.ok


@pytest.mark.deep
def test_flip600_regional_with_a_split_enumerator_decline_and_failover():
    """The enumerator's fallback and its add-back on a regional failover, on two readers."""
    from ckptcheck.specs.designs import FLIP600

    sc = scope("enumerator-2x2", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=1, max_declines=1,
               max_timeouts=0, max_lost_notifications=0)
    r = check(FLIP600, sc)
    assert r.complete and r.ok, [v.reason for v in r.violated]
    assert r.verdict("a-regional-checkpoint-completes").status == HIT
    assert r.verdict("restore-from-regional").status == HIT


@pytest.mark.deep
@pytest.mark.parametrize("workers", [1, 2])
def test_every_catalog_entry_keeps_its_counterexample_on_the_fingerprint_engine(workers):
    """The fingerprint store finds the exact store's very paths; two workers paths as short; and
    where the entry's job has interchangeable subtasks and the design keeps the preset
    components, symmetry reduction finds a path as short too."""
    from ckptcheck.checks.engine.explore import explore
    from ckptcheck.specs.catalog import CATALOG
    from ckptcheck.specs.spec import Spec

    with_symmetry = 0
    for e in CATALOG:
        runs = [explore(Spec(e.design, e.scope), stop_when=lambda d, p=e.violates: p in d, **kw).discoveries[e.violates]
                for kw in (dict(store="exact"), dict(store="fingerprint", workers=workers))]
        if workers == 1:
            assert runs[0].path == runs[1].path, e.name
        assert len(runs[0].path) == len(runs[1].path), e.name
        sym = Spec(e.design, e.scope, symmetry=True)
        if sym.canonical is not None and not e.design.replaced():
            reduced = explore(sym, stop_when=lambda d, p=e.violates: p in d, workers=workers).discoveries[e.violates]
            assert len(reduced.path) == len(runs[0].path), e.name
            with_symmetry += 1
    assert with_symmetry == 5  # K1, K4, K5, K7 and F3 (forward jobs, preset components) run reduced too


def _counts(r) -> tuple:
    s = r.stats
    return s["states"], s["transitions"], s["depth"], {v.property: (v.status, len(v.trace) if v.trace else None) for v in r.verdicts}


@pytest.mark.deep
@pytest.mark.parametrize("which", ["baseline-default", "flip600-one-checkpoint"])
def test_spark_engine_counts_what_the_local_engine_counts(which):
    """The Spark search on local[2] against the local one: the baseline default scope (256,884
    states) and the FLIP-600 scope with one checkpoint before end of input (225,055 states)."""
    pytest.importorskip("pyspark", reason="PySpark is not installed: pip install -e '.[test]' brings it")
    from ckptcheck.specs.designs import FLIP600
    from ckptcheck.specs.scopes import regional_scope

    design, sc = (BASELINE, default_scope()) if which == "baseline-default" else (FLIP600, regional_scope().with_(max_checkpoints=1))
    local = check(design, sc, workers=2)
    on_spark = check(design, sc, "spark", master="local[2]")
    assert local.complete and on_spark.complete
    assert _counts(on_spark) == _counts(local)


@pytest.mark.deep
@pytest.mark.parametrize("name, states", [("flink-unaligned", 4608400), ("flink-unaligned-timeout", 135830)])
def test_unaligned_presets_hold_in_their_default_scopes_and_hit_every_witness_in_one(name, states):
    """The unaligned presets' second default scope (``unaligned_rescale_scope``: a rescale, a
    failure, a decline and backpressure) holds with the README's figures, and with the first
    every witness is hit: the second misses only input channel state (one local channel), which
    the first hits; the first misses the rescale and backpressure, which the second hits."""
    from ckptcheck.checks.run.suite import SuiteResult
    from ckptcheck.specs.designs import PRESETS
    from ckptcheck.specs.scopes import default_scopes_for

    d = PRESETS[name]
    first, second, *_ = default_scopes_for(d)
    r2 = check(d, second, workers=2)
    assert r2.complete and r2.ok, [v.reason for v in r2.violated]
    assert r2.stats["states"] == states
    assert [v.property for v in r2.unreached] == ["input-channel-state-recorded"]
    for w in ("a-source-is-backpressured", "the-job-is-rescaled", "a-rescale-restores-channel-state", "a-task-fails",
              "a-task-declines", "output-channel-state-recorded"):
        assert r2.verdict(w).status == HIT, w
    suite = SuiteResult((check(d, first, workers=2), r2))
    assert suite.holds and suite.unreached == []


