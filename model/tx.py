"""The mutable working copy of a world that one ``step`` edits and then freezes.

Components receive it and change it in place: a step is one sequence of component calls (an
RPC arriving, a barrier delivered), exactly as one Flink event runs through several classes.
Nothing outside a ``step`` ever sees a ``Tx``; the world stays one immutable value.
"""

from __future__ import annotations

from operator import is_
from typing import Any, cast

from .world import REC, RECOVERED_INPUT, Txn, World, is_head_read


class Tx:
    """A world being edited inside one ``step``."""

    __slots__ = ("tasks", "channels", "coord", "acks", "files", "txns", "used", "reused", "_w")

    def __init__(self, w: World):
        self._w = w
        self.tasks = list(w.tasks)
        self.channels = list(w.channels)
        self.coord = w.coord
        self.acks = w.acks
        self.files = w.files
        self.txns = w.txns
        self.used = w.used
        self.reused = w.reused

    def freeze(self) -> World:
        """The edited world.  A task or channel tuple whose entries are all unchanged is the
        original tuple itself: successors share it with their parent (less memory per stored
        world), and a witness can tell "nothing changed here" by identity."""
        w = self._w
        tasks = w.tasks if all(map(is_, self.tasks, w.tasks)) else tuple(self.tasks)
        channels = w.channels if all(map(is_, self.channels, w.channels)) else tuple(self.channels)
        return tuple.__new__(World, (tasks, channels, self.coord, self.acks, self.files, self.txns, self.used, self.reused))

    def push(self, cids, item) -> None:
        """Append ``item`` to every channel in ``cids`` (FIFO)."""
        for c in cids:
            self.channels[c] = self.channels[c] + (item,)

    def set_txn(self, txn: Txn | None, remove: tuple[int, int] | None = None) -> None:
        """Replace (or add) the external transaction ``txn``; drop the one keyed ``remove``."""
        by_key = {(t.task, t.seq): t for t in self.txns}
        if remove is not None:
            by_key.pop(remove, None)
        if txn is not None:
            by_key[(txn.task, txn.seq)] = txn
        self.txns = tuple(by_key[k] for k in sorted(by_key))

    def txn(self, task: int, seq: int) -> Txn | None:
        """The external transaction ``seq`` of sink subtask ``task``, if it exists."""
        return next((x for x in self.txns if x.task == task and x.seq == seq), None)


def edit(w: World) -> Tx:
    """The ``Tx`` a step edits ``w`` through: ``Tx(w)``, or, where ``w`` is an engine's stand-in
    for a world that records what the step reads (``checks.engine.memo``), the stand-in's own."""
    return Tx(w) if type(w) is World else cast(Any, w).edit()


def consumer_end(items: tuple, buffers: int) -> int:
    """How many items at the head of a channel have reached the consumer's input channel; the
    rest is still in the producer's subpartition.

    Abstraction (unaligned checkpoints, UC note A.5-A.6): the network is fast and
    the input channel has credit for ``buffers`` records (the scope's ``input_buffers``).  Its
    end holds any recovered input state, the next ``buffers`` records and the events right
    behind them; every later record waits in the subpartition.  With 0 the consumer reads
    straight from the subpartition, as a ``LocalInputChannel`` does: nothing but recovered input
    state has left it, events included, so a timeoutable barrier at its head still counts as
    queued (its sender acknowledges once the consumer polls it, or its timer makes it a priority
    barrier) and a priority barrier goes in front of it.  (A real run showed it:
    ``tests/data/runs/timeout-barrier-in-local-channel.jsonl``, where a sink still reading its
    upstream's re-sent output completes an unaligned checkpoint whose other barrier its sender's
    timer made a priority one at the head of a local channel.)  A slower network (a
    record the consumer has credit for still in the subpartition) is not modelled: it would
    move a record from the consumer's input channel state to the producer's output channel
    state, the same record restored to the same consumer unless the job is rescaled, where the
    two are redistributed by different mappings.  A record's place is a function of the
    channel's contents, so no action and no state is spent on the network.

    A record whose head the consumer already read (``HEAD_READ``, spanning records) has its
    tail in the subpartition: the input channel holds nothing else, so the end is before it."""
    k = 0
    n = len(items)
    while k < n and len(items[k]) == 4 and items[k][3] == RECOVERED_INPUT:  # in the RecoveredInputChannel
        k += 1
    if k < n and is_head_read(items[k]):
        return k
    if not buffers:  # a LocalInputChannel polls the subpartition itself: nothing has left it
        return k
    for _ in range(buffers):
        while k < n and items[k][0] != REC:
            k += 1
        if k == n:
            return k
        k += 1
    while k < n and items[k][0] != REC:
        k += 1
    return k
