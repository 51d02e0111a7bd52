"""The properties and witnesses of FLINK-4120, the null-state checkpoint (``model.nullstate``): a
recomputable operator's rebuilt state is the one the latest checkpoint held, the null-state
checkpoint a recovery needs is retained, and the replay before the re-inserted barrier."""

from __future__ import annotations

from ckptcheck.model.actions import Deliver, EmitRecord, Restore
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.world import REC, World

from ..property import rec


def _null_state(design, scope) -> bool:
    return design.recovery == "null-state"


# -- always ------------------------------------------------------------------------------------
def recomputed_state_matches(m: FlinkModel, w: World) -> str | None:
    """FLINK-4120: "the pipeline must be restarted from the latter to restore the state at the
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


# -- sometimes (witnesses, on transitions) -----------------------------------------------------
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
    if m.null_state.replaying(nxt) and m.request_decider.trigger_allowed(nxt):
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
