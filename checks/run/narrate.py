"""Display hooks: what each step of a trace did, in words and as sequence-diagram events.

Reads worlds before and after each action; never changes semantics.  Lanes are the checkpoint
coordinator and every subtask; events are arrows between lanes (records, barriers, triggers,
acks, declines, notifications) or marks on one lane (emits, snapshots, commits, failures,
restores, completions).
"""

from __future__ import annotations

from ckptcheck.model.actions import Ack, Action, Notify, Rescale, Restore, TriggerCheckpoint
from ckptcheck.model.actions.words import COORDINATOR, Event, new_acks, recs
from ckptcheck.model.regional import RegionalCheckpointHandler
from ckptcheck.model.world import COMMITTED, FINISHED, World
from ckptcheck.reports.steps import Step


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
        text, events = a.narrate(model, w, nxt)
        side = _side_effects(model, names, w, nxt, a)
        events += side
        also = [e.text for e in side if e.text]
        if also:
            text = f"{text}; {'; '.join(also)}"
        steps.append(Step(n, a.describe(topo), text, events))
        worlds.append(nxt)
        w = nxt
    return steps, worlds


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
    for t, cp in new_acks(w, nxt):
        pre = [x for x in nxt.tasks[t].pending if x not in w.tasks[t].pending]
        txns = {(x.task, x.seq): x for x in nxt.txns}
        if pre:
            seq = pre[0][1]
            g = model.gid[t]
            held = recs(txns[(g, seq)].records) if (g, seq) in txns else "{}"
            ev.append(Event(names[t], None, f"snapshot {cp}: pre-commit txn {seq} {held}", "barrier",
                            f"{names[t]} pre-commits txn {seq} = {held} for checkpoint {cp}"))
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
        responded = {t for t, _ in was.acked} | {t for t, cp in new_acks(w, nxt) if cp == c.id} if was else set()
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
            held = recs(x.records)
            ev.append(Event(gnames[x.task], None, f"commit txn {x.seq} {held}", "commit", f"{gnames[x.task]} {verb} txn {x.seq} = {held}"))
    for key in before:
        if key not in after:
            ev.append(Event(gnames[key[0]], None, f"abort txn {key[1]}", "fault",
                            f"{gnames[key[0]]}'s open txn {key[1]} = {recs(before[key].records)} is aborted"))
    for t, (x, y) in enumerate(zip(w.tasks, nxt.tasks)):
        if rescaled:
            break  # the subtasks after a rescale are other ones; Rescale.narrate tells what they hold
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
