"""``ckptcheck conform`` families: POINTWISE and ALL_TO_ALL wiring
(``VertexInputInfoComputationUtils``) and pipelined regions
(``SchedulingPipelinedRegionComputeUtil``)."""

from __future__ import annotations

import random
from functools import lru_cache

import networkx as nx

from ckptcheck.model.topology import Edge, Exchange, JobGraph, Pattern, Role, Vertex
from .op import Family, Op

# -- wiring -------------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def _expanded(s: int, t: int, pattern: str):
    job = JobGraph((Vertex("up", s, Role.SOURCE), Vertex("down", t, Role.SINK)),
                   (Edge("up", "down", Pattern(pattern)),))
    return job.expand()


def _m_wiring(pattern: str):
    def model(a):
        x = _expanded(a[0], a[1], pattern)
        out = [[] for _ in range(a[1])]
        for c in x.channels:
            out[x.index_of[c.consumer]].append([x.index_of[c.producer], c.output_index])
        return [sorted(pairs) for pairs in out]
    return model


def _norm_wiring(answer):
    """Flink's consumed subpartition groups (partition range -> subpartition range) as the
    (partition, subpartition) pairs each consumer reads."""
    return [sorted([p, sp] for p0, p1, s0, s1 in groups for p in range(p0, p1 + 1) for sp in range(s0, s1 + 1))
            for groups in answer]


WIRING = Family(
    "wiring", "Wiring",
    "which partitions and subpartitions each consumer reads on POINTWISE and ALL_TO_ALL edges of a static graph",
    (
        Op("pointwise", "VertexInputInfoComputationUtils.computeVertexInputInfoForPointwise", "topology.Expanded (pointwise_inputs, output_index)",
           _m_wiring("POINTWISE"), lambda: ([s, t] for s in range(1, 41) for t in range(1, 41)),
           lambda r: [r.randint(1, 128), r.randint(1, 128)], flink_norm=_norm_wiring),
        Op("all_to_all", "VertexInputInfoComputationUtils.computeVertexInputInfoForAllToAll", "topology.Expanded (output_index)",
           _m_wiring("ALL_TO_ALL"), lambda: ([s, t] for s in range(1, 13) for t in range(1, 13)),
           lambda r: [r.randint(1, 24), r.randint(1, 24)], flink_norm=_norm_wiring, weight=0.5),
    ),
    weight=0.1,
)



# -- pipelined regions -------------------------------------------------------------------------

def _rand_job(r: random.Random) -> list:
    """A random job graph as data: [[parallelism, ...], [[src, dst, pattern, exchange, records], ...]]."""
    n = r.randint(2, 5)
    ps = [r.randint(1, 3) for _ in range(n)]
    edges = []
    for v in range(1, n):
        for u in r.sample(range(v), r.randint(1, min(v, 2))):
            edges.append([u, v, r.choice(("ALL_TO_ALL", "POINTWISE")), r.choice(("PIPELINED", "BLOCKING", "HYBRID")), "all"])
    if r.random() < 0.4:  # a side output next to an edge: two edges between one pair of vertices
        e = r.choice(edges)
        e[4] = "even"
        edges.append([e[0], e[1], r.choice(("ALL_TO_ALL", "POINTWISE")), r.choice(("PIPELINED", "BLOCKING", "HYBRID")), "odd"])
    return [ps, edges]


def _job(a) -> JobGraph:
    ps, edges = a
    has_in = {e[1] for e in edges}
    has_out = {e[0] for e in edges}
    vs = tuple(Vertex(f"v{k}", p, Role.SOURCE if k not in has_in else Role.SINK if k not in has_out else Role.OPERATOR)
               for k, p in enumerate(ps))
    es = tuple(Edge(f"v{u}", f"v{v}", Pattern(pat), Exchange(ex), records=rec) for u, v, pat, ex, rec in edges)
    return JobGraph(vs, es)


def _flink_graph(a) -> list:
    """The execution graph the model wires, as the Java side takes it: subtasks in topological
    order, one partition per (producer subtask, edge) with its consumers, and each subtask's
    consumed partition group per input edge."""
    x = _job(a).expand()
    order = list(nx.topological_sort(_job(a).graph))
    vidx = {v.name: k for k, v in enumerate(x.job.vertices)}
    tasks = [t for name in order for t in x.tasks_of[vidx[name]]]
    pos = {t: i for i, t in enumerate(tasks)}
    parts: dict[tuple[int, int], list] = {}
    groups: dict[tuple[int, int], list[int]] = {}
    for c in x.channels:
        key = (c.producer, c.edge)
        if key not in parts:
            parts[key] = [c.edge, pos[c.producer], x.job.edges[c.edge].exchange.value, []]
        parts[key][3].append(pos[c.consumer])
    keys = sorted(parts, key=lambda k: (pos[k[0]], k[1]))
    index = {k: i for i, k in enumerate(keys)}
    for c in sorted(x.channels, key=lambda c: c.id):
        groups.setdefault((pos[c.consumer], c.edge), [])
        if index[(c.producer, c.edge)] not in groups[(pos[c.consumer], c.edge)]:
            groups[(pos[c.consumer], c.edge)].append(index[(c.producer, c.edge)])
    return [[[x.vertex_of[t], x.index_of[t]] for t in tasks], [parts[k] for k in keys],
            [[t, g] for (t, _), g in sorted(groups.items())]], [pos[t] for t in range(len(tasks))]


def _m_regions(a):
    x = _job(a).expand()
    _, pos = _flink_graph(a)
    return sorted(sorted(pos[t] for t in region) for region in x.regions)


REGIONS = Family(
    "pipelined-regions", "Regions",
    "the pipelined regions of jobs with PIPELINED, BLOCKING and HYBRID edges",
    (
        Op("regions", "SchedulingPipelinedRegionComputeUtil.computePipelinedRegions", "topology.Expanded.regions",
           _m_regions, lambda: (), _rand_job, flink_args=lambda a: _flink_graph(a)[0]),
    ),
    weight=0.1,
)


