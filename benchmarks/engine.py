"""The exhaustive engine on a model scope, against the hand-written TwoPhase BFS (7 resource
managers) measured in the same run, so that machines of different speed compare.

    python benchmarks/engine.py [baseline|flip600-default|flip600-full|flip600-small] [--exact] [--workers N] [--symmetry]
    python benchmarks/engine.py SCOPE --engine memo [--memo-workers N] [--symmetry] [--against-reference] [--python-loop]

Prints states, transitions, time, peak memory (this process plus its workers) and the ratio of
the scope's time to the yardstick's.  Last line: the figure.  ``--engine memo`` searches with
the memo engine (its compiled loop in ``--memo-workers`` processes, one by default, or with
``--python-loop`` the Python loop it falls back to) and prints its model calls, the share computed and the
microseconds a computed call took; ``--against-reference`` then searches the same scope with the
reference engine (``explore``, ``--workers``) in the same run, checks that states, transitions,
depth and verdicts are equal, and its last line is the speed ratio.

The yardstick runs three times before the scope and three times after it, and the ratio uses
the median of the six: on a shared machine one timing of a two-second run can be off by half,
which moved the ratio between 123 and 209 on the same scope.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from twophase import hand_written_bfs  # noqa: E402

from ckptcheck.checks.engine import search  # noqa: E402
from ckptcheck.checks.engine.explore import explore  # noqa: E402
from ckptcheck.specs.designs import BASELINE, FLIP600  # noqa: E402
from ckptcheck.specs.scopes import default_scope, regional_default_scope, regional_scope  # noqa: E402
from ckptcheck.specs.spec import Spec  # noqa: E402

SCOPES = {
    "baseline": (BASELINE, default_scope()),
    "flip600-default": (FLIP600, regional_default_scope()),  # what `ckptcheck check --design flip600-regional` searches
    "flip600-full": (FLIP600, regional_scope()),  # the same scope without instant acks: the full model
    "flip600-small": (FLIP600, regional_scope().with_(max_checkpoints=1)),
}


def peak_mb(workers: int) -> float:
    """This process's peak plus ``workers`` times the largest worker's peak, in MB: an upper
    bound of the memory in use at once (the workers' peaks need not coincide)."""
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if workers > 1 else 0
    return (me + workers * kids) / 1024


def yardstick() -> tuple[int, float]:
    t0 = time.perf_counter()
    states = hand_written_bfs(7)
    return states, time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("scope", nargs="?", default="baseline", choices=SCOPES)
    p.add_argument("--exact", action="store_true")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--symmetry", action="store_true", help="symmetry reduction (the CLI's default where it applies)")
    p.add_argument("--engine", choices=("explore", "memo"), default="explore")
    p.add_argument("--against-reference", action="store_true", help="memo: also search with explore and compare")
    p.add_argument("--python-loop", action="store_true", help="memo: its Python loop (the fallback), not the compiled one")
    p.add_argument("--memo-workers", type=int, default=1, help="memo: processes of the compiled loop")
    args = p.parse_args()
    if args.engine == "memo":
        memo_against_reference(args)
        return
    yards = [yardstick() for _ in range(3)]
    design, scope = SCOPES[args.scope]
    t0 = time.perf_counter()
    out = explore(Spec(design, scope, symmetry=args.symmetry), store="exact" if args.exact else "fingerprint", workers=args.workers)
    took = time.perf_counter() - t0
    yards += [yardstick() for _ in range(3)]
    yard_states = yards[0][0]
    times = sorted(t for _, t in yards)
    yard = (times[2] + times[3]) / 2
    assert out.complete and not [d for d in out.discoveries.values() if d.kind != "sometimes"], out.discoveries
    store = "exact" if args.exact else "fingerprint"
    print(f"yardstick: hand-written TwoPhase BFS, 7 managers: {yard_states:,} states; six timings "
          f"{', '.join(f'{t:.2f}' for t in times)}s, median {yard:.2f}s")
    print(f"{args.scope} ({design.name}): {out.states:,} states, {out.transitions:,} transitions, depth {out.depth}, "
          f"{took:.1f}s, {out.states / took:,.0f} states/s, {store} store, {args.workers} worker(s)"
          f"{', symmetry' if args.symmetry else ''}")
    mb = peak_mb(args.workers)
    print(f"peak memory, at most: {mb:,.0f} MB (this process + {args.workers} x the largest worker)")
    print(f"engine {args.scope} {store} workers={args.workers}{' symmetry' if args.symmetry else ''}: {took:.1f}s = {took / yard:.0f}x the TwoPhase yardstick, "
          f"{mb:,.0f} MB")


def _summary(out) -> tuple:
    return (out.states, out.transitions, out.depth, out.complete,
            sorted((k, d.kind, len(d.path)) for k, d in out.discoveries.items()))


def memo_against_reference(args) -> None:
    design, scope = SCOPES[args.scope]
    spec = Spec(design, scope, symmetry=args.symmetry)
    t0 = time.perf_counter()
    memo = search(spec, "memo", stop_when=lambda found: False, compiled=False if args.python_loop else None,
                  workers=args.memo_workers)
    took = time.perf_counter() - t0
    n = args.memo_workers
    print(f"{args.scope} ({design.name}) memo engine: {memo.states:,} states, {memo.transitions:,} transitions, depth {memo.depth}, "
          f"{took:.1f}s, {memo.states / took:,.0f} states/s, {n} process(es){', symmetry' if args.symmetry else ''}")
    print(f"  {memo.engine_detail}")
    print(f"  {1e6 * took / max(1, memo.transitions):.2f} us a transition")
    if not args.against_reference:
        print(f"engine {args.scope} memo, {n} process(es){' symmetry' if args.symmetry else ''}: {took:.1f}s, {peak_mb(n):,.0f} MB")
        return
    t0 = time.perf_counter()
    ref = search(Spec(design, scope, symmetry=args.symmetry), "explore", stop_when=lambda found: False, workers=args.workers)
    ref_took = time.perf_counter() - t0
    print(f"{args.scope} reference engine (explore): {ref.states:,} states, {ref.transitions:,} transitions, depth {ref.depth}, "
          f"{ref_took:.1f}s, {args.workers} worker(s)")
    same = _summary(memo) == _summary(ref)
    print(f"  same states, transitions, depth and discoveries: {'yes' if same else 'NO'}")
    assert same, (_summary(memo), _summary(ref))
    print(f"engine {args.scope} memo ({n} process(es)) against explore ({args.workers} worker(s)){' symmetry' if args.symmetry else ''}: "
          f"{took:.1f}s against {ref_took:.1f}s = {ref_took / took:.2f}x")


if __name__ == "__main__":
    main()
