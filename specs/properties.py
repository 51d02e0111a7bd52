"""What must hold, as predicates that return a verdict with a human reason.

Each property is ``always`` (every reachable world), ``eventually`` (every quiescent world: no
progress action enabled, only faults or nothing; in our finite scopes every fair run ends in
one), or ``sometimes`` (a witness: some reachable transition shows the behaviour, so the check
is not vacuous).  A check function returns ``None`` when the property holds and a reason string
naming the record, task or checkpoint when it does not (for ``sometimes``: a string describing
the witness when the transition is one).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import networkx as nx

from ckptcheck.model.assignment import RestoreFailure
from ckptcheck.model.coordinator import pending_of
from ckptcheck.model.actions import Ack, Action, AlignmentTimeout, Decline, Deliver, EmitRecord, FailTask, LastAck, Notify, Rescale, Restore, ResumeFromSavepoint, Timeout, TriggerAfterClose, TriggerCheckpoint
from ckptcheck.model.partitioner import record_key_group
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.redistribution import key_group_range
from ckptcheck.model.topology import Role, StateKind, edge_name
from ckptcheck.model.task import priority_index
from ckptcheck.model.world import (CANCEL, COMMITTABLE, COMMITTED, DRAIN, EOD, FAILED, FINISHED, PART_HEAD, REC, RECOVERED_INPUT, RECOVERED_OUTPUT,
                                   REPLAY, RUNNING, STATUS_NAMES, Completed, World, is_recovered, whole_records)

ALWAYS = "always"
EVENTUALLY = "eventually"
SOMETIMES = "sometimes"


def _always_applies(design, scope) -> bool:
    return True


def _bounded(design, scope) -> bool:
    return scope.bounded


def _regional(design, scope) -> bool:
    return design.regional_checkpoints


@dataclass(frozen=True)
class Property:
    name: str
    kind: str
    statement: str
    check: Callable  # (model, world) or (model, prev, action, next) -> str | None
    applies: Callable = _always_applies  # (design, scope) -> bool: does the property mean anything here?


def rec(r: tuple[int, int]) -> str:
    return f"(split {r[0]}, offset {r[1]})"


# -- always ------------------------------------------------------------------------------------
def exactly_once_output(m: FlinkModel, w: World) -> str | None:
    seen: dict = {}
    for t in w.txns:
        if t.status != COMMITTED:
            continue
        for r in t.records:
            if r in seen:
                a = seen[r]
                names = m.global_names
                return (
                    f"record {rec(r)} committed twice: txn {a.seq} of {names[a.task]}"
                    f" and txn {t.seq} of {names[t.task]}"
                    if a is not t
                    else f"record {rec(r)} committed twice in txn {t.seq} of {names[t.task]}"
                )
            seen[r] = t
    return None


def restorable(m: FlinkModel, w: World) -> str | None:
    """Every retained checkpoint's files exist.  With FLIP-306 file merging the unit of deletion
    is the physical file, and the checkpoints to check are the ones kept for restore (the newest
    ``num_retained``): one kept only because a newer one refers to it needs only the segments
    that newer one lists itself."""
    store = w.coord.store
    merging = m.design.file_merging
    restorable_ids = set(m.store.retained_ids(tuple(c.id for c in store), m.design.num_retained)) if merging else None
    for k in range(len(store) - 1, -1, -1):  # the latest first: the one a restore would use
        c = store[k]
        names = m.model_of(c).topo.names
        if merging and c.id not in restorable_ids:
            continue
        for f in c.files:
            if m.file_merging_manager.file_exists(w, f):
                continue
            role = "the latest, which a restore would use" if k == len(store) - 1 else "retained"
            if m.file_merging_manager.is_merged(f[0]):
                tm = m.file_merging_manager.physical_file(f)[1]
                return (
                    f"checkpoint {c.id} ({role}) refers to segment cp{f[0]}/{names[f[1]]} in physical file"
                    f" tm{tm}/cp{f[0]}, which its task manager deleted once every segment in it was discarded"
                )
            if m.design.no_claim_restore and f[0] == 1:
                return (
                    f"checkpoint {c.id} ({role}) refers to file snapshot1/{names[f[1]]} of the NO_CLAIM"
                    f" snapshot, which the user deleted"
                )
            return f"checkpoint {c.id} ({role}) refers to file cp{f[0]}/{names[f[1]]}, which the cleaner deleted"
    return None


def channel_state(m: FlinkModel, c: Completed) -> tuple[tuple[int, str, tuple], ...]:
    """The channel state of checkpoint ``c``: per channel with any, (consumer vertex, where,
    records), ``where`` naming the subtask and side that holds it.  A record split between the
    consumer's input state (its head) and the producer's output state (its tail) counts once,
    where its head is."""
    topo = m.topo
    out = []
    all_out = m.all_out
    for ch in topo.channels:
        name = topo.channel_name(ch.id)
        inp = c.snapshots[ch.consumer].inputs
        if inp and inp[ch.input_index]:
            out.append((topo.vertex_of[ch.consumer], f"input channel state of {topo.names[ch.consumer]} on {name}",
                        whole_records(inp[ch.input_index])))
        outp = c.snapshots[ch.producer].outputs
        if outp:
            recs = whole_records(outp[all_out[ch.producer].index(ch.id)])
            if recs:
                out.append((topo.vertex_of[ch.consumer], f"output channel state of {topo.names[ch.producer]} on {name}", recs))
    return tuple(out)


def rescaled_channel_state_exact(m: FlinkModel, w: World) -> str | None:
    """Every retained checkpoint's channel state, redistributed to each other parallelism the
    scope may restart the job at (``StateAssignmentOperation.channel_state`` of that
    configuration), puts every record of it back exactly once: seed 003's "no buffer is lost or
    restored twice", checked on the checkpoint before any restart needs it.  A restore Flink
    refuses is ``restores-succeed``'s verdict, not this one's."""
    configs = m.configs
    if len(configs) < 2:
        return None
    for c in w.coord.store:
        own = m.model_of(c)
        for new in configs:
            if new is not own:
                why = _restore_verdict(new, own, c)
                if why:
                    return why
    return None


@lru_cache(maxsize=4096)
def _restore_verdict(new: FlinkModel, old: FlinkModel, c: Completed) -> str | None:
    try:
        restored = new.assignment.channel_state(c)
    except RestoreFailure:
        return None
    want: dict[tuple, list[str]] = {}
    for _, where, recs in channel_state(old, c):
        for r in recs:
            want.setdefault(r, []).append(where)
    got: dict[tuple, list[str]] = {}
    for cid, items in sorted(restored.items()):
        for x in items:
            got.setdefault((x[1], x[2]), []).append(new.topo.channel_name(cid))
    changed = ", ".join(
        f"{v.name} {len(old.topo.tasks_of[k])} -> {len(new.topo.tasks_of[k])}"
        for k, v in enumerate(new.topo.job.vertices) if len(old.topo.tasks_of[k]) != len(new.topo.tasks_of[k]))
    patterns = ", ".join(
        f"{edge_name(b)} {a.pattern.value} -> {b.pattern.value}"
        for a, b in zip(old.topo.job.edges, new.topo.job.edges) if a.pattern is not b.pattern)
    at = f"restored at {changed}" + (f" with {patterns}" if patterns else "")
    for r in sorted(set(want) | set(got)):
        n, k = len(got.get(r, ())), len(want.get(r, ()))
        if n > k:
            held = f" ({want[r][0]})" if k else " (in none of its channel state)"
            return f"checkpoint {c.id}, {at}, puts record {rec(r)}{held} back {n} times: into {' and '.join(got[r])}"
        if n < k:
            return f"checkpoint {c.id}, {at}, loses record {rec(r)} ({want[r][0]}): no channel gets it back"
    return None


@lru_cache(maxsize=4096)
def _cut_verdict(m: FlinkModel, c: Completed) -> str | None:
    """A record before its source's restore position has its effect in exactly one place on
    the way to each stateful vertex: the vertex's state, or the channel state of a channel
    into the vertex or into a vertex between the source and it (reference-flink-uc A.6); a
    record at or after the position is in none of them (the source replays it).  A finished
    subtask's state is empty in Flink (FLIP-147 discards it), and a subtask of a partly
    finished vertex restarts from that empty state: the record's effect then counts as held
    by that discarded state (the ghost ``Snapshot.discarded``), once, as any other place.  A
    recomputable window (FLINK-4120) holds only its last records: one before the position may be
    in no place; which ones it must hold is ``recomputed-state-matches``'s verdict."""
    topo = m.topo
    n_rec = m.scope.records_per_split
    names = topo.names
    pos = m.source.restore_positions(c)
    src_split = {topo.split_of[t]: t for t in topo.sources}
    stateful = m.stateful
    in_flight = channel_state(m, c) if m.unaligned else ()
    for v, tasks in enumerate(topo.tasks_of):
        if not any(stateful[t] for t in tasks):
            continue
        snaps = [c.snapshots[t] for t in tasks]
        partly_finished = any(s.finished for s in snaps)
        # union list state is a global view: a finished subtask's part of it is lost with the
        # discarded state (seed 004, "UnionListState"), which is why Flink does not let such a
        # vertex finish partly (CheckpointCoordinator.partly_finished_union_vertex)
        union = StateKind.UNION in topo.job.vertices[v].state
        window = topo.job.vertices[v].window
        if union and partly_finished and all(s.finished for s in snaps):
            continue
        upstream_splits = [
            sp for sp, st in src_split.items() if v in topo.downstream_vertices[topo.vertex_of[st]]
        ]
        on_the_way = [(where, recs) for u, where, recs in in_flight if u == v or v in topo.downstream_vertices[u]]
        for sp in upstream_splits:
            for off in range(n_rec):
                r = (sp, off)
                holders = [f"the state of {names[t]}" for t, s in zip(tasks, snaps) if r in s.processed]
                if not union:
                    holders.extend(f"the finished state of {names[t]} (FLIP-147 discarded it)"
                                   for t, s in zip(tasks, snaps) if r in s.discarded)
                for where, recs in on_the_way:
                    holders.extend(where for x in recs if x == r)
                before = off < pos[sp]
                if len(holders) > 1:
                    return (f"checkpoint {c.id} is not a consistent cut: record {rec(r)} is in {holders[0]} and in"
                            f" {holders[1]}: a restore applies it twice")
                if partly_finished and not union:
                    continue
                if window and before:  # a sliding window forgets records: recomputed-state-matches checks what it holds
                    continue
                src = names[src_split[sp]]
                if holders and not before:
                    return (
                        f"checkpoint {c.id} is not a consistent cut: record {rec(r)} is in"
                        f" {holders[0]} but at or after {src}'s position {pos[sp]}, so a restore replays it"
                    )
                if before and not holders:
                    vname = topo.job.vertices[v].name
                    gone = next((names[t] for t, s in zip(tasks, snaps) if r in s.discarded), None)
                    if gone is not None:
                        return (
                            f"checkpoint {c.id} is not a consistent cut: record {rec(r)} is before {src}'s position"
                            f" {pos[sp]} but in no state of {vname}: it was in the union list state of {gone}, which"
                            f" finished, and FLIP-147 discarded that state, so a restore loses it"
                        )
                    return (
                        f"checkpoint {c.id} is not a consistent cut: record {rec(r)} is before {src}'s"
                        f" position {pos[sp]} but in no state of {vname}, so a restore loses it"
                    )
    return None


def split_ownership(m: FlinkModel, w: World) -> str | None:
    """In every retained checkpoint each enumerator split is in exactly one place: unassigned in
    the enumerator's state or held by one reader; or nowhere once read to the end, which needs
    its records in the downstream state (seed 000: checkpointCoordinatorForRegionFallback "to
    produce consistent snapshots against the mixed view")."""
    return _first_over_store(m, w, _ownership_verdict) if m.enumerator.readers else None


@lru_cache(maxsize=4096)
def _ownership_verdict(m: FlinkModel, c: Completed) -> str | None:
    names = m.topo.names
    downstream = [s for t, s in enumerate(c.snapshots) if m.stateful[t]]
    for sp in m.enumerator.all_splits:
        holders = [names[t] for t, s in enumerate(c.snapshots) if t in m.enumerator.readers and s.split == sp]
        if sp in c.enum:
            holders.insert(0, "the split enumerator (unassigned)")
        if len(holders) > 1:
            return f"checkpoint {c.id} gives split {sp} to both {holders[0]} and {holders[1]}: a restore reads it twice"
        if holders or not downstream or any(s.finished for s in downstream):
            continue  # no stateful task downstream (a job of readers alone): the records go nowhere
        for off in range(m.scope.records_per_split):
            if not any((sp, off) in s.processed for s in downstream):
                return (
                    f"checkpoint {c.id} has split {sp} neither unassigned in the enumerator nor held by"
                    f" a reader, yet record {rec((sp, off))} is in no downstream state: a restore never reads it"
                )
    return None


def union_epoch_agreed(m: FlinkModel, w: World) -> str | None:
    """Every retained checkpoint gives a vertex with epoch state one epoch: each subtask's union
    list entry is the id of the checkpoint it snapshotted (``StateKind.EPOCH``), so in a
    checkpoint every task took part in they are all equal, and a restore shows each subtask the
    same agreed value.  A regional checkpoint whose failed region falls back composes a view no
    run of global checkpoints has (Roman, dev@ 3 Jul 2026: "{100, 101}"; review row B18)."""
    store = w.coord.store
    for c in store:
        why = _epoch_verdict(m.model_of(c), c, store)
        if why:
            return why
    return None


def snapshot_origin(by_id: dict, c: Completed, t: int) -> int:
    """The id of the checkpoint in which subtask ``t``'s snapshot in ``c`` was taken: its own
    id, or the checkpoint its refCheckpointId leads to (followed through the store, ``by_id``,
    since a fallback may itself be a fallback)."""
    seen = c
    while seen.refs and seen.refs[t]:
        nxt = by_id.get(seen.refs[t])
        if nxt is None:
            return seen.refs[t]
        seen = nxt
    return seen.id


@lru_cache(maxsize=4096)
def _epoch_verdict(m: FlinkModel, c: Completed, store: tuple) -> str | None:
    topo = m.topo
    by_id = {x.id: x for x in store}
    for v, vertex in enumerate(topo.job.vertices):
        if StateKind.EPOCH not in vertex.state:
            continue
        entries = [(topo.names[t], snapshot_origin(by_id, c, t)) for t in topo.tasks_of[v]
                   if not c.snapshots[t].finished]
        epochs = sorted({e for _, e in entries})
        if len(epochs) > 1:
            who = ", ".join(f"{n} from checkpoint {e}" for n, e in entries)
            return (f"checkpoint {c.id} gives the union state of {vertex.name} the view"
                    f" {{{', '.join(map(str, epochs))}}} ({who}): no checkpoint every subtask took part in holds two"
                    " epochs, and a restore shows each subtask both")
    return None


def split_read_once(m: FlinkModel, w: World) -> str | None:
    """No split is held by two running readers at once.  A reader keeps the split it was given
    until it asks for the next one, so a second holder means the enumerator handed the split
    out again while (or after) the first reader read it: its records are read twice.  Every
    path by which a split returns to the enumerator in Flink restarts its reader first
    (``subtaskReset`` -> ``addSplitsBack``); PR #28963's fallback does not (review row B12)."""
    readers = m.enumerator.readers
    if not readers:
        return None
    names = m.topo.names
    holder: dict[int, int] = {}
    for t in readers:
        ts = w.tasks[t]
        if ts.status != RUNNING or ts.split < 0:
            continue
        if ts.split in holder:
            first = holder[ts.split]
            return (f"split {ts.split} is held by both {names[first]} (at offset {w.tasks[first].position}) and"
                    f" {names[t]} (at offset {ts.position}): the enumerator handed it out again, and its records"
                    " are read twice")
        holder[ts.split] = t
    return None


def consistent_cut(m: FlinkModel, w: World) -> str | None:
    return _first_over_store(m, w, _cut_verdict)


def _first_over_store(m: FlinkModel, w: World, verdict: Callable) -> str | None:
    """The first retained checkpoint's reason from ``verdict(m, checkpoint)`` (a cached
    function: checkpoints repeat across millions of worlds)."""
    for c in w.coord.store:
        why = verdict(m.model_of(c), c)
        if why:
            return why
    return None


@lru_cache(maxsize=256)
def _keyed_layout(m: FlinkModel) -> tuple:
    """Per keyed vertex: (name, max_p, its subtasks with their key-group ranges), or the reason
    the ranges do not partition [0, maxP)."""
    topo = m.topo
    out = []
    for k, v in enumerate(topo.job.vertices):
        if StateKind.KEYED not in v.state:
            continue
        ranges = [key_group_range(v.max_p, v.parallelism, i) for i in range(v.parallelism)]
        covered = sum(e - s + 1 for s, e in ranges)
        if covered != v.max_p or any(ranges[i][1] + 1 != ranges[i + 1][0] for i in range(len(ranges) - 1)):
            return f"key groups of {v.name} are not owned exactly once: ranges {ranges}"
        out.append((v.name, v.max_p, tuple(zip(topo.tasks_of[k], ranges))))
    return tuple(out)


def key_groups_owned_once(m: FlinkModel, w: World) -> str | None:
    """Every record held by a keyed subtask belongs to a key group in that subtask's range,
    and the ranges of a vertex partition [0, maxP) (so each key group has one owner)."""
    layout = _keyed_layout(m)
    if isinstance(layout, str):
        return layout
    for _, max_p, tasks in layout:
        for t, (s, e) in tasks:
            for r in w.tasks[t].processed:
                kg = record_key_group(r[0], r[1], max_p, m.scope.keys_per_split)
                if not s <= kg <= e:
                    return (
                        f"record {rec(r)} (key group {kg}) is in the state of {m.topo.names[t]},"
                        f" whose key-group range is [{s}, {e}]"
                    )
    return None


def restores_succeed(m: FlinkModel, w: World) -> str | None:
    """Every restore can deploy the job from its checkpoint: none fails as Flink fails one it
    cannot redistribute (``UnsupportedOperationException`` for a rescaled POINTWISE edge with
    in-flight data) or one whose recovered channel state a task cannot read
    (``IllegalStateException`` "Cannot select ...")."""
    return w.coord.restore_failure or None


def per_key_order(m: FlinkModel, w: World) -> str | None:
    """Records of one key reach the keyed operator in source order (seed 003, FLINK-21936: the
    guarantee that unaligned checkpoints with rescaling can break).  A source emits a key's
    records in offset order over one channel, so in every run that keeps the order the keyed
    state holds, per key, a prefix of that key's records; a later record held while an earlier
    one is not was processed first (or the earlier one is lost).  Checked where the scope
    gives the records of a split shared keys (``keys_per_split``)."""
    k = m.scope.keys_per_split
    layout = _keyed_layout(m)
    if not k or isinstance(layout, str):
        return None
    for _, _, tasks in layout:
        for t, _ in tasks:
            held = set(w.tasks[t].processed)
            for sp, off in w.tasks[t].processed:
                for earlier in range(off % k, off, k):
                    if (sp, earlier) not in held:
                        return (
                            f"{m.topo.names[t]} holds record {rec((sp, off))} but not the earlier record"
                            f" {rec((sp, earlier))} of the same key ({1000 * sp + off % k}): the key's records"
                            f" were not processed in source order"
                        )
    return None


def ref_chain_bounded(m: FlinkModel, w: World) -> str | None:
    """FLIP-600: following refCheckpointId from any retained checkpoint takes at most
    max_consecutive_regional hops (seed 000: "The reference chain can only grow as deep as
    maxConsecutiveFailures")."""
    limit = m.design.max_consecutive_regional
    by_id = {c.id: c for c in w.coord.store}
    for c in w.coord.store:
        for t in range(len(c.snapshots)):
            chain = [c.id]
            cur = c
            while cur is not None and cur.refs and len(cur.refs) == len(c.snapshots) and cur.refs[t]:
                chain.append(cur.refs[t])  # (a chain into a checkpoint at another parallelism ends there)
                cur = by_id.get(cur.refs[t])
            if len(chain) - 1 > limit:
                path = " -> ".join(map(str, chain))
                return (
                    f"checkpoint {c.id} refers for {m.model_of(c).topo.names[t]} through a chain {path} of {len(chain) - 1}"
                    f" refs, over max_consecutive_regional = {limit}"
                )
    return None


def committed_output_covered(m: FlinkModel, w: World) -> str | None:
    """Every record a 2PC sink committed is covered by the latest completed checkpoint (the one
    a restore uses): it lies before its split's position there, so no restore reads it again.
    A commit the restore point does not cover is a duplicate waiting for a failover.  Once a
    stop's savepoint completed, the restore point is that savepoint (the job resumes from it)."""
    store = w.coord.store
    if w.coord.savepoint:
        store = (w.coord.savepoint,)
    pos = m.model_of(store[-1]).source.restore_positions(store[-1]) if store else None
    two_pc = m.global_two_pc
    names = m.global_names
    for x in w.txns:
        if x.status != COMMITTED or x.task not in two_pc:
            continue
        for r in x.records:
            at = pos.get(r[0], 0) if pos is not None else 0
            if r[1] >= at:
                where = f"the latest completed {'savepoint' if w.coord.savepoint else 'checkpoint'} {store[-1].id} resumes split {r[0]} at offset {at}" if store else "no checkpoint has completed"
                return (
                    f"{names[x.task]} committed record {rec(r)} (txn {x.seq}), but {where}:"
                    f" a restore reads it again"
                )
    return None


def _data_item(x: tuple) -> bool:
    return x[0] == REC or x[0] == COMMITTABLE


def describe_item(m: FlinkModel, producer: int, x: tuple) -> str:
    """A record, or a Sink V2 committable message from subtask ``producer``, in words."""
    if x[0] != COMMITTABLE:
        return f"record {rec((x[1], x[2]))}"
    names = m.global_names

    def one(w: int, recs: tuple) -> str:
        return f"{names[w]}'s committable (records {', '.join(rec(r) for r in recs) or 'none'})"

    if m.sink_v2[producer] == "writer":
        return f"the committable of checkpoint {x[1]}: {one(*x[2])}"
    return f"the committed committables of checkpoint {x[1]}: {'; '.join(one(w, recs) for w, recs in x[2][1])}"


def no_data_after_end_of_data(m: FlinkModel, w: World) -> str | None:
    """No record or committable travels behind EndOfData: a task that has seen EndOfData on
    every input drops whatever still arrives (``FinishedDataOutput``, reference-flink-uc A.9
    item 4), silently.  Checked on the channel, before the drop: an item behind EndOfData in
    a channel, or in a channel whose EndOfData its consumer already took."""
    topo = m.topo
    names = topo.names
    for ch in topo.channels:
        items = w.channels[ch.id]
        if not items:
            continue
        if w.tasks[ch.consumer].stopped:
            continue  # EndOfData without drain: the consumer still processes data (STOPPED, not END_OF_DATA)
        after = items.index(EOD) + 1 if EOD in items else (0 if w.tasks[ch.consumer].eod >> ch.input_index & 1 else len(items))
        late = next((x for x in items[after:] if _data_item(x)), None)
        if late is not None:
            return (
                f"{names[ch.producer]} sent {describe_item(m, ch.producer, late)} to {names[ch.consumer]} after its EndOfData:"
                f" {names[ch.consumer]} drops it once its input ended (FinishedDataOutput), so its records are never"
                f" committed: data loss"
            )
    return None


def writer_input_before_end_of_input(m: FlinkModel, w: World) -> str | None:
    """A Sink V2 writer takes no record once it reached end of input: ``processElement`` then
    throws ``IllegalStateException`` (reference-flink-uc D.5).  A writer restores its end of
    input from ``end_of_input_state`` (``initializeState``), so this catches a restore that
    gives a writer that ended more input: a job resumed from a stop's ``--drain`` savepoint
    whose sources had not read everything.  A record a writer discards during a FLINK-4120
    replay (ahead of the re-inserted barrier) never reaches ``processElement``."""
    topo = m.topo
    for t, part in enumerate(m.sink_v2):
        ts = w.tasks[t]
        if part != "writer" or ts.status != RUNNING or not ts.sink or not ts.sink[1]:
            continue
        for c in topo.inputs[t]:
            items = w.channels[c]
            if ts.replay and not ts.blocked >> topo.channels[c].input_index & 1:
                # FLINK-4120: replayed records ahead of the re-inserted barrier are discarded unread
                cut = next((i for i, x in enumerate(items) if x[0] == REPLAY), len(items))
                items = tuple(x for x in items[:cut] if x[0] == REC and not m.null_state.drops(ts, x[1:3])) + items[cut:]
            r = next((x for x in items if x[0] == REC), None)
            if r is not None:
                return (f"{topo.names[t]} reached end of input (restored: {ts.sink[0]}) but record {rec(r[1:3])} from"
                        f" {topo.names[topo.channels[c].producer]} reaches it: SinkWriterOperator.processElement throws"
                        f" IllegalStateException, so the job cannot run")
    return None


def finished_sinks_committed(m: FlinkModel, w: World) -> str | None:
    """A 2PC sink that finished has committed everything it wrote: it received the completion
    of a checkpoint taken after its finish, holding its own state, before it went away (seed
    000, Roman: "After a successful checkpoint, they are guaranteed to get checkpoint
    completion notification - so that they can make side effects visible")."""
    names = m.global_names
    lid = m.lid
    for x in w.txns:
        if x.status == COMMITTED or not x.records or x.task not in lid or w.tasks[lid[x.task]].status != FINISHED:
            continue
        return (
            f"{names[x.task]} finished, but its transaction {x.seq} with record {rec(x.records[0])} was never"
            f" committed: data loss"
        )
    return None


# -- eventually --------------------------------------------------------------------------------
def terminates_with_all_output(m: FlinkModel, w: World) -> str | None:
    topo = m.topo
    stuck = [t for t, ts in enumerate(w.tasks) if ts.status != FINISHED]
    if stuck:
        t = stuck[0]
        ts = w.tasks[t]
        why = STATUS_NAMES[ts.status]
        if ts.status == RUNNING:
            if ts.ended and ts.final_cp and ts.notified < ts.final_cp:
                why += f", waiting for the completion of its final checkpoint {ts.final_cp}"
            elif ts.ended and not ts.final_cp:
                why += ", waiting for a checkpoint after its end of input"
            elif not ts.ended:
                why += ", its input has not ended"
            else:
                why += ", waiting for EndOfPartition on its inputs"
        pend = w.coord.pending
        extra = f"; checkpoint {', '.join(str(p.id) for p in pend)} {'is' if len(pend) == 1 else 'are'} pending" if pend else ""
        return f"no progress is possible but the job has not finished: {topo.names[t]} is {why}{extra}"
    committed: dict = {}
    for x in w.txns:
        if x.status == COMMITTED:
            for r in x.records:
                committed[r] = committed.get(r, 0) + 1
    sinks = {v for v, x in enumerate(topo.job.vertices) if x.role is Role.SINK}
    unread = set(w.coord.stop[2]) if w.coord.stop else set()  # stop-with-savepoint --drain: never read
    for t in topo.sources:
        if not sinks & topo.downstream_vertices[topo.vertex_of[t]]:
            continue  # a source that feeds no sink commits nothing
        sp = topo.split_of[t]
        for off in range(m.scope.records_per_split):
            if committed.get((sp, off), 0) == 0 and (sp, off) not in unread:
                return f"the job finished but record {rec((sp, off))} was never committed"
    return None


# -- FLINK-4120, the null-state checkpoint (``model.nullstate``) --------------------------------
def _null_state(design, scope) -> bool:
    return design.recovery == "null-state"


def recomputed_state_matches(m: FlinkModel, w: World) -> str | None:
    """Seed 001: "the pipeline must be restarted from the latter to restore the state at the
    former": when the re-inserted barrier of checkpoint L passed a recomputable operator, its
    rebuilt state is the one L held (the ghost ``TaskState.recomputed`` keeps a difference)."""
    for t, ts in enumerate(w.tasks):
        if not ts.recomputed:
            continue
        cp, rebuilt, expected = ts.recomputed
        missing = [r for r in expected if r not in rebuilt]
        extra = [r for r in rebuilt if r not in expected]
        what = (f"lacks record {rec(missing[0])}, which checkpoint {cp}'s state held" if missing
                else f"holds record {rec(extra[0])}, which checkpoint {cp}'s state did not")
        return (f"{m.topo.names[t]} was wrongly recomputed: as the re-inserted barrier of checkpoint {cp} passed it,"
                f" its state {what}")
    return None


def null_state_checkpoint_retained(m: FlinkModel, w: World) -> str | None:
    """A recovery never needs a checkpoint the store already deleted: the latest checkpoint's
    null-state checkpoint is retained, with its files (and no restore failed for want of it)."""
    store = w.coord.store
    if w.coord.restore_failure:
        return w.coord.restore_failure
    if not store or not store[-1].null_state:
        return None
    latest = store[-1]
    need = latest.null_state
    if not any(c.id == need for c in store):
        held = [(r, m.topo.names[t]) for t in range(m.topo.n_tasks) if m.null_state.windows[t]
                for r in m.null_state.state_at(latest, t)]
        what = f", rebuilding record {rec(held[0][0])} of {held[0][1]}'s state," if held else ""
        return (f"checkpoint {latest.id}'s null-state checkpoint {need} is no longer in the store, its files"
                f" deleted: a recovery{what} must restart the sources from its positions")
    return None


def w_older_null_state_recovery(m, prev: World, a, nxt: World) -> str | None:
    """A restart from a null-state checkpoint older than the latest checkpoint (a checkpoint,
    not the job's start)."""
    if type(a) is not Restore or not a.checkpoint or nxt.coord.restore_failure:
        return None
    latest = prev.coord.store[-1]
    if 0 < latest.null_state < latest.id:
        return f"the job restarts from checkpoint {latest.null_state}, the null-state checkpoint of checkpoint {latest.id}"
    return None


def _replayed_head(m, prev: World, a) -> tuple | None:
    """``Deliver`` of a replayed record to a task that discards until the re-inserted barrier:
    (task name, its replay, the record, whether it drops it), or ``None``."""
    if type(a) is not Deliver:
        return None
    ch = m.topo.channels[a.channel]
    ts = prev.tasks[ch.consumer]
    items = prev.channels[a.channel]
    if ts.replay and ts.replay[2] and items and items[0][0] == REC and len(items[0]) == 3:
        r = items[0][1:3]
        return m.topo.names[ch.consumer], ts.replay, r, m.null_state.drops(ts, r)
    return None


def w_sink_discards_replayed(m, prev: World, a, nxt: World) -> str | None:
    """A task restored from the latest checkpoint drops a replayed record before the barrier."""
    head = _replayed_head(m, prev, a)
    if head and head[3]:
        return f"{head[0]} discards replayed record {rec(head[2])}: its state from checkpoint {head[1][0]} holds it"
    return None


def w_sink_takes_overtaken(m, prev: World, a, nxt: World) -> str | None:
    """Unaligned checkpoints: a task restored from the latest checkpoint takes a replayed record
    before the re-inserted barrier, because the checkpoint's barrier had overtaken it."""
    head = _replayed_head(m, prev, a)
    if head and not head[3]:
        return (f"{head[0]} takes replayed record {rec(head[2])} before the re-inserted barrier: checkpoint"
                f" {head[1][0]}'s barrier overtook it, so its state there does not hold it")
    return None


def w_trigger_held_during_replay(m, prev: World, a, nxt: World) -> str | None:
    """A checkpoint would be triggered but a re-inserted barrier is still on its way
    (``NullStateRecovery.replaying``): the coordinator holds the trigger."""
    if m.null_state.replaying(nxt) and m.coordinator.trigger_allowed(nxt):
        return "a checkpoint could be triggered, but the coordinator holds it while a re-inserted barrier is on its way"
    return None


def w_in_flight_pushes_back(m, prev: World, a, nxt: World) -> str | None:
    """Unaligned checkpoints: the records a checkpoint holds in flight to a recomputable operator
    make its null-state checkpoint older than its operators' watermarks alone would
    (``NullStateRecovery.in_flight_watermark``)."""
    if nxt.coord.completed_count <= prev.coord.completed_count:
        return None
    c = nxt.coord.store[-1]
    alone = m.null_state.null_state_checkpoint(prev.coord.store, c.id, c.snapshots, in_flight=False)
    if c.null_state != alone:
        return (f"checkpoint {c.id}'s null-state checkpoint is {c.null_state}, not {alone}: records it holds in flight"
                " to a recomputable operator reach back further than the operator's own watermark")
    return None


def w_barrier_reinserted(m, prev: World, a, nxt: World) -> str | None:
    """A source re-inserts the latest checkpoint's barrier after replaying records."""
    if type(a) is not EmitRecord:
        return None
    ts = prev.tasks[a.task]
    if ts.replay and not nxt.tasks[a.task].replay:
        return f"{m.topo.names[a.task]} re-inserts the barrier of checkpoint {ts.replay[0]} at offset {ts.replay[1]}"
    return None


# -- sometimes (witnesses, on transitions) -----------------------------------------------------
def w_checkpoint_completed(m, prev: World, a: Action, nxt: World) -> str | None:
    if nxt.coord.completed_count > prev.coord.completed_count:
        return f"checkpoint {nxt.coord.store[-1].id} completed"
    return None


def w_two_checkpoints_completed(m, prev: World, a: Action, nxt: World) -> str | None:
    if nxt.coord.completed_count >= 2 > prev.coord.completed_count:
        return "a second checkpoint completed"
    return None


def w_decline(m, prev, a, nxt) -> str | None:
    return f"{m.topo.names[a.task]} declined checkpoint {a.checkpoint}" if type(a) is Decline else None


def w_failover(m, prev, a, nxt) -> str | None:
    if type(a) is FailTask:
        n = sum(1 for ts in nxt.tasks if ts.status == FAILED)
        return f"{m.topo.names[a.task]} failed; {n} subtask(s) cancelled"
    return None


def w_restore(m, prev, a, nxt) -> str | None:
    if type(a) is Restore and a.checkpoint > 0:
        return f"failed subtasks restored from checkpoint {a.checkpoint}"
    return None


def w_ack_overtakes(m, prev: World, a, nxt: World) -> str | None:
    """Acknowledgements in flight are a set (``CheckpointCoordinator`` docstring): the
    coordinator receives one while a lower-numbered subtask's is still in flight."""
    if type(a) is Ack and prev.acks[0][0] != a.task:
        first = prev.acks[0]
        return (f"the coordinator received {m.topo.names[a.task]}'s ack of checkpoint {a.checkpoint} before"
                f" {m.topo.names[first[0]]}'s of checkpoint {first[1]}")
    return None


def w_sink_commit(m, prev: World, a, nxt: World) -> str | None:
    if nxt.txns is prev.txns:
        return None
    before = sum(1 for t in prev.txns if t.status == COMMITTED)
    after = sum(1 for t in nxt.txns if t.status == COMMITTED)
    return "a sink transaction was committed" if after > before else None


def _outlives_upstream(design, scope) -> bool:
    """Can a task still need a checkpoint after a whole vertex upstream of it (or beside it)
    finished?  Only then can the plan trigger a non-source task by RPC, or a checkpoint hold a
    fully finished vertex next to a running one.  A task's final checkpoint is otherwise its
    upstream's (EndOfData reaches it ahead of that checkpoint's barrier, and both learn of the
    completion together), so it needs one of: a Sink V2 global committer (the committer holds
    EndOfData until its final checkpoint completed), a lost notification, or vertices that do
    not feed each other (two parts of the job graph)."""
    if not (scope.bounded and design.checkpoints_after_tasks_finish):
        return False
    job = scope.job
    return _post_commit(design, scope) or scope.max_lost_notifications > 0 or not nx.is_weakly_connected(job.graph)


def _parallel(scope) -> bool:
    return any(v.parallelism > 1 for v in scope.job.vertices)


def _sink_v2(design, scope) -> bool:
    return any(v.sink_v2 for v in scope.job.vertices)


def _post_commit(design, scope) -> bool:
    return any(v.sink_v2 == "global-committer" for v in scope.job.vertices)


def _new_commits(prev: World, nxt: World) -> list:
    if nxt.txns is prev.txns:
        return []
    old = {(x.task, x.seq): x for x in prev.txns}
    return [x for x in nxt.txns if x.status == COMMITTED and old.get((x.task, x.seq)) != x]


def w_end_of_input_committables(m, prev: World, a, nxt: World) -> str | None:
    """A Sink V2 committable a writer emitted at its end of input (tagged
    ``lastKnownCheckpointId + 1``) is committed."""
    lid = m.lid
    for x in _new_commits(prev, nxt):
        t = lid.get(x.task)
        if t is None or m.sink_v2[t] != "writer":
            continue
        sink = nxt.tasks[t].sink  # () while deployed FINISHED_ON_RESTORE
        if sink and sink[1] and sink[0] == x.seq:
            return (f"{m.global_names[x.task]}'s end-of-input committable (checkpoint {x.seq}, record"
                    f" {rec(x.records[0])}) was committed")
    return None


def w_committer_holds_end_of_data(m, prev: World, a, nxt: World) -> str | None:
    """A Sink V2 committer holds EndOfData back until its final committables were emitted
    (the fix of FLINK-38614)."""
    for t, part in enumerate(m.sink_v2):
        if part == "committer" and m.committer.holds_end_of_data(nxt.tasks[t]) and not m.committer.holds_end_of_data(prev.tasks[t]):
            return f"{m.topo.names[t]} holds EndOfData back: committables of checkpoint {nxt.tasks[t].sink[0][0][0]} not yet emitted"
    return None


def w_committables_recommitted(m, prev: World, a, nxt: World) -> str | None:
    """A restore re-commits (or re-emits to the global committer) the committables in a Sink V2
    committer's restored state (``CommitterOperator.initializeState``)."""
    if type(a) is not Restore:
        return None
    if _new_commits(prev, nxt):
        return f"the restore from checkpoint {a.checkpoint} re-committed restored committables"
    for t, part in enumerate(m.sink_v2):
        if part == "committer" and any(x[0] == COMMITTABLE for c in m.all_out[t] for x in nxt.channels[c]):
            return f"the restore from checkpoint {a.checkpoint} re-emitted {m.topo.names[t]}'s restored committables"
    return None


def w_triggered_after_producers_finished(m, prev: World, a, nxt: World) -> str | None:
    """FLIP-147: the plan triggers a non-source task by RPC because its producers finished."""
    if type(a) is not TriggerCheckpoint:
        return None
    to_trigger, _, _ = m.coordinator.tasks_to_trigger(prev.tasks)
    roles = m.roles
    t = next((t for t in to_trigger if roles[t] is not Role.SOURCE), None)
    if t is None:
        return None
    return f"checkpoint {a.checkpoint} triggers {m.topo.names[t]} by RPC: its producers finished"


def w_partly_finished_checkpoint(m, prev: World, a, nxt: World) -> str | None:
    """FLIP-147: a checkpoint completes while a vertex is partly finished."""
    if nxt.coord.completed_count <= prev.coord.completed_count:
        return None
    c = nxt.coord.store[-1]
    topo = m.model_of(c).topo
    for v, tasks in enumerate(topo.tasks_of):
        done = [c.snapshots[t].finished for t in tasks]
        if any(done) and not all(done):
            return f"checkpoint {c.id} completed with {topo.job.vertices[v].name} partly finished ({sum(done)} of {len(done)} subtasks)"
    return None


def w_finished_on_restore(m, prev: World, a, nxt: World) -> str | None:
    """A fully finished vertex is deployed FINISHED_ON_RESTORE at a restore."""
    if type(a) is not Restore:
        return None
    t = next((t for t, ts in enumerate(nxt.tasks) if ts.finished_on_restore and not prev.tasks[t].finished_on_restore), None)
    return None if t is None else f"{m.topo.names[t]} restored FINISHED_ON_RESTORE from checkpoint {a.checkpoint}"


def w_finished_subtask_restarts(m, prev: World, a, nxt: World) -> str | None:
    """A finished subtask of a partly finished vertex restarts as a regular task."""
    if type(a) is not Restore or not a.checkpoint:
        return None
    c = nxt.coord.store[-1]
    if len(c.snapshots) != len(nxt.tasks):
        return None
    for t, ts in enumerate(nxt.tasks):
        if c.snapshots[t].finished and prev.tasks[t].status == FAILED and ts.status == RUNNING and not ts.finished_on_restore:
            return f"{m.topo.names[t]}, finished in checkpoint {c.id}, restarts with empty state (its vertex is partly finished)"
    return None


def w_checkpoint_survives_a_finish(m, prev: World, a, nxt: World) -> str | None:
    """Seed 004, "Do Not Cancel Pending Checkpoint on Finish": a checkpoint completes although a
    task it was triggered with finished while it was pending."""
    if nxt.coord.completed_count <= prev.coord.completed_count:
        return None
    p = pending_of(prev.coord, nxt.coord.store[-1].id)
    if p is None:
        return None
    t = next((t for t, ts in enumerate(nxt.tasks) if p.waiting >> t & 1 and ts.status == FINISHED), None)
    if t is None:
        return None
    return f"checkpoint {p.id} completed after {m.topo.names[t]}, running when it was triggered, finished"


def w_completes_before_restore(m, prev: World, a, nxt: World) -> str | None:
    """A checkpoint completes after a failure and before its restore (the restore, not the
    failure, aborts the pending checkpoint)."""
    if nxt.coord.completed_count <= prev.coord.completed_count:
        return None
    t = next((t for t, ts in enumerate(nxt.tasks) if ts.status == FAILED), None)
    if t is None:
        return None
    return f"checkpoint {nxt.coord.store[-1].id} completed while {m.topo.names[t]} had failed, before the restore"


def w_two_checkpoints_pending(m, prev: World, a, nxt: World) -> str | None:
    """Two checkpoints are pending at once (``max_concurrent_checkpoints`` > 1)."""
    if len(nxt.coord.pending) >= 2 > len(prev.coord.pending):
        return f"checkpoints {' and '.join(str(p.id) for p in nxt.coord.pending)} are pending at once"
    return None


def w_completion_subsumes_pending(m, prev: World, a, nxt: World) -> str | None:
    """A checkpoint completes while an older one is pending, which it aborts
    (``dropSubsumedCheckpoints``, CHECKPOINT_SUBSUMED)."""
    if nxt.coord.completed_count <= prev.coord.completed_count:
        return None
    done = nxt.coord.store[-1].id
    older = [p.id for p in prev.coord.pending if p.id < done]
    if not older:
        return None
    return f"checkpoint {done} completed first and subsumed pending checkpoint {', '.join(map(str, older))}"


def _finishing(prev: World, nxt: World):
    """The subtasks that finish in this step."""
    if nxt.tasks is prev.tasks:
        return ()
    return tuple(t for t, ts in enumerate(nxt.tasks) if ts.status == FINISHED and prev.tasks[t].status == RUNNING)


def w_finishes_on_later_completion(m, prev: World, a, nxt: World) -> str | None:
    """Seed 004: a task finishes on the completion of a checkpoint later than its final one
    ("the first notifyCheckpointComplete(X), where X is any triggered checkpoint AFTER
    finish()"): its final checkpoint was aborted or its completion notice lost."""
    for t in _finishing(prev, nxt):
        p, n = prev.tasks[t], nxt.tasks[t]
        if p.final_cp and p.notified < p.final_cp < n.notified:
            return (f"{m.topo.names[t]} finished on the completion of checkpoint {n.notified}, later than its"
                    f" final checkpoint {p.final_cp}")
    return None


def w_finishes_with_checkpoint_pending(m, prev: World, a, nxt: World) -> str | None:
    """Seed 004's 42/43/44 scenario: a task finishes on a completion while a later checkpoint
    it acknowledged is still pending ("If checkpoint 44 completes afterwards, it will still be
    valid")."""
    for t in _finishing(prev, nxt):
        for p in nxt.coord.pending:
            if p.waiting >> t & 1 and (any(x == t for x, _ in p.acked) or any(x[0] == t and x[1] == p.id for x in nxt.acks)):
                return (f"{m.topo.names[t]} finished on the completion of checkpoint {nxt.tasks[t].notified} while"
                        f" checkpoint {p.id}, which it acknowledged, is pending")
    return None


def w_trigger_after_close(m, prev: World, a, nxt: World) -> str | None:
    """The status of a task changed between the plan and the trigger: it finished before the
    trigger RPC arrived, which it declines (TASK_CLOSING, not counted)."""
    if type(a) is TriggerAfterClose:
        return f"{m.topo.names[a.task]} finished before the trigger RPC of checkpoint {a.checkpoint}; declined (TASK_CLOSING)"
    return None


def w_savepoint_completes(m, prev: World, a, nxt: World) -> str | None:
    """A stop-with-savepoint's synchronous savepoint completes (not into the store)."""
    if nxt.coord.savepoint and not prev.coord.savepoint:
        mode = "--drain" if nxt.coord.stop[1] == DRAIN else "without --drain"
        return f"the stop's savepoint {nxt.coord.savepoint.id} ({mode}) completed"
    return None


def w_stopped_job_finishes(m, prev: World, a, nxt: World) -> str | None:
    """Every subtask finished after a stop-with-savepoint's savepoint completed."""
    if nxt.coord.savepoint and w_job_finished(m, prev, a, nxt):
        unread = len(nxt.coord.stop[2])
        tail = f"; {unread} record(s) were never read (--drain)" if unread else ""
        return f"the job stopped with savepoint {nxt.coord.savepoint.id}: every subtask finished{tail}"
    return None


def w_stop_fails(m, prev: World, a, nxt: World) -> str | None:
    """The stop's savepoint is aborted and the job runs on (its tasks restart)."""
    if prev.coord.stop and not nxt.coord.stop and not prev.coord.savepoint:
        return f"the stop's savepoint {prev.coord.stop[0]} was aborted: the job fails over and runs on"
    return None


def w_resumed_from_savepoint(m, prev: World, a, nxt: World) -> str | None:
    if type(a) is ResumeFromSavepoint:
        return f"the job resumed from savepoint {a.checkpoint}"
    return None


def w_union_state_abort(m, prev: World, a, nxt: World) -> str | None:
    """A checkpoint every task acknowledged aborts: a vertex with union list state would be
    partly finished in it (``PartialFinishingNotSupportedByStateException``, TASK_CLOSING).
    Without declines (a regional checkpoint may abort at its last acknowledgement,
    ``RegionalCheckpointHandler.try_complete``) an acknowledgement aborts for no other reason."""
    if type(a) is not Ack and type(a) is not LastAck:
        return None
    p = pending_of(prev.coord, a.checkpoint)
    if p is None or p.declined or pending_of(nxt.coord, a.checkpoint) is not None:
        return None
    if nxt.coord.completed_count > prev.coord.completed_count:
        return None
    union = [m.topo.job.vertices[v].name for v in m.coordinator.union_vertices]
    return (f"checkpoint {p.id} aborts at its last acknowledgement (TASK_CLOSING): union-state"
            f" vertex {' or '.join(union)} would be partly finished in it")


def w_job_finished(m, prev: World, a, nxt: World) -> str | None:
    if nxt.tasks is prev.tasks:  # no subtask changed (``Tx.freeze`` keeps the tuple)
        return None
    if all(ts.status == FINISHED for ts in nxt.tasks) and not all(ts.status == FINISHED for ts in prev.tasks):
        return "every subtask finished"
    return None


def w_regional_completed(m, prev: World, a, nxt: World) -> str | None:
    if nxt.coord.completed_count > prev.coord.completed_count and any(nxt.coord.store[-1].refs):
        c = nxt.coord.store[-1]
        who = ", ".join(m.topo.names[t] for t, r in enumerate(c.refs) if r)
        return f"regional checkpoint {c.id} completed with {who} falling back to checkpoint {max(c.refs)}"
    return None


def w_restore_regional(m, prev: World, a, nxt: World) -> str | None:
    if type(a) is Restore and a.checkpoint and prev.coord.store and any(prev.coord.store[-1].refs):
        return f"failed subtasks restored from regional checkpoint {a.checkpoint}"
    return None


def w_forced_global(m, prev: World, a, nxt: World) -> str | None:
    """A checkpoint that was forced global (tier 1, or because the sources are exhausted)
    completes after at least one regional one."""
    pend = pending_of(prev.coord, nxt.coord.store[-1].id) if nxt.coord.completed_count > prev.coord.completed_count else None
    if pend is not None and pend.global_only and prev.coord.consecutive_regional:
        why = "tier 1" if prev.coord.force_global else "every source exhausted"
        return (
            f"forced global checkpoint {nxt.coord.store[-1].id} ({why}) completed after"
            f" {prev.coord.consecutive_regional} regional one(s)"
        )
    return None


def w_timeout_completes_regionally(m, prev: World, a, nxt: World) -> str | None:
    """PR #28964: a timeout marks the silent tasks declined and the checkpoint completes
    regionally (review row B9)."""
    if type(a) is Timeout and nxt.coord.completed_count > prev.coord.completed_count and any(nxt.coord.store[-1].refs):
        c = nxt.coord.store[-1]
        who = ", ".join(m.topo.names[t] for t, r in enumerate(c.refs) if r)
        return f"checkpoint {c.id} timed out and completed regionally, {who} falling back"
    return None


def w_split_returns_live(m, prev: World, a, nxt: World) -> str | None:
    """PR #28963: a regional completion puts a failed reader's split back into the live
    enumerator while the reader keeps it (review row B12)."""
    if nxt.coord.completed_count > prev.coord.completed_count:
        back = sorted(set(nxt.coord.unassigned) - set(prev.coord.unassigned))
        held = [s for s in back if any(ts.split == s and ts.status == RUNNING for ts in nxt.tasks)]
        if held:
            return f"regional checkpoint {nxt.coord.store[-1].id} returned split {held[0]} to the live enumerator while a reader holds it"
    return None


def w_forced_checkpoint_aborts(m, prev: World, a, nxt: World) -> str | None:
    """A forced global checkpoint that a region declined (or that timed out) is aborted: by
    tier 2, or, under ``forced_checkpoint_waits``, by the ratio check before it (which keeps the
    counter)."""
    if type(a) not in (Decline, Timeout, Ack, LastAck) or nxt.coord.completed_count != prev.coord.completed_count:
        return None
    for p in prev.coord.pending:
        if pending_of(nxt.coord, p.id) is not None:
            continue
        if p.global_only or prev.coord.force_global or (
                m.design.forced_checkpoint_waits and m.regional.forced_at_evaluation(prev, p)):
            return (f"forced global checkpoint {p.id} aborted: consecutive regional checkpoints"
                    f" {prev.coord.consecutive_regional} -> {nxt.coord.consecutive_regional}")
    return None


def _evaluated_declined(prev: World, nxt: World):
    """The pending checkpoints with a decline that this step evaluated (they left the pending
    set: completed regionally or aborted)."""
    return [p for p in prev.coord.pending if p.declined and pending_of(nxt.coord, p.id) is None]


def w_finished_region_not_counted(m, prev: World, a, nxt: World) -> str | None:
    """PR #28963 (``regions_of_running_tasks``, review row B3): a declined checkpoint is judged
    over the regions of the tasks it waited for (``regionIdProvider`` over
    ``tasksToWaitFor``), so a region whose tasks had all finished is not counted in the
    failure ratio.  (A job with a BLOCKING or HYBRID edge is one region here: nothing to leave
    out.)"""
    if not m.topo.all_pipelined:
        return None
    for p in _evaluated_declined(prev, nxt):
        counted = m.regional.regions(p.waiting)
        if len(counted) < len(m.topo.regions):
            left = [r for r in m.topo.regions if not any(p.waiting >> t & 1 for t in r)]
            names = ", ".join(m.topo.names[t] for r in left for t in sorted(r))
            outcome = "completed regionally" if nxt.coord.completed_count > prev.coord.completed_count else "aborted"
            return (f"declined checkpoint {p.id} was judged over {len(counted)} of {len(m.topo.regions)} regions"
                    f" ({names} had finished, not counted) and {outcome}")
    return None


def w_finished_sources_force_global(m, prev: World, a, nxt: World) -> str | None:
    """PR #28964 (``end_of_input_rule = "finished-sets-force"``, review rows B6 and B8): a
    declined checkpoint that was triggered as a regional one, and whose failed regions are
    within the ratio, is judged forced global because every source is FINISHED at its
    evaluation (``checkAllSourcesFinishedAndForceGlobal`` sets the shared flag), so it aborts
    instead of completing regionally."""
    if prev.coord.force_global:
        return None
    if nxt.coord.completed_count > prev.coord.completed_count:
        return None
    for p in _evaluated_declined(prev, nxt):
        if p.global_only or not m.regional.sources_done(prev.tasks):
            continue
        regions, failed, too_many = m.regional.judged_regions(p)
        if not too_many:
            return (f"declined checkpoint {p.id}, triggered regional, within the failure ratio ({len(failed)} of"
                    f" {len(regions)} regions failed), was judged forced global because every source had FINISHED"
                    f" by its evaluation, and aborted")
    return None


def w_closing_task_falls_back(m, prev: World, a, nxt: World) -> str | None:
    """A regional checkpoint completes with a failed region whose declining task had finished
    before its trigger arrived (TASK_CLOSING): the PR treats every decline reason alike
    (review row B1), so that task's state is its fallback's, not a finished state."""
    if nxt.coord.completed_count > prev.coord.completed_count and any(nxt.coord.store[-1].refs):
        c = nxt.coord.store[-1]
        done = [t for t, r in enumerate(c.refs) if r and nxt.tasks[t].status == FINISHED]
        if done:
            return (f"regional checkpoint {c.id} completed with {m.topo.names[done[0]]}, which finished before its"
                    f" trigger arrived, falling back to checkpoint {c.refs[done[0]]}")
    return None


def _pr_timeouts(design, scope) -> bool:
    return design.regional_checkpoints and design.timeouts_complete_regionally and scope.max_timeouts > 0


def _pr_add_back(design, scope) -> bool:
    return (design.regional_checkpoints and design.coordinator_region_fallback == "add-back-live"
            and any(v.coordinator for v in scope.job.vertices))


def _unaligned(design, scope) -> bool:
    return design.checkpoint_mode != "aligned"


def _timeoutable(design, scope) -> bool:
    return design.checkpoint_mode == "aligned-timeout"


def _rescales(design, scope) -> bool:
    return scope.max_rescales > 0


def _keyed_edge(scope) -> bool:
    """Does the job (or the rescaled job) have a keyBy or a custom-partitioned edge, the ones
    here whose mappers (RANGE, FULL) replicate channel state for the ``RecordFilter``?"""
    jobs = (scope.job, scope.rescaled_job) if scope.max_rescales else (scope.job,)
    return any(e.pattern.value == "ALL_TO_ALL" and e.partitioner in ("hash", "custom") for j in jobs for e in j.edges)


def w_gate_waits_for_resent_output(m, prev: World, a, nxt: World) -> str | None:
    """FLINK-19856: after a restore a gate holds a new record on one channel back while another
    channel still re-sends its producer's recovered output (``UpstreamRecoveryTracker``)."""
    if not m.unaligned:
        return None
    cur = m.at(nxt)
    topo = cur.topo
    for t, ts in enumerate(nxt.tasks):
        if ts.status != RUNNING or len(topo.inputs[t]) < 2:
            continue
        if cur.task.recovery_phase(nxt.channels, t) != RECOVERED_OUTPUT:
            continue
        resending = [c for c in topo.inputs[t] if any(is_recovered(x) for x in nxt.channels[c])]
        for c in topo.inputs[t]:
            items = nxt.channels[c]
            if c not in resending and any(x[0] == REC for x in items):
                r = next(x for x in items if x[0] == REC)
                return (f"{topo.names[t]} holds record {rec(r[1:3])} on {topo.channel_name(c)} back until"
                        f" {topo.channel_name(resending[0])} has delivered its re-sent output state")
    return None


def w_aligned_node_sends_unaligned(m, prev: World, a, nxt: World) -> str | None:
    """Reference-flink-uc A.5 step 3: a node that had to align (a POINTWISE input) acknowledges
    with output channel state, overtaken by the unaligned barriers it sent downstream."""
    if type(a) is not Deliver or m.design.checkpoint_mode != "unaligned":
        return None
    cur = m.at(nxt)
    for t, cp, snap in nxt.acks:
        if not cur.uc_inputs[t] and snap.outputs and any(snap.outputs) and (t, cp, snap) not in prev.acks:
            r = next(x for xs in snap.outputs for x in xs)
            return (f"{cur.topo.names[t]} aligned its inputs for checkpoint {cp} and acknowledged with record {rec(r)}"
                    " as output channel state")
    return None


def _forced_aligned_node(design, scope) -> bool:
    """With aligned-checkpoint-timeout 0, does a vertex align on a POINTWISE input and send on an
    edge whose consumer takes unaligned barriers?"""
    if design.checkpoint_mode != "unaligned" or design.unaligned_pointwise:
        return False
    job = scope.job
    aligned = {e.target for e in job.edges if e.pattern.value != "ALL_TO_ALL"}
    uc_ok = {v.name for v in job.vertices if v.name not in aligned}
    return any(e.source in aligned and e.target in uc_ok for e in job.edges)


def _two_input_subtask(scope) -> bool:
    """Does a subtask of the job (or the rescaled job) read two or more channels?"""
    jobs = (scope.job, scope.rescaled_job) if scope.max_rescales else (scope.job,)
    return any(len(ins) >= 2 for j in jobs for ins in j.expand().inputs)


def _capacity(design, scope) -> bool:
    return scope.channel_capacity > 0


def w_barrier_overtakes(m, prev: World, a, nxt: World) -> str | None:
    """An unaligned barrier overtakes a record: it is put ahead of records queued in a
    subpartition, or it reaches its consumer ahead of records in the input channel."""
    if not m.unaligned or type(a) is Rescale:  # a rescale empties the channels of the old parallelism
        return None
    if type(a) is Deliver:
        items = prev.channels[a.channel]
        i = priority_index(items)
        ahead = [x for x in items[:i] if x[0] == REC] if i > 0 else []
        if ahead:
            return (f"the unaligned barrier of checkpoint {items[i][1]} reached {m.topo.channel_name(a.channel)}'s"
                    f" consumer ahead of record {rec(ahead[0][1:3])}")
    for c, items in enumerate(nxt.channels):
        if items is prev.channels[c]:
            continue
        i = priority_index(items)
        behind = [x for x in items[i + 1:] if x[0] == REC] if i >= 0 else []
        if behind and priority_index(prev.channels[c]) < 0:
            return (f"the unaligned barrier of checkpoint {items[i][1]} overtook record {rec(behind[0][1:3])}"
                    f" in the subpartition of {m.topo.channel_name(c)}")
    return None


def _acked_snapshot(prev: World, a):
    if type(a) is not Ack:
        return None
    return next((s for t, cp, s in prev.acks if t == a.task and cp == a.checkpoint), None)


def w_input_state(m, prev: World, a, nxt: World) -> str | None:
    snap = _acked_snapshot(prev, a)
    if snap is not None and any(snap.inputs):
        i, recs = next((i, r) for i, r in enumerate(snap.inputs) if r)
        ch = m.topo.channel_name(m.topo.inputs[a.task][i])
        return f"{m.topo.names[a.task]} acknowledged checkpoint {a.checkpoint} with record {rec(recs[0])} as input channel state on {ch}"
    return None


def w_output_state(m, prev: World, a, nxt: World) -> str | None:
    snap = _acked_snapshot(prev, a)
    if snap is not None and any(snap.outputs):
        i, recs = next((i, r) for i, r in enumerate(snap.outputs) if r)
        ch = m.topo.channel_name(m.all_out[a.task][i])
        return f"{m.topo.names[a.task]} acknowledged checkpoint {a.checkpoint} with record {rec(recs[0])} as output channel state on {ch}"
    return None


def w_record_spans(m, prev: World, a, nxt: World) -> str | None:
    """Spanning records: a subtask acknowledges with the head of a record (its deserializer's
    partial record) as input channel state; the tail is the producer's output state."""
    snap = _acked_snapshot(prev, a)
    if snap is None:
        return None
    for i, recs in enumerate(snap.inputs):
        for r in recs:
            if len(r) == 3 and r[2] == PART_HEAD:
                ch = m.topo.channels[m.topo.inputs[a.task][i]]
                return (f"{m.topo.names[a.task]} acknowledged checkpoint {a.checkpoint} with the head of record {rec(r[:2])}"
                        f" as input channel state on {m.topo.channel_name(ch.id)}; its tail is {m.topo.names[ch.producer]}'s"
                        f" output channel state")
    return None


def w_split_record_restored(m, prev: World, a, nxt: World) -> str | None:
    """A restore puts a record that a checkpoint holds in two parts back together: its head
    (input channel state) and its tail (output channel state) reach one virtual channel."""
    if type(a) is Rescale:
        c = prev.coord.store[-1]
    elif type(a) is Restore:
        c = next((x for x in prev.coord.store if x.id == a.checkpoint), None)
    else:
        return None
    if c is None or nxt.coord.restore_failure:
        return None
    old = m.model_of(c)
    for t, snap in enumerate(c.snapshots):
        for i, recs in enumerate(snap.inputs):
            if recs and len(recs[-1]) == 3:
                how = "at a new parallelism" if type(a) is Rescale or old is not m else "at its own parallelism"
                return (f"restoring checkpoint {c.id} {how}, record {rec(recs[-1][:2])}'s head ({old.topo.names[t]}'s input"
                        f" channel state on {old.topo.channel_name(old.topo.inputs[t][i])}) and tail (its producer's output"
                        f" channel state) reach one virtual channel and make the record whole")
    return None


def w_switch_to_unaligned(m, prev: World, a, nxt: World) -> str | None:
    """An aligned checkpoint continues unaligned: a subtask's alignment timer fired, an
    unaligned barrier arrived from an upstream that switched, or the sender's timer fired
    while the timeoutable barrier was still queued in a subpartition and it jumped ahead
    (FLINK-27251, ``PipelinedSubpartition.alignedBarrierTimeout``; the one way a consumer
    with a single input channel, which never aligns, gets an unaligned checkpoint)."""
    t = a.task if type(a) is AlignmentTimeout else (m.topo.channels[a.channel].consumer if type(a) is Deliver else -1)
    if t < 0:
        return None
    if prev.tasks[t].aligning and not prev.tasks[t].uc and nxt.tasks[t].uc:
        how = "its alignment timed out" if type(a) is AlignmentTimeout else "an unaligned barrier arrived"
        return f"{m.topo.names[t]} switched checkpoint {prev.tasks[t].aligning} from aligned to unaligned: {how}"
    if type(a) is AlignmentTimeout:
        for c in m.all_out[t]:
            i = priority_index(nxt.channels[c])
            if i >= 0 and priority_index(prev.channels[c]) < 0:
                over = [x for x in nxt.channels[c][i + 1:] if x[0] == REC]
                if over:
                    return (f"{m.topo.names[t]}'s sender timer switched checkpoint {a.checkpoint} from aligned to"
                            f" unaligned: its barrier jumped ahead of record {rec(over[0][1:3])} on"
                            f" {m.topo.channel_name(c)}")
    return None


def w_channel_state_restored(m, prev: World, a, nxt: World) -> str | None:
    """Failed subtasks restored from a checkpoint get channel state back: after the restore a
    channel of theirs holds a recovered record (the checkpoint's channel state, taken at this
    parallelism or another), read from the world the restore made, not from the checkpoint."""
    if type(a) is not Restore or not a.checkpoint or not m.unaligned or nxt.coord.restore_failure:
        return None
    failed = {t for t, ts in enumerate(prev.tasks) if ts.status == FAILED}
    topo = m.at(nxt).topo
    for cid, items in enumerate(nxt.channels):
        ch = topo.channels[cid]
        if ch.consumer not in failed and ch.producer not in failed:
            continue
        for x in items:
            if x[0] == REC and is_recovered(x):
                side = "input" if x[3] == RECOVERED_INPUT else "output"
                return (f"restored from checkpoint {a.checkpoint}: {topo.channel_name(cid)} gets record"
                        f" {rec(x[1:3])} of its {side} channel state back")
    return None


def w_rescaled(m, prev: World, a, nxt: World) -> str | None:
    if type(a) is not Rescale:
        return None
    new = m.at(nxt)
    moved = ", ".join(f"{v.name} {len(m.topo.tasks_of[k])} -> {len(new.topo.tasks_of[k])}"
                      for k, v in enumerate(new.topo.job.vertices) if len(m.topo.tasks_of[k]) != len(new.topo.tasks_of[k]))
    return f"the job restarted from checkpoint {a.checkpoint} at a new parallelism ({moved})"


def w_rescale_regional(m, prev: World, a, nxt: World) -> str | None:
    if type(a) is not Rescale:
        return None
    c = prev.coord.store[-1]
    falls = [m.topo.names[t] for t, r in enumerate(c.refs) if r]
    return (f"regional checkpoint {c.id} (state of {', '.join(falls)} from checkpoint {max(c.refs)}) was restored"
            f" at a new parallelism") if falls else None


def w_rescale_channel_state(m, prev: World, a, nxt: World) -> str | None:
    if type(a) is not Rescale or not m.unaligned:
        return None
    new = m.at(nxt)
    for c, items in enumerate(nxt.channels):
        recs = [x for x in items if x[0] == REC]
        if recs:
            return (f"checkpoint {a.checkpoint}, restored at a new parallelism, put record {rec(recs[0][1:3])} of its"
                    f" channel state into {new.topo.channel_name(c)}")
    return None


def _pattern_changes(scope) -> set[tuple[str, str]]:
    """The (old, new) edge patterns a rescaled restore of ``scope`` can cross: from the job to
    the rescaled job, and back when it may rescale twice."""
    if not scope.max_rescales:
        return set()
    pairs = list(zip(scope.job.edges, scope.rescaled_job.edges))
    out = {(a.pattern.value, b.pattern.value) for a, b in pairs}
    if scope.max_rescales > 1:
        out |= {(b.pattern.value, a.pattern.value) for a, b in pairs}
    return out


def _w_pattern_change(was: str, now: str) -> Callable:
    """Witness: a restore at a new parallelism across the pattern change ``was`` -> ``now``
    (seed 003's four cases) put channel state of such an edge back, the edge itself rescaled
    (one of its ends at a new parallelism)."""

    def check(m, prev: World, a, nxt: World) -> str | None:
        if type(a) is not Rescale or not m.unaligned:
            return None
        new = m.at(nxt)
        for c, items in enumerate(nxt.channels):
            recs = [x for x in items if x[0] == REC]
            ek = new.topo.channels[c].edge
            e_old, e_new = m.topo.job.edges[ek], new.topo.job.edges[ek]
            if recs and e_old.pattern.value == was and e_new.pattern.value == now:
                vs = new.topo.job.vertices
                up = next(k for k, v in enumerate(vs) if v.name == e_new.source)
                down = next(k for k, v in enumerate(vs) if v.name == e_new.target)
                old_p = (len(m.topo.tasks_of[up]), len(m.topo.tasks_of[down]))
                new_p = (len(new.topo.tasks_of[up]), len(new.topo.tasks_of[down]))
                if old_p == new_p:
                    continue
                return (f"checkpoint {a.checkpoint}, taken with {edge_name(e_new)} {was} at {old_p[0]}:{old_p[1]},"
                        f" was restored with it {now} at {new_p[0]}:{new_p[1]}: record {rec(recs[0][1:3])} of its"
                        f" channel state went into {new.topo.channel_name(c)}")
        return None

    return check


def w_replica_filtered(m, prev: World, a, nxt: World) -> str | None:
    if type(a) is not Rescale or not m.unaligned:
        return None
    if nxt.coord.restore_failure:
        return None
    n = m.at(nxt).assignment.filtered(prev.coord.store[-1])
    return (f"restoring checkpoint {a.checkpoint} at a new parallelism, the record filter dropped {n} replicated"
            f" channel-state record(s) that the new partitioner routes to another subtask") if n else None


def w_finish_waits_for_consumers(m, prev: World, a, nxt: World) -> str | None:
    """A task learned that its final checkpoint completed but stays running: a consumer has
    not polled its EndOfData yet (``getAllDataProcessedFuture``)."""
    if type(a) is not Notify:
        return None
    ts = nxt.tasks[a.task]
    if ts.status == RUNNING and m.task.final_checkpoint_done(ts) and ts.eop == m.all_inputs_mask[a.task]:
        channels = nxt.channels
        late = [c for c in m.all_out[a.task] if EOD in channels[c]]
        if late:
            return (f"{m.topo.names[a.task]}'s final checkpoint completed, but it waits for"
                    f" {m.topo.channel_name(late[0])}'s consumer to process its data before it finishes")
    return None


def _markers_possible(design, scope) -> bool:
    """Only a task that snapshots on barriers and was told of an abort first sends a marker, and
    only a tolerated failed checkpoint leaves the job running to receive it: a job with an
    operator between its sources and a vertex, and ``tolerable_failed_checkpoints`` > 0 (with
    Flink's default 0 a declined checkpoint fails the job over, and sources snapshot on the
    trigger RPC before any abort)."""
    return design.tolerable_failed_checkpoints > 0 and any(v.role is Role.OPERATOR for v in scope.job.vertices)


def w_cancel_marker_aborts(m, prev: World, a, nxt: World) -> str | None:
    """A ``CancelCheckpointMarker`` (sent by an upstream that skipped an aborted checkpoint)
    aborts the alignment of the checkpoint its consumer was collecting."""
    if type(a) is not Deliver or not prev.channels[a.channel]:
        return None
    item = prev.channels[a.channel][0]
    t = m.topo.channels[a.channel].consumer
    if item[0] == CANCEL and prev.tasks[t].aligning == item[1] and not nxt.tasks[t].aligning:
        return (f"{m.topo.names[t]} aborted its alignment of checkpoint {item[1]} on the cancellation marker"
                f" from {m.topo.names[m.topo.channels[a.channel].producer]}")
    return None


def w_backpressure(m, prev: World, a, nxt: World) -> str | None:
    """A source with records left cannot emit: an output channel is full."""
    if type(a) is not EmitRecord:
        return None
    ts = nxt.tasks[a.task]
    if ts.position < m.scope.records_per_split and not ts.ended and not m.has_room(nxt, a.task):
        return f"{m.topo.names[a.task]} is backpressured: an output channel holds {m.scope.channel_capacity} record(s)"
    return None


BASELINE_PROPERTIES: tuple[Property, ...] = (
    Property(
        "exactly-once-output",
        ALWAYS,
        "no record is ever committed to the external system twice",
        exactly_once_output,
    ),
    Property(
        "checkpoints-restorable",
        ALWAYS,
        "every checkpoint the store retains still has every file it refers to",
        restorable,
    ),
    Property(
        "checkpoints-consistent",
        ALWAYS,
        "every retained checkpoint is a consistent cut: restoring it and replaying the sources loses and duplicates no record",
        consistent_cut,
    ),
    Property(
        "key-groups-owned-once",
        ALWAYS,
        "every key group is owned by exactly one subtask, and keyed state sits with its owner",
        key_groups_owned_once,
    ),
    Property(
        "restores-succeed",
        ALWAYS,
        "every restore at a new parallelism can deploy the job from its checkpoint (no restore fails on state it cannot redistribute)",
        restores_succeed,
        lambda design, scope: scope.max_rescales > 0,
    ),
    Property(
        "rescaled-channel-state-exact",
        ALWAYS,
        "every retained checkpoint's channel state, redistributed to the other parallelism the scope may restart at, puts every record back exactly once",
        rescaled_channel_state_exact,
        lambda design, scope: scope.max_rescales > 0 and design.checkpoint_mode != "aligned",
    ),
    Property(
        "per-key-order",
        ALWAYS,
        "the records of one key reach the keyed operator in source order (where the scope's records share keys)",
        per_key_order,
        lambda design, scope: scope.keys_per_split > 0 and any(StateKind.KEYED in v.state for v in scope.job.vertices),
    ),
    Property(
        "committed-output-covered",
        ALWAYS,
        "every record a 2PC sink committed lies before its split's position in the latest completed checkpoint (a restore never re-reads it)",
        committed_output_covered,
    ),
    Property(
        "finished-sinks-committed",
        ALWAYS,
        "a 2PC sink that finished has committed every transaction it wrote (its final checkpoint completed with its own state)",
        finished_sinks_committed,
        _bounded,
    ),
    Property(
        "writer-input-before-end-of-input",
        ALWAYS,
        "no record reaches a Sink V2 writer after its end of input (processElement would throw IllegalStateException)",
        writer_input_before_end_of_input,
        lambda design, scope: any(v.sink_v2 == "writer" for v in scope.job.vertices),
    ),
    Property(
        "no-data-after-end-of-data",
        ALWAYS,
        "no record or committable is sent behind EndOfData, where its consumer would drop it (FinishedDataOutput)",
        no_data_after_end_of_data,
        lambda design, scope: any(v.sink_v2 for v in scope.job.vertices),
    ),
    Property(
        "bounded-job-completes",
        EVENTUALLY,
        "a bounded job terminates, with every record committed (checked where no progress is possible)",
        terminates_with_all_output,
        _bounded,
    ),
    Property("a-checkpoint-completes", SOMETIMES, "a checkpoint completes", w_checkpoint_completed),
    Property("two-checkpoints-complete", SOMETIMES, "two checkpoints complete in one run", w_two_checkpoints_completed),
    Property("a-task-declines", SOMETIMES, "a subtask declines a checkpoint", w_decline),
    Property("a-task-fails", SOMETIMES, "a subtask fails and its region fails over", w_failover),
    Property("restore-from-checkpoint", SOMETIMES, "failed subtasks are restored from a completed checkpoint", w_restore),
    Property("an-ack-overtakes", SOMETIMES, "acknowledgements of different subtasks arrive out of subtask order", w_ack_overtakes,
             lambda design, scope: not scope.instant_acks),
    Property("a-sink-commits", SOMETIMES, "a sink commits a transaction", w_sink_commit,
             lambda design, scope: any(v.two_phase_commit or v.sink_v2 for v in scope.job.vertices)),
    Property("the-job-finishes", SOMETIMES, "every subtask finishes", w_job_finished, _bounded),
    Property("a-task-triggered-after-its-producers-finished", SOMETIMES,
             "FLIP-147: the plan triggers a non-source task by RPC because its producers finished",
             w_triggered_after_producers_finished, _outlives_upstream),
    Property("a-checkpoint-with-a-partly-finished-vertex", SOMETIMES,
             "FLIP-147: a checkpoint completes while some subtasks of a vertex finished and others run",
             w_partly_finished_checkpoint, lambda d, s: s.bounded and d.checkpoints_after_tasks_finish and _parallel(s)),
    Property("a-vertex-restored-finished", SOMETIMES,
             "FLIP-147: a fully finished vertex is deployed FINISHED_ON_RESTORE",
             w_finished_on_restore, lambda d, s: _outlives_upstream(d, s) and s.max_failures > 0 and not _null_state(d, s)),
    Property("a-finished-subtask-restarts", SOMETIMES,
             "FLIP-147: a finished subtask of a partly finished vertex restarts as a regular task with empty state",
             w_finished_subtask_restarts,
             lambda d, s: s.bounded and d.checkpoints_after_tasks_finish and s.max_failures > 0 and _parallel(s)
             and not _null_state(d, s)),
    Property("a-checkpoint-completes-before-the-restore", SOMETIMES,
             "a checkpoint completes after a failure and before its restore (the restore aborts the pending checkpoint)",
             w_completes_before_restore, lambda d, s: s.max_failures > 0 and not d.regional_checkpoints),
    Property("a-checkpoint-survives-a-finish", SOMETIMES,
             "FLIP-147: a checkpoint completes although a task it was triggered with finished while it was pending",
             w_checkpoint_survives_a_finish, lambda d, s: s.bounded and d.checkpoints_after_tasks_finish and _parallel(s)),
    Property("a-union-state-abort", SOMETIMES,
             "FLIP-147: a checkpoint aborts because a vertex with union list state would be partly finished in it",
             w_union_state_abort,
             lambda d, s: s.bounded and d.checkpoints_after_tasks_finish
             and any(StateKind.UNION in v.state and v.parallelism > 1 for v in s.job.vertices)),
    Property("two-checkpoints-pending", SOMETIMES,
             "two checkpoints are pending at once (max_concurrent_checkpoints > 1)",
             w_two_checkpoints_pending, lambda d, s: d.max_concurrent_checkpoints > 1),
    Property("a-completion-subsumes-a-pending-checkpoint", SOMETIMES,
             "a checkpoint completes while an older one is pending and aborts it (CHECKPOINT_SUBSUMED)",
             w_completion_subsumes_pending, lambda d, s: d.max_concurrent_checkpoints > 1),
    Property("a-trigger-reaches-a-closed-task", SOMETIMES,
             "FLIP-147: a task finishes between the plan and its trigger RPC, which it declines (TASK_CLOSING)",
             w_trigger_after_close,
             lambda d, s: s.bounded and s.staggered_triggers and d.checkpoints_after_tasks_finish and s.max_declines > 0),
    Property("a-stop-savepoint-completes", SOMETIMES, "a stop-with-savepoint's synchronous savepoint completes",
             w_savepoint_completes, lambda d, s: bool(s.stop_with_savepoint)),
    Property("a-stopped-job-finishes", SOMETIMES, "every subtask finishes after a stop-with-savepoint's savepoint",
             w_stopped_job_finishes, lambda d, s: bool(s.stop_with_savepoint)),
    Property("a-stop-fails", SOMETIMES, "a stop-with-savepoint's savepoint aborts and the job runs on",
             w_stop_fails, lambda d, s: bool(s.stop_with_savepoint) and (s.max_failures or s.max_declines or s.max_timeouts) > 0),
    Property("a-job-resumes-from-its-savepoint", SOMETIMES,
             "the job is started again from its stop's savepoint (without --drain, or after a failure ended it)",
             w_resumed_from_savepoint, lambda d, s: s.stop_with_savepoint == "no-drain" or (bool(s.stop_with_savepoint) and s.max_failures > 0)),
    Property("a-task-finishes-on-a-later-completion", SOMETIMES,
             "FLIP-147: a task finishes on the completion of a checkpoint later than its final one (seed 004)",
             w_finishes_on_later_completion,
             lambda d, s: s.bounded and d.checkpoints_after_tasks_finish
             and (s.max_lost_notifications > 0 or (s.max_declines or s.max_timeouts) > 0 and d.tolerable_failed_checkpoints > 0)),
    Property("a-task-finishes-with-a-checkpoint-pending", SOMETIMES,
             "FLIP-147: a task finishes while a later checkpoint it acknowledged is pending (seed 004's 42/43/44)",
             w_finishes_with_checkpoint_pending,
             lambda d, s: s.bounded and d.checkpoints_after_tasks_finish and d.max_concurrent_checkpoints > 1),
    Property("end-of-input-committables-committed", SOMETIMES,
             "a Sink V2 writer's end-of-input committables (lastKnownCheckpointId + 1) are committed",
             w_end_of_input_committables, lambda d, s: _sink_v2(d, s) and s.bounded),
    Property("a-committer-holds-end-of-data", SOMETIMES,
             "a Sink V2 committer holds EndOfData back until its final committables were emitted (FLINK-38614)",
             w_committer_holds_end_of_data, lambda d, s: _post_commit(d, s) and s.bounded),
    Property("recomputed-state-matches", ALWAYS,
             "FLINK-4120: a recomputable operator's state, rebuilt by the time the re-inserted barrier passes it, is the"
             " one the latest checkpoint held", recomputed_state_matches, _null_state),
    Property("null-state-checkpoint-retained", ALWAYS,
             "FLINK-4120: the latest checkpoint's null-state checkpoint is still in the store (a recovery never needs a"
             " checkpoint the store deleted)", null_state_checkpoint_retained, _null_state),
    Property("a-recovery-from-an-older-null-state-checkpoint", SOMETIMES,
             "FLINK-4120: the job restarts from a null-state checkpoint older than the latest checkpoint",
             w_older_null_state_recovery, lambda d, s: _null_state(d, s) and s.max_failures > 0),
    Property("a-sink-discards-a-replayed-record", SOMETIMES,
             "FLINK-4120: a sink drops a replayed record that precedes the re-inserted barrier",
             w_sink_discards_replayed, lambda d, s: _null_state(d, s) and s.max_failures > 0),
    Property("a-sink-takes-an-overtaken-record", SOMETIMES,
             "FLINK-4120 with unaligned checkpoints: a sink takes a replayed record before the re-inserted barrier,"
             " because the checkpoint's barrier overtook it", w_sink_takes_overtaken,
             lambda d, s: _null_state(d, s) and s.max_failures > 0 and d.checkpoint_mode != "aligned"),
    Property("a-trigger-is-held-during-a-replay", SOMETIMES,
             "FLINK-4120: a checkpoint could be triggered, but a re-inserted barrier is still on its way",
             w_trigger_held_during_replay, lambda d, s: _null_state(d, s) and s.max_failures > 0),
    Property("in-flight-records-push-the-null-state-checkpoint-back", SOMETIMES,
             "FLINK-4120 with unaligned checkpoints: records a checkpoint holds in flight to a recomputable operator make"
             " its null-state checkpoint older than the operator's watermark alone", w_in_flight_pushes_back,
             lambda d, s: _null_state(d, s) and d.checkpoint_mode != "aligned"),
    Property("a-barrier-is-reinserted", SOMETIMES,
             "FLINK-4120: a source re-inserts the latest checkpoint's barrier after replaying records",
             w_barrier_reinserted, lambda d, s: _null_state(d, s) and s.max_failures > 0),
    Property("restored-committables-recommitted", SOMETIMES,
             "a restore re-commits the committables in a Sink V2 committer's state",
             w_committables_recommitted, lambda d, s: _sink_v2(d, s) and s.max_failures > 0),
    Property(
        "split-ownership-consistent",
        ALWAYS,
        "in every retained checkpoint, the split enumerator's state and the readers' states hold each split once",
        split_ownership,
        lambda design, scope: any(v.coordinator for v in scope.job.vertices),
    ),
    Property(
        "union-epoch-agreed",
        ALWAYS,
        "every retained checkpoint gives a vertex with epoch state one epoch (its subtasks' union entries come from one checkpoint)",
        union_epoch_agreed,
        lambda design, scope: any(StateKind.EPOCH in v.state for v in scope.job.vertices),
    ),
    Property(
        "split-read-once",
        ALWAYS,
        "no split is held by two running readers at once (the enumerator never hands out a split a reader still holds)",
        split_read_once,
        lambda design, scope: any(v.coordinator for v in scope.job.vertices),
    ),
    Property(
        "ref-chain-bounded",
        ALWAYS,
        "refCheckpointId chains of retained checkpoints are at most max_consecutive_regional long",
        ref_chain_bounded,
        _regional,
    ),
    Property("a-regional-checkpoint-completes", SOMETIMES, "a regional checkpoint completes", w_regional_completed, _regional),
    Property("restore-from-regional", SOMETIMES, "failed subtasks are restored from a regional checkpoint", w_restore_regional, _regional),
    Property("forced-global-completes", SOMETIMES, "a forced global checkpoint completes after regional ones", w_forced_global, _regional),
    Property("a-forced-checkpoint-aborts", SOMETIMES, "a forced global checkpoint that a region declined (or that timed out) is aborted",
             w_forced_checkpoint_aborts, lambda d, s: _regional(d, s) and s.max_checkpoints >= 4),
    Property("a-closing-task-falls-back", SOMETIMES,
             "a regional checkpoint completes with a task that declined TASK_CLOSING in a failed region",
             w_closing_task_falls_back,
             lambda d, s: _regional(d, s) and s.bounded and s.staggered_triggers and s.max_declines > 0),
    Property("a-timeout-completes-regionally", SOMETIMES, "PR #28964: a timed-out checkpoint completes regionally",
             w_timeout_completes_regionally, _pr_timeouts),
    Property("a-finished-region-is-not-counted", SOMETIMES,
             "PR #28963: a declined checkpoint is judged over the regions of the tasks it waited for, a finished region left out",
             w_finished_region_not_counted,
             lambda d, s: _regional(d, s) and d.regions_of_running_tasks and s.bounded and s.max_declines > 0),
    Property("finished-sources-force-global", SOMETIMES,
             "PR #28964: every source FINISHED forces a declined checkpoint global at its evaluation",
             w_finished_sources_force_global,
             lambda d, s: (_regional(d, s) and d.global_checkpoint_at_end_of_input and s.bounded and s.max_declines > 0
                           and d.end_of_input_rule == "finished-sets-force" and d.forced_checkpoint_waits)),
    Property("a-split-returns-to-the-live-enumerator", SOMETIMES,
             "PR #28963: a regional completion returns a split a failed reader still holds to the live enumerator",
             w_split_returns_live, _pr_add_back),
    Property("a-barrier-overtakes-a-record", SOMETIMES, "an unaligned barrier overtakes a record", w_barrier_overtakes, _unaligned),
    Property("input-channel-state-recorded", SOMETIMES, "a subtask acknowledges with input channel state", w_input_state, _unaligned),
    Property("output-channel-state-recorded", SOMETIMES, "a subtask acknowledges with output channel state", w_output_state, _unaligned),
    Property("a-record-spans-the-checkpoint", SOMETIMES,
             "a checkpoint holds a record in two parts: its head in the consumer's input channel state, its tail in"
             " the producer's output channel state", w_record_spans, lambda d, s: _unaligned(d, s) and s.spanning_records),
    Property("a-split-record-is-restored", SOMETIMES,
             "a restore puts a record held in two parts back together on one virtual channel", w_split_record_restored,
             lambda d, s: _unaligned(d, s) and s.spanning_records),
    Property("switch-to-unaligned", SOMETIMES, "a checkpoint that started aligned continues unaligned", w_switch_to_unaligned, _timeoutable),
    Property("channel-state-restored", SOMETIMES, "failed subtasks are restored with channel state", w_channel_state_restored,
             lambda d, s: _unaligned(d, s) and not _null_state(d, s)),  # a null-state replay re-sends it instead
    Property("a-source-is-backpressured", SOMETIMES, "a full channel stops a source", w_backpressure, _capacity),
    Property("a-cancel-marker-aborts", SOMETIMES, "a cancellation marker aborts the alignment of the checkpoint its consumer collects",
             w_cancel_marker_aborts, _markers_possible),
    Property("an-aligned-node-sends-unaligned-barriers", SOMETIMES,
             "a node that had to align (POINTWISE input) sends unaligned barriers downstream and records output channel state",
             w_aligned_node_sends_unaligned, _forced_aligned_node),
    Property("a-finish-waits-for-consumers", SOMETIMES,
             "a task whose final checkpoint completed waits until its consumers processed its data",
             w_finish_waits_for_consumers, lambda d, s: _unaligned(d, s) and s.bounded),
    Property("a-gate-waits-for-resent-output", SOMETIMES,
             "after a restore a gate holds a new record back until every channel delivered its re-sent output state",
             w_gate_waits_for_resent_output,
             lambda d, s: _unaligned(d, s) and (s.max_failures > 0 or s.max_rescales > 0) and _two_input_subtask(s)
             and not _null_state(d, s)),  # a null-state replay restores no channel state
    Property("the-job-is-rescaled", SOMETIMES, "the job restarts from a checkpoint at a new parallelism", w_rescaled, _rescales),
    Property("a-regional-checkpoint-is-rescaled", SOMETIMES, "a regional checkpoint is restored at a new parallelism",
             w_rescale_regional, lambda d, s: _regional(d, s) and _rescales(d, s)),
    Property("a-rescale-restores-channel-state", SOMETIMES, "a restore at a new parallelism puts channel state back",
             w_rescale_channel_state, lambda d, s: _unaligned(d, s) and _rescales(d, s)),
    Property("a-replica-is-filtered", SOMETIMES,
             "a restore at a new parallelism drops a replicated channel-state record the new partitioner sends elsewhere",
             w_replica_filtered, lambda d, s: _unaligned(d, s) and _rescales(d, s) and _keyed_edge(s)),
    *(Property(f"pointwise-restore-{short[was]}-to-{short[now]}", SOMETIMES,
               f"seed 003: a rescaled restore puts back channel state of an edge that was {was} and is {now}",
               _w_pattern_change(was, now),
               lambda d, s, pair=(was, now): d.unaligned_pointwise and _unaligned(d, s) and pair in _pattern_changes(s))
      for short in ({"POINTWISE": "pw", "ALL_TO_ALL": "a2a"},)
      for was in ("POINTWISE", "ALL_TO_ALL") for now in ("POINTWISE", "ALL_TO_ALL")),
)
