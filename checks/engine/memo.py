"""The memoizing engine (``--engine memo``): the breadth-first search of ``checks.engine.bfs``,
on vectors of interned field ids, calling the model only where a call is new.

Most of the calls a search makes into the model repeat an earlier call on the same inputs, once
the inputs are taken at the grain the model reads them: a field of a subtask or of the
coordinator, a channel (95 to 98 % of the steps, about 99 % of the rest; ``docs/pages/engines.md``).
So each model function (a step for each action, each rule group of ``enabled``, the
always-properties together, the witnesses together) runs once on a stand-in world that records
which slots it read (``memo_world``); its result is kept under the ids those slots held, and any
later state whose read slots hold the same ids is answered from the table.  A step's result is
the slots it wrote: the successor is its parent's vector with those slots replaced.

The search is the reference engine's, state for state: the same breadth-first order, the same
enabled-action order, the same concrete worlds expanded, so the same states, transitions, depth,
discoveries and counterexamples (``tests/checks/engine/test_memo_engine.py`` compares the sets of canonical
worlds).  Only the fingerprint differs: a sum of one Zobrist number per slot (``MemoSpec.z``), one
sum per symmetry permutation (each field renamed as ``model.symmetry`` renames it), updated from
the slots a step wrote; the least sum names the symmetry class, as the least permuted world does
in ``symmetry.Canonical``.  Its collision estimate is TLC's, times the number of sums.

Correctness rests on one fact: a model function depends on nothing but what it reads of the
world.  The preset model does; a variant that keeps state of its own (a global, a counter on
``self``) does not, and ``memo_check`` catches it: that fraction of the answers taken from the
tables is computed again with the plain model on the decoded world, and a difference stops the
search with ``MemoMismatch`` naming the function and the field.  A function the stand-ins cannot
run (it raised where the plain model does not) runs plainly from then on, and the outcome says so.

A scope with a rescale has a layout per parallelism (``MemoSpec`` per
configuration); a ``Rescale``'s entry is its successor whole, in the other layout (``Switch``).

The loop below is the reference and the fallback: where the optional extension was built,
``memo_search`` hands the search after its initial states to the compiled loop (``memo_core``),
which keeps the tables in C and calls this module's miss functions for everything they lack,
and forks into workers where asked (``memo_workers``); ``memo_check`` stays on this loop, in one
process.
"""

from __future__ import annotations

import gc
import random
import time
from collections import deque
from operator import itemgetter
from typing import Any, Callable

from ckptcheck.model import symmetry
from ckptcheck.model.actions import Rescale
from ckptcheck.model.world import Coordinator, TaskState, World

from .bfs import Bounds, Pace, PathStore, finish_outcome, judge_initial, judge_quiescent, rebuild_discoveries
from . import memo_core
from .memo_world import SCALARS, TASK_FIELDS, Layout, TracedWorld, Writes

MISS = object()
MASK = (1 << 64) - 1
SIGN = 1 << 63


class MemoUnsupported(ValueError):
    """The memo engine cannot search this model or scope (the reason says why)."""


class MemoMismatch(RuntimeError):
    """A cached answer differs from the plain model's on the same world: the function read
    something that is not in the world (``--memo-check``)."""


def _no_slots(vec: list) -> tuple:
    return ()


class Memo:
    """One cached function: its results, each kept under the ids of the slots the call that
    computed it read.  A function may read different slots on different worlds (a branch taken
    or not); each set of slots is a shape with its own table, tried in turn."""

    __slots__ = ("shapes", "by_slots")

    def __init__(self) -> None:
        self.shapes: list[tuple[Callable, dict]] = []
        self.by_slots: dict[tuple, tuple[Callable, dict]] = {}

    def get(self, vec: list):
        for getter, table in self.shapes:
            r = table.get(getter(vec), MISS)
            if r is not MISS:
                return r
        return MISS

    def put(self, reads: set, vec: list, result) -> None:
        slots = tuple(sorted(reads))
        shape = self.by_slots.get(slots)
        if shape is None:
            getter = itemgetter(*slots) if slots else _no_slots
            shape = self.by_slots[slots] = (getter, {})
            self.shapes.append(shape)
        shape[1][shape[0](vec)] = result


PLAIN = Memo()  # the table of a step the stand-ins could not run: never filled, so always computed plainly


class Switch(tuple):
    """What a step that changes the parallelism (a ``Rescale``) gives instead of writes:
    ``(configuration, vector)`` of the successor, in that configuration's layout."""

    __slots__ = ()


class MemoSpec:
    """A spec (``specs.spec.Spec``) answered through memo tables at one of its parallelism
    configurations (``FlinkModel.configs``: a scope with a rescale has two, each with its own
    vector layout; the tables of values are shared): ``enabled``, ``step``, the properties and
    witnesses, and the fingerprint of a vector.  ``memo_specs`` builds one per configuration."""

    def __init__(self, spec, memo_check: float = 0.0, seed: int = 0, config: int = 0, first: "MemoSpec | None" = None) -> None:
        model = getattr(spec, "model", None)
        if model is None or not hasattr(model, "enabled_groups"):
            raise MemoUnsupported("engine memo: searches Flink specs only (this model has no enabled_groups)")
        self.spec = spec
        self.config = config
        self.model = model = model.configs[config]
        topo = model.topo
        self.lay = Layout(topo.n_tasks, len(topo.channels))
        if first is not None:  # one table of values for every configuration: ids mean the same in each
            self.lay.share(first.lay)
        self.names = topo.names
        self.groups: list[tuple[Callable, Memo | None]] = [(g, Memo()) for g in model.enabled_groups]
        self._group_shapes = [memo.shapes for _, memo in self.groups]
        # actions, each interned once: enabled groups answer with their indexes, and each has
        # its step's table and whether it is progress at the same index
        self.actions: list = []
        self._action_index: dict = {}
        self.step_memos: list[Memo] = []
        self.progress: list[bool] = []
        self.perms = list(spec.permutations)
        # per permutation (the identity first), per slot: id -> Zobrist number
        self._zs: list[list[dict]] = [[{} for _ in range(self.lay.size)] for _ in range(len(self.perms) + 1)]
        self.memo_check = memo_check
        self._rng = first._rng if first is not None else random.Random(seed)
        self.plain: dict[str, str] = first.plain if first is not None else {}  # function name -> why it runs plainly
        self.configs: list[MemoSpec] = first.configs if first is not None else []
        self.configs.append(self)
        self.calls = 0  # model functions answered (from a table or computed)
        self.misses = 0
        self.miss_seconds = 0.0

    # -- fingerprints ----------------------------------------------------------------------------
    def _renamed(self, p: int, slot: int, i: int) -> tuple[int, int]:
        """Slot ``slot`` holding id ``i``, renamed by permutation ``p``: the slot the value
        moves to and the id of the renamed value (``model.symmetry``'s field renamings)."""
        lay, perm = self.lay, self.perms[p - 1]
        value = lay.values[lay.kind_of[slot]][i]
        if slot < lay.coord_base:
            t, f = divmod(slot, TASK_FIELDS)
            renamed = symmetry.permute_task_field(TaskState._fields[f], value, perm, t)
            return perm[0][t] * TASK_FIELDS + f, lay.intern(f, renamed)
        if slot < lay.chan_base:
            f = slot - lay.coord_base
            renamed = symmetry.permute_coord_field(Coordinator._fields[f], value, perm, lay.n_tasks)
            return slot, lay.intern(TASK_FIELDS + f, renamed)
        if slot < lay.scalar_base:
            c = slot - lay.chan_base
            return lay.chan_base + perm[1][c], lay.intern(lay.chan_kind, symmetry.permute_channel(value, perm))
        k = slot - lay.scalar_base
        return slot, lay.intern(lay.chan_kind + 1 + k, symmetry.permute_world_field(SCALARS[k], value, perm))

    def z(self, p: int, slot: int, i: int) -> int:
        """The Zobrist number of slot ``slot`` holding id ``i`` in the world renamed by
        permutation ``p`` (0: the identity).  The identity's is a hash of the configuration,
        the slot and the value's digest (``Layout.digests``: the same in every process), mixed
        by splitmix64's finalizer (sums of Python's own tuple hashes cancel: two subtasks'
        swapped fields once gave one sum); a permutation's is the identity's of the renamed
        slot and value."""
        table = self._zs[p][slot]
        z = table.get(i)
        if z is None:
            if p:
                z = self.z(0, *self._renamed(p, slot, i))
            else:
                lay = self.lay
                x = hash((self.config, slot, lay.digests[lay.kind_of[slot]][i])) & MASK
                x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
                x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
                z = x ^ (x >> 31)
            table[i] = z
        return z

    def sums(self, vec: list) -> tuple[int, ...]:
        """The fingerprint sums of ``vec``: the identity's, then one per permutation."""
        z = self.z
        return tuple(sum(z(p, slot, i) for slot, i in enumerate(vec)) & MASK for p in range(len(self._zs)))

    def sums_after(self, sums: tuple, vec: list, writes: tuple) -> tuple[int, ...]:
        """``sums(patch(vec, writes))`` from ``sums(vec)``: each written slot's number out, the
        new one in.  (A state made in this process had its numbers computed when its slots
        were written; one that arrived from another, ``sparkmemo``, may not have.)"""
        if len(sums) == 1:  # no symmetry: one sum
            total = sums[0]
            zs = self._zs[0]
            for slot, i in writes:
                table = zs[slot]
                new = table.get(i)
                if new is None:
                    new = self.z(0, slot, i)
                old = table.get(vec[slot])
                if old is None:
                    old = self.z(0, slot, vec[slot])
                total += new - old
            return (total & MASK,)
        out = []
        for p, (total, zs) in enumerate(zip(sums, self._zs)):
            for slot, i in writes:
                table = zs[slot]
                new = table.get(i)
                if new is None:
                    new = self.z(p, slot, i)
                old = table.get(vec[slot])
                if old is None:
                    old = self.z(p, slot, vec[slot])
                total += new - old
            out.append(total & MASK)
        return tuple(out)

    @staticmethod
    def fingerprint(sums: tuple) -> int:
        """The symmetry class's fingerprint: the least sum, as a signed 64-bit word."""
        m = min(sums)
        return m - (1 << 64) if m & SIGN else m

    def world_fingerprint(self, w) -> int:
        """The fingerprint of a plain world (re-execution of a stored path checks it), at
        the configuration it runs at."""
        ms = self.configs[w.used.rescales & 1] if len(self.configs) > 1 else self
        return ms.fingerprint(ms.sums(ms.lay.encode(w)))

    # -- calls into the model -------------------------------------------------------------------
    def _trace(self, fn: Callable, vec: list, *args):
        """``fn`` run on a stand-in of ``vec``: its result and the slots it read."""
        reads: set = set()
        started = time.perf_counter()
        result = fn(TracedWorld(reads, self.lay, vec), *args)
        self.miss_seconds += time.perf_counter() - started
        self.misses += 1
        return result, reads

    def _should_check(self) -> bool:
        return self.memo_check > 0 and (self.memo_check >= 1 or self._rng.random() < self.memo_check)

    def _mismatch(self, what: str, got, want) -> MemoMismatch:
        return MemoMismatch(f"memo check: {what}: the cached answer {got!r} differs from the plain model's {want!r};"
                            " a function read something outside the world (a variant keeping state of its own?)")

    def action_index(self, a) -> int:
        """The index of action ``a`` (interned)."""
        i = self._action_index.get(a)
        if i is None:
            i = self._action_index[a] = len(self.actions)
            self.actions.append(a)
            self.step_memos.append(Memo())
            self.progress.append(self.spec.is_progress(a))
        return i

    def enabled(self, vec: list) -> list[int]:
        """The indexes of the actions enabled in the world ``vec`` stands for, in the model's
        order."""
        if self.memo_check:
            return self._enabled_checked(vec)
        out: list = []
        for k, shapes in enumerate(self._group_shapes):
            for getter, table in shapes:
                r = table.get(getter(vec), MISS)
                if r is not MISS:
                    break
            else:
                r = self._group_miss(k, vec)
            if r:
                out.extend(r)
        return out

    def _enabled_checked(self, vec: list) -> list:
        out: list = []
        for k, (group, memo) in enumerate(self.groups):
            r = memo.get(vec) if memo is not None else MISS
            if r is MISS:
                r = self._group_miss(k, vec)
            elif self._should_check():
                plain: list = []
                group(self.lay.decode(vec), plain)
                if tuple(map(self.action_index, plain)) != r:
                    raise self._mismatch(f"enabled group {_name(group)}", [self.actions[i] for i in r], plain)
            out.extend(r)
        return out

    def _group_miss(self, k: int, vec: list) -> tuple:
        group, memo = self.groups[k]
        if memo is None:
            buf: list = []
            group(self.lay.decode(vec), buf)
            return tuple(map(self.action_index, buf))
        try:
            buf = []
            _, reads = self._trace(group, vec, buf)
        except Exception as e:  # the stand-ins could not run it: the plain model must agree to continue
            buf = []
            group(self.lay.decode(vec), buf)
            self.plain[f"enabled group {_name(group)}"] = f"{type(e).__name__}: {e}"
            self.groups[k] = (group, None)
            self._group_shapes[k] = []
            return tuple(map(self.action_index, buf))
        r = tuple(map(self.action_index, buf))
        memo.put(reads, vec, r)
        return r

    def step(self, vec: list, ai: int) -> Writes:
        """The slots action ``ai`` (an index) writes in ``vec``, with their new ids."""
        memo, a = self.step_memos[ai], self.actions[ai]
        r = memo.get(vec)
        if r is MISS:
            return self._step_miss(memo, vec, ai)
        if memo is not PLAIN and self._should_check():
            t = self.model.step(self.lay.decode(vec), a)
            if type(r) is Switch:  # a rescale: the successor whole, in the other configuration's layout
                c, got = r
                want = self.configs[c].lay.encode(t)
                if got != want:
                    slot = next(s for s in range(len(want)) if got[s] != want[s])
                    lay = self.configs[c].lay
                    raise self._mismatch(f"step {a!r} at {lay.slot_name(slot, self.configs[c].names)}",
                                         lay.slot_value(got, slot), lay.slot_value(want, slot))
                return r
            want = self.lay.encode(t)
            got = self.patch(vec, r)
            if got != want:
                slot = next(s for s in range(len(want)) if got[s] != want[s])
                raise self._mismatch(f"step {a!r} at {self.lay.slot_name(slot, self.names)}",
                                     self.lay.slot_value(got, slot), self.lay.slot_value(want, slot))
        return r

    def _step_miss(self, memo, vec: list, ai: int) -> tuple:
        a = self.actions[ai]
        writes = None
        if memo is not PLAIN:
            try:
                writes, reads = self._trace(self.model.step, vec, a)
                if type(writes) is not Writes:
                    if type(a) is not Rescale or not isinstance(writes, World) or len(self.configs) < 2:
                        raise TypeError(f"its step returned a {type(writes).__name__}, not the slots it wrote")
                    # a rescale builds the world anew in the other configuration's layout: the
                    # entry is the successor whole (its values are checked plain where interned)
                    c = writes.used.rescales & 1
                    if c == self.config:
                        raise TypeError("a rescale that keeps the parallelism")
                    switch = Switch((c, self.configs[c].lay.encode(writes)))
                    memo.put(reads, vec, switch)
                    return switch
            except Exception as e:
                self.plain[f"step {type(a).__name__}"] = f"{type(e).__name__}: {e}"
                self.step_memos[ai] = PLAIN
                writes = None
        if writes is None:
            t = self.model.step(self.lay.decode(vec), a)
            c = t.used.rescales & 1 if len(self.configs) > 1 else 0
            if c != self.config:
                return Switch((c, self.configs[c].lay.encode(t)))
            return Writes(self.lay.vec_diff(vec, self.lay.encode(t)))
        # a slot the step read holds the same id in every world the entry answers: where it
        # wrote that id back, the write changes nothing anywhere and is dropped
        writes = Writes((slot, i) for slot, i in writes if not (slot in reads and vec[slot] == i))
        memo.put(reads, vec, writes)
        return writes

    @staticmethod
    def patch(vec: list, writes: Writes) -> list:
        nv = vec.copy()
        for s, i in writes:
            nv[s] = i
        return nv

    def checks(self, memo: Memo, fns: list, vec: list, *extra) -> tuple:
        """The results of ``fns`` (the properties still unviolated, or the witnesses still
        unhit) on ``vec``, one lookup for all of them: ``vec`` is the state (for a witness, the
        state and its successor, end to end) and ``extra`` the arguments after the world."""
        self.calls += 1
        r = memo.get(vec)
        if r is MISS:
            r = self._checks_miss(memo, fns, vec, *extra)
        elif self._should_check():
            want = self._plain_checks(fns, vec, *extra)
            if want != r:
                raise self._mismatch("properties " + ", ".join(_name(f) for f in fns), r, want)
        return r

    def _plain_checks(self, fns: list, vec: list, *extra) -> tuple:
        size = self.lay.size
        if len(vec) == size:
            w = self.lay.decode(vec)
            return tuple(f(w) for f in fns)
        s, t = self.lay.decode(vec[:size]), self.lay.decode(vec[size:])
        return tuple(f(s, extra[0], t) for f in fns)

    def _checks_miss(self, memo: Memo, fns: list, vec: list, *extra) -> tuple:
        size = self.lay.size
        reads: set = set()
        started = time.perf_counter()
        try:
            if len(vec) == size:
                w = TracedWorld(reads, self.lay, vec)
                r = tuple(f(w) for f in fns)
            else:
                later: set = set()
                s, t = TracedWorld(reads, self.lay, vec[:size]), TracedWorld(later, self.lay, vec[size:])
                r = tuple(f(s, extra[0], t) for f in fns)
                reads.update(x + size for x in later)
        except Exception as e:  # run plainly, uncached (the stand-ins could not run one of them)
            self.plain["properties"] = f"{type(e).__name__}: {e}"
            return self._plain_checks(fns, vec, *extra)
        finally:
            self.miss_seconds += time.perf_counter() - started
            self.misses += 1
        memo.put(reads, vec, r)
        return r

    def decode(self, vec: list):
        return self.lay.decode(vec)


def _name(fn) -> str:
    f = getattr(fn, "func", fn)
    return getattr(f, "__qualname__", getattr(f, "__name__", repr(f)))


def witness_results(configs: list[MemoSpec], memos: list[dict], fns: list, c: int, ai: int, vec: list, nc: int,
                    nvec: list) -> tuple:
    """The witnesses ``fns`` on step ``ai`` from ``vec`` (configuration ``c``) to ``nvec``
    (configuration ``nc``): from ``memos[c]``, a table per action, where both are in one layout;
    across a rescale (rare), asked of the plain worlds."""
    cs = configs[c]
    a = cs.actions[ai]
    if nc == c:
        memo = memos[c].get(ai)
        if memo is None:
            memo = memos[c][ai] = Memo()
        return cs.checks(memo, fns, vec + nvec, a)
    s_w, t_w = cs.decode(vec), configs[nc].decode(nvec)
    return tuple(f(s_w, a, t_w) for f in fns)


def memo_specs(spec, memo_check: float = 0.0, seed: int = 0) -> list[MemoSpec]:
    """One ``MemoSpec`` per parallelism configuration of ``spec`` (two where the scope rescales)."""
    first = MemoSpec(spec, memo_check, seed)
    for c in range(1, len(first.model.configs)):
        MemoSpec(spec, memo_check, seed, c, first)
    return first.configs


def memo_search(spec, out, discovery: Callable[..., Any], bounds: Bounds, *, memo_check: float = 0.0, seed: int = 0,
                visit: Callable[[Any], None] | None = None, compiled: bool | None = None, workers: int = 1) -> MemoSpec:
    """The search; fills ``out`` (an ``ExploreOutcome``) as ``bfs.bfs_search`` does, and returns
    the first configuration's ``MemoSpec`` (its tables and counters).  ``memo_check``: the
    fraction of answers taken from a table that are computed again with the plain model.
    ``visit``, if given, is called with each new state's world (the tests compare the worlds
    with the reference engine's).  ``compiled``: the compiled loop (``True``: refused where it
    was not built or does not apply), the Python loop (``False``), or the compiled one where it
    can (``None``).  ``workers``: processes the compiled loop forks into once a level is large
    enough (``memo_workers``)."""
    started = time.perf_counter()
    configs = memo_specs(spec, memo_check, seed)
    ms = configs[0]
    max_depth = bounds.max_depth
    always = list(spec.always)
    eventually = list(spec.eventually)
    sometimes = list(spec.sometimes)
    # per configuration: the always-properties' table, and per action index the witnesses' table
    always_memos: list[Memo] = [Memo() for _ in configs]
    sometimes_memos: list[dict] = [{} for _ in configs]
    found: dict[str, tuple] = {}
    inits = list(spec.initial_states())
    store = PathStore(inits)
    seen: set = set()
    queue: deque = deque()
    for r, w in enumerate(inits):
        c = w.used.rescales & 1 if len(configs) > 1 else 0
        vec = configs[c].lay.encode(w)
        sums = configs[c].sums(vec)
        fp = ms.fingerprint(sums)
        if fp in seen:
            continue
        seen.add(fp)
        idx = store.add(fp, -1 - r, 0)
        queue.append((c, vec, sums, idx, 0))
        if visit is not None:
            visit(w)
        judge_initial(always, w, idx, found)
    always = [x for x in always if x[0].name not in found]
    always_fns = [c for _, c in always]
    sometimes_fns = [c for _, c in sometimes]
    no_violation, no_witness = (None,) * len(always), (None,) * len(sometimes)
    n_trans = deepest = quiescent = group_calls = 0
    seen_add = seen.add
    push = queue.append
    fps_append, parent_append, action_append = store.fps.append, store.parent.append, store.action.append
    n_stored = len(store.fps)
    pace = Pace(bounds, started)
    fingerprint = ms.fingerprint
    checking = bool(memo_check)
    if compiled is None:
        compiled = memo_core.available() and not checking
    elif compiled and not (memo_core.available() and not checking):
        raise MemoUnsupported("engine memo: the compiled loop " + ("was not built" if not memo_core.available() else
                              "takes no --memo-check"))
    if workers > 1 and not compiled:
        raise MemoUnsupported("engine memo: workers run the compiled loop, which " + ("was not built here" if not memo_core.available()
                              else "takes no --memo-check"))
    extra: dict = {}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        if compiled:
            states, n_trans, deepest, quiescent, group_calls, done, extra = memo_core.compiled_loop(
                configs, queue, store, seen, found, always, sometimes, eventually, bounds, out, started, visit, spec, workers)
            queue.clear()
        while queue and not compiled:
            c, vec, sums, idx, d = queue.popleft()
            if d > deepest:
                deepest = d
            if max_depth is not None and d >= max_depth:
                out.stopped = f"depth bound {max_depth} reached"
                continue
            cs = configs[c]
            actions, step_memos, progress_of, step = cs.actions, cs.step_memos, cs.progress, cs.step
            has_progress = False
            nd = d + 1
            group_calls += len(cs.groups)
            for i, ai in enumerate(cs.enabled(vec)):
                n_trans += 1
                if not has_progress and progress_of[ai]:
                    has_progress = True
                if checking:
                    writes = step(vec, ai)
                else:
                    for getter, table in step_memos[ai].shapes:
                        writes = table.get(getter(vec), MISS)
                        if writes is not MISS:
                            break
                    else:
                        writes = step(vec, ai)
                nc = c
                if type(writes) is Switch:  # a rescale: the successor is in the other layout
                    nc, nvec = writes
                    nsums = configs[nc].sums(nvec)
                elif writes:
                    nvec = vec.copy()
                    for slot, v in writes:
                        nvec[slot] = v
                    nsums = cs.sums_after(sums, vec, writes)
                else:
                    nvec, nsums = vec, sums
                if sometimes:
                    results = witness_results(configs, sometimes_memos, sometimes_fns, c, ai, vec, nc, nvec)
                    if results != no_witness:  # one comparison in C for the usual case: none hit
                        a = actions[ai]
                        for (prop, _), what in zip(sometimes, results):
                            if what is not None and prop.name not in found:
                                found[prop.name] = (prop, what, idx, a, "sometimes")
                        sometimes = [x for x in sometimes if x[0].name not in found]
                        sometimes_fns = [f for _, f in sometimes]
                        sometimes_memos = [{} for _ in configs]
                        no_witness = (None,) * len(sometimes)
                fp = fingerprint(nsums)
                if fp in seen:
                    continue
                seen_add(fp)
                fps_append(fp)
                parent_append(idx)
                action_append(i)
                tidx = n_stored
                n_stored += 1
                if always:
                    results = configs[nc].checks(always_memos[nc], always_fns, nvec)
                    if results != no_violation:
                        for (prop, _), why in zip(always, results):
                            if why is not None:
                                found[prop.name] = (prop, why, tidx, None, "always")
                                bounds.violation(prop.name, "always", nd)
                        always = [x for x in always if x[0].name not in found]
                        always_fns = [f for _, f in always]
                        always_memos = [Memo() for _ in configs]
                        no_violation = (None,) * len(always)
                push((nc, nvec, nsums, tidx, nd))
                if visit is not None:
                    visit(configs[nc].decode(nvec))
            if not has_progress:
                quiescent += 1
                if eventually:
                    judge_quiescent(eventually, cs.decode(vec), idx, d, found, bounds)
            if pace.stop(out, found, len(seen), n_trans, deepest, len(queue)):
                break
    except KeyboardInterrupt:
        out.stopped = "interrupted (Ctrl-C)"
    finally:
        if gc_was_enabled:
            gc.enable()
    finish_outcome(out, states=states if compiled else len(seen), transitions=n_trans, depth=deepest, quiescent=quiescent,
                   exhausted=done if compiled else not queue, workers=extra.get("workers", 1))
    out.collision_probability *= len(ms.perms) + 1  # the least of 1 + permutations sums names a class: each may collide
    rebuild_discoveries(out, found, store, spec, discovery, ms.world_fingerprint)
    for name, (prop, why, path, kind) in extra.get("discoveries", {}).items():  # other workers': the shortest is kept
        if name not in out.discoveries or len(path) < len(out.discoveries[name].path):
            out.discoveries[name] = discovery(prop, why, path, kind)
    ms.calls += n_trans + group_calls  # each transition's step, each expanded state's enabled groups
    out.engine_detail = memo_detail(configs, compiled, extra)
    out.elapsed = time.perf_counter() - started
    return ms


def memo_detail(configs: list[MemoSpec], compiled: bool = False, extra: dict | None = None) -> str:
    """One line on the tables: the loop (compiled or Python), calls answered, misses, the time
    a miss took, and any function that ran plainly; with workers, when they forked and the
    calls each computed after."""
    calls = max(1, sum(m.calls for m in configs))
    misses = sum(m.misses for m in configs)
    seconds = sum(m.miss_seconds for m in configs)
    line = (f"{'compiled' if compiled else 'Python'} loop: {calls:,} model calls, {misses:,} computed ({misses / calls:.1%}),"
            f" {1e6 * seconds / max(1, misses):.0f} us a computed call")
    if extra and extra.get("workers"):
        line += (f"; {extra['workers']} workers from depth {extra['fork_depth']}, computing "
                 + " + ".join(f"{m:,}" for m in extra["misses"]) + " calls each after")
    if configs[0].memo_check:
        line += f"; {configs[0].memo_check:.0%} of the table's answers checked against the plain model"
    plain = configs[0].plain
    if plain:
        line += "; run plainly: " + "; ".join(f"{k} ({v})" for k, v in sorted(plain.items()))
    return line
