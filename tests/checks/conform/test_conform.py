"""``ckptcheck conform`` against the installed Flink distribution jar.

Skipped, with the reason, only where the ``flink`` extra (the jar) or a JDK is absent; `.ci/run`
installs both.  The small run here covers every family in a few seconds; the 10^6-case run is
``benchmarks/conform.py`` and the claims tier.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile

import pytest

from ckptcheck.checks.conform import runner as conform

from ckptcheck.checks import flinkjvm
from ckptcheck.checks.cli.main import main
from ckptcheck.checks.conform.families import FAMILIES
from ckptcheck.model import redistribution as rd

JAR = flinkjvm.default_dist_jar()
pytestmark = [
    pytest.mark.skipif(JAR is None, reason="no Flink distribution jar: pip install -e '.[test]' brings it (apache-flink-libraries)"),
    pytest.mark.skipif(shutil.which("javac") is None and not os.environ.get("JAVA_HOME"), reason="no JDK (javac) on PATH: a system package (Debian's default-jdk-headless; .ci/run installs it)"),
]


def test_every_family_agrees_with_flink_on_a_small_run(tmp_path, capsys):
    """Every family runs, no case differs, refused cases are counted by domain, and the report
    is written (HTML, Markdown, JUnit)."""
    code = main(["conform", "--cases", "3000", "--seed", "7", "--report", str(tmp_path / "rep")])
    out = capsys.readouterr().out
    assert code == 0, out
    for f in FAMILIES:
        assert f"\n{f.name}" in out
    assert "RESULT: 0 mismatches in" in out
    assert "refused" in out and "operator index outside 0..parallelism-1" in out
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "0 mismatches" in md and "| key-groups |" in md
    assert 'failures="0"' in (tmp_path / "rep" / "junit.xml").read_text()


def test_same_seed_same_cases_and_verdicts(capsys):
    main(["conform", "--families", "operator-state,pipelined-regions", "--cases", "400", "--seed", "3"])
    first = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(("operator-state", "pipelined-regions"))]
    main(["conform", "--families", "operator-state,pipelined-regions", "--cases", "400", "--seed", "3"])
    second = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(("operator-state", "pipelined-regions"))]
    strip = lambda lines: [ln.rsplit(None, 1)[0] for ln in lines]  # drop the time column
    assert strip(first) == strip(second) and len(first) == 2


def test_a_mutant_redistribution_rule_is_caught_with_a_readable_example(monkeypatch, capsys):
    """A one-line slip in keyed-state redistribution (a new subtask keeps only the first of the
    old handles its key-group range overlaps) differs from Flink's ``reAssignSubKeyedStates``."""
    right = rd.reassign_keyed_state

    def mutant(old_ranges, max_p, new_p):
        return [got[:1] for got in right(old_ranges, max_p, new_p)]

    monkeypatch.setattr(rd, "reassign_keyed_state", mutant)
    code = main(["conform", "--families", "keyed-state", "--cases", "200"])
    out = capsys.readouterr().out
    assert code == 1
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("MISMATCH reassign"))
    assert "redistribution.reassign_keyed_state" in line and "StateAssignmentOperation.reAssignSubKeyedStates" in line
    assert "model" in line and "Flink" in line
    assert "RESULT: " in out and " 0 mismatches" not in out


def test_a_mutant_key_group_range_is_caught(monkeypatch, capsys):
    """``start = i * maxP / P`` without rounding up: Flink's ranges differ."""
    monkeypatch.setattr(rd, "key_group_range", lambda m, p, i: (i * m // p, ((i + 1) * m - 1) // p))
    assert main(["conform", "--families", "key-groups", "--cases", "100"]) == 1
    assert "MISMATCH key_group_range" in capsys.readouterr().out


def test_flink_dist_by_path_and_a_file_that_is_not_a_flink_distribution(tmp_path, capsys):
    assert main(["conform", "--families", "retention", "--cases", "50", "--flink-dist", str(JAR)]) == 0
    assert "RESULT: 0 mismatches" in capsys.readouterr().out
    fake = tmp_path / "flink-dist-9.9.jar"
    with zipfile.ZipFile(fake, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        z.writestr("org/example/Nothing.class", b"")
    assert main(["conform", "--flink-dist", str(fake)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a Flink distribution" in err[0] and str(fake) in err[0]
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    assert main(["conform", "--flink-dist", str(text)]) == 2
    assert "not a jar" in capsys.readouterr().err
    assert main(["conform", "--flink-dist", str(tmp_path / "missing.jar")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_bad_options_get_one_line(capsys):
    assert main(["conform", "--families", "key-groups,nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'nope'" in err[0] and "key-groups" in err[0]
    with pytest.raises(SystemExit) as e:
        main(["conform", "--cases", "-3"])
    assert e.value.code == 2


@pytest.mark.claims  # about 13 s: it compiles the helper classes again in a cache of its own
def test_a_build_that_lacks_a_method_leaves_the_other_families_running(monkeypatch, tmp_path, capsys):
    """A family whose Java class does not compile against the build (here: it calls a method
    Flink does not have) is named with the compiler's reason; the others still run; exit 2."""
    java = tmp_path / "java"
    shutil.copytree(flinkjvm.JAVA_DIR, java)
    (java / "Lacking.java").write_text(
        "package ckptcheck.conform;\n"
        "import org.apache.flink.runtime.state.KeyGroupRangeAssignment;\n"
        "public final class Lacking implements Server.Family {\n"
        "  public Object answer(String op, org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode a) {\n"
        "    return KeyGroupRangeAssignment.computeKeyGroupsForFLIP9999(a.get(0).asInt());\n  }\n}\n")
    monkeypatch.setattr(flinkjvm, "JAVA_DIR", java)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lacking = conform.Family("lacking", "Lacking", "a family this build cannot run", FAMILIES[-1].ops)
    monkeypatch.setattr(conform, "select", lambda names: [FAMILIES[-1], lacking])
    assert main(["conform", "--cases", "20"]) == 2
    captured = capsys.readouterr()
    assert "lacking" in captured.out and "could not run" in captured.out and "computeKeyGroupsForFLIP9999" in captured.out
    assert "\nretention" in captured.out and "0 mismatches" in captured.out
    assert "computeKeyGroupsForFLIP9999" in captured.err


@pytest.mark.claims  # about 9 s; the default tier keeps the other commands' Ctrl-C tests
def test_ctrl_c_says_what_was_found_writes_the_report_and_reaps_the_jvm(tmp_path):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-c", "import sys; from ckptcheck.checks.cli.main import main; sys.exit(main())",
                          "conform", "--cases", "100000000", "--report", str(tmp_path / "rep")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    assert p.stdout is not None
    first = p.stdout.readline()  # the header: the JVM is up and cases are running
    assert first.startswith("conform  Flink")
    while time.monotonic() < deadline and not _server_pids():
        time.sleep(0.2)
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, (out, err)
    assert "INTERRUPTED" in out and "(interrupted)" in out
    assert "interrupted" in err
    assert (tmp_path / "rep" / "report.md").exists()
    time.sleep(0.5)
    assert not _server_pids()


def _server_pids() -> list[str]:
    r = subprocess.run(["pgrep", "-f", "ckptcheck.conform.Server"], capture_output=True, text=True)
    return r.stdout.split()


ORDER_DEPENDENT = [[1, 2, 2, 2], [2, 2, 2, 2],
                   [[0, 2, "ALL_TO_ALL", "ARBITRARY", "ROUND_ROBIN"], [1, 2, "ALL_TO_ALL", "ARBITRARY", "ROUND_ROBIN"],
                    [1, 3, "POINTWISE", "UNSUPPORTED", "UNSUPPORTED"]],
                   [[False], [False, False], [True, True], [True, True]], [[False], [False, False], [False, False], [False, False]]]
UNCHANGED_FAILS = [[2, 1, 1], [2, 1, 1],
                   [[0, 2, "ALL_TO_ALL", "ARBITRARY", "FULL"], [1, 2, "POINTWISE", "UNSUPPORTED", "UNSUPPORTED"]],
                   [[False, False], [False], [True]], [[False, False], [False], [False]]]


def _edges(case):
    return tuple((e[0], e[1], e[3], e[4]) for e in case[2])


def _in_flight(case):
    return tuple(any(case[3][e[1]]) or any(case[4][e[0]]) for e in case[2])


def test_flink_2_3_restores_whose_outcome_depends_on_the_run():
    """Flink visits the vertices in a HashMap order by identity hash: the same restore throws
    in some runs and not in others, and the model says so (and treats it as failing)."""
    with pytest.raises(rd.UnsupportedRescaleError) as e:
        rd.check_channel_state_restore(tuple(ORDER_DEPENDENT[0]), tuple(ORDER_DEPENDENT[1]), _edges(ORDER_DEPENDENT),
                                       _in_flight(ORDER_DEPENDENT))
    assert e.value.order_dependent and "in some of Flink's vertex orders only" in str(e.value)
    dist = flinkjvm.open_dist(None)
    classes, _ = flinkjvm.compile_helper(dist)
    with flinkjvm.FlinkJVM(dist, classes) as jvm:
        answers = jvm.call("ChannelState", "assign", [ORDER_DEPENDENT] * 40)
    assert {("x" in a) for a in answers} == {True, False}, "Flink's outcome differs between runs"


def test_flink_2_3_fails_a_restore_at_unchanged_parallelism():
    """FLINK-35351's branch redistributes every gate of a vertex with a FULL input whose
    producer has another parallelism, a forward gate too, whose UNSUPPORTED mapper throws."""
    with pytest.raises(rd.UnsupportedRescaleError) as e:
        rd.check_channel_state_restore(tuple(UNCHANGED_FAILS[0]), tuple(UNCHANGED_FAILS[1]), _edges(UNCHANGED_FAILS),
                                       _in_flight(UNCHANGED_FAILS))
    assert not e.value.order_dependent and "repartitionState: v2 input gate 1" in str(e.value)
    dist = flinkjvm.open_dist(None)
    classes, _ = flinkjvm.compile_helper(dist)
    with flinkjvm.FlinkJVM(dist, classes) as jvm:
        (answer,) = jvm.call("ChannelState", "assign", [UNCHANGED_FAILS])
    assert answer["x"].startswith("UnsupportedOperationException: Cannot rescale the given pointwise partitioner")
