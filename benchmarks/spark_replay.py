"""The same traces replayed by the Spark job on local[2] and by single-process replay, in one run.

Usage: python benchmarks/spark_replay.py [N_TRACES] (default 10000; traces of at least 30 steps
from random walks of the baseline's default scope).  Last line: the figure.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

from checks import spark
from checks.trace import replay, trace_document
from specs.designs import BASELINE
from specs.scopes import default_scope
from specs.spec import Spec


def make_traces(n: int, path: Path) -> int:
    spec = Spec(BASELINE, default_scope())
    steps = 0
    written = 0
    seed = 0
    with path.open("w", encoding="utf-8") as f:
        while written < n:
            r = spark._check_walk(spec, random.Random(seed), 120)
            seed += 1
            if len(r["actions"]) < 30:
                continue
            f.write(json.dumps(trace_document(spec, r["actions"], engine="walk", seed=seed, violation=r["violation"]), separators=(",", ":")) + "\n")
            written += 1
            steps += len(r["actions"])
    return steps


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 10_000
    tmp = Path(tempfile.mkdtemp(prefix="ckptcheck-bench-"))
    src = tmp / "traces.jsonl"
    t0 = time.perf_counter()
    steps = make_traces(n, src)
    print(f"{n:,} traces, {steps:,} steps ({steps / n:.1f} per trace) written in {time.perf_counter() - t0:.1f}s")

    t0 = time.perf_counter()
    for line in src.open(encoding="utf-8"):
        replay(json.loads(line), "bench")
    single = time.perf_counter() - t0
    print(f"single process: {single:.1f}s, {n / single:,.0f} traces/s, {steps / single:,.0f} steps/s")

    spark.spark_session("local[2]")  # start the JVM outside the timed part
    t0 = time.perf_counter()
    summary = spark.run_replay([str(src)], out=tmp / "out", master="local[2]", say=lambda m: None)
    par = time.perf_counter() - t0
    assert summary["traces"] == n and summary["malformed"] == 0, summary
    print(f"spark local[2]: {par:.1f}s, {n / par:,.0f} traces/s, {steps / par:,.0f} steps/s")
    per_million = 1_000_000 / (n / par) / 60
    print(f"spark replay vs single process on {n} traces: {single / par:.2f}x faster ({n / par:,.0f} vs {n / single:,.0f} traces/s; 1M traces would take ~{per_million:.0f} min on local[2])")


if __name__ == "__main__":
    main(sys.argv[1:])
