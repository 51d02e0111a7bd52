"""``ckptcheck conform`` families: POINTWISE and ALL_TO_ALL wiring
(``VertexInputInfoComputationUtils``) and pipelined regions as the scheduler computes them (a real
``DefaultExecutionGraph`` and its ``DefaultExecutionTopology``)."""

from __future__ import annotations

import random
from functools import lru_cache

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


def _m_regions(a):
    """The model's pipelined regions of job ``a``, each as its sorted [vertex, subtask index] pairs."""
    x = _job(a).expand()
    vidx = {v.name: k for k, v in enumerate(x.job.vertices)}
    regions = [sorted([vidx[x.job.vertices[x.vertex_of[t]].name], x.index_of[t]] for t in region) for region in x.regions]
    return sorted(regions)


REGIONS = Family(
    "pipelined-regions", "Regions",
    "the pipelined regions of jobs with PIPELINED, BLOCKING and HYBRID edges",
    (
        Op("scheduler-regions", "DefaultExecutionGraphBuilder.buildGraph, DefaultExecutionTopology.getAllPipelinedRegions",
           "topology.Expanded.regions", _m_regions, lambda: (), _rand_job),
    ),
    weight=0.1,
)


