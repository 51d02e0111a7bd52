"""Every catalog entry is caught with a shortest counterexample that replays, and its correct
design passes the same scope: the harness can tell right from wrong."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

from ckptcheck.checks.run.api import check, save_traces
from ckptcheck.checks.run.results import HIT, HOLDS, VIOLATED
from ckptcheck.checks.run.trace import load_trace_file, replay
from ckptcheck.specs.catalog import CATALOG, UNALIGNED_CATALOG, entry
from ckptcheck.specs.figures import CATALOG_STEPS

from conftest import SEARCH_WORKERS, catalog_run


@lru_cache(maxsize=None)
def correct_result(design_name: str, scope_repr: str):
    """The correct design's search of an entry's scope, once per (design, scope): entries that
    share both share the run."""
    e = next(x for x in CATALOG if x.correct.name == design_name and repr(x.scope) == scope_repr)
    return check(e.correct, e.scope, workers=SEARCH_WORKERS)


SHORTEST_IN_DEFAULT_RUN = 15  # longer counterexamples are proved shortest in the deep run (a search one step short costs most)


def assert_shortest(e, length: int) -> None:
    shorter = check(e.design, e.scope, max_depth=length - 1, stop_at=e.violates, workers=SEARCH_WORKERS)
    assert shorter.verdict(e.violates).status != VIOLATED, f"{e.name}: a shorter counterexample exists"


@pytest.mark.deep
@pytest.mark.parametrize("e", CATALOG, ids=[e.name for e in CATALOG])
def test_long_counterexamples_are_shortest(e):
    """The default run checks the entries of at most 15 steps; this, the longer ones and the
    deep entries (which the default run leaves out).  A breadth-first search finds a shortest
    counterexample by construction; this proves it again with a search one step short, which
    for the longest entries (35 steps) costs most of a search's depth: too long for the claims
    tier, which checks each entry's length against specs/figures.py instead."""
    v = catalog_run(e.name).verdict(e.violates)
    if len(v.trace) <= SHORTEST_IN_DEFAULT_RUN and e.name not in DEEP_ENTRIES:
        pytest.skip("checked in the default run")
    assert_shortest(e, len(v.trace))


# F2's correct design needs the largest search of the catalog (356,483 states): it runs in the
# deep run and in ``ckptcheck catalog``; the default run still finds F2
# (test_the_design_as_proposed_fails_every_finding_scope)
DEEP_ENTRIES = ("F2-commit-past-own-state",)
# the pointwise entries' correct design searches 230,604 states (22 s on two cores); the default
# run checks the proposal's own scope instead (tests/specs/unaligned/test_pointwise.py)
DEEP_ENTRIES += ("pointwise-no-primary-producer-rule", "pointwise-no-recovery-filter")
# the tracker entry's correct design searches 463,741 states (34 s); its own test below finds it
DEEP_ENTRIES += ("pointwise-no-upstream-recovery-tracker",)
# the unrecorded pattern's correct design searches about 200,000 states (30 s)
DEEP_ENTRIES += ("pointwise-pattern-not-recorded",)
# finding P1 and its fix search about 48,000 states each (8 s); tests/specs/unaligned/test_pointwise.py has the rule
DEEP_ENTRIES += ("P1-unchanged-pointwise-edge-in-a-rescaled-task",)
# entries whose correct design's exhaustive pass takes 5 s or more on two cores (the baseline's
# 2x2 scope with a failure: 12 s; FLINK-40016's keyed-2x1 with a buffer per input channel:
# 136,244 states, 12 s; K2's, F1's and K1's flip600-regional scopes: 6 s, 5 s and 7 s; cleaner-deletes-restore-checkpoint
# and uc-no-record-filter: about 7 s and 4 s; null-state-checkpoint-during-replay: 65,067 states, 5 s; K10's
# flip600-regional-incremental on forward-2x2 with three checkpoints: 74,806 states, 7 s; K9's
# flip600-regional-awaiting-coordinators on enumerator-2-and-sides: 94,733 states, 10 s on one process;
# legacy-source-rereads-finished-split's baseline on keyed-2x1 with a failure: about 8 s): it runs in the
# claims run (test_correct_design_passes_the_scope_of) and in ``ckptcheck catalog``
DEEP_CORRECT = ("commit-at-pre-commit", "FLINK-40016-buffers-persisted-twice", "K2-regions-joined-by-keyby",
                "F1-fallback-notice-finishes-task", "K1-regional-final-checkpoint", "cleaner-deletes-restore-checkpoint",
                "uc-no-record-filter", "null-state-checkpoint-during-replay", "K10-backend-confirms-regional-id",
                "K9-late-ack-overwrites-fallback", "legacy-source-rereads-finished-split")
# no-alignment-block's correct pass is the baseline on keyed-2x2 without faults (87,384 states, 8 s):
# the default run makes that very search in tests/checks/engine/test_explore.py (test_baseline_holds_and_reports_
# unreached_witnesses, which asserts it complete and violation-free), so here it runs deep only
DEEP_CORRECT += ("no-alignment-block",)


@pytest.mark.parametrize("e", [pytest.param(e, marks=pytest.mark.claims) if e.name in DEEP_ENTRIES else e for e in CATALOG],
                         ids=[e.name for e in CATALOG])
def test_entry_is_caught_and_correct_design_passes(e, tmp_path):
    bad = catalog_run(e.name)
    v = bad.verdict(e.violates)
    assert v.status == VIOLATED, f"{e.name} missed"
    assert len(v.trace) == CATALOG_STEPS[e.name], f"{e.name}: {len(v.trace)} steps, the catalog page says {CATALOG_STEPS[e.name]}"
    # shortest: no violation of that property within one step less (the long ones in the deep run)
    if len(v.trace) <= SHORTEST_IN_DEFAULT_RUN:
        assert_shortest(e, len(v.trace))
    # the saved trace replays to the same verdict
    paths = save_traces(bad, tmp_path)
    mine = [p for p in paths if p.name.endswith(f"--{e.violates}.trace.json")]
    assert mine
    outcome = replay(load_trace_file(str(mine[0])), str(mine[0]))
    assert outcome.reproduced
    assert outcome.violation["reason"] == v.reason
    # the correct design passes the very same scope, exhaustively
    if e.name in DEEP_CORRECT:
        return
    good = correct_result(e.correct.name, repr(e.scope))
    assert good.complete and good.ok, [x.reason for x in good.violated]


@pytest.mark.claims
@pytest.mark.parametrize("name", DEEP_CORRECT)
def test_correct_design_passes_the_scope_of(name):
    """The exhaustive pass the default run leaves out for these entries."""
    e = next(x for x in CATALOG if x.name == name)
    good = correct_result(e.correct.name, repr(e.scope))
    assert good.complete and good.ok, [x.reason for x in good.violated]


def test_catalog_names_are_unique_and_cite_an_origin():
    names = [e.name for e in CATALOG]
    assert list(CATALOG_STEPS) == names, "specs/figures.py: every catalog entry's steps, in the catalog's order"
    assert len(set(names)) == len(names)
    assert all(e.origin for e in CATALOG)


@pytest.mark.parametrize("e", [pytest.param(x, marks=pytest.mark.claims) if x.name in DEEP_ENTRIES else x
                               for x in CATALOG if re.match(r"[KF]\d+-", x.name)], ids=lambda x: x.name)
def test_flip600_entries_name_what_is_lost(e):
    """K1-K10, F1-F3: a short counterexample whose reason names the record, the file, the chain or
    the partly finished vertex."""
    v = catalog_run(e.name).verdict(e.violates)
    assert len(v.trace) <= 30
    named = {
        "finished-sinks-committed": ("record (split",),
        "checkpoints-consistent": ("record (split",),
        "split-ownership-consistent": ("record (split", "to both the split enumerator (unassigned) and source["),
        "checkpoints-restorable": ("refers to ",),
        "shared-state-registered": ("'s file of checkpoint ", "Attempt to reference unknown state"),
        "ref-chain-bounded": (" -> ",),
        "committed-output-covered": ("record (split",),
        "bounded-job-completes": ("of union-state vertex source finished while others run",),
    }[e.violates]
    assert any(x in v.reason for x in named), v.reason
    if e.violates == "checkpoints-restorable":
        assert "file " in v.reason and ("/source[" in v.reason or "/sink[" in v.reason)


def test_catalog_has_k1_to_k10_each_checked_against_a_flip600_configuration():
    ks = [x for x in CATALOG if x.name.startswith("K")]
    assert [x.name.split("-")[0] for x in ks] == [f"K{i}" for i in range(1, 11)]
    assert all(x.correct.regional_checkpoints and x.correct.name.startswith("flip600-regional") for x in ks)


def test_the_design_as_proposed_fails_every_finding_scope():
    """flip600-proposed (the thread and PR as they stand) is caught in each F scope, for the
    reason that entry isolates: the findings are about the proposal, not about a strawman."""
    from ckptcheck.specs.designs import FLIP600_PROPOSED

    for e in (x for x in CATALOG if x.name[:2] in ("F1", "F3")):
        v = check(FLIP600_PROPOSED, e.scope, stop_at=e.violates).verdict(e.violates)
        assert v.status == VIOLATED, e.name
    # F2: in the proposal the fallback notice counts as the completion, so the abort replay
    # commits past the task's own state only after that notice was lost (BFS shortest, 18 steps,
    # F2's scope plus one lost notification; kept as a trace)
    path = Path(__file__).resolve().parents[1] / "data" / "flip600-proposed--committed-output-covered.trace.json"
    outcome = replay(load_trace_file(str(path)), str(path))
    assert outcome.reproduced and outcome.spec.design == FLIP600_PROPOSED
    assert outcome.violation["property"] == "committed-output-covered" and outcome.violation["step"] == 18
    assert any(type(a).__name__ == "LoseNotification" for a in outcome.actions)


@pytest.mark.claims  # 19 s: it runs every entry again; the default run checks each entry above
def test_catalog_report_has_one_row_per_entry_and_junit_passes_when_the_catalog_passes():
    """The catalog's report answers "what holds?" at a glance: a summary line, one row per entry
    ("found: <property> in N steps; correct design passes its scope, M states"), and a JUnit file
    in which expected violations are passes (it used to record them as 17 failures)."""
    import xml.etree.ElementTree as ET

    from ckptcheck.checks.run.catalog import catalog_row
    from ckptcheck.checks.run.report import build_report
    from ckptcheck.reports.render import render_html, render_junit, render_markdown

    rows, reported = [], []
    for e in CATALOG:
        bad = catalog_run(e.name)
        rows.append(catalog_row(e, bad, correct_result(e.correct.name, repr(e.scope)), replay_ok=True, seconds=0.0))
        reported.append(bad)
    report = build_report(reported, title="catalog", command="ckptcheck catalog", catalog=rows,
                          catalog_summary=f"{len(rows)}/{len(rows)} catalog entries found")
    assert all(r["found"] for r in rows)
    k2 = next(r for r in rows if r["name"] == "K2-regions-joined-by-keyby")
    assert k2["summary"].startswith("found: checkpoints-consistent in ") and "correct design flip600-regional passes its scope" in k2["summary"]
    junit = ET.fromstring(render_junit(report))
    assert junit.get("failures") == "0" and len(junit.findall(".//testcase")) == len(CATALOG)
    assert len({s.get("name") for s in junit.findall("testsuite")}) == len(junit.findall("testsuite"))
    html = render_html(report)
    assert html.count("<tr><td><b>") >= len(CATALOG) and 'id="matrix"' not in html
    md = render_markdown(report)
    assert f"**{len(rows)}/{len(rows)} catalog entries found**" in md
    assert sum(1 for line in md.splitlines() if line.startswith("- **") and "**: found: " in line) == len(CATALOG)
    # a missed entry fails its JUnit test case
    missed = dict(rows[0], found=False, summary="MISSED: x")
    bad_report = build_report([], title="c", command="c", catalog=[missed, *rows[1:]], catalog_summary="14/15")
    assert ET.fromstring(render_junit(bad_report)).get("failures") == "1"


def test_junit_suite_names_are_unique_when_a_design_repeats():
    from ckptcheck.checks.run.report import build_report

    cheap = [e for e in CATALOG if e.correct.name == "flink-baseline" and e.name not in DEEP_CORRECT][:3]
    results = [correct_result(e.correct.name, repr(e.scope)) for e in cheap]
    report = build_report(results, title="t", command="c")
    suites = [r["suite"] for r in report.rows]
    assert len(set(suites)) == len(suites) and all(s.startswith("flink-baseline") for s in suites)


@pytest.mark.parametrize("e", UNALIGNED_CATALOG, ids=lambda x: x.name)
def test_unaligned_entries_name_the_record_lost_duplicated_or_overtaken(e):
    """Each unaligned entry's reason names the record: lost, in two places, committed twice,
    processed before an earlier record of its key, (FLINK-35351, whose symptom is a restore
    that fails) read in parts that a restore separated, (FLIP-547's NO_OP before the
    sentinel, whose symptom is a declined checkpoint) still to be read where no recovery barrier
    marks it, or (FLINK-40518, whose symptom is a checkpoint that expires) still to be read in
    front of a barrier."""
    v = catalog_run(e.name).verdict(e.violates)
    assert re.search(r"record \(split \d+, offset \d+\)", v.reason), v.reason
    assert any(w in v.reason for w in ("loses it", "applies it twice", "committed twice", "not processed in source order",
                                       "without its head", "got no RecoveryCheckpointBarrier",
                                       "neither declines the checkpoint nor can take it")), v.reason


def test_flink_31963_puts_a_rescaled_record_back_twice_and_the_fix_puts_every_record_back_once():
    """``rescaled-channel-state-exact`` on FLINK-31963's scope (keyed-map, the stateless map
    rescaled 1 -> 2): the source's output state, replicated by the RANGE mapper to both new map
    subtasks, reaches both unfiltered once checkpoint 1 completes, 7 steps in, shortest; the
    fixed ``StateAssignmentOperation`` puts every record back exactly once, exhaustively."""
    e = entry("FLINK-31963-stateless-vertex-not-reassigned")
    v = check(e.design, e.scope, stop_at="rescaled-channel-state-exact").verdict("rescaled-channel-state-exact")
    assert v.status == VIOLATED and len(v.trace) == 7
    assert v.reason.startswith("checkpoint 1, restored at map 1 -> 2, puts record (split 0, offset 0)"), v.reason
    assert v.reason.endswith("back 2 times: into source[0]->map[0] and source[0]->map[1]"), v.reason
    shorter = check(e.design, e.scope, max_depth=6, stop_at="rescaled-channel-state-exact")
    assert shorter.verdict("rescaled-channel-state-exact").status != VIOLATED
    good = correct_result(e.correct.name, repr(e.scope))
    assert good.complete and good.verdict("rescaled-channel-state-exact").status == HOLDS
    assert good.verdict("a-replica-is-filtered").status == HIT, "the fix filters the replica this entry lets through"
