"""The default scope in the default run; bigger scopes and long random runs behind ``-m deep``."""

from __future__ import annotations

import pytest

from checks.api import check
from checks.results import HIT, HOLDS, NOT_APPLICABLE
from specs.designs import BASELINE
from specs.scopes import default_scope, scope


def test_baseline_holds_in_the_default_scope_with_every_witness():
    r = check(BASELINE, default_scope())
    assert r.complete and r.ok, [v.reason for v in r.violated]
    assert r.stats["states"] == 273577
    assert all(v.status == HIT for v in r.verdicts if v.kind == "sometimes" and v.status != NOT_APPLICABLE), [
        v.property for v in r.unreached
    ]
    sc = r.scope
    assert min(v.parallelism for v in sc.job.vertices) >= 2 and sc.max_failures >= 1 and sc.max_declines >= 1


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
    pytest.importorskip("pyspark")
    from checks import spark

    s = spark.run_generate(BASELINE, default_scope(), walks=100_000, max_steps=80, seed=0, partitions=None, out=tmp_path, master="local[2]", say=lambda m: None)
    assert s["traces"] == 100_000 and s["violations"] == {} and s["distinct_states"] > 100_000
