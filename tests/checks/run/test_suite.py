"""A design's default scopes checked as one (``checks.run.suite``): a verdict per scope, a witness
hit in any scope counts, a violation in any scope fails the check, and what no scope hits is
said."""

from __future__ import annotations

from ckptcheck.checks.cli import main as cli

from ckptcheck.checks.cli import options as cli_options
from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT, NOT_REACHED
from ckptcheck.checks.run.suite import SuiteResult
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.designs import BASELINE, FLIP147, FLIP600, FLIP600_PR, INCREMENTAL, UNALIGNED, UNALIGNED_TIMEOUT
from ckptcheck.specs.scopes import (
    announcement_scope,
    default_scope,
    incremental_concurrent_scope,
    jobmanager_view_scope,
    recovery_scope,
    rescaled_recovery_scope,
    regional_chain_scope,
    regional_default_scope,
    regional_enumerator_scope,
    regional_union_scope,
    default_scope_for,
    default_scopes_for,
    enumerator_default_scope,
    flip147_concurrent_scope,
    flip147_union_scope,
    scope,
    unaligned_rescale_scope,
    spanning_records_scope,
    unaligned_scope,
)

QUIET = dict(max_timeouts=0, max_lost_notifications=0, max_checkpoints=1)
NO_FAULT = scope("keyed-1x1", records_per_split=1, max_failures=0, max_declines=0, **QUIET)
KEYED_NO_FAULT = scope("keyed-2x2", records_per_split=1, max_failures=0, max_declines=0, **QUIET)
ONE_FAILURE = scope("keyed-1x1", records_per_split=1, max_failures=1, max_declines=0, **QUIET)


def test_designs_with_more_than_one_default_scope():
    """The unaligned presets add a scope with a rescale, backpressure, a failure and a decline,
    and one with records split across a checkpoint; flip147 adds the union-state job; the
    baseline adds a job with a split enumerator and staggered trigger RPCs (its operator-event
    gateway)."""
    for d in (UNALIGNED, UNALIGNED_TIMEOUT):
        first, second, third, *rest = default_scopes_for(d)
        assert first == unaligned_scope() == default_scope_for(d)
        assert second == unaligned_rescale_scope()
        assert second.rescale and second.max_rescales and second.channel_capacity
        assert second.max_failures and second.max_declines
        assert third == spanning_records_scope() and third.spanning_records and not first.spanning_records
        assert not second.spanning_records and third.rescale and third.max_failures and third.max_declines
        # then the recoveries with Flink's runtime options on, which the larger scopes leave off
        assert rest[-2:] == [recovery_scope(), rescaled_recovery_scope()]
        assert rest[-2].suspend_on_failure and rest[-2].max_failures and rest[-2].input_buffers
        assert rest[-1].rescaled_tasks_decline and rest[-1].suspend_on_failure and rest[-1].rescale
        assert not any(s.suspend_on_failure or s.rescaled_tasks_decline for s in (first, second, third))
    # with an alignment timeout, a fourth scope whose remote input channel announces barriers
    assert len(default_scopes_for(UNALIGNED)) == 5
    fourth = default_scopes_for(UNALIGNED_TIMEOUT)[3]
    assert fourth == announcement_scope() and fourth.input_buffers
    assert not any(s.input_buffers for s in default_scopes_for(UNALIGNED)[:3])
    assert default_scopes_for(FLIP147) == (flip147_concurrent_scope(), flip147_union_scope(), jobmanager_view_scope())
    # incremental checkpoints with two concurrent: a snapshot taken while the one before it uploads
    incremental_concurrent = INCREMENTAL.with_(name="x", max_concurrent_checkpoints=2)
    assert default_scopes_for(incremental_concurrent)[-1] == incremental_concurrent_scope()
    assert regional_chain_scope().max_jm_failovers == 1, "F4: a JobManager failover in the chain scope"
    assert default_scopes_for(BASELINE) == (default_scope_for(BASELINE), enumerator_default_scope(), jobmanager_view_scope())
    view = jobmanager_view_scope()
    assert view.staggered_triggers and view.rpcs_overtake and view.late_finish_reports and view.suspend_on_failure
    assert not any(s.rpcs_overtake or s.late_finish_reports or s.suspend_on_failure
                   for s in (default_scope(), enumerator_default_scope()))
    assert enumerator_default_scope().staggered_triggers and any(v.coordinator for v in enumerator_default_scope().job.vertices)
    # FLIP-600 with one failed region of two within the ratio: a split enumerator whose region
    # falls back, and chains of refCheckpointId hops (more declines than checkpoints can pass)
    assert default_scopes_for(FLIP600) == (regional_default_scope(), regional_union_scope(), regional_enumerator_scope(),
                                           regional_chain_scope())
    assert regional_chain_scope().max_declines >= 2 and any(v.coordinator for v in regional_enumerator_scope().job.vertices)
    assert regional_chain_scope() not in default_scopes_for(FLIP600_PR), "0.3: two regions never complete regionally"


def test_a_witness_counts_if_one_scope_hits_it_and_a_violation_anywhere_fails():
    a = check(BASELINE, NO_FAULT)
    b = check(BASELINE, ONE_FAILURE)
    assert a.holds and b.holds
    assert a.verdict("a-task-fails").status == NOT_REACHED and b.verdict("a-task-fails").status == HIT
    suite = SuiteResult((a, b))
    assert suite.holds and suite.exit_status == 0
    assert "a-task-fails" not in suite.unreached and "a-task-declines" in suite.unreached
    assert ("a-task-fails", 1) in suite.covered_elsewhere[0]
    assert "a-task-fails" in suite.only_in[1] and "a-checkpoint-completes" not in suite.only_in.get(1, [])
    assert 0 not in suite.only_in  # the fault-free scope hits nothing the other does not
    bad = check(entry("no-alignment-block").design, KEYED_NO_FAULT, max_depth=12)
    assert bad.violated
    assert SuiteResult((a, bad)).exit_status == 1 and not SuiteResult((a, bad)).holds
    assert "in default scope(s) 2 of 2" in SuiteResult((a, bad)).headline()
    cut = check(BASELINE, ONE_FAILURE, max_states=50)
    assert SuiteResult((a, cut)).exit_status == 3 and "nothing is proved" in SuiteResult((a, cut)).headline()


def test_cli_checks_every_default_scope_and_says_what_they_hit_together(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli_options, "default_scope_for", lambda d: NO_FAULT)
    monkeypatch.setattr(cli_options, "default_scopes_for", lambda d: (NO_FAULT, ONE_FAILURE))
    code = cli.main(["check", "--design", "flink-baseline", "--out", str(tmp_path), "--report", str(tmp_path / "rep")])
    out, _ = capsys.readouterr()
    # every scope holds, but a witness is hit in none: the check says nothing about declines
    assert code == 4, out
    last = out.rstrip().splitlines()[-1]
    # one verdict, last: the scopes hold, the gap is the preset's own default scopes, and a measured scope
    # that reaches the witness is printed as a command to run
    assert last.startswith("RESULT: every property holds in each of the 2 default scopes (exhaustive searches of") and (
        "but none of them reaches a-task-declines: a gap in its own default scopes, which ckptcheck ships, not a fault"
        " found in flink-baseline" in last) and last.endswith("(exit 4)")
    assert "a measured scope that reaches it: `ckptcheck check --design flink-baseline --job keyed-2x2" in last
    assert out.count("RESULT: every property holds in each of the 2 default scopes") == 1
    md = (tmp_path / "rep" / "report.md").read_text()
    assert md.count("### flink-baseline") == 2, "the report has the verdicts of each default scope"
    assert "## The default scopes together" in md and "only scope 2 hits:" in md
    html = (tmp_path / "rep" / "report.html").read_text()
    assert 'id="suite"' in html and "RESULT: every property holds in each of the 2 default scopes" in html
    assert "== default scope 1 of 2 ==" in out and "== default scope 2 of 2 ==" in out
    assert "not reached in scope 1, hit in another: " in out and "a-task-fails (scope 2)" in out
    assert "only scope 2 hits: " in out and "only scope 1 hits" not in out
    assert "WARNING: no witness for a-task-declines" in out and "a-task-fails" not in out.split("WARNING")[-1]
    assert len(list(tmp_path.glob("*.result.json"))) == 2
    # a scope option names one scope: the design's other default scopes are not searched, and a
    # witness that scope does not reach is a warning (the user chose the scope), exit 0
    code = cli.main(["check", "--design", "flink-baseline", "--out", str(tmp_path), "--failures", "0"])
    out, _ = capsys.readouterr()
    assert code == 0 and "default scope 1 of 2" not in out and "WARNING: no witness for a-task-declines" in out


def test_cli_exits_1_when_a_later_default_scope_is_violated(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli_options, "default_scope_for", lambda d: NO_FAULT)
    monkeypatch.setattr(cli_options, "default_scopes_for", lambda d: (NO_FAULT, KEYED_NO_FAULT))
    code = cli.main(["check", "--design", "no-alignment-block", "--out", str(tmp_path), "--max-depth", "12"])
    out, _ = capsys.readouterr()
    assert code == 1, out
    assert "property(ies) violated, in default scope(s) 2 of 2" in out.split("RESULT: ")[-1]


def test_an_option_a_later_default_scope_refuses_is_bad_input_before_any_search(tmp_path, capsys, monkeypatch):
    """``--symmetry`` on a design whose second default scope has no interchangeable subtasks:
    one line naming the option and the job, exit 2, before the first scope is searched."""
    symmetric = scope("forward-2x2", records_per_split=1, max_failures=1, max_declines=1, **QUIET)
    monkeypatch.setattr(cli_options, "default_scope_for", lambda d: symmetric)
    monkeypatch.setattr(cli_options, "default_scopes_for", lambda d: (symmetric, NO_FAULT))
    code = cli.main(["check", "--design", "flink-baseline", "--symmetry", "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--symmetry: job keyed-1x1" in err
    assert not list(tmp_path.glob("out/*.json"))


def test_max_seconds_bounds_the_whole_command_not_each_default_scope(tmp_path, capsys):
    """flink-unaligned has five default scopes; a bound of 3 s is spent in the first, the
    others are said to be unsearched, and the result proves nothing (exit 3)."""
    code = cli.main(["check", "--design", "flink-unaligned", "--max-seconds", "3", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 3, out
    assert "not searched: default scopes 2-5 of 5: 0 s of the --max-seconds 3 bound were left" in out
    assert out.strip().splitlines()[-1].startswith("RESULT: scope 1: no violation in ") and out.strip().endswith(
        "; scopes 2-5 not searched (--max-seconds 3): nothing is proved about them")
    assert "holds" not in out.split("RESULT")[-1]
    # the cost of all five scopes is said before the first starts
    assert out.startswith("expect   the 5 default scopes together: about ")


def test_a_bound_that_holds_some_scopes_whole_says_so_and_starts_no_scope_on_a_sliver(tmp_path, capsys, monkeypatch):
    """Two small scopes searched whole, then a third measured at about 25 s, which the 4 s bound leaves
    a sliver for: it is not started (its cut-short search would say nothing), and the verdict says the
    first two hold."""
    third = scope("keyed-2x2", records_per_split=1, max_failures=1, max_declines=1, **QUIET)
    monkeypatch.setattr(cli_options, "default_scope_for", lambda d: NO_FAULT)
    monkeypatch.setattr(cli_options, "default_scopes_for", lambda d: (NO_FAULT, ONE_FAILURE, third))
    code = cli.main(["check", "--design", "flink-baseline", "--max-seconds", "4", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 3, out
    assert "== default scope 3 of 3 ==" not in out and "not searched: default scope 3 of 3: " in out
    assert out.strip().splitlines()[-1].startswith("RESULT: every property holds in scopes 1, 2 (exhaustive searches of")


def test_every_measured_scope_is_a_command_that_searches_it():
    """The command ``check`` prints for a measured scope (``scope_options``) parses back to that very
    scope, for every figure's design and scope; a scope the options cannot say gets no command."""
    from ckptcheck.checks.cli.options import scope_options
    from ckptcheck.specs.catalog import all_designs
    from ckptcheck.specs.figures import FIGURES
    from ckptcheck.specs.jobs import job_by_name

    designs = all_designs()
    said = [(f.id, scope_options(designs[f.design], f.scope())) for f in FIGURES if f.design in designs]
    assert len(said) > 40 and all(words for _, words in said), [i for i, w in said if not w]
    custom = NO_FAULT.with_(job_name="keyed-2x2", job=job_by_name("forward-2x2"))  # a name the job does not have
    assert scope_options(BASELINE, custom) is None
