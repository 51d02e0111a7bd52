"""Display hooks: what each step of a trace did, in words and as sequence-diagram events.

Reads worlds before and after each action; never changes semantics.  Lanes are the checkpoint
coordinator and every subtask; events are arrows between lanes (records, barriers, triggers,
acks, declines, notifications) or marks on one lane (emits, snapshots, commits, failures,
restores, completions).
"""

from __future__ import annotations

from ckptcheck.model.actions import (
    Ack,
    Action,
    AssignSplit,
    CoordinatorsFellBack,
    Decline,
    DeleteSnapshot,
    Deliver,
    EmitRecord,
    EndOfInput,
    EndOfRecovery,
    FailTask,
    JobManagerFailover,
    FinishReported,
    LastAck,
    LoseNotification,
    Notify,
    ReadHead,
    Rescale,
    Restore,
    ResumeFromSavepoint,
    StopWithSavepoint,
    Timeout,
    TriggerAfterClose,
    TriggerCheckpoint,
)
from ckptcheck.model.regional import RegionalCheckpointHandler
from ckptcheck.model.topology import Role
from ckptcheck.model.task import priority_index
from ckptcheck.model.world import (BARRIER, COMMITTABLE, COMMITTED, EOD, EOD_NO_DRAIN, FAILED, FINISHED, HEAD_READ, NOTIFY_TRIGGER,
                                   PART_HEAD, PART_TAIL, REC, RECOVERED_INPUT, REPLAY, World)
from ckptcheck.reports.steps import COORDINATOR, Event, Step


def _restored_from(a) -> str:
    """A restore's label in the sequence diagram: the checkpoint, or the job's initial state."""
    return f"restore {a.checkpoint}" if a.checkpoint else "restart from the initial state"


def _committables(model, producer: int, item: tuple) -> str:
    """A Sink V2 committable message from subtask ``producer``, in words."""
    names = model.global_names
    if model.sink_v2[producer] == "writer":
        w, recs = item[2]
        return f"the committable of checkpoint {item[1]} ({_recs(recs) if recs else 'no record'})"
    return f"the committed committables of checkpoint {item[1]} ({'; '.join(f'{names[w]}: {_recs(r) if r else chr(45)}' for w, r in item[2][1])})"


def _rec(item) -> str:
    return f"({item[1]},{item[2]})"


def _recs(records) -> str:
    return "{" + ", ".join(f"({r[0]},{r[1]})" for r in records) + "}"


def _record_words(item) -> str:
    return f"record (split {item[1]}, offset {item[2]})"


def narrate(spec, actions: list[Action]) -> tuple[list[Step], list[World]]:
    """Replay ``actions`` (which must be a valid trace) and describe every step."""
    w = spec.initial_states()[0]
    worlds = [w]
    steps: list[Step] = []
    for n, a in enumerate(actions, 1):
        nxt = spec.next_state(w, a)
        model = spec.model.at(w)  # the parallelism the step runs at (a Rescale changes it)
        topo = model.topo
        names = topo.names
        text, events = _describe(model, topo, names, w, a, nxt)
        side = _side_effects(model, names, w, nxt, a)
        events += side
        also = [e.text for e in side if e.text]
        if also:
            text = f"{text}; {'; '.join(also)}"
        steps.append(Step(n, a.describe(topo), text, events))
        worlds.append(nxt)
        w = nxt
    return steps, worlds


def _acks(w: World) -> set[tuple[int, int]]:
    """(task, checkpoint) of every acknowledgement in flight or, with instant acks, counted."""
    return {(t, cp) for t, cp, _ in w.acks} | {(t, p.id) for p in w.coord.pending for t, _ in p.acked}


def _new_acks(w: World, nxt: World) -> list[tuple[int, int]]:
    before = _acks(w)
    return sorted(x for x in _acks(nxt) if x not in before)


def _parts_recorded(model, names, w: World, nxt: World, t: int) -> str:
    """Spanning records: the parts of records that subtask ``t``'s snapshot of this step holds,
    in words ("" when none)."""
    if nxt.tasks[t].uc and not w.tasks[t].uc:
        snap, inputs = nxt.tasks[t].uc
    else:
        new = [x[2] for x in nxt.acks if x[0] == t and x not in w.acks]
        if not new:
            return ""
        snap, inputs = new[0], new[0].inputs
    words = []
    for i, recs in enumerate(inputs):
        words += [f"the head of record (split {r[0]}, offset {r[1]}) in its deserializer is input channel state"
                  for r in recs if len(r) == 3 and r[2] == PART_HEAD]
    for i, recs in enumerate(snap.outputs):
        to = names[model.topo.channels[model.all_out[t][i]].consumer]
        words += [f"the tail of record (split {r[0]}, offset {r[1]}), queued for {to}, is output channel state"
                  for r in recs if len(r) == 3 and r[2] == PART_TAIL]
    return "".join("; " + x for x in words)


def _describe(model, topo, names, w: World, a: Action, nxt: World) -> tuple[str, list[Event]]:
    kind = type(a)
    ev: list[Event] = []
    if kind is EmitRecord:
        t = a.task
        ts = w.tasks[t]
        item = (REC, ts.split if ts.split >= 0 else topo.split_of[t], ts.position)
        grown = [c for c, (x, y) in enumerate(zip(w.channels, nxt.channels)) if len(y) > len(x) and topo.channels[c].producer == t]
        if not grown:
            ev.append(Event(names[t], None, f"emit {_rec(item)} (no output)", "data"))
            return f"{names[t]} reads {_record_words(item)}; it has no output, so the record goes nowhere", ev
        to = ", ".join(names[topo.channels[c].consumer] for c in grown)
        ev.append(Event(names[t], None, f"emit {_rec(item)} to {to}", "data"))
        tail = ""
        if ts.replay and not nxt.tasks[t].replay:
            ev.append(Event(names[t], None, f"re-insert barrier {ts.replay[0]}", "restore"))
            tail = f", then re-inserts the barrier of checkpoint {ts.replay[0]} at its original position (offset {ts.replay[1]})"
        return f"{names[t]} reads {_record_words(item)} and sends it to {to}{tail}", ev
    if kind is EndOfInput:
        ev.append(Event(names[a.task], None, "EndOfData", "control"))
        return f"{names[a.task]} reaches the end of its split and emits EndOfData", ev
    if kind is Deliver:
        ch = topo.channels[a.channel]
        items = w.channels[a.channel]
        i = priority_index(items)
        item = items[max(i, 0)]  # a priority barrier is delivered before the head
        src, dst = names[ch.producer], names[ch.consumer]
        if item[0] == REC and model.null_state.drops(w.tasks[ch.consumer], item[1:3]):
            ev.append(Event(src, dst, f"{_rec(item)} discarded", "data"))
            return (f"{dst} receives replayed {_record_words(item)} from {src} and discards it: its state from checkpoint"
                    f" {w.tasks[ch.consumer].replay[0]} already holds it (the re-inserted barrier has not reached it)"), ev
        if item[0] == REPLAY:
            ev.append(Event(src, dst, f"re-inserted barrier {item[1]}", "restore"))
            y = nxt.tasks[ch.consumer]
            if y.replay:
                return f"{dst} receives the re-inserted barrier of checkpoint {item[1]} from {src} and blocks that channel", ev
            rebuilt = f": its state, rebuilt by the replay, holds {_recs(y.processed)}" if model.null_state.windows[ch.consumer] else ""
            return f"{dst} receives the re-inserted barrier of checkpoint {item[1]} from {src}, forwards it and ends its replay{rebuilt}", ev
        if item[0] == REC:
            ev.append(Event(src, dst, _rec(item), "data"))
            what = ("writes it into its open transaction" if topo.vertex(ch.consumer).role is Role.SINK
                    else "writes it into its in-progress output" if topo.vertex(ch.consumer).sink_v2 == "writer"
                    else "processes it")
            origin = ""
            if len(item) == 4:
                origin = (" (its recovered input channel state)" if item[3] == RECOVERED_INPUT
                          else "'s tail (its head was read before)" if item[3] == HEAD_READ
                          else " (re-sent from the producer's recovered output channel state)")
            return f"{dst} receives {_record_words(item)}{origin} from {src} and {what}", ev
        if item[0] == BARRIER:
            ev.append(Event(src, dst, f"barrier {item[1]}", "barrier"))
            if len(item) == 3:
                c = ch.consumer
                started = not w.tasks[c].uc and (nxt.tasks[c].uc or any(t == c for t, _ in _new_acks(w, nxt)))
                then = ("; it snapshots at once and sends the barrier ahead of its own output"
                        + _parts_recorded(model, names, w, nxt, c)) if started else ""
                return f"{dst} receives unaligned barrier {item[1]} from {src}, ahead of the records queued on that channel{then}", ev
            snapped = [cp for t, cp in _new_acks(w, nxt) if t == ch.consumer]
            if snapped:
                return f"{dst} receives barrier {item[1]} from {src}: aligned, it snapshots checkpoint {item[1]} and forwards the barrier", ev
            if model.barriers.is_blocked(nxt.tasks[ch.consumer], ch.input_index):  # the design's rule, not a flag
                return f"{dst} receives barrier {item[1]} from {src} and blocks that channel until every input delivered it", ev
            if nxt.tasks[ch.consumer].blocked >> ch.input_index & 1:
                return (f"{dst} receives barrier {item[1]} from {src} and keeps reading that channel while it waits for the"
                        f" barrier on its other inputs (this design does not block a channel during alignment)"), ev
            return f"{dst} receives barrier {item[1]} from {src}", ev
        if item == EOD:
            ev.append(Event(src, dst, "EndOfData", "control"))
            out = [x for c in model.all_out[ch.consumer] for x in nxt.channels[c][len(w.channels[c]):]]
            sent = [x for x in out if x[0] == COMMITTABLE]
            if sent:
                return f"{dst} receives EndOfData from {src}; its endInput emits {_committables(model, ch.consumer, sent[0])}", ev
            if model.sink_v2[ch.consumer] == "committer" and nxt.tasks[ch.consumer].ended and EOD not in out and model.all_out[ch.consumer]:
                return f"{dst} receives EndOfData from {src} and holds it back until its committables have been emitted", ev
            return f"{dst} receives EndOfData from {src}", ev
        if item[0] == COMMITTABLE:
            ev.append(Event(src, dst, f"committables {item[1]}", "data"))
            dropped = " and drops them: its input has ended" if w.tasks[ch.consumer].ended and not w.tasks[ch.consumer].stopped else ""
            return f"{dst} receives {_committables(model, ch.producer, item)} from {src}{dropped}", ev
        if item == EOD_NO_DRAIN:
            ev.append(Event(src, dst, "EndOfData (no drain)", "control"))
            return f"{dst} receives EndOfData without drain from {src}: its operators neither endInput nor finish", ev
        ev.append(Event(src, dst, "EndOfPartition", "control"))
        return f"{dst} receives EndOfPartition from {src}", ev
    if kind is ReadHead:
        ch = topo.channels[a.channel]
        item = w.channels[a.channel][0]
        src, dst = names[ch.producer], names[ch.consumer]
        ev.append(Event(src, dst, f"head of {_rec(item)}", "data"))
        kept = " (persisted as input channel state)" if nxt.tasks[ch.consumer].uc != w.tasks[ch.consumer].uc else ""
        return (f"{dst} reads the head of {_record_words(item)} from {src}{kept}; its tail is still in {src}'s"
                f" subpartition"), ev
    if kind is TriggerCheckpoint:
        snapped = [t for t, cp in _new_acks(w, nxt) if cp == a.checkpoint]
        for t in snapped:
            ev.append(Event(COORDINATOR, names[t], f"trigger {a.checkpoint}", "control"))
        parts = "".join(_parts_recorded(model, names, w, nxt, t) for t in snapped)
        if not snapped:
            sent = [names[t] for t, ts in enumerate(nxt.tasks)
                    if any(m[0] == NOTIFY_TRIGGER and m[1] == a.checkpoint for m in ts.inbox)]
            rpcs = f"its trigger RPCs to {', '.join(sent)} are on their way" if sent else "no task snapshots at once"
            return f"the coordinator triggers checkpoint {a.checkpoint}; {rpcs}", ev
        who = ", ".join(names[t] for t in snapped)
        return f"the coordinator triggers checkpoint {a.checkpoint}; {who} snapshot at once and emit the barrier{parts}", ev
    if kind is Ack:
        ev.append(Event(names[a.task], COORDINATOR, f"ack {a.checkpoint}", "control"))
        snap = next((s for t, cp, s in w.acks if t == a.task and cp == a.checkpoint), None)
        gone = model.registry.unknown_placeholder(w.files, snap) if model.registry.active and snap is not None else None
        if gone is not None:
            return (f"the coordinator receives {names[a.task]}'s ack of checkpoint {a.checkpoint}; the registry refuses it:"
                    f" its placeholder names {names[a.task]}'s file of checkpoint {gone[0]}, which the registry deleted"
                    " (\"Attempt to reference unknown state\"), and the ack goes no further"), ev
        if not any(p.id == a.checkpoint for p in w.coord.pending):
            return f"the coordinator receives {names[a.task]}'s late ack of checkpoint {a.checkpoint} and discards its state", ev
        p = next(p for p in w.coord.pending if p.id == a.checkpoint)
        if p.falling_back and p.declined >> a.task & 1:
            return (f"the coordinator receives {names[a.task]}'s late ack of checkpoint {a.checkpoint}, whose timeout"
                    " marked it declined, while the coordinators fall back; the pending checkpoint takes it"), ev
        return f"the coordinator receives {names[a.task]}'s ack of checkpoint {a.checkpoint}", ev
    if kind is CoordinatorsFellBack:
        ev.append(Event(COORDINATOR, None, f"coordinators fell back {a.checkpoint}", "control"))
        return (f"the operator coordinators' fallback for checkpoint {a.checkpoint} completes, and so does the"
                " regional completion"), ev
    if kind is LastAck:
        ev.append(Event(COORDINATOR, None, f"last ack {a.checkpoint}", "control"))
        return f"the coordinator receives the last acknowledgement of checkpoint {a.checkpoint}", ev
    if kind is Notify and a.kind == "trigger" and w.tasks[a.task].status == FINISHED:
        ev.append(Event(COORDINATOR, names[a.task], f"trigger {a.checkpoint}", "control"))
        ev.append(Event(names[a.task], COORDINATOR, f"fail {a.checkpoint}: TASK_CHECKPOINT_FAILURE", "fault"))
        return (f"the trigger RPC of checkpoint {a.checkpoint} reaches {names[a.task]}, which finished before the"
                f" JobManager saw it: the RPC fails (TASK_CHECKPOINT_FAILURE, not counted) and checkpoint"
                f" {a.checkpoint} aborts"), ev
    if kind is EndOfRecovery:
        ev.append(Event(names[a.task], None, "end of recovery", "restore"))
        return (f"{names[a.task]} has read every channel's end of re-sent state: its recovery at the new parallelism"
                " ends, and it takes checkpoints again"), ev
    if kind is FinishReported:
        ev.append(Event(names[a.task], COORDINATOR, "FINISHED", "control"))
        return f"the JobManager learns that {names[a.task]} finished", ev
    if kind is Notify and a.kind == "trigger":
        ev.append(Event(COORDINATOR, names[a.task], f"trigger {a.checkpoint}", "control"))
        acked = [cp for t, cp in _new_acks(w, nxt) if t == a.task]
        if any(t == a.task and cp == a.checkpoint for t, cp, _ in w.acks) or acked or nxt.tasks[a.task].uc:
            return (f"the trigger RPC of checkpoint {a.checkpoint} reaches {names[a.task]}: it snapshots and emits the barrier"
                    + _parts_recorded(model, names, w, nxt, a.task)), ev
        if not any(p.id == a.checkpoint for p in nxt.coord.pending) and any(p.id == a.checkpoint for p in w.coord.pending):
            return f"the trigger RPC of checkpoint {a.checkpoint} reaches {names[a.task]}, which declines it (TASK_NOT_READY)", ev
        return f"the trigger RPC of checkpoint {a.checkpoint} reaches {names[a.task]}", ev
    if kind is Notify:
        latest = w.tasks[a.task].inbox[0][2]
        subsumed = w.tasks[a.task].inbox[0][3]
        verb = {
            "complete": "completed",
            "abort": f"was aborted (the notice carries latest completed checkpoint {latest}, which it treats as complete)"
            if latest else "was aborted",
            "fallback": f"completed regionally, its state in it taken from checkpoint {latest} (it may commit up to {latest})",
        }[a.kind]
        label = {"complete": f"complete {a.checkpoint}", "abort": f"abort {a.checkpoint}" + (f" (latest {latest})" if latest else ""),
                 "fallback": f"fallback {a.checkpoint} (state from {latest})"}[a.kind]
        tone = {"complete": "complete", "abort": "control", "fallback": "regional"}[a.kind]
        ev.append(Event(COORDINATOR, names[a.task], label, tone))
        tail = f"; its task manager discards its merged segments of checkpoints <= {subsumed} (subsumed)" if subsumed else ""
        sent = [x for c in model.all_out[a.task] for x in nxt.channels[c][len(w.channels[c]):] if x[0] == COMMITTABLE]
        if sent:
            tail += "; it commits and emits " + ", ".join(_committables(model, a.task, x) for x in sent)
        if any(x == EOD for c in model.all_out[a.task] for x in nxt.channels[c][len(w.channels[c]):]):
            tail += ", then the EndOfData it held back"
        return f"{names[a.task]} learns that checkpoint {a.checkpoint} {verb}{tail}", ev
    if kind is Rescale:
        new = model.configs[nxt.used.rescales % len(model.configs)]
        par = ", ".join(f"{v.name} {len(model.topo.tasks_of[k])} -> {len(new.topo.tasks_of[k])}"
                        for k, v in enumerate(new.topo.job.vertices) if len(model.topo.tasks_of[k]) != len(new.topo.tasks_of[k]))
        held = []
        for t, y in enumerate(nxt.tasks):
            if new.stateful[t] and y.processed:
                held.append(f"{new.topo.names[t]} holds {_recs(y.processed)}")
        for c, items in enumerate(nxt.channels):
            recs = [x for x in items if x[0] == REC]
            if recs:
                held.append(f"{new.topo.channel_name(c)} carries {_recs(r[1:3] for r in recs)} of channel state")
        ev.append(Event(COORDINATOR, None, f"rescale from checkpoint {a.checkpoint}: {par}", "restore"))
        return (f"the user restarts the job from checkpoint {a.checkpoint} at a new parallelism ({par})"
                + (f": {'; '.join(held)}" if held else ""), ev)
    if kind is Restore:
        failed = [t for t, ts in enumerate(w.tasks) if ts.status == FAILED]
        src = f"checkpoint {a.checkpoint}" if a.checkpoint else "no checkpoint (initial state)"
        resumes = []
        for t in failed:
            y = nxt.tasks[t]
            if y.finished_on_restore:
                ev.append(Event(names[t], None, f"{_restored_from(a)}: FINISHED_ON_RESTORE", "restore"))
                resumes.append(f"{names[t]} is finished in it: deployed FINISHED_ON_RESTORE, it ends its input at once and finishes once a checkpoint completes")
            elif topo.vertex(t).role is Role.SOURCE:
                reader = t in model.enumerator.readers
                ev.append(Event(names[t], None, f"{_restored_from(a)} @ offset {y.position}", "restore"))
                if reader and y.split < 0:
                    resumes.append(f"{names[t]} holds no split")
                else:
                    split = y.split if reader else topo.split_of[t]
                    resumes.append(f"{names[t]} resumes split {split} at offset {y.position}")
            else:
                ev.append(Event(names[t], None, _restored_from(a), "restore"))
        for t in failed:  # a restore keeps only the local copy it read (TaskStateManagerImpl.prioritizedOperatorState)
            if a.checkpoint and nxt.tasks[t].local:
                resumes.append(f"{names[t]} restores the task manager's local copy of checkpoint {nxt.tasks[t].local[0][0]}"
                               " in place of the job manager's state (local recovery)")
        tail = f": {', '.join(resumes)}" if resumes else ""
        if a.checkpoint and model.null_state.active and not nxt.coord.restore_failure:
            n = w.coord.store[-1].null_state
            start = f"checkpoint {n}" if n else "the job's start"
            tail += (f"; null-state recovery: the sources resume at the positions of {start}, the null-state checkpoint"
                     f" of checkpoint {a.checkpoint}, and will re-insert its barrier; recomputable operators start empty")
        if nxt.coord.restore_failure and not w.coord.restore_failure:
            return f"the restore of checkpoint {a.checkpoint} fails: {nxt.coord.restore_failure}", ev
        return f"{len(failed)} failed subtask(s) are restored from {src}{tail}", ev
    if kind is Decline:
        ev.append(Event(names[a.task], COORDINATOR, f"decline {a.checkpoint}", "fault"))
        text = f"FAULT: {names[a.task]} declines checkpoint {a.checkpoint} (its asynchronous snapshot failed)"
        failed = [names[t] for t, ts in enumerate(nxt.tasks) if ts.status == FAILED and w.tasks[t].status != FAILED]
        if failed:
            text += (f"; the CheckpointFailureManager counts the failure past the tolerable"
                     f" {model.design.tolerable_failed_checkpoints} and fails the job over: {', '.join(failed)}"
                     " are cancelled, to be restored from the latest completed checkpoint")
        return text, ev
    if kind is Timeout:
        ev.append(Event(COORDINATOR, None, f"timeout {a.checkpoint}", "fault"))
        return f"FAULT: checkpoint {a.checkpoint} times out", ev
    if kind is FailTask:
        failed = [t for t, ts in enumerate(nxt.tasks) if ts.status == FAILED and w.tasks[t].status != FAILED]
        ev.append(Event(names[a.task], None, "FAILS", "fault"))
        others = [names[t] for t in failed if t != a.task]
        tail = f"; its failover cancels {', '.join(others)}" if others else ""
        return f"FAULT: {names[a.task]} fails{tail}", ev
    if kind is JobManagerFailover:
        src = f"checkpoint {a.checkpoint}" if a.checkpoint else "no checkpoint (the initial state)"
        ev.append(Event(COORDINATOR, None, f"JobManager failover: restore {src}", "fault"))
        text = (f"FAULT: the JobManager fails over; every subtask is cancelled, the pending checkpoints are gone, and the"
                f" new JobManager's coordinator restores {src} to every subtask")
        if model.design.regional_checkpoints:
            text += (f" (FLIP-600: {w.coord.consecutive_regional} regional checkpoint(s) in a row before, the new handler"
                     f" counts {nxt.coord.consecutive_regional}{', forced global' if nxt.coord.force_global else ''})")
        if nxt.coord.restore_failure and not w.coord.restore_failure:
            text += f"; the restore fails: {nxt.coord.restore_failure}"
        return text, ev
    if kind is LoseNotification:
        ev.append(Event(COORDINATOR, names[a.task], f"{a.kind} {a.checkpoint} (lost)", "fault"))
        return f"FAULT: the {a.kind} notification of checkpoint {a.checkpoint} to {names[a.task]} is lost", ev
    if kind is StopWithSavepoint:
        mode = "--drain" if nxt.coord.stop and nxt.coord.stop[1] == 1 else "without --drain"
        ev.append(Event(COORDINATOR, None, f"stop-with-savepoint {a.checkpoint} ({mode})", "control"))
        return (f"the user stops the job with savepoint {a.checkpoint} ({mode}): pending checkpoints are aborted, the"
                f" sources stop reading and send EndOfData ahead of the savepoint's barrier"), ev
    if kind is ResumeFromSavepoint:
        ev.append(Event(COORDINATOR, None, f"resume from savepoint {a.checkpoint}", "restore"))
        return f"the user starts the job again from savepoint {a.checkpoint}", ev
    if kind is TriggerAfterClose:
        ev.append(Event(COORDINATOR, names[a.task], f"trigger {a.checkpoint} (after close)", "control"))
        ev.append(Event(names[a.task], COORDINATOR, f"decline {a.checkpoint}: TASK_CLOSING", "fault"))
        return (f"{names[a.task]} finishes before the trigger RPC of checkpoint {a.checkpoint} reaches it; the RPC"
                f" is declined (TASK_CLOSING, not counted) and checkpoint {a.checkpoint} aborts"), ev
    if kind is AssignSplit:
        ev.append(Event(COORDINATOR, names[a.task], f"assign split {a.split}", "control"))
        held = [cp for t, cp, s in nxt.coord.held if t == a.task and s == a.split]
        if held:
            return (f"the split enumerator assigns split {a.split} to {names[a.task]}; {names[a.task]}'s gateway is closed"
                    f" for checkpoint {held[0]}, so the AddSplitEvent waits there"), ev
        return f"the split enumerator assigns split {a.split} to {names[a.task]}", ev
    if kind is DeleteSnapshot:
        ev.append(Event(COORDINATOR, None, f"user deletes snapshot {a.checkpoint}", "fault"))
        return f"the user deletes the NO_CLAIM snapshot {a.checkpoint} the job was started from", ev
    return a.describe(topo), ev  # pragma: no cover


def _side_effects(model, names, w: World, nxt: World, a: Action) -> list[Event]:
    """Marks for what the step changed besides its own arrow, each with its words for the step
    table: snapshots (with a sink's pre-commit), completions (regional ones with their fallback
    refs), aborts, commits (a restore's recover-and-commit too), aborted transactions, finishing
    tasks, deleted files."""
    ev: list[Event] = []
    gnames = model.global_names  # transactions name their subtask by global id
    rescaled = type(a) is Rescale
    for t, cp, split in w.coord.held:  # operator-event gateways (model.gateway)
        if (t, cp, split) not in nxt.coord.held and nxt.tasks[t].split == split:
            ev.append(Event(COORDINATOR, names[t], f"AddSplitEvent {split} released", "control",
                            f"{names[t]}'s gateway opens and split {split} reaches it"))
    for t, cp in _new_acks(w, nxt):
        pre = [x for x in nxt.tasks[t].pending if x not in w.tasks[t].pending]
        txns = {(x.task, x.seq): x for x in nxt.txns}
        if pre:
            seq = pre[0][1]
            g = model.gid[t]
            recs = _recs(txns[(g, seq)].records) if (g, seq) in txns else "{}"
            ev.append(Event(names[t], None, f"snapshot {cp}: pre-commit txn {seq} {recs}", "barrier",
                            f"{names[t]} pre-commits txn {seq} = {recs} for checkpoint {cp}"))
        elif type(a) is not TriggerCheckpoint:
            ev.append(Event(names[t], None, f"snapshot {cp}", "barrier"))
    judged = {p.id: p for p in w.coord.pending if not p.completing}
    for p in nxt.coord.pending:  # FLIP-600: every task responded, the checkpoint judged regional, its completion waiting
        if p.completing and p.id in judged and RegionalCheckpointHandler.stuck(p):
            ev.append(Event(COORDINATOR, None, f"checkpoint {p.id} STUCK", "regional",
                            f"every task has responded: checkpoint {p.id} is judged regional, but taking a failed"
                            " subtask's fallback state throws (an index the fallback checkpoint does not have), and"
                            " nothing catches it: the checkpoint stays pending"))
        elif p.completing and p.id in judged:
            fallback, failed = p.completing[0], p.completing[1]
            who = ", ".join(names[t] for t in range(len(names)) if failed >> t & 1)
            ev.append(Event(COORDINATOR, None, f"checkpoint {p.id} judged REGIONAL", "regional",
                            f"every task has responded: checkpoint {p.id} is judged regional (failed region: {who}), and"
                            f" its completion waits for the operator coordinators' fallback to checkpoint {fallback}"))
    back = sorted(set(nxt.coord.unassigned) - set(w.coord.unassigned))
    if back and type(a) not in (Restore, Rescale):  # a coordinator's fallback puts splits back into the live enumerator
        for s in back:
            holders = [names[t] for t, y in enumerate(nxt.tasks) if y.split == s]
            ev.append(Event(COORDINATOR, None, f"split {s} back to the enumerator", "regional",
                            f"the split enumerator takes split {s} back" + (f", though {' and '.join(holders)} still reads it"
                                                                             if holders else "")))
    if nxt.coord.completed_count > w.coord.completed_count:
        c = nxt.coord.store[-1]
        falls = [(names[t], r) for t, r in enumerate(c.refs) if r]
        was = next((p for p in w.coord.pending if p.id == c.id), None)
        responded = {t for t, _ in was.acked} | {t for t, cp in _new_acks(w, nxt) if cp == c.id} if was else set()
        if type(a) is Ack and a.checkpoint == c.id:
            responded.add(a.task)  # the acknowledgement this step delivers
        silent = [names[t] for t in range(len(names)) if was and was.waiting >> t & 1 and t not in responded
                  and not was.declined >> t & 1 and not (c.refs and c.refs[t])]
        without = f" without {' and '.join(silent)}'s acknowledgement" if silent else ""
        if falls:
            who = ", ".join(f"{n} from {r}" for n, r in falls)
            ev.append(Event(COORDINATOR, None, f"checkpoint {c.id} complete, REGIONAL: {who}", "regional",
                            f"checkpoint {c.id} completes regionally{without}: {who} (refCheckpointId)"))
        else:
            ev.append(Event(COORDINATOR, None, f"checkpoint {c.id} complete{', no ack of ' + ', '.join(silent) if silent else ''}",
                            "complete", f"checkpoint {c.id} completes{without}"))
    still = {p.id for p in nxt.coord.pending}
    done = nxt.coord.store[-1].id if nxt.coord.completed_count > w.coord.completed_count else 0
    for p in w.coord.pending:
        if p.id not in still and p.id != done:
            why = f" (subsumed by checkpoint {done})" if done > p.id else ""
            ev.append(Event(COORDINATOR, None, f"checkpoint {p.id} aborted{why}", "fault",
                            f"checkpoint {p.id} is aborted{why}"))
    before = {(x.task, x.seq): x for x in w.txns}
    after = {(x.task, x.seq): x for x in nxt.txns}
    verb = "recovers and commits" if type(a) in (Restore, Rescale) else "commits"
    for key, x in after.items():
        if x.status == COMMITTED and (key not in before or before[key].status != COMMITTED):
            recs = _recs(x.records)
            ev.append(Event(gnames[x.task], None, f"commit txn {x.seq} {recs}", "commit", f"{gnames[x.task]} {verb} txn {x.seq} = {recs}"))
    for key in before:
        if key not in after:
            ev.append(Event(gnames[key[0]], None, f"abort txn {key[1]}", "fault",
                            f"{gnames[key[0]]}'s open txn {key[1]} = {_recs(before[key].records)} is aborted"))
    for t, (x, y) in enumerate(zip(w.tasks, nxt.tasks)):
        if rescaled:
            break  # the subtasks after a rescale are other ones; _describe tells what they hold
        if y.status == FINISHED and x.status != FINISHED and type(a) is not Restore:
            ev.append(Event(names[t], None, "finished", "control", f"{names[t]} finishes"))
    gone = set(w.files) - set(nxt.files)
    retained = {f for c in nxt.coord.store for f in c.files}
    for cp, t in sorted(gone):
        if type(a) is Notify:  # a FLIP-306 task manager discards the subtask's merged segment
            ev.append(Event(names[t], None, f"discard segment cp{cp}", "fault" if (cp, t) in retained else "control",
                            f"its task manager discards segment cp{cp}/{names[t]}" + (" that a retained checkpoint needs" if (cp, t) in retained else "")))
        elif (cp, t) in retained:
            ev.append(Event(COORDINATOR, None, f"deletes cp{cp}/{names[t]}", "fault",
                            f"the cleaner deletes cp{cp}/{names[t]}, which a retained checkpoint needs"))
    return ev
