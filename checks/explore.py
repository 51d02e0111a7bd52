"""Exhaustive bounded breadth-first search over any model with the engine surface.

The surface (see ``specs.spec.Spec``; ``benchmarks/twophase.py`` is a second, unrelated model):

- ``initial_states()``, ``actions(s)``, ``next_state(s, a)``;
- ``is_progress(a)``: actions that are not faults (``eventually`` is checked at states where
  no progress action is enabled);
- ``canonical``: ``None``, or a function to a canonical representative (symmetry reduction);
- ``always``, ``eventually``, ``sometimes``: lists of ``(property, check)``.

States are stored exactly (no hash compaction), so the distinct-state count is exact.  BFS
finds each violation first on a shortest path, so counterexamples are minimal in length.
Exploration stops when every property has a discovery or the space (or a bound) is exhausted;
Ctrl-C ends it too, with the figures reached so far and the search marked incomplete.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class Discovery:
    property: Any
    reason: str
    path: list  # actions from the initial state
    kind: str


@dataclass
class ExploreOutcome:
    states: int = 0
    transitions: int = 0
    depth: int = 0
    elapsed: float = 0.0
    complete: bool = False  # the whole reachable space (within the scope) was searched
    stopped: str = ""  # why the search ended early, if it did
    discoveries: dict[str, Discovery] = field(default_factory=dict)  # property name -> first discovery
    quiescent_states: int = 0
    store: str = "exact"  # "exact": worlds kept; "fingerprint": 64-bit fingerprints, paths re-executed
    collision_probability: float | None = None  # fingerprint store: TLC's estimate that a state was missed
    workers: int = 1


def _path(parents: dict, key) -> list:
    out = []
    entry = parents[key]
    while entry is not None:
        parent, action = entry
        out.append(action)
        entry = parents[parent]
    out.reverse()
    return out


def explore(
    model,
    *,
    max_states: int | None = None,
    max_seconds: float | None = None,
    max_depth: int | None = None,
    stop_when: Callable[[dict], bool] | None = None,
    progress: Callable[[ExploreOutcome, int], None] | None = None,
    progress_every: float = 2.0,
    store: str = "exact",
    workers: int = 1,
) -> ExploreOutcome:
    """Breadth-first search; returns counts and the first discovery of every property.

    ``store="exact"`` keeps every world (the reference); ``"fingerprint"`` keeps 64-bit
    fingerprints and rebuilds counterexamples by re-execution (``checks.fingerprint``), the same
    states and paths at a tenth of the memory.  ``workers`` > 1 runs the fingerprint search
    level-synchronously over that many processes (``checks.parallel``)."""
    if store not in ("exact", "fingerprint"):
        raise ValueError(f"store: expected 'exact' or 'fingerprint', got {store!r}")
    if workers < 1:
        raise ValueError(f"workers: expected at least 1, got {workers!r}")
    started = time.perf_counter()
    out = ExploreOutcome()
    canon = model.canonical
    actions = model.actions
    next_state = model.next_state
    is_progress = model.is_progress
    always = list(model.always)
    eventually = list(model.eventually)
    sometimes = list(model.sometimes)
    found = out.discoveries
    stop_reason = "stop condition met"
    if stop_when is None:
        total = len(always) + len(eventually) + len(sometimes)
        stop_reason = "every property has a discovery"

        def stop_when(d: dict) -> bool:
            return total > 0 and len(d) == total

    if store == "fingerprint" or workers > 1:
        bounds = dict(max_states=max_states, max_seconds=max_seconds, max_depth=max_depth, stop_when=stop_when,
                      stop_reason=stop_reason, progress=progress, progress_every=progress_every)
        if workers > 1:
            from .parallel import parallel_search

            parallel_search(model, out, Discovery, workers=workers, **bounds)
        else:
            from .fingerprint import fingerprint_search

            fingerprint_search(model, out, Discovery, **bounds)
        return out

    parents: dict = {}
    queue: deque = deque()
    for s in model.initial_states():
        key = canon(s) if canon else s
        if key in parents:
            continue
        parents[key] = None
        queue.append((s, key, 0))
        for prop, check in always:
            why = check(s)
            if why is not None and prop.name not in found:
                found[prop.name] = Discovery(prop, why, [], "always")
    next_report = started + progress_every
    n_states = len(parents)
    n_trans = 0
    deepest = 0
    quiescent = 0
    try:
        while queue:
            s, key, d = queue.popleft()
            if d > deepest:
                deepest = d
            if max_depth is not None and d >= max_depth:
                out.stopped = f"depth bound {max_depth} reached"
                continue
            has_progress = False
            for a in actions(s):
                t = next_state(s, a)
                n_trans += 1
                if not has_progress and is_progress(a):
                    has_progress = True
                if sometimes:
                    for item in tuple(sometimes):
                        prop, check = item
                        what = check(s, a, t)
                        if what is not None:
                            found[prop.name] = Discovery(prop, what, _path(parents, key) + [a], "sometimes")
                            sometimes.remove(item)
                k = canon(t) if canon else t
                if k in parents:
                    continue
                parents[k] = (key, a)
                n_states += 1
                for item in tuple(always):
                    prop, check = item
                    why = check(t)
                    if why is not None:
                        found[prop.name] = Discovery(prop, why, _path(parents, k), "always")
                        always.remove(item)
                queue.append((t, k, d + 1))
            if not has_progress:
                quiescent += 1
                for item in tuple(eventually):
                    prop, check = item
                    why = check(s)
                    if why is not None:
                        found[prop.name] = Discovery(prop, why, _path(parents, key), "eventually")
                        eventually.remove(item)
            if stop_when(found):
                out.stopped = stop_reason
                break
            if max_states is not None and n_states >= max_states:
                out.stopped = f"state bound {max_states} reached"
                break
            now = time.perf_counter()
            if max_seconds is not None and now - started > max_seconds:
                out.stopped = f"time bound {max_seconds:g}s reached"
                break
            if progress is not None and now >= next_report:
                out.states, out.transitions, out.depth, out.elapsed = n_states, n_trans, deepest, now - started
                progress(out, len(queue))
                next_report = now + progress_every
    except KeyboardInterrupt:  # Ctrl-C: end with the figures reached so far, marked incomplete
        out.stopped = "interrupted (Ctrl-C)"
        n_states = len(parents)
    out.states = n_states
    out.transitions = n_trans
    out.depth = deepest
    out.quiescent_states = quiescent
    out.elapsed = time.perf_counter() - started
    out.complete = not queue and (not out.stopped or out.stopped == "every property has a discovery")
    return out
