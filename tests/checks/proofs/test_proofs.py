"""Every theorem is proved; every deliberately wrong formula is refuted with a counterexample."""

from __future__ import annotations

import pytest

from ckptcheck.checks.cli.main import main
from ckptcheck.checks.proofs.theorems import PROVED, REFUTED, THEOREMS, first_java_break, theorem


# Z3's search for the first max parallelism at which Java int arithmetic breaks the key-group
# ranges (M = 46341) takes about 20 s with its mutant: it runs in the deep run; the other
# theorems, their mutants and ``ckptcheck prove`` run in the default run
SLOW = ("key-group-java-int-first-break",)


def _split_slow(theorems) -> list:
    return [pytest.param(t, marks=pytest.mark.claims, id=t.name) if t.name in SLOW else pytest.param(t, id=t.name) for t in theorems]


@pytest.mark.parametrize("t", _split_slow(THEOREMS))
def test_theorem_is_proved(t):
    o = t.prove()
    assert o.verdict == PROVED, o.detail


@pytest.mark.parametrize("t", _split_slow(THEOREMS))
def test_mutant_is_refuted(t):
    o = t.mutant()
    assert o.verdict == REFUTED, f"{t.mutant_statement}: {o.verdict} {o.detail}"
    assert o.counterexample


@pytest.mark.claims
def test_first_java_int_break_is_46341():
    o = first_java_break(32768, 1 << 20)
    assert o.verdict == REFUTED
    cex = o.counterexample
    assert cex["M"] == 46341 and cex["P"] <= cex["M"]
    # the Java values differ from the exact ones: that is what breaks
    java = (cex["start(i) Java"], cex["end(i) Java"], cex["start(i+1) Java"])
    exact = (cex["start(i) exact"], cex["end(i) exact"], cex["start(i+1) exact"])
    assert java != exact


def test_prove_command(capsys):
    assert main(["prove", "even-split", "pointwise-upstream-smaller"]) == 0
    out = capsys.readouterr().out
    assert "PROVED   even-split" in out and "RESULT: 2/2 theorems proved, each mutant refuted" in out
    assert "mutant refuted in" in out and "floor instead of ceil" in out


def test_prove_unknown_theorem_is_bad_input(capsys):
    assert main(["prove", "nope"]) == 2
    assert "prove: nope: unknown theorem" in capsys.readouterr().err


def test_theorem_lookup():
    assert theorem("range-mapper").name == "range-mapper"


def test_prove_report(tmp_path, capsys):
    import xml.etree.ElementTree as ET

    assert main(["prove", "round-robin-once", "pointwise-upstream-larger", "--report", str(tmp_path)]) == 0
    html = (tmp_path / "report.html").read_text()
    assert "round-robin-once" in html and ">proved<" in html
    root = ET.fromstring((tmp_path / "junit.xml").read_text())
    assert [c.get("name") for c in root.iter("testcase")] == ["round-robin-once", "pointwise-upstream-larger"]
    md = (tmp_path / "report.md").read_text()
    assert "- proved round-robin-once (" in md and "## Verdicts" not in md
