"""Breadth-first search in one process, with a fingerprint store (the default) or an exact one.

The fingerprint store's visited set holds 64-bit fingerprints (``hash`` of the canonical world; worlds hold only
ints, bools and tuples, so the hash is the same in every process) instead of worlds.  Each state
also gets an index, with its parent's index and the index of its action in ``actions(parent)``
in compact arrays (``array('q')`` and ``array('H')``): about 90 bytes a state, against about 900
for the exact store.  A counterexample is rebuilt by re-execution from the initial state,
following those indexes; every state on the way is checked against its stored fingerprint, so a
collision on the path is detected, never silently reported.  A collision elsewhere would make
the search skip a state: its probability is reported with every result, computed as TLC does
(distinct x (generated - distinct) / 2^64).

The exact store (``exact=True``) keeps the canonical worlds themselves in the visited set,
about ten times the memory, and nothing else changes: BFS order, the enabled-action order and
therefore every counterexample are the same in both stores, action for action.
"""

from __future__ import annotations

import gc
import time
from array import array
from dataclasses import dataclass
from collections import deque
from typing import Any, Callable


class FingerprintCollision(RuntimeError):
    """Re-execution of a stored path reached a state whose fingerprint differs from the stored
    one: two distinct states shared a fingerprint.  Re-run with the exact store."""


def collision_probability(distinct: int, generated: int, bits: int = 64) -> float:
    """TLC's "calculated (optimistic)" probability that a fingerprint collision made the search
    miss a state: distinct x (generated - distinct) / 2^bits."""
    return distinct * max(0, generated - distinct) / float(1 << bits)


class PathStore:
    """Parent and action indexes per state; rebuilds paths by re-execution."""

    __slots__ = ("fps", "parent", "action", "inits")

    def __init__(self, inits: list) -> None:
        self.fps = array("q")  # hash() is a signed machine word
        self.parent = array("q")  # parent index, or -1 - i for initial state i
        self.action = array("H")  # index of the action in actions(parent)
        self.inits = inits

    def add(self, fp: int, parent: int, action: int) -> int:
        self.fps.append(fp)
        self.parent.append(parent)
        self.action.append(action)
        return len(self.fps) - 1

    def rebuild(self, model, idx: int, fingerprint: Callable | None = None) -> list:
        """The actions from an initial state to state ``idx``, re-executed and checked
        (``fingerprint``: the engine's, where it is not the hash of the canonical world)."""
        chain = []
        while self.parent[idx] >= 0:
            chain.append((self.fps[idx], self.action[idx]))
            idx = self.parent[idx]
        chain.reverse()
        return reexecute(model, self.inits[-1 - self.parent[idx]], chain, fingerprint)[0]


def finish_outcome(out, *, states: int, transitions: int, depth: int, quiescent: int, exhausted: bool, workers: int) -> None:
    """The figures of a finished fingerprint search, written into ``out`` (an
    ``ExploreOutcome``).  ``exhausted``: nothing was left to expand.  The search is complete
    only if that is so and it did not stop for another reason than having found everything."""
    out.states = states
    out.transitions = transitions
    out.depth = depth
    out.quiescent_states = quiescent
    out.complete = exhausted and (not out.stopped or out.stopped == "every property has a discovery")
    out.store = "fingerprint"
    out.workers = workers
    out.collision_probability = collision_probability(states, transitions)


def _owner(cls: type, name: str) -> type | None:
    return next((c for c in cls.__mro__ if name in vars(c)), None)


def successors_of(model) -> Callable:
    """The model's fused ``successors(s)`` when it has one that is at least as derived as its
    ``actions`` and ``next_state`` (a subclass that overrides ``actions`` alone must not be
    searched through its parent's fused method, which would skip the new actions); otherwise
    ``actions`` then ``next_state``."""
    cls = type(model)
    own = _owner(cls, "successors")
    if own is not None and all(issubclass(own, _owner(cls, n) or object) for n in ("actions", "next_state")):
        return model.successors
    actions, next_state = model.actions, model.next_state

    def successors(s):
        return [(a, next_state(s, a)) for a in actions(s)]

    return successors


def stored_first(i: int, n: int) -> list[int]:
    """Action indexes ``0..n-1`` with the stored one ``i`` first."""
    return [i, *(k for k in range(n) if k != i)] if 0 <= i < n else list(range(n))


def reexecute(model, s, chain: list[tuple[int, int]], fingerprint: Callable | None = None) -> tuple[list, Any]:
    """The actions of ``chain`` ((fingerprint, action index) per step) from state ``s``, and the
    state they reach; each state on the way must have its stored fingerprint, or two states
    shared one.

    The stored action is taken if its successor has the stored fingerprint, else the first
    action whose successor has it: with symmetry, the parallel engine stores action indexes of
    canonical worlds, and the concrete state re-executed here may be another member of the
    class.  The one-process engines store the concrete world's index, which always matches.
    ``fingerprint``: the engine's fingerprint of a world (the memo engine's sums), by default
    the hash of its canonical form."""
    if fingerprint is None:
        canon = model.canonical

        def fingerprint(t):
            return hash(canon(t) if canon else t)
    path = []
    for fp, i in chain:
        acts = model.actions(s)
        for k in stored_first(i, len(acts)):
            t = model.next_state(s, acts[k])
            if fingerprint(t) == fp:
                break
        else:
            raise FingerprintCollision("a state on a stored path re-executed to another fingerprint")
        path.append(acts[k])
        s = t
    return path, s


@dataclass(frozen=True)
class Bounds:
    """When a search stops short of the whole space, and how it reports progress."""

    stop_when: Callable[[dict], bool]  # given the discoveries by property name
    stop_reason: str
    max_states: int | None = None
    max_seconds: float | None = None
    max_depth: int | None = None
    progress: Callable | None = None
    progress_every: float = 2.0

    def violation(self, name: str, kind: str, steps: int) -> None:
        """Tell the progress reporter, if it listens (a ``violation`` method), that ``name``
        (an ``always`` or ``eventually`` property) was first found violated, ``steps`` steps
        from an initial state, so that a long search names it at once, before it ends."""
        tell = getattr(self.progress, "violation", None)
        if tell is not None and kind != "sometimes":
            tell(name, kind, steps)


class Pace:
    """What a breadth-first loop checks after each state it expands, in order: the stop
    condition on the discoveries, the state bound, and every 64 states the time bound and a
    progress line.  ``stop`` says whether the search ends there (``out.stopped`` says why)."""

    __slots__ = ("bounds", "started", "tick", "next_report")

    def __init__(self, bounds: Bounds, started: float) -> None:
        self.bounds = bounds
        self.started = started
        self.tick = 0
        self.next_report = started + bounds.progress_every

    def stop(self, out, found: dict, states: int, transitions: int, depth: int, queued: int) -> bool:
        self.tick += 1
        return self.check(out, found, states, transitions, depth, queued, timed=self.tick & 63 == 0)

    def check(self, out, found: dict, states: int, transitions: int, depth: int, queued: int, timed: bool = True) -> bool:
        """``stop``'s checks, the time bound and progress line only if ``timed`` (a loop that
        asks less often than every state, as the memo engine's compiled one, asks timed)."""
        b = self.bounds
        if found and b.stop_when(found):
            out.stopped = b.stop_reason
            return True
        if b.max_states is not None and states >= b.max_states:
            out.stopped = f"state bound {b.max_states} reached"
            return True
        if timed:
            now = time.perf_counter()
            if b.max_seconds is not None and now - self.started > b.max_seconds:
                out.stopped = f"time bound {b.max_seconds:g}s reached"
                return True
            if b.progress is not None and now >= self.next_report:
                out.states, out.transitions, out.depth, out.elapsed = states, transitions, depth, now - self.started
                b.progress(out, queued)
                self.next_report = now + b.progress_every
        return False


def judge_initial(always: list, w, idx: int, found: dict) -> None:
    """At an initial state ``w`` (index ``idx``): each ``always`` property it violates is found."""
    for prop, check in always:
        why = check(w)
        if why is not None and prop.name not in found:
            found[prop.name] = (prop, why, idx, None, "always")


def judge_quiescent(eventually: list, w, idx: int, depth: int, found: dict, bounds: Bounds) -> None:
    """At a state ``w`` (index ``idx``) where no progress action is enabled: each ``eventually``
    property it violates is found (and removed from ``eventually``)."""
    for item in tuple(eventually):
        prop, check = item
        why = check(w)
        if why is not None:
            found[prop.name] = (prop, why, idx, None, "eventually")
            bounds.violation(prop.name, "eventually", depth)
            eventually.remove(item)


def rebuild_discoveries(out, found: dict, store: PathStore, model, discovery: Callable[..., Any],
                        fingerprint: Callable | None = None) -> None:
    """Each discovery's path rebuilt from the stored indexes, into ``out.discoveries``."""
    for name, (prop, why, idx, extra, kind) in found.items():
        path = store.rebuild(model, idx, fingerprint)
        if extra is not None:
            path.append(extra)
        out.discoveries[name] = discovery(prop, why, path, kind)


def bfs_search(model, out, discovery: Callable[..., Any], bounds: Bounds, *, exact: bool,
               visit: Callable[[Any], None] | None = None) -> None:
    """The search; fills ``out`` (an ``ExploreOutcome``).  ``discovery(prop, reason, path, kind)``
    makes a discovery record once its path is rebuilt.  ``exact`` keeps worlds, not fingerprints,
    in the visited set.  ``visit``, if given, is called with each new state (the tests compare
    the states two engines visit)."""
    started = time.perf_counter()
    max_depth = bounds.max_depth
    canon = model.canonical
    fused = successors_of(model)
    is_progress = model.is_progress
    always = list(model.always)
    eventually = list(model.eventually)
    sometimes = list(model.sometimes)
    # property name -> (prop, reason, state index, extra action or None, kind); stop_when reads its keys
    found: dict[str, tuple] = {}
    inits = list(model.initial_states())
    store = PathStore(inits)
    seen: set = set()  # fingerprints, or canonical worlds with the exact store
    queue: deque = deque()
    for r, s in enumerate(inits):
        k = canon(s) if canon else s
        fp = hash(k)
        if (k if exact else fp) in seen:
            continue
        seen.add(k if exact else fp)
        idx = store.add(fp, -1 - r, 0)
        queue.append((s, idx, 0))
        if visit is not None:
            visit(s)
        judge_initial(always, s, idx, found)
    always = [x for x in always if x[0].name not in found]
    n_trans = 0
    deepest = 0
    quiescent = 0
    seen_add = seen.add
    push = queue.append
    fps_append, parent_append, action_append = store.fps.append, store.parent.append, store.action.append
    n_stored = len(store.fps)
    pace = Pace(bounds, started)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # worlds hold no reference cycles; the cyclic GC only rescans the visited set
    try:
        while queue:
            s, idx, d = queue.popleft()
            if d > deepest:
                deepest = d
            if max_depth is not None and d >= max_depth:
                out.stopped = f"depth bound {max_depth} reached"
                continue
            has_progress = False
            nd = d + 1
            prev = None
            for i, (a, t) in enumerate(fused(s)):
                n_trans += 1
                if not has_progress and is_progress(a):
                    has_progress = True
                if sometimes:
                    hit = False
                    for prop, check in sometimes:
                        what = check(s, a, t)
                        if what is not None and prop.name not in found:
                            found[prop.name] = (prop, what, idx, a, "sometimes")
                            hit = True
                    if hit:
                        sometimes = [x for x in sometimes if x[0].name not in found]
                if t is prev:  # a fault whose effect the model computed once: the previous action's successor
                    continue
                prev = t
                k = canon(t) if canon else t
                fp = hash(k)
                key = k if exact else fp
                if key in seen:
                    continue
                seen_add(key)
                fps_append(fp)
                parent_append(idx)
                action_append(i)
                tidx = n_stored
                n_stored += 1
                hit = False
                for prop, check in always:
                    why = check(t)
                    if why is not None:
                        found[prop.name] = (prop, why, tidx, None, "always")
                        bounds.violation(prop.name, "always", nd)
                        hit = True
                if hit:
                    always = [x for x in always if x[0].name not in found]
                push((t, tidx, nd))
                if visit is not None:
                    visit(t)
            if not has_progress:
                quiescent += 1
                judge_quiescent(eventually, s, idx, d, found, bounds)
            if pace.stop(out, found, len(seen), n_trans, deepest, len(queue)):
                break
    except KeyboardInterrupt:  # Ctrl-C: the figures reached so far, marked incomplete
        out.stopped = "interrupted (Ctrl-C)"
    finally:
        if gc_was_enabled:
            gc.enable()
    out.states = len(seen)
    out.transitions = n_trans
    out.depth = deepest
    out.quiescent_states = quiescent
    out.complete = not queue and (not out.stopped or out.stopped == "every property has a discovery")
    out.store = "exact" if exact else "fingerprint"
    out.collision_probability = None if exact else collision_probability(len(seen), n_trans)
    rebuild_discoveries(out, found, store, model, discovery)
    out.elapsed = time.perf_counter() - started
