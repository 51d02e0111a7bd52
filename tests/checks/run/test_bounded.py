"""No output words a search cut short (``--max-seconds``) or stopped (``--stop-at-first``) as a
loss, a hold or a miss: ``compare`` says a witness is "not reached in the part searched", never
lost; ``findings`` bounds the whole command and says of every expected violation whether it was
found, not found in the part searched, or not searched; ``check`` never says "holds" of a scope
it did not search to the end."""

from __future__ import annotations

import re
from dataclasses import replace

from ckptcheck.checks.cli.main import main
from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.compare import LOSES_WITNESS, UNSETTLED_WITNESS, differences
from ckptcheck.checks.run.results import HIT, NOT_REACHED
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.scopes import scope

TOUR = ["--job", "forward-2x2", "--checkpoints", "1", "--failures", "1", "--declines", "0", "--lost-notifications", "0",
        "--workers", "1"]


def test_compare_stopped_at_the_first_violation_loses_no_witness(tmp_path, capsys):
    code = main(["compare", "flink-baseline", "commit-at-pre-commit", *TOUR, "--stop-at-first", "--out", str(tmp_path),
                 "--report", str(tmp_path / "rep")])
    out = capsys.readouterr().out
    assert code == 1 and "commit-at-pre-commit BREAKS committed-output-covered" in out
    assert "LOSES WITNESS" not in out
    assert re.search(r"commit-at-pre-commit: \d+ witness\(es\) hit in flink-baseline not reached in the part searched,"
                     r" so nothing is said about them \(.*a-checkpoint-completes", out)
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "loses witness" not in md and "not reached in the part searched: a-checkpoint-completes" in md
    # the change itself comes first in the report's table: the break, then what is not settled
    changes = md.split("## What changes against flink-baseline")[1]
    assert changes.index("breaks: committed-output-covered") < changes.index("not reached in the part searched")


def test_a_witness_is_lost_only_where_the_variant_searched_its_whole_scope():
    """The same verdicts twice: a variant that did not reach a witness the reference hit loses it
    when its whole scope was searched, and leaves it unsettled when its search was cut short."""
    sc = scope("forward-2x2", max_checkpoints=1, max_failures=0, max_declines=0, max_lost_notifications=0)
    ref = check(BASELINE, sc)
    witness = next(v for v in ref.verdicts if v.status == HIT)
    verdicts = [replace(v, status=NOT_REACHED, trace=None) if v is witness else v for v in ref.verdicts]
    whole = replace(ref, design=BASELINE.with_(name="variant"), verdicts=verdicts)
    cut = replace(whole, complete=False, stats={**ref.stats, "stopped": "state bound 300 reached"})
    assert [(c.property, c.what) for c in differences(ref, whole)] == [(witness.property, LOSES_WITNESS)]
    assert [(c.property, c.what) for c in differences(ref, cut)] == [(witness.property, UNSETTLED_WITNESS)]
    assert "whether the change loses it is not known" in differences(ref, cut)[0].reason


def test_compare_cut_by_max_seconds_says_not_reached_in_the_part_searched(tmp_path, capsys):
    code = main(["compare", "flink-baseline", "commit-at-pre-commit", "--job", "keyed-2x2", "--checkpoints", "2",
                 "--failures", "1", "--declines", "1", "--max-seconds", "3", "--workers", "1", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code in (1, 3)
    assert "LOSES WITNESS" not in out
    assert "were not exhaustive, so what holds there is not proved" in out.splitlines()[-1]


def test_check_cut_short_never_says_holds(tmp_path, capsys):
    code = main(["check", "--design", "flink-baseline", "--max-seconds", "2", "--workers", "1", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 3
    assert "every property holds" not in out
    assert "nothing is proved" in out.splitlines()[-1]


def test_findings_bounds_the_whole_command_and_lists_every_expected_violation(tmp_path, capsys):
    from ckptcheck.specs.findings import FINDINGS, READINGS

    code = main(["findings", "flip600-pr", "--max-seconds", "12", "--workers", "1", "--out", str(tmp_path), "--date", "2026-11-28"])
    out = capsys.readouterr().out
    assert code == 3, out[-2000:]
    text = re.sub(r"\s+", " ", (tmp_path / "2026-11-28-flip600-pr.md").read_text())  # the report wraps its lines
    assert "Command: `ckptcheck findings flip600-pr --out " in text and "--max-seconds 12`" in text
    assert "The run was bounded to 12 s" in text
    # every violation the manifest expects is accounted for: found (a row of the table) or said why not
    design, scopes = FINDINGS["flip600-pr"]
    knob = READINGS["flip600-pr"].knob
    for fs in scopes:
        for fx in fs.fixes:
            found = f"| {fx.violates} | {fs.name} |" in text
            said = re.search(rf"{re.escape(fx.violates)} in scope {re.escape(fs.name)}: (not found in the part searched|not"
                             rf" searched)", text)
            assert found or said, (fs.name, fx.violates)
            if not found:
                assert f"under {knob} = " in said.string[said.start():said.start() + 300]
    assert "final: no violation" not in text  # a reading whose search was cut short is not said to hold
    assert out.splitlines()[-1].startswith("RESULT: ") and "not settled within --max-seconds 12" in out


def test_check_stopped_at_the_first_violation_decides_nothing_else(tmp_path, capsys):
    """``--stop-at-first``: the violation is reported; no other property is said to hold, and the
    witnesses the search did not reach are not reached in the part searched, not missing."""
    code = main(["check", "--design", "commit-at-pre-commit", *TOUR, "--stop-at-first", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "always     hold:" not in out and "every property holds" not in out
    assert re.search(r"always     no violation in \d[\d,]* states \(incomplete\):", out)
    assert "sometimes  not reached in the part searched:" in out and "WARNING: no witness" not in out
    assert out.splitlines()[-1].startswith("RESULT: ") and "violated" in out.splitlines()[-1]
