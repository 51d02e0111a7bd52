"""Symmetries of a job: subtask-index permutations that map executions onto executions.

When every vertex has the same parallelism P and every edge is POINTWISE (forward), subtask i
of every vertex only ever talks to subtask i of its neighbours, and split i belongs to
source[i]: renaming index i to pi(i) everywhere (subtasks, channels, splits, transactions,
files) maps every reachable world to a reachable world and commutes with ``step``.  Keyed and
round-robin ALL_TO_ALL routing depend on concrete indexes, so jobs with such an edge have no
symmetry here (``permutations`` returns only the identity).

The checker chooses whether to use this; ``canonical`` returns the least permuted world
(worlds are totally ordered tuples, see ``model.world``).
"""

from __future__ import annotations

from itertools import permutations as _perms

from .topology import Expanded, Pattern
from .world import Snapshot, Txn, World

Perm = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]  # (task, channel, split) maps


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
        out.append((tuple(task_map), tuple(chan_map), tuple(split_map)))
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


def permute(w: World, perm: Perm) -> World:
    task_map, chan_map, split_map = perm

    def r(rec):
        return (split_map[rec[0]], rec[1])

    def recs(rs):
        return tuple(sorted(r(x) for x in rs))

    def snap(s: Snapshot) -> Snapshot:
        return s._replace(processed=recs(s.processed))

    def item(it):
        return (it[0], split_map[it[1]], it[2]) if it[0] == 0 else it

    n = len(w.tasks)
    tasks = [None] * n
    for t, ts in enumerate(w.tasks):
        tasks[task_map[t]] = ts._replace(processed=recs(ts.processed))
    channels = [None] * len(w.channels)
    for c, items in enumerate(w.channels):
        channels[chan_map[c]] = tuple(item(it) for it in items)
    coord = w.coord
    pending = coord.pending
    if pending:
        pending = pending._replace(
            waiting=_mask(pending.waiting, task_map),
            finished=_mask(pending.finished, task_map),
            acked=tuple(sorted((task_map[t], snap(s)) for t, s in pending.acked)),
            declined=_mask(pending.declined, task_map),
        )
    store = []
    for c in coord.store:
        snaps = [None] * n
        refs = [0] * n if c.refs else None
        for t, s in enumerate(c.snapshots):
            snaps[task_map[t]] = snap(s)
            if refs is not None:
                refs[task_map[t]] = c.refs[t]
        store.append(
            c._replace(
                snapshots=tuple(snaps),
                files=tuple(sorted((cp, task_map[t]) for cp, t in c.files)),
                refs=tuple(refs) if refs is not None else (),
            )
        )
    return World(
        tasks=tuple(tasks),
        channels=tuple(channels),
        coord=coord._replace(pending=pending, store=tuple(store)),
        acks=tuple((task_map[t], cp, snap(s)) for t, cp, s in w.acks),
        files=tuple(sorted((cp, task_map[t]) for cp, t in w.files)),
        txns=tuple(sorted(Txn(task_map[x.task], x.seq, x.status, tuple(r(y) for y in x.records)) for x in w.txns)),
        used=w.used,
        reused=tuple(sorted(((cp, task_map[t]), u) for (cp, t), u in w.reused)),
    )


def canonical(w: World, perms: list[Perm]) -> World:
    best = w
    for perm in perms:
        cand = permute(w, perm)
        if cand < best:
            best = cand
    return best

