"""The properties of checkpointing itself, which every design must keep: exactly-once output,
restorable checkpoints (FLIP-306 file merging, NO_CLAIM), consistent cuts, key groups owned once
and per-key order, restores that can deploy, committed output covered by the restore point, and a
bounded job that terminates with all its output; with the basic witnesses (a checkpoint completes,
a task declines or fails, a restore, an acknowledgement overtakes, a sink commits, concurrent
checkpoints, backpressure, a ``CancelCheckpointMarker``)."""

from __future__ import annotations

from functools import lru_cache

from ckptcheck.model.actions import (Ack, Action, Decline, Deliver, EmitRecord, FailTask, JobManagerFailover, Notify, Restore,
                                     TriggerAfterClose)
from ckptcheck.model.partitioner import record_key_group
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.redistribution import key_group_range
from ckptcheck.model.topology import Role, StateKind
from ckptcheck.model.world import CANCEL, COMMITTED, FAILED, FINISHED, NOTIFY_NAMES, RUNNING, STATUS_NAMES, Completed, World

from ..property import _first_over_store, rec
from ..unaligned.properties import channel_state


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


@lru_cache(maxsize=4096)
def _cut_verdict(m: FlinkModel, c: Completed) -> str | None:
    """A record before its source's restore position has its effect in exactly one place on
    the way to each stateful vertex: the vertex's state, or the channel state of a channel
    into the vertex or into a vertex between the source and it (UC note A.6); a
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
        # discarded state (FLIP-147, "UnionListState"), which is why Flink does not let such a
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
                if v not in topo.downstream_of_record[off % 2][topo.vertex_of[src_split[sp]]]:
                    continue  # a side output that does not carry the record to this vertex
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


def consistent_cut(m: FlinkModel, w: World) -> str | None:
    return _first_over_store(m, w, _cut_verdict)


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
    (``IllegalStateException`` "Cannot select ..."), and none that the user starts (a rescale,
    a resume from a savepoint) is refused by ``VertexFinishedStateChecker``
    (``FlinkRuntimeException`` "Illegal JobGraph modification ...")."""
    return w.coord.restore_failure or None


def shared_state_registered(m: FlinkModel, w: World) -> str | None:
    """Incremental checkpoints: the ``SharedStateRegistry`` accepts every acknowledgement, so
    no placeholder names a shared file it has deleted (``SharedStateRegistryImpl.registerReference``'s
    ``checkState``, "Attempt to reference unknown state").  A refused acknowledgement never
    reaches its pending checkpoint, which can then complete no more: it expires (counted, a job
    failover with no tolerable failed checkpoint) or is subsumed by a newer one."""
    for t, ts in enumerate(w.tasks):
        if ts.refused:
            cp, k = ts.refused
            name = m.topo.names[t]
            return (f"the registry refused {name}'s acknowledgement of checkpoint {cp}: its placeholder names {name}'s file"
                    f" of checkpoint {k}, which the registry deleted (\"Attempt to reference unknown state\"); checkpoint"
                    f" {cp} can no longer complete")
    return None


def per_key_order(m: FlinkModel, w: World) -> str | None:
    """Records of one key reach the keyed operator in source order (the pointwise-UC thread, FLINK-21936: the
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


# -- eventually --------------------------------------------------------------------------------
def terminates_with_all_output(m: FlinkModel, w: World) -> str | None:
    topo = m.topo
    stuck = [t for t, ts in enumerate(w.tasks) if ts.status != FINISHED]
    if stuck:
        t = stuck[0]
        ts = w.tasks[t]
        why = STATUS_NAMES[ts.status]
        if ts.status == RUNNING:
            if ts.ended and ts.final_cp and not ts.final_done:
                why += f", waiting for the completion of its final checkpoint {ts.final_cp}"
            elif ts.ended and not ts.final_cp:
                why += ", waiting for a checkpoint after its end of input"
            elif not ts.ended:
                why += ", its input has not ended"
            else:
                why += ", waiting for EndOfPartition on its inputs"
        pend = w.coord.pending
        extra = f"; checkpoint {', '.join(str(p.id) for p in pend)} {'is' if len(pend) == 1 else 'are'} pending" if pend else ""
        v = m.request_decider.union_vertex_partly_finished(w)
        if v is not None:
            done = ", ".join(topo.names[u] for u in topo.tasks_of[v] if w.tasks[u].status == FINISHED)
            extra += (f"; every checkpoint would abort: {done} of union-state vertex {topo.job.vertices[v].name}"
                      " finished while others run (PartialFinishingNotSupportedByStateException)")
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


# -- sometimes (witnesses, on transitions) -----------------------------------------------------
def w_checkpoint_completed(m, prev: World, a: Action, nxt: World) -> str | None:
    if nxt.coord.completed_count > prev.coord.completed_count:
        return f"checkpoint {nxt.coord.store[-1].id} completed"
    return None


def w_two_checkpoints_completed(m, prev: World, a: Action, nxt: World) -> str | None:
    if nxt.coord.completed_count >= 2 > prev.coord.completed_count:
        return "a second checkpoint completed"
    return None


def w_placeholder_reused(m, prev: World, a: Action, nxt: World) -> str | None:
    """Incremental checkpoints (``model.registry``): a checkpoint completes in which a subtask's
    own snapshot refers to a file of an earlier checkpoint by a placeholder (its backend saw
    that checkpoint confirmed and did not upload the file again)."""
    if nxt.coord.completed_count == prev.coord.completed_count or not nxt.coord.store:
        return None
    c = nxt.coord.store[-1]
    for t, s in enumerate(c.snapshots):
        if s.shared and not (c.refs and c.refs[t]):
            k, _ = s.shared[0]
            return f"checkpoint {c.id} refers to {m.topo.names[t]}'s file of checkpoint {k} by a placeholder"
    return None


def w_base_pruned(m, prev: World, a: Action, nxt: World) -> str | None:
    """Incremental checkpoints: a subtask's snapshot leaves out of its placeholder base files of
    the confirmed upload that a newer snapshot sent again (``SharedStateRegistry.confirmed_upload``)."""
    reg = m.registry
    for t, (p, n) in enumerate(zip(prev.tasks, nxt.tasks)):
        if len(n.dbfiles) > len(p.dbfiles) and p.confirmed and n.confirmed == p.confirmed:
            pruned = set(reg.unpruned_upload(p)) - set(reg.confirmed_upload(p, t))
            if pruned:
                c, k = min(pruned)
                return (f"{m.topo.names[t]}'s snapshot does not name its file of checkpoint {c} by a placeholder to"
                        f" checkpoint {p.confirmed}'s upload: a newer snapshot sent it again")
    return None


def w_shared_file_outlives(m, prev: World, a: Action, nxt: World) -> str | None:
    """Incremental checkpoints: the store subsumes a checkpoint whose shared file a retained one
    still refers to, so the registry keeps that file (``unregisterUnusedState``)."""
    kept = {c.id for c in nxt.coord.store}
    gone = [c for c in prev.coord.store if c.id not in kept]
    if not gone:
        return None
    for c in gone:
        for f in c.files:
            if f[0] == c.id and f in nxt.files and m.registry.is_shared(f):
                user = next((x.id for x in nxt.coord.store if f in x.files), None)
                if user is not None:
                    return (f"checkpoint {c.id} is subsumed, but its file of {m.topo.names[f[1]]} stays: checkpoint {user}"
                            " still refers to it")
    return None


def w_decline(m, prev, a, nxt) -> str | None:
    return f"{m.topo.names[a.task]} declined checkpoint {a.checkpoint}" if type(a) is Decline else None


def w_failover(m, prev, a, nxt) -> str | None:
    if type(a) is FailTask:
        n = sum(1 for ts in nxt.tasks if ts.status == FAILED)
        return f"{m.topo.names[a.task]} failed; {n} subtask(s) cancelled"
    return None


def w_jobmanager_failover(m, prev, a, nxt) -> str | None:
    """A JobManager failover whose new coordinator restores a completed checkpoint."""
    if type(a) is JobManagerFailover and a.checkpoint > 0:
        return (f"the JobManager fails over; its successor's new coordinator restores checkpoint {a.checkpoint} to every"
                f" subtask{' (' + nxt.coord.restore_failure + ')' if nxt.coord.restore_failure else ''}")
    return None


def w_local_copy_restored(m, prev, a, nxt) -> str | None:
    """Local recovery: a restore reads a subtask's local copy (it keeps only the copy it read,
    ``TaskLocalStateStore.restored``)."""
    if (type(a) is Restore or type(a) is JobManagerFailover) and a.checkpoint > 0:
        for t, (p, n) in enumerate(zip(prev.tasks, nxt.tasks)):
            if (p.status == FAILED or type(a) is JobManagerFailover) and n.status != FAILED and n.local:
                return f"{m.topo.names[t]} restores its local copy of checkpoint {n.local[0][0]} (restoring {a.checkpoint})"
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


def w_job_finished(m, prev: World, a, nxt: World) -> str | None:
    if nxt.tasks is prev.tasks:  # no subtask changed (``Tx.freeze`` keeps the tuple)
        return None
    if all(ts.status == FINISHED for ts in nxt.tasks) and not all(ts.status == FINISHED for ts in prev.tasks):
        return "every subtask finished"
    return None


def _capacity(design, scope) -> bool:
    return scope.channel_capacity > 0


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


def w_rpc_overtakes(m, prev: World, a, nxt: World) -> str | None:
    """``Scope.rpcs_overtake``: a task takes a trigger RPC before a notice sent to it earlier, or
    a notice before an earlier trigger (``protocol_enabled.overtaking``)."""
    if type(a) is Notify:
        kind = a.kind
    elif type(a) is TriggerAfterClose:
        kind = "trigger"
    else:
        return None
    head = prev.tasks[a.task].inbox[0]
    if NOTIFY_NAMES[head[0]] == kind and head[1] == a.checkpoint:
        return None
    return (f"the {kind} RPC of checkpoint {a.checkpoint} reaches {m.topo.names[a.task]} before the"
            f" {NOTIFY_NAMES[head[0]]} RPC of checkpoint {head[1]} sent to it earlier")


def w_trigger_at_finished(m, prev: World, a, nxt: World) -> str | None:
    """``Scope.late_finish_reports``: a trigger RPC planned before the JobManager processed a
    task's finish reaches the finished task, and the checkpoint aborts uncounted
    (``StreamTask.trigger_at_finished``)."""
    if type(a) is not Notify or prev.tasks[a.task].status != FINISHED:
        return None
    return (f"the trigger RPC of checkpoint {a.checkpoint} reaches {m.topo.names[a.task]}, which finished before the"
            f" JobManager saw it; the checkpoint aborts (TASK_CHECKPOINT_FAILURE, not counted)")


def w_failure_suspends(m, prev: World, a, nxt: World) -> str | None:
    """``Scope.suspend_on_failure``: the JobManager processes a task failure while a checkpoint
    is pending and aborts it, uncounted (``CheckpointCoordinator.suspend``)."""
    if type(a) is not FailTask or not prev.coord.pending:
        return None
    ids = " and ".join(str(p.id) for p in prev.coord.pending)
    return (f"{m.topo.names[a.task]} fails while checkpoint {ids} is pending; the JobManager stops the checkpoint"
            f" scheduler and aborts it (CHECKPOINT_COORDINATOR_SUSPEND, not counted)")


def w_trigger_waits_for_initializing(m, prev: World, a, nxt: World) -> str | None:
    """``Scope.suspend_on_failure``: a checkpoint could be triggered but for a restored subtask
    still INITIALIZING (reading its recovered input channel state,
    ``CheckpointRequestDecider.initializing``)."""
    m = m.at(nxt)
    t = m.request_decider.initializing(nxt)
    if t is None or m.null_state.replaying(nxt) or not m.request_decider.trigger_allowed_once_initialized(nxt):
        return None
    return (f"the checkpoint scheduler waits: {m.topo.names[t]} is still INITIALIZING (reading its recovered input"
            f" channel state)")
