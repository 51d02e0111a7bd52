"""The exhaustive search on Spark: the same level-synchronous BFS, partitioned by fingerprint.

Each level is one Spark job over three RDDs that share one partitioner (fingerprint modulo P):

- the **frontier**: ``(fp, ("f", path, world))``, the states first reached at this level;
- the **visited set**: per partition one ``(k, ("seen", fingerprints))`` record, the 64-bit
  fingerprints of every state the partition owns, as the bytes of an ``array('q')``;
- the **successors**: the frontier expanded (``mapPartitions``, each partition drops its own
  duplicates) and shuffled to their owners (``partitionBy``).

The successors and the visited set are co-partitioned, so their union is partition-aware: the
visited set never moves.  One ``mapPartitionsWithIndex`` per partition keeps the successors it
has not seen (of several paths to one state in a level, the least path, so the result does not
depend on the shuffle's order), checks the ``always`` properties on them, and writes the next
frontier and the grown visited set.  The level is cached and its lineage cut
(``localCheckpoint``) before the previous level is dropped; a retried task recomputes the same
records, because a level reads only the level before.

A state carries its **path**, the indexes of its actions from the initial state (``array('H')``
bytes), instead of a parent link: a discovery is its own counterexample, rebuilt on the driver
by re-executing the path and checking the fingerprint it reaches.  Per property the driver keeps
the shortest discovery (then the least path), so the verdicts, the counts and the counterexample
lengths are those of the local engine; which of several shortest runs is shown may differ.

Workers rebuild the spec from the design's name and knobs, the scope and the property names, as
``ckptcheck spark generate`` does: a design with a Python component would have to be importable
on every executor and is refused.  Bounds are checked between levels (a level is never cut).
"""

from __future__ import annotations

import json
import time
from array import array
from typing import Any, Callable, Iterator

from .bfs import Bounds, FingerprintCollision, finish_outcome, successors_of


def _owner(fp: int) -> int:
    """The partition function (PySpark takes it modulo the number of partitions).  One module
    function, so that every RDD partitioned with it compares equal (co-partitioning)."""
    return fp


_SPECS: dict[tuple, Any] = {}


def spec_args(spec) -> tuple:
    """What a worker needs to rebuild ``spec``: hashable, small, no code."""
    return (spec.design.name, json.dumps(spec.design.knobs(), sort_keys=True), json.dumps(spec.scope.to_json(), sort_keys=True),
            bool(spec.symmetry), tuple(p.name for p in spec.properties))


def worker_spec(args: tuple):
    """The spec on a worker, built once per Python worker process."""
    sp = _SPECS.get(args)
    if sp is None:
        from ckptcheck.specs.properties import BASELINE_PROPERTIES
        from ckptcheck.specs.spec import Spec

        from ckptcheck.specs.portable import design_from_trace, scope_from_trace

        name, knobs, scope_json, symmetry, props = args
        by_name = {p.name: p for p in BASELINE_PROPERTIES}
        design = design_from_trace({"name": name, "knobs": json.loads(knobs)}, "<spark>")
        sp = Spec(design, scope_from_trace(json.loads(scope_json), "<spark>"), properties=tuple(by_name[p] for p in props),
                  symmetry=symmetry)
        _SPECS[args] = sp
    return sp


def _fingerprint(spec, t) -> int:
    canon = spec.canonical
    return hash(canon(t) if canon else t)


def expand_partition(args: tuple, done: frozenset, index: int, it: Iterator) -> Iterator[tuple]:
    """Expand one partition of the frontier: successors ``(fp, ("s", path, world))``, each
    fingerprint once (its least path), then one ``(index, ("x", transitions, quiescent,
    discoveries))``.  ``sometimes`` is checked on every transition and ``eventually`` where no
    progress action is enabled, skipping the properties in ``done``."""
    spec = worker_spec(args)
    successors, is_progress = successors_of(spec), spec.is_progress
    sometimes = [x for x in spec.sometimes if x[0].name not in done]
    eventually = [x for x in spec.eventually if x[0].name not in done]
    out: dict[int, tuple] = {}
    found: list = []
    trans = quiescent = 0
    for sfp, (_tag, path, s) in it:
        has_progress = False
        for i, (a, t) in enumerate(successors(s)):
            trans += 1
            if not has_progress and is_progress(a):
                has_progress = True
            if sometimes:
                for item in tuple(sometimes):
                    what = item[1](s, a, t)
                    if what is not None:
                        found.append((item[0].name, "sometimes", what, path, i, sfp))
                        sometimes.remove(item)
            fp = _fingerprint(spec, t)
            tpath = path + array("H", (i,)).tobytes()
            cur = out.get(fp)
            if cur is None or tpath < cur[0]:
                out[fp] = (tpath, t)
        if not has_progress:
            quiescent += 1
            for item in tuple(eventually):
                why = item[1](s)
                if why is not None:
                    found.append((item[0].name, "eventually", why, path, None, sfp))
                    eventually.remove(item)
    for fp, (tpath, t) in out.items():
        yield fp, ("s", tpath, t)
    yield index, ("x", trans, quiescent, found)


def merge_partition(args: tuple, done: frozenset, index: int, it: Iterator, check_always: bool = True) -> Iterator[tuple]:
    """One owner's part of a level: the successors it has not seen become its next frontier
    (``always`` checked on each, where ``check_always``: id vectors were checked where they were
    made, ``sparkmemo``), its visited set grows, and one ``("n", new, visited, found)`` record
    plus the expansion's ``("x", ...)`` records go to the driver.  A successor's record is
    ``("s", path, *state)``: a world, or ``sparkmemo``'s configuration, digests and sums."""
    spec = worker_spec(args)
    always = [x for x in spec.always if x[0].name not in done] if check_always else []
    seen_bytes = b""
    cands: dict[int, tuple] = {}
    side: list = []
    for key, val in it:
        tag = val[0]
        if tag == "s":
            cur = cands.get(key)
            if cur is None or val[1] < cur[1]:
                cands[key] = val
        elif tag == "seen":
            seen_bytes = val[1]
        else:
            side.append((key, val))
    seen = array("q")
    seen.frombytes(seen_bytes)
    visited = set(seen)
    new = sorted(fp for fp in cands if fp not in visited)
    del visited
    found: list = []
    for fp in new:
        val = cands[fp]
        for item in tuple(always):
            why = item[1](val[2])
            if why is not None:
                found.append((item[0].name, "always", why, val[1], None, fp))
                always.remove(item)
        yield fp, ("f", *val[1:])
    seen.extend(new)
    yield index, ("seen", seen.tobytes())
    yield index, ("n", len(new), len(seen), found)
    yield from side


def _initial(args: tuple) -> list[tuple]:
    spec = worker_spec(args)
    return [(_fingerprint(spec, s), ("s", array("H", (r,)).tobytes(), s)) for r, s in enumerate(spec.initial_states())]


def rebuild(model, path: bytes, extra: int | None, fingerprint: Callable | None = None) -> tuple[list, int]:
    """The actions of a stored path, re-executed from its initial state, and the fingerprint
    of the state reached (before ``extra``, the witness's last action, if any); ``fingerprint``
    computes it from the world (by default, the hash of its canonical form)."""
    idx = array("H")
    idx.frombytes(path)
    s = model.initial_states()[idx[0]]
    actions = []
    for i in idx[1:]:
        a = model.actions(s)[i]
        s = model.next_state(s, a)
        actions.append(a)
    fp = fingerprint(s) if fingerprint is not None else hash(model.canonical(s) if model.canonical else s)
    if extra is not None:
        actions.append(model.actions(s)[extra])
    return actions, fp


def spark_search(model, out, discovery: Callable[..., Any], bounds: Bounds, *, master: str | None = None,
                 partitions: int | None = None, vectors: bool | None = None) -> None:
    """The search on Spark; fills ``out`` (an ``ExploreOutcome``).  ``model`` is the driver's
    spec; the workers rebuild it from ``spec_args``.  ``vectors``: states as id vectors
    (``sparkmemo``; ``True`` raises ``MemoUnsupported`` where the memo engine cannot search the
    model), as pickled worlds (``False``), or vectors where they can be (``None``)."""
    from .spark_session import require_pyspark, spark_session

    require_pyspark("--engine", "spark")  # one line, not an ImportError, where PySpark is missing
    from pyspark import StorageLevel

    started = time.perf_counter()
    args = spec_args(model)
    spark = spark_session(master, app="ckptcheck check --engine spark")
    sc = spark.sparkContext
    parts = partitions or max(2, sc.defaultParallelism * 2)
    props = {p.name: p for p, _ in (*model.always, *model.eventually, *model.sometimes)}
    found: dict[str, tuple] = {}  # name -> ((length, path, extra), path, extra, kind, why, fingerprint)

    def take(records: list) -> None:
        for name, kind, why, path, extra, fp in records:
            steps = len(path) // 2 - 1 + (extra is not None)
            key = (steps, path, -1 if extra is None else extra)
            if name not in found:
                bounds.violation(name, kind, steps)
            if name not in found or key < found[name][0]:
                found[name] = (key, path, extra, kind, why, fp)

    from .memo import MemoUnsupported, memo_specs

    configs = None
    if vectors is not False:  # states as id vectors where the memo engine can search the model, else as worlds
        try:
            configs = memo_specs(model)
        except MemoUnsupported:
            if vectors:
                raise
    vectors = configs is not None
    if vectors:
        from .sparkmemo import expand_vectors, initial_records

        records, values, init_found = initial_records(configs, model)
        deltas = [sc.broadcast(values)]  # the values the executors learn, a broadcast per level
        known = {(k, d) for k, d, _ in values}
        take(init_found)
    else:
        records = _initial(args)
    # level 0: the initial states, merged into empty visited sets like any level
    empty = sc.parallelize([(k, ("seen", b"")) for k in range(parts)], parts).partitionBy(parts, _owner)
    inits = sc.parallelize(records, 1).partitionBy(parts, _owner)
    level = inits.union(empty)
    if level.getNumPartitions() != parts:  # a union that is not partition-aware would lose the visited sets
        raise RuntimeError("Spark did not co-partition the frontier and the visited set")
    done: frozenset = frozenset()
    level = level.mapPartitionsWithIndex(lambda i, it, d=done: merge_partition(args, d, i, it, not vectors), True)
    states = transitions = quiescent = 0
    depth = 0
    frontier = 0
    prev = None
    try:
        while True:
            level.persist(StorageLevel.MEMORY_AND_DISK)
            level.localCheckpoint()
            info = level.filter(lambda kv: kv[1][0] in ("n", "x")).map(lambda kv: kv[1]).collect()
            if prev is not None:
                prev.unpersist()
            prev = level
            frontier = sum(r[1] for r in info if r[0] == "n")
            states += frontier
            transitions += sum(r[1] for r in info if r[0] == "x")
            quiescent += sum(r[2] for r in info if r[0] == "x")
            for r in info:
                take(r[3])
                if vectors and r[0] == "x":
                    new = [x for x in r[4] if (x[0], x[1]) not in known]
                    known.update((k, d) for k, d, _ in new)
                    if new:
                        deltas.append(sc.broadcast(new))
            if found and bounds.stop_when(found):
                out.stopped = bounds.stop_reason
                break
            if not frontier:
                depth = max(0, depth - 1)  # this level reached nothing new: the deepest is the one before
                break
            if bounds.max_states is not None and states >= bounds.max_states:
                out.stopped = f"state bound {bounds.max_states} reached"
                break
            now = time.perf_counter()
            if bounds.max_seconds is not None and now - started > bounds.max_seconds:
                out.stopped = f"time bound {bounds.max_seconds:g}s reached"
                break
            if bounds.max_depth is not None and depth >= bounds.max_depth:
                out.stopped = f"depth bound {bounds.max_depth} reached"
                break
            if bounds.progress is not None:
                out.states, out.transitions, out.depth, out.elapsed = states, transitions, depth, now - started
                bounds.progress(out, frontier)
            done = frozenset(found)
            seen = level.filter(lambda kv: kv[1][0] == "seen")
            frontier_rdd = level.filter(lambda kv: kv[1][0] == "f")
            if vectors:
                expanded = frontier_rdd.mapPartitionsWithIndex(
                    lambda i, it, d=done, b=tuple(deltas): expand_vectors(args, d, b, i, it))
            else:
                expanded = frontier_rdd.mapPartitionsWithIndex(lambda i, it, d=done: expand_partition(args, d, i, it))
            level = expanded.partitionBy(parts, _owner).union(seen)
            if level.getNumPartitions() != parts:
                raise RuntimeError("Spark did not co-partition the successors and the visited set")
            level = level.mapPartitionsWithIndex(lambda i, it, d=done: merge_partition(args, d, i, it, not vectors), True)
            depth += 1
    except KeyboardInterrupt:
        out.stopped = "interrupted (Ctrl-C)"
    finally:
        if prev is not None:
            prev.unpersist()
    finish_outcome(out, states=states, transitions=transitions, depth=depth, quiescent=quiescent,
                   exhausted=frontier == 0, workers=parts)
    out.engine_detail = f"Spark {sc.master}, {parts} partitions, " + ("id vectors" if vectors else "pickled worlds")
    for name, (_key, path, extra, kind, why, fp) in found.items():
        actions, reached = rebuild(model, path, extra, configs[0].world_fingerprint if vectors else None)
        if reached != fp:
            raise FingerprintCollision(f"the path stored for {name} re-executed to another fingerprint")
        out.discoveries[name] = discovery(props[name], why, actions, kind)
    out.elapsed = time.perf_counter() - started
