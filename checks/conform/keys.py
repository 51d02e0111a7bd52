"""``ckptcheck conform`` families: key groups (``KeyGroupRangeAssignment``, ``MathUtils``, Java hash
codes) and ``java.util.HashMap``'s iteration order."""

from __future__ import annotations

import random
from typing import Iterable

from ckptcheck.model import redistribution as rd

from .op import INT_MIN, MAXP, _NAMES, Family, Op, _EDGE_INTS, _int32, _lone_surrogate, _string

def _key(r: random.Random):
    """An Integer (mostly), a Long, or a String key."""
    x = r.random()
    if x < 0.6:
        return _int32(r)
    if x < 0.8:
        return {"long": r.randint(-(1 << 63), (1 << 63) - 1)}
    return _string(r)


def _py_key(k):
    return (k["long"], True) if isinstance(k, dict) else (k, False)


def _m_java_hash(a):
    k, as_long = _py_key(a[0])
    return rd.java_hash(k, as_long=as_long)


def _key_domain(a) -> str | None:
    return "strings with a lone surrogate" if _lone_surrogate(a[0]) else None


def _maxp_domain(max_p) -> str | None:
    return None if 1 <= max_p <= MAXP else "max parallelism outside 1..32768"


def _key_group_of(a):
    k, as_long = _py_key(a[0])
    return rd.compute_key_group_for_key_hash(rd.java_hash(k, as_long=as_long), a[1])


def _operator_of(a):
    k, as_long = _py_key(a[0])
    return rd.operator_index_for_key_group(a[1], a[2], rd.compute_key_group_for_key_hash(rd.java_hash(k, as_long=as_long), a[1]))


def _range_domain(a) -> str | None:
    max_p, p, i = a
    if not (1 <= p <= max_p <= MAXP):
        return None  # Flink checks these too: both refuse
    return None if 0 <= i < p else "operator index outside 0..parallelism-1"


def _kg_index_domain(a) -> str | None:
    max_p, p, kg = a
    if not 1 <= max_p <= MAXP:
        return "max parallelism outside 1..32768"
    if not 1 <= p <= max_p:
        return "parallelism outside 1..max parallelism"
    return None if 0 <= kg < max_p else "key group outside 0..max parallelism-1"


def _rand_maxp(r: random.Random) -> int:
    x = r.random()
    if x < 0.3:
        return r.choice((1, 2, 3, 128, 256, 4096, MAXP, MAXP - 1))
    if x < 0.97:
        return r.randint(1, MAXP)
    return r.choice((0, -1, MAXP + 1, r.randint(INT_MIN, 0)))


def _rand_range_case(r: random.Random) -> list:
    m = _rand_maxp(r)
    p = r.randint(1, max(1, m)) if r.random() < 0.97 else r.randint(1, MAXP + 2)
    i = r.randrange(p) if r.random() < 0.97 else r.choice((-1, p, p + 1))
    return [m, p, i]


def _rand_kg_index_case(r: random.Random) -> list:
    m, p, _ = _rand_range_case(r)
    kg = r.randrange(m) if m > 0 and r.random() < 0.97 else r.choice((-1, m, m + 5))
    return [m, p, kg]


KEY_GROUPS = Family(
    "key-groups", "KeyGroups",
    "key groups of keys and key hashes, key-group ranges, operator indexes, default max parallelism, murmur and Java hashes",
    (
        Op("murmur_hash", "MathUtils.murmurHash(int)", "keygroups.murmur_hash",
           lambda a: rd.murmur_hash(a[0]), lambda: ([c] for c in (*range(-2000, 2000), *_EDGE_INTS)),
           lambda r: [_int32(r)], weight=2),
        Op("java_hash", "Integer/Long/String.hashCode()", "keygroups.java_hash",
           _m_java_hash, lambda: ([k] for k in ("", "a", "Aa", "BB", "\U0001F600", "key-0", {"long": -1}, {"long": 1 << 40})),
           lambda r: [_key(r)], domain=_key_domain, weight=2),
        Op("key_group_for_key_hash", "KeyGroupRangeAssignment.computeKeyGroupForKeyHash", "keygroups.compute_key_group_for_key_hash",
           lambda a: rd.compute_key_group_for_key_hash(a[0], a[1]),
           lambda: ([h, m] for h in range(-64, 64) for m in (1, 2, 3, 7, 128, 4096, MAXP)),
           lambda r: [_int32(r), _rand_maxp(r)], domain=lambda a: _maxp_domain(a[1])),
        Op("assign_to_key_group", "KeyGroupRangeAssignment.assignToKeyGroup", "keygroups.assign_to_key_group",
           _key_group_of, lambda: ([k, m] for k in range(0, 256) for m in (1, 128, 256, MAXP)),
           lambda r: [_key(r), _rand_maxp(r)], domain=lambda a: _key_domain(a) or _maxp_domain(a[1])),
        Op("assign_key_to_parallel_operator", "KeyGroupRangeAssignment.assignKeyToParallelOperator",
           "keygroups.assign_key_to_parallel_operator", _operator_of,
           lambda: ([k, 128, p] for k in range(0, 64) for p in range(1, 9)),
           lambda r: (lambda m, p, _: [_key(r), m, p])(*_rand_range_case(r)),
           domain=lambda a: _key_domain(a) or _kg_index_domain([a[1], a[2], 0])),
        Op("key_group_range", "KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex", "keygroups.key_group_range",
           lambda a: list(rd.key_group_range(*a)),
           lambda: ([m, p, i] for m in range(1, 65) for p in range(1, m + 1) for i in range(-1, p + 1)),
           _rand_range_case, domain=_range_domain, weight=2),
        Op("operator_index_for_key_group", "KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup",
           "keygroups.operator_index_for_key_group", lambda a: rd.operator_index_for_key_group(*a),
           lambda: ([m, p, kg] for m in range(1, 33) for p in range(1, m + 1) for kg in range(-1, m + 1)),
           _rand_kg_index_case, domain=_kg_index_domain),
        Op("default_max_parallelism", "KeyGroupRangeAssignment.computeDefaultMaxParallelism",
           "keygroups.default_max_parallelism", lambda a: rd.default_max_parallelism(a[0]),
           lambda: ([p] for p in range(-2, MAXP + 3)),
           lambda r: [r.randint(-5, MAXP + 5) if r.random() < 0.95 else _int32(r)], weight=0.5),
    ),
    weight=3,
    domains=("strings with a lone surrogate", "max parallelism outside 1..32768", "operator index outside 0..parallelism-1",
             "parallelism outside 1..max parallelism", "key group outside 0..max parallelism-1"),
)



def _colliding(pairs: int) -> list[str]:
    """2**pairs distinct strings with one hashCode ("Aa" and "BB" hash alike)."""
    out = [""]
    for _ in range(pairs):
        out = [x + y for x in out for y in ("Aa", "BB")]
    return out


def _rand_names(r: random.Random) -> list:
    pool = [_string(r) if r.random() < 0.3 else r.choice(_NAMES) for _ in range(r.randint(1, 30))]
    return [[r.choice(pool) for _ in range(r.randint(1, 40))]]


def _hashmap_domain(a, compute_if_absent: bool) -> str | None:
    if any(_lone_surrogate(x) for x in a[0]):
        return "strings with a lone surrogate"
    try:
        rd.java_hashmap_order(a[0], compute_if_absent=compute_if_absent)
    except ValueError:
        return "a HashMap bin Java treeifies"
    return None


def _hashmap_exhaustive() -> Iterable[list]:
    for k in range(0, 6):
        yield [_colliding(k)]
        yield [_colliding(k) + list(_NAMES)]
    yield [_colliding(3)[:7]]
    yield [list(_NAMES) * 2]


HASHMAP = Family(
    "hashmap-order", "HashMapOrder",
    "the iteration order of a java.util.HashMap<String, ?> that groupByStateMode and the model depend on",
    (
        Op("put", "java.util.HashMap.put (JDK)", "redistribution.java_hashmap_order",
           lambda a: rd.java_hashmap_order(a[0]), _hashmap_exhaustive, _rand_names, domain=lambda a: _hashmap_domain(a, False)),
        Op("compute_if_absent", "java.util.HashMap.computeIfAbsent (JDK)", "redistribution.java_hashmap_order(compute_if_absent=True)",
           lambda a: rd.java_hashmap_order(a[0], compute_if_absent=True), _hashmap_exhaustive, _rand_names,
           domain=lambda a: _hashmap_domain(a, True)),
    ),
    weight=0.5,
    domains=("strings with a lone surrogate", "a HashMap bin Java treeifies"),
)

