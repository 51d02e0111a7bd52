"""The findings report: its runner on a manifest small enough for the default run, its Markdown,
its command's bad input, and the committed report of flip600-pr (every trace in it replays)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ckptcheck.checks.cli.main import main
from ckptcheck.checks.run.findings import run_findings
from ckptcheck.checks.run.trace import load_trace_file, replay
from ckptcheck.checks.run.report import findings_report
from ckptcheck.model.flip600 import CounterNotReset
from ckptcheck.model.regional import RegionalCheckpointHandler
from ckptcheck.specs.designs import FLIP600_PROPOSED
from ckptcheck.specs.findings import FINDINGS, READINGS, RULES, FindingScope, Fix, Readings
from ckptcheck.specs.scopes import scope

ROOT = Path(__file__).resolve().parents[2]
CHAIN = scope("sources-2", records_per_split=0, bounded=False, max_checkpoints=5, max_failures=0, max_declines=4,
              max_timeouts=0, max_lost_notifications=0)
KEEP_FORCE = FLIP600_PROPOSED.with_(name="keep-force", forced_global_failure_resets_counter=False)


def _manifest(*fixes: Fix) -> tuple[FindingScope, ...]:
    return (FindingScope("chain", CHAIN, "tier 2 on two regions", fixes),)


def test_findings_report_narrates_replays_and_checks_the_fix(tmp_path):
    """flip600-proposed on two one-subtask regions: tier 2's reset lets the ref chain grow past
    the maximum (catalog F3).  The runner finds it, saves a trace that replays, checks the fix
    in the same scope (exhaustively; two interchangeable sources, so with symmetry reduction,
    as ``ckptcheck check`` would), and the report says each of these things."""
    fix = Fix("ref-chain-bounded", "tier 2 resets the counter", KEEP_FORCE, "keep the force")
    run = run_findings(FLIP600_PROPOSED, _manifest(fix), tmp_path / "traces", workers=1)
    assert [f.property for f in run.findings] == ["ref-chain-bounded"] and run.as_expected
    f = run.findings[0]
    assert f.replays and f.fix_holds and f.fix_result.stats["states"] == 4_746 and f.fix_result.symmetry
    assert Path(f.trace_file).parent == tmp_path / "traces"
    text = findings_report(run, command="ckptcheck findings test", when="2026-11-23")
    assert "| 1 | ref-chain-bounded | chain | 15 | yes | keep-force | holds (exhaustive search of the scope, 4,746 states (symmetry classes), depth 25)" in text
    assert f"ckptcheck replay -v {f.trace_file}" in text
    assert "**checkpoint 5 refers for source[1] through a chain 5 -> 3 -> 2 -> 1 of 3 refs" in text
    assert "Knobs changed: forced_global_failure_resets_counter = False." in text
    held = text.split("## What holds")[1].split("##")[0]
    assert "exhaustive search of the scope, 4,762 states (symmetry classes)" in held and "checkpoints-restorable" in held
    assert "ref-chain-bounded" not in held


def test_findings_under_readings_say_where_each_holds(tmp_path):
    """A rule the source does not settle, searched under each of the classes that read it: the
    violation found under one (the thread's rule, tier 2 resetting the counter, lets the chain
    outgrow the maximum) and not the other (``CounterNotReset``), a trace for the one, the fix
    checked under it, and the report naming each reading's class and saying where it holds."""
    readings = Readings((RegionalCheckpointHandler, CounterNotReset), "a test")
    assert readings.knob == "forced_global_failure_resets_counter" and readings.values == (True, False)
    wider = FLIP600_PROPOSED.with_(name="wider", max_consecutive_regional=9)
    fix = Fix("ref-chain-bounded", "tier 2 resets the counter", wider, "a wider limit", readings=(True,))
    run = run_findings(FLIP600_PROPOSED, _manifest(fix), tmp_path / "traces", workers=1, readings=readings)
    assert run.as_expected and [r.reading for r in run.runs] == [True, False]
    (f,) = run.findings
    assert f.reading is True and f.by_reading[False] is None and f.by_reading[True][0] == len(f.trace) == 15
    assert f.fix_holds and f.fix_result.design.forced_global_failure_resets_counter is True
    text = findings_report(run, command="ckptcheck findings test", when="2026-11-25")
    assert "| True: 15 steps; False: no violation |" in text
    assert "under forced_global_failure_resets_counter = False (exhaustive search of the scope" in text
    assert "True (RegionalCheckpointHandler, its own rule), False (CounterNotReset)" in " ".join(text.split())
    # expected under the other reading only: found where not expected, missing where expected
    wrong = Fix("ref-chain-bounded", "tier 2 resets the counter", wider, "a wider limit", readings=(False,))
    run = run_findings(FLIP600_PROPOSED, _manifest(wrong), tmp_path / "traces2", workers=1, readings=readings)
    assert not run.as_expected and not run.findings[0].expected and run.runs[1].missing == [wrong]
    # a fix that is itself a reading (it sets the knob) is checked with its own value
    other = Fix("ref-chain-bounded", "tier 2 resets the counter", KEEP_FORCE, "keep the force", readings=(True,))
    run = run_findings(FLIP600_PROPOSED, _manifest(other), tmp_path / "traces3", workers=1, readings=readings)
    assert run.as_expected and run.findings[0].fix_result.design.forced_global_failure_resets_counter is False


def test_readings_name_one_knob_and_a_class_per_value():
    """The manifest's readings are classes: the reading classes of one knob and the component's
    own rule for its default; classes of two knobs are refused."""
    r = READINGS["flip600-pr"]
    assert r.knob == "fallback_notice_at_task"
    assert r.values == ("none", "latest-reported", "final", "replayed-after-restart")
    assert r.named("final") == "final (StreamTask, its own rule)" and r.rule_of("none").__name__ == "FallbackNoticeIgnored"
    with pytest.raises(ValueError, match="one knob"):
        Readings((CounterNotReset, r.rule_of("none")), "two knobs")


def test_findings_report_says_what_the_manifest_got_wrong(tmp_path):
    """A manifest that expects a violation the search does not find, and misses one it does:
    the report names both, and the run is not as expected (the command exits 1)."""
    wrong = Fix("exactly-once-output", "none", KEEP_FORCE, "nothing")
    run = run_findings(FLIP600_PROPOSED, _manifest(wrong), tmp_path / "traces", workers=1)
    assert not run.as_expected and [f.expected for f in run.findings] == [False] and run.exit_status == 1
    text = findings_report(run, command="ckptcheck findings test", when="2026-11-23")
    assert ("Expected by the manifest and not found (each with what the search says of it):\n"
            "- exactly-once-output in scope chain: not found: the scope was searched to the end") in text
    assert "No fix is listed for this violation: the manifest did not expect it." in text


@pytest.mark.parametrize("argv, says", [
    (["findings", "flip600-regional"], "expected a design with a findings manifest: flip600-pr"),
    (["findings", "flip600-pr", "--date", "23-11-2026"], "expected a calendar date as YYYY-MM-DD"),
])
def test_findings_bad_input_is_one_line_and_exit_2(argv, says, capsys, tmp_path):
    assert main(argv + ["--out", str(tmp_path / "f")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0]
    assert not (tmp_path / "f").exists()


@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_committed_findings_report_replays(name):
    """The report under reports/findings names a trace for each finding (and for each other
    reading it holds under, and for each rule whose absence breaks a property); each one
    replays to the violation the report states, and the manifest lists a fix for each finding
    and a rule check for each other trace."""
    reports = sorted((ROOT / "reports" / "findings").glob(f"*-{name}.md"))
    assert reports, f"no committed findings report for {name}"
    text = reports[-1].read_text()
    primary = re.findall(r"^Replay: `ckptcheck replay -v (\S+\.trace\.json)`", text, re.M)
    traces = re.findall(r"`ckptcheck replay -v\s+(\S+\.trace\.json)`", text)
    listed = {(fs.name, fx.violates) for fs in FINDINGS[name][1] for fx in fs.fixes}
    needed = [rc for rc in RULES.get(name, ()) if rc.needed]
    assert len(primary) == len(listed) and len(traces) > len(primary)
    for t in traces:
        doc = load_trace_file(str(ROOT / t))
        out = replay(doc, t)
        assert out.reproduced
        if "--rule--" in t:
            assert any(f"--rule--{rc.without.name}--" in t for rc in needed), t
        else:
            assert doc["violation"]["property"] in {p for _, p in listed}
            assert f"| {doc['violation']['property']} |" in text
    assert text.count("| holds (exhaustive search of the scope,") == len(listed)
    assert sum("--rule--" in t for t in traces) == len(needed)


@pytest.mark.claims  # the pointwise PR's manifest with FLIP-547's options and its five rules: about 75 s
def test_pointwise_downstream_manifest_holds_to_the_searches(tmp_path):
    """``ckptcheck findings pointwise-downstream`` exits 0 on these searches: the one expected
    violation (per-key order across a pointwise rescale with checkpoints during recovery) is
    found, its trace replays and its fix holds; the primary-producer rule, the recovery filter and
    the recorded pattern are still needed, P1 and the gate-wide hold behind re-sent output are
    moot; the committed report states the same searches."""
    design, scopes = FINDINGS["pointwise-downstream"]
    run = run_findings(design, scopes, tmp_path / "traces", workers=1, rules=RULES["pointwise-downstream"])
    assert run.as_expected, [(f.property, f.scope.name, f.expected, f.replays, f.fix_holds) for f in run.findings]
    assert [(r.check.without.name, r.needed) for r in run.rules] == [(rc.without.name, rc.needed)
                                                                       for rc in RULES["pointwise-downstream"]]
    committed = sorted((ROOT / "reports" / "findings").glob("*-pointwise-downstream.md"))[-1].read_text()
    fresh = findings_report(run, command="ckptcheck findings pointwise-downstream", when="today")
    stated = set(re.findall(SEARCHED, committed))
    assert stated and stated == set(re.findall(SEARCHED, fresh))


@pytest.mark.deep  # the whole flip600-pr manifest under its three readings: 1,495 s on two cores, measured once
def test_flip600_pr_manifest_holds_to_the_searches(tmp_path):
    """Every violation the manifest expects is found, nothing else is, every trace replays and
    every fix holds exhaustively in its scope: what ``ckptcheck findings flip600-pr`` exits 0 on."""
    design, scopes = FINDINGS["flip600-pr"]
    run = run_findings(design, scopes, tmp_path / "traces", workers=2, readings=READINGS["flip600-pr"])
    assert run.as_expected, [(f.property, f.scope.name, f.expected, f.replays, f.fix_holds) for f in run.findings]
    assert all(r.result.searched_whole_scope for r in run.runs)
    # the committed report's figures are this search's: every search it states is stated again
    committed = sorted((ROOT / "reports" / "findings").glob("*-flip600-pr.md"))[-1].read_text()
    fresh = findings_report(run, command="ckptcheck findings flip600-pr", when="today")
    stated = set(re.findall(SEARCHED, committed))
    assert stated and stated <= set(re.findall(SEARCHED, fresh)), sorted(stated - set(re.findall(SEARCHED, fresh)))


SEARCHED = r"\(exhaustive search of the scope, [\d,]+ states(?: \(symmetry classes\))?(?:, depth \d+)?\)"


def test_findings_on_the_memo_engine_say_what_the_reference_says(tmp_path):
    """``findings --engine memo``: the same finding, trace length, replay and fix verdict as the
    reference engine, and the report names the engine."""
    fix = Fix("ref-chain-bounded", "tier 2 resets the counter", KEEP_FORCE, "keep the force")
    memo = run_findings(FLIP600_PROPOSED, _manifest(fix), tmp_path / "memo", engine="memo")
    ref = run_findings(FLIP600_PROPOSED, _manifest(fix), tmp_path / "ref", workers=1)
    assert [(f.property, len(f.trace), f.replays, f.fix_holds, f.fix_result.stats["states"]) for f in memo.findings] == \
        [(f.property, len(f.trace), f.replays, f.fix_holds, f.fix_result.stats["states"]) for f in ref.findings]
    assert memo.as_expected
    text = findings_report(memo, command="ckptcheck findings test --engine memo", when="2026-11-28")
    assert "on the memo engine (one process)" in text
