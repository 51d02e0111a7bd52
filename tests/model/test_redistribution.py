"""Flink's key-group and pointwise arithmetic, checked against the reference's worked examples."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ckptcheck.model.redistribution import (
    assign_key_to_parallel_operator,
    assign_to_key_group,
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


# Flink 2.3.0's own answers (MathUtils.murmurHash, KeyGroupRangeAssignment's assignToKeyGroup and
# computeKeyGroupRangeForOperatorIndex, Integer/Long/String.hashCode), obtained by calling
# flink-dist-2.3.0.jar through `ckptcheck conform`'s Java side (checks/conform/java/KeyGroups.java via
# checks.flinkjvm.FlinkJVM).  Pinned here so that the default run needs no JVM.
FLINK_MURMUR = {0: 593689054, 1: 68075478, -1: 1982413648, 42: 1134849565, 2**31 - 1: 1653689534,
                -(2**31): 1718298732, 123456789: 1088346449}
FLINK_KEY_GROUP = {(0, 128): 94, (42, 128): 29, ("hello", 128): 35, ("flink", 256): 226, (-1, 32768): 15184}
FLINK_KEY_GROUP_RANGE = {(128, 5, 4): (103, 127), (256, 7, 3): (110, 146), (32768, 10, 9): (29492, 32767)}


def test_murmur_hash_matches_flinks_math_utils():
    for code, flink in FLINK_MURMUR.items():
        assert murmur_hash(code) == flink, code
        assert 0 <= murmur_hash(code) < 2**31


def test_key_groups_and_hash_codes_match_flinks():
    for (key, max_p), flink in FLINK_KEY_GROUP.items():
        assert assign_to_key_group(key, max_p) == flink, (key, max_p)
    for args, flink in FLINK_KEY_GROUP_RANGE.items():
        assert key_group_range(*args) == flink, args
    assert java_hash(123456789012, as_long=True) == -1097262584  # Long.valueOf(123456789012L).hashCode()
    assert java_hash("flink") == 97520992 and java_hash(-7) == -7


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


# --- issue: mappers, operator state, keyed and channel state --------------------------------------

from ckptcheck.model.redistribution import (  # noqa: E402
    BROADCAST,
    SPLIT_DISTRIBUTE,
    UNION,
    UnsupportedRescaleError,
    ambiguous_targets,
    even_split_position_slice,
    invert_mapping,
    is_ambiguous,
    java_hashmap_order,
    pointwise_outputs,
    reassign_channel_state,
    reassign_keyed_state,
    repartition_operator_state,
    rescale_mappings,
    subtask_state_mapper,
)


def test_mapper_worked_examples():
    assert subtask_state_mapper("ROUND_ROBIN", 10, 4) == [[0, 4, 8], [1, 5, 9], [2, 6], [3, 7]]
    assert subtask_state_mapper("ROUND_ROBIN", 5, 2) == [[0, 2, 4], [1, 3]]
    assert subtask_state_mapper("RANGE", 3, 2) == [[0, 1], [1, 2]]
    assert subtask_state_mapper("RANGE", 3, 4) == [[0], [0, 1], [1, 2], [2]]
    assert subtask_state_mapper("ARBITRARY", 10, 4) == subtask_state_mapper("ROUND_ROBIN", 10, 4)
    assert subtask_state_mapper("FIRST", 3, 2) == [[0, 1, 2], []]
    assert subtask_state_mapper("FULL", 2, 2) == [[0, 1], [0, 1]]
    assert is_ambiguous("RANGE") and is_ambiguous("FULL") and not is_ambiguous("ROUND_ROBIN")
    assert ambiguous_targets(subtask_state_mapper("RANGE", 3, 4)) == {0, 1, 2}
    assert invert_mapping([[0, 1], [1, 2]], 3) == [[0], [0, 1], [1]]


def test_rescale_mappings_identity_and_trailing_empties():
    assert rescale_mappings("ROUND_ROBIN", 3, 3) == ([[0], [1], [2]], True)
    assert rescale_mappings("ROUND_ROBIN", 2, 4) == ([[0], [1]], True)  # extra new subtasks read nothing
    assert rescale_mappings("FIRST", 3, 2) == ([[0, 1, 2]], False)


def test_unsupported_mapper_raises_flinks_message():
    with pytest.raises(UnsupportedRescaleError, match="Cannot rescale the given pointwise partitioner"):
        subtask_state_mapper("UNSUPPORTED", 2, 3)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: subtask_state_mapper("RING", 2, 2), "kind"),
        (lambda: subtask_state_mapper("RANGE", 0, 2), "old_p"),
        (lambda: subtask_state_mapper("RANGE", 2, 40000), "new_p"),
        (lambda: reassign_keyed_state([(0, 63), (64, 127)], 128, 0), "new_p"),
        (lambda: reassign_keyed_state([(0, 127)], 40000, 1), "max_parallelism"),
        (lambda: repartition_operator_state([[]], 1, 0), "new_p"),
    ],
)
def test_bad_mapper_arguments(call, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        call()


def test_hashmap_order_examples():
    assert java_hashmap_order(["t-1", "t-2"]) == ["t-2", "t-1"]
    assert java_hashmap_order(["a", "b"]) == ["a", "b"]
    assert java_hashmap_order(["State-1", "State-10"]) == ["State-10", "State-1"]
    # "Aa" and "BB" share Java hash 2112, so one bucket: put keeps insertion order,
    # computeIfAbsent links at the head (``ckptcheck conform`` against Flink 2.3.0's jar)
    assert java_hashmap_order(["Aa", "BB"]) == ["Aa", "BB"]
    assert java_hashmap_order(["Aa", "BB"], compute_if_absent=True) == ["BB", "Aa"]
    # computeIfAbsent resizes before a call: 13 names stay in 16 buckets until one more call (of
    # any key), then 32; put resizes after the 13th insertion
    names = [f"state-{i}" for i in range(13)]

    def by_bucket(cap: int, sign: int) -> list[str]:
        def b(x: str) -> int:
            h = java_hash(x) & 0xFFFFFFFF
            return (h ^ (h >> 16)) & (cap - 1)

        return [x for _, _, x in sorted((b(x), sign * k, x) for k, x in enumerate(names))]

    assert by_bucket(16, -1) != by_bucket(32, -1)  # the example tells the capacities apart
    assert java_hashmap_order(names, compute_if_absent=True) == by_bucket(16, -1)
    assert java_hashmap_order(names + ["state-0"], compute_if_absent=True) == by_bucket(32, -1)
    assert java_hashmap_order(names) == by_bucket(32, 1)
    # eight names with one hash ("Aa" and "BB" hash alike): computeIfAbsent treeifies a bin of
    # 8, put keeps it a list (insertion order) and treeifies at 9 (checked against the JDK by
    # ckptcheck conform's hashmap-order family)
    eight = ["".join(p) for p in itertools.product(["Aa", "BB"], repeat=3)]
    with pytest.raises(ValueError, match="^names: a HashMap bin of 8 names"):
        java_hashmap_order(eight, compute_if_absent=True)
    assert java_hashmap_order(eight) == eight
    with pytest.raises(ValueError, match="^names: a HashMap bin of 9 names"):
        java_hashmap_order(eight + ["AaAaC#"])  # "C#" hashes as "Aa" does too


def test_split_state_names_in_one_bucket_rotate_as_flink_2_3():
    """``groupByStateMode`` fills its map with ``computeIfAbsent``: of two SPLIT_DISTRIBUTE names
    in one bucket the later one comes first, and the rotation starts with it.  Old P = 2 -> 4,
    "Aa" (offsets 0, 1, 2) and "BB" (offset 10), in that order in subtask 0's handle: "BB" is
    distributed first (new subtask 0 gets it) and "Aa" continues the rotation at subtask 1.
    With ``put`` order "Aa" would take subtasks 0-2 and "BB" subtask 3."""
    old = [[("H0", {"Aa": (SPLIT_DISTRIBUTE, (0, 1, 2)), "BB": (SPLIT_DISTRIBUTE, (10,))})],
           [("H1", {"Aa": (SPLIT_DISTRIBUTE, ()), "BB": (SPLIT_DISTRIBUTE, ())})]]
    out = repartition_operator_state(old, 2, 4)
    got = [sorted((name, offs) for _, states in sub for name, (_, offs) in states.items() if offs) for sub in out]
    assert got == [[("BB", (10,))], [("Aa", (0,))], [("Aa", (1,))], [("Aa", (2,))]]


def _split(handle, name, offsets):
    return (handle, {name: (SPLIT_DISTRIBUTE, tuple(offsets))})


def test_even_split_worked_example():
    old = [[_split("A", "s", [0, 10])], [_split("B", "s", [0, 15])]]
    assert repartition_operator_state(old, 2, 3) == [
        [("A", {"s": (SPLIT_DISTRIBUTE, (0, 10))})],
        [("B", {"s": (SPLIT_DISTRIBUTE, (0,))})],
        [("B", {"s": (SPLIT_DISTRIBUTE, (15,))})],
    ]


def test_union_and_broadcast_worked_examples():
    old = [[("A", {"u": (UNION, (0, 7))})], [("B", {"u": (UNION, (3,))})]]
    every = [("A", {"u": (UNION, (0, 7))}), ("B", {"u": (UNION, (3,))})]
    assert repartition_operator_state(old, 2, 3) == [every, every, every]
    old = [[("A", {"b": (BROADCAST, ())})], [("B", {"b": (BROADCAST, ())})]]
    assert [h for sub in repartition_operator_state(old, 2, 3) for h, _ in sub] == ["A", "B", "A"]


def _elements(subtask):
    """Flatten one new subtask's handles into element labels (handle, offset index)."""
    return [f"{h}{o}" for h, states in subtask for _, (_, offs) in states.items() for o in offs]


def test_seed_example_even_split_4_2_1():
    """the FLIP-600 thread (Raorao, 26 Jun 2026): ckp100 P=4 [A0,A1],[B0,B1],[C0,C1],[D0,D1] -> P=2 gives
    [A0,A1,B0,B1] and [C0,C1,D0,D1]; ckp101 mixes subtask 0's new [E0..E3] with subtask 1's
    fallback [C0,C1,D0,D1] (ref 100); P=2 -> 1 gives [E0,E1,E2,E3,C0,C1,D0,D1]."""
    ckp100 = [[_split(h, "s", [0, 1])] for h in "ABCD"]
    p2 = repartition_operator_state(ckp100, 4, 2)
    assert [_elements(s) for s in p2] == [["A0", "A1", "B0", "B1"], ["C0", "C1", "D0", "D1"]]
    ckp101 = [[_split("E", "s", [0, 1, 2, 3])], p2[1]]
    p1 = repartition_operator_state(ckp101, 2, 1)
    assert [_elements(s) for s in p1] == [["E0", "E1", "E2", "E3", "C0", "C1", "D0", "D1"]]


def test_seed_example_union_4_2_1():
    """the FLIP-600 thread: the union variant: P=4 -> 2 gives everyone [A0..D1]; ckp101 = new [E0..E7] and
    fallback [A0..D1]; P=2 -> 1 gives [E0..E7, A0..D1], the complete set."""
    ckp100 = [[(h, {"u": (UNION, (0, 1))})] for h in "ABCD"]
    p2 = repartition_operator_state(ckp100, 4, 2)
    assert [_elements(s) for s in p2] == [["A0", "A1", "B0", "B1", "C0", "C1", "D0", "D1"]] * 2
    ckp101 = [[("E", {"u": (UNION, tuple(range(8)))})], p2[1]]
    p1 = repartition_operator_state(ckp101, 2, 1)
    assert _elements(p1[0]) == [f"E{i}" for i in range(8)] + ["A0", "A1", "B0", "B1", "C0", "C1", "D0", "D1"]


def test_unchanged_parallelism_returns_input_unless_union_or_partial_broadcast():
    old = [[_split("A", "s", [0])], [_split("B", "s", [1])]]
    assert repartition_operator_state(old, 2, 2) is old
    # broadcast state reported by every subtask is not partial in Flink 2.3 (FLINK-38131:
    # 0 < cardinality < parallelism): the input comes back as it is; before FLINK-38131 the
    # BitSet.size() test (64 bits) called it partial and rebuilt it
    old = [[("A", {"b": (BROADCAST, ())})], [("B", {"b": (BROADCAST, ())})]]
    assert repartition_operator_state(old, 2, 2) is old
    # finished subtask 1 reported nothing: it receives a copy
    old = [[("A", {"b": (BROADCAST, ())})], []]
    assert repartition_operator_state(old, 2, 2) == [[("A", {"b": (BROADCAST, ())})], [("A", {"b": (BROADCAST, ())})]]


def test_empty_offsets_rules():
    # an empty handle reached while a subtask is still consuming gets [] for that subtask
    old = [[_split("A", "s", [1])], [_split("B", "s", [])], [_split("C", "s", [2])]]
    out = repartition_operator_state(old, 3, 1)
    assert out == [[("A", {"s": (SPLIT_DISTRIBUTE, (1,))}), ("B", {"s": (SPLIT_DISTRIBUTE, ())}), ("C", {"s": (SPLIT_DISTRIBUTE, (2,))})]]
    # trailing empty handles are dropped
    old = [[_split("A", "s", [1])], [_split("B", "s", [])]]
    assert repartition_operator_state(old, 2, 1) == [[("A", {"s": (SPLIT_DISTRIBUTE, (1,))})]]


def test_keyed_reassignment():
    assert reassign_keyed_state([(0, 42), (43, 85), (86, 127)], 128, 2) == [
        [(0, (0, 42)), (1, (43, 63))],
        [(1, (64, 85)), (2, (86, 127))],
    ]
    assert reassign_keyed_state([(0, 63), (64, 127)], 128, 2) == [[(0, (0, 63))], [(1, (64, 127))]]


def test_channel_state_reassignment():
    old = [["a0"], ["b0", "b1"], ["c0"]]
    assert reassign_channel_state(old, "RANGE", 3, 2) == [["a0", "b0", "b1"], ["b0", "b1", "c0"]]
    assert reassign_channel_state(old, "ROUND_ROBIN", 3, 3) == old
    assert reassign_channel_state(old, "FULL", 3, 3, upstream_new_ps=(2,)) == [["a0", "b0", "b1", "c0"]] * 3


def test_full_mapper_at_unchanged_parallelism_follows_flink_2_3():
    """FLINK-35351 as Flink 2.3 has it (``ckptcheck conform`` against Flink 2.3.0's jar): A 1->1,
    B 2->2, edge A->B with a FULL downstream mapper.  Flink compares B's *old* parallelism (2)
    with A's *new* one (1), so both B subtasks get [b0, b1] (and filter); an upstream that
    changed parallelism is not what decides it."""
    b = [["b0"], ["b1"]]
    assert reassign_channel_state(b, "FULL", 2, 2, upstream_new_ps=(1,)) == [["b0", "b1"], ["b0", "b1"]]
    assert reassign_channel_state(b, "FULL", 2, 2, upstream_new_ps=(2,)) == b  # A 4->2: equal to B's old P
    assert reassign_channel_state(b, "RANGE", 2, 2, upstream_new_ps=(1,)) == b  # only FULL edges


def test_rescaling_an_unsupported_edge_with_in_flight_data_fails_as_flink_fails():
    """Flink 2.3 fails the restore ("Cannot rescale the given pointwise partitioner") as soon as
    one end of an edge with an UNSUPPORTED mapper is rescaled while either end has in-flight
    data on it; without in-flight data the gate gets NO_STATE (FLINK-38267) and nothing fails."""
    from ckptcheck.model.redistribution import check_channel_state_restore

    def restore(mappers, up_old, up_new, down_old, down_new, in_flight):
        check_channel_state_restore((up_old, down_old), (up_new, down_new), ((0, 1, *mappers),), (in_flight,))

    forward, keyed = ("UNSUPPORTED", "UNSUPPORTED"), ("ARBITRARY", "RANGE")
    for ends in ((2, 2, 2, 3), (2, 3, 2, 2), (4, 2, 4, 2)):
        with pytest.raises(UnsupportedRescaleError, match="^Cannot rescale the given pointwise partitioner"):
            restore(forward, *ends, in_flight=True)
        restore(forward, *ends, in_flight=False)
        restore(keyed, *ends, in_flight=True)
    restore(forward, 2, 2, 3, 3, in_flight=True)  # nothing rescaled


# --- Hypothesis: the Python functions satisfy the statements the Z3 proofs make ------------------

names_st = st.lists(st.sampled_from(["a", "b", "t-1", "t-2", "State-1", "State-10"]), min_size=1, max_size=3, unique=True)


@st.composite
def split_states(draw):
    old_p = draw(st.integers(1, 5))
    names = draw(names_st)
    old = []
    for i in range(old_p):
        states = {n: (SPLIT_DISTRIBUTE, tuple(range(draw(st.integers(0, 4))))) for n in names}
        old.append([(f"h{i}", states)])
    return old, old_p, draw(st.integers(1, 6).filter(lambda p: p != old_p))


@given(split_states())
def test_even_split_every_element_once_in_order_and_balanced(case):
    old, old_p, new_p = case
    out = repartition_operator_state(old, old_p, new_p)
    names = {n for sub in old for _, states in sub for n in states}
    for name in names:
        original = [(h, o) for sub in old for h, states in sub for o in states[name][1]]
        got = [[(h, o) for h, states in sub if name in states for o in states[name][1]] for sub in out]
        flat = [x for g in got for x in g]
        assert sorted(flat) == sorted(original)  # every element exactly once
        # in rotation-position order, the chunks concatenate back to the original order
        sizes = sorted(len(g) for g in got)
        assert sizes[-1] - sizes[0] <= 1
        assert sorted(len(g) for g in got) == sorted(
            b - a for a, b in (even_split_position_slice(len(original), new_p, r) for r in range(new_p))
        )
    loads = [sum(len(states[n][1]) for _, states in sub for n in states) for sub in out]
    assert max(loads) - min(loads) <= 1  # the rotation across names keeps totals balanced


@given(st.integers(1, 6), st.integers(1, 6), st.lists(st.integers(0, 3), min_size=6, max_size=6))
def test_union_every_subtask_gets_every_element_once(old_p, new_p, lens):
    old = [[(f"h{i}", {"u": (UNION, tuple(range(lens[i])))})] for i in range(old_p)]
    everything = sorted((f"h{i}", o) for i in range(old_p) for o in range(lens[i]))
    for sub in repartition_operator_state(old, old_p, new_p):
        assert sorted((h, o) for h, states in sub for o in states["u"][1]) == everything


@given(st.integers(1, 6), st.integers(1, 9))
def test_broadcast_one_copy_each(old_p, new_p):
    old = [[(f"h{i}", {"b": (BROADCAST, ())})] for i in range(old_p)]
    out = repartition_operator_state(old, old_p, new_p)
    assert all(sum(1 for _, states in sub if "b" in states) == 1 for sub in out)
    if new_p != old_p:
        picked = [next(h for h, states in sub if "b" in states) for sub in out]
        for j in range(old_p):
            assert picked.count(f"h{j}") == new_p // old_p + (1 if j < new_p % old_p else 0)


@given(st.integers(1, 300), st.integers(1, 300))
def test_round_robin_and_range_mappers(old_p, new_p):
    rr = subtask_state_mapper("ROUND_ROBIN", old_p, new_p)
    assert sorted(j for olds in rr for j in olds) == list(range(old_p))  # each old exactly once
    rg = subtask_state_mapper("RANGE", old_p, new_p)
    assert set(j for olds in rg for j in olds) == set(range(old_p))  # every old read
    boundary = {olds[-1] for n, olds in enumerate(rg[:-1]) if rg[n + 1] and olds and olds[-1] == rg[n + 1][0]}
    assert ambiguous_targets(rg) == boundary


@given(st.integers(1, 200), st.integers(1, 200))
def test_pointwise_statements(s, t):
    ins = pointwise_inputs(s, t)
    assert all(ins)  # every downstream reads at least one partition
    assert sorted(set(p for ps in ins for p in ps)) == list(range(s))  # every partition read
    if s >= t:
        flat = [p for ps in ins for p in ps]
        assert flat == list(range(s))  # disjoint and contiguous, in order
    else:
        assert all(len(ps) == 1 for ps in ins)
    assert sum(len(x) for x in pointwise_outputs(s, t)) == sum(len(x) for x in ins)


@given(st.integers(1, 512).flatmap(lambda m: st.tuples(st.just(m), st.integers(1, m), st.integers(1, m))))
def test_keyed_reassignment_covers_each_key_group_once(mpq):
    max_p, old_p, new_p = mpq
    old = [key_group_range(max_p, old_p, i) for i in range(old_p)]
    out = reassign_keyed_state(old, max_p, new_p)
    covered = sorted(kg for sub in out for _, (a, b) in sub for kg in range(a, b + 1))
    assert covered == list(range(max_p))
