"""Real Flink runs, recorded: ``checks/validate/runs/RecordedJob.java`` compiled at first use against a
Flink distribution jar and run on a local MiniCluster (``java -cp``; no cluster, no network).

A configuration (``RunConfig``) says the job's parallelism, its records, the checkpoint
interval, how fast the sources read, and the fault schedule; ``schedule(n, seed)`` draws ``n``
of them from a seed, so the same seed asks for the same runs (what Flink's threads then do is
the run's own: the recording is the evidence, not the configuration).  The job's operators
inject the faults themselves, on their first attempt only.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ckptcheck.checks.flinkjvm import FlinkDist, FlinkUnavailable, _cache_root, _first_error, _tool

RUNS_DIR = Path(__file__).with_name("runs")
MAIN = "ckptcheck.runs.RecordedJob"


@dataclass(frozen=True)
class RunConfig:
    """One real run: ``fault`` is ``none``, ``sink:S:K`` (sink subtask S fails when handed its
    record K, on its first attempt) or ``slow:S:C`` (sink subtask S's snapshot of checkpoint C
    takes three times ``timeout_ms``, the checkpoint timeout, on its first attempt: the
    checkpoint expires, and with Flink's default of no tolerable failed checkpoint the job
    fails over) or ``throw:S:C`` (that snapshot throws after its pre-commit, on the first
    attempt: a failure of the synchronous part, which fails the task).  The ``keyed-rescale``
    job's fault is the restart itself: once a checkpoint completed, the job is cancelled and
    restarted from its retained checkpoint with the sink at parallelism 2
    (``keyed-restart-aligned``: at parallelism 1 with unaligned checkpoints off)."""

    name: str
    parallelism: int
    records: int
    interval_ms: int
    throttle_ms: int
    fault: str
    timeout_ms: int = 600_000
    mode: str = "aligned"  # aligned, unaligned, or timeout:MS (aligned until an alignment takes MS)
    job: str = "forward"  # forward: source(P) -forward-> sink(P); keyed-to-one: source(P) -keyBy-> sink(1); sink-v2; keyed-rescale; keyed-restart-aligned; keyed-incremental
    sink_delay_ms: int = 0  # the sink's time per record: a slow sink backs its input up

    def args(self) -> list[str]:
        return [str(self.records), str(self.parallelism), str(self.interval_ms), str(self.throttle_ms), self.fault,
                str(self.timeout_ms), self.mode, self.job, str(self.sink_delay_ms)]

    def header(self) -> dict:
        """The header the job writes for this run (``checks.validate.runfile``)."""
        h = {"format": "ckptcheck-run", "version": 1, "job": self.job, "checkpointing": self.mode,
             "parallelism": self.parallelism, "records_per_split": self.records}
        if self.job == "keyed-incremental":
            h["max_concurrent_checkpoints"] = 2
        return h

    def describe(self) -> str:
        kind, *rest = self.fault.split(":")
        who = "writer" if self.job == "sink-v2" else "sink"
        what = ("cancelled once a checkpoint completed, restarted from it with the sink at 2" if self.job == "keyed-rescale" else
                "cancelled once a checkpoint completed, restarted from it with unaligned checkpoints off"
                if self.job == "keyed-restart-aligned" else
                "the notice of checkpoint 1 reaches the sink after its snapshot of 2, and its acknowledgement of 3 the"
                " JobManager after 2 completed (held in the snapshots' asynchronous parts)" if kind == "late-confirmation" else
                "no fault" if kind == "none" else f"{who}[{rest[0]}] fails at record ({', '.join(rest[1:])})" if kind == "sink" else
                f"sink[{rest[0]}]'s snapshot of checkpoint {rest[1]} throws" if kind == "throw" else
                f"sink[{rest[0]}]'s snapshot of checkpoint {rest[1]} outlasts the {self.timeout_ms} ms timeout")
        shape = {"forward": f"source({self.parallelism}) -forward-> 2PC sink({self.parallelism})",
                 "sink-v2": f"source({self.parallelism}) -forward-> Sink V2 writer({self.parallelism}) -forward-> committer",
                 "keyed-incremental": f"source({self.parallelism}) -keyBy-> 2PC sink(1) with keyed state in RocksDB,"
                                      " incremental checkpoints, two at most pending",
                 }.get(self.job, f"source({self.parallelism}) -keyBy-> 2PC sink(1)")
        mode = {"aligned": "aligned", "unaligned": "unaligned"}.get(self.mode, f"aligned, unaligned after {self.mode[8:]} ms")
        slow = f", the sink {self.sink_delay_ms} ms a record" if self.sink_delay_ms else ""
        return (f"{self.name}: {shape}, {self.records} records per split, one every {self.throttle_ms} ms{slow},"
                f" {mode} checkpoints every {self.interval_ms} ms, {what}")


CONFIGURATIONS = ("aligned-failure-p1", "aligned-failure-p2", "timeout-p1", "timeout-p2",
                  "unaligned-backpressure-p1", "unaligned-backpressure-p2", "alignment-timeout-p2", "sink-v2-p1",
                  "rescale-p1", "unaligned-rescale-p1", "snapshot-failure-p2", "sink-v2-p2",
                  "incremental-late-confirmation-p2", "unaligned-restart-aligned-p1")


def draw(kind: str, rng: random.Random) -> RunConfig:
    """A run of configuration ``kind``, its numbers drawn from ``rng``."""
    p = 2 if kind.endswith("p2") else 1
    records = rng.randint(2, 4)
    interval, throttle = rng.choice((60, 80, 100, 150)), rng.choice((30, 50, 70))
    if kind == "unaligned-restart-aligned-p1":  # a slow sink, then the restart with unaligned checkpoints off
        return RunConfig(kind, p, rng.randint(2, 3), rng.choice((60, 80, 100)), rng.choice((5, 10)), "none",
                         mode="unaligned", job="keyed-restart-aligned", sink_delay_ms=rng.choice((40, 60)))
    if kind.endswith("rescale-p1"):  # keyed-rescale: cancelled once a checkpoint completed, restarted with the sink at 2
        if kind.startswith("unaligned"):  # a slow sink: barriers overtake records, the restore rescales channel state
            return RunConfig(kind, p, rng.randint(2, 3), rng.choice((60, 80, 100)), rng.choice((5, 10)), "none",
                             mode="unaligned", job="keyed-rescale", sink_delay_ms=rng.choice((40, 60)))
        return RunConfig(kind, p, records, interval, throttle, "none", job="keyed-rescale")
    if kind.startswith("incremental-late-confirmation"):  # keyed-incremental: checkpoint 1 confirmed after snapshot 2
        return RunConfig(kind, 2, rng.randint(20, 30), rng.choice((60, 80, 100)), 10, "late-confirmation",
                         timeout_ms=30_000, job="keyed-incremental")
    if kind.startswith("snapshot-failure"):  # a sink subtask's snapshot throws: Flink fails the task
        return RunConfig(kind, p, records, interval, throttle, f"throw:{rng.randrange(p)}:{rng.randint(1, 2)}")
    if kind.startswith("sink-v2"):  # a Sink V2 writer (the fault's subtask) and its committer
        return RunConfig(kind, p, records, interval, throttle, f"sink:{rng.randrange(p)}:{rng.randrange(records)}",
                         job="sink-v2")
    if kind.startswith("timeout"):
        return RunConfig(kind, p, records, interval, throttle, f"slow:{rng.randrange(p)}:{rng.randint(1, 2)}", 200)
    if kind.startswith(("unaligned", "alignment")):  # a slow sink behind a keyBy: records queue, barriers overtake them
        records = rng.randint(2, 3)
        split = rng.randrange(p)
        mode = "unaligned" if kind.startswith("unaligned") else f"timeout:{rng.choice((10, 20, 40))}"
        return RunConfig(kind, p, records, rng.choice((60, 80, 100)), rng.choice((5, 10)),
                         f"sink:0:{split}:{rng.randrange(records)}", mode=mode, job="keyed-to-one",
                         sink_delay_ms=rng.choice((40, 60)))
    return RunConfig(kind, p, records, interval, throttle, f"sink:{rng.randrange(p)}:{rng.randrange(records)}")


def schedule(n: int, seed: int) -> list[RunConfig]:
    """``n`` runs, the configurations in turn, their numbers from ``seed``."""
    rng = random.Random(seed)
    return [draw(CONFIGURATIONS[k % len(CONFIGURATIONS)], rng) for k in range(n)]


def compile_job(dist: FlinkDist) -> Path:
    """The job compiled against ``dist`` (cached by jar and source); the class folder."""
    src = sorted(RUNS_DIR.glob("*.java"))
    st = dist.jar.stat()
    h = hashlib.sha256(f"{dist.jar}:{st.st_size}:{st.st_mtime_ns}".encode())
    for f in src:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    out = _cache_root().with_name("runs") / h.hexdigest()[:16]
    if (out / "ok").exists():
        return out
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    r = subprocess.run([_tool("javac"), "-nowarn", "-encoding", "UTF-8", "-d", str(tmp), "-cp", _classpath(dist),
                        *map(str, src)], capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise FlinkUnavailable(f"--flink-dist: {dist.jar}: the recorded job does not compile against it: {_first_error(r.stderr)}")
    (tmp / "ok").write_text("")
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out


def _classpath(dist: FlinkDist) -> str:
    """The distribution jar and the jars next to it (log4j, which the job listens to)."""
    return os.pathsep.join([str(dist.jar), str(dist.jar.parent / "*")])


class RunFailed(RuntimeError):
    """The job did not finish: its last output lines say why."""


def record(dist: FlinkDist, classes: Path, cfg: RunConfig, out: Path, timeout: float = 180) -> Path:
    """Run ``cfg`` on a MiniCluster and write its recording to ``out``."""
    cmd = [_tool("java"), "-cp", os.pathsep.join([_classpath(dist), str(classes)]), MAIN, str(out), *cfg.args()]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RunFailed(f"{cfg.name}: the job did not finish within {timeout:g} s") from None
    if "RESULT finished" not in r.stdout:
        tail = (r.stdout + r.stderr).strip().splitlines()[-3:]
        raise RunFailed(f"{cfg.name}: the job did not finish: {' | '.join(tail)}")
    return out
