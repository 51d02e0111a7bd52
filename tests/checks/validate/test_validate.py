"""``ckptcheck validate``: recorded runs of real Flink checked against the model.

The two runs in ``tests/data/runs`` were recorded from Flink 2.3.0's MiniCluster by
``ckptcheck validate --runs 50 --seed 8 --keep DIR``: an aligned one with a failure and a
restore from a checkpoint, and an unaligned one under backpressure with a failure, both with
FLIP-147's final checkpoints.  Doctored copies of them, and a design whose rule
differs from Flink's, must be rejected with the event the model cannot take; one small run is
recorded here and validated (skipped without a Flink jar or a JDK)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ckptcheck.checks import flinkjvm
from ckptcheck.checks.cli.main import main
from ckptcheck.checks.validate.runfile import read_run
from ckptcheck.checks.validate.matching import describe, preset_for, validate
from ckptcheck.specs.catalog import all_designs
from ckptcheck.specs.designs import BASELINE

RUNS = Path(__file__).resolve().parents[2] / "data" / "runs"
P1 = RUNS / "aligned-failure-p1.jsonl"
P2 = RUNS / "unaligned-backpressure-p2.jsonl"



def _without_and_with(design, sc, option: str, witness: str) -> tuple[int, int]:
    """States of ``sc`` searched whole without and with the runtime ``option``: with it, its
    ``witness`` is hit and every property still holds."""
    from ckptcheck.checks.engine.explore import explore
    from ckptcheck.specs.spec import Spec

    off = explore(Spec(design, sc), workers=1)
    on = explore(Spec(design, sc.with_(**{option: True})), workers=1)
    assert off.complete and on.complete
    assert witness in on.discoveries
    assert not [d for d in on.discoveries.values() if d.kind != "sometimes"]
    return off.states, on.states

def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _write(tmp_path: Path, rows: list[dict]) -> Path:
    p = tmp_path / "doctored.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


@pytest.mark.parametrize("path, preset", [(P1, "flink-baseline"), (P2, "flink-unaligned"), (RUNS / "sink-v2-p1.jsonl", "flink-baseline")],
                         ids=["aligned", "unaligned", "sink-v2"])
def test_recorded_runs_of_flink_are_behaviours_of_flink_as_released(path, preset):
    run = read_run(path)
    assert preset_for(run) == preset
    res = validate(run, all_designs()[preset])
    assert res.validated and res.complete, describe(res)
    assert res.events > 30 and res.states > 0
    # the matching model run names what it went through: both runs failed a task, and the
    # unaligned one's barriers overtook records
    assert "a-task-fails" in res.witnesses, res.witnesses
    if path.name.startswith("sink-v2"):
        assert "end-of-input-committables-committed" in res.witnesses, res.witnesses
    if preset == "flink-unaligned":
        assert {"a-barrier-overtakes-a-record", "input-channel-state-recorded"} <= set(res.witnesses), res.witnesses


def test_two_records_swapped_at_the_sink_are_not_a_behaviour(tmp_path):
    rows = _lines(P1)
    at = [k for k, r in enumerate(rows) if r.get("event") == "invoke"]
    a, b = at[-2], at[-1]  # the sink's last two writes, one channel's records in order
    first, second = rows[a]["record"], rows[b]["record"]
    rows[a]["record"], rows[b]["record"] = second, first
    res = validate(read_run(_write(tmp_path, rows)), BASELINE)
    assert not res.validated and res.complete
    text = "\n".join(describe(res))
    assert "not a behaviour of the model" in text
    # the model's step there delivers the earlier record; the run's next sink event writes the later one
    assert f"#{rows[a]['seq']} sink[0] invoke (record=[{second[0]}, {second[1]}])" in text, text
    assert f"sink[0] invoke (record=[{first[0]}, {first[1]}]), but its next is" in text, text


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
    restored a later offset from a checkpoint."""
    restart = next(r for r in _lines(P1) if r.get("event") == "start" and r["task"] == "source" and r["position"] > 0)
    res = validate(read_run(P1), all_designs()["source-position-not-restored"])
    assert not res.validated and res.complete
    text = "\n".join(describe(res))
    assert "records source[0] start (restored=" in text and "position=0)" in text, text
    assert (f"its next is #{restart['seq']} source[0] start (position={restart['position']}, restored=") in text, text


def test_a_snapshot_that_contradicts_the_emits_before_it_is_rejected(tmp_path):
    """A doctored run whose source snapshot claims one record fewer than it emitted before it."""
    rows = _lines(P1)
    snap = max(k for k, r in enumerate(rows) if r.get("event") == "snapshot" and r["task"] == "source" and r["position"] > 0)
    rows[snap]["position"] -= 1
    res = validate(read_run(_write(tmp_path, rows)), BASELINE)
    assert not res.validated and res.complete


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
    assert main(["validate", str(P1), "--design", "flink-null-state"]) == 2  # no recomputable operator in the job
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--design: flink-null-state cannot be checked" in err[0], err
    assert main(["validate"]) == 2 and main(["validate", "--runs", "1", str(P1)]) == 2
    assert main(["validate", "--runs", "3", "--design", "flink-null-state"]) == 2  # refused before any run


JAR = flinkjvm.default_dist_jar()
needs_flink = [
    pytest.mark.skipif(JAR is None, reason="no Flink distribution jar: pip install -e '.[test]' brings it (apache-flink-libraries)"),
    pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK (javac) on PATH: a system package (Debian's default-jdk-headless; .ci/run installs it)"),
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
    assert len(list(tmp_path.glob("*.jsonl"))) == 1 and not list(tmp_path.glob(".*"))
    assert out.splitlines()[-1] == "RESULT: 1 of 1 run(s) validated as behaviours of the model"


def test_validate_writes_each_recording_whole_and_sums_up_at_ctrl_c(tmp_path, capsys, monkeypatch):
    """The second of three runs is interrupted while the job writes its recording: nothing of it is
    left, the first run's verdict is summed up with a RESULT line, exit 130; without ``--keep`` no
    temporary folder is left behind.  (The recorder is stood in for: no JVM needed.)"""
    from ckptcheck.checks.validate import recorder

    calls = []

    def record(dist, classes, cfg, out, timeout=180):
        calls.append(out)
        if len(calls) == 2:
            out.write_text('{"format": "ckptcheck-run"')  # half a header, then Ctrl-C
            raise KeyboardInterrupt
        shutil.copy(P1, out)
        return out

    monkeypatch.setattr(flinkjvm, "open_dist", lambda path: type("D", (), {"version": "2.3.0", "jar": Path("flink-dist.jar")})())
    monkeypatch.setattr(recorder, "compile_job", lambda dist: tmp_path)
    monkeypatch.setattr(recorder, "record", record)
    keep = tmp_path / "keep"
    code = main(["validate", "--runs", "3", "--seed", "1", "--keep", str(keep)])
    out = capsys.readouterr().out
    assert code == 130
    # the job writes a hidden part beside the recording, renamed into place once whole
    assert all(c.name.startswith(".run-") and c.name.endswith(".jsonl.part") for c in calls)
    kept = sorted(p.name for p in keep.iterdir())
    assert kept == [calls[0].name[1:].removesuffix(".part")], "the interrupted recording is not kept, nor its part"
    assert out.splitlines()[-1] == "RESULT: interrupted after 1 of 3 run(s): 1 of 3 run(s) validated as behaviours of the model"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(tmp))
    calls.clear()
    assert main(["validate", "--runs", "1", "--seed", "1"]) == 0
    assert list(tmp.iterdir()) == [] and "recordings not kept (--keep DIR keeps them)" in capsys.readouterr().out


@pytest.mark.deep
@needs_flink[0]
@needs_flink[1]
def test_fifty_real_runs_are_behaviours_of_the_model(tmp_path, capsys):
    """50 runs over the thirteen configurations, three to four each (about 10 minutes): every one must
    be validated, each with its fault seen (a failure, an expired checkpoint, or the restart at
    another parallelism; the late-confirmation configuration has none, its order is the point)."""
    main(["validate", "--runs", "50", "--seed", "8", "--keep", str(tmp_path)])
    out = capsys.readouterr().out
    rows = [ln for ln in out.splitlines() if ln.startswith("  ") and ln.count(" / ") == 3]
    assert len(rows) == 13, out
    runs = [ln for ln in out.splitlines() if ln.startswith("[")]
    assert len(runs) == 50, out
    for ln in runs:
        assert "validated (" in ln, ln
        assert " 0 fault(s) seen" not in ln or "incremental-late-confirmation" in ln, ln


def test_a_trigger_may_overtake_a_notice_where_the_scope_says_so():
    """``Scope.rpcs_overtake`` (what validate's scopes use): a trigger RPC and an earlier
    completion or abort notice to one task arrive in either order, as a real run showed; the
    FIFO inbox of the other scopes never lets them cross.  The baseline still holds."""
    from ckptcheck.specs.scopes import enumerator_default_scope

    small = enumerator_default_scope().with_(max_failures=0, max_declines=0)
    assert _without_and_with(BASELINE, small, "rpcs_overtake", "a-trigger-and-a-notice-cross") == (3968, 6140)


@pytest.mark.parametrize("option", ["rpcs-overtake", "late-finish-reports"])
def test_a_scope_option_of_trigger_rpcs_needs_staggered_triggers(capsys, option):
    code = main(["check", "--design", "flink-baseline", "--job", "forward-2x2", f"--{option}", "--no-staggered-triggers"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and option.replace("-", "_") in err[0], err


OVERTAKE = RUNS / "trigger-overtakes-notice.jsonl"


def test_a_run_where_a_trigger_overtakes_a_notice_needs_rpcs_overtake(tmp_path):
    """The run that showed it (kept whole as found; its first 34 events are checked here, the
    whole run in the deep tier): source[0] snapshots checkpoint 3 before its
    notifyCheckpointComplete(2) arrives.  With each task's RPCs in order, as the preset scopes
    keep them, the model cannot record it."""
    unaligned = all_designs()["flink-unaligned"]
    rows = _lines(OVERTAKE)
    run = read_run(_write(tmp_path, [rows[0]] + [r for r in rows[1:] if r["seq"] <= 34]))
    crossed = validate(run, unaligned)
    assert crossed.validated and "a-trigger-and-a-notice-cross" in crossed.witnesses
    fifo = validate(run, unaligned, rpcs_overtake=False)
    assert not fifo.validated and fifo.complete
    assert any(e.kind == "notify-complete" and e.task == "source" for e in fifo.mismatch.next_events)


FINISHED_TRIGGERED = RUNS / "finished-source-triggered.jsonl"
DURING_RECOVERY = RUNS / "barrier-during-recovery.jsonl"
LOCAL_CHANNEL = RUNS / "timeout-barrier-in-local-channel.jsonl"


def test_a_trigger_may_reach_a_source_that_finished_before_the_jobmanager_saw_it(tmp_path):
    """Found by a real run (kept whole; its first 30 events here, the whole run in the deep
    tier): the JobManager triggers checkpoint 3 on source[0], which finished after its final
    checkpoint but whose finish it has not processed; the trigger fails and the checkpoint
    aborts, TASK_CHECKPOINT_FAILURE, not counted.  With ``late_finish_reports`` the model
    records it; a coordinator that sees a finish at once can only explain the abort by a counted
    decline, which fails the job over, so source[1]'s notice of the abort is never sent."""
    unaligned = all_designs()["flink-unaligned"]
    rows = _lines(FINISHED_TRIGGERED)
    run = read_run(_write(tmp_path, [rows[0]] + [r for r in rows[1:] if r["seq"] <= 30]))
    late = validate(run, unaligned)
    assert late.validated and "a-trigger-reaches-a-finished-task" in late.witnesses, describe(late)
    seen = validate(run, unaligned, late_finish_reports=False)
    assert seen.complete and not seen.validated
    assert any(e.kind == "notify-abort" and e.get("checkpoint") == 3 for e in seen.mismatch.next_events), describe(seen)


def test_an_unaligned_barrier_passes_the_end_of_a_channels_resent_state():
    """Found by a real run: after a restore the sink takes checkpoint 2's unaligned barrier on
    one source's channel, whose re-sent output state it has read, while the other channel still
    re-sends (the barrier overtook the channel's EndOfChannelStateEvent).  A gate that keeps
    such a channel closed until every channel's event arrived rejects the run; the witness
    names the step the model takes."""
    res = validate(read_run(DURING_RECOVERY), all_designs()["flink-unaligned"])
    assert res.validated and "a-barrier-passes-the-end-of-resent-state" in res.witnesses, describe(res)


def test_a_timeoutable_barrier_waits_in_a_local_channels_subpartition():
    """Found by a real run (aligned-timeout, two sources, the sink restarted): with one source's
    re-sent output still unread, the other source's barrier of checkpoint 3 waits at the head of
    its local channel, its sender's timer makes it a priority one, and the sink completes the
    checkpoint and commits before it reads the re-sent (1, 2).  A model that took an event at a
    channel's head as already in the consumer's input channel (``consumer_end`` before the fix)
    rejected it after 35 of 51 events."""
    res = validate(read_run(LOCAL_CHANNEL), all_designs()["flink-unaligned-timeout"])
    assert res.validated and "switch-to-unaligned" in res.witnesses, describe(res)


@pytest.mark.deep
@pytest.mark.parametrize("path, option", [(OVERTAKE, "rpcs_overtake"), (FINISHED_TRIGGERED, "late_finish_reports")],
                         ids=["overtaking", "finished-source"])
def test_a_whole_run_validates_only_with_the_scope_option_it_showed(path, option):
    unaligned = all_designs()["flink-unaligned"]
    run = read_run(path)
    assert validate(run, unaligned).validated
    assert not validate(run, unaligned, **{option: False}).validated


RESCALE = RUNS / "unaligned-rescale-p1.jsonl"


def test_a_restart_at_another_parallelism_is_a_behaviour_of_the_model():
    """A real run: the keyed job is cancelled once checkpoint 1 completed (its channel state
    holds records a barrier overtook) and restarted from it with the sink at parallelism 2; the
    restarted job numbers its checkpoints on from 1, reusing 2, which the model's coordinator
    does not (``_rescale_ids``).  The model's run rescales, restores the channel state at the
    new parallelism and filters the replica a key group's new owner does not own."""
    res = validate(read_run(RESCALE), all_designs()["flink-unaligned"])
    assert res.validated, describe(res)
    assert {"the-job-is-rescaled", "a-rescale-restores-channel-state", "a-replica-is-filtered"} <= set(res.witnesses), res.witnesses


def test_a_record_the_rescaled_job_routes_to_the_wrong_subtask_is_not_a_behaviour(tmp_path):
    """Doctored: after the restart, a restored record is written by sink[0] where its key group
    belongs to sink[1] (``KeyGroupRangeAssignment``)."""
    rows = _lines(RESCALE)
    at = next(k for k, r in enumerate(rows) if r.get("event") == "rescale")
    k = next(k for k in range(at, len(rows)) if rows[k].get("event") == "invoke" and rows[k]["subtask"] == 1)
    rows[k] = {**rows[k], "subtask": 0}
    res = validate(read_run(_write(tmp_path, rows)), all_designs()["flink-unaligned"])
    assert res.complete and not res.validated
    assert any(e.kind == "invoke" for e in res.mismatch.next_events), describe(res)


def test_a_restart_with_unaligned_checkpoints_off_restores_the_channel_state_into_an_aligned_job(monkeypatch):
    """A real run of Flink 2.3.0: the keyed job is cancelled once unaligned checkpoint 1 completed
    (its barrier overtook (0, 0) and (0, 1), the source's output state) and restarted from it with
    unaligned checkpoints off.  The source re-sends both records; aligned checkpoint 2 is
    triggered after the sink read (0, 0) and before it read (0, 1), and the sink's snapshot of 2
    comes after (0, 1): the aligned barrier waits behind the re-sent record (without checkpoints
    during recovery, which Flink 2.3.0 does not promise otherwise).  The model's run restarts with
    ``restart_aligned``; a model whose aligned job restored no channel state (as before the scope
    option) cannot record the sink reading (0, 0) again."""
    from ckptcheck.model.protocol import FlinkModel

    run = read_run(RUNS / "unaligned-restart-aligned-p1.jsonl")
    kinds = [(e.kind, e.get("record") or e.get("checkpoint")) for e in run.events]
    restart = kinds.index(("rescale", 1))
    assert kinds[restart:].index(("trigger", 2)) < kinds[restart:].index(("invoke", (0, 1)))
    unaligned = all_designs()["flink-unaligned"]
    res = validate(run, unaligned)
    assert res.validated, describe(res)
    assert "an-aligned-restart-restores-channel-state" in res.witnesses, res.witnesses
    monkeypatch.setattr(FlinkModel, "restores_channel_state", property(lambda self: self.unaligned))
    lost = validate(run, unaligned)
    assert lost.complete and not lost.validated


def test_late_finish_reports_let_a_trigger_reach_a_finished_task_and_the_baseline_still_holds():
    """``Scope.late_finish_reports`` (what validate's scopes use): the JobManager's plan counts a
    task whose finish it has not processed as running, so a trigger RPC can reach the finished
    task and the checkpoint aborts uncounted.  Every property still holds; the figures are
    golden counts (a change to the rule moves them)."""
    from ckptcheck.specs.scopes import scope

    sc = scope("keyed-2x1", records_per_split=0, max_checkpoints=2, max_failures=0, max_declines=0,
               max_lost_notifications=0, staggered_triggers=True)
    assert _without_and_with(BASELINE, sc, "late_finish_reports", "a-trigger-reaches-a-finished-task") == (4164, 9349)


def test_an_abort_keeps_the_gateways_it_reopened():
    """Found with ``late_finish_reports``: an abort reopens the readers' gateways closed for the
    checkpoint (``OperatorCoordinatorHolder.notifyCheckpointAborted``) and delivers the split
    event held there; ``CheckpointCoordinator.abort`` then wrote back the coordinator it had
    read before the notices, so the gateway stayed marked with the event still held, and the
    reader got the split a second time at its next snapshot, from offset 0 again (a record read
    twice, a checkpoint that is not a consistent cut)."""
    from ckptcheck.model.actions import AssignSplit, FinishReported, Notify, TriggerCheckpoint
    from ckptcheck.model.actions import Ack, Deliver, EmitRecord, EndOfInput
    from ckptcheck.specs.scopes import enumerator_default_scope
    from ckptcheck.specs.spec import Spec

    spec = Spec(BASELINE, enumerator_default_scope().with_(max_failures=0, max_declines=0, max_checkpoints=3,
                                                            late_finish_reports=True))
    w = spec.initial_states()[0]
    steps = [EmitRecord(2), EndOfInput(2), TriggerCheckpoint(1), Notify(0, 1, "trigger"), Deliver(0), Ack(0, 1),
             Ack(1, 1), Notify(2, 1, "trigger"), Ack(2, 1), Notify(0, 1, "complete"), Notify(2, 1, "complete"),
             TriggerCheckpoint(2), AssignSplit(0, 0), FinishReported(2), Notify(2, 2, "trigger")]
    for a in steps:
        assert a in spec.model.enabled(w), (a, spec.model.enabled(w))
        w = spec.model.step(w, a)
    assert not w.coord.pending and w.tasks[0].split == 0
    assert w.coord.gateways == () and w.coord.held == ()


def test_a_rescaled_subtask_declines_a_checkpoint_until_its_recovery_ends():
    """Found by real runs: after the restart at parallelism 2, the first checkpoint's unaligned
    barrier reaches sink[1] before it read its channels' end of re-sent state; Flink's
    ``RescalingStreamTaskNetworkInput.prepareSnapshot`` declines (TASK_NOT_READY), the other
    subtasks' shared channel-state file fails with it (CHANNEL_STATE_SHARED_STREAM_EXCEPTION),
    nothing is counted and the job goes on.  With ``rescaled_tasks_decline`` the model records
    it; a subtask that takes the checkpoint, as the preset scopes let it, cannot."""
    run = read_run(RUNS / "rescaled-task-declines.jsonl")
    unaligned = all_designs()["flink-unaligned"]
    res = validate(run, unaligned)
    assert res.validated and "the-job-is-rescaled" in res.witnesses, describe(res)
    taken = validate(run, unaligned, rescaled_tasks_decline=False)
    assert taken.complete and not taken.validated
    # its furthest run can only abort the checkpoint by a counted decline, which fails the job over
    assert any(s.startswith("Decline(") for s in taken.mismatch.path), describe(taken)


@pytest.mark.claims
def test_rescaled_tasks_decline_in_a_small_rescale_scope_and_flink_unaligned_still_holds():
    """``Scope.rescaled_tasks_decline`` (what validate's scopes use) in a scope with a restart at
    parallelism 2: a rescaled subtask declines a barrier that reaches it before its recovery
    ended, and every property still holds (16 s with one worker, measured once).  Golden counts:
    a change to the rule moves them."""
    from ckptcheck.specs.scopes import scope

    unaligned = all_designs()["flink-unaligned"]
    sc = scope("keyed-1x1", records_per_split=1, max_checkpoints=2, max_failures=0, max_declines=0,
               max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=1, staggered_triggers=True)
    assert _without_and_with(unaligned, sc, "rescaled_tasks_decline",
                             "a-rescaled-task-declines-while-recovering") == (80578, 161974)


INCREMENTAL_RUN = RUNS / "incremental-late-confirmation-p2.jsonl"


def _the_registry_path(run) -> dict:
    """The recording's own account of rows T1/T2's path: the sink's snapshot of 2 before the
    completion of 1 (so before its notice), the notice of 1 before its snapshot of 3, checkpoint
    2 completed before 3, the snapshot of 3's base pruned of checkpoint 1's re-uploaded files, and
    no acknowledgement refused."""
    seq = {}
    for e in run.events:
        key = (e.kind, e.task, e.get("checkpoint"))
        seq.setdefault(key, e.seq)
    return seq


def test_a_late_confirmation_on_flink_prunes_the_base_and_every_checkpoint_completes():
    """Review rows T1/T2 settled on Flink 2.3.0 (recorded from the validate configuration
    incremental-late-confirmation-p2 as ``random.Random(1)`` draws it: 21 records per split, a
    checkpoint every 80 ms; RocksDB, incremental checkpoints, two at most
    pending, the snapshots' asynchronous parts held so that the notice of checkpoint 1 reaches
    the sink after its snapshot of 2, and its acknowledgement of 3 the JobManager after 2
    completed).  Flink prunes the re-uploaded file from the base of snapshot 3, the registry
    refuses nothing and checkpoint 3 completes; the run is a behaviour of flink-incremental
    with two concurrent checkpoints, and not of the design without the prune (the 2.0 source,
    catalog incremental-base-not-pruned), whose snapshot of 3 would name the deleted upload (the
    claims tier shows that rejection)."""
    from ckptcheck.checks.validate.matching import design_for

    run = read_run(INCREMENTAL_RUN)
    s = _the_registry_path(run)
    assert s[("snapshot", "sink", 2)] < s[("completed", "coordinator", 1)] < s[("snapshot", "sink", 3)]
    assert s[("commit", "sink", None)] < s[("snapshot", "sink", 3)]  # the notice of 1 committed txn 0 first
    assert s[("completed", "coordinator", 2)] < s[("completed", "coordinator", 3)]
    pruned = [e for e in run.events if e.kind == "base-pruned"]
    assert pruned and (pruned[0].get("checkpoint"), pruned[0].get("base")) == (3, 1)
    assert not any(e.kind == "ack-refused" for e in run.events)
    design = design_for(run, None)
    assert design.max_concurrent_checkpoints == 2 and design.incremental_checkpoints
    res = validate(run, design)
    assert res.validated and res.complete, describe(res)
    assert {"a-snapshot-prunes-files-sent-again", "two-checkpoints-pending"} <= set(res.witnesses), res.witnesses


@pytest.mark.claims  # about 40 s: a rejection searches every (state, position) pair
@pytest.mark.parametrize("recording, catalog_entry, correct, event", [
    ("incremental-late-confirmation-p2.jsonl", "incremental-base-not-pruned", False, "base-pruned"),
    ("incremental-refused-ack-p2.jsonl", "incremental-prune-misses-a-running-upload", True, "ack-refused"),
], ids=["unpruned-base", "running-uploads-pruned"])
def test_the_registry_recordings_reject_the_designs_flink_is_not(recording, catalog_entry, correct, event):
    """The design without Flink's prune cannot take the first recording (it never prunes), and the
    fix that also prunes running uploads cannot take the second (it never refuses): each is
    rejected at the first event of the kind only Flink makes."""
    from ckptcheck.checks.validate.matching import design_for
    from ckptcheck.specs.catalog import entry

    run = read_run(RUNS / recording)
    e = entry(catalog_entry)
    res = validate(run, design_for(run, e.correct if correct else e.design))
    assert not res.validated and res.complete
    assert event in " ".join(describe(res)), describe(res)


def test_a_refused_acknowledgement_on_flink_is_a_behaviour_of_flink_and_not_of_the_fix():
    """The same configuration, another run on Flink 2.3.0: the sink's snapshot of 5, after the
    notice of 3, was taken while its snapshot of 4 still uploaded, so Flink's prune did not see
    the files 4 sent again; 4's completion deleted checkpoint 3's upload of them, and the
    registry refused the acknowledgement of 5 ("Attempt to reference unknown state", the
    recording's ack-refused after "completed 4").  It is a behaviour of flink-incremental with two concurrent
    checkpoints (an upload reaches uploadedSstFiles when its asynchronous part ends), and not of
    the fix that also prunes the uploads still running (catalog
    incremental-prune-misses-a-running-upload; the claims tier shows the rejection)."""
    from ckptcheck.checks.validate.matching import design_for

    run = read_run(RUNS / "incremental-refused-ack-p2.jsonl")
    assert [e.kind for e in run.events].count("ack-refused") == 1
    res = validate(run, design_for(run, None))
    assert res.validated and res.complete, describe(res)


@pytest.mark.claims
@needs_flink[0]
@needs_flink[1]
def test_the_late_confirmation_path_recorded_here_is_validated(tmp_path, capsys):
    """The registry run again, on this machine's Flink jar (about 10 s with the compile): the
    configuration's gates produce the path (the sink's base pruned), and the recording is a
    behaviour of the model, whether or not the registry refused an acknowledgement in it."""
    from ckptcheck.checks.validate import recorder
    from ckptcheck.checks.validate.matching import design_for
    import random

    dist = flinkjvm.open_dist(None)
    cfg = recorder.draw("incremental-late-confirmation-p2", random.Random(1))
    path = recorder.record(dist, recorder.compile_job(dist), cfg, tmp_path / "run.jsonl")
    run = read_run(path)
    s = _the_registry_path(run)
    assert s[("snapshot", "sink", 2)] < s[("completed", "coordinator", 1)] < s[("snapshot", "sink", 3)]
    assert any(e.kind == "base-pruned" for e in run.events)
    res = validate(run, design_for(run, None))
    assert res.validated, describe(res)
