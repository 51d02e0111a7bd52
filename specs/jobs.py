"""Named job graphs and the TOML job-graph format.

A job file looks like::

    [[vertex]]
    name = "source"
    parallelism = 2
    role = "source"

    [[vertex]]
    name = "sink"
    parallelism = 2
    role = "sink"
    two_phase_commit = true

    [[edge]]
    source = "source"
    target = "sink"
    pattern = "ALL_TO_ALL"      # or POINTWISE
    exchange = "PIPELINED"      # or BLOCKING, HYBRID
"""

from __future__ import annotations

import re

from typing import Any

from ckptcheck.model.topology import Edge, Exchange, JobGraph, Pattern, Role, StateKind, TopologyError, Vertex

from .errors import InputError, read_toml


def sink_v2_pipeline(p: int = 1, global_committer: bool = True, keyed: bool = False, sources: int | None = None,
                     source_state: frozenset = frozenset()) -> JobGraph:
    """source(P) -> Sink V2 writer(P) -forward-> committer(P) [-> global committer(1)], as
    ``SinkTransformationTranslator`` expands a ``Sink`` (``SupportsCommitter``, and
    ``SupportsPostCommitTopology`` with ``StandardSinkTopologies.addGlobalCommitter``).  The
    source (of parallelism ``sources``, by default P) feeds the writer by a forward edge, or
    with ``keyed`` by a keyBy exchange; ``source_state`` is the source's operator state."""
    vertices = [
        Vertex("source", p if sources is None else sources, Role.SOURCE, state=source_state),
        Vertex("writer", p, Role.OPERATOR, sink_v2="writer"),
        Vertex("committer", p, Role.OPERATOR if global_committer else Role.SINK, sink_v2="committer"),
    ]
    edges = [
        Edge("source", "writer", Pattern.ALL_TO_ALL if keyed else Pattern.POINTWISE),
        Edge("writer", "committer", Pattern.POINTWISE),
    ]
    if global_committer:
        vertices.append(Vertex("global-committer", 1, Role.SINK, sink_v2="global-committer"))
        edges.append(Edge("committer", "global-committer", Pattern.ALL_TO_ALL, partitioner="rebalance"))
    return JobGraph(tuple(vertices), tuple(edges))


def null_state_pipeline(sources: int, into_window: Edge, sink_v2: bool = False) -> JobGraph:
    """source(``sources``) -``into_window``-> window(1), recomputable from the last record of each
    split (FLINK-4120, ``model.nullstate``) -forward-> a 2PC sink(1), or a Sink V2 writer(1) and
    its committer(1)."""
    vertices = [Vertex("source", sources, Role.SOURCE), Vertex("window", 1, Role.OPERATOR, window=1)]
    edges = [into_window]
    if sink_v2:
        vertices += [Vertex("writer", 1, Role.OPERATOR, sink_v2="writer"), Vertex("committer", 1, Role.SINK, sink_v2="committer")]
        edges += [Edge("window", "writer", Pattern.POINTWISE), Edge("writer", "committer", Pattern.POINTWISE)]
    else:
        vertices.append(Vertex("sink", 1, Role.SINK, two_phase_commit=True))
        edges.append(Edge("window", "sink", Pattern.POINTWISE))
    return JobGraph(tuple(vertices), tuple(edges))


def keyed_pipeline(p: int = 2) -> JobGraph:
    """source(P) -keyBy-> keyed 2PC sink(P): every record crosses an ALL_TO_ALL keyed exchange.

    One pipelined region; each sink subtask aligns barriers from every source subtask.
    """
    return JobGraph(
        (
            Vertex("source", p, Role.SOURCE),
            Vertex("sink", p, Role.SINK, state=frozenset({StateKind.KEYED}), two_phase_commit=True),
        ),
        (Edge("source", "sink", Pattern.ALL_TO_ALL),),
    )


def forward_pipeline(p: int = 2) -> JobGraph:
    """source(P) -forward-> 2PC sink(P): P independent pipelined regions (embarrassingly parallel)."""
    return JobGraph(
        (
            Vertex("source", p, Role.SOURCE),
            Vertex("sink", p, Role.SINK, two_phase_commit=True),
        ),
        (Edge("source", "sink", Pattern.POINTWISE),),
    )


def pointwise_sides(p: int) -> JobGraph:
    """source(P) -forward()/rescale() (even offsets)-> 2PC sink(1), and -rebalance() (odd
    offsets)-> the same sink: one pointwise and one all-to-all input gate over one upstream
    (the pointwise-UC thread's pattern changes flip the second)."""
    return JobGraph(
        (
            Vertex("source", p, Role.SOURCE),
            Vertex("sink", 1, Role.SINK, two_phase_commit=True),
        ),
        (
            Edge("source", "sink", Pattern.POINTWISE, records="even"),
            Edge("source", "sink", Pattern.ALL_TO_ALL, partitioner="rebalance", records="odd"),
        ),
    )


def pointwise_sides_map() -> JobGraph:
    """source(1) -forward() (even offsets)-> stateless map(1) and -rebalance() (odd offsets)->
    the same map, then map -rebalance()-> 2PC sink(1): rescaling the map rescales all three
    edges, one pointwise, one all-to-all that the pointwise-UC thread's pattern changes flip, and one that
    stays all-to-all."""
    return JobGraph(
        (
            Vertex("source", 1, Role.SOURCE),
            Vertex("map", 1, Role.OPERATOR),
            Vertex("sink", 1, Role.SINK, two_phase_commit=True),
        ),
        (
            Edge("source", "map", Pattern.POINTWISE, records="even"),
            Edge("source", "map", Pattern.ALL_TO_ALL, partitioner="rebalance", records="odd"),
            Edge("map", "sink", Pattern.ALL_TO_ALL, partitioner="rebalance"),
        ),
    )


def keyed_three_stage(p: int = 2, sink_p: int | None = None) -> JobGraph:
    """source(P) -forward-> map(P) -keyBy-> keyed 2PC sink(P, or ``sink_p``)."""
    return JobGraph(
        (
            Vertex("source", p, Role.SOURCE),
            Vertex("map", p, Role.OPERATOR, state=frozenset({StateKind.LIST})),
            Vertex("sink", p if sink_p is None else sink_p, Role.SINK, state=frozenset({StateKind.KEYED}), two_phase_commit=True),
        ),
        (Edge("source", "map", Pattern.POINTWISE), Edge("map", "sink", Pattern.ALL_TO_ALL)),
    )


def enumerator_pipeline(p: int = 2) -> JobGraph:
    """FLIP-27 source(P) with a split enumerator -forward-> 2PC sink(P): P independent regions;
    the enumerator (the source's operator coordinator) assigns the P splits to readers on request."""
    return JobGraph(
        (
            Vertex("source", p, Role.SOURCE, coordinator=True),
            Vertex("sink", p, Role.SINK, two_phase_commit=True),
        ),
        (Edge("source", "sink", Pattern.POINTWISE),),
    )


def pipeline_and_sides(sides: int = 1, coordinator: bool = False) -> JobGraph:
    """source(1) -forward-> 2PC sink(1), with a FLIP-27 split enumerator when ``coordinator``,
    and a separate source side(``sides``): 1 + ``sides`` independent regions."""
    return JobGraph(
        (
            Vertex("source", 1, Role.SOURCE, coordinator=coordinator),
            Vertex("sink", 1, Role.SINK, two_phase_commit=True),
            Vertex("side", sides, Role.SOURCE),
        ),
        (Edge("source", "sink", Pattern.POINTWISE),),
    )


JOBS: dict[str, Any] = {
    "keyed-2x2": (lambda: keyed_pipeline(2), "source(2) -keyBy-> keyed 2PC sink(2); one region"),
    "forward-2x2": (lambda: forward_pipeline(2), "source(2) -forward-> 2PC sink(2); two regions"),
    "keyed-2x1": (
        lambda: JobGraph(
            (
                Vertex("source", 2, Role.SOURCE),
                Vertex("sink", 1, Role.SINK, state=frozenset({StateKind.KEYED}), two_phase_commit=True),
            ),
            (Edge("source", "sink", Pattern.ALL_TO_ALL),),
        ),
        "source(2) -keyBy-> keyed 2PC sink(1); one region: the smallest job where a subtask aligns two channels",
    ),
    "keyed-1x1": (
        lambda: keyed_pipeline(1),
        "source(1) -keyBy-> keyed 2PC sink(1); the smallest keyed job, for rescaling the sink",
    ),
    "custom-map": (
        lambda: JobGraph(
            (
                Vertex("source", 1, Role.SOURCE),
                Vertex("map", 2, Role.OPERATOR),
                Vertex("sink", 2, Role.SINK, two_phase_commit=True),
            ),
            (Edge("source", "map", Pattern.ALL_TO_ALL, partitioner="rebalance"),
             Edge("map", "sink", Pattern.ALL_TO_ALL, partitioner="custom")),
        ),
        "source(1) -rebalance-> stateless map(2) -partitionCustom-> 2PC sink(2): a FULL-mapped edge; rescaling the"
        " map restores its output state to every sink subtask, and the sink's own input state too (FLINK-35351)",
    ),
    "keyed-map": (
        lambda: JobGraph(
            (
                Vertex("source", 1, Role.SOURCE),
                Vertex("map", 1, Role.OPERATOR),
                Vertex("sink", 1, Role.SINK, two_phase_commit=True),
            ),
            (Edge("source", "map", Pattern.ALL_TO_ALL), Edge("map", "sink", Pattern.ALL_TO_ALL, partitioner="rebalance")),
        ),
        "source(1) -keyBy-> stateless map(1) -rebalance-> 2PC sink(1); for rescaling a stateless vertex",
    ),
    "side-outputs": (
        lambda: JobGraph(
            (
                Vertex("source", 1, Role.SOURCE),
                Vertex("sink", 1, Role.SINK, two_phase_commit=True),
            ),
            (
                Edge("source", "sink", Pattern.ALL_TO_ALL, partitioner="rebalance", records="even"),
                Edge("source", "sink", Pattern.ALL_TO_ALL, partitioner="hash", records="odd"),
            ),
        ),
        "source(1) -rebalance (even offsets)-> 2PC sink(1) and -keyBy (odd offsets)-> the same sink:"
        " two input gates reading one upstream vertex",
    ),
    "pointwise-2x1": (
        lambda: JobGraph(
            (
                Vertex("source", 2, Role.SOURCE),
                Vertex("sink", 1, Role.SINK, two_phase_commit=True),
            ),
            (Edge("source", "sink", Pattern.POINTWISE),),
        ),
        "source(2) -rescale()-> 2PC sink(1); one region: a pointwise edge whose consumer has two producers",
    ),
    "pointwise-sides-1x1": (
        lambda: pointwise_sides(1),
        "source(1) -forward() (even offsets)-> 2PC sink(1) and -rebalance() (odd offsets)-> the same sink: the smallest"
        " job with a pointwise and an all-to-all input gate",
    ),
    "pointwise-sides-2x1": (
        lambda: pointwise_sides(2),
        "source(2) -rescale() (even offsets)-> 2PC sink(1) and -rebalance() (odd offsets)-> the same sink: a pointwise"
        " and an all-to-all input gate",
    ),
    "pointwise-fan-in-and-side": (
        lambda: JobGraph(
            (
                Vertex("source", 2, Role.SOURCE),
                Vertex("sink", 1, Role.SINK, two_phase_commit=True),
                Vertex("side", 1, Role.SINK, two_phase_commit=True),
            ),
            (
                Edge("source", "sink", Pattern.POINTWISE, records="even"),
                Edge("source", "side", Pattern.ALL_TO_ALL, partitioner="rebalance", records="odd"),
            ),
        ),
        "source(2) -rescale() (even offsets)-> 2PC sink(1) and -rebalance() (odd offsets)-> 2PC side(1): rescaling the"
        " side leaves the pointwise edge as it was inside a task whose other partition changed",
    ),
    "pointwise-sides-map": (
        pointwise_sides_map,
        "source(1) -forward() (even offsets)-> map(1) and -rebalance() (odd offsets)-> the same map -rebalance()-> 2PC"
        " sink(1): a rescale of the map crosses a pointwise, an all-to-all and a second all-to-all edge",
    ),
    "rebalance-2x3": (
        lambda: JobGraph(
            (Vertex("source", 2, Role.SOURCE), Vertex("sink", 3, Role.SINK, two_phase_commit=True)),
            (Edge("source", "sink", Pattern.ALL_TO_ALL, partitioner="rebalance"),),
        ),
        "source(2) -rebalance()-> 2PC sink(3); one region: rescaled to a sink of 2 with the edge turned pointwise, the"
        " smallest restore where reading the new pattern for the old loses a buffer",
    ),
    "three-stage": (lambda: keyed_three_stage(2), "source(2) -forward-> map(2) -keyBy-> keyed 2PC sink(2)"),
    "three-stage-2x2x1": (
        lambda: keyed_three_stage(2, sink_p=1),
        "source(2) -forward-> map(2) -keyBy-> keyed 2PC sink(1): rescaling the map to 1 merges two pointwise channels",
    ),
    "end-of-stream-partition": (
        lambda: JobGraph(
            (
                Vertex("source", 1, Role.SOURCE),
                Vertex("partition", 1, Role.OPERATOR),
                Vertex("sink", 1, Role.SINK, two_phase_commit=True),
            ),
            (Edge("source", "partition", Pattern.POINTWISE),
             Edge("partition", "sink", Pattern.ALL_TO_ALL, Exchange.BLOCKING, partitioner="rebalance")),
        ),
        "source(1) -forward-> partition(1) =BLOCKING rebalance()=> 2PC sink(1): an operator that outputs only after end"
        " of input (fullWindowPartition().mapPartition(), FLINK-34371) makes its output edge BLOCKING in a streaming job",
    ),
    "sources-2": (
        lambda: JobGraph((Vertex("source", 2, Role.SOURCE),)),
        "source(2) alone: two regions of one subtask, for checkpoint bookkeeping (refs, retention, files)",
    ),
    "pipeline-and-side": (
        lambda: pipeline_and_sides(),
        "source(1) -forward-> 2PC sink(1), and a separate source side(1): two regions, the smallest with a sink",
    ),
    "keyed-pipeline-and-side": (
        lambda: JobGraph(
            (
                Vertex("source", 1, Role.SOURCE),
                Vertex("sink", 2, Role.SINK, state=frozenset({StateKind.KEYED}), two_phase_commit=True),
                Vertex("side", 1, Role.SOURCE),
            ),
            (Edge("source", "sink", Pattern.ALL_TO_ALL),),
        ),
        "source(1) -keyBy-> keyed 2PC sink(2), and a separate source side(1): two regions, the smallest where "
        "a keyed sink scales down next to a side region",
    ),
    "enumerator-and-side": (
        lambda: pipeline_and_sides(coordinator=True),
        "FLIP-27 source(1) with a split enumerator -forward-> 2PC sink(1), and a separate source side(1): two regions",
    ),
    "sources-4": (
        lambda: JobGraph((Vertex("source", 4, Role.SOURCE),)),
        "source(4) alone: four regions of one subtask, so that one failed region stays within FLIP-600's"
        " default failure ratio of 0.3",
    ),
    "epoch-sources-4": (
        lambda: JobGraph((Vertex("source", 4, Role.SOURCE, state=frozenset({StateKind.UNION, StateKind.EPOCH})),)),
        "source(4) alone, four regions, whose union list state holds the id of the checkpoint each subtask last"
        " snapshotted (an epoch the subtasks agree on)",
    ),
    "union-sources-2": (
        lambda: JobGraph((Vertex("source", 2, Role.SOURCE, state=frozenset({StateKind.UNION})),)),
        "source(2) alone, two regions, with union list state: the smallest job where a regional checkpoint can hold a"
        " union vertex partly finished",
    ),
    "union-sources-4": (
        lambda: JobGraph((Vertex("source", 4, Role.SOURCE, state=frozenset({StateKind.UNION})),)),
        "source(4) alone, four regions, with union list state: FLIP-147 forbids it partly finished in a checkpoint",
    ),
    "pipeline-and-3-sides": (
        lambda: pipeline_and_sides(sides=3),
        "source(1) -forward-> 2PC sink(1), and a separate source side(3): four regions, the smallest with a sink"
        " in which one failed region stays within the failure ratio 0.3",
    ),
    "enumerator-2-and-sides": (
        lambda: JobGraph((Vertex("source", 2, Role.SOURCE, coordinator=True), Vertex("side", 2, Role.SOURCE))),
        "FLIP-27 source(2) with a split enumerator, and a separate source side(2): four regions of one subtask, two"
        " readers that can take each other's splits",
    ),
    "union-2x2": (
        lambda: JobGraph(
            (Vertex("source", 2, Role.SOURCE), Vertex("sink", 2, Role.SINK, state=frozenset({StateKind.UNION}), two_phase_commit=True)),
            (Edge("source", "sink", Pattern.POINTWISE),),
        ),
        "source(2) -forward-> 2PC sink(2) with union list state: the pipelines end at their own pace, and FLIP-147"
        " does not let a union-state vertex finish partly",
    ),
    "union-epoch-2x2": (
        lambda: JobGraph(
            (Vertex("source", 2, Role.SOURCE),
             Vertex("sink", 2, Role.SINK, state=frozenset({StateKind.UNION, StateKind.EPOCH}), two_phase_commit=True)),
            (Edge("source", "sink", Pattern.POINTWISE),),
        ),
        "source(2) -forward-> 2PC sink(2) whose union list state holds the id of the checkpoint each subtask last"
        " snapshotted (an epoch the subtasks agree on): state that does not follow from the records consumed",
    ),
    "sink-v2": (
        lambda: sink_v2_pipeline(1, global_committer=False),
        "source(1) -forward-> Sink V2 writer(1) -forward-> committer(1): the committer commits on notifyCheckpointComplete",
    ),
    "sink-v2-global": (
        lambda: sink_v2_pipeline(1),
        "source(1) -forward-> Sink V2 writer(1) -forward-> committer(1) -> global committer(1): the committer emits"
        " what it committed to the global committer, which commits on input",
    ),
    "sink-v2-2x2": (
        lambda: sink_v2_pipeline(2),
        "source(2) -forward-> Sink V2 writer(2) -forward-> committer(2) -> global committer(1): two pipelines that"
        " finish at their own pace into one global committer",
    ),
    "union-sink-v2-2x2": (
        lambda: sink_v2_pipeline(2, global_committer=False, source_state=frozenset({StateKind.UNION})),
        "source(2) with union list state (a legacy source's offsets) -forward-> Sink V2 writer(2) -forward->"
        " committer(2): two pipelines that finish at their own pace, where FLIP-147 lets the writer and committer"
        " finish partly but not the union-state source",
    ),
    "sink-v2-keyed-2x1": (
        lambda: sink_v2_pipeline(1, keyed=True, sources=2),
        "source(2) -keyBy-> Sink V2 writer(1) -forward-> committer(1) -> global committer(1): the sources finish at"
        " their own pace (FLIP-147's default job)",
    ),
    "null-state": (
        lambda: null_state_pipeline(2, Edge("source", "window", Pattern.ALL_TO_ALL)),
        "source(2) -keyBy-> window(1) keeping the last record of each split (recomputable) -forward-> 2PC sink(1):"
        " FLINK-4120's null-state recovery, a watermark per split",
    ),
    "null-state-1x1": (
        lambda: null_state_pipeline(1, Edge("source", "window", Pattern.POINTWISE)),
        "source(1) -forward-> window(1) keeping the last record (recomputable) -forward-> 2PC sink(1): the smallest"
        " job for FLINK-4120's null-state recovery",
    ),
    "null-state-rebalance": (
        lambda: null_state_pipeline(1, Edge("source", "window", Pattern.ALL_TO_ALL, partitioner="rebalance")),
        "source(1) -rebalance-> window(1) keeping the last record -forward-> 2PC sink(1): null-state recovery where an"
        " unaligned barrier overtakes records on their way to the window and the sink",
    ),
    "null-state-sink-v2": (
        lambda: null_state_pipeline(1, Edge("source", "window", Pattern.POINTWISE), sink_v2=True),
        "source(1) -forward-> window(1) keeping the last record -forward-> Sink V2 writer(1) -> committer(1):"
        " FLINK-4120's null-state recovery with a Sink V2 sink, whose writer discards until the re-inserted barrier",
    ),
    "enumerator-2x2": (
        lambda: enumerator_pipeline(2),
        "FLIP-27 source(2) with a split enumerator -forward-> 2PC sink(2); two regions",
    ),
}


def job_by_name(name: str) -> JobGraph:
    return JOBS[name][0]()


_VERTEX_FIELDS = {"name", "parallelism", "max_parallelism", "role", "state", "two_phase_commit", "coordinator", "sink_v2", "window"}
_EDGE_FIELDS = {"source", "target", "pattern", "exchange", "partitioner", "records"}


def _enum(cls, value: Any, where: str, path: str):
    try:
        return cls(value)
    except ValueError:
        raise InputError(path, where, f"expected one of {', '.join(repr(m.value) for m in cls)}, got {value!r}") from None


def _fields(raw: Any, where: str, path: str, allowed: set[str], required: tuple[str, ...]) -> dict:
    """A table with only ``allowed`` fields and every ``required`` one."""
    if not isinstance(raw, dict):
        raise InputError(path, where, "expected a table")
    extra = set(raw) - allowed
    if extra:
        raise InputError(path, f"{where}.{sorted(extra)[0]}", f"unknown field (known: {', '.join(sorted(allowed))})")
    for req in required:
        if req not in raw:
            raise InputError(path, f"{where}.{req}", "missing")
    return raw


def _typed(value: Any, typ: type, where: str, path: str, what: str):
    if typ is int and (not isinstance(value, int) or isinstance(value, bool)):
        raise InputError(path, where, f"expected {what}, got {value!r}")
    if typ is bool and not isinstance(value, bool):
        raise InputError(path, where, f"expected true or false, got {value!r}")
    if typ is str and not isinstance(value, str):
        raise InputError(path, where, f"expected {what}, got {value!r}")
    return value


def job_from_dict(data: dict, path: str) -> JobGraph:
    """Build a job graph from parsed TOML/JSON; every mistake is an :class:`InputError`."""
    if not isinstance(data, dict):
        raise InputError(path, "job", "expected a table with [[vertex]] and [[edge]] entries")
    unknown = set(data) - {"vertex", "edge", "vertices", "edges"}
    if unknown:
        raise InputError(path, sorted(unknown)[0], "unknown field (expected [[vertex]] and [[edge]])")
    raw_vs = data.get("vertex", data.get("vertices"))
    raw_es = data.get("edge", data.get("edges", []))
    if not isinstance(raw_vs, list) or not raw_vs:
        raise InputError(path, "vertex", "expected at least one [[vertex]] table")
    if not isinstance(raw_es, list):
        raise InputError(path, "edge", "expected a list of [[edge]] tables")
    vertices = []
    for k, rv in enumerate(raw_vs):
        where = f"vertex[{k}]"
        _fields(rv, where, path, _VERTEX_FIELDS, ("name", "parallelism", "role"))
        name = _typed(rv["name"], str, f"{where}.name", path, "a string")
        p = _typed(rv["parallelism"], int, f"{where}.parallelism", path, "an integer >= 1")
        maxp = rv.get("max_parallelism")
        if maxp is not None:
            _typed(maxp, int, f"{where}.max_parallelism", path, "an integer in 1..32768")
        state = rv.get("state", [])
        if not isinstance(state, list):
            raise InputError(path, f"{where}.state", "expected a list such as [\"keyed\"]")
        vertices.append(
            Vertex(
                name=name,
                parallelism=p,
                role=_enum(Role, rv["role"], f"{where}.role", path),
                max_parallelism=maxp,
                state=frozenset(_enum(StateKind, s, f"{where}.state", path) for s in state),
                two_phase_commit=_typed(rv.get("two_phase_commit", False), bool, f"{where}.two_phase_commit", path, ""),
                coordinator=_typed(rv.get("coordinator", False), bool, f"{where}.coordinator", path, ""),
                sink_v2=_typed(rv.get("sink_v2", ""), str, f"{where}.sink_v2", path, "'writer', 'committer' or 'global-committer'"),
                window=_typed(rv.get("window", 0), int, f"{where}.window", path, "an integer >= 0"),
            )
        )
    edges = []
    for k, re_ in enumerate(raw_es):
        where = f"edge[{k}]"
        _fields(re_, where, path, _EDGE_FIELDS, ("source", "target"))
        edges.append(
            Edge(
                source=_typed(re_["source"], str, f"{where}.source", path, "a vertex name"),
                target=_typed(re_["target"], str, f"{where}.target", path, "a vertex name"),
                pattern=_enum(Pattern, re_.get("pattern", "ALL_TO_ALL"), f"{where}.pattern", path),
                exchange=_enum(Exchange, re_.get("exchange", "PIPELINED"), f"{where}.exchange", path),
                partitioner=_typed(re_.get("partitioner", "hash"), str, f"{where}.partitioner", path, "'hash', 'rebalance' or 'custom'"),
                records=_typed(re_.get("records", "all"), str, f"{where}.records", path, "'all', 'even' or 'odd'"),
            )
        )
    try:
        job = JobGraph(tuple(vertices), tuple(edges))
    except TopologyError as e:
        field, which = _as_in_file(e.field, [v.name for v in vertices])
        raise InputError(path, field, e.detail + (f" (vertex {which!r})" if which else "")) from None
    _check_size(job, path)
    return job


def _as_in_file(field: str, names: list[str]) -> tuple[str, str]:
    """A job graph's field (``vertices.NAME.parallelism``) as a job file names it (``vertex[K].parallelism``,
    K the [[vertex]] entry's index), so that every error of one file speaks of it one way; and the
    vertex's name ("" for a field of no vertex)."""
    m = re.match(r"vertices\.([^.]+)(.*)$", field)
    if m and m.group(1) in names:
        return f"vertex[{names.index(m.group(1))}]{m.group(2)}", m.group(1)
    return field, ""


MAX_SUBTASKS = 256
MAX_CHANNELS = 4096


def _check_size(job: JobGraph, path: str) -> None:
    """Refuse a job too large for the model before anything is built: a state holds every
    channel, and an ALL_TO_ALL edge of P x P subtasks has P * P of them."""
    subtasks = sum(v.parallelism for v in job.vertices)
    channels = 0
    for e in job.edges:
        s, t = job.vertex(e.source).parallelism, job.vertex(e.target).parallelism
        channels += s * t if e.pattern is Pattern.ALL_TO_ALL else max(s, t)
    if subtasks > MAX_SUBTASKS or channels > MAX_CHANNELS:
        raise InputError(
            path, "vertex", f"{subtasks} subtasks and {channels} channels: the model takes at most {MAX_SUBTASKS}"
            f" subtasks and {MAX_CHANNELS} channels (exhaustive search wants 2-3 subtasks per vertex)",
        )


def load_job(spec: str) -> tuple[str, JobGraph]:
    """A job by preset name or TOML file path -> (name, graph)."""
    if spec in JOBS:
        return spec, job_by_name(spec)
    stem, data = read_toml(spec, "job", f"a preset ({', '.join(JOBS)}) or a TOML job file", JOBS)
    return stem, job_from_dict(data, spec)
