"""Exhaustive, bounded and sampled results are three different statements, in every output:
the console, ``result.json``, the reports and JUnit, and the exit status."""

from __future__ import annotations

import json
import re

import pytest

from ckptcheck.checks.cli.main import main
from ckptcheck.checks.engine import memo_core

from conftest import one

TINY = ["--job", "forward-2x2", "--checkpoints", "1", "--failures", "0", "--declines", "0", "--lost-notifications", "0"]


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_exhaustive_search_says_holds_and_exits_0(tmp_path, capsys):
    code, out, _ = run(["check", "--out", str(tmp_path), "--report", str(tmp_path / "rep"), *TINY], capsys)
    assert code == 0
    assert re.search(r"RESULT: every property holds: exhaustive search of the scope, 11,644 states, depth \d+", out)
    doc = json.loads(one(tmp_path, "flink-baseline.memo-*.result.json").read_text())
    assert doc["outcome"] == "holds" and doc["ok"] is True
    assert {v["says"] for v in doc["verdicts"] if v["kind"] == "always" and v["status"] != "not applicable"} == {"holds"}
    assert "every property holds: exhaustive" in (tmp_path / "rep" / "report.md").read_text()


@pytest.mark.parametrize("bound", [["--max-states", "0"], ["--max-states", "200"], ["--max-depth", "8"]])
def test_bounded_search_never_says_holds(tmp_path, capsys, bound):
    """flip600-proposed fails in its default scope; cut short, it must say exactly how far the
    search went and that nothing is proved (it used to print 'every property holds', exit 0)."""
    code, out, _ = run(["check", "--design", "flip600-proposed", "--out", str(tmp_path), "--report", str(tmp_path / "rep"), *bound], capsys)
    assert code == 3
    assert "holds" not in out.replace("holds ", "").split("RESULT")[1]
    assert re.search(r"RESULT: no violation in [\d,]+ states to depth \d+ \(incomplete: (state|depth) bound \d+ reached\): nothing is proved", out)
    assert "engine   memo (BFS, INCOMPLETE:" in out
    assert "WARNING: no witness" not in out, "a cut-short search must not blame the scope for a missing witness"
    lines = [line for line in out.splitlines() if line.startswith("  always")]
    assert lines and all("holds" not in line for line in lines)
    assert all("no violation in" in line or "not applicable" in line for line in lines)
    docs = [json.loads(p.read_text()) for p in tmp_path.glob("flip600-proposed.memo-*.result.json")]
    assert len(docs) == 4  # its default scopes: forward-2x2, union-sources-4, enumerator-and-side, sources-2
    for doc in docs:
        assert doc["outcome"] == "incomplete" and doc["ok"] is False and doc["complete"] is False
        assert not [v for v in doc["verdicts"] if v["says"] == "holds"]
    junit = (tmp_path / "rep" / "junit.xml").read_text()
    assert 'failures="0"' in junit and "<skipped message=\"no violation in" in junit
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| holds |" not in md and "incomplete" in md


def test_violation_exits_1_whatever_the_bound(tmp_path, capsys):
    code, out, _ = run(["check", "--design", "cleaner-deletes-restore-checkpoint", "--out", str(tmp_path), "--max-depth", "12", *TINY], capsys)
    assert code == 1
    assert "RESULT: 1 property(ies) violated" in out
    doc = json.loads(one(tmp_path, "cleaner-deletes-restore-checkpoint.memo-*.result.json").read_text())
    assert doc["outcome"] == "violated" and doc["ok"] is False


def test_replay_of_a_clean_trace_does_not_claim_the_design_holds(tmp_path, capsys):
    run(["check", "--design", "cleaner-deletes-restore-checkpoint", "--out", str(tmp_path), *TINY], capsys)
    doc = json.loads(one(tmp_path, "cleaner-deletes-restore-checkpoint.memo-*--checkpoints-restorable.trace.json").read_text())
    doc["actions"] = doc["actions"][:3]
    doc["violation"] = None
    (tmp_path / "short.json").write_text(json.dumps(doc))
    code, out, _ = run(["replay", str(tmp_path / "short.json")], capsys)
    assert code == 0 and "replayed 3 steps: no property violated on this trace" in out


@pytest.mark.parametrize("workers", [pytest.param("1", marks=pytest.mark.claims), "2"])
def test_ctrl_c_keeps_the_partial_result_marked_incomplete(tmp_path, workers):
    """Ctrl-C after a few seconds of a long search: the figures reached, a result file whose
    outcome is incomplete, exit status 130, no traceback."""
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from ckptcheck.checks.cli.main import main; sys.exit(main())",
         "check", "--design", "flip600-regional", "--workers", workers, "--out", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err
    assert re.search(r"RESULT: no violation in [\d,]+ states to depth \d+ \(incomplete: interrupted \(Ctrl-C\)\)", out)
    # --workers 2 takes the reference engine where the memo engine cannot fork (no compiled loop)
    engine = "memo" if workers == "1" or memo_core.available() else "explore"
    doc = json.loads(one(tmp_path, f"flip600-regional.{engine}-*.result.json").read_text())
    assert doc["outcome"] == "incomplete" and doc["ok"] is False and doc["stats"]["stopped"] == "interrupted (Ctrl-C)"
    assert doc["stats"]["states"] > 1000
