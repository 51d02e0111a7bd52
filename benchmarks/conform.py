"""``ckptcheck conform`` at its default size: every family, 10^6 random cases plus the exhaustive
small ranges, against the installed Flink distribution jar (the ``flink`` extra).

    python benchmarks/conform.py [--cases N] [--seed S] [--flink-dist JAR]

Prints the per-family table, then, last, the figure: cases, mismatches, refused and seconds
(the Java helper compiled beforehand, so the time is the run's, JVM start included).
"""

from __future__ import annotations

import argparse
import time

from ckptcheck.checks.conform import runner as conform

from ckptcheck.checks import flinkjvm


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--flink-dist", default=None)
    a = ap.parse_args()
    dist = flinkjvm.open_dist(a.flink_dist)
    classes, broken = flinkjvm.compile_helper(dist)
    t0 = time.monotonic()
    with flinkjvm.FlinkJVM(dist, classes) as jvm:
        r = conform.run(jvm, list(conform.FAMILIES), random_cases=a.cases, seed=a.seed, flink_version=dist.version,
                        flink_jar=str(dist.jar), broken=broken)
    seconds = time.monotonic() - t0
    for line in conform.lines(r):
        print(line)
    print(f"conform: {r.cases:,} cases over {len(r.families)} families, {r.mismatches:,} mismatches, "
          f"{r.refused:,} refused, {seconds:.1f} s against Flink {dist.version}")


if __name__ == "__main__":
    main()
