"""Design variants as a reviewer writes them: the README's three Python variants (one component
each) run as written from a folder outside the repository, ``ckptcheck compare``, and the
installed layout (one ``ckptcheck`` namespace)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from functools import lru_cache
from pathlib import Path

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.cli.main import main
from ckptcheck.checks.run.trace import load_trace_file, replay
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.errors import InputError

from conftest import one

ROOT = Path(__file__).resolve().parents[2]
README_VARIANTS = {  # file name in the README -> (design attribute, property it must break, component replaced)
    "variant_plan.py": ("TRIGGER_EVERY_TASK", "checkpoints-consistent", "checkpoint_plan"),
    "variant_task.py": ("FINISH_EARLY", "finished-sinks-committed", "task"),
    "variant_store.py": ("EAGER_CLEANER", "checkpoints-restorable", "store"),
    "variant_quorum.py": ("COMPLETE_ON_QUORUM", "checkpoints-consistent", "coordinator"),
}


DESIGNS_PAGE = ROOT / "docs" / "pages" / "designs.md"  # the documentation's page on designs and variants


def readme_blocks() -> dict[str, str]:
    """The designs page's ```python blocks that start with a ``# variant_*.py`` line, by file name."""
    text = DESIGNS_PAGE.read_text(encoding="utf-8")
    out = {}
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        first = block.splitlines()[0]
        m = re.match(r"# (variant_\w+\.py)", first)
        if m:
            out[m.group(1)] = block
    return out


@pytest.fixture(scope="module")
def variants_dir(tmp_path_factory):
    """The README's variant files, written as they stand into a folder outside the repository."""
    d = tmp_path_factory.mktemp("my-project")
    blocks = readme_blocks()
    assert set(blocks) == set(README_VARIANTS), f"README variant blocks: {sorted(blocks)}"
    for name, code in blocks.items():
        (d / name).write_text(code, encoding="utf-8")
    return d


@lru_cache(maxsize=None)
def _baseline_on(scope):
    return check(BASELINE, scope)


def test_readme_variants_run_as_written_outside_the_repository(variants_dir):
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *sorted(README_VARIANTS)],
        cwd=variants_dir, capture_output=True, text=True, check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{len(README_VARIANTS)} passed" in out.stdout


@pytest.mark.parametrize("file", sorted(README_VARIANTS))
def test_readme_variant_breaks_what_the_baseline_holds_on_the_same_scope(variants_dir, monkeypatch, file):
    """The variant's assertion would fail if the variant were not applied: the unchanged design
    holds that property, exhaustively, on the very same scope."""
    attr, prop, component = README_VARIANTS[file]
    monkeypatch.syspath_prepend(str(variants_dir))
    mod = __import__(file[:-3])
    design = getattr(mod, attr)
    assert list(design.replaced()) == [component], "each variant replaces exactly one component"
    bad = check(design, mod.SMALL, stop_at=prop)
    assert bad.verdict(prop).failed
    good = _baseline_on(mod.SMALL)
    assert good.holds and good.verdict(prop).status == "holds"


@pytest.mark.parametrize("file", sorted(README_VARIANTS))
def test_readme_variant_on_the_memo_engine_with_every_answer_checked(variants_dir, monkeypatch, file):
    """A user's variant searched by the memo engine, each answer from its tables computed again
    by the plain model: the reference engine's states and counterexample length."""
    attr, prop, _ = README_VARIANTS[file]
    monkeypatch.syspath_prepend(str(variants_dir))
    design = getattr(__import__(file[:-3]), attr)
    scope = __import__(file[:-3]).SMALL
    ref = check(design, scope, stop_at=prop)
    memo = check(design, scope, "memo", stop_at=prop, memo_check=1.0)
    assert memo.verdict(prop).failed and len(memo.verdict(prop).trace) == len(ref.verdict(prop).trace)
    assert memo.stats["states"] == ref.stats["states"]


def test_python_variant_by_name_on_the_command_line_and_its_trace(variants_dir, monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(variants_dir)
    code = main(["check", "--design", "variant_store:EAGER_CLEANER", "--job", "forward-2x2", "--checkpoints", "1", "--failures", "0",
                 "--declines", "0", "--lost-notifications", "0", "--out", str(tmp_path / "r")])
    out = capsys.readouterr().out
    assert code == 1
    assert "replaces store = variant_store.EagerCleaner" in out
    trace = one(tmp_path / "r", "eager-cleaner.memo-*--checkpoints-restorable.trace.json")
    doc = json.loads(trace.read_text())
    assert doc["design"]["components"]["store"] == "variant_store.EagerCleaner"
    # replaying it as some other design would judge other rules: refused, naming the component
    with pytest.raises(InputError, match=r"design\.components\.store: the trace ran variant_store\.EagerCleaner"):
        replay(load_trace_file(str(trace)), str(trace))
    assert main(["replay", str(trace), "--design", "variant_store:EAGER_CLEANER"]) == 1
    assert "same verdict as recorded" in capsys.readouterr().out


@pytest.mark.parametrize("spec, field", [
    ("no_such_module_here:X", "no_such_module_here:X: module: cannot import"),
    ("variant_store:NOPE", "variant_store:NOPE: NOPE: no name 'NOPE' in variant_store: expected a Design"),
])
def test_bad_python_design_names_are_one_line(variants_dir, monkeypatch, capsys, spec, field):
    monkeypatch.chdir(variants_dir)
    assert main(["check", "--design", spec, "--out", "unused"]) == 2
    err = capsys.readouterr().err
    assert field in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (variants_dir / "unused").exists()


def test_compare_shows_the_broken_property_with_its_counterexample(tmp_path, capsys):
    """``ckptcheck compare flink-baseline <catalog variant>``: the broken property with its shortest
    counterexample; every other property holds in both."""
    code = main(["compare", "flink-baseline", "cleaner-deletes-restore-checkpoint", "--job", "forward-2x2",
                 "--checkpoints", "1", "--failures", "0", "--declines", "0", "--lost-notifications", "0",
                 "--out", str(tmp_path / "t"), "--report", str(tmp_path / "rep")])
    out, err = capsys.readouterr()
    assert code == 1
    # the progress line names the design whose search found the violation
    assert "... VIOLATED checkpoints-restorable (always) in cleaner-deletes-restore-checkpoint, 12 steps" in err
    assert "in flink-baseline," not in err
    rows = {line.split()[1]: line.split()[2:] for line in out.splitlines() if line.startswith("  always") or line.startswith("  eventually")}
    assert rows["checkpoints-restorable"] == ["holds", "VIOLATED", "(12)"]
    for prop in ("exactly-once-output", "checkpoints-consistent", "committed-output-covered", "bounded-job-completes"):
        assert rows[prop] == ["holds", "holds"], prop
    assert ("cleaner-deletes-restore-checkpoint BREAKS checkpoints-restorable (holds in flink-baseline): checkpoint 1"
            " (the latest, which a restore would use) refers to file cp1/source[0], which the cleaner deleted") in out
    assert "shortest counterexample, 12 steps:" in out
    assert "    1. TriggerCheckpoint(1): the coordinator triggers checkpoint 1" in out
    assert "RESULT: 1 of 1 variant(s) break a property that flink-baseline does not" in out
    # --declines 0: no design can decline, so the witness is one line, not a row of NOT REACHED in every column
    assert "  not reached by any design, each searched whole (this scope never exercises it): a-task-declines" in out
    assert not [line for line in out.splitlines() if line.startswith("  sometimes  a-task-declines")]
    trace = one(tmp_path / "t", "cleaner-deletes-restore-checkpoint.memo-*--checkpoints-restorable.trace.json")
    assert replay(load_trace_file(str(trace)), str(trace)).reproduced
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## What changes against flink-baseline" in md
    flat = " ".join(md.split())
    assert ("- cleaner-deletes-restore-checkpoint breaks: checkpoints-restorable (flink-baseline: holds,"
            " cleaner-deletes-restore-checkpoint: violated): checkpoint 1") in flat
    html = (tmp_path / "rep" / "report.html").read_text()
    assert 'id="changes"' in html


def test_compare_of_equal_designs_changes_nothing(tmp_path, capsys):
    code = main(["compare", "flink-baseline", "flip600-regional", "--job", "forward-2x2", "--records", "1",
                 "--checkpoints", "1", "--failures", "0", "--declines", "0", "--lost-notifications", "0",
                 "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "flip600-regional: no change against flink-baseline in this scope" in out


def test_compare_refuses_one_design_and_duplicate_names(capsys):
    assert main(["compare", "flink-baseline", "flink-baseline"]) == 2
    assert "two designs are named 'flink-baseline'" in capsys.readouterr().err
    assert main(["compare", "flink-baseline"]) == 2


def test_wheel_installs_one_ckptcheck_namespace(tmp_path):
    """``pip install .`` puts nothing named model, specs, checks or reports at the top of
    site-packages: the wheel holds ckptcheck/ (and its templates and schema) only."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("model", "specs", "checks", "reports"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "out"))
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path / "w"), str(src)],
        capture_output=True, text=True, check=False,
    )
    assert out.returncode == 0, out.stderr
    (wheel,) = (tmp_path / "w").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"ckptcheck", "ckptcheck-0.1.0.dist-info"}
    for needed in ("ckptcheck/model/protocol.py", "ckptcheck/reports/templates/report.html", "ckptcheck/checks/run/trace.schema.json",
                   "ckptcheck/checks/conform/java/Server.java", "ckptcheck/checks/validate/runs/RecordedJob.java"):
        assert needed in names


def test_installed_tool_renders_a_report_from_another_folder(tmp_path):
    """The installed ``ckptcheck`` finds its own templates and schema from any folder (nothing is
    looked up by the old top-level names)."""
    trace = ROOT / "tests" / "data" / "flip600-proposed--committed-output-covered.trace.json"
    out = subprocess.run(
        [sys.executable, "-c", "import sys; from ckptcheck.checks.cli.main import main; sys.exit(main())", "report", str(trace), "--out", "rep"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "rep" / "report.html").stat().st_size > 1000


def test_readme_job_file_example_loads(tmp_path):
    from ckptcheck.specs.jobs import load_job

    text = DESIGNS_PAGE.read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```toml\n(.*?)```", text, flags=re.S) if b.startswith("# my-job.toml"))
    (tmp_path / "my-job.toml").write_text(block)
    name, job = load_job(str(tmp_path / "my-job.toml"))
    assert name == "my-job" and [v.name for v in job.vertices] == ["source", "agg", "sink"]
    assert job.describe() == "source(P=2), agg(P=2, keyed), sink(P=2); source-all_to_all/pipelined->agg, agg-pointwise/pipelined->sink"


def test_compare_against_a_cut_short_reference_never_says_breaks(tmp_path, capsys):
    """The reference's search bounded before it covered the scope: the variant's violation is
    real, but whether the change breaks the property is not known, and compare says so."""
    code = main(["compare", "flink-baseline", "cleaner-deletes-restore-checkpoint", "--job", "forward-2x2",
                 "--checkpoints", "1", "--failures", "0", "--declines", "0", "--lost-notifications", "0",
                 "--max-states", "20000", "--out", str(tmp_path / "t")])
    out = capsys.readouterr().out
    assert code == 1
    assert "BREAKS" not in out and "LOSES WITNESS" not in out
    assert "cleaner-deletes-restore-checkpoint violates checkpoints-restorable (" in out
    assert "whether the change breaks it is not known" in out
    assert "RESULT: 0 of 1 variant(s) break a property that flink-baseline does not; 1 violate" in out


def test_a_python_variant_is_described_by_its_own_rule(variants_dir, monkeypatch, capsys):
    """A variant that kept the baseline's description is described by what it replaces (its
    class's docstring), not as Flink's checkpointing today."""
    monkeypatch.chdir(variants_dir)
    from ckptcheck.specs.designs import load_design

    d = load_design("variant_plan:TRIGGER_EVERY_TASK")
    assert d.description.startswith("flink-baseline with checkpoint_plan = TriggerEveryTask (Trigger every running task")
    assert "today" not in d.description


QUORUM = '''
from ckptcheck.model.coordinator import CheckpointCoordinator, pending_of
from ckptcheck.specs.designs import BASELINE


class CompleteOnQuorum(CheckpointCoordinator):
    """Complete a checkpoint once every task but one acknowledged (do not wait for the straggler)."""

    def maybe_finalize(self, tx, cp):
        pending = pending_of(tx.coord, cp)
        if pending is None or pending.completing:
            return
        responded = len(pending.acked) + bin(pending.declined).count("1")
        if responded < bin(pending.waiting).count("1") - 1:
            return
        self.complete(tx, pending)


COMPLETE_ON_QUORUM = BASELINE.with_(name="complete-on-quorum", coordinator=CompleteOnQuorum)
'''


def test_one_command_replays_a_report_of_a_toml_and_a_python_variant(tmp_path, capsys, monkeypatch):
    """The usability review's replay rows: a report holding a TOML variant's trace and a Python
    variant's is replayed by one command, ``--design`` naming the Python one (the TOML one by its
    name); without it the refusal names the ``--design`` to give."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quorum_variant.py").write_text(QUORUM)
    (tmp_path / "no-block.toml").write_text('based_on = "flink-baseline"\nname = "no-block"\nalignment_blocks_channels = false\n')
    small = ["--checkpoints", "1", "--failures", "0", "--declines", "0", "--stop-at-first"]
    assert main(["compare", "flink-baseline", "no-block.toml", "quorum_variant:COMPLETE_ON_QUORUM", *small,
                 "--out", "res", "--report", "rep"]) == 1
    capsys.readouterr()
    assert main(["replay", "rep/report.md"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "replay a Python variant with --design module:NAME (quorum_variant:NAME" in err
    assert main(["replay", "--design", "quorum_variant:COMPLETE_ON_QUORUM", "rep/report.md"]) == 1
    out = capsys.readouterr().out
    assert out.count("same verdict as recorded in the trace") == out.count("== trace ") >= 2
    assert "design   no-block" in out and "design   complete-on-quorum" in out
    # the report's own replay command is that one
    assert "`ckptcheck replay --design quorum_variant:COMPLETE_ON_QUORUM report.md`" in (tmp_path / "rep" / "report.md").read_text()


def page_commands() -> list[tuple[list[str], int]]:
    """Every ``$ ckptcheck ...`` command of the designs page, with the exit status the page gives for it."""
    text = DESIGNS_PAGE.read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r"```\n\$ ckptcheck (.*?)\n```\n\n\(?[Ee]xit (\d)", text):
        out.append((m.group(1).split(), int(m.group(2))))
    return out


def test_the_designs_page_commands_answer_as_it_says(variants_dir, monkeypatch, capsys):
    """The page's "your change" commands, run as written (with its TOML files) from the folder of its
    Python variants: each gives the exit status the page states, and its breaks are the page's.  Their
    times are measured once and stated there (each under 30 s)."""
    text = DESIGNS_PAGE.read_text(encoding="utf-8")
    for block in re.findall(r"```toml\n(# ([\w.-]+\.toml).*?)```", text, flags=re.S):
        (variants_dir / block[1]).write_text(block[0], encoding="utf-8")
    monkeypatch.chdir(variants_dir)
    commands = page_commands()
    assert len(commands) == 3, commands
    for argv, status in commands:
        assert main([*argv, "--out", "page-results"]) == status, argv
        out = capsys.readouterr().out
        if argv[0] == "compare":
            breaks = re.findall(r"^(\S+) BREAKS (\S+) ", out, flags=re.M)
            assert breaks and all(f"`{d} BREAKS {p}`" in text for d, p in breaks), breaks
        else:
            assert out.splitlines()[-1].startswith("RESULT: every property holds: exhaustive search of the scope, 24,651 states")
