"""Workers for the memo engine's compiled loop: the search forks into processes once a level is
large enough, and each owns the fingerprints that are its rank modulo their number.

The protocol is the reference engine's (``parallel``): fingerprints are claimed, states stay
where they were made.  A worker expands its share of a level; a successor it owns is checked
against its own visited set at once, one another owns is kept aside and claimed at the level's
end (once a level, and not at all if the worker has seen it already).  Each owner answers which
of the claims it received are new (in rank order, after its own successors, so the answers do
not depend on timing), and the claimer stores, checks and expands those.  So a state's path
runs through one worker's store only: its parent was expanded by the worker that made it.

Fingerprints mean the same in every process (``MemoSpec.z`` hashes a value's contents), so no
vector ever crosses: claims and answers are fingerprints and bytes, written to files in a
shared-memory folder between two barriers.  The fork copies the warm tables; each worker then
computes its own misses (the engine line gives them per worker).

Levels are finished together: at each level's end the workers report to rank 0 (the process
that forked, itself a worker), which adds the figures up, applies the bounds and the stop
condition, prints the progress line and says whether to go on.  Bounds are checked there, not
inside a level.  At the end each worker rebuilds its own discoveries' paths and sends them to
rank 0, which keeps the shortest per property; the counts are those of one process.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import tempfile
from array import array

from .parallel_worker import _die_with_parent

MASK = (1 << 64) - 1
FORK_AT = 2000  # states in a level before the search forks: smaller searches stay in one process


class WorkerError(RuntimeError):
    """A worker process of the memo engine raised: its traceback, as text."""


class Workers:
    """The processes of one search.  ``fork`` is asked at every level's end until it forks;
    ``exchange`` and ``level_end`` are asked at every level's end after (``Core.search``)."""

    def __init__(self, n: int, fork_at: int | None = None) -> None:
        self.n = n
        self.fork_at = FORK_AT if fork_at is None else fork_at
        self.rank = 0
        self.forked = False
        self.children: list[int] = []
        self.pipes: list = []
        self.pipe = None
        self.at_fork: dict = {}
        self.folder = ""
        self.barrier = None
        self.fork_depth = None

    # -- the fork ------------------------------------------------------------------------------
    def fork(self, core, driver, depth: int, states: int) -> None:
        """Fork into ``n`` processes if the next level has at least ``fork_at`` states."""
        if self.forked or self.n <= 1 or states < self.fork_at:
            return
        ctx = multiprocessing.get_context("fork")
        shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        self.folder = tempfile.mkdtemp(prefix="ckptcheck-memo-", dir=shm)
        self.barrier = ctx.Barrier(self.n)
        ends = [ctx.Pipe() for _ in range(self.n - 1)]
        self.at_fork = dict(states=core.states, transitions=core.transitions, quiescent=core.quiescent,
                            group_calls=core.group_calls, check_calls=core.check_calls,
                            misses=sum(ms.misses for ms in driver.configs),
                            miss_seconds=sum(ms.miss_seconds for ms in driver.configs), found=set(driver.found))
        self.fork_depth = depth
        self.forked = True
        parent = os.getpid()
        for r in range(1, self.n):
            pid = os.fork()
            if pid == 0:  # a worker: it answers to rank 0 only
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is rank 0's to handle
                # a killed ckptcheck leaves no worker behind, nor the claims' folder
                signal.signal(signal.SIGTERM, lambda *_: (shutil.rmtree(self.folder, ignore_errors=True), os._exit(1)))
                _die_with_parent(signal.SIGTERM)
                if os.getppid() != parent:  # rank 0 died before that took effect
                    os._exit(1)
                self.rank = r
                self.pipe = ends[r - 1][1]
                self.pipes = []
                self.children = []
                driver.workers_child()
                core.become_worker(r, self.n)
                return
            self.children.append(pid)
        self.pipes = [a for a, _ in ends]
        core.become_worker(0, self.n)

    # -- a level's end ---------------------------------------------------------------------------
    def exchange(self, core, depth: int, pending: bytes) -> bytes:
        """The claims of this level: ``pending``, the int64 fingerprints this worker made and
        others own; the answer, one byte per claim (1: new, expand it here)."""
        fps = array("q")
        fps.frombytes(pending)
        n, rank = self.n, self.rank
        owners = [(fp & MASK) % n for fp in fps]
        for q in range(n):
            if q != rank:
                mine = array("q", (fp for fp, o in zip(fps, owners) if o == q))
                self._write(f"c{depth}-{rank}-{q}", mine.tobytes())
        self.barrier.wait()
        for p in range(n):  # in rank order: the answers do not depend on which claim came first
            if p != rank:
                self._write(f"a{depth}-{rank}-{p}", core.answer(self._take(f"c{depth}-{p}-{rank}")))
        self.barrier.wait()
        answers = {q: self._take(f"a{depth}-{q}-{rank}") for q in range(n) if q != rank}
        cursor = dict.fromkeys(answers, 0)
        out = bytearray(len(owners))
        for j, o in enumerate(owners):
            out[j] = answers[o][cursor[o]]
            cursor[o] += 1
        return bytes(out)

    def level_end(self, driver, core, depth: int, queued: int) -> int:
        """After the claims: 0 go on, 1 every worker's next level is empty, 2 stop (a bound or
        the stop condition; ``out.stopped`` says which)."""
        report = (queued, self._figures(core, driver), driver.discoveries_found(self.at_fork["found"]))
        if self.rank:
            self.pipe.send(report)
            return self.pipe.recv()
        reports = [report] + [p.recv() for p in self.pipes]
        decision = driver.decide(depth, reports, self)
        for p in self.pipes:
            p.send(decision)
        return decision

    def _figures(self, core, driver) -> dict:
        a = self.at_fork
        return dict(states=core.states - a["states"], transitions=core.transitions - a["transitions"],
                    quiescent=core.quiescent - a["quiescent"], group_calls=core.group_calls - a["group_calls"],
                    check_calls=core.check_calls - a["check_calls"], deepest=core.deepest,
                    depth_stopped=core.depth_stopped, exhausted=core.exhausted,
                    misses=sum(ms.misses for ms in driver.configs) - a["misses"],
                    miss_seconds=sum(ms.miss_seconds for ms in driver.configs) - a["miss_seconds"])

    # -- the end -----------------------------------------------------------------------------------
    def finish_child(self, core, driver, discoveries: list, send: bool = True) -> None:
        """A worker's last word: its figures and discoveries ``(name, reason, path, kind)``,
        then it exits without returning to the caller (``send=False``: it failed, and said so)."""
        try:
            if send:
                self.pipe.send(("done", self._figures(core, driver), discoveries))
        finally:
            os._exit(0 if send else 1)

    def gather(self, core, driver) -> tuple[dict, list, list, float]:
        """Rank 0, after its own loop: every worker's figures added to its own (and to what
        was counted before the fork), the workers' discoveries, each worker's misses after the
        fork, and the seconds the other workers' misses took."""
        mine = self._figures(core, driver)
        total = {k: self.at_fork.get(k, 0) + mine[k] for k in ("states", "transitions", "quiescent", "group_calls", "check_calls")}
        total.update(deepest=mine["deepest"], depth_stopped=mine["depth_stopped"], exhausted=mine["exhausted"])
        misses = [mine["misses"]]
        seconds = 0.0
        found: list = []
        for p in self.pipes:
            msg = p.recv()
            if msg[0] == "error":
                self.kill()
                raise WorkerError(msg[1])
            _, figs, disc = msg
            for k in ("states", "transitions", "quiescent", "group_calls", "check_calls"):
                total[k] += figs[k]
            total["deepest"] = max(total["deepest"], figs["deepest"])
            total["depth_stopped"] = total["depth_stopped"] or figs["depth_stopped"]
            misses.append(figs["misses"])
            seconds += figs["miss_seconds"]
            found.extend(disc)
        self.close()
        return total, found, misses, seconds

    def close(self) -> None:
        for pid in self.children:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self.children = []
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def kill(self) -> None:
        """Rank 0 interrupted: the workers are stopped where they are."""
        if self.barrier is not None:
            self.barrier.abort()
        for pid in self.children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.close()

    # -- files -------------------------------------------------------------------------------------
    def _write(self, name: str, data: bytes) -> None:
        tmp = os.path.join(self.folder, name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(self.folder, name))

    def _take(self, name: str) -> bytes:
        path = os.path.join(self.folder, name)
        with open(path, "rb") as f:
            data = f.read()
        os.remove(path)
        return data

