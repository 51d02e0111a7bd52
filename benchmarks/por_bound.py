"""How far partial-order reduction can go on a scope: the full search, the sound stubborn-set
reduction over the model's footprint table (``checks.engine.por``, ``model.footprint``), and an
optimistic estimate, in one run.

    python benchmarks/por_bound.py [baseline|baseline-no-faults|flip600-small|keyed-2x2-unbounded]

The estimate follows, in each world, one progress action alone when it commutes with every
other action enabled there (the two orders reach the same world and neither disables the
other), with the breadth-first cycle proviso; it ignores what actions not yet enabled may do
and what the properties read, so no sound reduction with one-action ample sets gets below it
(larger ample sets might).  Each search counts its states, the worlds it expanded in part, and
the always-violations and witnesses it found, which are compared with the full search's.
Last line: the figure.
"""

from __future__ import annotations

import collections
import sys
import time

from ckptcheck.checks.engine.por import Reducer
from ckptcheck.specs.designs import BASELINE, FLIP600
from ckptcheck.specs.scopes import default_scope, regional_scope, scope
from ckptcheck.specs.spec import Spec

SCOPES = {
    "baseline": (BASELINE, default_scope()),
    "baseline-no-faults": (BASELINE, default_scope().with_(max_failures=0, max_declines=0)),
    "flip600-small": (FLIP600, regional_scope().with_(max_checkpoints=1)),
    # no fault, unbounded, past its one checkpoint: the records' moves are what is left
    "keyed-2x2-unbounded": (BASELINE, scope("keyed-2x2", records_per_split=2, max_checkpoints=1, bounded=False, max_failures=0,
                                            max_declines=0, max_timeouts=0, max_lost_notifications=0)),
}


def fault_to_come(spec: Spec, w) -> bool:
    """May a failure, a decline, a timeout or a lost notification still happen after ``w``?"""
    sc, used = spec.scope, w.used
    return (used.failures < sc.max_failures or used.declines < sc.max_declines or used.timeouts < sc.max_timeouts
            or used.lost < sc.max_lost_notifications)


def search(spec: Spec, choose, check=None) -> tuple[int, int, set, set, float, int]:
    """Breadth-first search following ``choose(s, acts)``'s indexes (None: all), calling
    ``check(s, a, t)`` on each transition of a world expanded in part; returns states, worlds
    expanded in part, violated always-properties, witnesses hit, seconds, and the worlds in
    which a fault may still come."""
    m = spec.model
    s0 = spec.initial_states()[0]
    depth = {s0: 0}
    queue = collections.deque([s0])
    level, level_new, partial = 0, set(), 0
    violated, hit = set(), set()
    faulty = 0
    t0 = time.perf_counter()
    while queue:
        s = queue.popleft()
        d = depth[s]
        if d != level:
            level, level_new = d, set()
        acts = m.enabled(s)
        faulty += fault_to_come(spec, s)
        idx = choose(s, acts)
        succ = [(acts[i], m.step(s, acts[i])) for i in (range(len(acts)) if idx is None else idx)]
        if idx is not None:
            if check is not None:
                for a, t in succ:
                    check(s, a, t)
            if any(t in depth and t not in level_new for _, t in succ):  # the cycle proviso
                succ += [(a, m.step(s, a)) for i, a in enumerate(acts) if i not in idx]
            else:
                partial += 1
        for a, t in succ:
            for p, check in spec.sometimes:
                if p.name not in hit and check(s, a, t) is not None:
                    hit.add(p.name)
            if t not in depth:
                depth[t] = d + 1
                level_new.add(t)
                queue.append(t)
                violated.update(p.name for p, check in spec.always if check(t))
    return len(depth), partial, violated, hit, time.perf_counter() - t0, faulty


def optimistic(spec: Spec):
    m = spec.model

    def choose(s, acts):
        if len(acts) < 2:
            return None
        for i, a in enumerate(acts):
            if a.fault:
                continue
            sa = m.step(s, a)
            after_a = m.enabled(sa)
            ok = True
            for b in acts:
                if b is a:
                    continue
                sb = m.step(s, b)
                if b not in after_a or a not in m.enabled(sb) or m.step(sa, b) != m.step(sb, a):
                    ok = False
                    break
            if ok:
                return [i]
        return None

    return choose


def main(argv: list[str]) -> None:
    name = argv[0] if argv else "baseline"
    design, scope = SCOPES[name]
    spec = Spec(design, scope)
    reducer = Reducer(spec)
    runs = {
        "full": (lambda s, acts: None, None),
        "stubborn sets": (lambda s, acts: reducer.ample(s, acts, spec.is_progress), reducer.check_writes),
        "optimistic estimate": (optimistic(spec), None),
    }
    out = {}
    for label, (choose, check) in runs.items():
        out[label] = search(spec, choose, check)
        states, partial, violated, hit, secs, faulty = out[label]
        same = "" if label == "full" else (
            "; the same violations and witnesses as the full search" if (violated, hit) == out["full"][2:4]
            else f"; differs from the full search: violations {sorted(violated ^ out['full'][2])}, witnesses {sorted(hit ^ out['full'][3])}")
        print(f"{label:20s} {states:>10,} states, {partial:>9,} worlds expanded in part, {secs:6.1f} s{same}")
        if label == "full":
            print(f"{'':20s} {faulty:>10,} of them with a fault still to come ({faulty / states:.0%})")
    full, sound, opt = (out[k][0] for k in runs)
    print(f"por_bound {name}: full {full:,} states; stubborn sets {sound:,} ({full / sound:.2f}x fewer); "
          f"optimistic estimate {opt:,} ({full / opt:.2f}x fewer)")


if __name__ == "__main__":
    main(sys.argv[1:])
