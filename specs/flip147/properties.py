"""The properties and witnesses of tasks that finish (FLIP-147), of Sink V2 and of
stop-with-savepoint: a 2PC sink that finished committed everything, no data travels behind
EndOfData (``FinishedDataOutput``), no record reaches a writer past its end of input
(``SinkWriterOperator``); partly finished vertices, FINISHED_ON_RESTORE, final checkpoints, union
list state that cannot finish partly, a committer holding EndOfData back (FLINK-38614), and the
stop's savepoint."""

from __future__ import annotations

import networkx as nx

from ckptcheck.model.actions import (Ack, Deliver, JobManagerFailover, LastAck, Rescale, Restore, ResumeFromSavepoint, TriggerAfterClose,
                                     TriggerCheckpoint)
from ckptcheck.model.coordinator import pending_of
from ckptcheck.model.finished_state import ALL_RUNNING, vertex_finished_states
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.topology import Role
from ckptcheck.model.world import COMMITTABLE, COMMITTED, DRAIN, EOD, EOP, FAILED, FINISHED, REC, REPLAY, RUNNING, World

from ..property import rec
from ..baseline.properties import w_job_finished


# -- always ------------------------------------------------------------------------------------
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
    every input drops whatever still arrives (``FinishedDataOutput``, UC note A.9
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
    throws ``IllegalStateException`` (UC note D.5).  A writer restores its end of
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


# -- sometimes (witnesses, on transitions) -----------------------------------------------------
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
    to_trigger, _, _ = m.checkpoint_plan.tasks_to_trigger(prev.tasks)
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
    """A fully finished vertex is deployed FINISHED_ON_RESTORE at a restore.  A subtask counts
    when the restore deployed it (it was FAILED) or it was not FINISHED_ON_RESTORE before: a
    failed subtask keeps its stale flag from an earlier restore until it is deployed again."""
    if type(a) is not Restore:
        return None
    t = next((t for t, ts in enumerate(nxt.tasks)
              if ts.finished_on_restore and ts.status != FAILED
              and (prev.tasks[t].status == FAILED or not prev.tasks[t].finished_on_restore)), None)
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
    """FLIP-147, "Do Not Cancel Pending Checkpoint on Finish": a checkpoint completes although a
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


def _finishing(prev: World, nxt: World):
    """The subtasks that finish in this step."""
    if nxt.tasks is prev.tasks:
        return ()
    return tuple(t for t, ts in enumerate(nxt.tasks) if ts.status == FINISHED and prev.tasks[t].status == RUNNING)


def w_finishes_on_later_completion(m, prev: World, a, nxt: World) -> str | None:
    """FLIP-147: a task finishes on the completion of a checkpoint later than its final one
    ("the first notifyCheckpointComplete(X), where X is any triggered checkpoint AFTER
    finish()"): its final checkpoint was aborted or its completion notice lost."""
    for t in _finishing(prev, nxt):
        p, n = prev.tasks[t], nxt.tasks[t]
        if p.final_cp and not p.final_done and p.final_cp < n.notified:
            return (f"{m.topo.names[t]} finished on the completion of checkpoint {n.notified}, later than its"
                    f" final checkpoint {p.final_cp}")
    return None


def w_finishes_with_checkpoint_pending(m, prev: World, a, nxt: World) -> str | None:
    """FLIP-147's 42/43/44 scenario: a task finishes on a completion while a later checkpoint
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


def w_end_of_partition_aborts(m, prev: World, a, nxt: World) -> str | None:
    """Without checkpoints after tasks finish: an EndOfPartition reaches a task aligning a
    checkpoint, which it declines (``CHECKPOINT_DECLINED_INPUT_END_OF_STREAM``, not counted)."""
    if type(a) is not Deliver or not prev.channels[a.channel] or prev.channels[a.channel][0] != EOP:
        return None
    t = m.topo.channels[a.channel].consumer
    cp = prev.tasks[t].aligning
    if cp and not nxt.tasks[t].aligning and not any(p.id == cp for p in nxt.coord.pending):
        return f"EndOfPartition reaches {m.topo.names[t]} while it aligns checkpoint {cp}, which it declines (INPUT_END_OF_STREAM)"
    return None


def w_blocking_result_read(m, prev: World, a, nxt: World) -> str | None:
    """A BLOCKING result is read: its consumer region was deployed once every producer of it
    finished (``FailoverStrategy.deployed``)."""
    if type(a) is not Deliver or a.channel not in m.topo.blocking_channels:
        return None
    ch = m.topo.channels[a.channel]
    return f"{m.topo.names[ch.consumer]} reads the BLOCKING result of {m.topo.names[ch.producer]}, which finished"


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


def w_user_restore_checks_finished_state(m, prev: World, a, nxt: World) -> str | None:
    """A restore that runs ``VertexFinishedStateChecker`` (a rescale or a resume from the stop's
    savepoint, which the user starts, or a JobManager failover's or an adaptive scheduler's restart's
    ``restoreInitialCheckpointIfPresent``) from a checkpoint that holds a finished or partly
    finished vertex passes it (``model.finished_state``): the check Flink runs on such a restore
    had something to check, and accepted it."""
    if type(a) is Rescale or type(a) is JobManagerFailover or (type(a) is Restore and m.design.scheduler == "adaptive"):
        c = prev.coord.store[-1] if prev.coord.store else None
    elif type(a) is ResumeFromSavepoint:
        c = prev.coord.savepoint or None
    else:
        return None
    if c is None or nxt.coord.restore_failure:
        return None
    old = m.model_of(c)
    states = vertex_finished_states(old.topo.tasks_of, [s.finished for s in c.snapshots])
    if all(x == ALL_RUNNING for x in states):
        return None
    shown = ", ".join(f"{v.name} {x}" for v, x in zip(old.topo.job.vertices, states))
    how = "rescale" if type(a) is Rescale else "resume from the savepoint"
    return f"the {how} from checkpoint {c.id} passed VertexFinishedStateChecker ({shown})"
