"""Breadth-first search over several processes, level by level, partitioned by fingerprint.

Worker ``r`` of ``n`` owns the states whose fingerprint is ``r`` modulo ``n``: it keeps their
fingerprints, parent links and action indexes, checks the ``always`` properties on the states
it owns, and expands its part of each level (checking ``sometimes`` on those transitions and
``eventually`` where no progress is possible).  A successor owned by another worker goes to it
once per level: its fingerprint first, then the world only if the owner lacks it; within a
level the first sender in rank order and expansion order wins, so a run is deterministic for a
given number of workers.  The coordinating process
only counts, decides when to stop, and rebuilds counterexamples by following the parent links
across workers and re-executing them from the initial state (checking every fingerprint).

Every level is finished before the next starts, so each discovery is made at its least depth:
counterexamples are as short as the one-process search's (they may differ in which of several
shortest runs they show).  State and transition counts are those of the one-process search.
Ctrl-C ends the level early and keeps the figures and what was found; bounds are checked at
level ends (the time bound also inside a level).
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import resource
import signal
import sys
import time
import traceback
from array import array
from typing import Any, Callable

from .bfs import Bounds, finish_outcome, reexecute, successors_of


SLICE = 25_000  # frontier states a worker expands before an exchange: bounds the successors held at once


class WorkerError(RuntimeError):
    """A worker process raised: its traceback, as text."""


class _Worker:
    """One process's share of the search."""

    def __init__(self, model, rank: int, n: int, inboxes, halt) -> None:
        self.model = model
        self.rank = rank
        self.n = n
        self.inboxes = inboxes
        self.halt = halt
        self.seen: set[int] = set()
        self.fps = array("q")
        self.parent_rank = array("b")  # -1: an initial state, and parent_idx is its index
        self.parent_idx = array("q")
        self.action = array("H")
        self.frontier: list = []  # (world, local index)
        self.stash: dict[str, dict] = {}  # messages of a later phase that arrived early
        self.always = list(model.always)
        self.eventually = list(model.eventually)
        self.sometimes = list(model.sometimes)

    def _add(self, fp: int, prank: int, pidx: int, action: int) -> int:
        self.seen.add(fp)
        self.fps.append(fp)
        self.parent_rank.append(prank)
        self.parent_idx.append(pidx)
        self.action.append(action)
        return len(self.fps) - 1

    def _always(self, t, idx: int, found: list) -> None:
        for item in tuple(self.always):
            prop, check = item
            why = check(t)
            if why is not None:
                found.append((prop.name, "always", why, self.rank, idx, None))
                self.always.remove(item)

    def init(self, inits: list) -> dict:
        canon = self.model.canonical
        found: list = []
        for r, s in enumerate(inits):
            fp = hash(canon(s) if canon else s)
            if fp % self.n != self.rank or fp in self.seen:
                continue
            idx = self._add(fp, -1, r, 0)
            self._always(s, idx, found)
            self.frontier.append((s, idx))
        return {"new": len(self.frontier), "found": found, "frontier": len(self.frontier)}

    def _post(self, to: int, phase: tuple, payload) -> None:
        self.inboxes[to].put((phase, self.rank, payload))

    def _gather(self, phase: tuple) -> dict:
        """The ``phase`` messages of every other worker, by sender.  A faster worker's message
        of a later phase may arrive first: it is kept for its phase."""
        got = self.stash.pop(phase, {})
        while len(got) < self.n - 1:
            ph, sender, payload = self.inboxes[self.rank].get()
            if ph == phase:
                got[sender] = payload
            else:
                self.stash.setdefault(ph, {})[sender] = payload
        return got

    def level(self, expand: bool, drop: set, deadline: float | None, slices: int = 1) -> dict:
        """Expand this worker's frontier in ``slices`` consecutive parts, each followed by its
        exchange: the next frontier.

        Every worker runs the same number of slices (the coordinator sets it from the largest
        frontier), so the exchanges pair up; the successors held for an exchange are those of
        one slice, which bounds the memory of a wide level.  A state claimed in an earlier slice
        is already in ``seen`` for the later ones, and nothing of the next level is expanded
        before this level ends, so counts and depths are those of one exchange per level."""
        for lst in (self.always, self.eventually, self.sometimes):
            lst[:] = [x for x in lst if x[0].name not in drop]
        frontier = self.frontier if expand else []
        self.frontier = []
        found: list = []
        stats = {"transitions": 0, "quiescent": 0, "halted": False, "timed_out": False}
        nxt: list = []
        per = -(-len(frontier) // slices) if frontier else 0
        for k in range(slices):
            part = frontier[k * per:(k + 1) * per]
            frontier[k * per:(k + 1) * per] = [None] * len(part)  # this slice's worlds die with their successors
            stop = stats["halted"] or stats["timed_out"]
            outgoing = self._expand([] if stop else part, deadline, found, stats)
            del part
            self._exchange(k, outgoing, nxt, found)
        self.frontier = nxt
        return {"new": len(nxt), "transitions": stats["transitions"], "quiescent": stats["quiescent"], "found": found,
                "halted": stats["halted"], "timed_out": stats["timed_out"], "frontier": len(nxt), "states": len(self.seen),
                "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}

    def _expand(self, part: list, deadline: float | None, found: list, stats: dict) -> list[dict]:
        """The successors of ``part``, by owner: ``{fp: (world, parent index, action index)}``
        (successors this worker owns and has seen are dropped at once)."""
        model = self.model
        canon, successors, is_progress = model.canonical, successors_of(model), model.is_progress
        n, rank = self.n, self.rank
        seen = self.seen
        outgoing: list[dict] = [{} for _ in range(n)]
        trans = quiescent = 0
        for count, (s, idx) in enumerate(part):
            if count & 63 == 63:
                if self.halt.is_set():
                    stats["halted"] = True
                    break
                if deadline is not None and time.perf_counter() > deadline:
                    stats["timed_out"] = True
                    break
            has_progress = False
            for i, (a, t) in enumerate(successors(s)):
                trans += 1
                if not has_progress and is_progress(a):
                    has_progress = True
                if self.sometimes:
                    for item in tuple(self.sometimes):
                        prop, check = item
                        what = check(s, a, t)
                        if what is not None:
                            found.append((prop.name, "sometimes", what, rank, idx, i))
                            self.sometimes.remove(item)
                fp = hash(canon(t) if canon else t)
                owner = fp % n
                if owner == rank and fp in seen:
                    continue
                box = outgoing[owner]
                if fp not in box:
                    box[fp] = (t, idx, i)
            if not has_progress:
                quiescent += 1
                for item in tuple(self.eventually):
                    prop, check = item
                    why = check(s)
                    if why is not None:
                        found.append((prop.name, "eventually", why, rank, idx, None))
                        self.eventually.remove(item)
        stats["transitions"] += trans
        stats["quiescent"] += quiescent
        return outgoing

    def _exchange(self, k: int, outgoing: list[dict], nxt: list, found: list) -> None:
        """Slice ``k``'s exchange; the new states this worker owns go to ``nxt``.

        Fingerprints go first: each owner answers which of them it lacks (the first sender in
        rank order wins a fingerprint two workers both send), and only those worlds are pickled
        and sent.  Most successors are states seen before, so this sends a fraction of the
        worlds."""
        n, rank = self.n, self.rank
        seen = self.seen
        # 1. fingerprints to their owners
        for o in range(n):
            if o != rank:
                self._post(o, ("fps", k), list(outgoing[o]))
        offered = self._gather(("fps", k))
        offered[rank] = list(outgoing[rank])
        # 2. which of them this owner lacks: positions in each sender's list, first sender wins
        claimed: set[int] = set()
        wanted: dict[int, list[int]] = {}
        for r in range(n):
            mine = []
            for pos, fp in enumerate(offered.pop(r)):
                if fp not in seen and fp not in claimed:
                    claimed.add(fp)
                    mine.append(pos)
            wanted[r] = mine
        del claimed
        for r in range(n):
            if r != rank:
                self._post(r, ("want", k), wanted[r])
        asked = self._gather(("want", k))
        # 3. the worlds asked for
        for o in range(n):
            if o != rank:
                items = list(outgoing[o].items())
                self._post(o, ("states", k), [(items[pos][0], *items[pos][1]) for pos in asked[o]])
                outgoing[o] = None
                del items
        own = list(outgoing[rank].items())
        batches = self._gather(("states", k))
        batches[rank] = [(own[pos][0], *own[pos][1]) for pos in wanted[rank]]
        del outgoing, own
        for r in range(n):
            for fp, t, pidx, i in batches.pop(r):
                tidx = self._add(fp, r, pidx, i)
                if self.always:
                    self._always(t, tidx, found)
                nxt.append((t, tidx))

    def link(self, idx: int) -> tuple[int, int, int, int]:
        return self.parent_rank[idx], self.parent_idx[idx], self.action[idx], self.fps[idx]


def _serve(model, rank: int, n: int, inboxes, halt, conn) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C
    gc.disable()
    w = _Worker(model, rank, n, inboxes, halt)
    while True:
        msg = conn.recv()
        op = msg[0]
        try:
            if op == "init":
                conn.send(w.init(msg[1]))
            elif op == "level":
                conn.send(w.level(*msg[1:]))
            elif op == "links":
                conn.send([w.link(i) for i in msg[1]])
            else:
                conn.close()
                return
        except Exception:  # a model (or a design's component) that raises: tell the coordinator
            conn.send({"error": traceback.format_exc()})
            conn.close()
            return


def parallel_search(model, out, discovery: Callable[..., Any], bounds: Bounds, *, workers: int) -> None:
    """The search over ``workers`` processes; fills ``out`` (an ``ExploreOutcome``)."""
    started = time.perf_counter()
    max_states, max_seconds, max_depth = bounds.max_states, bounds.max_seconds, bounds.max_depth
    stop_when, stop_reason, progress, progress_every = bounds.stop_when, bounds.stop_reason, bounds.progress, bounds.progress_every
    ctx = multiprocessing.get_context("fork")
    n = workers
    inboxes = [ctx.Queue() for _ in range(n)]
    halt = ctx.Event()
    conns, procs = [], []
    for r in range(n):
        mine, theirs = ctx.Pipe()
        p = ctx.Process(target=_serve, args=(model, r, n, inboxes, halt, theirs), daemon=True)
        p.start()
        theirs.close()
        conns.append(mine)
        procs.append(p)
    found: dict[str, tuple] = {}  # name -> (length, rank, idx, extra action index, kind, reason)
    props = {p.name: p for p, _ in (*model.always, *model.eventually, *model.sometimes)}
    states = transitions = quiescent = 0
    depth = 0
    next_report = started + progress_every
    inits = list(model.initial_states())

    def ask(op, *args) -> list:
        """Every worker's reply to ``op``.  A worker that fails (its model raised) or dies
        fails the search at once: the others may be waiting for its share of the exchange,
        so waiting for their replies first would never end."""
        for c in conns:
            c.send((op, *args))
        replies: dict[int, Any] = {}
        while len(replies) < n:
            waiting = {conns[r]: r for r in range(n) if r not in replies}
            dead = {procs[r].sentinel: r for r in range(n) if r not in replies}
            for ready in multiprocessing.connection.wait([*waiting, *dead]):
                if ready in waiting:
                    r = waiting[ready]
                    try:
                        replies[r] = ready.recv()
                    except EOFError:
                        raise WorkerError(f"search worker {r} exited (code {procs[r].exitcode}) without a reply") from None
                    if isinstance(replies[r], dict) and "error" in replies[r]:
                        raise WorkerError(f"a search worker failed:\n{replies[r]['error']}")
                elif not conns[dead[ready]].poll():
                    r = dead[ready]
                    procs[r].join(timeout=1)
                    raise WorkerError(f"search worker {r} exited (code {procs[r].exitcode}) without a reply")
        return [replies[r] for r in range(n)]

    def take(replies: list, level: int | None) -> None:
        """Keep, per property, the discovery with the shortest path (then the least rank and
        index, so that the choice does not depend on timing).  ``level`` is the depth of the
        states expanded (None: the initial states)."""
        for rep in replies:
            for name, kind, why, rank, idx, extra in rep["found"]:
                length = 0 if level is None else level if kind == "eventually" else level + 1
                key = (length, rank, idx, -1 if extra is None else extra)
                if name not in found or key < found[name][0]:
                    found[name] = (key, rank, idx, extra, kind, why)

    # Ctrl-C during the search sets ``halt`` instead of raising: the workers end the level early
    # and every reply still arrives, so the partial figures and discoveries are kept.
    try:
        old_handler = signal.signal(signal.SIGINT, lambda *_: halt.set())
    except ValueError:  # not the main thread: Ctrl-C is not ours to handle
        old_handler = None
    try:
        replies = ask("init", inits)
        states = sum(r["new"] for r in replies)
        widest = max(r["frontier"] for r in replies)
        take(replies, None)
        level = 0
        frontier = states
        while frontier:
            depth = level
            expand = max_depth is None or level < max_depth
            if not expand:
                out.stopped = f"depth bound {max_depth} reached"
            deadline = started + max_seconds if max_seconds is not None else None
            slices = max(1, -(-widest // SLICE))
            replies = ask("level", expand, set(found), deadline, slices)
            states += sum(r["new"] for r in replies)
            transitions += sum(r["transitions"] for r in replies)
            quiescent += sum(r["quiescent"] for r in replies)
            take(replies, level)
            out.workers_peak_mb = sum(r["peak_mb"] for r in replies)
            frontier = sum(r["frontier"] for r in replies) if expand else 0
            widest = max(r["frontier"] for r in replies)
            level += 1
            if halt.is_set():
                out.stopped = "interrupted (Ctrl-C)"
                break
            if any(r["timed_out"] for r in replies):
                out.stopped = f"time bound {max_seconds:g}s reached"
                break
            if found and stop_when(found):
                out.stopped = stop_reason
                break
            if max_states is not None and states >= max_states:
                out.stopped = f"state bound {max_states} reached"
                break
            now = time.perf_counter()
            if max_seconds is not None and now - started > max_seconds and frontier:
                out.stopped = f"time bound {max_seconds:g}s reached"
                break
            if progress is not None and now >= next_report:
                out.states, out.transitions, out.depth, out.elapsed = states, transitions, depth, now - started
                progress(out, frontier)
                next_report = now + progress_every
        finish_outcome(out, states=states, transitions=transitions, depth=depth, quiescent=quiescent,
                       exhausted=frontier == 0, workers=n)
        for name, (_, rank, idx, extra, kind, why) in found.items():
            out.discoveries[name] = discovery(props[name], why, _rebuild(model, conns, inits, rank, idx, extra), kind)
    finally:
        if old_handler is not None:
            signal.signal(signal.SIGINT, old_handler)
        for c in conns:
            try:
                c.send(("stop",))
            except (BrokenPipeError, OSError):
                pass
        for p in procs:
            p.join(timeout=5 if sys.exc_info()[0] is None else 0)
            if p.is_alive():
                p.terminate()
        for q in inboxes:
            q.close()
    out.elapsed = time.perf_counter() - started


def _rebuild(model, conns, inits: list, rank: int, idx: int, extra: int | None) -> list:
    """Follow parent links across workers to an initial state, then re-execute the path,
    checking each state's fingerprint."""
    chain = []  # (fp, action index) from the state back to the root's child
    while True:
        conns[rank].send(("links", [idx]))
        (prank, pidx, action, fp), = conns[rank].recv()
        if prank < 0:
            s = inits[pidx]
            break
        chain.append((fp, action))
        rank, idx = prank, pidx
    chain.reverse()
    path, end = reexecute(model, s, chain)
    if extra is not None:
        path.append(model.actions(end)[extra])
    return path
