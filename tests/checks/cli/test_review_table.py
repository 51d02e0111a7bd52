"""The usability review's table of bad input: one test per case
that had no test of its own, parametrized by the case's id (``r002`` is row 2 of section 7.1, the
previous audit's cases; ``N01`` is case N01, the new ones).

Each case runs the command of the table in a folder of its own, with its input files rebuilt
there, and asserts the promise the re-run of the table saw kept: a refusal is exit 2 and exactly
one line on stderr naming the file (or option), the field and the expectation, no traceback,
nothing created or changed, answered at once; a documented outcome (exit 1, a warning, an accepted
edge value, Ctrl-C) is what the documentation says.  Commands run in this process through
``main`` wherever they can; a subprocess only where the case needs one (a user without root's
file access, Ctrl-C to a process group)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from fnmatch import fnmatch
from pathlib import Path
from typing import NamedTuple

import pytest

from ckptcheck.checks.cli.main import main

from conftest import one
from review_cases import (
    FOLDER,
    READ_ONLY,
    ACCEPTED,
    AS_A_USER,
    Case,
    DIFFERENT,
    PARQUET,
    REFUSED,
    SLOW,
    Unreadable,
    WITHOUT_PYSPARK,
    params,
    SMALL,
)

CLI = [sys.executable, "-c", "import sys; from ckptcheck.checks.cli.main import main; sys.exit(main())"]
AT_ONCE = 10.0  # seconds: a refusal comes before the work (the re-run saw at most 1.3 s)


# ---- running a case ----

@pytest.fixture(scope="module")
def good(tmp_path_factory) -> dict:
    """The table's good trace: commit-at-pre-commit's committed-output-covered counterexample, 5 steps.
    One worker: which of the shortest counterexamples a parallel search finds first depends on how
    the states hash, which any new field of the world changes."""
    out = tmp_path_factory.mktemp("good")
    assert main(["check", "--design", "commit-at-pre-commit", *SMALL.split(), "--max-depth", "6", "--workers", "1",
                 "--out", str(out)]) == 1
    doc = json.loads(one(out, "*--committed-output-covered.trace.json").read_text())
    kinds = [a["type"] for a in doc["actions"]]
    assert kinds[:3] == ["EmitRecord", "Deliver", "TriggerCheckpoint"] and doc["violation"]["step"] == 5, kinds  # what the edits assume
    return doc


def build(folder: Path, files: dict, good: dict) -> None:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content in (FOLDER, READ_ONLY):
            path.mkdir()
            path.chmod(0o555 if content == READ_ONLY else 0o755)
            continue
        mode = 0 if isinstance(content, Unreadable) else None
        content = content.content if mode is not None else content
        content = content(good) if callable(content) else content
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        if mode is not None:
            path.chmod(mode)


def snapshot(folder: Path) -> dict:
    """Every path below ``folder``, a file's with its size and time of change (compiled modules aside)."""
    found = {}
    for top, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for n in dirs + names:
            p = Path(top, n)
            st = p.lstat()
            found[str(p.relative_to(folder))] = (st.st_size, st.st_mtime_ns) if p.is_file() else None
    return found


class Ran(NamedTuple):
    code: int
    out: str
    err: str
    seconds: float
    created: set  # paths that were not there before, relative to the case's folder
    changed: set  # paths that were there, changed or removed


@pytest.fixture
def run(tmp_path, good, capsys, monkeypatch):
    """Run a case in ``tmp_path/w`` (its files built there, ``../x`` in ``tmp_path``): in this
    process with ``main`` or, with ``prefix``, as a command (``prefix`` + the CLI)."""
    def run_case(case: Case, prefix: list[str] | None = None) -> Ran:
        folder = tmp_path / "w"
        folder.mkdir()
        build(folder, case.files, good)
        modules = [Path(n).stem for n in case.files if n.endswith(".py")]
        before = snapshot(tmp_path)
        args = shlex.split(case.cmd)
        t0 = time.perf_counter()
        if prefix is None:
            monkeypatch.chdir(folder)
            for m in modules:  # the case's own module, not one a test before imported
                monkeypatch.delitem(sys.modules, m, raising=False)
            try:
                code = main(args)
            except SystemExit as e:  # argparse's refusals
                code = e.code
            finally:
                for m in modules:
                    sys.modules.pop(m, None)
            out, err = capsys.readouterr()
        else:
            p = subprocess.run(prefix + CLI + args, cwd=folder, capture_output=True, text=True, timeout=120)
            code, out, err = p.returncode, p.stdout, p.stderr
        took = time.perf_counter() - t0
        after = snapshot(tmp_path)
        created = {str(Path(k).relative_to("w")) if k.startswith("w/") else k for k in after.keys() - before.keys()}
        changed = {k for k in before if after.get(k) != before[k]}
        return Ran(code, out, err, took, created, changed)
    yield run_case
    for p in tmp_path.rglob("*"):  # let pytest clean up the read-only folders
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)


def assert_refused(ran: Ran, case: Case) -> None:
    lines = ran.err.splitlines()
    assert "Traceback" not in ran.err + ran.out, ran.err
    assert ran.code == 2, (ran.code, ran.out[-2000:], ran.err[-2000:])
    assert len(lines) == 1, lines
    for word in case.expect:
        assert word in lines[0], (word, lines[0])
    assert not ran.created and not ran.changed, f"written: {sorted(ran.created | ran.changed)}"
    assert ran.seconds < AT_ONCE, f"refused only after {ran.seconds:.1f} s: the check must come before the work"


@pytest.mark.parametrize("case", params(REFUSED))
def test_refused(run, case):
    assert_refused(run(case), case)


def _user_prefix() -> list[str] | None:
    """How to run a command as a user without root's file access: as it is for a user; for root,
    setpriv without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (None: not possible here)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search"] if setpriv else None
    if prefix and subprocess.run(prefix + ["true"], capture_output=True).returncode == 0:
        return prefix
    return None


@pytest.mark.parametrize("case", params(AS_A_USER))
def test_refused_as_a_user(run, case):
    prefix = _user_prefix()
    if prefix is None:
        pytest.skip("runs as root and setpriv cannot drop CAP_DAC_OVERRIDE here: root reads and writes anything")
    assert_refused(run(case, prefix), case)


@pytest.mark.parametrize("case", params(WITHOUT_PYSPARK))
def test_refused_without_pyspark(run, case, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)  # import pyspark fails as where it is not installed
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    assert_refused(run(case), case)


def test_parquet_without_a_trace_column_is_refused_before_spark_starts(run):
    """N84: the right message came only after Spark had started (15.6 s, its banner on stderr
    first); check_inputs now reads the Parquet schema with pyarrow, where pyarrow is installed."""
    pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed: pip install -e '.[test]' brings it (without it Spark reads the schema)")
    assert_refused(run(PARQUET), PARQUET)


@pytest.mark.parametrize("case", params(DIFFERENT))
def test_a_trace_that_replays_to_another_verdict_exits_1(run, case):
    ran = run(case)
    assert (ran.code, ran.err) == (1, ""), (ran.out, ran.err)
    for word in case.expect:
        assert word in ran.out, (word, ran.out)
    assert not ran.created and not ran.changed


@pytest.mark.parametrize("acc", params(ACCEPTED, SLOW))
def test_an_edge_value_is_accepted(run, acc):
    ran = run(acc.case)
    assert "Traceback" not in ran.err + ran.out, ran.err
    assert ran.code == acc.code, (ran.out[-2000:], ran.err[-2000:])
    said = [line for line in ran.err.splitlines() if line.startswith("ckptcheck:")]  # progress and Spark's banner aside
    assert said == ([f"ckptcheck: warning: {acc.warning}"] if acc.warning else []), said
    for word in acc.case.expect:
        assert word in ran.out, (word, ran.out)
    matches = [p for p in ran.created if fnmatch(p, acc.writes)]
    assert len(matches) == 1, ran.created
    top = Path(matches[0]).parts[0]
    assert all(Path(p).parts[0] == top for p in ran.created), f"written outside {top}: {sorted(ran.created)}"
    assert not ran.changed


def _group(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` still running (zombies aside)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


def test_ctrl_c_to_the_process_group_ends_check_with_its_figures(tmp_path):
    """N73: Ctrl-C in a terminal (SIGINT to the whole process group, the search workers too) of
    ``check --design flip600-regional --report rep``: exit 130 at once, the figures of the part
    searched said, the result and the report written, no process left.  The table sent it after
    20 s; here after the first progress line (about 2 s into the search), for time."""
    err = tmp_path / "stderr"
    with open(tmp_path / "stdout", "w") as fo, open(err, "w") as fe:
        p = subprocess.Popen(CLI + shlex.split("check --design flip600-regional --report rep"), cwd=tmp_path,
                             stdout=fo, stderr=fe, stdin=subprocess.DEVNULL, start_new_session=True,
                             env=dict(os.environ, PYTHONUNBUFFERED="1"))
        try:
            deadline = time.monotonic() + 30
            while "  ... " not in err.read_text() and p.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert p.poll() is None, "the search ended before Ctrl-C"
            os.killpg(p.pid, signal.SIGINT)
            sent = time.monotonic()
            code = p.wait(timeout=30)
            took = time.monotonic() - sent
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    out, text = (tmp_path / "stdout").read_text(), err.read_text()
    assert code == 130, (out[-2000:], text[-2000:])
    assert took < 10, f"it went on for {took:.1f} s after Ctrl-C"
    assert "Traceback" not in text + out, text
    assert "interrupted (Ctrl-C)" in out and "interrupted: the figures above are those of the part searched" in out
    assert one(tmp_path / "results", "flip600-regional.memo-*.result.json")
    assert {f.name for f in (tmp_path / "rep").iterdir()} >= {"report.md", "report.html", "junit.xml"}
    for _ in range(30):
        if not _group(p.pid):
            break
        time.sleep(0.1)
    assert not _group(p.pid), "a search worker outlived Ctrl-C"
