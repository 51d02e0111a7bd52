"""Export a trace to the Informal Trace Format (ITF), so Apalache/Quint trace viewers open it.

Each state carries the world's variables plus ``action``, the action that led to it (ITF's
``mbt::actionTaken`` convention).  Integers are JSON numbers (all are small), tuples are
``{"#tup": [...]}``, records are JSON objects keyed by subtask or channel name.
"""

from __future__ import annotations

from ckptcheck.model.world import BARRIER, CANCEL, COMMITTABLE, COMMITTED, EOD, EOD_NO_DRAIN, HEAD_READ, NOTIFY_NAMES, REC, RECOVERED_INPUT, REPLAY, STATUS_NAMES, World

from .trace import ReplayOutcome


def _tup(xs) -> dict:
    return {"#tup": list(xs)}


def _item(it) -> dict | str:
    if it[0] == REC:
        if len(it) == 4:
            kind = {RECOVERED_INPUT: "recoveredRecord", HEAD_READ: "recordHeadRead"}.get(it[3], "resentRecord")
            return {kind: _tup(it[1:3])}
        return {"record": _tup(it[1:])}
    if it[0] == BARRIER:
        return {"unalignedBarrier": it[1]} if len(it) == 3 else {"barrier": it[1]}
    if it[0] == CANCEL:
        return {"cancelCheckpointMarker": it[1]}
    if it[0] == COMMITTABLE:
        return {"committables": {"checkpoint": it[1], "payload": repr(it[2])}}
    if it[0] == REPLAY:
        return {"reinsertedBarrier": it[1]}
    if it == EOD_NO_DRAIN:
        return "EndOfData(NO_DRAIN)"
    return "EndOfData" if it == EOD else "EndOfPartition"


def _snapshot(s) -> dict:
    return {
        "finished": s.finished,
        "position": s.position,
        "processed": {"#set": [_tup(r) for r in s.processed]},
        "pending": [_tup(p) for p in s.pending],
        "split": s.split,
        "inputChannelState": [[_tup(r) for r in recs] for recs in s.inputs],
        "outputChannelState": [[_tup(r) for r in recs] for recs in s.outputs],
    }


def world_to_itf(topo, w: World) -> dict:
    names = topo.names
    tasks = {}
    for t, ts in enumerate(w.tasks):
        tasks[names[t]] = {
            "status": STATUS_NAMES[ts.status],
            "position": ts.position,
            "ended": ts.ended,
            "finalCheckpoint": ts.final_cp,
            "notified": ts.notified,
            "aligning": ts.aligning,
            "processed": {"#set": [_tup(r) for r in ts.processed]},
            "txn": ts.txn,
            "pending": [_tup(p) for p in ts.pending],
            "inbox": [
                {"kind": NOTIFY_NAMES[k], "checkpoint": c, "latest": lt, "lastSubsumed": sub} for k, c, lt, sub in ts.inbox
            ],
            "split": ts.split,
        }
    pend = w.coord.pending
    return {
        "tasks": tasks,
        "channels": {topo.channel_name(c): [_item(it) for it in items] for c, items in enumerate(w.channels)},
        "coordinator": {
            "nextId": w.coord.next_id,
            "pending": [{"id": p.id, "acked": [names[t] for t, _ in p.acked]} for p in pend],
            "store": [
                {
                    "id": c.id,
                    "snapshots": {names[t]: _snapshot(s) for t, s in enumerate(c.snapshots)},
                    "refCheckpointIds": {names[t]: r for t, r in enumerate(c.refs) if r},
                    "unclaimed": c.unclaimed,
                    "enumerator": {"#set": list(c.enum)},
                }
                for c in w.coord.store
            ],
            "failedCount": w.coord.failed_count,
            "consecutiveRegional": w.coord.consecutive_regional,
            "forceGlobal": w.coord.force_global,
            "unassignedSplits": {"#set": list(w.coord.unassigned)},
        },
        "acksInFlight": [{"task": names[t], "checkpoint": cp} for t, cp, _ in w.acks],
        "files": {"#set": [f"cp{cp}/{names[t]}" for cp, t in w.files]},
        "segmentLastUsed": {f"cp{cp}/{names[t]}": u for (cp, t), u in w.reused},
        "txns": [{"task": names[x.task], "seq": x.seq, "committed": x.status == COMMITTED, "records": [_tup(r) for r in x.records]} for x in w.txns],
    }


def to_itf(outcome: ReplayOutcome, source: str) -> dict:
    spec = outcome.spec
    topo = spec.model.topo
    states = []
    for i, w in enumerate(outcome.worlds):
        state = {"#meta": {"index": i}, **world_to_itf(topo, w)}
        state["action"] = spec.action_to_json(outcome.actions[i - 1]) if i > 0 else {"type": "init"}
        states.append(state)
    v = outcome.violation
    return {
        "#meta": {
            "format": "ITF",
            "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
            "source": source,
            "description": f"ckptcheck trace of design {spec.design.name}"
            + (f"; {v['property']} violated at step {v['step']}: {v['reason']}" if v else ""),
        },
        "vars": ["tasks", "channels", "coordinator", "acksInFlight", "files", "segmentLastUsed", "txns", "action"],
        "states": states,
    }
