"""``ckptcheck catalog --default-scopes``: each entry searched in its base design's default scopes
(``checks.run.catalog_reach``), here with the default scopes replaced by small ones so that a scope
that cannot reach the flaw, one that can, and a property that does not apply are each seen."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from ckptcheck.checks.run import catalog_reach
from ckptcheck.checks.run.catalog_reach import FOUND, MISSED, reach_entry
from ckptcheck.checks.cli.main import main
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.scopes import scope

# commit-at-pre-commit loses exactly-once only when a failure replays a committed record
NO_FAULT = scope("keyed-1x1", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)
ONE_FAILURE = scope("keyed-1x1", records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=0,
                    max_timeouts=0, max_lost_notifications=0)


def test_an_entry_is_found_in_the_first_default_scope_that_reaches_it(monkeypatch):
    monkeypatch.setattr(catalog_reach, "default_scopes_for", lambda design: (NO_FAULT, ONE_FAILURE))
    row, found = reach_entry(entry("commit-at-pre-commit"))
    assert (row.status, row.scope, row.scopes, row.job) == (FOUND, 2, 2, "keyed-1x1")
    assert len(row.states) == 2 and row.states[0] > 0, "the first scope was searched to the end first"
    assert found.verdict("exactly-once-output").status == "violated" and row.steps == len(found.verdict("exactly-once-output").trace)
    assert "committed twice" in row.reason
    assert row.line().startswith("found   commit-at-pre-commit: exactly-once-output violated in default scope 2 of 2 (job"
                                 f" keyed-1x1), {row.steps} steps (scope 1: {row.states[0]:,} states; scope 2: ")


def test_an_entry_no_default_scope_reaches_is_missed_and_the_command_says_so(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(catalog_reach, "default_scopes_for", lambda design: (NO_FAULT,))
    row, found = reach_entry(entry("commit-at-pre-commit"))
    assert (row.status, row.scope, found) == (MISSED, 0, None)
    monkeypatch.setattr("ckptcheck.checks.cli.catalog.CATALOG", (entry("commit-at-pre-commit"),))
    code = main(["catalog", "--default-scopes", "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 1, out
    assert ("MISSED  commit-at-pre-commit: exactly-once-output not violated in any default scope of flink-baseline, each"
            f" searched to the end (scope 1: {row.states[0]:,} states; ") in out
    table = json.loads((tmp_path / "out" / "default-scopes.json").read_text())
    assert [(r["entry"], r["status"], r["states"]) for r in table["entries"]] == [("commit-at-pre-commit", MISSED, list(row.states))]


def test_found_entries_leave_a_trace_and_exit_zero(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(catalog_reach, "default_scopes_for", lambda design: (ONE_FAILURE,))
    monkeypatch.setattr("ckptcheck.checks.cli.catalog.CATALOG", (entry("commit-at-pre-commit"),))
    assert main(["catalog", "--default-scopes", "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "RESULT: 1/1 catalog entries found in their base design's default scopes" in out
    traces = sorted((tmp_path / "out").glob("commit-at-pre-commit.default-scope-1--exactly-once-output.trace.json"))
    assert len(traces) == 1
    assert main(["replay", str(traces[0])]) == 1  # the trace reproduces the violation


def test_a_property_that_does_not_apply_in_a_scope_is_not_searched_there(monkeypatch):
    """split-ownership-consistent means nothing in a job without a split enumerator: such a scope
    is skipped (0 states), not searched to the end for nothing."""
    e = entry("no-operator-event-gateway")
    assert e.violates == "split-ownership-consistent"
    monkeypatch.setattr(catalog_reach, "default_scopes_for", lambda design: (NO_FAULT,))
    monkeypatch.setattr(catalog_reach, "check", lambda *a, **k: pytest.fail("searched a scope where the property does not apply"))
    row, _ = reach_entry(e)
    assert (row.status, row.states) == (MISSED, (0,)) and "(scope 1: does not apply; " in row.line()


def test_symmetry_reduction_where_check_applies_it():
    """The default scopes are searched as ``ckptcheck check`` searches them: with symmetry
    reduction where subtasks are interchangeable (an exact reduction: the same verdicts)."""
    from ckptcheck.specs.spec import symmetric
    from ckptcheck.specs.scopes import regional_default_scope

    k1 = entry("K1-regional-final-checkpoint")
    assert symmetric(k1.design, regional_default_scope())
    assert not symmetric(k1.design, scope("keyed-2x2", records_per_split=1, max_checkpoints=1))  # keyed edges


def test_a_variant_whose_component_may_treat_subtasks_apart_is_searched_without_symmetry():
    from ckptcheck.specs.spec import symmetric
    from ckptcheck.model.store import CompletedCheckpointStore
    from ckptcheck.specs.designs import FLIP600
    from ckptcheck.specs.scopes import regional_default_scope

    class Mine(CompletedCheckpointStore):
        pass

    assert not symmetric(FLIP600.with_(name="mine", store=Mine), regional_default_scope())


def test_entries_selects_by_name_and_an_unknown_name_is_one_line_before_any_search(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(catalog_reach, "default_scopes_for", lambda design: (ONE_FAILURE,))
    code = main(["catalog", "--default-scopes", "--entries", "commit-at-pre-commit,nosuch", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == ["ckptcheck: options: --entries: expected catalog entry names separated by commas (ckptcheck"
                                 " designs lists them), got 'nosuch'"]
    assert not (tmp_path / "o").exists()
    assert main(["catalog", "--default-scopes", "--entries", "commit-at-pre-commit", "--out", str(tmp_path / "o")]) == 0
    assert "RESULT: 1/1 catalog entries found" in capsys.readouterr().out


@pytest.mark.parametrize("default_scopes", [True, False], ids=["default-scopes", "own-scope"])
def test_the_catalog_on_the_memo_engine_finds_what_the_reference_finds(monkeypatch, tmp_path, capsys, default_scopes):
    """``catalog --engine memo``: the same rows as the reference engine, each trace replayed."""
    monkeypatch.setattr(catalog_reach, "default_scopes_for", lambda design: (NO_FAULT, ONE_FAILURE))
    small = dataclasses.replace(entry("commit-at-pre-commit"), scope=ONE_FAILURE)  # its own scope made small
    monkeypatch.setattr("ckptcheck.checks.cli.catalog.CATALOG", (small,))
    args = ["catalog", "--entries", "commit-at-pre-commit"] + (["--default-scopes"] if default_scopes else [])
    lines = {}
    for engine in ("memo", "explore"):
        assert main(args + ["--engine", engine, "--out", str(tmp_path / engine)]) == 0
        out = capsys.readouterr().out
        lines[engine] = [x for x in out.splitlines() if ("commit-at-pre-commit" in x or "correct design" in x) and "trace" not in x]
    assert lines["memo"] and len(lines["memo"]) == len(lines["explore"])
    # the steps and where it was found (a search that stopped at its first violation counts its own states), and
    # the correct design's exhaustive pass with the same states
    def figures(line: str) -> str:
        return re.sub(r", [0-9.]+s\)", ")", line.split(" steps (scope")[0])

    assert [figures(x) for x in lines["memo"]] == [figures(x) for x in lines["explore"]]
    assert default_scopes or "passes on the same scope (" in lines["memo"][-1]
    for trace in (tmp_path / "memo").rglob("*exactly-once-output.trace.json"):
        assert main(["replay", str(trace)]) == 1
