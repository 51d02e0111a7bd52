"""Where a transition's time goes: the exhaustive engine's work split into its parts, on the
first states of a scope's breadth-first search.

    python benchmarks/step_costs.py [flip600-small|baseline] [--states N]

Collects the first N states (default 60,000) in BFS order, then times each part of the
engine's work on them, one part at a time: ``enabled`` and the always-properties per state;
``step``, the canonical form (symmetry), the fingerprint hash and the sometimes-properties (all
of them, as at the start of a search, before any is hit) per transition.  The parts add up to
less than a search costs: the loop itself (unpacking, the visited set, the path store, the
queue) is not counted.  Last line: the figure.
"""

from __future__ import annotations

import argparse
import collections
import gc
import time

from ckptcheck.specs.designs import BASELINE, FLIP600
from ckptcheck.specs.scopes import default_scope, regional_scope
from ckptcheck.specs.spec import Spec

SCOPES = {
    "flip600-small": (FLIP600, regional_scope().with_(max_checkpoints=1), True),
    "baseline": (BASELINE, default_scope(), False),
}


def first_states(spec: Spec, n: int) -> list:
    canon = spec.canonical or (lambda s: s)
    seen, queue, out = set(), collections.deque(), []
    for s in spec.initial_states():
        seen.add(hash(canon(s)))
        queue.append(s)
    while queue and len(out) < n:
        s = queue.popleft()
        out.append(s)
        for _, t in spec.successors(s):
            fp = hash(canon(t))
            if fp not in seen:
                seen.add(fp)
                queue.append(t)
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("scope", nargs="?", default="flip600-small", choices=SCOPES)
    p.add_argument("--states", type=int, default=60_000)
    args = p.parse_args()
    design, scope, symmetry = SCOPES[args.scope]
    spec = Spec(design, scope, symmetry=symmetry)
    states = first_states(spec, args.states)
    m = spec.model
    canon = spec.canonical or (lambda s: s)
    gc.disable()
    t0 = time.perf_counter()
    acts = [m.enabled(s) for s in states]
    t1 = time.perf_counter()
    succ = [[m.step(s, a) for a in acts_s] for s, acts_s in zip(states, acts)]
    t2 = time.perf_counter()
    keys = [[canon(t) for t in ts] for ts in succ]
    t3 = time.perf_counter()
    for ks in keys:
        for k in ks:
            hash(k)
    t4 = time.perf_counter()
    always = spec._bound("always")
    for s in states:
        for _, check in always:
            check(s)
    t5 = time.perf_counter()
    sometimes = spec._bound("sometimes")
    for s, acts_s, ts in zip(states, acts, succ):
        for a, t in zip(acts_s, ts):
            for _, check in sometimes:
                check(s, a, t)
    t6 = time.perf_counter()
    gc.enable()
    n_s, n_t = len(states), sum(len(x) for x in acts)
    us = 1e6
    per_t = {
        "step": (t2 - t1) / n_t * us,
        "canonical form": (t3 - t2) / n_t * us,
        "hash": (t4 - t3) / n_t * us,
        f"{len(sometimes)} sometimes-properties": (t6 - t5) / n_t * us,
        "enabled (per state, spread)": (t1 - t0) / n_t * us,
        f"{len(always)} always-properties (per state, spread)": (t5 - t4) / n_t * us,
    }
    total = sum(per_t.values())
    print(f"{args.scope} ({design.name}{', symmetry' if spec.canonical else ''}): first {n_s:,} states, {n_t:,} transitions")
    for name, v in per_t.items():
        print(f"  {name:45s} {v:6.2f} us a transition ({v / total:5.1%})")
    print(f"step_costs {args.scope}: {total:.1f} us a transition in the parts counted; step {per_t['step'] / total:.0%} of it")


if __name__ == "__main__":
    main()
