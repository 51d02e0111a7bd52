"""``ckptcheck validate``: recorded runs of real Flink checked against the model.

The two runs in ``tests/data/runs`` were recorded from Flink 2.3.0's MiniCluster by
``ckptcheck validate --runs 6 --seed 1 --keep DIR`` (runs 5 and 4): a failure, a restore from a
checkpoint, FLIP-147's final checkpoint.  Doctored copies of them, and a design whose rule
differs from Flink's, must be rejected with the event the model cannot take; one small run is
recorded here and validated (skipped without a Flink jar or a JDK)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ckptcheck.checks import flinkjvm
from ckptcheck.checks.cli import main
from ckptcheck.checks.runfile import read_run
from ckptcheck.checks.validate import describe, validate
from ckptcheck.specs.catalog import all_designs
from ckptcheck.specs.designs import BASELINE

RUNS = Path(__file__).parent / "data" / "runs"
P1 = RUNS / "aligned-failure-p1.jsonl"
P2 = RUNS / "aligned-failure-p2.jsonl"


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _write(tmp_path: Path, rows: list[dict]) -> Path:
    p = tmp_path / "doctored.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


@pytest.mark.parametrize("path", [P1, P2], ids=["p1", "p2"])
def test_recorded_runs_of_flink_are_behaviours_of_flink_baseline(path):
    res = validate(read_run(path), BASELINE)
    assert res.validated and res.complete, describe(res)
    assert res.events > 40 and res.states > 0


def test_two_records_swapped_at_the_sink_are_not_a_behaviour(tmp_path):
    rows = _lines(P1)
    at = [k for k, r in enumerate(rows) if r.get("event") == "invoke"]
    a, b = at[-2], at[-1]  # the sink writes (0, 2) and (0, 3) after the restore
    rows[a]["record"], rows[b]["record"] = rows[b]["record"], rows[a]["record"]
    res = validate(read_run(_write(tmp_path, rows)), BASELINE)
    assert not res.validated and res.complete
    text = "\n".join(describe(res))
    assert "not a behaviour of the model" in text
    # the model's step there delivers (0, 2), the run's next sink event writes (0, 3)
    assert f"#{rows[a]['seq']} sink[0] invoke (record=[0, 3])" in text, text
    assert "sink[0] invoke (record=[0, 2]), but its next is" in text, text


def test_a_commit_no_checkpoint_covered_is_not_a_behaviour(tmp_path):
    rows = _lines(P1)
    last_invoke = max(k for k, r in enumerate(rows) if r.get("event") == "invoke")
    seq = rows[last_invoke]["seq"]
    forged = {"seq": seq, "event": "commit", "task": "sink", "subtask": 0, "records": [rows[last_invoke]["record"]]}
    for r in rows[last_invoke + 1:]:
        r["seq"] += 1
    rows.insert(last_invoke + 1, dict(forged, seq=seq + 1))
    res = validate(read_run(_write(tmp_path, rows)), BASELINE)
    assert not res.validated and res.complete
    mm = res.mismatch
    assert any(e.kind == "commit" and e.seq == seq + 1 for e in mm.next_events), describe(res)


def test_a_design_whose_restore_differs_from_flinks_is_rejected():
    """``source-position-not-restored`` restarts a source at offset 0: the run's restart
    restored offset 2 from checkpoint 3."""
    res = validate(read_run(P1), all_designs()["source-position-not-restored"])
    assert not res.validated and res.complete
    text = "\n".join(describe(res))
    assert "Restore(3) records source[0] start (restored=3, position=0)" in text, text
    assert "its next is #34 source[0] start (position=2, restored=3)" in text, text


def test_the_recorded_order_within_a_thread_matters(tmp_path):
    """A doctored run that moves a source's emit before the snapshot it followed: the model's
    source then snapshots a position one short, which the run's snapshot contradicts."""
    rows = _lines(P1)
    emit = next(k for k, r in enumerate(rows) if r.get("event") == "emit" and r["record"] == [0, 1])
    snap = next(k for k, r in enumerate(rows) if r.get("event") == "snapshot" and r["task"] == "source" and r["checkpoint"] == 3)
    rows[snap]["position"] = 1  # the snapshot now claims the record was not yet read
    res = validate(read_run(_write(tmp_path, rows)), BASELINE)
    assert emit < snap and not res.validated


@pytest.mark.parametrize("edit, field", [
    (lambda rows: rows[0].update(format="other"), "format"),
    (lambda rows: rows[0].update(version=2), "version"),
    (lambda rows: rows[3].update(event="teleport"), "event"),
    (lambda rows: rows[3].update(seq=1), "seq"),
    (lambda rows: rows[3].update(subtask=5), "task"),
    (lambda rows: rows[3].update(record=[0]), "record"),
    (lambda rows: rows[3].update(colour="red"), "colour"),
])
def test_a_bad_recording_is_one_line_exit_2(tmp_path, capsys, edit, field):
    rows = _lines(P1)
    if field == "record":
        k = next(k for k, r in enumerate(rows) if r.get("event") == "emit")
        rows[k]["record"] = [0]
    else:
        edit(rows)
    code = main(["validate", str(_write(tmp_path, rows))])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert f": {field}:" in err[0] and "doctored.jsonl" in err[0], err


def test_validate_cli_exit_statuses(capsys):
    assert main(["validate", str(P1)]) == 0
    assert "validated: " in capsys.readouterr().out
    assert main(["validate", str(P1), "--design", "source-position-not-restored"]) == 1
    assert "not a behaviour of the model" in capsys.readouterr().out
    assert main(["validate", str(P2), "--max-states", "10"]) == 3
    assert "not settled" in capsys.readouterr().out


JAR = flinkjvm.default_dist_jar()
needs_flink = [
    pytest.mark.skipif(JAR is None, reason="no Flink distribution jar: pip install -e '.[flink]' (apache-flink-libraries)"),
    pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK (javac) on PATH"),
]


@pytest.mark.parametrize("_", [0], ids=["one-run"])
@needs_flink[0]
@needs_flink[1]
def test_a_real_run_recorded_here_is_validated(tmp_path, capsys, _):
    """One small real run on Flink's MiniCluster (about 10 s with the compile)."""
    code = main(["validate", "--runs", "1", "--seed", "1", "--keep", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "aligned-failure-p1: 1 / 0 / 0 / 0" in out, out
    assert len(list(tmp_path.glob("*.jsonl"))) == 1


@pytest.mark.deep
@needs_flink[0]
@needs_flink[1]
def test_fifty_real_runs_are_behaviours_of_the_model(tmp_path, capsys):
    code = main(["validate", "--runs", "50", "--seed", "7", "--keep", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out


@pytest.mark.claims
@needs_flink[0]
@needs_flink[1]
def test_the_readme_validate_example(tmp_path, capsys):
    """The README's ``ckptcheck validate --runs 4 --seed 11``: the four configurations, each
    run validated (the runs' event and state counts are their own; the README's are one run's)."""
    code = main(["validate", "--runs", "4", "--seed", "11", "--keep", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    for name in ("aligned-failure-p1", "aligned-failure-p2", "timeout-p1", "timeout-p2"):
        assert f"  {name}: 1 / 0 / 0 / 0" in out, out


def test_a_trigger_may_overtake_a_notice_where_the_scope_says_so():
    """``Scope.rpcs_overtake`` (what validate's scopes use): a trigger RPC and an earlier
    completion or abort notice to one task arrive in either order, as a real run showed; the
    FIFO inbox of the other scopes never lets them cross.  The baseline still holds."""
    from ckptcheck.checks.explore import explore
    from ckptcheck.specs.scopes import enumerator_default_scope
    from ckptcheck.specs.spec import Spec

    small = enumerator_default_scope().with_(max_failures=0, max_declines=0)
    fifo = explore(Spec(BASELINE, small), workers=1)
    crossed = explore(Spec(BASELINE, small.with_(rpcs_overtake=True)), workers=1)
    assert fifo.complete and crossed.complete
    assert (fifo.states, crossed.states) == (3968, 6140)
    assert "a-trigger-and-a-notice-cross" in crossed.discoveries
    assert not [d for d in crossed.discoveries.values() if d.kind != "sometimes"]


def test_rpcs_overtake_needs_staggered_triggers(capsys):
    code = main(["check", "--design", "flink-baseline", "--job", "forward-2x2", "--rpcs-overtake", "--no-staggered-triggers"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "rpcs_overtake" in err[0], err
