"""Key groups and pointwise wiring, exact down to Java ``int`` semantics.

- key groups: ``KeyGroupRangeAssignment`` (``RT/state/KeyGroupRangeAssignment.java``) and
  ``MathUtils.murmurHash`` (``flink-core/.../util/MathUtils.java``);
- pointwise wiring: ``VertexInputInfoComputationUtils.computeVertexInputInfoForPointwise``.

How Java's ``int`` arithmetic is reproduced is on ``_i32``; the arguments the model refuses, and
where that differs from Flink, on ``_check_max_p``.
"""

from __future__ import annotations

UPPER_BOUND_MAX_PARALLELISM = 1 << 15  # Transformation.UPPER_BOUND_MAX_PARALLELISM (inclusive)
DEFAULT_LOWER_BOUND_MAX_PARALLELISM = 1 << 7

_MASK32 = 0xFFFFFFFF


def _i32(x: int) -> int:
    """Wrap an integer to Java's signed 32-bit ``int``.  Java arithmetic is reproduced with this
    explicit 32-bit wrap-around where Flink computes in ``int``; Python's unbounded integers would
    otherwise hide overflow."""
    x &= _MASK32
    return x - (1 << 32) if x & 0x80000000 else x


def _rotl32(x: int, r: int) -> int:
    x &= _MASK32
    return _i32((x << r) | (x >> (32 - r)))


def _ushr32(x: int, r: int) -> int:
    """Java ``>>>`` on an ``int``."""
    return _i32((x & _MASK32) >> r)


def java_hash(key: int | str, *, as_long: bool = False) -> int:
    """``key.hashCode()`` of a Java Integer, Long (``as_long=True``) or String.  Keys are Java
    Integers, Longs or Strings; a String with a lone surrogate is outside the domain (Python
    cannot encode it as UTF-16)."""
    if isinstance(key, bool):
        raise ValueError("key: booleans are not modelled keys")
    if isinstance(key, int):
        if as_long:
            v = key & 0xFFFFFFFFFFFFFFFF
            return _i32(v ^ (v >> 32))
        if not -(1 << 31) <= key < (1 << 31):
            raise ValueError(f"key: {key} does not fit a Java Integer; pass as_long=True for a Long")
        return key
    if isinstance(key, str):
        h = 0
        for unit in key.encode("utf-16-be").hex(" ", 2).split():
            h = _i32(31 * h + int(unit, 16))
        return h
    raise ValueError(f"key: expected int or str, got {type(key).__name__}")


def _bit_mix(x: int) -> int:
    x = _i32(x ^ _ushr32(x, 16))
    x = _i32(x * 0x85EBCA6B)
    x = _i32(x ^ _ushr32(x, 13))
    x = _i32(x * 0xC2B2AE35)
    x = _i32(x ^ _ushr32(x, 16))
    return x


def murmur_hash(code: int) -> int:
    """``MathUtils.murmurHash(int)``: a non-negative int."""
    code = _i32(code * 0xCC9E2D51)
    code = _rotl32(code, 15)
    code = _i32(code * 0x1B873593)
    code = _rotl32(code, 13)
    code = _i32(code * 5 + 0xE6546B64)
    code = _i32(code ^ 4)
    code = _bit_mix(code)
    if code >= 0:
        return code
    if code != -(1 << 31):
        return -code
    return 0


def _check_max_p(max_p: int, name: str = "max_parallelism") -> None:
    """Refuse a max parallelism outside 1..32768.

    Arguments outside the model's domain raise ``ValueError`` naming the argument (here and in
    ``_check_p`` and the functions' own checks).  Where Flink checks too
    (``checkParallelismPreconditions`` in ``computeKeyGroupRangeForOperatorIndex`` and
    ``computeDefaultMaxParallelism``) both refuse; elsewhere the domain is the model's own and
    Flink answers anyway (a key group of a key hash for a max parallelism outside 1..32768, an
    operator index outside 0..P-1 in ``computeKeyGroupRangeForOperatorIndex``, any argument of
    ``computeOperatorIndexForKeyGroup``, which checks nothing): ``ckptcheck conform`` counts
    those cases as refused, and docs/pages/conform.md lists the domains."""
    if not isinstance(max_p, int) or not 0 < max_p <= UPPER_BOUND_MAX_PARALLELISM:
        raise ValueError(f"{name}: must be in 1..{UPPER_BOUND_MAX_PARALLELISM}, got {max_p!r}")


def _check_p(p: int, max_p: int, name: str = "parallelism") -> None:
    if not isinstance(p, int) or p <= 0:
        raise ValueError(f"{name}: must be > 0, got {p!r}")
    if p > max_p:
        raise ValueError(f"{name}: {p} exceeds max_parallelism {max_p}")


def compute_key_group_for_key_hash(key_hash: int, max_p: int) -> int:
    _check_max_p(max_p)
    return murmur_hash(key_hash) % max_p


def assign_to_key_group(key: int | str, max_p: int) -> int:
    """``KeyGroupRangeAssignment.assignToKeyGroup``: murmur(hashCode) % maxP."""
    return compute_key_group_for_key_hash(java_hash(key), max_p)


def key_group_range(max_p: int, p: int, i: int) -> tuple[int, int]:
    """``computeKeyGroupRangeForOperatorIndex``: the inclusive key-group range of subtask ``i``.

    Computed in Java ``int`` arithmetic; Flink's javadoc says it is safe only for
    maxP <= 2^15, which the argument checks enforce.
    """
    _check_max_p(max_p)
    _check_p(p, max_p)
    if not 0 <= i < p:
        raise ValueError(f"i: operator index must be in 0..{p - 1}, got {i!r}")
    start = _i32(_i32(i * max_p) + p - 1) // p
    end = _i32(_i32((i + 1) * max_p) - 1) // p
    return start, end


def operator_index_for_key_group(max_p: int, p: int, kg: int) -> int:
    """``computeOperatorIndexForKeyGroup``: kg * P / maxP (Java int division)."""
    _check_max_p(max_p)
    _check_p(p, max_p)
    if not 0 <= kg < max_p:
        raise ValueError(f"kg: key group must be in 0..{max_p - 1}, got {kg!r}")
    return _i32(kg * p) // max_p


def assign_key_to_parallel_operator(key: int | str, max_p: int, p: int) -> int:
    """``assignKeyToParallelOperator``, used by ``KeyGroupStreamPartitioner.selectChannel``."""
    return operator_index_for_key_group(max_p, p, assign_to_key_group(key, max_p))


def _round_up_to_power_of_two(x: int) -> int:
    x = _i32(x - 1)
    for shift in (1, 2, 4, 8, 16):
        x |= _ushr32(x, shift)
    return _i32(x + 1)


def default_max_parallelism(p: int) -> int:
    """``computeDefaultMaxParallelism``: min(max(nextPow2(P + P/2), 128), 32768), for
    0 < P <= 32768 (``checkParallelismPreconditions``)."""
    if not isinstance(p, int) or not 0 < p <= UPPER_BOUND_MAX_PARALLELISM:
        raise ValueError(f"parallelism: must be in 1..{UPPER_BOUND_MAX_PARALLELISM}, got {p!r}")
    return min(
        max(_round_up_to_power_of_two(p + p // 2), DEFAULT_LOWER_BOUND_MAX_PARALLELISM),
        UPPER_BOUND_MAX_PARALLELISM,
    )


def pointwise_inputs(s: int, t: int) -> list[list[int]]:
    """Downstream subtask -> the upstream partitions it consumes on a POINTWISE edge.

    ``computeVertexInputInfoForPointwise``: for S >= T downstream i reads
    [floor(i*S/T), floor((i+1)*S/T) - 1]; for S < T upstream p feeds downstreams
    [ceil(p*T/S), ceil((p+1)*T/S) - 1], so each downstream reads exactly one partition.
    """
    if not isinstance(s, int) or s <= 0:
        raise ValueError(f"s: upstream parallelism must be > 0, got {s!r}")
    if not isinstance(t, int) or t <= 0:
        raise ValueError(f"t: downstream parallelism must be > 0, got {t!r}")
    if s >= t:
        return [list(range(i * s // t, (i + 1) * s // t)) for i in range(t)]
    result: list[list[int]] = [[] for _ in range(t)]
    for p in range(s):
        start = (p * t + s - 1) // s
        end = ((p + 1) * t + s - 1) // s
        for i in range(start, end):
            result[i].append(p)
    return result


def pointwise_outputs(s: int, t: int) -> list[list[int]]:
    """Upstream partition -> the downstream subtasks that consume it (the inverse)."""
    result: list[list[int]] = [[] for _ in range(s)]
    for i, parts in enumerate(pointwise_inputs(s, t)):
        for p in parts:
            result[p].append(i)
    return result
