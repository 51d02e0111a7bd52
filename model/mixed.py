"""Rescaling from a mixed (regional) checkpoint, with the project's redistribution functions.

the FLIP-600 thread argues about what happens when a regional checkpoint, whose subtasks carry state from
different checkpoints (``refCheckpointId``), is restored at another parallelism, maybe several
times in a row.  This module is that question as an exact, small state machine over one
operator.  ``actions``/``step`` are the transition relation; ``specs.rescaling`` puts it behind
the engine surface, and ``checks.run.rescale.search`` runs the project's explorer on it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .redistribution import reassign_channel_state, repartition_operator_state

EVEN_SPLIT = "even-split"
UNION = "union"
FALLBACK_AT_INDEX = "checkpoint-at-index"
FALLBACK_RESTORED = "restored-assignment"


@dataclass(frozen=True)
class SubtaskState:
    """One subtask's snapshot.  Its operator state is the list of ``(partition, offset)`` entries
    of the partitions it owns, written as even-split (``SPLIT_DISTRIBUTE``) or union list state.
    This is how Flink's sources and sinks use operator list state: each subtask writes its own
    entries.  Each subtask also has in-flight input (channel state, FLIP-76) recorded with its
    snapshot and redistributed with ``reassign_channel_state`` (``channel_assignment``)."""

    entries: tuple[tuple[int, int], ...]  # (partition, offset) written to operator list state
    channel: tuple[tuple[int, int], ...]  # in-flight input: (partition, offset) records
    origin: int  # the checkpoint whose snapshot this is (0: the job's initial assignment)


@dataclass(frozen=True)
class Checkpoint:
    id: int
    parallelism: int
    subtasks: tuple[SubtaskState, ...]
    refs: tuple[int, ...]  # refCheckpointId per subtask (0: its own state)


@dataclass(frozen=True)
class Job:
    """The running operator: parallelism, each subtask's owned offsets, its restored state.

    The operator reads ``partitions`` partitions (a source's splits, or any state with an owner
    per key); at any time each partition is owned by one subtask, which holds its offset."""

    parallelism: int
    owned: tuple[tuple[tuple[int, int], ...], ...]  # per subtask: sorted (partition, offset)
    restored: tuple[SubtaskState, ...]  # per subtask: what it was restored with (or started from)
    latest: Checkpoint | None  # the latest completed checkpoint (restores and fallbacks use only it)
    next_id: int


def initial(partitions: int, parallelism: int, first_id: int = 1) -> Job:
    """Subtask i owns the partitions p with p mod parallelism = i, all at offset 0."""
    owned = tuple(tuple((p, 0) for p in range(partitions) if p % parallelism == i) for i in range(parallelism))
    start = tuple(SubtaskState(o, (), 0) for o in owned)
    return Job(parallelism, owned, start, None, first_id)


def snapshot(job: Job, i: int, cp: int) -> SubtaskState:
    """Subtask i's snapshot: its own entries, and as channel state the next record of its
    first partition that is in flight (so channel state is never empty when there is input)."""
    own = job.owned[i]
    channel = ((own[0][0], own[0][1]),) if own else ()
    return SubtaskState(own, channel, cp)


def advance(job: Job, i: int) -> Job:
    """Subtask i processes one record of each partition it owns."""
    owned = list(job.owned)
    owned[i] = tuple((p, o + 1) for p, o in owned[i])
    return Job(job.parallelism, tuple(owned), job.restored, job.latest, job.next_id)


def complete(job: Job, failed: frozenset[int], fallback_rule: str) -> Job:
    """Checkpoint ``job.next_id``: global when ``failed`` is empty, else regional with the
    failed subtasks' state taken by ``fallback_rule`` from the latest completed checkpoint.

    A global checkpoint holds every subtask's current state; in a regional one the subtasks of
    the failed set take a *fallback* state tagged with the fallback's id.  Which fallback is the
    question: the fallback checkpoint's subtask state at the same index (mechanics note 8.1, step 6),
    or, after a rescale, the state the subtask was restored with (Roman, 29 Jun 2026: "the
    restored (redistributed) assignment has to be retained until the first checkpoint completes
    at the new parallelism")."""
    cp = job.next_id
    subtasks, refs = [], []
    latest = job.latest
    for i in range(job.parallelism):
        if i not in failed:
            subtasks.append(snapshot(job, i, cp))
            refs.append(0)
            continue
        if latest is None:
            raise ValueError("a regional checkpoint needs a completed checkpoint to fall back to")
        if fallback_rule == FALLBACK_AT_INDEX:
            # the fallback checkpoint's OperatorSubtaskState of the same subtask index
            st = latest.subtasks[i] if i < latest.parallelism else SubtaskState((), (), latest.id)
        else:
            # the latest state of this subtask at the current parallelism: the fallback's own
            # subtask state if the fallback was taken at this parallelism, else what it was restored with
            st = latest.subtasks[i] if latest.parallelism == job.parallelism else job.restored[i]
        subtasks.append(st)
        refs.append(latest.id)
    c = Checkpoint(cp, job.parallelism, tuple(subtasks), tuple(refs))
    return Job(job.parallelism, job.owned, job.restored, c, cp + 1)


def redistribute(c: Checkpoint, new_p: int, kind: str) -> list[tuple[tuple[int, int], ...]]:
    """Per new subtask, the operator-state entries it receives (``repartition_operator_state``)."""
    mode = "SPLIT_DISTRIBUTE" if kind == EVEN_SPLIT else "UNION"
    old = [[(f"h{i}", {"s": (mode, tuple(range(len(st.entries))))})] for i, st in enumerate(c.subtasks)]
    out = []
    for handles in repartition_operator_state(old, c.parallelism, new_p):
        got: list = []
        for name, states in handles:
            entries = c.subtasks[int(name[1:])].entries
            for _, offsets in states.values():
                got.extend(entries[k] for k in offsets)
        out.append(tuple(got))
    return out


def channel_assignment(c: Checkpoint, new_p: int, mapper: str = "ROUND_ROBIN") -> list[list]:
    """Per new subtask, the channel-state handles it receives (``reassign_channel_state``);
    each handle is (old subtask, origin checkpoint, records)."""
    old = [[(i, st.origin, st.channel)] for i, st in enumerate(c.subtasks)]
    return reassign_channel_state(old, mapper, c.parallelism, new_p)


def restore(job: Job, new_p: int, kind: str) -> Job:
    """Fail over and restore the latest checkpoint at parallelism ``new_p``.

    Restoring even-split state gives each new subtask its slice of the concatenated lists
    (``repartition_operator_state``) and it owns what it got.  Restoring union state gives every
    subtask the whole list; subtask i owns the partitions p with p mod P = i and takes, for each,
    the *last* entry of the list (a restore loop that puts entries into a map, as Flink's legacy
    Kafka consumer does)."""
    c = job.latest
    got = redistribute(c, new_p, kind)
    owned, restored = [], []
    for i in range(new_p):
        if kind == EVEN_SPLIT:
            mine = dict(got[i])
        else:
            mine = {}
            for p, o in got[i]:  # the last entry of a partition wins
                if p % new_p == i:
                    mine[p] = o
        owned.append(tuple(sorted(mine.items())))
        restored.append(SubtaskState(got[i], (), c.id))
    return Job(new_p, tuple(owned), tuple(restored), job.latest, job.next_id)


def violation(c: Checkpoint, partitions: int) -> str | None:
    """Each partition once in checkpoint ``c``'s operator state, with one offset.

    The property is the one a restore needs: every partition appears in the checkpoint's state
    with the offset its owner had at the (possibly older) snapshot it comes from, once; a
    partition that is missing is lost, one that appears twice with different offsets is rewound
    or skipped depending on which entry the restore keeps."""
    seen: dict[int, list[tuple[int, int]]] = {}
    for i, st in enumerate(c.subtasks):
        for p, o in st.entries:
            seen.setdefault(p, []).append((i, o))
    for p in range(partitions):
        where = seen.get(p, [])
        if not where:
            return f"checkpoint {c.id} holds no entry for partition {p}: a restore loses its position"
        offsets = sorted({o for _, o in where})
        if len(offsets) > 1:
            who = ", ".join(f"subtask {i} (ref {c.refs[i] or 'own'}) offset {o}" for i, o in where)
            return (
                f"checkpoint {c.id} holds partition {p} at different offsets: {who}; a restore that keeps"
                f" one of them rewinds or skips records of partition {p}"
            )
        if len(where) > 1:
            return f"checkpoint {c.id} holds partition {p} {len(where)} times: subtasks {[i for i, _ in where]}"
    return None


def restored_violation(job: Job, partitions: int) -> str | None:
    """After a restore, each partition is owned by exactly one subtask."""
    owners: dict[int, list[int]] = {}
    for i, own in enumerate(job.owned):
        for p, _ in own:
            owners.setdefault(p, []).append(i)
    for p in range(partitions):
        if len(owners.get(p, [])) != 1:
            return f"after restoring at parallelism {job.parallelism}, partition {p} is owned by subtasks {owners.get(p, [])}"
    return None


# actions: ("advance", subtask), ("global",), ("regional", failed subtask), ("restore", parallelism)


def actions(job: Job, parallelisms: tuple[int, ...]) -> list[tuple]:
    """Every step from ``job``: a subtask processes, a checkpoint completes globally or with one
    subtask failed (once there is a fallback), or a failover restores at another parallelism."""
    out: list[tuple] = [("advance", i) for i in range(job.parallelism)]
    out.append(("global",))
    if job.latest is not None:
        if job.parallelism > 1:
            out += [("regional", i) for i in range(job.parallelism)]
        out += [("restore", p) for p in parallelisms if p != job.parallelism]
    return out


def step(job: Job, a: tuple, kind: str, rule: str) -> Job:
    if a[0] == "advance":
        return advance(job, a[1])
    if a[0] == "global":
        return complete(job, frozenset(), rule)
    if a[0] == "regional":
        return complete(job, frozenset({a[1]}), rule)
    return restore(job, a[1], kind)


def describe(job: Job, a: tuple) -> str:
    """One line for action ``a`` taken in ``job``."""
    if a[0] == "advance":
        return f"subtask {a[1]} of {job.parallelism} processes a record of each partition it owns"
    if a[0] == "global":
        return f"checkpoint {job.next_id} completes globally"
    if a[0] == "regional":
        return (
            f"checkpoint {job.next_id} completes regionally: subtask {a[1]} declines and falls back to"
            f" checkpoint {job.latest.id}"
        )
    return f"failover: restore checkpoint {job.latest.id} at parallelism {a[1]}"
