"""The memo engine's compiled loop, driven from Python: ``Driver`` answers the loop's misses
from the model (through ``memo.MemoSpec``'s own miss functions) and keeps the discoveries, as
``memo.memo_search``'s Python loop does.

The loop (``_memo_core``, a Cython extension) is optional: ``pip install`` builds it where Cython
and a C compiler are at hand, and ``available()`` says whether it was.  Where it is not, or where
a search asks what only the Python loop does (``--memo-check``), the Python loop runs; both give
the same states in the same order (``tests/test_memo_engine.py``).
"""

from __future__ import annotations

from typing import Any, Callable

from .bfs import Pace, judge_quiescent

try:
    from ._memo_core import Core
except ImportError:  # no compiler at install time: the Python loop
    Core = None


def available() -> bool:
    """Whether the compiled loop was built."""
    return Core is not None


class Capture:
    """Stands in for a ``memo.Memo`` in a miss function: keeps what it was asked to store (the
    compiled loop stores it in its own table).  ``reads`` stays ``None`` where the function ran
    plainly and nothing may be cached."""

    __slots__ = ("reads",)

    def __init__(self) -> None:
        self.reads = None

    def put(self, reads, vec, result) -> None:
        self.reads = tuple(reads)


class Driver:
    """The Python side of one compiled search: the miss functions, the discoveries and the
    bounds.  Its methods are called by ``Core.search`` (see there), each with the parallelism
    configuration first (``memo.MemoSpec`` per configuration)."""

    def __init__(self, configs: list, out, found: dict, bounds, started: float, always: list, sometimes: list,
                 eventually: list, visit: Callable[[Any], None] | None) -> None:
        self.configs = configs
        self.out = out
        self.found = found
        self.bounds = bounds
        self._pace = Pace(bounds, started)
        self.always = always
        self.always_fns = [f for _, f in always]
        self.sometimes = sometimes
        self.sometimes_fns = [f for _, f in sometimes]
        self.eventually = eventually
        self._visit = visit
        self.cap = Capture()
        # the groups' tables live in the compiled loop: each group's memo becomes a Capture
        for ms in configs:
            ms.groups = [(g, None if memo is None else Capture()) for g, memo in ms.groups]

    # -- misses -----------------------------------------------------------------------------------
    def enabled_miss(self, c: int, k: int, vec: list):
        ms = self.configs[c]
        memo = ms.groups[k][1]
        if memo is None:
            return None, ms._group_miss(k, vec)
        memo.reads = None
        acts = ms._group_miss(k, vec)
        return (memo.reads if ms.groups[k][1] is memo else None), acts

    def step_miss(self, c: int, ai: int, vec: list):
        """The step's reads (``None``: not to be cached), its writes, and after a rescale
        (``memo.Switch``: no writes) the successor whole, ``(configuration, vector, sums)``."""
        from .memo import PLAIN, Switch

        ms = self.configs[c]
        cap = self.cap
        cap.reads = None
        writes = ms._step_miss(PLAIN if ms.step_memos[ai] is PLAIN else cap, vec, ai)
        if type(writes) is Switch:
            nc, nvec = writes
            return cap.reads, (), (nc, list(nvec), self.configs[nc].sums(nvec))
        return cap.reads, writes, None

    def always_miss(self, c: int, vec: list):
        self.cap.reads = None
        r = self.configs[c]._checks_miss(self.cap, self.always_fns, vec)
        return self.cap.reads, r

    def sometimes_miss(self, c: int, ai: int, vec2: list):
        self.cap.reads = None
        ms = self.configs[c]
        r = ms._checks_miss(self.cap, self.sometimes_fns, vec2, ms.actions[ai])
        return self.cap.reads, r

    def sometimes_across(self, c: int, ai: int, vec: list, nc: int, nvec: list) -> tuple:
        """The witnesses on a step across a rescale, asked of the plain worlds (as the Python
        loop does)."""
        s_w, t_w = self.configs[c].decode(vec), self.configs[nc].decode(nvec)
        a = self.configs[c].actions[ai]
        return tuple(f(s_w, a, t_w) for f in self.sometimes_fns)

    def z(self, c: int, p: int, slot: int, i: int) -> int:
        return self.configs[c].z(p, slot, i)

    def is_progress(self, c: int, ai: int) -> bool:
        return self.configs[c].progress[ai]

    # -- discoveries --------------------------------------------------------------------------------
    def on_sometimes(self, c: int, results: tuple, idx: int, ai: int) -> bool:
        found, a = self.found, self.configs[c].actions[ai]
        for (prop, _), what in zip(self.sometimes, results):
            if what is not None and prop.name not in found:
                found[prop.name] = (prop, what, idx, a, "sometimes")
        self.sometimes = [x for x in self.sometimes if x[0].name not in found]
        self.sometimes_fns = [f for _, f in self.sometimes]
        return bool(self.sometimes)

    def on_always(self, results: tuple, tidx: int, depth: int) -> bool:
        found = self.found
        for (prop, _), why in zip(self.always, results):
            if why is not None:
                found[prop.name] = (prop, why, tidx, None, "always")
                self.bounds.violation(prop.name, "always", depth)
        self.always = [x for x in self.always if x[0].name not in found]
        self.always_fns = [f for _, f in self.always]
        return bool(self.always)

    def quiescent(self, c: int, vec: list, idx: int, depth: int) -> None:
        if self.eventually:
            judge_quiescent(self.eventually, self.configs[c].decode(vec), idx, depth, self.found, self.bounds)

    def visit(self, c: int, vec: list) -> None:
        self._visit(self.configs[c].decode(vec))

    def pace(self, states: int, transitions: int, depth: int, queued: int) -> bool:
        """``bfs.Pace``'s checks, asked after a discovery, at the state bound and every 64
        states: the loop asks no more often, since between two discoveries the stop condition's
        answer cannot change."""
        return self._pace.check(self.out, self.found, states, transitions, depth, queued)


def compiled_loop(configs: list, queue, store, seen: set, found: dict, always: list, sometimes: list, eventually: list,
                  bounds, out, started: float, visit) -> tuple[int, int, int, int, int, bool]:
    """The search from ``queue`` (``(config, vector, sums, index, depth)`` at depth 0) on the
    compiled loop, ``configs`` the ``memo.MemoSpec`` of each parallelism configuration; the
    store gets the new states' links.  Returns the figures ``memo_search``'s loop keeps: states,
    transitions, depth, quiescent states, enabled groups asked (one per group per expanded state),
    and whether nothing was left to expand."""
    driver = Driver(configs, out, found, bounds, started, always, sometimes, eventually, visit)
    core = Core(tuple(ms.lay.size for ms in configs), len(configs[0]._zs), driver)
    for fp in seen:
        core.mark_seen(fp)
    inits = [(c, vec, sums, idx) for c, vec, sums, idx, _ in queue]
    max_depth = -1 if bounds.max_depth is None else bounds.max_depth
    max_states = -1 if bounds.max_states is None else bounds.max_states
    try:
        core.search(inits, len(store.fps), tuple(len(ms.groups) for ms in configs), max_depth, max_states, bool(always), bool(sometimes),
                    bool(eventually), visit is not None)
    except KeyboardInterrupt:
        out.stopped = "interrupted (Ctrl-C)"
    finally:
        fps, parents, actions = core.store_bytes()
        store.fps.frombytes(fps)
        store.parent.frombytes(parents)
        store.action.frombytes(actions)
    if core.depth_stopped and not out.stopped:
        out.stopped = f"depth bound {bounds.max_depth} reached"
    configs[0].calls += core.check_calls  # the properties and witnesses asked (the Python loop counts them in MemoSpec.checks)
    return core.states, core.transitions, core.deepest, core.quiescent, core.group_calls, core.queued == 0
