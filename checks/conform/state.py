"""``ckptcheck conform`` families: channel-state mapping on a rescale (``SubtaskStateMapper``,
``RescaleMappings``, ``MappingBasedRepartitioner``), keyed and operator state on a restore
(``StateAssignmentOperation``, ``RoundRobinOperatorStateRepartitioner``), and retention
(``CheckpointSubsumeHelper``)."""

from __future__ import annotations

import random
from ckptcheck.model import redistribution as rd

from .op import MAXP, _NAMES, Family, Op, _lone_surrogate, _string

# -- SubtaskStateMapper, RescaleMappings, MappingBasedRepartitioner ----------------------------

def _m_rescale(a):
    kind, old_p, new_p = a
    m, identity = rd.rescale_mappings(kind, old_p, new_p)
    # the model drops trailing empty rows; Flink keeps their count (numberOfSources) and answers
    # an empty row for them (getMappedIndexes): the same mapping, padded here to compare
    return {"mapping": m + [[] for _ in range(new_p - len(m))], "identity": identity,
            "ambiguous": sorted(rd.ambiguous_targets(m)), "inverted": rd.invert_mapping(m, old_p)}


def _rand_ps(r: random.Random, hi: int = 256) -> tuple[int, int]:
    return r.randint(1, hi if r.random() < 0.5 else 16), r.randint(1, hi if r.random() < 0.5 else 16)


def _m_repartition(a):
    kind, old_p, new_p, old = a
    return rd.repartition_by_mapping(old, rd.rescale_mappings(kind, old_p, new_p)[0], new_p)


def _states(old_p: int) -> list[list[str]]:
    return [[f"{i}.{j}" for j in range(1 + i % 2)] for i in range(old_p)]


STATE_MAPPERS = Family(
    "subtask-state-mappers", "StateMappers",
    "which old subtasks' channel state a new subtask reads on a rescale, for every mapper, and the repartition by that mapping",
    (
        Op("old_subtasks", "SubtaskStateMapper.getOldSubtasks", "redistribution.old_subtasks",
           lambda a: rd.old_subtasks(*a),
           lambda: ([k, n, o, p] for k in rd.MAPPERS for o in range(1, 13) for p in range(1, 13) for n in range(p)),
           lambda r: (lambda k, o, p: [k, r.randrange(p), o, p])(r.choice(rd.MAPPERS), *_rand_ps(r)), weight=2),
        Op("is_ambiguous", "SubtaskStateMapper.isAmbiguous", "redistribution.is_ambiguous",
           lambda a: rd.is_ambiguous(a[0]), lambda: ([k] for k in rd.MAPPERS), lambda r: [r.choice(rd.MAPPERS)], weight=0.05),
        Op("rescale_mappings", "SubtaskStateMapper.getNewToOldSubtasksMapping, RescaleMappings.isIdentity/getAmbiguousTargets/invert",
           "redistribution.rescale_mappings, ambiguous_targets, invert_mapping", _m_rescale,
           lambda: ([k, o, p] for k in rd.MAPPERS for o in range(1, 17) for p in range(1, 17)),
           lambda r: [r.choice(rd.MAPPERS), *_rand_ps(r, 64)]),
        Op("repartition", "MappingBasedRepartitioner.repartitionState", "redistribution.repartition_by_mapping",
           _m_repartition,
           lambda: ([k, o, p, _states(o)] for k in rd.MAPPERS for o in range(1, 9) for p in range(1, 9)),
           lambda r: (lambda k, o, p: [k, o, p, _states(o)])(r.choice(rd.MAPPERS), *_rand_ps(r, 32))),
    ),
    weight=1.5,
)



# -- keyed state ---------------------------------------------------------------------------------

def _m_partitions(a):
    max_p, p = a
    return [list(rd.key_group_range(max_p, p, i)) for i in range(p)]


def _m_reassign(a):
    max_p, old_p, new_p = a
    old = [rd.key_group_range(max_p, old_p, i) for i in range(old_p)]
    return [[[o, lo, hi] for o, (lo, hi) in got] for got in rd.reassign_keyed_state(old, max_p, new_p)]


def _rand_keyed(r: random.Random) -> list:
    m = r.choice((128, 256, MAXP, r.randint(1, 512), r.randint(1, MAXP)))
    hi = min(m, 64)
    return [m, r.randint(1, hi), r.randint(1, hi)]


KEYED = Family(
    "keyed-state", "KeyedState",
    "key-group partitions of a vertex and the keyed-state handles each new subtask gets on a restore",
    (
        Op("key_group_partitions", "StateAssignmentOperation.createKeyGroupPartitions", "keygroups.key_group_range (per subtask)",
           _m_partitions, lambda: ([m, p] for m in range(1, 129) for p in range(1, m + 1)),
           lambda r: (lambda m: [m, r.randint(1, min(m, 512))])(_rand_keyed(r)[0]),
           domain=lambda a: None if 1 <= a[1] <= a[0] <= MAXP else "parallelism outside 1..max parallelism"),
        Op("reassign", "StateAssignmentOperation.reAssignSubKeyedStates (getManagedKeyedStateHandles, KeyGroupsStateHandle.getIntersection)",
           "redistribution.reassign_keyed_state", _m_reassign,
           lambda: ([m, o, p] for m in (1, 2, 3, 4, 5, 7, 8, 16, 128) for o in range(1, min(m, 8) + 1) for p in range(1, min(m, 8) + 1)),
           _rand_keyed),
    ),
    weight=0.4,
    domains=("parallelism outside 1..max parallelism",),
)



# -- operator state ------------------------------------------------------------------------------

_MODES = ("SPLIT_DISTRIBUTE", "UNION", "BROADCAST")


def _rand_operator_state(r: random.Random) -> list:
    old_p, new_p = r.randint(1, 6), r.randint(1, 6)
    names = sorted({(_string(r) or "x") if r.random() < 0.2 else r.choice(_NAMES) for _ in range(r.randint(1, 6))})
    mode = {n: r.choice(_MODES) for n in names}
    broadcast = {n: [r.randint(0, 9)] for n in names if mode[n] == "BROADCAST"}
    old = []
    for i in range(old_p):
        handles = []
        for h in range(r.randint(1, 2)):
            states = []
            for n in names:
                if r.random() < 0.6:
                    if mode[n] == "BROADCAST":
                        offs = broadcast[n]
                    else:
                        offs = sorted(r.sample(range(100), r.randint(0, 4)))
                    states.append([n, mode[n], offs])
            r.shuffle(states)
            handles.append([f"{i}.{h}", states])
        old.append(handles)
    return [old_p, new_p, old]


def _m_operator_state(a):
    old_p, new_p, old = a
    model_old = [[(h, {n: (m, tuple(o)) for n, m, o in states}) for h, states in subtask] for subtask in old]
    got = rd.repartition_operator_state(model_old, old_p, new_p)
    return [[[h, [[n, m, list(o)] for n, (m, o) in states.items()]] for h, states in subtask] for subtask in got]


def _norm_operator_state(answer):
    """Handles per new subtask as a sorted list, state names within a handle sorted: the order
    of handles (Flink: a ``HashMap`` keyed by the delegate handle) and of names within one
    handle is not modelled (``repartition_operator_state``'s docstring); the offsets of each
    name, and which subtask gets which, are compared exactly."""
    return [sorted([h, sorted(states)] for h, states in subtask if states or True) for subtask in answer]


def _opstate_domain(a) -> str | None:
    names = [n for subtask in a[2] for _, states in subtask for n, _, _ in states]
    return "strings with a lone surrogate" if any(_lone_surrogate(n) for n in names) else None


OPERATOR_STATE = Family(
    "operator-state", "OperatorStates",
    "operator state (even-split list, union, broadcast) redistributed on a restore, in groupByStateMode's HashMap order",
    (
        Op("repartition", "RoundRobinOperatorStateRepartitioner.repartitionState", "redistribution.repartition_operator_state",
           _m_operator_state, lambda: (), _rand_operator_state, domain=_opstate_domain,
           flink_norm=_norm_operator_state, model_norm=_norm_operator_state),
    ),
    weight=0.6,
    domains=("strings with a lone surrogate",),
)



# -- retention ----------------------------------------------------------------------------------

def _m_retained(a):
    from ckptcheck.model.store import CompletedCheckpointStore
    ids, num = a
    store: tuple = ()
    out = []
    for i in ids:
        store = CompletedCheckpointStore.retained_ids(_STORE, store + (i,), num)
        out.append(list(store))
    return out


class _StoreStub:
    """``retained_ids`` reads nothing of its component; a stub stands for the bound store."""


_STORE = _StoreStub()


def _rand_retained(r: random.Random) -> list:
    ids, i = [], 0
    for _ in range(r.randint(1, 8)):
        i += r.randint(1, 3)
        ids.append(i)
    return [ids, r.choice((-1, 0, 1, 1, 2, 3, 5))]


RETENTION = Family(
    "retention", "Retention",
    "which completed checkpoints the store keeps after each add, for a configured num-retained",
    (
        Op("retained", "DefaultCompletedCheckpointStoreUtils.getMaximumNumberOfRetainedCheckpoints, CheckpointSubsumeHelper.subsume",
           "store.CompletedCheckpointStore.retained_ids", _m_retained,
           lambda: ([list(range(1, n + 1)), k] for n in range(1, 7) for k in range(-1, 7)), _rand_retained),
    ),
    weight=0.1,
)
