"""The properties and witnesses of unaligned checkpoints and of rescaling: channel state (input
and output, a record spanning both), its exact redistribution to another parallelism
(``StateAssignmentOperation``, the pointwise-UC thread), barriers overtaking records, the switch from aligned to
unaligned (aligned-checkpoint-timeout, FLINK-27251), recovered output re-sent before new records
(FLINK-19856), a finishing task waiting for its consumers (``getAllDataProcessedFuture``),
rescales with the ``RecordFilter``, and the pointwise-UC thread's four POINTWISE/ALL_TO_ALL pattern changes."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from ckptcheck.model.actions import Ack, AlignmentTimeout, Deliver, Notify, Rescale, Restore
from ckptcheck.model.assignment import RestoreFailure
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.task import priority_index
from ckptcheck.model.topology import edge_name
from ckptcheck.model.world import (BARRIER, EOD, FAILED, HEAD_READ, PART_HEAD, REC, RECOVERED_INPUT, RECOVERED_OUTPUT, RUNNING, Completed,
                                   World, is_recovered, whole_records)

from ..property import rec


# -- always ------------------------------------------------------------------------------------
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
    configuration), puts every record of it back exactly once: the pointwise-UC thread's "no buffer is lost or
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


# -- sometimes (witnesses, on transitions) -----------------------------------------------------
def _unaligned(design, scope) -> bool:
    return design.checkpoint_mode != "aligned"


def _during_recovery(design, scope) -> bool:
    """Checkpoints during recovery are on (``FlinkModel.cdr``; ``knob_conflict`` refuses the
    option without recover_output_on_downstream or with aligned checkpoints)."""
    return design.checkpointing_during_recovery and _unaligned(design, scope)


def _timeoutable(design, scope) -> bool:
    return design.checkpoint_mode == "aligned-timeout"


def _rescales(design, scope) -> bool:
    """Does the scope restart the job at a new parallelism (not ``restart_aligned``'s restart at its own)?"""
    return scope.max_rescales > 0 and not scope.restart_aligned


def _keyed_edge(scope) -> bool:
    """Does the job (or the rescaled job) have a keyBy or a custom-partitioned edge, the ones
    here whose mappers (RANGE, FULL) replicate channel state for the ``RecordFilter``?"""
    jobs = (scope.job, scope.rescaled_job) if scope.max_rescales else (scope.job,)
    return any(e.pattern.value == "ALL_TO_ALL" and e.partitioner in ("hash", "custom") for j in jobs for e in j.edges)


def _filterable_keyed_edge(scope) -> bool:
    """``_keyed_edge``, with a consumer that runs at parallelism 2 or more after a rescale: a
    ``RecordFilter`` drops a replicated record only where another subtask owns its key group (a
    single consumer owns them all)."""
    if not _keyed_edge(scope):
        return False
    after = (scope.rescaled_job, scope.job) if scope.max_rescales > 1 else (scope.rescaled_job,)
    return any(e.pattern.value == "ALL_TO_ALL" and e.partitioner in ("hash", "custom")
               and next(v.parallelism for v in j.vertices if v.name == e.target) > 1 for j in after for e in j.edges)


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
        if cur.network_input.recovery_phase(nxt.channels, t) != RECOVERED_OUTPUT:
            continue
        resending = [c for c in topo.inputs[t] if any(is_recovered(x) for x in nxt.channels[c])]
        for c in topo.inputs[t]:
            items = nxt.channels[c]
            if c not in resending and any(x[0] == REC for x in items):
                r = next(x for x in items if x[0] == REC)
                return (f"{topo.names[t]} holds record {rec(r[1:3])} on {topo.channel_name(c)} back until"
                        f" {topo.channel_name(resending[0])} has delivered its re-sent output state")
    return None


def w_barrier_passes_end_of_resent_state(m, prev: World, a, nxt: World) -> str | None:
    """A restored gate takes an unaligned barrier on a channel whose re-sent output state is all
    read while another channel still re-sends: the barrier overtook the channel's
    ``EndOfChannelStateEvent`` (``PipelinedSubpartition.processPriorityBuffer``), seen in a real
    run (``tests/data/runs/barrier-during-recovery.jsonl``)."""
    if type(a) is not Deliver or not m.unaligned:
        return None
    cur = m.at(prev)
    topo = cur.topo
    ch = topo.channels[a.channel]
    t = ch.consumer
    if cur.network_input.recovery_phase(prev.channels, t) != RECOVERED_OUTPUT:
        return None
    items = prev.channels[a.channel]
    if any(is_recovered(x) for x in items) or priority_index(items) < 0:
        return None
    cp = items[priority_index(items)][1]
    return (f"{topo.names[t]} takes checkpoint {cp}'s barrier on {topo.channel_name(a.channel)}, whose re-sent"
            f" output state is read, while another channel still re-sends its state")


def w_rescaled_task_declines(m, prev: World, a, nxt: World) -> str | None:
    """``Scope.rescaled_tasks_decline``: a subtask restored at a new parallelism gets a barrier
    before its recovery ended and declines the checkpoint (TASK_NOT_READY,
    ``RescalingStreamTaskNetworkInput.prepareSnapshot``), seen in real runs."""
    if type(a) is not Deliver or not m.unaligned:
        return None
    cur = m.at(prev)
    t = cur.topo.channels[a.channel].consumer
    if not prev.tasks[t].rescaled or nxt.tasks[t].last_barrier == prev.tasks[t].last_barrier:
        return None
    return (f"{cur.topo.names[t]}, restored at a new parallelism, gets checkpoint {nxt.tasks[t].last_barrier}'s barrier"
            f" before its recovery ended and declines it (TASK_NOT_READY, not counted)")


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


def _announcing(design, scope) -> bool:
    return design.checkpoint_mode == "aligned-timeout" and scope.input_buffers > 0


def w_timer_fires_on_announcement(m, prev: World, a, nxt: World) -> str | None:
    """A subtask's alignment timer, started by a barrier's announcement, fires before the
    subtask read any barrier of the checkpoint (Flink counts the timeout from the checkpoint's
    start: ``BarrierAlignmentUtil.getTimerDelay``), and the announced barrier jumps a record
    queued in front of it in the input channel (``prioritizeAllAnnouncements``), which becomes
    input channel state.  The one way a subtask with a single remote input channel gets an
    unaligned checkpoint on its receiving side."""
    if type(a) is not AlignmentTimeout:
        return None
    t = a.task
    ts = prev.tasks[t]
    if ts.aligning or (ts.sending and ts.sending[0] == a.checkpoint):
        return None
    for c in m.topo.inputs[t]:
        items = prev.channels[c]
        for j, x in enumerate(items):
            if x[0] == BARRIER and len(x) == 2 and x[1] == a.checkpoint:
                over = [y for y in items[:j] if y[0] == REC]
                if over:
                    return (f"{m.topo.names[t]}'s alignment timer for checkpoint {a.checkpoint} fired on the barrier's"
                            f" announcement, before it read a barrier: the barrier jumped record {rec(over[0][1:3])}"
                            f" in the input channel of {m.topo.channel_name(c)}")
                break
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


def w_output_state_recovered_downstream(m, prev: World, a, nxt: World) -> str | None:
    """``recover_output_on_downstream``: a restore gives a record of a producer's output channel
    state to its consumer, in the consumer's recovered input (``RECOVERED_INPUT``), where without
    the option the producer re-sends it (``StateAssignmentOperation.output_state_marker``)."""
    if type(a) not in (Restore, Rescale) or not a.checkpoint or not m.unaligned or nxt.coord.restore_failure:
        return None
    c = next((c for c in prev.coord.store if c.id == a.checkpoint), None)
    if c is None:
        return None
    outputs = {r[:2] for s in c.snapshots for side in s.outputs for r in side}
    topo = m.at(nxt).topo
    for cid, items in enumerate(nxt.channels):
        for x in items:
            if x[0] == REC and is_recovered(x) and x[3] == RECOVERED_INPUT and x[1:3] in outputs:
                return (f"restored from checkpoint {a.checkpoint}: {topo.names[topo.channels[cid].consumer]} reads record"
                        f" {rec(x[1:3])} of {topo.names[topo.channels[cid].producer]}'s output channel state with its"
                        f" recovered input on {topo.channel_name(cid)}")
    return None


def _new_completed(prev: World, nxt: World) -> Completed | None:
    """The checkpoint this step completed, or None."""
    if not nxt.coord.store or (prev.coord.store and nxt.coord.store[-1].id == prev.coord.store[-1].id):
        return None
    return nxt.coord.store[-1]


def _first_recovered(c: Completed | None) -> tuple[int, tuple] | None:
    """The first subtask of checkpoint ``c`` whose input channel state holds a record that was
    recovered and not read yet when the checkpoint started there, with that record
    (``Snapshot.recovered``), or None."""
    for t, s in enumerate(c.snapshots if c is not None else ()):
        if s.recovered:
            return t, s.recovered[0]
    return None


def w_checkpoint_completes_during_recovery(m, prev: World, a, nxt: World) -> str | None:
    """Checkpoints during recovery (FLIP-547): a checkpoint completes while a restored subtask
    still has recovered channel state to read."""
    c = _new_completed(prev, nxt)
    if c is None or not m.at(nxt).cdr:
        return None
    found = _unread_recovered(m.at(nxt), nxt.channels)
    if found is None:
        return None
    return f"checkpoint {c.id} completes while {found[0]} has not read recovered record {found[1]} on {found[2]} yet"


def _unread_recovered(model: FlinkModel, channels) -> tuple[str, str, str] | None:
    """The first channel that still holds a recovered record: its consumer, the record and the
    channel, in words; or ``None``."""
    topo = model.topo
    for c, items in enumerate(channels):
        x = next((x for x in items if x[0] == REC and is_recovered(x)), None)
        if x is not None:
            return topo.names[topo.channels[c].consumer], rec(x[1:3]), topo.channel_name(c)
    return None


def w_recovered_record_in_new_checkpoint(m, prev: World, a, nxt: World) -> str | None:
    """Checkpoints during recovery: a completed checkpoint holds, as input channel state, a
    record that was recovered channel state not read yet when the checkpoint started at that
    subtask (``Snapshot.recovered``, ``StreamTaskNetworkInput.recovered_at_start``)."""
    c = _new_completed(prev, nxt)
    first = _first_recovered(c)
    if first is None:
        return None
    name = m.at(nxt).topo.names[first[0]]
    return (f"checkpoint {c.id} completes with record {rec(first[1])}, recovered and not read yet when the"
            f" checkpoint started at {name}, in {name}'s input channel state")


def w_restore_from_checkpoint_during_recovery(m, prev: World, a, nxt: World) -> str | None:
    """Checkpoints during recovery: a restore (after a failure, or at a new parallelism) from a
    checkpoint that holds recovered records a subtask had not read when it started: they are
    recovered a second time."""
    if type(a) not in (Restore, Rescale) or not a.checkpoint or nxt.coord.restore_failure:
        return None
    c = next((c for c in prev.coord.store if c.id == a.checkpoint), None)
    first = _first_recovered(c)
    if first is None:
        return None
    return (f"restored from checkpoint {c.id}, taken while {m.at(prev).topo.names[first[0]]} still read recovered state:"
            f" record {rec(first[1])} is recovered again")


def w_refused_while_filtering(m, prev: World, a, nxt: World) -> str | None:
    """Checkpoints during recovery: no checkpoint is taken while a subtask restored at a new
    parallelism filters its recovered state.  With the scope's ``suspend_on_failure`` (Flink's
    scheduling) the subtask is still INITIALIZING and the scheduler triggers nothing
    (``CheckpointRequestDecider.initializing``; ``checkTasksStarted``: NOT_ALL_REQUIRED_TASKS_RUNNING,
    not counted); without it the subtask gets the barrier and declines (TASK_NOT_READY, not
    counted: ``RecoveryCheckpointTrigger.NOT_READY`` of apache/flink#28660)."""
    cur = m.at(nxt)
    if not cur.cdr:
        return None
    why = w_rescaled_task_declines(m, prev, a, nxt)
    if why:
        return why.replace("before its recovery ended", "while it filters its recovered state")
    from ..baseline.properties import w_trigger_waits_for_initializing

    why = w_trigger_waits_for_initializing(m, prev, a, nxt)  # with the option, initializing is filtering
    return why and why.replace("(reading its recovered input channel state)",
                               "(filtering its recovered state; NOT_ALL_REQUIRED_TASKS_RUNNING, not counted)")


def declined_by_itself(m: FlinkModel, w: World) -> str | None:
    """Checkpoints during recovery: no subtask declines a checkpoint for a reason of its own
    that the ``CheckpointFailureManager`` counts (``Coordinator.declined_by_itself``).  The
    injected ``Decline`` fault stands for a failed snapshot; a checkpoint that starts while a
    channel is still in recovery and finds no ``RecoveryCheckpointBarrier`` there fails every
    time the window recurs, so past ``tolerable_failed_checkpoints`` the job fails over, recovers
    and meets the same window again."""
    if not w.coord.declined_by_itself:
        return None
    t, cp, r = w.coord.declined_by_itself
    return (f"{m.at(w).topo.names[t]} declines checkpoint {cp} by itself: the channel that still holds recovered record"
            f" {rec(r)}, not read yet, got no RecoveryCheckpointBarrier (\"Missing RecoveryCheckpointBarrier\", CHECKPOINT_DECLINED, counted; past"
            f" tolerable_failed_checkpoints {m.design.tolerable_failed_checkpoints} the job fails over and recovers into"
            f" the same window)")


def waits_for_recovery(m: FlinkModel, w: World) -> str | None:
    """Checkpoints during recovery: no pending checkpoint waits for a restored subtask's
    recovery to end, which is what FLIP-547 promises.  The property fails where a barrier of a
    pending checkpoint reaches a subtask only behind a recovered record it has not read, and
    that subtask counts as RUNNING (``CheckpointRequestDecider.is_initializing``), so it neither
    declines the checkpoint (TASK_NOT_READY) nor can take it before it has read its recovered
    records.  A recovery that outlasts the checkpoint timeout then expires the checkpoint,
    counted, and the failover restores into the same wait (FLINK-40518: the aligned barrier
    handler has a NO_OP ``RecoveryCheckpointTrigger``).

    A priority (unaligned) barrier overtakes recovered records and is not such a wait.  Neither
    is a barrier whose alignment can still time out (``aligned-timeout``): the model's timers
    fire without a clock, so that wait is as long as the alignment timeout, not the recovery.
    The model has no clock, so this is a property of states: it says that the checkpoint's
    completion depends on the recovery's progress, not that the timeout fires."""
    for c, items in enumerate(w.channels):  # the channels first: most worlds have no such pattern
        if len(items) < 2:
            continue
        first = None
        for x in items:
            if len(x) == 4 and x[0] == REC and x[3] != HEAD_READ:  # is_recovered
                first = first or x
            elif first is not None and len(x) == 2 and x[0] == BARRIER:
                why = _waits_behind(m, w, c, first, x[1])
                if why:
                    return why
    return None


def _waits_behind(m: FlinkModel, w: World, c: int, first: tuple, cp: int) -> str | None:
    """``waits_for_recovery`` once channel ``c`` holds a FIFO barrier of ``cp`` behind recovered
    record ``first``: the reason, if ``cp`` is pending and the consumer counts as RUNNING and
    cannot time its alignment out."""
    if all(p.id != cp for p in w.coord.pending):
        return None
    model = m.at(w)
    topo = model.topo
    t = topo.channels[c].consumer
    if model.timeoutable[t] or model.request_decider.is_initializing(w, t):
        return None
    return (f"checkpoint {cp} waits at {topo.names[t]} behind recovered record {rec(first[1:3])} on"
            f" {topo.channel_name(c)}: {topo.names[t]} is RUNNING, so it neither declines the checkpoint nor"
            f" can take it before it has read its recovered records (its barrier handler inserts no recovery"
            f" barrier); a recovery longer than the checkpoint timeout expires it, counted, and the failover"
            f" restores into the same wait")


def w_restart_aligned(m, prev: World, a, nxt: World) -> str | None:
    """The scope's ``restart_aligned``: the user's restart turns unaligned checkpoints off and
    the restarted job restores the checkpoint's channel state."""
    if type(a) is not Rescale or m.at(nxt).unaligned:
        return None
    found = _unread_recovered(m.at(nxt), nxt.channels)
    if found is None:
        return None
    return (f"the user restarts the job from checkpoint {a.checkpoint} with unaligned checkpoints off; {found[0]} restores"
            f" recovered record {found[1]} on {found[2]} and takes aligned checkpoints")


def w_rescaled(m, prev: World, a, nxt: World) -> str | None:
    if type(a) is not Rescale:
        return None
    new = m.at(nxt)
    moved = ", ".join(f"{v.name} {len(m.topo.tasks_of[k])} -> {len(new.topo.tasks_of[k])}"
                      for k, v in enumerate(new.topo.job.vertices) if len(m.topo.tasks_of[k]) != len(new.topo.tasks_of[k]))
    return f"the job restarted from checkpoint {a.checkpoint} at a new parallelism ({moved})"


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
    (the pointwise-UC thread's four cases) put channel state of such an edge back, the edge itself rescaled
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
