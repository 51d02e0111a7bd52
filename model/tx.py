"""The mutable working copy of a world that one ``step`` edits and then freezes.

Components receive it and change it in place: a step is one sequence of component calls (an
RPC arriving, a barrier delivered), exactly as one Flink event runs through several classes.
Nothing outside a ``step`` ever sees a ``Tx``; the world stays one immutable value.
"""

from __future__ import annotations

from operator import is_

from .world import Txn, World


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
