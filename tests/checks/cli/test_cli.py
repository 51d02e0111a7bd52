"""The command line: exit 0/1/2, one-line errors naming file and field, nothing half-written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ckptcheck.checks.cli.main import main

from conftest import one

TINY = ["--checkpoints", "1", "--failures", "0", "--declines", "0", "--lost-notifications", "0"]


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_check_baseline_holds_and_writes_result(tmp_path, capsys):
    code, out, err = run(["check", "--design", "flink-baseline", "--out", str(tmp_path), *TINY], capsys)
    assert code == 0, out + err
    assert "87,384 distinct states" in out
    assert "RESULT: every property holds" in out
    assert "NOT REACHED" in out and "WARNING: no witness for a-task-declines" in out
    doc = json.loads(one(tmp_path, "flink-baseline.memo-*.result.json").read_text())
    assert doc["ok"] is True and doc["stats"]["states"] == 87384
    assert doc["scope"]["max_checkpoints"] == 1


def test_check_flaw_exits_1_and_trace_replays(tmp_path, capsys):
    # the violation is 11 steps deep: the rest of the space says nothing more here
    code, out, err = run(["check", "--design", "no-alignment-block", "--out", str(tmp_path), "--max-depth", "12", *TINY], capsys)
    assert code == 1
    assert "checkpoints-consistent" in out and "VIOLATED" in out
    # the progress line names the violation when the search finds it, in each engine
    assert "... VIOLATED checkpoints-consistent (always), 11 steps from the start" in err
    code, _, err = run(["check", "--design", "no-alignment-block", "--out", str(tmp_path / "one"), "--max-depth", "12",
                        "--workers", "1", *TINY], capsys)
    assert code == 1 and "... VIOLATED checkpoints-consistent (always), 11 steps from the start" in err
    trace = one(tmp_path, "no-alignment-block.memo-*--checkpoints-consistent.trace.json")
    code, out, _ = run(["replay", str(trace)], capsys)
    assert code == 1
    assert "same verdict as recorded in the trace" in out


def test_toml_design_variant_checks_without_code(tmp_path, capsys):
    d = tmp_path / "keep-two.toml"
    d.write_text('based_on = "flink-baseline"\nnum_retained = 2\ntolerable_failed_checkpoints = 1\n')
    code, out, _ = run(["check", "--design", str(d), "--job", "keyed-1x1", "--out", str(tmp_path), *TINY], capsys)
    assert code == 0
    assert "design   keep-two" in out
    doc = json.loads(one(tmp_path, "keep-two.memo-*.result.json").read_text())
    assert doc["design"]["knobs"]["num_retained"] == 2


@pytest.mark.claims  # kept out of the default run for its time; the deep run has it
def test_stateful_engine_from_cli(tmp_path, capsys):
    code, out, _ = run(["check", "--engine", "stateful", "--seed", "1", "--out", str(tmp_path), *TINY], capsys)
    assert code == 3, "a sampled search never exits as 'all hold'"
    assert "stateful (Hypothesis, sampled, profile ci, seed 1)" in out
    assert re.search(r"RESULT: no violation in [\d,]+ runs of up to \d+ steps \(sampled, seed 1\): nothing is proved", out)
    # what sampling leaves open is said a line group per kind, never "holds"
    assert re.search(r"  always     no violation in [\d,]+ runs \(sampled\): exactly-once-output,", out)
    assert "hold:" not in out
    doc = json.loads(one(tmp_path, "flink-baseline.stateful-*.result.json").read_text())
    assert doc["outcome"] == "sampled" and doc["ok"] is False
    assert {v["status"] for v in doc["verdicts"] if v["kind"] == "always" and v["status"] != "not applicable"} == {"sampled"}


def test_designs_lists_presets_knobs_and_catalog(capsys):
    code, out, _ = run(["designs"], capsys)
    assert code == 0
    assert "flink-baseline" in out and "num_retained = 1" in out and "commit-at-pre-commit" in out
    knobs = out.split("Knobs:", 1)[1].split("\n", 1)[1].split("Components", 1)[0]
    import tomllib

    from ckptcheck.model.design import KNOBS

    listed = tomllib.loads(knobs)
    assert set(listed) == {"based_on"} | {k.name for k in KNOBS}, "the knob listing is valid TOML, one line per knob"
    assert listed["coordinator_region_fallback"] == "fallback" and listed["end_of_input_rule"] == "ended"


BAD_DESIGNS = [
    ("bad.toml", "num_retained = [", "bad.toml: toml: not valid TOML"),
    ("unknown.toml", "retention = 2\n", "unknown.toml: retention: unknown knob"),
    ("type.toml", 'num_retained = "two"\n', "type.toml: num_retained: expected an integer, got 'two'"),
    ("range.toml", "num_retained = 0\n", "range.toml: num_retained: expected an integer >= 1, got 0"),
    ("choice.toml", 'sink_commit = "never"\n', "choice.toml: sink_commit: expected one of 'notify', 'pre-commit'"),
]


@pytest.mark.parametrize("name, text, message", BAD_DESIGNS, ids=[b[0] for b in BAD_DESIGNS])
def test_bad_design_file(tmp_path, capsys, name, text, message):
    f = tmp_path / name
    f.write_text(text)
    out_dir = tmp_path / "out"
    code, out, err = run(["check", "--design", str(f), "--out", str(out_dir), *TINY], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err
    assert "Traceback" not in err
    assert not out_dir.exists(), "nothing half-written"


JOB_HEAD = '[[vertex]]\nname = "a"\nparallelism = 1\nrole = "source"\n'
BAD_JOBS = [
    (
        "cycle.toml",
        JOB_HEAD
        + '[[vertex]]\nname = "b"\nparallelism = 1\nrole = "operator"\n'
        + '[[vertex]]\nname = "c"\nparallelism = 1\nrole = "sink"\n'
        + '[[edge]]\nsource = "a"\ntarget = "b"\n[[edge]]\nsource = "b"\ntarget = "c"\n[[edge]]\nsource = "c"\ntarget = "b"\n',
        "cycle.toml: edges: the job graph has a cycle",
    ),
    (
        "pmax.toml",
        '[[vertex]]\nname = "a"\nparallelism = 4\nmax_parallelism = 2\nrole = "source"\n',
        "pmax.toml: vertex[0].parallelism: 4 exceeds max parallelism 2 (vertex 'a')",
    ),
    (
        "maxbound.toml",
        '[[vertex]]\nname = "a"\nparallelism = 1\nmax_parallelism = 40000\nrole = "source"\n',
        "maxbound.toml: vertex[0].max_parallelism: 40000 exceeds Flink's upper bound 32768 (vertex 'a')",
    ),
    (
        "pattern.toml",
        JOB_HEAD + '[[vertex]]\nname = "b"\nparallelism = 1\nrole = "sink"\n[[edge]]\nsource = "a"\ntarget = "b"\npattern = "RING"\n',
        "pattern.toml: edge[0].pattern: expected one of 'ALL_TO_ALL', 'POINTWISE', got 'RING'",
    ),
    (
        "epoch.toml",
        '[[vertex]]\nname = "a"\nparallelism = 2\nrole = "source"\nstate = ["epoch"]\n',
        "epoch.toml: vertex[0].state: epoch state is kept in union list state: list 'union' too (vertex 'a')",
    ),
]


@pytest.mark.parametrize("name, text, message", BAD_JOBS, ids=[b[0] for b in BAD_JOBS])
def test_bad_job_file(tmp_path, capsys, name, text, message):
    f = tmp_path / name
    f.write_text(text)
    out_dir = tmp_path / "out"
    code, _, err = run(["check", "--job", str(f), "--out", str(out_dir)], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err
    assert not out_dir.exists()


@pytest.fixture(scope="module")
def good_trace(tmp_path_factory):
    out = tmp_path_factory.mktemp("trace")
    # the violation is 11 steps deep: no need to search the rest of the space for a trace
    assert main(["check", "--design", "no-alignment-block", "--out", str(out), "--max-depth", "12", *TINY]) == 1
    return one(out, "no-alignment-block.memo-*--checkpoints-consistent.trace.json")


def _bad_trace(good: Path, tmp_path: Path, mutate) -> Path:
    doc = json.loads(good.read_text())
    mutate(doc)
    p = tmp_path / "bad.trace.json"
    p.write_text(json.dumps(doc))
    return p


BAD_TRACES = [
    (lambda d: d["actions"].__setitem__(0, {"type": "Teleport"}), "bad.trace.json: actions[0].type: unknown action 'Teleport'"),
    (lambda d: d["actions"].insert(0, {"type": "Ack", "task": "sink[0]", "checkpoint": 9}), "bad.trace.json: actions[0]: Ack(sink[0], 9) is not enabled at step 1"),
    (lambda d: d.__setitem__("version", 99), "bad.trace.json: version: expected 1"),
    (lambda d: d["actions"].__setitem__(0, {"type": "FailTask", "task": "sink[7]"}), "bad.trace.json: actions[0].task: no subtask named 'sink[7]'"),
    (lambda d: d["design"]["knobs"].__setitem__("num_retained", -1), "num_retained: expected an integer >= 1"),
    (lambda d: d["violation"].__setitem__("property", "no-such-property"), "bad.trace.json: violation.property: unknown property 'no-such-property'"),
    (lambda d: d["violation"].__setitem__("step", 999), "bad.trace.json: violation.step: expected a step from 0 to"),
    (lambda d: d["design"].__setitem__("components", {"store": "evil.module.Store"}),
     "bad.trace.json: design.components.store: the trace ran evil.module.Store"),
]


@pytest.mark.parametrize("mutate, message", BAD_TRACES)
def test_bad_trace(good_trace, tmp_path, capsys, mutate, message):
    bad = _bad_trace(good_trace, tmp_path, mutate)
    code, _, err = run(["replay", str(bad)], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err


def test_trace_that_is_not_json(tmp_path, capsys):
    p = tmp_path / "x.json"
    p.write_text("{nope")
    code, _, err = run(["replay", str(p)], capsys)
    assert code == 2 and "x.json: json: not valid JSON" in err


def test_bad_option_is_one_line_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["check", "--records", "-1"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--records" in err[0]


def test_console_script_is_installed():
    out = subprocess.run([sys.executable, "-m", "ckptcheck.checks.cli.main", "designs"], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and "flink-baseline" in out.stdout


def test_unbounded_scope_marks_termination_not_applicable(tmp_path, capsys):
    code, out, _ = run(["check", "--unbounded", "--out", str(tmp_path), "--checkpoints", "1", "--failures", "0", "--declines", "0",
                        "--verbose"], capsys)
    assert code == 0
    assert "bounded-job-completes        not applicable" in out
    assert "the-job-finishes             not applicable" in out


def test_scope_defaults_follow_the_design():
    """Regional designs default to the FLIP-600 scope (two independent regions), every design to
    its own default scope, bounded or not; options override."""
    from ckptcheck.checks.cli.main import build_parser, scope_from_args
    from ckptcheck.specs.designs import BASELINE, FLIP600, PRESETS
    from ckptcheck.specs.scopes import default_scope, default_scope_for, regional_default_scope, regional_scope

    p = build_parser()
    assert scope_from_args(p.parse_args(["check", "--design", "flip600-regional"]), FLIP600) == regional_default_scope()
    assert regional_default_scope() == regional_scope().with_(instant_acks=True)
    full = scope_from_args(p.parse_args(["check", "--design", "flip600-regional", "--no-instant-acks"]), FLIP600)
    assert full == regional_scope()
    # a timeout that completes regionally does not fit the default's instant acks: the default drops them
    timing = FLIP600.with_(name="t", timeouts_complete_regionally=True)
    assert not scope_from_args(p.parse_args(["check", "--design", "flip600-regional", "--timeouts", "1"]), timing).instant_acks
    assert scope_from_args(p.parse_args(["check"]), BASELINE) == default_scope()
    for name, design in PRESETS.items():
        assert scope_from_args(p.parse_args(["check", "--design", name]), design) == default_scope_for(design), name
    pw = PRESETS["flink-unaligned-pointwise"]
    assert not default_scope_for(pw).bounded
    assert scope_from_args(p.parse_args(["check", "--design", pw.name, "--bounded"]), pw).bounded
    sc = scope_from_args(p.parse_args(["check", "--checkpoints", "1", "--job", "enumerator-2x2"]), FLIP600)
    assert sc.max_checkpoints == 1 and sc.job_name == "enumerator-2x2" and sc.max_declines == regional_scope().max_declines


def test_keys_per_split_turns_on_the_per_key_order_property(tmp_path, capsys):
    base = ["check", "--design", "flink-unaligned", "--job", "keyed-1x1", "--records", "2", "--failures", "0",
            "--declines", "0", "--checkpoints", "1", "--out", str(tmp_path), "--verbose"]
    code, out, err = run([*base, "--keys-per-split", "1"], capsys)
    assert code == 0, out + err
    assert "the records of a split share 1 key(s)" in out
    assert re.search(r"always +per-key-order +holds", out)
    code, out, _ = run(base, capsys)
    assert re.search(r"always +per-key-order +not applicable", out)


def test_check_answers_short_and_verbose_lists_every_property(tmp_path, capsys):
    """By default what holds and what is hit is grouped by kind, and the properties that do not
    apply are one line; --verbose lists each property on its own line."""
    args = ["check", "--out", str(tmp_path), "--job", "keyed-1x1", "--records", "1", "--checkpoints", "1", "--failures", "0", "--declines", "0"]
    code, out, _ = run(args, capsys)
    assert code == 0
    assert len(out.splitlines()) <= 30
    assert "not applicable" not in out and "properties do not apply to this design and scope" in out
    assert "  always     hold:  exactly-once-output," in out
    code, verbose, _ = run(args + ["--verbose"], capsys)
    assert code == 0 and "per-key-order                not applicable" in verbose
    assert len(verbose.splitlines()) > 60
