"""Bad trace input and Spark options from the usability review (section 2.1): a long trace is
answered in time linear in its length (#77), a deeply nested one in one line (N48), ``spark
replay`` reads a ``.trace.json`` as one trace and refuses input that holds none (N77, N78, N83),
a master URL Spark does not take is one line (N85), and so is ``--engine spark`` without
PySpark (N88).  Each refusal: exit 2, one line on stderr, no traceback, nothing written."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from ckptcheck.checks.run import spark
from ckptcheck.checks.cli.main import main
from ckptcheck.specs.errors import InputError

TRACE = Path(__file__).resolve().parents[2] / "data" / "flip600-max1--ref-chain-bounded.trace.json"
TINY = ["--job", "forward-2x2", "--checkpoints", "0", "--failures", "0", "--declines", "0", "--lost-notifications", "0"]
NOT_ENABLED = {"type": "Ack", "task": "sink[0]", "checkpoint": 9}


def answer(args, capsys) -> tuple[int, list[str]]:
    """The exit status and the lines on stderr; no traceback may be among them."""
    code = main(args)
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    return code, err.strip().splitlines()


def long_trace(folder: Path, n: int) -> Path:
    """A committed trace lengthened to ``n`` actions, its 7th not enabled."""
    doc = json.loads(TRACE.read_text())
    acts = doc["actions"]
    doc.update(actions=acts[:6] + [NOT_ENABLED] + [acts[0]] * (n - 7), violation=None)
    path = folder / f"long{n}.trace.json"
    path.write_text(json.dumps(doc, indent=2))
    return path


def test_a_long_trace_is_answered_in_time_linear_in_its_length(tmp_path, capsys):
    """#77: 20,000 actions took 60 times as long as 2,000 (the Rescale actions were recounted for
    every action); linear reading takes about 10 times, and never 30."""
    short, long_ = long_trace(tmp_path, 2_000), long_trace(tmp_path, 20_000)

    def timed(path: Path) -> float:
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            code, lines = answer(["replay", str(path)], capsys)
            best = min(best, time.perf_counter() - t0)
            assert code == 2 and lines == [f"ckptcheck: {path}: actions[6]: Ack(sink[0], 9) is not enabled at step 7"], lines
        return best

    t_short, t_long = timed(short), timed(long_)
    assert t_long < 30 * t_short, f"2,000 actions in {t_short:.3f}s, 20,000 in {t_long:.3f}s: not linear"


@pytest.mark.parametrize("command", [["replay"], ["report", "--out", "{d}/o"], ["itf", "--out", "{d}/o/x.itf.json"]])
def test_a_deeply_nested_trace_is_one_line(tmp_path, capsys, command):
    """N48: 100,000 nested [ was a RecursionError traceback."""
    deep = tmp_path / "deep.trace.json"
    deep.write_text("[" * 100_000)
    args = [command[0], str(deep), *(a.format(d=tmp_path) for a in command[1:])]
    assert answer(args, capsys) == (2, [f"ckptcheck: {deep}: trace: nested too deeply to be a trace"])
    assert not (tmp_path / "o").exists()


def test_a_deeply_nested_line_is_set_aside_by_spark_replay():
    """N48 on the Spark workers: the line is set aside with its reason, the job goes on."""
    rows = list(spark.replay_partition([("deep.jsonl:1", "[" * 100_000)]))
    assert rows[0] == ("row", "deep.jsonl:1", 0, "malformed", None, None, "nested too deeply to be a trace")
    agg = rows[-1][1]
    assert (agg["traces"], agg["malformed"], agg["malformed_reasons"]) == (0, 1, {"nested too deeply": 1})


def test_spark_replay_reads_each_trace_file_as_one_trace(tmp_path):
    """A .trace.json as ``check`` writes it (many lines) is one trace, alone or in a folder;
    JSON lines stay one trace a line."""
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "a.trace.json").write_text(TRACE.read_text())
    (folder / "b.trace.json").write_text(json.dumps(json.loads(TRACE.read_text()), indent=4))
    (folder / "notes.txt").write_text("not a trace\n")  # a folder's files that hold no trace are passed over
    lines = tmp_path / "two.jsonl"
    lines.write_text(json.dumps(json.loads(TRACE.read_text())) + "\n" + json.dumps(json.loads(TRACE.read_text())) + "\n")
    plan = spark.check_inputs([str(TRACE), str(folder), str(lines)])
    assert plan == [(str(TRACE), "document"), (str(folder / "a.trace.json"), "document"),
                    (str(folder / "b.trace.json"), "document"), (str(lines), "lines")]


@pytest.mark.claims  # about 17 s of a Spark job; the default tier keeps the input plan above
def test_spark_replay_of_trace_files_on_spark(tmp_path, capsys):
    """N77: ``spark replay good.trace.json`` set aside each of its 145 lines and said 0 traces, exit 0."""
    pytest.importorskip("pyspark", reason="PySpark is not installed: pip install -e '.[test]' brings it")
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "copy.trace.json").write_text(TRACE.read_text())
    out = tmp_path / "out"
    code = main(["spark", "replay", str(TRACE), str(folder), "--out", str(out), "--master", "local[2]"])
    assert code == 1, capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["traces"], summary["malformed"], summary["violations"]) == (2, 0, {"ref-chain-bounded": 2})
    assert summary["steps"] == 2 * len(json.loads(TRACE.read_text())["actions"])


@pytest.mark.parametrize("make", [
    lambda d: (d / "blob.jsonl").write_bytes(bytes(range(256)) * 40) and d / "blob.jsonl",
    lambda d: ((d / "junk").mkdir(), (d / "junk" / "a.txt").write_text("hello\n"),
               (d / "junk" / "b.csv").write_text("a,b\n1,2\n")) and d / "junk",
])
def test_spark_replay_of_input_that_holds_no_trace_is_refused(tmp_path, capsys, make):
    """N78, N83: a binary blob and a folder of text files were "no violation in 0 traces", exit 0."""
    path = make(tmp_path)
    code, lines = answer(["spark", "replay", str(path), "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith(f"ckptcheck: {path}: traces: no trace in the input: nothing in ")
    assert "is a ckptcheck trace" in lines[0]
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("args", [
    ["spark", "generate", "--walks", "1", "--master", "nosuch://x", "--out", "{d}/o"],
    ["spark", "replay", str(TRACE), "--master", "local[0]", "--out", "{d}/o"],
    ["check", "--engine", "spark", "--master", "spark://nohostport", *TINY, "--out", "{d}/o"],
])
def test_a_master_url_spark_does_not_take_is_one_line(tmp_path, capsys, args):
    """N85: 40 lines of Java and Py4J traceback; now refused before Spark starts."""
    pytest.importorskip("pyspark", reason="PySpark is not installed: pip install -e '.[test]' brings it")
    args = [a.format(d=tmp_path) for a in args]
    master = args[args.index("--master") + 1]
    t0 = time.perf_counter()
    code, lines = answer(args, capsys)
    assert code == 2 and len(lines) == 1 and lines[0].startswith(f"ckptcheck: --master: {master}: not a Spark master URL"), lines
    assert time.perf_counter() - t0 < 3, "refused before Spark starts"
    assert not (tmp_path / "o").exists()


def test_the_master_urls_spark_takes_are_accepted():
    for ok in ("local", "local[1]", "local[16]", "local[*]", "local[4,3]", "local[*, 2]", "local-cluster[2,1,1024]",
               "spark://host:7077", "spark://h1:7077,h2:7077", "yarn", "k8s://https://10.0.0.1:443", "mesos://zk://h:2181/mesos"):
        spark.check_master(ok)
    spark.check_master(None)
    for bad in ("", "nosuch://x", "local[0]", "local[x]", "spark://host", "Local", "yarn-cluster"):
        with pytest.raises(InputError, match="not a Spark master URL"):
            spark.check_master(bad)


def test_a_spark_that_does_not_start_is_one_line(monkeypatch):
    """N85, where the URL's form is right but Spark does not start (the gateway exits)."""
    pyspark_sql = pytest.importorskip("pyspark.sql", reason="PySpark is not installed: pip install -e '.[test]' brings it")

    def fails(self):
        raise RuntimeError("[JAVA_GATEWAY_EXITED] Java gateway process exited before sending its port number.\nmore")

    monkeypatch.setattr(pyspark_sql.SparkSession.Builder, "getOrCreate", fails)
    with pytest.raises(InputError) as e:
        spark.spark_session("local[2]")
    assert str(e.value) == ("--master: local[2]: Spark did not start ([JAVA_GATEWAY_EXITED] Java gateway process exited"
                            " before sending its port number.)")


def test_check_on_spark_without_pyspark_is_one_line(tmp_path, capsys, monkeypatch):
    """N88: a ModuleNotFoundError traceback; ``spark generate`` already said it in one line."""
    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    code, lines = answer(["check", "--engine", "spark", *TINY, "--out", str(tmp_path / "o")], capsys)
    assert (code, lines) == (2, ["ckptcheck: --engine: spark: PySpark is not installed: pip install 'ckptcheck[spark]'"])
    assert not (tmp_path / "o").exists()
