"""Flink's key-group and pointwise arithmetic, checked against the reference's worked examples."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from model.redistribution import (
    assign_key_to_parallel_operator,
    default_max_parallelism,
    java_hash,
    key_group_range,
    murmur_hash,
    operator_index_for_key_group,
    pointwise_inputs,
)


def test_java_string_hash_code():
    assert java_hash("hello") == 99162322  # "hello".hashCode() in Java
    assert java_hash("") == 0
    assert java_hash("polygenelubricants") == -2147483648  # the classic Integer.MIN_VALUE string


def test_java_long_hash_code():
    assert java_hash(1 << 32, as_long=True) == 1
    assert java_hash(-1, as_long=True) == 0


def test_murmur_is_non_negative_and_deterministic():
    for code in (0, 1, -1, 2**31 - 1, -(2**31), 123456789):
        assert 0 <= murmur_hash(code) < 2**31
        assert murmur_hash(code) == murmur_hash(code)


def test_key_group_ranges_worked_example():
    # reference section 7: maxP=128, P=3 -> [0,42] [43,85] [86,127]; opIndex(128,3,43) = 1
    assert [key_group_range(128, 3, i) for i in range(3)] == [(0, 42), (43, 85), (86, 127)]
    assert operator_index_for_key_group(128, 3, 43) == 1


def test_pointwise_worked_examples():
    assert pointwise_inputs(3, 5) == [[0], [0], [1], [1], [2]]
    assert pointwise_inputs(5, 3) == [[0], [1, 2], [3, 4]]


def test_default_max_parallelism():
    assert [default_max_parallelism(p) for p in (1, 85, 86, 200, 30000)] == [128, 128, 256, 512, 32768]


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: key_group_range(128, 0, 0), "parallelism"),
        (lambda: key_group_range(128, 129, 0), "parallelism"),
        (lambda: key_group_range(32769, 1, 0), "max_parallelism"),
        (lambda: operator_index_for_key_group(128, 2, 128), "kg"),
        (lambda: default_max_parallelism(0), "parallelism"),
    ],
)
def test_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        call()


@given(st.integers(1, 32768).flatmap(lambda m: st.tuples(st.just(m), st.integers(1, m))))
def test_ranges_partition_key_groups_and_agree_with_operator_index(mp):
    max_p, p = mp
    ranges = [key_group_range(max_p, p, i) for i in range(min(p, 64))]
    for i, (s, e) in enumerate(ranges):
        assert s <= e
        assert operator_index_for_key_group(max_p, p, s) == i
        assert operator_index_for_key_group(max_p, p, e) == i
        if i + 1 < len(ranges):
            assert ranges[i + 1][0] == e + 1
    assert ranges[0][0] == 0
    if p <= 64:
        assert ranges[-1][1] == max_p - 1


@given(st.integers(-(2**31), 2**31 - 1), st.integers(1, 4096).flatmap(lambda m: st.tuples(st.just(m), st.integers(1, m))))
def test_keys_route_into_their_owner_range(key, mp):
    max_p, p = mp
    op = assign_key_to_parallel_operator(key, max_p, p)
    s, e = key_group_range(max_p, p, op)
    kg = murmur_hash(key) % max_p
    assert s <= kg <= e
