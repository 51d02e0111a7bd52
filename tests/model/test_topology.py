"""Job graphs expand into Flink's exact wiring; regions split at blocking edges; bad graphs are rejected."""

from __future__ import annotations

import pytest

from ckptcheck.model.topology import Edge, Exchange, JobGraph, Pattern, Role, TopologyError, Vertex


def graph(s: int, t: int, pattern=Pattern.POINTWISE, exchange=Exchange.PIPELINED) -> JobGraph:
    return JobGraph(
        (Vertex("a", s, Role.SOURCE), Vertex("b", t, Role.SINK)),
        (Edge("a", "b", pattern, exchange),),
    )


def consumed(job: JobGraph) -> list[list[int]]:
    x = job.expand()
    return [sorted(x.index_of[x.channels[c].producer] for c in x.inputs[t]) for t in x.tasks_of[1]]


def test_pointwise_wiring_upstream_larger():
    # reference section 7: 5 -> 3 gives [0], [1,2], [3,4]
    assert consumed(graph(5, 3)) == [[0], [1, 2], [3, 4]]


def test_pointwise_wiring_upstream_smaller():
    # reference section 7: 3 -> 5 gives [0], [0], [1], [1], [2]
    assert consumed(graph(3, 5)) == [[0], [0], [1], [1], [2]]


def subpartitions(job: JobGraph) -> list[list[int]]:
    """Per upstream subtask, the downstream subtask index of each of its subpartitions, in
    subpartition order (the order the RecordWriter's channel index selects)."""
    x = job.expand()
    return [[x.index_of[x.channels[c].consumer] for c in x.outputs[t][0]] for t in x.tasks_of[0]]


def test_pointwise_subpartition_index_follows_flink_when_upstream_is_smaller():
    """``computeVertexInputInfoForPointwise``: consumer c of a partition with k consumers reads
    subpartition c % k (``ckptcheck conform`` against Flink 2.3.0's jar).
    S=2, T=5: partition 0 feeds 0, 1, 2 (subpartitions 0, 1, 2); partition 1 feeds 3 and 4,
    and Flink has 3 read subpartition 1 and 4 read subpartition 0, so a round-robin (rescale)
    producer sends its first record to consumer 4.  A rank-based index would give [3, 4]."""
    assert subpartitions(graph(2, 5)) == [[0, 1, 2], [4, 3]]
    x = graph(2, 5).expand()
    assert {(x.index_of[c.producer], x.index_of[c.consumer]): c.output_index for c in x.channels} == {
        (0, 0): 0, (0, 1): 1, (0, 2): 2, (1, 3): 1, (1, 4): 0}
    assert subpartitions(graph(3, 5)) == [[0, 1], [2, 3], [4]]  # 3 -> 5: [0,1], [2,3], [4]: ranks agree
    assert subpartitions(graph(5, 3)) == [[0], [1], [1], [2], [2]]  # S >= T: one subpartition each
    assert subpartitions(graph(2, 3, Pattern.ALL_TO_ALL)) == [[0, 1, 2], [0, 1, 2]]


def test_all_to_all_wiring_reads_every_partition():
    assert consumed(graph(3, 2, Pattern.ALL_TO_ALL)) == [[0, 1, 2], [0, 1, 2]]


def test_forward_job_has_one_region_per_index():
    x = graph(2, 2).expand()
    assert len(x.regions) == 2
    assert x.region_of[x.tasks_of[0][0]] == x.region_of[x.tasks_of[1][0]]
    assert x.region_of[x.tasks_of[0][0]] != x.region_of[x.tasks_of[0][1]]


def test_all_to_all_job_is_one_region():
    assert len(graph(2, 2, Pattern.ALL_TO_ALL).expand().regions) == 1


@pytest.mark.parametrize("exchange", [Exchange.BLOCKING, Exchange.HYBRID])
def test_blocking_and_hybrid_edges_split_regions(exchange):
    assert len(graph(2, 2, Pattern.ALL_TO_ALL, exchange).expand().regions) == 4


def test_regions_are_the_schedulers_a_cycle_across_logical_regions_does_not_merge():
    """``DefaultExecutionTopology``: logical regions first, then scheduling regions inside each
    (review of 02cb13a, the smallest case a real ``DefaultExecutionGraph`` showed): 0->1 BLOCKING,
    0->2 PIPELINED, 1->2 BLOCKING, all POINTWISE, parallelism 1 each: {0, 2} and {1}.  A
    cycle merge over the whole graph (``mergeRegionsOnCycles`` on every subtask) makes one
    region; a BLOCKING ALL_TO_ALL edge inside a logical region makes the whole of it one."""
    vs = (Vertex("a", 1, Role.SOURCE), Vertex("b", 1), Vertex("c", 1, Role.SINK))
    x = JobGraph(vs, (Edge("a", "b", Pattern.POINTWISE, Exchange.BLOCKING), Edge("a", "c", Pattern.POINTWISE),
                      Edge("b", "c", Pattern.POINTWISE, Exchange.BLOCKING))).expand()
    assert sorted(sorted(x.names[t] for t in r) for r in x.regions) == [["a[0]", "c[0]"], ["b[0]"]]
    vs = (Vertex("a", 2, Role.SOURCE), Vertex("b", 2), Vertex("c", 2, Role.SINK))
    x = JobGraph(vs, (Edge("a", "b", Pattern.POINTWISE), Edge("b", "c", Pattern.POINTWISE),
                      Edge("a", "c", Pattern.ALL_TO_ALL, Exchange.BLOCKING))).expand()
    assert len(x.regions) == 1


def test_cycle_is_rejected():
    with pytest.raises(TopologyError, match="cycle: b -> c -> b|cycle: c -> b -> c"):
        JobGraph(
            (Vertex("a", 1, Role.SOURCE), Vertex("b", 1), Vertex("c", 1)),
            (Edge("a", "b"), Edge("b", "c"), Edge("c", "b")),
        )


def test_parallelism_above_max_parallelism_is_rejected():
    with pytest.raises(TopologyError, match=r"vertices.a.parallelism: 4 exceeds max parallelism 2"):
        JobGraph((Vertex("a", 4, Role.SOURCE, max_parallelism=2),))


def test_max_parallelism_above_flink_bound_is_rejected():
    with pytest.raises(TopologyError, match="32769 exceeds Flink's upper bound 32768"):
        JobGraph((Vertex("a", 1, Role.SOURCE, max_parallelism=32769),))


def test_default_max_parallelism_follows_flink():
    assert Vertex("a", 2).max_p == 128
    assert Vertex("a", 200).max_p == 512
