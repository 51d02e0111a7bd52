"""The README's tour, run as written: each example's command gives the figures and verdicts its
quoted output shows (the baseline's check, a 25 s search, in the claims tier)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from ckptcheck.checks import flinkjvm
from ckptcheck.checks.cli.main import main

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def example(command_start: str) -> tuple[list[str], str]:
    """The README block whose first line is ``$ ckptcheck <command_start>...``: its argv and text."""
    for block in re.findall(r"```\n(.*?)```", README, flags=re.S):
        lines = [ln for ln in block.splitlines() if ln.startswith("$ ckptcheck ")]
        if lines and lines[0].startswith(f"$ ckptcheck {command_start}"):
            return shlex.split(lines[0])[2:], block
    raise AssertionError(f"no README example of ckptcheck {command_start}")


def _without_times(line: str) -> str:
    """A line of output with its times and rates taken out (measured once; never compared)."""
    line = re.sub(r"\d+(\.\d+)?s \([\d,]+ states/s\)", "<time>", line)
    line = re.sub(r"about \d+ s", "about <time>", line)
    line = re.sub(r"\d+ us a computed call", "<time> a computed call", line)
    return re.sub(r"(explore|memo)-[0-9a-f]{8}", r"\1-<id>", line).rstrip()


@pytest.mark.claims
def test_the_check_example_line_for_line(tmp_path, capsys, monkeypatch):
    """Every line of the baseline's check as the README quotes it: its states, transitions, depth,
    verdicts and each witness's steps; only the times differ."""
    argv, quoted = example("check")
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 0
    out = [_without_times(x) for x in capsys.readouterr().out.splitlines()]
    quoted_lines = [_without_times(x) for x in quoted.splitlines() if not x.startswith("$ ")]
    assert quoted_lines == out


@pytest.mark.claims  # about 20 s: the README's own check example runs in this tier too
def test_the_compare_example(tmp_path, capsys, monkeypatch):
    argv, quoted = example("compare")
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 1
    for line in quoted.splitlines():
        line = line.rstrip()
        if line.startswith(("  always", "commit-at-pre-commit BREAKS", "RESULT", "     14.")):
            assert line in out, line
        elif re.match(r"\s+\d+\. ", line):  # a step quoted from the middle: its words (which of the equally short
            # counterexamples a parallel search reports first, and so the step's number, depends on state hashes)
            assert re.sub(r"^\s+\d+\. ", "", line) in out, line


@pytest.mark.claims  # about 15 s of JVM; the default run checks conform on its own small run (tests/checks/conform/test_conform.py)
@pytest.mark.skipif(flinkjvm.default_dist_jar() is None, reason="no Flink distribution jar: pip install -e '.[test]' brings it (apache-flink-libraries)")
def test_the_conform_example(capsys):
    argv, quoted = example("conform")
    assert main(argv) == 0
    out = capsys.readouterr().out
    for line in quoted.splitlines():
        if re.match(r"^(key-groups|channel-state|trigger-plan|retention) ", line):
            assert line.rsplit(None, 1)[0] in out, line  # all but the time column
    want = re.search(r"RESULT: (0 mismatches in [\d,]+ cases over 10 families .*?); [\d.]+ s", quoted).group(1)
    assert want in out
