"""The exhaustive search on Spark (``--engine spark``) against the local engine, in one run.

    python benchmarks/spark_engine.py [baseline|baseline-small|flip600-small] [--master local[2]] [--partitions N]

Runs the local engines (the reference in one process and with two workers, the memo engine's
compiled and Python loops) and the Spark engine twice on the same scope (its states as id
vectors expanded with the memo tables, then as pickled worlds), checks that they count the same
states, transitions and depth, and prints each Spark search's fixed cost per level and its core
time per state beyond that (a least-squares line through each level's time against the states
it reached: the intercept, and the slope times the cores of the master), against each local
engine's core time per state (its time, times its processes).  Last line: the figure.
"""

from __future__ import annotations

import argparse
import statistics
import time

from ckptcheck.checks.engine import Discovery, ExploreOutcome, explore, memo_core, search
from ckptcheck.checks.engine.explore import search_bounds
from ckptcheck.checks.engine.sparkbfs import spark_search
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
    t0 = time.perf_counter()
    memo = search(spec, "memo", compiled=True) if memo_core.available() else None
    t_memo = time.perf_counter() - t0
    t0 = time.perf_counter()
    memo_py = search(spec, "memo", compiled=False)
    t_memo_py = time.perf_counter() - t0
    session = spark_session(args.master)  # started before the clock: its start-up is not the search's cost
    cores = session.sparkContext.defaultParallelism

    def on_spark(vectors: bool):
        levels: list[tuple[int, float]] = []
        last = [time.perf_counter(), 0]

        def progress(out, _frontier) -> None:
            now = time.perf_counter()
            levels.append((out.states - last[1], now - last[0]))
            last[0], last[1] = now, out.states

        out = ExploreOutcome()
        bounds = search_bounds(spec, None, None, None, None, progress, 0)
        t0 = time.perf_counter()
        last[0] = t0
        spark_search(spec, out, Discovery, bounds, master=args.master, partitions=args.partitions, vectors=vectors)
        wall = time.perf_counter() - t0
        # each level's time against the states it reached, fitted by least squares: the
        # intercept is the level's fixed cost, the slope the time a state (times the cores)
        slope, fixed = statistics.linear_regression([float(new) for new, _ in levels], [dt for _, dt in levels])
        core = slope * cores * 1e6
        return out, wall, len(levels), fixed, core

    runs = {v: on_spark(v) for v in (True, False)}
    for o in (two, memo, memo_py, *(r[0] for r in runs.values())):
        if o is not None:
            assert (o.states, o.transitions, o.depth) == (one.states, one.transitions, one.depth), (o.states, one.states)
    n = one.states
    local = {"reference, 1 process": t_one, "reference, 2 workers": 2 * t_two, "memo, Python loop": t_memo_py}
    if memo is not None:
        local["memo, compiled loop"] = t_memo
    print(f"{args.scope} ({design.name}): {n:,} states, {one.transitions:,} transitions, depth {one.depth}")
    print(f"local engines: mechanics note 1 process {t_one:.1f}s, 2 workers {t_two:.1f}s; memo compiled loop "
          + (f"{t_memo:.1f}s" if memo is not None else "not built") + f", Python loop {t_memo_py:.1f}s")
    print("local core time a state: " + ", ".join(f"{k} {1e6 * v / n:.0f} us" for k, v in local.items()))
    for v, (out, wall, nlev, fixed, core) in runs.items():
        print(f"spark engine ({out.engine_detail}): {wall:.1f}s over {nlev} levels; fixed cost per level {fixed:.2f}s;"
              f" the rest {core:.0f} us of core time a state ({cores} cores)")
    vec = runs[True][4]
    print(f"spark {args.scope}: core time a state {vec:.0f} us on id vectors (pickled worlds {runs[False][4]:.0f} us) ="
          f" {vec / (1e6 * 2 * t_two / n):.1f}x the reference engine's with 2 workers,"
          f" {vec / (1e6 * t_memo_py / n):.1f}x the memo engine's Python loop"
          + (f", {vec / (1e6 * t_memo / n):.1f}x its compiled loop" if memo is not None else ""))

if __name__ == "__main__":
    main()
