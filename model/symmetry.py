"""Symmetries of a job: subtask-index permutations that map executions onto executions.

When every vertex has the same parallelism P and every edge is POINTWISE (forward), subtask i
of every vertex only ever talks to subtask i of its neighbours, and split i belongs to
source[i]: renaming index i to pi(i) everywhere (subtasks, channels, splits, transactions,
files, and the writer a Sink V2 committable names) maps every reachable world to a reachable
world and commutes with ``step``.  Keyed and
round-robin ALL_TO_ALL routing depend on concrete indexes, so jobs with such an edge have no
symmetry here (``permutations`` returns only the identity).

The checker chooses whether to use this; ``canonical`` returns the least permuted world
(worlds are totally ordered tuples, see ``model.world``).
"""

from __future__ import annotations

from itertools import permutations as _perms

from .topology import Expanded, Pattern
from .world import COMMITTABLE, REC, Snapshot, Txn, World

# (task, channel, split) maps, and per subtask its Sink V2 role ("" for none): the renaming of a
# Sink V2 operator's state depends on it
Perm = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[str, ...]]


def permutations(topo: Expanded) -> list[Perm]:
    """Every non-identity index permutation that is an automorphism of the job."""
    job = topo.job
    ps = {v.parallelism for v in job.vertices}
    if len(ps) != 1 or any(e.pattern is not Pattern.POINTWISE for e in job.edges):
        return []
    if any(v.coordinator for v in job.vertices):  # the enumerator assigns splits by index order
        return []
    (p,) = ps
    if p < 2:
        return []
    roles = tuple(job.vertices[v].sink_v2 or "" for v in topo.vertex_of)
    by_name = {}
    for c in topo.channels:
        by_name[(c.edge, c.producer, c.consumer)] = c.id
    out: list[Perm] = []
    for pi in _perms(range(p)):
        if pi == tuple(range(p)):
            continue
        task_map = [0] * topo.n_tasks
        for tasks in topo.tasks_of:
            for i, t in enumerate(tasks):
                task_map[t] = tasks[pi[i]]
        chan_map = [by_name[(c.edge, task_map[c.producer], task_map[c.consumer])] for c in topo.channels]
        split_map = [0] * len(topo.sources)
        for t in topo.sources:
            split_map[topo.split_of[t]] = topo.split_of[task_map[t]]
        out.append((tuple(task_map), tuple(chan_map), tuple(split_map), roles))
    return out


def _mask(m: int, task_map: tuple[int, ...]) -> int:
    out = 0
    t = 0
    while m:
        if m & 1:
            out |= 1 << task_map[t]
        m >>= 1
        t += 1
    return out


def _recs(rs, split_map) -> tuple:
    return tuple(sorted((split_map[x[0]], x[1]) for x in rs))


def _collector(collector: tuple, task_map, split_map) -> tuple:
    """A Sink V2 committer's ``CommittableCollector``, ``(checkpoint, writer, records)`` sorted:
    the writer renamed, its records too."""
    return tuple(sorted((cp, task_map[w], _recs(rs, split_map)) for cp, w, rs in collector))


def _sink_state(sink: tuple, role: str, task_map, split_map) -> tuple:
    """A Sink V2 operator's working state (``TaskState.sink``, ``model.sinkv2``) renamed: a
    writer's in-progress records, a committer's collector.  (The global committer runs at
    parallelism 1, so a job with one has no symmetry here.)"""
    if not sink:
        return sink
    if role == "writer":
        last, eoi, written = sink
        return (last, eoi, _recs(written, split_map))
    if role == "committer":
        collector, held = sink
        return (_collector(collector, task_map, split_map), held)
    return sink


def _files(files: tuple, task_map) -> tuple:
    return tuple(sorted((cp, task_map[t]) for cp, t in files))


def _snap(s: Snapshot, split_map, role: str = "", task_map=()) -> Snapshot:
    changes = {"processed": _recs(s.processed, split_map)}
    if s.discarded:
        changes["discarded"] = _recs(s.discarded, split_map)
    if s.shared or s.reuploaded:  # incremental checkpoints: the files it refers to
        changes["shared"] = _files(s.shared, task_map)
        changes["reuploaded"] = _files(s.reuploaded, task_map)
    if role == "committer" and s.sink:  # the collector's copy; a writer's (endOfInput,) names nothing
        changes["sink"] = (_collector(s.sink[0], task_map, split_map),)
    return s._replace(**changes)


def permute_coord_field(name: str, value, perm: Perm, n: int):
    """Field ``name`` of the coordinator of a world of ``n`` subtasks renamed by ``perm``: the
    pending checkpoints, the store, the stop and its savepoint name subtasks and splits; no
    other field does."""
    task_map, _chan_map, split_map, roles = perm
    if name == "pending":
        return tuple(
            p._replace(
                waiting=_mask(p.waiting, task_map),
                finished=_mask(p.finished, task_map),
                acked=tuple(sorted((task_map[t], _snap(s, split_map, roles[t], task_map)) for t, s in p.acked)),
                declined=_mask(p.declined, task_map),
                completing=(p.completing[0], _mask(p.completing[1], task_map), _mask(p.completing[2], task_map))
                if p.completing else (),
            )
            for p in value
        )
    if name == "store":
        return tuple(_permute_completed(c, perm, n) for c in value)
    if name == "stop" and value:
        cp, mode, unread = value
        return (cp, mode, _recs(unread, split_map))
    if name == "savepoint" and value:
        return _permute_completed(value, perm, n)
    return value


_COORD_RENAMED = ("pending", "store", "stop", "savepoint")


def _permute_coord(coord, perm: Perm, n: int):
    return coord._replace(**{f: permute_coord_field(f, getattr(coord, f), perm, n) for f in _COORD_RENAMED})


def _permute_completed(c, perm: Perm, n: int):
    task_map, _chan_map, split_map, roles = perm
    snaps = [None] * n
    refs = [0] * n if c.refs else None
    for t, s in enumerate(c.snapshots):
        snaps[task_map[t]] = _snap(s, split_map, roles[t], task_map)
        if refs is not None:
            refs[task_map[t]] = c.refs[t]
    return c._replace(
        snapshots=tuple(snaps),
        files=tuple(sorted((cp, task_map[t]) for cp, t in c.files)),
        refs=tuple(refs) if refs is not None else (),
    )


def permute_world_field(name: str, value, perm: Perm):
    """``World.acks``, ``files``, ``txns``, ``reused`` or ``used`` renamed by ``perm`` (the fault
    budget names nothing)."""
    task_map, _chan_map, split_map, roles = perm
    if name == "acks":
        return tuple(sorted((task_map[t], cp, _snap(s, split_map, roles[t], task_map)) for t, cp, s in value))
    if name == "files":
        return tuple(sorted((cp, task_map[t]) for cp, t in value))
    if name == "txns":
        return tuple(sorted(Txn(task_map[x.task], x.seq, x.status, tuple((split_map[y[0]], y[1]) for y in x.records)) for x in value))
    if name == "reused":
        return tuple(sorted(((cp, task_map[t]), u) for (cp, t), u in value))
    return value


def _permute_rest(rest: tuple, perm: Perm) -> tuple:
    """(acks, files, txns, reused) permuted."""
    return tuple(permute_world_field(name, v, perm) for name, v in zip(("acks", "files", "txns", "reused"), rest))


def permute_task_field(name: str, value, perm: Perm, t: int):
    """Field ``name`` of subtask ``t``'s state renamed by ``perm`` (it becomes that field of
    subtask ``perm[0][t]``): records name splits, a Sink V2 operator's state names writers and
    records, an incremental backend's files name subtasks, local copies are snapshots; no other
    field names either."""
    task_map, _chan_map, split_map, roles = perm
    return _task_field(name, value, split_map, roles[t], task_map)


def _task_field(name: str, value, split_map, role: str, task_map):
    if name in ("processed", "discarded"):
        return _recs(value, split_map)
    if name == "sink":
        return _sink_state(value, role, task_map, split_map) if role else value
    if name == "dbfiles":
        return _files(value, task_map)
    if name == "local":
        return tuple((cp, _snap(s, split_map, role, task_map)) for cp, s in value)
    if name in ("uploaded", "inflight"):
        return tuple((cp, tuple(sorted(((c, task_map[t]), (k, task_map[u])) for (c, t), (k, u) in pairs)))
                     for cp, pairs in value)
    return value


_TASK_RENAMED = ("processed", "discarded", "sink", "dbfiles", "uploaded", "inflight", "local")


def _permute_task(ts, split_map, role: str = "", task_map=()):
    return ts._replace(**{f: _task_field(f, getattr(ts, f), split_map, role, task_map) for f in _TASK_RENAMED})


def _permute_item(it: tuple, task_map, split_map) -> tuple:
    """A channel item renamed: a record's split, a committable's writer and records; barriers
    and events name nothing."""
    kind = it[0]
    if kind == REC:
        return (kind, split_map[it[1]]) + it[2:]
    if kind == COMMITTABLE:  # a writer's committables: (COMMITTABLE, checkpoint, (writer, records))
        writer, records = it[2]
        return (kind, it[1], (task_map[writer], _recs(records, split_map)))
    return it


def _permute_channel(items: tuple, perm: Perm) -> tuple:
    task_map, _chan_map, split_map, _roles = perm
    return tuple(_permute_item(it, task_map, split_map) for it in items)


def permute(w: World, perm: Perm) -> World:
    """``w`` with every subtask, channel and split index renamed by ``perm``."""
    task_map, chan_map, split_map, roles = perm
    n = len(w.tasks)
    tasks = [None] * n
    for t, ts in enumerate(w.tasks):
        tasks[task_map[t]] = _permute_task(ts, split_map, roles[t], task_map)
    channels = [None] * len(w.channels)
    for c, items in enumerate(w.channels):
        channels[chan_map[c]] = _permute_channel(items, perm)
    acks, files, txns, reused = _permute_rest((w.acks, w.files, w.txns, w.reused), perm)
    return World(tuple(tasks), tuple(channels), _permute_coord(w.coord, perm, n), acks, files, txns, w.used, reused)


def canonical(w: World, perms: list[Perm]) -> World:
    """The least of ``w`` and its permutations (the reference definition; ``Canonical`` computes
    the same world faster)."""
    best = w
    for perm in perms:
        cand = permute(w, perm)
        if cand < best:
            best = cand
    return best


class Canonical:
    """``canonical(w, perms)`` at a fraction of its cost, with the same result.

    Two facts make it cheap.  Worlds compare field by field and ``tasks`` comes first, so a
    permutation whose task tuple is greater than the best so far is rejected before anything
    else is permuted (about half of them when regions differ).  And the parts of a world recur
    across millions of worlds (a sink's state, a channel's contents, the coordinator), so each
    part is relabelled once per permutation and remembered: a permuted world is mostly
    dictionary lookups.  The memo is per process and a table is emptied past ``limit`` entries,
    so memory stays bounded; it changes the cost, never the result (``tests/checks/engine/test_explore.py``
    compares both on sampled worlds)."""

    __slots__ = ("perms", "limit")

    def __init__(self, perms: list[Perm], limit: int = 100_000) -> None:
        self.perms: list = []
        for perm in perms:
            task_map, chan_map, split_map, roles = perm
            inv_task = tuple(task_map.index(k) for k in range(len(task_map)))
            inv_chan = tuple(chan_map.index(k) for k in range(len(chan_map)))
            # a task's renaming depends on its Sink V2 role: one memo per role, looked up by subtask
            by_role: dict = {r: {} for r in roles}
            task_memos = tuple(by_role[r] for r in roles)
            self.perms.append((perm, inv_task, inv_chan, task_memos, ({}, {}, {})))
        self.limit = limit

    def _parts(self, src: tuple, inv: tuple, memo: dict, rename, perm: Perm) -> tuple:
        """``src`` reordered by ``inv``, each part renamed through ``memo``."""
        out = []
        for i in inv:
            x = src[i]
            y = memo.get(x)
            if y is None:
                if len(memo) > self.limit:
                    memo.clear()
                y = memo[x] = rename(x, perm)
            out.append(y)
        return tuple(out)

    def __call__(self, w: World) -> World:
        best = w
        limit = self.limit
        for perm, inv_task, inv_chan, task_memos, (m_chan, m_coord, m_rest) in self.perms:
            task_map, _chan_map, split_map, roles = perm
            # the permuted tasks, compared with the best world's as they are built: a greater
            # first differing task rejects the permutation there
            bt = best.tasks
            src = w.tasks
            tasks = []
            decided = False
            for j, i in enumerate(inv_task):
                x = src[i]
                m_task = task_memos[i]
                y = m_task.get(x)
                if y is None:
                    if len(m_task) > limit:
                        m_task.clear()
                    y = m_task[x] = _permute_task(x, split_map, roles[i], task_map)
                if not decided:
                    b = bt[j]
                    if y != b:
                        if y > b:
                            break
                        decided = True
                tasks.append(y)
            else:
                decided = True
            if not decided:
                continue
            tasks = tuple(tasks)
            out = self._parts(w.channels, inv_chan, m_chan, _permute_channel, perm)
            x = w.coord
            coord = m_coord.get(x)
            if coord is None:
                if len(m_coord) > limit:
                    m_coord.clear()
                coord = m_coord[x] = _permute_coord(x, perm, len(w.tasks))
            x = (w.acks, w.files, w.txns, w.reused)
            rest = m_rest.get(x)
            if rest is None:
                if len(m_rest) > limit:
                    m_rest.clear()
                rest = m_rest[x] = _permute_rest(x, perm)
            cand = World(tasks, out, coord, rest[0], rest[1], rest[2], w.used, rest[3])
            if cand < best:
                best = cand
        return best


# -- one field of a world renamed (an engine that fingerprints a world field by field) -----------
def permute_channel(items: tuple, perm: Perm) -> tuple:
    """A channel's contents renamed by ``perm`` (they move to channel ``perm[1][c]``)."""
    return _permute_channel(items, perm)
