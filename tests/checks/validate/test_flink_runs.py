"""Real Flink runs of the jobs whose verdicts the catalog states about Flink itself: a local
MiniCluster from the distribution jar the ``apache-flink`` package ships, compiled at first use.

``blocking-output-waits-for-final-checkpoint`` says Flink 2.x as released never finishes a
streaming job with a BLOCKING edge when checkpointing and FLIP-147 are on; these runs show it does
not, and that the same job finishes with either turned off, so the test fails if a Flink build
fixes the hang (and then the catalog entry is what must change)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ckptcheck.checks import flinkjvm

JAR = flinkjvm.default_dist_jar()
pytestmark = [
    pytest.mark.skipif(JAR is None, reason="no Flink distribution jar: pip install -e '.[test]' brings it (apache-flink-libraries)"),
    pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK (javac) on PATH: a system package (Debian's default-jdk-headless; .ci/run installs it)"),
    pytest.mark.claims,  # about 40 s: three MiniCluster jobs, one of them waited on for 20 s
]
JOB = Path(__file__).resolve().parents[2] / "flink_jobs" / "BlockingOutputJob.java"


def _run(classes: Path, *args: str) -> str:
    cp = os.pathsep.join([str(JAR.parent / "*"), str(classes)])
    r = subprocess.run(["java", "-cp", cp, "BlockingOutputJob", *args], capture_output=True, text=True, timeout=180)
    lines = [x for x in r.stdout.splitlines() if x.startswith("RESULT")]
    assert lines, r.stdout[-2000:] + r.stderr[-2000:]
    return lines[-1]


def test_a_streaming_job_with_a_blocking_edge_hangs_with_checkpoints_after_tasks_finish(tmp_path):
    r = subprocess.run(["javac", "-nowarn", "-d", str(tmp_path), "-cp", str(JAR.parent / "*"), str(JOB)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert _run(tmp_path, "cp", "after-finish", "20") == "RESULT still RUNNING after 20 s"
    assert _run(tmp_path, "cp", "no-after-finish", "60") == "RESULT finished"
    assert _run(tmp_path, "none", "after-finish", "60") == "RESULT finished"
