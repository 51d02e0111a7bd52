"""The Spark job: generate and replay modes on local[2], malformed input set aside, Java check."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (pip install -e '.[test]' installs it)")

from ckptcheck.checks.run import spark  # noqa: E402
from ckptcheck.checks.run.api import check, save_traces  # noqa: E402
from ckptcheck.specs.catalog import entry  # noqa: E402
from ckptcheck.specs.designs import BASELINE  # noqa: E402
from ckptcheck.specs.errors import InputError  # noqa: E402
from ckptcheck.specs.scopes import scope  # noqa: E402

SMALL = scope("keyed-2x2", max_checkpoints=1, max_failures=1, max_declines=1, max_lost_notifications=0)


def quiet(_msg: str) -> None:
    pass


@pytest.mark.claims  # 15.7 s; the default run keeps the Spark replay tests
def test_generate_is_reproducible_across_partitionings(tmp_path):
    a = spark.run_generate(BASELINE, SMALL, walks=60, max_steps=80, seed=5, partitions=2, out=tmp_path / "a", master="local[2]", say=quiet)
    b = spark.run_generate(BASELINE, SMALL, walks=60, max_steps=80, seed=5, partitions=7, out=tmp_path / "b", master="local[2]", say=quiet)
    assert a["traces"] == 60 and a["violations"] == {}
    assert (a["steps"], a["distinct_states"], a["action_counts"]) == (b["steps"], b["distinct_states"], b["action_counts"])
    assert a["distinct_states"] > 500
    assert set(a["action_counts"]) >= {"EmitRecord", "Deliver", "TriggerCheckpoint", "Ack", "Notify", "FailTask", "Decline", "Restore"}
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["traces"] == 60 and summary["master"] == "local[2]"


@pytest.mark.claims  # 14.8 s with the Spark session start (the default run was 289 s)
def test_generate_finds_a_broken_variant_and_writes_its_report(tmp_path):
    e = entry("commit-at-pre-commit")
    s = spark.run_generate(e.design, e.scope, walks=1500, max_steps=80, seed=1, partitions=4, out=tmp_path, master="local[2]", say=quiet)
    # a walk stops at its first violation: committing at pre-commit is visible at once as a
    # commit that the latest completed checkpoint does not cover (the duplicate comes later)
    assert s["violations"].get("committed-output-covered", 0) > 0
    path = Path(s["shortest_counterexamples"]["committed-output-covered"])
    from ckptcheck.checks.run.trace import load_trace_file, replay

    assert replay(load_trace_file(str(path)), str(path)).reproduced
    assert not (tmp_path / "report").exists()  # the Spark job writes results; the report is drawn from them
    from ckptcheck.checks.run.report import write_spark_report

    write_spark_report(s, tmp_path)
    assert (tmp_path / "report" / "report.html").exists()


@pytest.mark.claims  # about 20 s of Spark; the default tier keeps Spark replay and its golden counts
def test_replay_sets_malformed_lines_aside_and_checks_the_rest(tmp_path):
    good = []
    for name in ("no-alignment-block", "cleaner-deletes-restore-checkpoint"):
        e = entry(name)
        r = check(e.design, e.scope, stop_at=e.violates)
        good += [json.loads(p.read_text()) for p in save_traces(r, tmp_path / "t")]
    base = good[0]
    unknown = {**base, "actions": [{"type": "Teleport"}]}
    not_enabled = {**base, "actions": [{"type": "Ack", "task": "sink[0]", "checkpoint": 9}], "violation": None}
    version = {**base, "version": 99}
    clean = {**base, "actions": base["actions"][:3], "violation": None}
    lines = [json.dumps(d) for d in good] + ["{not json", json.dumps(unknown), json.dumps(not_enabled), json.dumps(version), json.dumps(clean)]
    f = tmp_path / "traces.jsonl"
    f.write_text("\n".join(lines) + "\n")
    s = spark.run_replay([str(f)], out=tmp_path / "out", master="local[2]", say=quiet)
    assert s["traces"] == 3  # the two counterexamples and the clean prefix were checked
    assert s["malformed"] == 4
    assert s["malformed_reasons"] == {"not valid JSON": 1, "unknown action": 1, "action not enabled": 1, "version": 1}
    assert s["violations"] == {"checkpoints-consistent": 1, "checkpoints-restorable": 1}
    # each set-aside line is named by file and line number, in file order
    assert [src for src, _ in s["malformed_examples"]] == [f"{f}:{n}" for n in (3, 4, 5, 6)]
    assert s["malformed_examples"][0][1].startswith("not valid JSON")


def test_replay_reads_parquet(tmp_path):
    e = entry("no-alignment-block")
    r = check(e.design, e.scope, stop_at=e.violates)
    (p,) = save_traces(r, tmp_path)
    session = spark.spark_session("local[2]")
    session.createDataFrame([(p.read_text(),)], "trace string").write.parquet(str(tmp_path / "in.parquet"))
    s = spark.run_replay([str(tmp_path / "in.parquet")], out=tmp_path / "out", master="local[2]", say=quiet)
    assert s["traces"] == 1 and s["violations"] == {"checkpoints-consistent": 1}
    rows = session.read.parquet(str(tmp_path / "out" / "verdicts.parquet")).collect()
    assert rows[0]["verdict"] == "violated" and rows[0]["step"] == len(r.violated[0].trace)


def test_missing_java_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    with pytest.raises(InputError, match="Spark needs Java 17 or newer; no java found"):
        spark.java_major_version()


# --- the exhaustive search on Spark (--engine spark) --------------------------------------------


def _outline(result) -> tuple:
    s = result.stats
    lengths = {v.property: (v.status, len(v.trace) if v.trace else None) for v in result.verdicts}
    return s["states"], s["transitions"], s["depth"], s["quiescent_states"], result.complete, lengths


@pytest.mark.claims
def test_spark_engine_searches_the_same_space_as_the_local_engine(tmp_path):
    """K5 (no bound on consecutive regional checkpoints): the whole scope (2,574 states), with a violation of
    12 steps and five witnesses.  The Spark search must count the same states and transitions,
    reach the same depth, and find every discovery at the same length; its counterexample is a
    trace that replays."""
    e = entry("K5-no-consecutive-limit")
    local = check(e.design, e.scope, stop_at="never-stop")
    on_spark = check(e.design, e.scope, "spark", stop_at="never-stop", master="local[2]", partitions=3)
    assert local.stats["states"] == 2574 and local.complete
    assert _outline(on_spark) == _outline(local)
    assert on_spark.stats["engine_detail"] == "Spark local[2], 3 partitions, id vectors"
    assert on_spark.outcome == "violated" and on_spark.searched_whole_scope
    (path,) = save_traces(on_spark, tmp_path)
    from ckptcheck.checks.run.trace import load_trace_file, replay

    assert replay(load_trace_file(str(path)), str(path)).reproduced


@pytest.mark.claims  # kept out of the default run for its time; the deep run has it
def test_spark_engine_from_the_command_line_and_its_refusals(tmp_path, capsys):
    from ckptcheck.checks.cli.main import main

    # the catalog entry's scope; the regional default scope has instant acks since they were made exact for FLIP-600
    # (293 symmetry classes, found in 9 steps; the full model: 955 and 14)
    k4_scope = ["--job", "forward-2x2", "--records", "0", "--unbounded", "--checkpoints", "2", "--failures", "0",
                "--declines", "1", "--timeouts", "0", "--lost-notifications", "0"]  # the catalog entry's scope
    code = main(["check", "--design", "K4-retention-ignores-refs", *k4_scope, "--engine", "spark", "--master", "local[2]",
                 "--partitions", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "spark (BFS, exhaustive, symmetry reduction on, fingerprints, Spark local[2], 2 partitions, id vectors): 293 distinct states" in out
    assert re.search(r"checkpoints-restorable +VIOLATED after 9 steps", out)
    traces = sorted(tmp_path.rglob("*checkpoints-restorable*.trace.json"))
    assert traces, sorted(p.name for p in tmp_path.rglob("*"))
    from ckptcheck.checks.run.trace import load_trace_file, replay

    assert replay(load_trace_file(str(traces[0])), str(traces[0])).reproduced, "the Spark counterexample replays"
    # options of another engine are named as ignored, never silently dropped
    assert main(["check", "--design", "K4-retention-ignores-refs", *k4_scope, "--engine", "explore", "--partitions", "2",
                 "--max-depth", "3", "--out", str(tmp_path)]) == 3
    assert "--partitions applies to --engine spark" in capsys.readouterr().err


def _counts(o) -> tuple:
    return (o.states, o.transitions, o.depth, o.quiescent_states, o.complete,
            {k: len(d.path) for k, d in o.discoveries.items()})


@pytest.mark.claims  # 70 s
def test_spark_on_id_vectors_searches_a_rescale_as_the_memo_engine_does():
    """States cross the shuffle as the digests of their values, and each executor expands them
    with the memo tables (``sparkmemo``): on a scope with a rescale (two vector layouts) and one
    with symmetry, the same states, transitions, depth, quiescent states and discovery lengths
    as the local memo engine, the values made on one executor learnt by the others.  Then the
    same search with pickled worlds (``vectors=False``) counts the same."""
    from ckptcheck.checks.engine import Discovery, ExploreOutcome, search
    from ckptcheck.checks.engine.explore import search_bounds
    from ckptcheck.checks.engine.sparkbfs import spark_search
    from ckptcheck.model.protocol import fitted
    from ckptcheck.specs import scopes as S
    from ckptcheck.specs.designs import PRESETS
    from ckptcheck.specs.spec import Spec

    for design, sc, symmetry in (("flink-unaligned-timeout", S.rescaled_recovery_scope(), False),
                                 ("flip600-regional", S.regional_chain_scope(), True)):
        spec = Spec(PRESETS[design], fitted(PRESETS[design], sc), symmetry=symmetry)
        local = search(spec, "memo")
        runs = {}
        for vectors in (True, False):
            out = ExploreOutcome()
            spark_search(spec, out, Discovery, search_bounds(spec, lambda found: False, None, None, None, None),
                         master="local[2]", partitions=3, vectors=vectors)
            runs[vectors] = out
        assert local.states > 1000 and local.complete, (design, local.states)
        assert _counts(runs[True]) == _counts(local), design
        assert _counts(runs[False]) == _counts(local), design
        assert runs[True].engine_detail.endswith("id vectors") and runs[False].engine_detail.endswith("pickled worlds")


_ON_A_CLUSTER = """
import json, sys
from ckptcheck.checks.run.api import check
from ckptcheck.specs.catalog import entry
e = entry("K5-no-consecutive-limit")
r = check(e.design, e.scope, "spark", stop_at="never-stop", master=sys.argv[1], partitions=4)
lengths = {v.property: (v.status, len(v.trace) if v.trace else None) for v in r.verdicts}
print(json.dumps([r.stats["states"], r.stats["transitions"], r.stats["depth"], r.stats["quiescent_states"],
                  r.complete, lengths, r.stats["engine_detail"]]))
"""


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.claims  # 37 s
def test_spark_on_id_vectors_counts_the_same_on_a_standalone_cluster(tmp_path):
    """A Spark standalone master and two workers (one core each) started on 127.0.0.1 with
    pyspark's ``bin/spark-class``: the search on id vectors over them counts what the local
    engine counts on K5's scope, with the same verdicts and counterexample lengths."""
    import json
    import os
    import socket
    import subprocess
    import sys
    import time

    import pyspark

    home = Path(pyspark.__file__).parent
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "SPARK_LOG_DIR": str(tmp_path), "SPARK_WORKER_DIR": str(tmp_path / "work")}
    port = _free_port()
    url = f"spark://127.0.0.1:{port}"
    klass = "org.apache.spark.deploy."
    daemons = [subprocess.Popen([str(home / "bin" / "spark-class"), klass + "master.Master", "--host", "127.0.0.1",
                                 "--port", str(port), "--webui-port", str(_free_port())],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the master did not start"
                time.sleep(0.5)
        for _ in range(2):
            daemons.append(subprocess.Popen([str(home / "bin" / "spark-class"), klass + "worker.Worker", url, "--host",
                                             "127.0.0.1", "--cores", "1", "--memory", "2g", "--webui-port", str(_free_port())],
                                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        run = subprocess.run([sys.executable, "-c", _ON_A_CLUSTER, url], env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-3000:]
        states, transitions, depth, quiescent, complete, lengths, detail = json.loads(run.stdout.strip().splitlines()[-1])
    finally:
        for d in daemons:
            d.terminate()
        for d in daemons:
            d.wait(timeout=30)
    e = entry("K5-no-consecutive-limit")
    local = check(e.design, e.scope, "memo", stop_at="never-stop")
    assert detail == f"Spark {url}, 4 partitions, id vectors"
    assert [states, transitions, depth, quiescent, complete] == [local.stats["states"], local.stats["transitions"],
                                                                 local.stats["depth"], local.stats["quiescent_states"], True]
    assert {k: tuple(v) for k, v in lengths.items()} == \
        {v.property: (v.status, len(v.trace) if v.trace else None) for v in local.verdicts}


def test_byte_ranges_read_every_nonblank_line_once_with_its_file_line_number(tmp_path):
    """The workers read JSON-lines inputs by byte range: a line cut by a range's end belongs to
    the range it starts in, blank lines are skipped but counted, CRLF endings are dropped, and a
    multi-byte character may straddle a cut."""
    import random

    rng = random.Random(7)
    for trial in range(150):
        lines = [rng.choice(["", "  ", "x" * rng.randrange(1, 20), "é" * rng.randrange(1, 5)]) for _ in range(rng.randrange(0, 30))]
        text = "\n".join(lines) + rng.choice(["", "\n"])
        if trial % 3 == 0:
            text = text.replace("\n", "\r\n")
        path = tmp_path / f"t{trial}.jsonl"
        path.write_bytes(text.encode("utf-8"))
        expected = [(f"{path}:{i + 1}", line.rstrip("\r")) for i, line in enumerate(text.split("\n")) if line.strip()]
        for parts in (1, 2, 3, 7, 50):
            got = [x for r in spark.line_ranges(str(path), parts) for x in spark.read_line_range(r)]
            assert got == expected, (trial, parts, text)
