"""The exhaustive search on Spark (``--engine spark``) against the local engine, in one run.

    python benchmarks/spark_engine.py [baseline|baseline-small|flip600-small] [--master local[2]] [--partitions N]

Runs the local engine (one process, then two workers) and the Spark engine on the same scope,
checks that they count the same states, transitions and depth, and prints the Spark search's
fixed cost per level (the median time of levels that reach fewer than 100 new states) and its
cost per state.  Last line: the figure.
"""

from __future__ import annotations

import argparse
import statistics
import time

from ckptcheck.checks.engine import explore, search
from ckptcheck.checks.engine.spark_session import spark_session
from ckptcheck.specs.designs import BASELINE, FLIP600
from ckptcheck.specs.scopes import default_scope, regional_scope
from ckptcheck.specs.spec import Spec

SCOPES = {
    "baseline": (BASELINE, default_scope()),
    "baseline-small": (BASELINE, default_scope().with_(max_failures=0, max_declines=0)),
    "flip600-small": (FLIP600, regional_scope().with_(max_checkpoints=1)),
}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("scope", nargs="?", default="baseline", choices=SCOPES)
    p.add_argument("--master", default="local[2]")
    p.add_argument("--partitions", type=int, default=None)
    args = p.parse_args()
    design, scope = SCOPES[args.scope]
    spec = Spec(design, scope)
    t0 = time.perf_counter()
    one = explore(spec, workers=1)
    t_one = time.perf_counter() - t0
    t0 = time.perf_counter()
    two = explore(spec, workers=2)
    t_two = time.perf_counter() - t0
    spark_session(args.master)  # started before the clock: its start-up is not the search's cost
    levels: list[tuple[int, float]] = []
    last = [time.perf_counter(), 0]

    def progress(out, _frontier) -> None:
        now = time.perf_counter()
        levels.append((out.states - last[1], now - last[0]))
        last[0], last[1] = now, out.states

    t0 = time.perf_counter()
    last[0] = t0
    sp = search(spec, "spark", master=args.master, partitions=args.partitions, progress=progress, progress_every=0)
    t_spark = time.perf_counter() - t0
    for o in (two, sp):
        assert (o.states, o.transitions, o.depth) == (one.states, one.transitions, one.depth), (o.states, one.states)
    small = [dt for new, dt in levels if new < 100]
    fixed = statistics.median(small) if small else float("nan")
    per_state = (t_spark - fixed * len(levels)) / sp.states * 1e6
    print(f"{args.scope} ({design.name}): {one.states:,} states, {one.transitions:,} transitions, depth {one.depth}")
    print(f"local engine: 1 process {t_one:.1f}s, 2 workers {t_two:.1f}s")
    print(f"spark engine ({sp.engine_detail}): {t_spark:.1f}s over {len(levels)} levels; fixed cost per level {fixed:.2f}s "
          f"(median of {len(small)} levels under 100 new states); the rest {per_state:.0f} us a state")
    print(f"spark {args.scope}: {t_spark:.1f}s = {t_spark / t_two:.1f}x the local engine with 2 workers, "
          f"{fixed:.2f}s a level + {per_state:.0f} us a state")


if __name__ == "__main__":
    main()
