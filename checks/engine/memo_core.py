"""The memo engine's compiled loop, driven from Python: ``Driver`` answers the loop's misses
from the model (through ``memo.MemoSpec``'s own miss functions) and keeps the discoveries, as
``memo.memo_search``'s Python loop does.

With workers (``memo_workers``) the loop forks once a level is large enough; ``Driver`` then
also carries the level ends: the claims, and on rank 0 the decision to go on.

The loop (``_memo_core``, a Cython extension) is optional: ``pip install`` builds it where Cython
and a C compiler are at hand, and ``available()`` says whether it was.  Where it is not, or where
a search asks what only the Python loop does (``--memo-check``), the Python loop runs; both give
the same states in the same order (``tests/checks/engine/test_memo_engine.py``).
"""

from __future__ import annotations

import dataclasses
import time
import traceback
from typing import Any, Callable

from .bfs import Pace, judge_quiescent
from .memo_workers import WorkerError, Workers

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
                 eventually: list, visit: Callable[[Any], None] | None, workers: Workers | None = None) -> None:
        self.configs = configs
        self.workers = workers
        self.core = None  # set by compiled_loop
        self.started = started
        self.depth_of: dict[str, int] = {}  # an always or eventually discovery's steps from the start
        self.told: set[str] = set()  # discoveries named on the progress line (rank 0 of workers)
        self.totals: dict = {}  # the workers' figures at the last level's end (rank 0)
        self.child = False
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
                self.depth_of[prop.name] = depth
                self.bounds.violation(prop.name, "always", depth)
        self.always = [x for x in self.always if x[0].name not in found]
        self.always_fns = [f for _, f in self.always]
        return bool(self.always)

    def quiescent(self, c: int, vec: list, idx: int, depth: int) -> None:
        if self.eventually:
            before = set(self.found)
            judge_quiescent(self.eventually, self.configs[c].decode(vec), idx, depth, self.found, self.bounds)
            for name in set(self.found) - before:
                self.depth_of[name] = depth

    def visit(self, c: int, vec: list) -> None:
        self._visit(self.configs[c].decode(vec))

    def pace(self, states: int, transitions: int, depth: int, queued: int) -> bool:
        """``bfs.Pace``'s checks, asked after a discovery, at the state bound and every 64
        states: the loop asks no more often, since between two discoveries the stop condition's
        answer cannot change.  Once forked into workers, the checks are made at levels' ends
        (``decide``): a level is finished by all or by none."""
        if self.workers is not None and self.workers.forked:
            return False
        return self._pace.check(self.out, self.found, states, transitions, depth, queued)

    # -- workers ------------------------------------------------------------------------------------
    def level_end(self, depth: int, queued: int, states: int, transitions: int, deepest: int) -> int:
        """A level's end (``queued``: the next level's states here): before the fork, whether
        to fork; after, the workers' decision (``Workers.level_end``)."""
        w = self.workers
        if w is None:
            return 0
        if not w.forked:
            w.fork(self.core, self, depth, queued)
            return 0
        return w.level_end(self, self.core, depth, queued)

    def exchange(self, depth: int, pending: bytes) -> bytes:
        return self.workers.exchange(self.core, depth, pending)

    def workers_child(self) -> None:
        """This process became a worker other than rank 0: rank 0 reports and decides."""
        self.child = True
        self.bounds = dataclasses.replace(self.bounds, progress=None)

    def decide(self, depth: int, reports: list, w: Workers) -> int:
        """Rank 0, at a level's end: the workers' figures added up, new discoveries named, and
        the bounds applied as ``bfs.Pace`` applies them.  0 go on, 1 nothing is left anywhere,
        2 stop."""
        for r in reports:
            if r and r[0] == "error":
                raise WorkerError(r[1])
        b, out = self.bounds, self.out
        a = w.at_fork
        totals = {k: a[k] + sum(r[1][k] for r in reports) for k in ("states", "transitions")}
        totals["deepest"] = max(r[1]["deepest"] for r in reports)
        self.totals = totals
        found: dict = {name: ("", 0) for name in a["found"]}
        for r in reports:
            for name, (kind, steps) in r[2].items():
                if name not in found or steps < found[name][1]:
                    found[name] = (kind, steps)
        for name, (kind, steps) in sorted(found.items()):
            if name not in self.told and name not in a["found"]:
                self.told.add(name)
                if name not in self.found:  # rank 0's own were named when found
                    b.violation(name, kind, steps)
        queued = sum(r[0] for r in reports)
        if found and b.stop_when(found):
            out.stopped = b.stop_reason
            return 2
        if b.max_states is not None and totals["states"] >= b.max_states:
            out.stopped = f"state bound {b.max_states} reached"
            return 2
        if queued == 0:
            return 1
        now = time.perf_counter()
        if b.max_seconds is not None and now - self.started > b.max_seconds:
            out.stopped = f"time bound {b.max_seconds:g}s reached"
            return 2
        if b.progress is not None and now >= self._pace.next_report:
            out.states, out.transitions, out.depth, out.elapsed = totals["states"], totals["transitions"], totals["deepest"], now - self.started
            b.progress(out, queued)
            self._pace.next_report = now + b.progress_every
        return 0

    def discoveries_found(self, since: set) -> dict:
        """``{name: (kind, steps)}`` of this process's discoveries not in ``since``."""
        return {k: (v[4], self.depth_of.get(k, 0)) for k, v in self.found.items() if k not in since}


def compiled_loop(configs: list, queue, store, seen: set, found: dict, always: list, sometimes: list, eventually: list,
                  bounds, out, started: float, visit, spec=None, workers: int = 1) -> tuple[int, int, int, int, int, bool, dict]:
    """The search from ``queue`` (``(config, vector, sums, index, depth)`` at depth 0) on the
    compiled loop, ``configs`` the ``memo.MemoSpec`` of each parallelism configuration; the
    store gets the new states' links.  Returns the figures ``memo_search``'s loop keeps: states,
    transitions, depth, quiescent states, enabled groups asked (one per group per expanded state),
    whether nothing was left to expand, and what only workers have (``memo_workers``): the
    discoveries other workers made (``(prop, reason, path, kind)`` by name), each worker's
    computed calls, the depth of the fork."""
    w = Workers(workers) if workers > 1 else None
    driver = Driver(configs, out, found, bounds, started, always, sometimes, eventually, visit, w)
    core = Core(tuple(ms.lay.size for ms in configs), len(configs[0]._zs), driver)
    driver.core = core
    for fp in seen:
        core.mark_seen(fp)
    inits = [(c, vec, sums, idx) for c, vec, sums, idx, _ in queue]
    max_depth = -1 if bounds.max_depth is None else bounds.max_depth
    max_states = -1 if bounds.max_states is None else bounds.max_states
    extra: dict = {}
    interrupted = False
    try:
        core.search(inits, len(store.fps), tuple(len(ms.groups) for ms in configs), max_depth, max_states, bool(always), bool(sometimes),
                    bool(eventually), visit is not None)
    except KeyboardInterrupt:
        out.stopped = "interrupted (Ctrl-C)"
        interrupted = True
    except BaseException:
        if driver.child:  # a worker's error goes to rank 0, which raises it
            w.barrier.abort()
            w.pipe.send(("error", traceback.format_exc()))
            w.finish_child(core, driver, [], send=False)
        if w is not None and w.forked:
            errors = [m[1] for p in w.pipes if p.poll(5) for m in [p.recv()] if m and m[0] == "error"]
            w.kill()
            if errors:
                raise WorkerError(errors[0]) from None
        raise
    finally:
        fps, parents, actions = core.store_bytes()
        store.fps.frombytes(fps)
        store.parent.frombytes(parents)
        store.action.frombytes(actions)
    if driver.child:  # a worker's discoveries, rebuilt from its own store, go to rank 0; it ends here
        mine = []
        for name, (prop, why, idx, act, kind) in found.items():
            if name not in w.at_fork["found"]:
                path = store.rebuild(spec, idx, configs[0].world_fingerprint)
                if act is not None:
                    path.append(act)
                mine.append((name, why, path, kind))
        w.finish_child(core, driver, mine)
    if core.depth_stopped and not out.stopped:
        out.stopped = f"depth bound {bounds.max_depth} reached"
    configs[0].calls += core.check_calls  # the properties and witnesses asked (the Python loop counts them in MemoSpec.checks)
    figures = (core.states, core.transitions, core.deepest, core.quiescent, core.group_calls, core.queued == 0)
    if w is not None and w.forked:
        if interrupted:
            w.kill()
            t = driver.totals or {"states": core.states, "transitions": core.transitions, "deepest": core.deepest}
            figures = (t["states"], t["transitions"], t["deepest"], core.quiescent, core.group_calls, False)
        else:
            total, theirs, misses, seconds = w.gather(core, driver)
            if total["depth_stopped"] and not out.stopped:
                out.stopped = f"depth bound {bounds.max_depth} reached"
            configs[0].calls += total["check_calls"] - core.check_calls
            configs[0].misses += sum(misses[1:])
            configs[0].miss_seconds += seconds
            figures = (total["states"], total["transitions"], total["deepest"], total["quiescent"], total["group_calls"],
                       core.exhausted)
            props = {p.name: p for p, _ in (*spec.always, *spec.eventually, *spec.sometimes)}
            for name, why, path, kind in theirs:
                extra.setdefault("discoveries", {})
                cur = extra["discoveries"].get(name)
                if cur is None or len(path) < len(cur[2]):
                    extra["discoveries"][name] = (props[name], why, path, kind)
            extra.update(misses=misses, fork_depth=w.fork_depth, workers=w.n)
    return (*figures, extra)
