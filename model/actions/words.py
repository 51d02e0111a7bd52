"""The vocabulary of a narrated step: its events (arrows between lanes, marks on one lane) and
the phrases the actions' ``narrate`` and ``checks.run.narrate`` share."""

from __future__ import annotations

from dataclasses import dataclass

from ..world import PART_HEAD, PART_TAIL, World

COORDINATOR = "coordinator"  # the lane of the checkpoint coordinator


@dataclass
class Event:
    src: str
    dst: str | None  # None: a mark on ``src``'s lane
    label: str
    tone: str  # data, barrier, control, fault, commit, restore, complete, regional
    text: str = ""  # the same, in words, for the step table (empty: the step's own text says it)


def restored_from(a) -> str:
    """A restore's label in the sequence diagram: the checkpoint, or the job's initial state."""
    return f"restore {a.checkpoint}" if a.checkpoint else "restart from the initial state"


def committables(model, producer: int, item: tuple) -> str:
    """A Sink V2 committable message from subtask ``producer``, in words."""
    names = model.global_names
    if model.sink_v2[producer] == "writer":
        w, records = item[2]
        return f"the committable of checkpoint {item[1]} ({recs(records) if records else 'no record'})"
    return (f"the committed committables of checkpoint {item[1]}"
            f" ({'; '.join(f'{names[w]}: {recs(r) if r else chr(45)}' for w, r in item[2][1])})")


def rec(item) -> str:
    return f"({item[1]},{item[2]})"


def recs(records) -> str:
    return "{" + ", ".join(f"({r[0]},{r[1]})" for r in records) + "}"


def record_words(item) -> str:
    return f"record (split {item[1]}, offset {item[2]})"


def acks(w: World) -> set[tuple[int, int]]:
    """(task, checkpoint) of every acknowledgement in flight or, with instant acks, counted."""
    return {(t, cp) for t, cp, _ in w.acks} | {(t, p.id) for p in w.coord.pending for t, _ in p.acked}


def new_acks(w: World, nxt: World) -> list[tuple[int, int]]:
    before = acks(w)
    return sorted(x for x in acks(nxt) if x not in before)


def parts_recorded(model, w: World, nxt: World, t: int) -> str:
    """Spanning records: the parts of records that subtask ``t``'s snapshot of this step holds,
    in words ("" when none)."""
    names = model.topo.names
    if nxt.tasks[t].uc and not w.tasks[t].uc:
        snap, inputs = nxt.tasks[t].uc
    else:
        new = [x[2] for x in nxt.acks if x[0] == t and x not in w.acks]
        if not new:
            return ""
        snap, inputs = new[0], new[0].inputs
    words = []
    for i, rs in enumerate(inputs):
        words += [f"the head of record (split {r[0]}, offset {r[1]}) in its deserializer is input channel state"
                  for r in rs if len(r) == 3 and r[2] == PART_HEAD]
    for i, rs in enumerate(snap.outputs):
        to = names[model.topo.channels[model.all_out[t][i]].consumer]
        words += [f"the tail of record (split {r[0]}, offset {r[1]}), queued for {to}, is output channel state"
                  for r in rs if len(r) == 3 and r[2] == PART_TAIL]
    return "".join("; " + x for x in words)
