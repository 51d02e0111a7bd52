"""The job graph and its expansion into subtasks, channels and pipelined regions.

What a job graph is and how it is wired are on :class:`JobGraph` and :meth:`JobGraph.expand`;
how the pipelined regions are computed, and how that is checked, is on ``_scheduling_regions``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property

import networkx as nx  # type: ignore[import-untyped]

from .redistribution import UPPER_BOUND_MAX_PARALLELISM, default_max_parallelism, pointwise_inputs


class Role(str, Enum):
    SOURCE = "source"
    OPERATOR = "operator"
    SINK = "sink"


SINK_V2_PARTS = ("", "writer", "committer", "global-committer")


class Pattern(str, Enum):
    ALL_TO_ALL = "ALL_TO_ALL"
    POINTWISE = "POINTWISE"


class Exchange(str, Enum):
    PIPELINED = "PIPELINED"
    BLOCKING = "BLOCKING"
    HYBRID = "HYBRID"


class StateKind(str, Enum):
    KEYED = "keyed"  # keyed state, partitioned by key group
    LIST = "list"  # operator list state, even-split redistribution
    UNION = "union"  # operator union list state
    # union list state whose entry per subtask is the id of the checkpoint it last snapshotted
    # (bumped in snapshotState, as an epoch an operator agrees on across subtasks): its value does
    # not follow from the records consumed (Roman, dev@ 3 Jul 2026; row B18).  Needs UNION.
    EPOCH = "epoch"


class TopologyError(ValueError):
    """A job graph that Flink would reject; ``field`` names the offending part."""

    def __init__(self, field_name: str, message: str):
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.detail = message


@dataclass(frozen=True)
class Vertex:
    name: str
    parallelism: int
    role: Role = Role.OPERATOR
    max_parallelism: int | None = None  # None: Flink's default for the parallelism
    state: frozenset[StateKind] = frozenset()
    two_phase_commit: bool = False  # sinks: TwoPhaseCommitSinkFunction-style transactions
    coordinator: bool = False  # has an operator coordinator (e.g. a split enumerator)
    # Sink V2 (``model.sinkv2``): "writer" (SinkWriterOperator), "committer" (CommitterOperator)
    # or "global-committer" (GlobalCommitterOperator); "" for any other vertex
    sink_v2: str = ""
    # FLINK-4120 (``model.nullstate``): an operator whose state is recomputable from the last
    # ``window`` records of each split it read (a sliding count window); 0: not recomputable
    window: int = 0

    @cached_property
    def max_p(self) -> int:
        if self.max_parallelism is not None:
            return self.max_parallelism
        return default_max_parallelism(self.parallelism)


PARTITIONERS = ("hash", "rebalance", "custom")


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    pattern: Pattern = Pattern.ALL_TO_ALL
    exchange: Exchange = Exchange.PIPELINED
    # ALL_TO_ALL routing: "hash" (keyBy, KeyGroupStreamPartitioner), "rebalance", or "custom"
    # (partitionCustom, CustomPartitionerWrapper: a user function of the record, here its key
    # modulo the number of channels; state mappers ARBITRARY upstream and FULL downstream).
    # POINTWISE edges always route round-robin over their own channels (forward/rescale).
    partitioner: str = "hash"
    # which records the edge carries: "all", or a side output (OutputTag) carrying only the
    # records of "even" or "odd" offset; two edges may join the same vertices only as side
    # outputs with disjoint records (two input gates of one consumer reading one upstream)
    records: str = "all"

    def carries(self, offset: int) -> bool:
        """Does the edge carry the record at ``offset``?  Abstraction: a side output here is
        chosen by the offset's parity; an operator's own choice of side output per record,
        which could depend on its state, is not modelled."""
        return self.records == "all" or (offset % 2 == 0) == (self.records == "even")


def edge_name(e: Edge) -> str:
    """``source->target``, with ``/even`` or ``/odd`` for a side output (two edges may join
    one pair of vertices)."""
    return f"{e.source}->{e.target}" + ("" if e.records == "all" else f"/{e.records}")


@dataclass(frozen=True)
class Channel:
    """One FIFO input channel: ``producer`` subtask -> ``consumer`` subtask over ``edge``."""

    id: int
    edge: int
    producer: int
    consumer: int
    input_index: int  # position among the consumer's input channels
    output_index: int  # the producer subpartition (RecordWriter channel) this channel reads


@dataclass(frozen=True)
class JobGraph:
    """What a Flink user builds: vertices with parallelism, edges with a distribution pattern and
    an exchange type."""

    vertices: tuple[Vertex, ...]
    edges: tuple[Edge, ...] = ()

    def __post_init__(self) -> None:
        self.validate()

    # -- validation -------------------------------------------------------------------------
    def validate(self) -> None:
        if not self.vertices:
            raise TopologyError("vertices", "a job graph needs at least one vertex")
        names: set[str] = set()
        for v in self.vertices:
            where = f"vertices.{v.name}"
            if not v.name or not isinstance(v.name, str):
                raise TopologyError("vertices", "every vertex needs a non-empty name")
            if v.name in names:
                raise TopologyError(where, "vertex name is used twice")
            names.add(v.name)
            if not isinstance(v.parallelism, int) or v.parallelism < 1:
                raise TopologyError(f"{where}.parallelism", f"must be an integer >= 1, got {v.parallelism!r}")
            if v.max_parallelism is not None:
                if not isinstance(v.max_parallelism, int) or v.max_parallelism < 1:
                    raise TopologyError(f"{where}.max_parallelism", f"must be an integer >= 1, got {v.max_parallelism!r}")
                if v.max_parallelism > UPPER_BOUND_MAX_PARALLELISM:
                    raise TopologyError(
                        f"{where}.max_parallelism",
                        f"{v.max_parallelism} exceeds Flink's upper bound {UPPER_BOUND_MAX_PARALLELISM}",
                    )
            if v.parallelism > v.max_p:
                raise TopologyError(f"{where}.parallelism", f"{v.parallelism} exceeds max parallelism {v.max_p}")
            if v.two_phase_commit and v.role is not Role.SINK:
                raise TopologyError(f"{where}.two_phase_commit", "only sinks commit transactions")
            if StateKind.EPOCH in v.state and StateKind.UNION not in v.state:
                raise TopologyError(f"{where}.state", "epoch state is kept in union list state: list 'union' too")
            if not isinstance(v.window, int) or isinstance(v.window, bool) or v.window < 0:
                raise TopologyError(f"{where}.window", f"must be an integer >= 0, got {v.window!r}")
            if v.window and (v.role is not Role.OPERATOR or v.sink_v2 or v.state):
                raise TopologyError(f"{where}.window", "only an operator without declared state or Sink V2 part keeps a recomputable window")
            if v.sink_v2 not in SINK_V2_PARTS:
                raise TopologyError(f"{where}.sink_v2", f"expected one of {', '.join(map(repr, SINK_V2_PARTS))}, got {v.sink_v2!r}")
            if v.sink_v2 and (v.two_phase_commit or v.state or v.coordinator):
                raise TopologyError(f"{where}.sink_v2", "a Sink V2 operator has no 2PC transactions, declared state or coordinator of its own")
        pairs: dict[tuple[str, str], set[str]] = {}
        for k, e in enumerate(self.edges):
            where = f"edges[{k}]"
            for end in (e.source, e.target):
                if end not in names:
                    raise TopologyError(where, f"unknown vertex {end!r}")
            if e.records not in ("all", "even", "odd"):
                raise TopologyError(f"{where}.records", f"expected 'all', 'even' or 'odd', got {e.records!r}")
            seen = pairs.setdefault((e.source, e.target), set())
            if seen and ("all" in seen or e.records == "all" or e.records in seen):
                raise TopologyError(where, f"a second edge {e.source} -> {e.target} carrying the same records"
                                           " (two edges between one pair of vertices must be side outputs: records 'even' and 'odd')")
            seen.add(e.records)
            if e.pattern is Pattern.ALL_TO_ALL and e.partitioner not in PARTITIONERS:
                raise TopologyError(f"{where}.partitioner", f"expected 'hash', 'rebalance' or 'custom', got {e.partitioner!r}")
        g = self.graph
        if not nx.is_directed_acyclic_graph(g):
            cycle = nx.find_cycle(g)
            path = " -> ".join([a for a, _ in cycle] + [cycle[0][0]])
            raise TopologyError("edges", f"the job graph has a cycle: {path}")
        for v in self.vertices:
            ins = g.in_degree(v.name)
            outs = g.out_degree(v.name)
            if v.role is Role.SOURCE and ins:
                raise TopologyError(f"vertices.{v.name}.role", "a source cannot have inputs")
            if v.role is not Role.SOURCE and not ins:
                raise TopologyError(f"vertices.{v.name}.role", "only a source may have no inputs")
            if v.role is Role.SINK and outs:
                raise TopologyError(f"vertices.{v.name}.role", "a sink cannot have outputs")
            if v.role is Role.OPERATOR and not outs:
                raise TopologyError(f"vertices.{v.name}.role", "an operator needs an output: its records would go nowhere (make it a sink)")
        self._validate_sink_v2()

    def _validate_sink_v2(self) -> None:
        """A Sink V2 sink is a writer feeding a committer by a forward edge, and optionally a
        committer feeding a global committer of parallelism 1 (``SinkTransformationTranslator``,
        ``StandardSinkTopologies.addGlobalCommitter``)."""
        by_name = {v.name: v for v in self.vertices}
        expect = {"writer": ("committer",), "committer": ("global-committer",), "global-committer": ()}
        feeds = {"committer": "writer", "global-committer": "committer"}
        for v in self.vertices:
            if not v.sink_v2:
                continue
            where = f"vertices.{v.name}.sink_v2"
            outs = [e for e in self.edges if e.source == v.name]
            ins = [e for e in self.edges if e.target == v.name]
            if v.sink_v2 == "writer" and (len(outs) != 1 or by_name[outs[0].target].sink_v2 != "committer"):
                raise TopologyError(where, "a writer has exactly one output, to its committer")
            for e in outs:
                if by_name[e.target].sink_v2 not in expect[v.sink_v2]:
                    raise TopologyError(where, f"a {v.sink_v2} feeds only {' or '.join(expect[v.sink_v2]) or 'nothing'}, not {e.target!r}")
            if v.sink_v2 in feeds and any(by_name[e.source].sink_v2 != feeds[v.sink_v2] for e in ins):
                raise TopologyError(where, f"a {v.sink_v2} reads only from a {feeds[v.sink_v2]}")
            if v.sink_v2 == "committer" and any(
                    e.pattern is not Pattern.POINTWISE or by_name[e.source].parallelism != v.parallelism for e in ins):
                raise TopologyError(where, "a committer reads its writer by a forward edge: POINTWISE, at the writer's parallelism")
            if v.sink_v2 == "global-committer" and v.parallelism != 1:
                raise TopologyError(f"vertices.{v.name}.parallelism", "a global committer runs at parallelism 1")

    @cached_property
    def graph(self) -> nx.DiGraph:
        g = nx.DiGraph()
        g.add_nodes_from(v.name for v in self.vertices)
        g.add_edges_from((e.source, e.target) for e in self.edges)
        return g

    def vertex(self, name: str) -> Vertex:
        for v in self.vertices:
            if v.name == name:
                return v
        raise KeyError(name)

    def rescaled(self, parallelism: dict[str, int]) -> "JobGraph":
        """This job with the named vertices at a new parallelism, each keeping its max
        parallelism (a restore at another max parallelism fails in Flink)."""
        return JobGraph(
            tuple(replace(v, parallelism=parallelism[v.name], max_parallelism=v.max_p) if v.name in parallelism else v
                  for v in self.vertices),
            self.edges,
        )

    def repatterned(self, names: tuple[str, ...]) -> "JobGraph":
        """This job with the named edges' distribution pattern flipped: a POINTWISE edge
        (``forward()``/``rescale()``) becomes ALL_TO_ALL with ``rebalance()``, an ALL_TO_ALL edge
        becomes POINTWISE (the pointwise-UC thread: a job upgraded with another partitioner on the edge)."""
        flip = set(names)

        def flipped(e: Edge) -> Edge:
            if e.pattern is Pattern.POINTWISE:
                return replace(e, pattern=Pattern.ALL_TO_ALL, partitioner="rebalance")
            return replace(e, pattern=Pattern.POINTWISE)

        return JobGraph(self.vertices, tuple(flipped(e) if edge_name(e) in flip else e for e in self.edges))

    def expand(self) -> "Expanded":
        """The execution-level view the protocol runs on: one subtask per (vertex, index) and one
        FIFO channel per (producer subtask, consumer subtask) pair, wired as Flink wires them
        (``EdgeManagerBuildUtil.connectAllToAll`` / ``connectPointwise``; pointwise ranges from
        ``VertexInputInfoComputationUtils``, see :func:`model.redistribution.pointwise_inputs`),
        and its pipelined regions (``_scheduling_regions``)."""
        return Expanded(self)

    def describe(self) -> str:
        parts = [f"{v.name}(P={v.parallelism}{''.join(f', {k.value}' for k in sorted(v.state, key=lambda k: k.value))}"
                 f"{f', window {v.window}' if v.window else ''})" for v in self.vertices]
        # a pointwise edge has no partitioner (the field is ignored there)
        es = [f"{e.source}-{e.pattern.value.lower()}/{e.exchange.value.lower()}->{e.target}"
              + ("" if e.records == "all" else
                 f" ({e.partitioner + ', ' if e.pattern is Pattern.ALL_TO_ALL else ''}{e.records} offsets)")
              for e in self.edges]
        return ", ".join(parts) + ("; " + ", ".join(es) if es else "")

    def to_json(self) -> dict:
        return {
            "vertices": [
                {
                    "name": v.name,
                    "parallelism": v.parallelism,
                    "max_parallelism": v.max_parallelism,
                    "role": v.role.value,
                    "state": sorted(s.value for s in v.state),
                    "two_phase_commit": v.two_phase_commit,
                    "coordinator": v.coordinator,
                    "sink_v2": v.sink_v2,
                    "window": v.window,
                }
                for v in self.vertices
            ],
            "edges": [
                {
                    "source": e.source,
                    "target": e.target,
                    "pattern": e.pattern.value,
                    "exchange": e.exchange.value,
                    "partitioner": e.partitioner,
                    "records": e.records,
                }
                for e in self.edges
            ],
        }


def _scheduling_regions(job: "JobGraph", n: int, vertex_of: list, channels) -> list[frozenset[int]]:
    """The pipelined regions ``DefaultExecutionTopology.computeSchedulingPipelinedRegions`` builds:
    the logical regions first (``LogicalPipelinedRegionComputeUtil``: vertices joined by a
    PIPELINED edge; the job graph is a DAG, so no cycle is merged there), then inside each: all
    its subtasks in one region if an ALL_TO_ALL edge joins two of its vertices
    (``containsIntraRegionAllToAllEdge``, FLINK-17330), else
    ``SchedulingPipelinedRegionComputeUtil.computePipelinedRegions`` on its subtasks: subtasks
    joined by a PIPELINED channel, and regions that the logical region's own BLOCKING or HYBRID
    results join into a cycle merged (``mergeRegionsOnCycles``; a consumer in another logical
    region is skipped).  Sorted by their lowest subtask.

    Computed with networkx as Flink's scheduler computes them (``DefaultExecutionTopology``):
    BLOCKING and HYBRID exchanges split regions (a HYBRID result need not be consumed while it is
    produced).  ``ckptcheck conform`` checks this against a real ``DefaultExecutionGraph``."""
    names = [v.name for v in job.vertices]
    lg = nx.Graph()
    lg.add_nodes_from(names)
    lg.add_edges_from((e.source, e.target) for e in job.edges if e.exchange is Exchange.PIPELINED)
    logical_of = {name: k for k, cc in enumerate(nx.connected_components(lg)) for name in cc}
    inside = [c for c in channels
              if logical_of[names[vertex_of[c.producer]]] == logical_of[names[vertex_of[c.consumer]]]]
    all_to_all = {logical_of[e.source] for e in job.edges
                  if e.pattern is Pattern.ALL_TO_ALL and logical_of[e.source] == logical_of[e.target]}
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((c.producer, c.consumer) for c in inside if job.edges[c.edge].exchange is Exchange.PIPELINED)
    for k in all_to_all:  # the whole logical region, one region
        members = [t for t in range(n) if logical_of[names[vertex_of[t]]] == k]
        g.add_edges_from(zip(members, members[1:]))
    raw = [frozenset(cc) for cc in nx.connected_components(g)]
    raw_of = {t: k for k, cc in enumerate(raw) for t in cc}
    rg = nx.DiGraph()
    rg.add_nodes_from(range(len(raw)))
    rg.add_edges_from(
        (raw_of[c.producer], raw_of[c.consumer]) for c in inside
        if job.edges[c.edge].exchange is not Exchange.PIPELINED and raw_of[c.producer] != raw_of[c.consumer]
    )
    return sorted((frozenset().union(*(raw[k] for k in scc)) for scc in nx.strongly_connected_components(rg)), key=min)


@dataclass(frozen=True, eq=False)
class Expanded:
    """The execution-level view: integer-indexed subtasks and channels, plus regions."""

    job: JobGraph
    names: tuple[str, ...] = field(init=False)
    vertex_of: tuple[int, ...] = field(init=False)  # subtask -> vertex index
    index_of: tuple[int, ...] = field(init=False)  # subtask -> subtask index in its vertex
    tasks_of: tuple[tuple[int, ...], ...] = field(init=False)  # vertex -> subtasks
    channels: tuple[Channel, ...] = field(init=False)
    inputs: tuple[tuple[int, ...], ...] = field(init=False)  # subtask -> input channel ids
    outputs: tuple[tuple[tuple[int, ...], ...], ...] = field(init=False)  # subtask -> per out-edge channel ids
    out_edges: tuple[tuple[int, ...], ...] = field(init=False)  # vertex -> out edge indexes
    regions: tuple[frozenset[int], ...] = field(init=False)
    region_of: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        job = self.job
        vidx = {v.name: k for k, v in enumerate(job.vertices)}
        names: list[str] = []
        vertex_of: list[int] = []
        index_of: list[int] = []
        tasks_of: list[tuple[int, ...]] = []
        for k, v in enumerate(job.vertices):
            ids = []
            for i in range(v.parallelism):
                ids.append(len(names))
                names.append(f"{v.name}[{i}]")
                vertex_of.append(k)
                index_of.append(i)
            tasks_of.append(tuple(ids))
        n = len(names)
        raw: list[tuple[int, int, int]] = []  # (edge, producer, consumer)
        for ek, e in enumerate(job.edges):
            src = job.vertices[vidx[e.source]]
            dst = job.vertices[vidx[e.target]]
            s_tasks = tasks_of[vidx[e.source]]
            t_tasks = tasks_of[vidx[e.target]]
            if e.pattern is Pattern.ALL_TO_ALL:
                for j in range(dst.parallelism):
                    for p in range(src.parallelism):
                        raw.append((ek, s_tasks[p], t_tasks[j]))
            else:
                for j, parts in enumerate(pointwise_inputs(src.parallelism, dst.parallelism)):
                    for p in parts:
                        raw.append((ek, s_tasks[p], t_tasks[j]))
        # Input order: by edge (job order) then producer index; output order: consumer index.
        raw.sort(key=lambda r: (r[2], r[0], r[1]))
        in_count = [0] * n
        out_count: dict[tuple[int, int], int] = {}
        chans: list[Channel] = []
        for cid, (ek, prod, cons) in enumerate(raw):
            chans.append(Channel(cid, ek, prod, cons, in_count[cons], -1))
            in_count[cons] += 1
        # output_index: the subpartition the channel reads, i.e. the producer's RecordWriter
        # channel.  ALL_TO_ALL: the consumer's index.  POINTWISE (computeVertexInputInfoForPointwise):
        # consumer c of a partition with k consumers reads subpartition c % k, which for S < T is
        # not always its rank among them (S=2, T=5: partition 1 feeds consumers 3 and 4, which read
        # subpartitions 1 and 0).
        by_out: dict[tuple[int, int], list[Channel]] = {}
        for c in chans:
            by_out.setdefault((c.producer, c.edge), []).append(c)
        fixed: dict[int, Channel] = {}
        for (prod, ek), cs in by_out.items():
            k = len(cs)
            if job.edges[ek].pattern is Pattern.POINTWISE:
                cs.sort(key=lambda c: index_of[c.consumer] % k)
            else:
                cs.sort(key=lambda c: index_of[c.consumer])
            for pos, c in enumerate(cs):
                fixed[c.id] = Channel(c.id, c.edge, c.producer, c.consumer, c.input_index, pos)
                out_count[(prod, ek)] = pos + 1
        channels = tuple(fixed[c.id] for c in chans)
        inputs = tuple(tuple(c.id for c in channels if c.consumer == t) for t in range(n))
        out_edges = tuple(
            tuple(ek for ek, e in enumerate(job.edges) if e.source == v.name) for v in job.vertices
        )
        outputs = tuple(
            tuple(tuple(c.id for c in by_out.get((t, ek), [])) for ek in out_edges[vertex_of[t]])
            for t in range(n)
        )
        comps = _scheduling_regions(job, n, vertex_of, channels)
        region_of = [0] * n
        for r, comp in enumerate(comps):
            for t in comp:
                region_of[t] = r
        set_ = object.__setattr__
        set_(self, "names", tuple(names))
        set_(self, "vertex_of", tuple(vertex_of))
        set_(self, "index_of", tuple(index_of))
        set_(self, "tasks_of", tuple(tasks_of))
        set_(self, "channels", channels)
        set_(self, "inputs", inputs)
        set_(self, "outputs", outputs)
        set_(self, "out_edges", out_edges)
        set_(self, "regions", tuple(comps))
        set_(self, "region_of", tuple(region_of))

    # -- convenience ----------------------------------------------------------------------
    @property
    def n_tasks(self) -> int:
        return len(self.names)

    def vertex(self, task: int) -> Vertex:
        return self.job.vertices[self.vertex_of[task]]

    def task_id(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(name) from None

    def channel_name(self, cid: int) -> str:
        """``producer->consumer``; where two edges join the same vertices (side outputs), the
        edge's records too: ``source[0]->sink[0] (odd)``."""
        c = self.channels[cid]
        e = self.job.edges[c.edge]
        return f"{self.names[c.producer]}->{self.names[c.consumer]}" + ("" if e.records == "all" else f" ({e.records})")

    def channel_id(self, name: str) -> int:
        for c in self.channels:
            if self.channel_name(c.id) == name:
                return c.id
        raise KeyError(name)

    @cached_property
    def sources(self) -> tuple[int, ...]:
        return tuple(t for t in range(self.n_tasks) if self.vertex(t).role is Role.SOURCE)

    @cached_property
    def split_of(self) -> dict[int, int]:
        """Source subtask -> its split id (splits are numbered across all source subtasks)."""
        return {t: k for k, t in enumerate(self.sources)}

    @cached_property
    def all_pipelined(self) -> bool:
        return all(e.exchange is Exchange.PIPELINED for e in self.job.edges)

    @cached_property
    def blocking_producers(self) -> tuple[frozenset[int], ...]:
        """Per subtask: the producer subtasks of every BLOCKING channel into its pipelined
        region.  Its region is deployed once all of them finished
        (``PipelinedRegionSchedulingStrategy.isDownstreamConsumedPartitionGroupSchedulable``:
        every consumed partition of a BLOCKING group must be ``ALL_DATA_PRODUCED``)."""
        into: dict[int, set[int]] = {}
        for c in self.channels:
            if self.job.edges[c.edge].exchange is Exchange.BLOCKING:
                into.setdefault(self.region_of[c.consumer], set()).add(c.producer)
        return tuple(frozenset(into.get(self.region_of[t], ())) for t in range(self.n_tasks))

    @cached_property
    def blocking_output(self) -> frozenset[int]:
        """The subtasks of vertices with a BLOCKING output (``JobVertex.isAnyOutputBlocking``)."""
        names = {e.source for e in self.job.edges if e.exchange is Exchange.BLOCKING}
        return frozenset(t for t in range(self.n_tasks) if self.vertex(t).name in names)

    @cached_property
    def blocking_channels(self) -> frozenset[int]:
        return frozenset(c.id for c in self.channels if self.job.edges[c.edge].exchange is Exchange.BLOCKING)

    @cached_property
    def downstream_of_record(self) -> tuple[tuple[frozenset[int], ...], tuple[frozenset[int], ...]]:
        """Per parity of a record's offset (0 even, 1 odd), vertex -> the vertices a record of
        that offset reaches from it over edges that carry it (side outputs, ``Edge.carries``)."""
        vidx = {v.name: k for k, v in enumerate(self.job.vertices)}
        out = []
        for parity in (0, 1):
            g = nx.DiGraph()
            g.add_nodes_from(v.name for v in self.job.vertices)
            g.add_edges_from((e.source, e.target) for e in self.job.edges if e.carries(parity))
            out.append(tuple(frozenset(vidx[d] for d in nx.descendants(g, v.name)) for v in self.job.vertices))
        return out[0], out[1]

    @cached_property
    def downstream_vertices(self) -> tuple[frozenset[int], ...]:
        """Vertex -> every vertex reachable from it (itself excluded)."""
        g = self.job.graph
        vidx = {v.name: k for k, v in enumerate(self.job.vertices)}
        return tuple(frozenset(vidx[d] for d in nx.descendants(g, v.name)) for v in self.job.vertices)
