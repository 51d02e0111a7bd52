"""The actions that move data: a source emits a record or ends its input, a channel delivers its
head (or a record's first part), a reader gets a split."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ..topology import Role
from ..world import (BARRIER, COMMITTABLE, EOD, EOD_NO_DRAIN, HEAD_READ, REC, RECOVERED_INPUT, REPLAY, World)
from .base import Action
from .words import COORDINATOR, Event, committables, new_acks, parts_recorded, rec, recs, record_words

if TYPE_CHECKING:  # pragma: no cover
    from ..footprint import Footprints
    from ..protocol import FlinkModel


class TaskAction(Action):
    """An action one subtask takes itself (its key is the kind and the subtask:
    ``Footprints.own_keys``)."""

    __slots__ = ()
    abstract: ClassVar[bool] = True
    task: int
    _task_fields: ClassVar = ("task",)

    def key(self) -> tuple:
        return (type(self), self.task)

    def touch(self, fp: "Footprints", w: World | None, quiet: bool) -> int:
        return fp._task[self.task]

    def guard(self, fp: "Footprints", quiet: bool) -> int:
        return self.touch(fp, None, False) | fp.in_tail[self.task] | fp.COORD


class ChannelAction(Action):
    """An action on the head of one channel, taken by its consumer."""

    __slots__ = ()
    abstract: ClassVar[bool] = True
    channel: int
    _channel_fields: ClassVar = ("channel",)
    single: ClassVar[bool] = True

    def key(self) -> tuple:
        return (type(self), self.channel)

    def touch(self, fp: "Footprints", w: World | None, quiet: bool) -> int:
        t = fp.model.topo.channels[self.channel].consumer
        if quiet:
            return fp._data_quiet[t] | fp.head[self.channel] | fp.status[t]
        return fp._task[t] | fp.head[self.channel]

    def guard(self, fp: "Footprints", quiet: bool) -> int:
        t = fp.model.topo.channels[self.channel].consumer
        if quiet:
            return self.touch(fp, None, True) | fp.head[self.channel] | fp.tail[self.channel] | fp.st[t] | fp.status[t]
        # the channel empty or not; its consumer running, unblocked, with room downstream
        return fp._task[t] | fp.head[self.channel] | fp.tail[self.channel]


@dataclass(frozen=True, slots=True)
class EmitRecord(TaskAction):
    """A source reads the next record of its split and emits it downstream."""

    task: int
    single: ClassVar[bool] = True

    def touch(self, fp: "Footprints", w: World | None, quiet: bool) -> int:
        return fp._data_quiet[self.task] if quiet else fp._data[self.task]

    def guard(self, fp: "Footprints", quiet: bool) -> int:  # running, not ended, records left
        return self.touch(fp, None, quiet) | fp.st[self.task] | fp.status[self.task]

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        topo, names, t = model.topo, model.topo.names, self.task
        ts = w.tasks[t]
        item = (REC, ts.split if ts.split >= 0 else topo.split_of[t], ts.position)
        grown = [c for c, (x, y) in enumerate(zip(w.channels, nxt.channels)) if len(y) > len(x) and topo.channels[c].producer == t]
        if not grown:
            return (f"{names[t]} reads {record_words(item)}; it has no output, so the record goes nowhere",
                    [Event(names[t], None, f"emit {rec(item)} (no output)", "data")])
        to = ", ".join(names[topo.channels[c].consumer] for c in grown)
        ev = [Event(names[t], None, f"emit {rec(item)} to {to}", "data")]
        tail = ""
        if ts.replay and not nxt.tasks[t].replay:
            ev.append(Event(names[t], None, f"re-insert barrier {ts.replay[0]}", "restore"))
            tail = f", then re-inserts the barrier of checkpoint {ts.replay[0]} at its original position (offset {ts.replay[1]})"
        return f"{names[t]} reads {record_words(item)} and sends it to {to}{tail}", ev

    def observed(self, model: "FlinkModel", w: World) -> list[tuple[int | None, tuple]]:
        return [(self.task, ("emit", (model.topo.split_of[self.task], w.tasks[self.task].position)))]


@dataclass(frozen=True, slots=True)
class EndOfInput(TaskAction):
    """A bounded source has read its whole split: it emits EndOfData (FLIP-147)."""

    task: int
    single: ClassVar[bool] = True

    def touch(self, fp: "Footprints", w: World | None, quiet: bool) -> int:
        reader = self.task in fp.model.enumerator.readers
        if not fp.model.scope.instant_acks:
            return fp._data[self.task] | fp.status[self.task] | (fp.COORD if reader else 0)
        return fp._task[self.task] | (fp.COORD if reader else 0)

    def guard(self, fp: "Footprints", quiet: bool) -> int:  # running, not ended, records left (a reader: a split)
        return self.touch(fp, None, False) | fp.st[self.task] | fp.status[self.task]

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        name = model.topo.names[self.task]
        return f"{name} reaches the end of its split and emits EndOfData", [Event(name, None, "EndOfData", "control")]


@dataclass(frozen=True, slots=True)
class Deliver(ChannelAction):
    """The head of a channel (record, barrier, EndOfData, EndOfPartition) reaches its consumer."""

    channel: int

    def touch(self, fp: "Footprints", w: World | None, quiet: bool) -> int:
        if w is not None and not quiet:
            t = fp.model.topo.channels[self.channel].consumer
            head = w.channels[self.channel][0]
            if head[0] == REC:
                return fp._data[t] | fp.head[self.channel]
            if head[0] == BARRIER and fp._stock_sink:  # a barrier: a snapshot, a pre-commit, no finish
                return fp._task[t] & ~fp.status[t] & ~fp.COMMIT | fp.head[self.channel]
        return ChannelAction.touch(self, fp, w, quiet)

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        from ..task import priority_index

        topo, names = model.topo, model.topo.names
        ch = topo.channels[self.channel]
        items = w.channels[self.channel]
        i = priority_index(items)
        item = items[max(i, 0)]  # a priority barrier is delivered before the head
        src, dst = names[ch.producer], names[ch.consumer]
        if item[0] == REC and model.null_state.drops(w.tasks[ch.consumer], item[1:3]):
            return ((f"{dst} receives replayed {record_words(item)} from {src} and discards it: its state from checkpoint"
                     f" {w.tasks[ch.consumer].replay[0]} already holds it (the re-inserted barrier has not reached it)"),
                    [Event(src, dst, f"{rec(item)} discarded", "data")])
        if item[0] == REPLAY:
            ev = [Event(src, dst, f"re-inserted barrier {item[1]}", "restore")]
            y = nxt.tasks[ch.consumer]
            if y.replay:
                return f"{dst} receives the re-inserted barrier of checkpoint {item[1]} from {src} and blocks that channel", ev
            rebuilt = f": its state, rebuilt by the replay, holds {recs(y.processed)}" if model.null_state.windows[ch.consumer] else ""
            return f"{dst} receives the re-inserted barrier of checkpoint {item[1]} from {src}, forwards it and ends its replay{rebuilt}", ev
        if item[0] == REC:
            ev = [Event(src, dst, rec(item), "data")]
            what = ("writes it into its open transaction" if topo.vertex(ch.consumer).role is Role.SINK
                    else "writes it into its in-progress output" if topo.vertex(ch.consumer).sink_v2 == "writer"
                    else "processes it")
            origin = ""
            if len(item) == 4:
                origin = (" (its recovered input channel state)" if item[3] == RECOVERED_INPUT
                          else "'s tail (its head was read before)" if item[3] == HEAD_READ
                          else " (re-sent from the producer's recovered output channel state)")
            return f"{dst} receives {record_words(item)}{origin} from {src} and {what}", ev
        if item[0] == BARRIER:
            ev = [Event(src, dst, f"barrier {item[1]}", "barrier")]
            if len(item) == 3:
                c = ch.consumer
                started = not w.tasks[c].uc and (nxt.tasks[c].uc or any(t == c for t, _ in new_acks(w, nxt)))
                then = ("; it snapshots at once and sends the barrier ahead of its own output"
                        + parts_recorded(model, w, nxt, c)) if started else ""
                return f"{dst} receives unaligned barrier {item[1]} from {src}, ahead of the records queued on that channel{then}", ev
            snapped = [cp for t, cp in new_acks(w, nxt) if t == ch.consumer]
            if snapped:
                return f"{dst} receives barrier {item[1]} from {src}: aligned, it snapshots checkpoint {item[1]} and forwards the barrier", ev
            if model.barriers.is_blocked(nxt.tasks[ch.consumer], ch.input_index):  # the design's rule, not a flag
                return f"{dst} receives barrier {item[1]} from {src} and blocks that channel until every input delivered it", ev
            if nxt.tasks[ch.consumer].blocked >> ch.input_index & 1:
                return (f"{dst} receives barrier {item[1]} from {src} and keeps reading that channel while it waits for the"
                        f" barrier on its other inputs (this design does not block a channel during alignment)"), ev
            return f"{dst} receives barrier {item[1]} from {src}", ev
        if item == EOD:
            ev = [Event(src, dst, "EndOfData", "control")]
            out = [x for c in model.all_out[ch.consumer] for x in nxt.channels[c][len(w.channels[c]):]]
            sent = [x for x in out if x[0] == COMMITTABLE]
            if sent:
                return f"{dst} receives EndOfData from {src}; its endInput emits {committables(model, ch.consumer, sent[0])}", ev
            if model.sink_v2[ch.consumer] == "committer" and nxt.tasks[ch.consumer].ended and EOD not in out and model.all_out[ch.consumer]:
                return f"{dst} receives EndOfData from {src} and holds it back until its committables have been emitted", ev
            return f"{dst} receives EndOfData from {src}", ev
        if item[0] == COMMITTABLE:
            dropped = " and drops them: its input has ended" if w.tasks[ch.consumer].ended and not w.tasks[ch.consumer].stopped else ""
            return (f"{dst} receives {committables(model, ch.producer, item)} from {src}{dropped}",
                    [Event(src, dst, f"committables {item[1]}", "data")])
        if item == EOD_NO_DRAIN:
            return (f"{dst} receives EndOfData without drain from {src}: its operators neither endInput nor finish",
                    [Event(src, dst, "EndOfData (no drain)", "control")])
        return f"{dst} receives EndOfPartition from {src}", [Event(src, dst, "EndOfPartition", "control")]

    def observed(self, model: "FlinkModel", w: World) -> list[tuple[int | None, tuple]]:
        item = w.channels[self.channel][0]
        if item[0] == REC and len(item) >= 3:
            return [(model.topo.channels[self.channel].consumer, ("invoke", (item[1], item[2])))]
        return []


@dataclass(frozen=True, slots=True)
class ReadHead(ChannelAction):
    """Spanning records (``Scope.spanning_records``): the consumer of ``channel`` polls the buffer
    with the head of the channel's next record while the buffer with its tail is still in the
    producer's subpartition; its deserializer holds the partial record
    (``SpillingAdaptiveSpanningRecordDeserializer``) until the tail arrives (a ``Deliver``)."""

    channel: int

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        names = model.topo.names
        ch = model.topo.channels[self.channel]
        item = w.channels[self.channel][0]
        src, dst = names[ch.producer], names[ch.consumer]
        kept = " (persisted as input channel state)" if nxt.tasks[ch.consumer].uc != w.tasks[ch.consumer].uc else ""
        return ((f"{dst} reads the head of {record_words(item)} from {src}{kept}; its tail is still in {src}'s"
                 f" subpartition"), [Event(src, dst, f"head of {rec(item)}", "data")])


@dataclass(frozen=True, slots=True)
class AssignSplit(TaskAction):
    """The split enumerator (the source's operator coordinator) assigns its next unassigned
    split to a reader subtask that has none (FLIP-27 ``handleSplitRequest``)."""

    task: int
    split: int

    def touch(self, fp: "Footprints", w: World | None, quiet: bool) -> int:
        return fp._task[self.task] | fp.COORD

    def narrate(self, model: "FlinkModel", w: World, nxt: World) -> tuple[str, list[Event]]:
        name = model.topo.names[self.task]
        ev = [Event(COORDINATOR, name, f"assign split {self.split}", "control")]
        held = [cp for t, cp, s in nxt.coord.held if t == self.task and s == self.split]
        if held:
            return (f"the split enumerator assigns split {self.split} to {name}; {name}'s gateway is closed"
                    f" for checkpoint {held[0]}, so the AddSplitEvent waits there"), ev
        return f"the split enumerator assigns split {self.split} to {name}", ev
