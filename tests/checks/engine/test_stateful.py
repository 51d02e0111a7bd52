"""The Hypothesis engine: finds flaws, shrinks, is reproducible from its seed."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import NOT_APPLICABLE, SAMPLED, VIOLATED
from ckptcheck.checks.run.trace import replay, trace_document
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.spec import Spec


def test_stateful_finds_alignment_flaw_and_trace_replays():
    e = entry("no-alignment-block")
    r = check(e.design, e.scope, "stateful", seed=1, stop_at=e.violates)
    v = r.verdict(e.violates)
    assert v.status == VIOLATED
    doc = trace_document(Spec(e.design, e.scope), v.trace, engine="stateful", seed=1,
                         violation={"property": v.property, "step": len(v.trace), "reason": v.reason})
    assert replay(doc).reproduced
    bfs = check(e.design, e.scope, stop_at=e.violates).verdict(e.violates)
    assert len(v.trace) >= len(bfs.trace), "BFS counterexamples are the shortest"


@pytest.mark.claims
def test_stateful_finds_commit_flaw():
    e = entry("commit-at-pre-commit")
    r = check(e.design, e.scope, "stateful", seed=3, stop_at=e.violates)
    assert r.verdict(e.violates).status == VIOLATED


@pytest.mark.claims  # 6.7 s (the default run was 289 s); test_cli checks that a sampled run never says "holds"
def test_stateful_baseline_finds_no_violation_and_says_it_sampled(tiny_scope):
    r = check(BASELINE, tiny_scope, "stateful", seed=0)
    assert all(v.status in (SAMPLED, NOT_APPLICABLE) for v in r.verdicts if v.kind != "sometimes"), [v.reason for v in r.violated]
    assert r.verdict("exactly-once-output").status == SAMPLED, "random runs never say 'holds'"
    assert r.outcome == "sampled" and not r.holds and r.ok
    assert r.stats["steps"] > 1000


@pytest.mark.claims  # 8.7 s (the default run was 352 s); the default run keeps the stateful search and its replay
def test_same_seed_same_result():
    e = entry("uc-input-side-only")  # the cheapest catalog entry for random runs (about 3 s a run)
    a = check(e.design, e.scope, "stateful", seed=7, stop_at=e.violates).verdict(e.violates)
    b = check(e.design, e.scope, "stateful", seed=7, stop_at=e.violates).verdict(e.violates)
    assert a.trace == b.trace and a.reason == b.reason


@pytest.mark.claims
def test_stateful_finds_flip600_coordinator_and_no_claim_flaws():
    for name in ("K3-no-coordinator-fallback", "K7-no-claim-snapshot-deleted-too-early"):
        e = entry(name)
        v = check(e.design, e.scope, "stateful", seed=0, stop_at=e.violates).verdict(e.violates)
        assert v.status == VIOLATED, name
        assert replay(trace_document(Spec(e.design, e.scope), v.trace, engine="stateful", seed=0,
                                     violation={"property": v.property, "step": len(v.trace), "reason": v.reason})).reproduced
