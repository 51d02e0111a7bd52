"""Bad input of every class the usability review found (sections 1.1 and 1.3): one line on stderr
naming the file (or option), the field and the expectation, exit 2, no traceback, nothing
written, and found before any search starts.  Edge cases that are not errors get a warning."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from ckptcheck.checks.cli.main import main

from conftest import one

TINY = ["--job", "forward-2x2", "--checkpoints", "0", "--failures", "0", "--declines", "0", "--lost-notifications", "0"]
TRACE = Path(__file__).resolve().parents[2] / "data" / "flip600-proposed--committed-output-covered.trace.json"


def refused(args, capsys, *expected: str, seconds: float = 5.0) -> str:
    t0 = time.perf_counter()
    code = main(args)
    took = time.perf_counter() - t0
    out, err = capsys.readouterr()
    assert code == 2, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for e in expected:
        assert e in lines[0], lines[0]
    assert took < seconds, f"refused only after {took:.1f}s: the check must come before the work"
    return lines[0]


@pytest.fixture
def notes(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("mine\n")
    return f


@pytest.mark.parametrize("args", [
    ["check", "--out", "{f}", *TINY],
    ["check", "--report", "{f}", "--out", "{d}/r", *TINY],
    ["compare", "flink-baseline", "no-alignment-block", "--report", "{f}", "--out", "{d}/r", *TINY],
    ["catalog", "--out", "{f}"],
    ["catalog", "--report", "{f}", "--out", "{d}/r"],
    ["prove", "--report", "{f}"],
    ["report", str(TRACE), "--out", "{f}"],
    ["spark", "generate", "--out", "{f}", "--walks", "1"],
])
def test_output_path_that_is_a_file_is_refused_before_the_work(tmp_path, notes, capsys, args):
    args = [a.format(f=notes, d=tmp_path) for a in args]
    refused(args, capsys, str(notes), "exists and is not a folder")
    assert notes.read_text() == "mine\n"
    assert not (tmp_path / "r").exists(), "nothing half-written"


def test_itf_output_that_is_a_folder(tmp_path, capsys):
    refused(["itf", str(TRACE), "--out", str(tmp_path)], capsys, "--out", "is a folder; name a file")


def test_output_below_a_file_is_refused(notes, capsys):
    refused(["check", "--out", str(notes / "sub"), *TINY], capsys, "is a file, so no folder can be made there")


@pytest.mark.parametrize("option", ["--out", "--report"])
def test_read_only_output_folder(tmp_path, capsys, monkeypatch, option):
    """An output folder the user may not write (T18 for ``--report``) is refused before the work; nothing is written."""
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    if os.geteuid() == 0:  # root writes anywhere: make the permission check say what it says to a user
        import ckptcheck.checks.run.outputs as outputs

        monkeypatch.setattr(outputs.os, "access", lambda path, mode: Path(path) != ro)
    where = ro / "r" if option == "--out" else ro
    refused(["check", "--design", "commit-at-pre-commit", *TINY, option, str(where), "--out" if option == "--report" else
             "--report", str(tmp_path / "other")], capsys, option, "permission denied")
    assert list(ro.iterdir()) == [] and not (tmp_path / "other").exists()


def test_design_named_to_escape_writes_inside_out(tmp_path, capsys):
    d = tmp_path / "esc.toml"
    d.write_text('name = "../escaped"\nnum_retained = 2\n')
    out = tmp_path / "out"
    assert main(["check", "--design", str(d), "--out", str(out), *TINY]) == 0
    assert one(out, "escaped.memo-*.result.json").is_file()
    assert not list(tmp_path.glob("*.result.json"))


@pytest.mark.parametrize("content, expected", [
    (b"\xef\xbb\xbfnum_retained = 2\n", "byte-order mark"),
    (b"num_retained = 2\n\xff\xfe\n", "not UTF-8"),
    (b"max_failed_region_percent = 150\n", "max_failed_region_percent: expected an integer <= 100, got 150"),
    (b"retain = 2\n", "unknown knob"),
    (b'based_on = "flink-baselin"\n', "did you mean 'flink-baseline'"),
])
def test_design_file_contents(tmp_path, capsys, content, expected):
    d = tmp_path / "d.toml"
    d.write_bytes(content)
    refused(["check", "--design", str(d), "--out", str(tmp_path / "r"), *TINY], capsys, "d.toml", expected)
    assert not (tmp_path / "r").exists()


def test_design_that_is_a_folder_or_a_typo(tmp_path, capsys):
    refused(["check", "--design", str(tmp_path)], capsys, "is a folder")
    line = refused(["check", "--design", "flink-basline"], capsys, "did you mean 'flink-baseline'")
    assert len(line) < 260, "the point comes first, not a list of every design"


def test_unreadable_design_file(tmp_path, capsys, monkeypatch):
    d = tmp_path / "secret.toml"
    d.write_text("num_retained = 2\n")
    d.chmod(0)
    if os.geteuid() == 0:  # root reads any file: fail the read as it fails for a user
        real = Path.read_bytes

        def read_bytes(self):
            if self == d:
                raise PermissionError(13, "Permission denied", str(self))
            return real(self)

        monkeypatch.setattr(Path, "read_bytes", read_bytes)
    refused(["check", "--design", str(d)], capsys, "secret.toml: file: cannot be read (Permission denied)")


def test_job_too_large_or_with_a_dead_end_is_refused_at_once(tmp_path, capsys):
    big = tmp_path / "big.toml"
    big.write_text('[[vertex]]\nname = "a"\nparallelism = 1000\nrole = "source"\n[[vertex]]\nname = "b"\n'
                   'parallelism = 1000\nrole = "sink"\n[[edge]]\nsource = "a"\ntarget = "b"\n')
    refused(["check", "--job", str(big), "--max-seconds", "15"], capsys, "big.toml", "1000000 channels", seconds=3)
    dead = tmp_path / "dead.toml"
    dead.write_text('[[vertex]]\nname = "a"\nparallelism = 1\nrole = "source"\n[[vertex]]\nname = "b"\n'
                    'parallelism = 1\nrole = "operator"\n[[edge]]\nsource = "a"\ntarget = "b"\n')
    refused(["check", "--job", str(dead)], capsys, "dead.toml", "vertex[1].role", "an operator needs an output", "(vertex 'b')")


def test_hopeless_scope_is_said_before_the_search(tmp_path, capsys):
    assert main(["check", "--records", "1000000", "--max-states", "10", "--out", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert "records_per_split = 1000000: the state space grows exponentially" in err


@pytest.mark.parametrize("option", ["--records", "--checkpoints"])
def test_absurd_counts_are_refused(capsys, option):
    with pytest.raises(SystemExit) as e:
        main(["check", option, "1000000000000000000000000000000"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "expected an integer from 0 to 1,000,000" in err and "(see 'ckptcheck check --help')" in err


def test_help_hints_name_the_right_command_and_version_exists(capsys):
    with pytest.raises(SystemExit):
        main(["spark", "generate", "--walks", "-5"])
    assert "(see 'ckptcheck spark generate --help')" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--bogus"])
    assert "(see 'ckptcheck --help')" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("ckptcheck ")


def test_options_that_do_not_apply_are_said(tmp_path, capsys):
    assert main(["check", "--seed", "3", "--profile", "dev", "--job", "keyed-2x2", "--records", "0",
                 "--checkpoints", "0", "--failures", "0", "--declines", "0", "--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "--seed applies to --engine stateful" in err and "--profile applies to --engine stateful" in err
    assert "symmetry reduction on" not in out  # keyed routing: no interchangeable subtasks, so auto means off
    # required where it cannot apply: refused in one line, before anything is searched or written
    assert main(["check", "--symmetry", "--job", "keyed-2x2", "--out", str(tmp_path / "never")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptcheck: --symmetry: job keyed-2x2: no interchangeable subtasks for flink-baseline") and err.count("\n") == 1
    assert not (tmp_path / "never").exists()
    assert main(["check", "--engine", "stateful", "--max-depth", "3", "--out", str(tmp_path), *TINY, "--job", "keyed-1x1"]) == 3
    assert "--max-depth applies to --engine explore" in capsys.readouterr().err


def test_empty_design_file_is_said(tmp_path, capsys):
    d = tmp_path / "empty.toml"
    d.write_text("")
    assert main(["check", "--design", str(d), "--out", str(tmp_path / "r"), *TINY]) == 0
    assert "empty.toml: sets no knob: it is flink-baseline under the name 'empty'" in capsys.readouterr().err


def test_trace_naming_an_unknown_design_is_said(tmp_path, capsys):
    doc = json.loads(TRACE.read_text())
    doc["design"]["name"] = "flip999-imaginary"
    doc["violation"] = None
    doc["actions"] = doc["actions"][:2]
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    assert main(["replay", str(p)]) == 0
    assert "design 'flip999-imaginary' is not a preset or catalog entry" in capsys.readouterr().err


@pytest.mark.claims  # kept out of the default run for its time; the deep run has it
def test_stateful_check_leaves_no_hypothesis_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--engine", "stateful", "--out", "r", *TINY]) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


@pytest.mark.parametrize("make, expected", [
    (lambda d: d / "nosuch.jsonl", "no such trace file or folder"),
    (lambda d: (d / "fake.parquet").write_text('{"format": 1}\n') and d / "fake.parquet", "not a Parquet file"),
    (lambda d: (d / "empty.jsonl").write_text("\n\n") and d / "empty.jsonl", "no trace in the input"),
])
def test_spark_inputs_are_checked_before_spark_starts(tmp_path, capsys, make, expected):
    path = make(tmp_path)
    refused(["spark", "replay", str(path), "--out", str(tmp_path / "o")], capsys, str(path.name), expected, seconds=3)
    assert not (tmp_path / "o").exists()


def test_spark_generate_of_a_python_variant_is_refused(tmp_path, capsys, monkeypatch):
    (tmp_path / "v.py").write_text(
        "from ckptcheck.model.store import CompletedCheckpointStore\nfrom ckptcheck.specs.designs import BASELINE\n"
        "class S(CompletedCheckpointStore):\n    pass\nD = BASELINE.with_(name='d', store=S)\n")
    monkeypatch.chdir(tmp_path)
    refused(["spark", "generate", "--design", "v:D", "--walks", "1", "--out", "o"], capsys, "components.store", "importable on every worker")


@pytest.mark.parametrize("field, value", [("staggered_triggers", "yes"), ("bounded", 1)])
def test_trace_scope_flags_must_be_true_or_false(tmp_path, capsys, field, value):
    doc = json.loads(TRACE.read_text())
    doc["scope"][field] = value
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    refused(["replay", str(p)], capsys, f"t.json: scope.{field}: expected true or false, got {value!r}")


@pytest.mark.parametrize("extra, expected", [
    (["--rescale", "sink=1", "--repattern", "source->nowhere"],
     "--repattern[0]: no edge named 'source->nowhere' in the job (edges: source->sink)"),
    (["--rescale", "sink=1", "--repattern", "source->sink", "--repattern", "source->sink"],
     "--repattern[1]: edge 'source->sink' is named twice"),
    (["--repattern", "source->sink"], "--repattern: a pattern change needs a rescale (scope.rescale, --rescale)"),
])
def test_repattern_names_an_edge_of_the_job_once_with_a_rescale(tmp_path, capsys, extra, expected):
    refused(["check", "--out", str(tmp_path / "r"), *TINY, *extra], capsys, "options", expected)
    assert not (tmp_path / "r").exists()


def test_trace_repattern_must_be_a_list_of_edge_names(tmp_path, capsys):
    doc = json.loads(TRACE.read_text())
    doc["scope"]["repattern"] = "source->sink"
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    refused(["replay", str(p)], capsys, "t.json: scope.repattern: expected a list of edge names")


def test_a_stop_with_savepoint_the_model_does_not_cover_is_refused(tmp_path, capsys):
    refused(["check", "--design", "flink-unaligned", "--stop-with-savepoint", "drain", "--out", str(tmp_path / "r"), *TINY],
            capsys, "--stop-with-savepoint", "checkpoint_mode 'unaligned'")
    assert not (tmp_path / "r").exists()


def test_spanning_records_without_channel_state_are_refused(tmp_path, capsys):
    refused(["check", "--design", "flink-baseline", "--spanning-records", "--out", str(tmp_path / "r"), *TINY],
            capsys, "--spanning-records", "unaligned design")
    refused(["check", "--design", "flink-unaligned-pointwise", "--spanning-records", "--out", str(tmp_path / "r2")],
            capsys, "--spanning-records", "rescaled POINTWISE edge")
    assert not (tmp_path / "r").exists() and not (tmp_path / "r2").exists()


def test_concurrent_checkpoints_with_an_alignment_timeout_are_refused_in_a_design_file(tmp_path, capsys):
    f = tmp_path / "d.toml"
    f.write_text('based_on = "flink-unaligned-timeout"\nmax_concurrent_checkpoints = 2\n')
    refused(["check", "--design", str(f), "--out", str(tmp_path / "r"), *TINY], capsys, str(f),
            "max_concurrent_checkpoints", "aligned-timeout")


def test_a_trace_with_an_unknown_stop_mode_is_refused(tmp_path, capsys):
    doc = json.loads(TRACE.read_text())
    doc["scope"]["stop_with_savepoint"] = "later"
    f = tmp_path / "t.json"
    f.write_text(json.dumps(doc))
    refused(["replay", str(f)], capsys, str(f), "scope.stop_with_savepoint", "'drain'")


@pytest.mark.parametrize("args, expected", [
    (["check", "--max-seconds", "nan"], ("--max-seconds", "'nan'")),  # N56: was accepted and ignored
    (["catalog", "--max-seconds", "nan"], ("--max-seconds", "'nan'")),
    (["check", "--workers", "100000"], ("--workers", "from 1 to 64")),  # N59: ended in "Too many open files"
    (["findings", "flip600-pr", "--date", "2026-13-45"], ("--date", "2026-13-45", "calendar date")),  # N66: was not checked
    (["findings", "flip600-pr", "--date", "2026-02-30"], ("--date", "calendar date")),
])
def test_review_three_bad_options_are_refused_at_once(tmp_path, capsys, monkeypatch, args, expected):
    monkeypatch.chdir(tmp_path)
    try:
        refused(args, capsys, *expected)
    except SystemExit as e:  # argparse's own refusal: one line, exit 2
        assert e.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and all(x in err[0] for x in expected), err
    assert not list(tmp_path.iterdir()), "nothing is written"


BUGGY = '''
from ckptcheck.model.coordinator import CheckpointCoordinator
from ckptcheck.specs.designs import BASELINE


class Buggy(CheckpointCoordinator):
    """A coordinator whose completion rule divides by zero."""

    def maybe_finalize(self, tx, cp):
        return 1 // 0


BUGGY = BASELINE.with_(name="buggy", coordinator=Buggy)
'''


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_variant_whose_own_code_raises_is_one_line_naming_it(tmp_path, capsys, monkeypatch, workers):
    """The usability review's T05: a method of the user's variant raises during the search (in this
    process, or in a search worker): one line naming the module, the method, the exception and the
    line, exit 2 (not 1, "violated"), no traceback, no result written."""
    name = f"buggy_{workers}"
    (tmp_path / f"{name}.py").write_text(BUGGY)
    monkeypatch.chdir(tmp_path)
    line = refused(["check", "--design", f"{name}:BUGGY", *TINY, "--workers", workers, "--out", "out"], capsys,
                   f"ckptcheck: {name}: ", "maybe_finalize raised ZeroDivisionError", f"{name}.py:10",
                   "an error in the variant's own code, not a verdict on the design")
    assert ("Buggy.maybe_finalize" in line) == (workers == "1")  # a worker's traceback names the function only
    assert not list(Path("out").glob("*.json"))


@pytest.mark.parametrize("module, attr, expected", [
    ("import sys\nsys.exit(3)\n", "X", "importing 'm_exit' called sys.exit(3)"),  # T04
    (BUGGY, "Buggy", "Buggy is a class: name the Design built with it"),  # T06
    (BUGGY, "NOPE", "no name 'NOPE' in m_nope"),  # N03
])
def test_a_variant_module_that_is_not_a_design_is_one_line(tmp_path, capsys, monkeypatch, module, attr, expected):
    name = {"X": "m_exit", "Buggy": "m_class", "NOPE": "m_nope"}[attr]
    (tmp_path / f"{name}.py").write_text(module)
    monkeypatch.chdir(tmp_path)
    refused(["check", "--design", f"{name}:{attr}", *TINY], capsys, expected)


@pytest.mark.parametrize("content, expected", [
    ("num_retained = 2026-01-01\n", "num_retained: expected an integer, got the date 2026-01-01"),  # T01
    ("[knobs]\nnum_retained = 2\n", "knobs: unknown knob (knobs go at the top level of a design file"),  # T03
])
def test_design_file_values_are_said_as_the_file_wrote_them(tmp_path, capsys, content, expected):
    f = tmp_path / "mine.toml"
    f.write_text(content)
    refused(["check", "--design", str(f), *TINY], capsys, expected)


def test_a_folder_given_as_the_flink_jar_is_said_to_be_a_folder(tmp_path, capsys):
    """T14: an existing folder is not "no such file"."""
    refused(["conform", "--cases", "10", "--flink-dist", str(tmp_path)], capsys, f"{tmp_path}: is a folder")


def test_a_recording_with_its_header_only_says_it_records_no_event(tmp_path, capsys):
    """T11: a header and nothing else."""
    header = (Path(__file__).resolve().parents[2] / "data" / "runs" / "aligned-failure-p1.jsonl").read_text().splitlines()[0]
    f = tmp_path / "run.jsonl"
    f.write_text(header + "\n")
    refused(["validate", str(f)], capsys, "events: the run records no event after its header")


RUN = Path(__file__).resolve().parents[2] / "data" / "runs" / "aligned-failure-p1.jsonl"


def _doctored_run(tmp_path, edit) -> Path:
    lines = RUN.read_text().splitlines()
    f = tmp_path / "run.jsonl"
    f.write_text("\n".join(edit(lines)) + "\n")
    return f


@pytest.mark.parametrize("case, edit, expected", [
    # T10: two events out of seq order
    ("T10", lambda ls: [ls[0], ls[2], ls[1], *ls[3:]], "seq: expected more than the line before's"),
    # T12: a header of another format
    ("T12", lambda ls: [ls[0].replace('"ckptcheck-run"', '"other"'), *ls[1:]], "format: expected 'ckptcheck-run', got \"other\""),
])
def test_a_doctored_recording_is_one_line(tmp_path, capsys, case, edit, expected):
    refused(["validate", str(_doctored_run(tmp_path, edit))], capsys, expected)


def test_review_four_design_and_trace_cases(tmp_path, capsys):
    """T02 (an enum knob given as an array), T09 (a Markdown file with no trace), T15 (a text file named
    like Flink's jar, given to validate)."""
    f = tmp_path / "mine.toml"
    f.write_text('sink_commit = ["notify"]\n')
    refused(["check", "--design", str(f), *TINY], capsys, "sink_commit: expected a string, got ['notify']")
    notes = tmp_path / "notes.md"
    notes.write_text("# notes\n\nno trace here\n")
    refused(["replay", str(notes)], capsys, "traces: the report embeds no trace")
    jar = tmp_path / "flink-dist-2.3.0.jar"
    jar.write_text("not a zip\n")
    refused(["validate", "--runs", "1", "--flink-dist", str(jar)], capsys, "not a jar")



def test_an_error_raised_inside_ckptcheck_keeps_its_traceback(tmp_path, monkeypatch):
    """Only the user's own code is reported in one line: an exception raised inside ckptcheck, even
    through a variant's call, is ckptcheck's own error and keeps its traceback (main re-raises it)."""
    from ckptcheck.checks.cli.user_code import user_code_error

    (tmp_path / "calls_in.py").write_text("from ckptcheck.specs.jobs import job_by_name\n\n\ndef f():\n"
                                          "    return job_by_name('no-such-job')\n\n\ndef g():\n    return 1 // 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import calls_in

    for fn, ours in ((calls_in.f, True), (calls_in.g, False)):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the test needs the exception with its traceback
            line = user_code_error(e)
        assert (line is None) == ours, line
