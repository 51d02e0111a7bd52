"""One worker process of the multi-process search (``checks.engine.parallel``, whose docstring states
the algorithm): worker ``r`` of ``n`` owns the fingerprints that are ``r`` modulo ``n``, expands
its share of each level, claims the successors it does not own from their owners in batches,
answers its peers' claims, and hands half of what it has left to an idle peer.  ``_serve`` is
the process's loop, answering the coordinator's requests (``init``, ``level``, ``links``).
"""

from __future__ import annotations

import gc
import resource
import signal
import sys
import time
import traceback
from array import array

from .bfs import successors_of


class _Worker:
    """One process's share of the search."""

    def __init__(self, model, rank: int, n: int, inboxes, halt, tuning: tuple[int, int, int], live=None) -> None:
        self.model = model
        self.flush, self.poll, self.steal_min = tuning  # checks.engine.parallel's FLUSH, POLL, STEAL_MIN
        self.live = live  # shared with the coordinator, for progress lines inside a level: new states, transitions, queue
        self.level_trans = 0
        self.rank = rank
        self.n = n
        self.inboxes = inboxes
        self.inbox = inboxes[rank]
        self.halt = halt
        self.seen: set[int] = set()
        # the owned states' records: fingerprint, parent (owner rank, index there; rank -1: an
        # initial state, and the index is its position in the initial states), action index
        self.fps = array("q")
        self.parent_rank = array("b")
        self.parent_idx = array("q")
        self.action = array("H")
        self.fresh: dict[int, list] = {}  # this level's new fingerprints: [index, parent fp, action index]
        self.frontier: list = []  # (canonical world, fingerprint, record index at its owner)
        self.nxt: list = []
        self.level_no = -1
        self.stash: list = []  # messages of a later level that arrived early
        self.pending: list[dict] = [{} for _ in range(n)]  # batch id -> worlds, per owner
        self.batch_id = 0
        self.done_from: set[int] = set()
        self.moved_from: set[int] = set()
        self.work: list | None = None  # the list being expanded, up to ``end``; ``cursor``: the next state
        self.end = self.cursor = 0
        self.loot: list | None = None  # work taken from a busy worker ([]: it had none to give)
        self.found: dict[str, tuple] = {}  # property -> (key, kind, reason, rank, idx, extra): least key
        self.always = list(model.always)
        self.eventually = list(model.eventually)
        self.sometimes = list(model.sometimes)

    # -- records -------------------------------------------------------------------------------

    def _add(self, fp: int, prank: int, pidx: int, action: int) -> int:
        self.seen.add(fp)
        self.fps.append(fp)
        self.parent_rank.append(prank)
        self.parent_idx.append(pidx)
        self.action.append(action)
        return len(self.fps) - 1

    def _claim(self, fp: int, pfp: int, pidx: int, i: int) -> int:
        """The record index of ``fp`` if this claim makes it new, else -1; a claim of a state new
        in this level with a lesser (parent fingerprint, action) becomes its parent link."""
        if fp in self.seen:
            rec = self.fresh.get(fp)
            if rec is not None and (pfp, i) < (rec[1], rec[2]):
                idx = rec[0]
                self.parent_rank[idx] = pfp % self.n
                self.parent_idx[idx] = pidx
                self.action[idx] = i
                rec[1] = pfp
                rec[2] = i
            return -1
        idx = self._add(fp, pfp % self.n, pidx, i)
        self.fresh[fp] = [idx, pfp, i]
        return idx

    def _note(self, name: str, key: tuple, kind: str, why: str, rank: int, idx: int, extra: int | None) -> None:
        old = self.found.get(name)
        if old is None or key < old[0]:
            self.found[name] = (key, kind, why, rank, idx, extra)

    def _always(self, t, fp: int, idx: int) -> None:
        for prop, check in self.always:
            why = check(t)
            if why is not None:
                self._note(prop.name, (fp,), "always", why, fp % self.n, idx, None)

    def _new(self, t, fp: int, idx: int) -> None:
        if self.always:
            self._always(t, fp, idx)
        self.nxt.append((t, fp, idx))

    # -- messages ------------------------------------------------------------------------------

    def _post(self, to: int, kind: str, payload) -> None:
        self.inboxes[to].put((self.level_no, kind, self.rank, payload))

    def _handle(self, msg) -> None:
        level, kind, sender, payload = msg
        if level != self.level_no:
            self.stash.append(msg)
            return
        if kind == "claims":
            bid, flat = payload
            won = array("q")
            claim = self._claim
            for pos in range(len(flat) // 4):
                idx = claim(flat[4 * pos], flat[4 * pos + 1], flat[4 * pos + 2], flat[4 * pos + 3])
                if idx >= 0:
                    won.append(pos)
                    won.append(idx)
            self._post(sender, "answers", (bid, won))
        elif kind == "answers":
            bid, won = payload
            worlds = self.pending[sender].pop(bid)
            for k in range(0, len(won), 2):
                t, fp = worlds[won[k]]
                self._new(t, fp, won[k + 1])
        elif kind == "idle":  # a worker with nothing left to expand: give it half of what is left
            work, end = self.work, self.end
            if work is not None and end - self.cursor > self.steal_min:
                mid = (self.cursor + end + 1) // 2
                self._post(sender, "work", work[mid:end])
                del work[mid:end]
                self.end = mid
            else:
                self._post(sender, "work", [])
        elif kind == "work":
            self.loot = payload
        elif kind == "done":
            self.done_from.add(sender)
        elif kind == "move":
            self.nxt.extend(payload)  # the frontier being built at the start of a level: see level()
            self.moved_from.add(sender)
        else:
            raise RuntimeError(f"unknown message {kind!r}")

    def _drain(self) -> None:
        inbox = self.inbox
        while not inbox.empty():
            self._handle(inbox.get())

    def _flush(self, boxes: list[dict]) -> None:
        for o, box in enumerate(boxes):
            if o == self.rank or not box:
                continue
            flat = array("q")
            worlds = []
            for fp, (t, pfp, pidx, i) in box.items():
                flat.append(fp)
                flat.append(pfp)
                flat.append(pidx)
                flat.append(i)
                worlds.append((t, fp))
            self.batch_id += 1
            self.pending[o][self.batch_id] = worlds
            self._post(o, "claims", (self.batch_id, flat))
            box.clear()

    def _level_start(self, level_no: int) -> None:
        self.level_no = level_no
        self.level_trans = 0
        self.done_from = set()
        self.moved_from = set()
        early, self.stash = self.stash, []
        for msg in early:
            self._handle(msg)

    # -- the search ----------------------------------------------------------------------------

    def init(self, inits: list) -> dict:
        canon = self.model.canonical
        self.level_no = -1
        for r, s in enumerate(inits):
            c = canon(s) if canon else s
            fp = hash(c)
            if fp % self.n != self.rank or fp in self.seen:
                continue
            self._new(c, fp, self._add(fp, -1, r, 0))
        return self._reply(0)

    def _reply(self, transitions: int, quiescent: int = 0, halted: bool = False, timed_out: bool = False) -> dict:
        self.frontier, self.nxt = self.nxt, []
        found = [(name, kind, why, rank, idx, extra, key) for name, (key, kind, why, rank, idx, extra) in self.found.items()]
        self.found = {}
        new = len(self.fresh) if self.level_no >= 0 else len(self.seen)
        self.fresh = {}
        return {"new": new, "transitions": transitions, "quiescent": quiescent, "found": found,
                "halted": halted, "timed_out": timed_out, "frontier": len(self.frontier), "states": len(self.seen),
                "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}

    def level(self, level_no: int, expand: bool, drop: set, deadline: float | None, moves: list) -> dict:
        """Expand this worker's frontier; the reply counts the next one.

        ``moves`` evens the frontiers out first: ``(from, to, count)``, the last ``count``
        worlds of ``from``'s frontier go to ``to``."""
        for lst in (self.always, self.eventually, self.sometimes):
            lst[:] = [x for x in lst if x[0].name not in drop]
        self._level_start(level_no)
        # 1. the moves: send the excess, wait for what comes (answering claims meanwhile)
        frontier = self.frontier
        self.frontier = []
        incoming = {src for src, dst, _ in moves if dst == self.rank}
        for src, dst, count in moves:
            if src == self.rank:
                self._post(dst, "move", frontier[len(frontier) - count:])
                del frontier[len(frontier) - count:]
        while not incoming <= self.moved_from:
            self._handle(self.inbox.get())
        frontier.extend(self.nxt)
        self.nxt = []
        # 2. expansion
        stats = list(self._expand(frontier if expand else [], deadline))
        del frontier
        # 3. the level's end: take half of what a busy worker has left while it has enough,
        # then (every batch answered) tell the others, and wait until every other is done
        victims = [(self.rank + k) % self.n for k in range(1, self.n)] if expand else []
        asked = None  # the worker asked for work, until it answers
        sent_done = False
        while True:
            if self.loot is not None:
                work, self.loot = self.loot, None
                if work:
                    more = self._expand(work, deadline)
                    stats = [stats[0] + more[0], stats[1] + more[1], stats[2] or more[2], stats[3] or more[3]]
                else:
                    victims.remove(asked)
                asked = None
                continue
            if stats[2] or stats[3]:
                victims = []
            if asked is None:
                victims = [v for v in victims if v not in self.done_from]  # done: it has nothing left
                if victims:
                    asked = victims[0]
                    self._post(asked, "idle", None)
            if asked is None and not sent_done and not any(self.pending):
                for o in range(self.n):
                    if o != self.rank:
                        self._post(o, "done", None)
                sent_done = True
            if sent_done and len(self.done_from) == self.n - 1:
                break
            self._handle(self.inbox.get())
        return self._reply(*stats)

    def _expand(self, frontier: list, deadline: float | None) -> tuple:
        model = self.model
        canon, successors, is_progress = model.canonical, successors_of(model), model.is_progress
        n, rank = self.n, self.rank
        seen, fresh, claim, new = self.seen, self.fresh, self._claim, self._new
        boxes: list[dict] = [{} for _ in range(n)]
        trans = quiescent = 0
        halted = timed_out = False
        sometimes, eventually = self.sometimes, self.eventually
        flush, poll = self.flush, self.poll
        self.work, self.end = frontier, len(frontier)
        count = -1
        while True:
            count += 1
            if count % poll == poll - 1:
                if count % flush == flush - 1:
                    self._flush(boxes)
                self.cursor = count
                if self.live is not None:
                    at = 3 * rank
                    self.live[at], self.live[at + 1], self.live[at + 2] = (
                        len(fresh), self.level_trans + trans, self.end - count + len(self.nxt))
                self._drain()  # an idle worker may take the tail: self.end moves
                if self.halt.is_set():
                    halted = True
                    break
                if deadline is not None and time.perf_counter() > deadline:
                    timed_out = True
                    break
            if count >= self.end:
                break
            s, sfp, sidx = frontier[count]
            frontier[count] = None  # expanded worlds die with their successors' batches
            has_progress = False
            prev = None
            for i, (a, t) in enumerate(successors(s)):
                trans += 1
                if not has_progress and is_progress(a):
                    has_progress = True
                if sometimes:
                    for prop, check in sometimes:
                        what = check(s, a, t)
                        if what is not None:
                            self._note(prop.name, (sfp, i), "sometimes", what, sfp % n, sidx, i)
                if t is prev:  # the previous action's very successor (a fault computed once per world):
                    continue  # the same state, claimed already with a lesser action index
                prev = t
                if canon:
                    t = canon(t)
                fp = hash(t)
                owner = fp % n
                if owner == rank:
                    if fp in seen and fp not in fresh:
                        continue
                    idx = claim(fp, sfp, sidx, i)
                    if idx >= 0:
                        new(t, fp, idx)
                    continue
                box = boxes[owner]
                old = box.get(fp)
                if old is None or (sfp, i) < (old[1], old[3]):
                    box[fp] = (t, sfp, sidx, i)
            if not has_progress:
                quiescent += 1
                for prop, check in eventually:
                    why = check(s)
                    if why is not None:
                        self._note(prop.name, (sfp,), "eventually", why, sfp % n, sidx, None)
        self.work = None
        self._flush(boxes)
        self.level_trans += trans
        return trans, quiescent, halted, timed_out

    def link(self, idx: int) -> tuple[int, int, int, int]:
        return self.parent_rank[idx], self.parent_idx[idx], self.action[idx], self.fps[idx]


def _die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Linux: the kernel sends this worker ``sig`` (by default SIGKILL) when the process that
    started it dies, even by SIGKILL (``PR_SET_PDEATHSIG``), so no worker outlives a killed
    ``ckptcheck``; elsewhere a no-op (the coordinator's pipes still end a worker once it next
    waits on them)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, sig)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _serve(model, rank: int, n: int, inboxes, halt, conn, tuning: tuple[int, int, int], live=None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C
    _die_with_parent()
    gc.disable()
    # A message is written to its pipe by the queue's feeder thread, which waits for the GIL: at
    # the default switch interval (5 ms) every answer to a peer that is still expanding came
    # 5 ms late, a few seconds a search in the waits at level ends.
    sys.setswitchinterval(0.0002)
    w = _Worker(model, rank, n, inboxes, halt, tuning, live)
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
