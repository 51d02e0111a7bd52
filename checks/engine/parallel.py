"""Breadth-first search over several processes, level by level, partitioned by fingerprint.

Worker ``r`` of ``n`` owns the fingerprints that are ``r`` modulo ``n``: it keeps them, with a
parent link and an action index per state, and decides which successors are new.  The worlds
themselves stay where they were generated.  A worker expands its share of a level and sends
the fingerprints of the successors it does not own to their owners in batches (a fingerprint,
its parent's fingerprint and link, the action's index); each owner answers, between its own
expansions, which of them are new, and the worker that sent a new one keeps its world for the
next level.  Worlds cross between processes only when a worker with nothing left to expand takes
half of what a busy one has left, and at a level's end, when the coordinator evens out the next
frontiers by moving the excess once; no worker waits for another before it runs out of work.

Every level is finished before the next starts, so each discovery is made at its least depth:
counterexamples are as short as the one-process search's.  State and transition counts are
those of the one-process search.  The results do not depend on timing, nor on the number of
workers: a frontier holds canonical worlds (with symmetry, the least permutation, so a
fingerprint names one world and an action index means the same action wherever it is
generated); a new state's parent link is the least (parent fingerprint, action index) among all
the transitions of its level that reach it, and each property's discovery is the least by
(depth, fingerprint).  The coordinator rebuilds a counterexample by following the links across
workers and re-executing them from the initial state, checking every fingerprint; with
symmetry the re-execution picks, in each concrete state, the first action whose successor has
the stored fingerprint, so the path stays in one naming of the subtasks, and the reason is
computed again on the state the path reaches.

Ctrl-C ends the level early and keeps the figures and what was found; bounds are checked at
level ends (the time bound also inside a level).

This module is the coordinator's side; a worker process is ``checks.engine.parallel_worker``, which
gets its batch sizes (``FLUSH``, ``POLL``, ``STEAL_MIN`` below) when it starts.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import sys
import time
from typing import Any, Callable

from .bfs import Bounds, FingerprintCollision, finish_outcome, reexecute, stored_first
from .parallel_worker import _Worker, _serve  # noqa: F401  (_Worker re-exported)


FLUSH = 256  # frontier states a worker expands between two batches of fingerprints to each owner
POLL = 32  # frontier states between two looks at the inbox (answering owners' questions early)
STEAL_MIN = 64  # a busy worker gives an idle one half of what it has left if that is more than this


class WorkerError(RuntimeError):
    """A worker process raised: its traceback, as text."""


def _moves(sizes: list[int]) -> list[tuple[int, int, int]]:
    """Transfers ``(from, to, count)`` that even out frontier ``sizes`` (to within one state)."""
    n = len(sizes)
    total = sum(sizes)
    target = [total // n + (1 if r < total % n else 0) for r in range(n)]
    give = [(r, sizes[r] - target[r]) for r in range(n) if sizes[r] > target[r]]
    take = [(r, target[r] - sizes[r]) for r in range(n) if sizes[r] < target[r]]
    out = []
    while give and take:
        (g, x), (t, y) = give[0], take[0]
        k = min(x, y)
        out.append((g, t, k))
        give[0], take[0] = (g, x - k), (t, y - k)
        if x == k:
            give.pop(0)
        if y == k:
            take.pop(0)
    return out


def parallel_search(model, out, discovery: Callable[..., Any], bounds: Bounds, *, workers: int) -> None:
    """The search over ``workers`` processes; fills ``out`` (an ``ExploreOutcome``)."""
    started = time.perf_counter()
    max_states, max_seconds, max_depth = bounds.max_states, bounds.max_seconds, bounds.max_depth
    stop_when, stop_reason, progress, progress_every = bounds.stop_when, bounds.stop_reason, bounds.progress, bounds.progress_every
    ctx = multiprocessing.get_context("fork")
    n = workers
    inboxes = [ctx.Queue() for _ in range(n)]
    halt = ctx.Event()
    live = ctx.RawArray("q", 3 * n)
    conns, procs = [], []
    for r in range(n):
        mine, theirs = ctx.Pipe()
        p = ctx.Process(target=_serve, args=(model, r, n, inboxes, halt, theirs, (FLUSH, POLL, STEAL_MIN), live), daemon=True)
        p.start()
        theirs.close()
        conns.append(mine)
        procs.append(p)
    found: dict[str, tuple] = {}  # name -> (key, rank, idx, extra, kind, reason)
    props = {p.name: (p, check) for p, check in (*model.always, *model.eventually, *model.sometimes)}
    states = transitions = quiescent = 0
    depth = 0
    next_report = started + progress_every
    inits = list(model.initial_states())

    def tick(level: int) -> None:
        """A progress line inside a level, from the counters the workers share: a level of a
        large scope takes minutes."""
        nonlocal next_report
        now = time.perf_counter()
        if progress is None or now < next_report:
            return
        out.states = states + sum(live[3 * r] for r in range(n))
        out.transitions = transitions + sum(live[3 * r + 1] for r in range(n))
        out.depth, out.elapsed = level, now - started
        progress(out, sum(live[3 * r + 2] for r in range(n)))
        next_report = now + progress_every

    def ask(op, *args, level: int | None = None) -> list:
        """Every worker's reply to ``op``.  A worker that fails (its model raised) or dies
        fails the search at once: the others may be waiting for its answers, so waiting for
        their replies first would never end."""
        for c in conns:
            c.send((op, *args))
        replies: dict[int, Any] = {}
        while len(replies) < n:
            waiting = {conns[r]: r for r in range(n) if r not in replies}
            dead = {procs[r].sentinel: r for r in range(n) if r not in replies}
            timeout = None if progress is None or level is None else max(0.0, next_report - time.perf_counter()) + 0.01
            ready_list = multiprocessing.connection.wait([*waiting, *dead], timeout)
            if not ready_list:
                tick(level)
                continue
            for ready in ready_list:
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
        """Keep, per property, the least discovery by (path length, fingerprint key): the
        choice depends neither on timing nor on the number of workers.  ``level`` is the depth
        of the states expanded (None: the initial states)."""
        for rep in replies:
            for name, kind, why, rank, idx, extra, key in rep["found"]:
                length = 0 if level is None else level if kind == "eventually" else level + 1
                k = (length, *key)
                if name not in found:
                    bounds.violation(name, kind, length)
                if name not in found or k < found[name][0]:
                    found[name] = (k, rank, idx, extra, kind, why)

    # Ctrl-C during the search sets ``halt`` instead of raising: the workers end the level early
    # and every reply still arrives, so the partial figures and discoveries are kept.
    try:
        old_handler = signal.signal(signal.SIGINT, lambda *_: halt.set())
    except ValueError:  # not the main thread: Ctrl-C is not ours to handle
        old_handler = None
    try:
        replies = ask("init", inits)
        states = sum(r["new"] for r in replies)
        sizes = [r["frontier"] for r in replies]
        take(replies, None)
        level = 0
        frontier = states
        while frontier:
            depth = level
            expand = max_depth is None or level < max_depth
            if not expand:
                out.stopped = f"depth bound {max_depth} reached"
            deadline = started + max_seconds if max_seconds is not None else None
            for r in range(3 * n):
                live[r] = 0
            replies = ask("level", level, expand, set(found), deadline, _moves(sizes) if expand else [], level=level)
            states += sum(r["new"] for r in replies)
            transitions += sum(r["transitions"] for r in replies)
            quiescent += sum(r["quiescent"] for r in replies)
            take(replies, level)
            out.workers_peak_mb = sum(r["peak_mb"] for r in replies)
            sizes = [r["frontier"] for r in replies]
            frontier = sum(sizes) if expand else 0
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
        for name, (_, rank, idx, extra, kind, _why) in found.items():
            prop, check = props[name]
            path, why = _rebuild(model, conns, inits, rank, idx, kind, check, extra)
            out.discoveries[name] = discovery(prop, why, path, kind)
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


def _rebuild(model, conns, inits: list, rank: int, idx: int, kind: str, check, extra: int | None) -> tuple[list, str]:
    """The path to a discovery and its reason, computed again on the state the path reaches.

    Follows the parent links across workers to an initial state, then re-executes the path
    (``bfs.reexecute``, which finds the action of a concrete state that reaches each stored
    fingerprint)."""
    chain = []  # (fingerprint, action index) per step, from the discovery's state back to the root's child
    while True:
        conns[rank].send(("links", [idx]))
        reply = conns[rank].recv()
        if isinstance(reply, dict) and "error" in reply:
            raise WorkerError(f"a search worker failed:\n{reply['error']}")
        (prank, pidx, action, fp), = reply
        if prank < 0:
            s = inits[pidx]
            break
        chain.append((fp, action))
        rank, idx = prank, pidx
    chain.reverse()
    path, s = reexecute(model, s, chain)
    if kind == "sometimes":
        acts = model.actions(s)
        for k in stored_first(extra, len(acts)):
            again = check(s, acts[k], model.next_state(s, acts[k]))
            if again is not None:
                path.append(acts[k])
                return path, again
        raise FingerprintCollision("the state of a stored discovery re-executed to one without it")
    again = check(s)
    if again is None:
        raise FingerprintCollision("the state of a stored discovery re-executed to one without it")
    return path, again
