"""The memo engine's view of a world: a flat vector of interned ids, and stand-ins for a world
that record which of its fields the model reads.

A world's vector has one slot per field of each ``TaskState``, one per field of the
``Coordinator``, one per channel, and one each for the acknowledgements in flight, the files,
the transactions, the fault budget used and the reused files.  A slot holds an id: the index of
the value in a table of the values that field kind has taken (``Layout.intern``), so two
worlds are equal exactly when their vectors are.  Ids are per process; each value also has a
digest (``value_digest``), a 64-bit hash of its contents that is the same in every process, so
fingerprints, and vectors sent to another process (``sparkmemo``), mean the same everywhere.

``TracedWorld`` and ``TracedTx`` stand in for a ``World`` and the ``Tx`` a step edits: the model
runs on them unchanged (``model.tx.edit`` asks a stand-in for its own ``Tx``), each read of a
field adds its slot to a set, and a step's ``freeze`` returns the slots it wrote with their new
ids instead of a world.  What a function read and what it returned are then a cache entry: any
world whose read slots hold the same ids gives the same result, because the model's functions
depend on nothing but the world (``--memo-check`` re-executes hits to catch a variant that
does).  A record used as a whole (compared, hashed, iterated, passed where a tuple is needed)
counts as a read of all its fields: slower, never wrong.  A stand-in never reaches a stored
value: every new value is checked for one when it is interned.
"""

from __future__ import annotations

import hashlib

from ckptcheck.model.tx import Tx
from ckptcheck.model.world import Coordinator, TaskState, World

TASK_FIELDS = len(TaskState._fields)
COORD_FIELDS = len(Coordinator._fields)
_TASK_INDEX = {name: i for i, name in enumerate(TaskState._fields)}
_COORD_INDEX = {name: i for i, name in enumerate(Coordinator._fields)}
SCALARS = ("acks", "files", "txns", "used", "reused")  # the world's parts after its channels, a slot each
_PLAIN = (int, bool, str)


class StandInEscaped(TypeError):
    """A value the model stored in a world holds a stand-in (``TracedRecord``) instead of a
    plain value: the model kept a record it read through the engine in its result."""


def _check_plain(v) -> None:
    if type(v) in _PLAIN or v is None:
        return
    if isinstance(v, tuple):
        for x in v:
            _check_plain(x)
        return
    raise StandInEscaped(f"a world may hold only ints, bools, strings and tuples, got {type(v).__name__}")


def _encoding(v) -> str:
    """A value's contents as text, equal for values that compare equal (a bool as its int, a
    named tuple as its items): what ``value_digest`` hashes."""
    if v is None:
        return "n"
    t = type(v)
    if t is str:
        return f"s{len(v)}:{v}"
    if t is int or t is bool:
        return f"i{int(v)}"
    return "(" + ",".join(map(_encoding, v)) + ")"


def value_digest(kind: int, v) -> int:
    """The 64-bit digest of value ``v`` of field kind ``kind``: from its contents only, so the
    same in every process (Python's own ``hash`` of a string is not)."""
    return int.from_bytes(hashlib.blake2b(f"{kind}|{_encoding(v)}".encode(), digest_size=8).digest(), "little")


class DigestCollision(RuntimeError):
    """Two different values of one field kind have the same 64-bit digest."""


class Layout:
    """Where each field of a world sits in its vector, and the tables of interned values.

    Field kinds: ``TASK_FIELDS`` task fields (shared by every subtask), then the coordinator's
    fields, then channels, then ``SCALARS``; ``kind_of[slot]`` is a slot's kind."""

    def __init__(self, n_tasks: int, n_channels: int) -> None:
        self.n_tasks = n_tasks
        self.n_channels = n_channels
        self.coord_base = n_tasks * TASK_FIELDS
        self.chan_base = self.coord_base + COORD_FIELDS
        self.scalar_base = self.chan_base + n_channels
        self.size = self.scalar_base + len(SCALARS)
        self.chan_kind = TASK_FIELDS + COORD_FIELDS
        self.kind_of = (tuple(range(TASK_FIELDS)) * n_tasks + tuple(range(TASK_FIELDS, self.chan_kind))
                        + (self.chan_kind,) * n_channels + tuple(range(self.chan_kind + 1, self.chan_kind + 1 + len(SCALARS))))
        self.values: list[list] = [[] for _ in range(self.chan_kind + 1 + len(SCALARS))]
        self.ids: list[dict] = [{} for _ in self.values]
        self.digests: list[list[int]] = [[] for _ in self.values]  # per kind, per id: value_digest
        self.by_digest: list[dict[int, int]] = [{} for _ in self.values]  # per kind: digest -> id
        self.fresh: list | None = None  # where set, each new value is appended as (kind, digest, value)

    def share(self, other: "Layout") -> None:
        """Use ``other``'s tables of values (a rescaled configuration's layout: ids mean the
        same in both)."""
        self.values, self.ids, self.digests, self.by_digest = other.values, other.ids, other.digests, other.by_digest

    def intern(self, kind: int, v) -> int:
        """The id of value ``v`` of field kind ``kind``, a new one if ``v`` is new."""
        ids = self.ids[kind]
        i = ids.get(v)
        if i is None:
            _check_plain(v)
            d = value_digest(kind, v)
            if d in self.by_digest[kind]:
                raise DigestCollision(f"field kind {kind}: {v!r} and {self.values[kind][self.by_digest[kind][d]]!r}"
                                      f" have one digest {d:#x}")
            i = ids[v] = len(self.values[kind])
            self.values[kind].append(v)
            self.digests[kind].append(d)
            self.by_digest[kind][d] = i
            if self.fresh is not None:
                self.fresh.append((kind, d, v))
        return i

    def learn(self, kind: int, d: int, v) -> None:
        """Take value ``v`` with the digest another process computed for it (checked)."""
        i = self.by_digest[kind].get(d)
        if i is None:
            fresh, self.fresh = self.fresh, None
            try:
                i = self.intern(kind, v)
            finally:
                self.fresh = fresh
        if self.digests[kind][i] != d:
            raise DigestCollision(f"field kind {kind}: {v!r} arrived with digest {d:#x}, not {self.digests[kind][i]:#x}")

    def to_digests(self, vec: list) -> list[int]:
        """``vec`` as the digests of its values (the same in every process)."""
        digests, kind_of = self.digests, self.kind_of
        return [digests[kind_of[s]][i] for s, i in enumerate(vec)]

    def from_digests(self, ds) -> list:
        """The vector whose values have digests ``ds`` (each learnt before)."""
        by_digest, kind_of = self.by_digest, self.kind_of
        return [by_digest[kind_of[s]][d] for s, d in enumerate(ds)]

    def slot_value(self, vec: list, slot: int):
        return self.values[self.kind_of[slot]][vec[slot]]

    def encode(self, w: World) -> list:
        """``w`` as a vector of ids (a list, never changed once built: successors are copies)."""
        out = []
        intern = self.intern
        for ts in w.tasks:
            out.extend(intern(f, v) for f, v in enumerate(ts))
        out.extend(intern(TASK_FIELDS + f, v) for f, v in enumerate(w.coord))
        out.extend(intern(self.chan_kind, items) for items in w.channels)
        out.extend(intern(self.chan_kind + 1 + k, getattr(w, name)) for k, name in enumerate(SCALARS))
        return out

    def task(self, vec: list, t: int) -> TaskState:
        base = t * TASK_FIELDS
        values = self.values
        return tuple.__new__(TaskState, [values[f][vec[base + f]] for f in range(TASK_FIELDS)])

    def coord(self, vec: list) -> Coordinator:
        base = self.coord_base
        values = self.values
        return tuple.__new__(Coordinator, [values[TASK_FIELDS + f][vec[base + f]] for f in range(COORD_FIELDS)])

    def decode(self, vec: list) -> World:
        """The world a vector stands for."""
        chans = self.values[self.chan_kind]
        b = self.chan_base
        rest = [self.values[self.chan_kind + 1 + k][vec[self.scalar_base + k]] for k in range(len(SCALARS))]
        return World(tuple(self.task(vec, t) for t in range(self.n_tasks)),
                     tuple(chans[vec[b + c]] for c in range(self.n_channels)), self.coord(vec), *rest)

    def slot_name(self, slot: int, names: tuple[str, ...] = ()) -> str:
        """A slot as the model names the field: ``tasks[source[0]].status``, ``coord.pending``,
        ``channels[3]``, ``acks``."""
        if slot < self.coord_base:
            t, f = divmod(slot, TASK_FIELDS)
            return f"tasks[{names[t] if names else t}].{TaskState._fields[f]}"
        if slot < self.chan_base:
            return f"coord.{Coordinator._fields[slot - self.coord_base]}"
        if slot < self.scalar_base:
            return f"channels[{slot - self.chan_base}]"
        return SCALARS[slot - self.scalar_base]

    def vec_diff(self, a: list, b: list) -> list[tuple[int, int]]:
        """``(slot, id)`` for each slot where ``b`` differs from ``a``."""
        return [(s, y) for s, (x, y) in enumerate(zip(a, b)) if x != y]


class TracedRecord:
    """A ``TaskState`` or the ``Coordinator`` read field by field from a vector.  ``_replace``
    returns another stand-in holding the assigned fields (a write that reads nothing)."""

    __slots__ = ("_reads", "_lay", "_vec", "_base", "_kind0", "_cls", "_index", "_delta")

    def __init__(self, reads: set, lay: Layout, vec: list, base: int, kind0: int, cls: type, index: dict, delta: dict):
        self._reads = reads
        self._lay = lay
        self._vec = vec
        self._base = base
        self._kind0 = kind0
        self._cls = cls
        self._index = index
        self._delta = delta

    def __getattr__(self, name: str):
        i = self._index.get(name)
        if i is None:  # a method or attribute of the record type: the record as a whole
            if name == "_fields":
                return self._cls._fields
            return getattr(self._whole(), name)
        delta = self._delta
        if name in delta:
            return delta[name]
        slot = self._base + i
        self._reads.add(slot)
        return self._lay.values[self._kind0 + i][self._vec[slot]]

    def _replace(self, **changes) -> "TracedRecord":
        unknown = [k for k in changes if k not in self._index]
        if unknown:
            raise ValueError(f"Got unexpected field names: {sorted(unknown)!r}")
        return TracedRecord(self._reads, self._lay, self._vec, self._base, self._kind0, self._cls, self._index,
                            {**self._delta, **changes})

    def _whole(self):
        """The record itself: every field not assigned here counts as read."""
        delta = self._delta
        values, vec, base, kind0 = self._lay.values, self._vec, self._base, self._kind0
        out = []
        for name, i in self._index.items():
            if name in delta:
                out.append(delta[name])
            else:
                self._reads.add(base + i)
                out.append(values[kind0 + i][vec[base + i]])
        return tuple.__new__(self._cls, out)

    def __len__(self) -> int:
        return len(self._index)

    def __bool__(self) -> bool:
        return True

    def __iter__(self):
        return iter(self._whole())

    def __getitem__(self, i):
        return self._whole()[i]

    def __hash__(self) -> int:
        return hash(self._whole())

    def __repr__(self) -> str:
        return repr(self._whole())


def _unwrap(x):
    return x._whole() if type(x) is TracedRecord else x


def _compare(op: str):
    def method(self, other):
        return getattr(self._whole(), op)(_unwrap(other))
    method.__name__ = op
    return method


for _op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__add__", "__contains__"):
    setattr(TracedRecord, _op, _compare(_op))


class TracedChannels:
    """A world's channels read one by one from a vector; in a ``TracedTx``, assignable."""

    __slots__ = ("_reads", "_lay", "_vec", "_written")

    def __init__(self, reads: set, lay: Layout, vec: list) -> None:
        self._reads = reads
        self._lay = lay
        self._vec = vec
        self._written: dict[int, tuple] = {}

    def __len__(self) -> int:
        return self._lay.n_channels

    def __getitem__(self, c):
        if type(c) is not int:
            return tuple(self[k] for k in range(self._lay.n_channels)[c])
        if c < 0:
            c += self._lay.n_channels
        written = self._written
        if c in written:
            return written[c]
        slot = self._lay.chan_base + c
        if not 0 <= c < self._lay.n_channels:
            raise IndexError("channel index out of range")
        self._reads.add(slot)
        return self._lay.values[self._lay.chan_kind][self._vec[slot]]

    def __setitem__(self, c: int, items: tuple) -> None:
        if c < 0:
            c += self._lay.n_channels
        self._written[c] = items

    def __iter__(self):
        return (self[c] for c in range(self._lay.n_channels))

    def _whole(self) -> tuple:
        return tuple(self)

    def __eq__(self, other):
        return self._whole() == (other._whole() if type(other) is TracedChannels else other)

    def __hash__(self) -> int:
        return hash(self._whole())

    def __contains__(self, items) -> bool:
        return items in self._whole()

    def index(self, *args) -> int:
        return self._whole().index(*args)

    def count(self, items) -> int:
        return self._whole().count(items)


def _scalar(k: int, name: str):
    def get(self):
        slot = self._lay.scalar_base + k
        self._reads.add(slot)
        return self._lay.values[self._lay.chan_kind + 1 + k][self._vec[slot]]

    return property(get, doc=f"``World.{name}``, read through the engine")


class TracedWorld:
    """A world read field by field from a vector (the stand-in ``enabled``, the properties, the
    witnesses and ``step`` receive).  Anything else asked of it (indexing, ``_replace``,
    equality) uses the whole world, read in full."""

    __slots__ = ("_reads", "_lay", "_vec", "tasks", "channels", "coord")

    def __init__(self, reads: set, lay: Layout, vec: list) -> None:
        self._reads = reads
        self._lay = lay
        self._vec = vec
        self.tasks = tuple(TracedRecord(reads, lay, vec, t * TASK_FIELDS, 0, TaskState, _TASK_INDEX, {})
                           for t in range(lay.n_tasks))
        self.channels = TracedChannels(reads, lay, vec)
        self.coord = TracedRecord(reads, lay, vec, lay.coord_base, TASK_FIELDS, Coordinator, _COORD_INDEX, {})

    def edit(self) -> "TracedTx":
        """The ``Tx`` a step edits this world through (``model.tx.edit``)."""
        return TracedTx(self)

    def _whole(self) -> World:
        self._reads.update(range(self._lay.size))
        return self._lay.decode(self._vec)

    def __getattr__(self, name: str):
        return getattr(self._whole(), name)

    def __iter__(self):
        return iter(self._whole())

    def __getitem__(self, i):
        return self._whole()[i]

    def __len__(self) -> int:
        return len(World._fields)

    def __eq__(self, other):
        return self._whole() == (other._whole() if type(other) is TracedWorld else other)

    def __hash__(self) -> int:
        return hash(self._whole())


for _k, _name in enumerate(SCALARS):
    setattr(TracedWorld, _name, _scalar(_k, _name))


class Writes(tuple):
    """What a traced step wrote: ``(slot, id)`` pairs, what ``TracedTx.freeze`` returns."""

    __slots__ = ()


class TracedTx(Tx):
    """The ``Tx`` of a ``TracedWorld``: the model edits it as it edits a ``Tx``; ``freeze``
    returns the slots written (``Writes``) rather than a world."""

    __slots__ = ("_tw", "_reads", "_lay", "_vec", "_orig", "_scalars")

    def __init__(self, tw: TracedWorld) -> None:  # Tx.__init__ is not called: nothing is copied
        self._tw = tw
        self._reads = tw._reads
        self._lay = tw._lay
        self._vec = tw._vec
        self._orig = (tw.tasks, tw.coord)
        self._scalars: dict[str, object] = {}
        self.tasks = list(tw.tasks)
        self.channels = TracedChannels(tw._reads, tw._lay, tw._vec)
        self.coord = tw.coord

    def _record_writes(self, out: dict, x, orig: TracedRecord, base: int, kind0: int, cls: type, index: dict) -> None:
        if x is orig:
            return
        lay = self._lay
        if type(x) is TracedRecord and x._base == base and x._vec is self._vec:
            for name, v in x._delta.items():
                i = index[name]
                out[base + i] = lay.intern(kind0 + i, v)
            return
        real = _unwrap(x)
        if type(real) is not cls:
            raise StandInEscaped(f"a step stored a {type(real).__name__} where a {cls.__name__} belongs")
        for i, v in enumerate(real):
            out[base + i] = lay.intern(kind0 + i, v)

    def freeze(self) -> Writes:  # type: ignore[override]
        lay = self._lay
        out: dict[int, int] = {}
        tasks, coord = self._orig
        if len(self.tasks) != lay.n_tasks:
            raise StandInEscaped("a step changed the number of subtasks")
        for t, x in enumerate(self.tasks):
            self._record_writes(out, x, tasks[t], t * TASK_FIELDS, 0, TaskState, _TASK_INDEX)
        self._record_writes(out, self.coord, coord, lay.coord_base, TASK_FIELDS, Coordinator, _COORD_INDEX)
        for c, items in self.channels._written.items():
            out[lay.chan_base + c] = lay.intern(lay.chan_kind, items)
        for name, v in self._scalars.items():
            k = SCALARS.index(name)
            out[lay.scalar_base + k] = lay.intern(lay.chan_kind + 1 + k, v)
        return Writes(sorted(out.items()))


def _tx_scalar(k: int, name: str):
    def get(self):
        scalars = self._scalars
        if name in scalars:
            return scalars[name]
        slot = self._lay.scalar_base + k
        self._reads.add(slot)
        return self._lay.values[self._lay.chan_kind + 1 + k][self._vec[slot]]

    def put(self, v) -> None:
        self._scalars[name] = v

    return property(get, put, doc=f"``Tx.{name}``, read and written through the engine")


for _k, _name in enumerate(SCALARS):
    setattr(TracedTx, _name, _tx_scalar(_k, _name))
