"""The Spark search on id vectors: each executor expands its part of a level with the memo
engine's tables (``memo.MemoSpec``), and a state crosses the shuffle as the digests of its
field values, not as a pickled world.

``sparkbfs`` holds the level loop and the visited sets; this module holds what differs when the
states are vectors:

- a **record** is ``(fp, (tag, path, config, digests, sums))``: the parallelism configuration,
  the ``value_digest`` of each slot's value (``array('Q')`` bytes) and the fingerprint sums
  (``array('Q')`` bytes, one per symmetry permutation; the least names the class).  Digests and
  sums are computed from the values' contents, so they mean the same in every process; an id is
  local to one process and never travels.
- **values**: an executor that computes a new value (a miss) reports it with its digest
  (``Layout.fresh``); the driver gathers the new values of a level and broadcasts them before the
  next, and an executor learns (``Layout.learn``, digest checked) the values it has not seen
  before it expands.  A level's values are few (thousands); its states are many.
- **tables**: each Python worker process keeps its ``MemoSpec`` tables in ``_STATE`` across tasks
  and levels, as ``sparkbfs.worker_spec`` keeps the spec.
- **always**: checked where a successor is made (from the tables), not where it is merged, since
  the merging task may not know a value made in the same level.  A violation reported on a state
  seen at an earlier level cannot be a new discovery: that state was checked when first made.

A model the memo engine cannot search (``MemoUnsupported``) goes by pickled worlds (``sparkbfs``).
"""

from __future__ import annotations

from array import array
from typing import Iterator

from .memo import MISS, Memo, MemoSpec, Switch, memo_specs, witness_results

_STATE: dict[tuple, "_Executor"] = {}


class _Executor:
    """One Python worker process's tables for one search: the configurations' ``MemoSpec``s,
    how many broadcast deltas of values it has learnt, and the property tables per set of
    properties still undecided."""

    def __init__(self, args: tuple) -> None:
        from .sparkbfs import worker_spec

        self.spec = worker_spec(args)
        self.configs: list[MemoSpec] = memo_specs(self.spec)
        self.learnt = 0
        self.memos: dict[tuple, list] = {}

    def learn(self, deltas: tuple) -> None:
        lay = self.configs[0].lay
        for b in deltas[self.learnt:]:
            for kind, d, v in b.value:
                lay.learn(kind, d, v)
        self.learnt = len(deltas)

    def tables(self, kind: str, props: list) -> list:
        """Per configuration, the table of ``kind`` (``always``: one ``Memo``; ``sometimes``: a
        ``Memo`` per action index) for the properties ``props`` (a table answers for one list)."""
        key = (kind, tuple(p.name for p, _ in props))
        t = self.memos.get(key)
        if t is None:
            t = self.memos[key] = [Memo() if kind == "always" else {} for _ in self.configs]
        return t


def executor(args: tuple) -> _Executor:
    ex = _STATE.get(args)
    if ex is None:
        ex = _STATE[args] = _Executor(args)
    return ex


def _q(xs) -> bytes:
    return array("Q", xs).tobytes()


def _unq(b: bytes) -> array:
    a = array("Q")
    a.frombytes(b)
    return a


def initial_records(configs: list[MemoSpec], spec) -> tuple[list, list, list]:
    """On the driver: the initial states as records, the values they hold (the first
    broadcast), and the ``always`` discoveries on them."""
    lay = configs[0].lay
    records, found = [], []
    for r, w in enumerate(spec.initial_states()):
        c = w.used.rescales & 1 if len(configs) > 1 else 0
        cs = configs[c]
        vec = cs.lay.encode(w)
        sums = cs.sums(vec)
        fp = cs.fingerprint(sums)
        path = array("H", (r,)).tobytes()
        records.append((fp, ("s", path, c, _q(cs.lay.to_digests(vec)), _q(sums))))
        for prop, check in spec.always:
            why = check(w)
            if why is not None:
                found.append((prop.name, "always", why, path, None, fp))
    values = [(kind, lay.digests[kind][i], v) for kind, vs in enumerate(lay.values) for i, v in enumerate(vs)]
    return records, values, found


def _unanswered(props: list, results: tuple, found: list, kind: str, path: bytes, extra: int | None, fp: int) -> list:
    """Each of ``props`` whose result is a reason goes to ``found`` as a discovery record; the
    others are returned."""
    for (prop, _), r in zip(props, results):
        if r is not None:
            found.append((prop.name, kind, r, path, extra, fp))
    return [x for x, r in zip(props, results) if r is None]


def expand_vectors(args: tuple, done: frozenset, deltas: tuple, index: int, it: Iterator) -> Iterator[tuple]:
    """Expand one partition of the frontier (records ``("f", ...)``): its successors as records
    ``("s", ...)``, each fingerprint once (its least path), then one ``(index, ("x",
    transitions, quiescent, discoveries, new values))``.  ``sometimes`` is checked on every
    transition, ``always`` on every successor, ``eventually`` where no progress action is
    enabled, each skipping the properties in ``done``."""
    ex = executor(args)
    ex.learn(deltas)
    configs, spec = ex.configs, ex.spec
    lay = configs[0].lay
    fresh: list = []
    for ms in configs:  # the configurations share their tables of values, not this list's place
        ms.lay.fresh = fresh
    always = [x for x in spec.always if x[0].name not in done]
    sometimes = [x for x in spec.sometimes if x[0].name not in done]
    eventually = [x for x in spec.eventually if x[0].name not in done]
    always_fns, sometimes_fns = [f for _, f in always], [f for _, f in sometimes]
    no_violation, no_witness = (None,) * len(always), (None,) * len(sometimes)
    always_memos, sometimes_memos = ex.tables("always", always), ex.tables("sometimes", sometimes)
    out: dict[int, tuple] = {}
    found: list = []
    trans = quiescent = 0
    try:
        for sfp, (_tag, path, c, dbytes, sbytes) in it:
            cs = configs[c]
            digests = _unq(dbytes)
            vec = cs.lay.from_digests(digests)
            sums = tuple(_unq(sbytes))
            has_progress = False
            for i, ai in enumerate(cs.enabled(vec)):
                trans += 1
                if not has_progress and cs.progress[ai]:
                    has_progress = True
                for getter, table in cs.step_memos[ai].shapes:
                    writes = table.get(getter(vec), MISS)
                    if writes is not MISS:
                        break
                else:
                    writes = cs.step(vec, ai)
                nc, ndigests = c, digests
                if type(writes) is Switch:  # a rescale: the successor is in the other layout
                    nc, nvec = writes
                    nsums = configs[nc].sums(nvec)
                    ndigests = array("Q", configs[nc].lay.to_digests(nvec))
                elif writes:
                    nvec = vec.copy()
                    ndigests = array("Q", digests)
                    dig, kind_of = lay.digests, cs.lay.kind_of
                    for slot, v in writes:
                        nvec[slot] = v
                        ndigests[slot] = dig[kind_of[slot]][v]
                    nsums = cs.sums_after(sums, vec, writes)
                else:
                    nvec, nsums = vec, sums
                tpath = path + array("H", (i,)).tobytes()
                if sometimes:
                    results = witness_results(configs, sometimes_memos, sometimes_fns, c, ai, vec, nc, nvec)
                    if results != no_witness:  # each witness once a partition (the driver keeps the least)
                        sometimes = _unanswered(sometimes, results, found, "sometimes", path, i, sfp)
                        sometimes_fns, no_witness = [f for _, f in sometimes], (None,) * len(sometimes)
                        sometimes_memos = ex.tables("sometimes", sometimes)
                fp = cs.fingerprint(nsums)
                cur = out.get(fp)
                if cur is None:
                    if always:
                        results = configs[nc].checks(always_memos[nc], always_fns, nvec)
                        if results != no_violation:  # each property once a partition, as sparkbfs does
                            always = _unanswered(always, results, found, "always", tpath, None, fp)
                            always_fns, no_violation = [f for _, f in always], (None,) * len(always)
                            always_memos = ex.tables("always", always)
                    out[fp] = (tpath, nc, ndigests, nsums)
                elif tpath < cur[0]:
                    out[fp] = (tpath, nc, ndigests, nsums)
            if not has_progress:
                quiescent += 1
                if eventually:
                    w = cs.decode(vec)
                    for item in tuple(eventually):
                        why = item[1](w)
                        if why is not None:
                            found.append((item[0].name, "eventually", why, path, None, sfp))
                            eventually.remove(item)
    finally:
        for ms in configs:
            ms.lay.fresh = None
    for fp, (tpath, nc, ndigests, nsums) in out.items():
        yield fp, ("s", tpath, nc, ndigests.tobytes(), _q(nsums))
    yield index, ("x", trans, quiescent, found, fresh)
