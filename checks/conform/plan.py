"""``ckptcheck conform`` families that need Flink's execution graph (``checks/conform/java/Graphs.java``
builds a ``DefaultExecutionGraph`` from a ``JobGraph`` with production classes only): the
FLIP-147 trigger plan (``DefaultCheckpointPlanCalculator``) with
``DefaultCheckpointPlan.fulfillFinishedTaskStatus``'s checks, and the channel-state assignment
of a restore at new parallelisms (``StateAssignmentOperation.assignStates`` through
``TaskStateAssignment``: input and output channel state per new subtask, the FLINK-35351 rule,
UNSUPPORTED mappers per edge)."""

from __future__ import annotations

import random
from functools import lru_cache
from types import SimpleNamespace

from ckptcheck.model import redistribution as rd
from ckptcheck.model.design import Design
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.scope import Scope
from ckptcheck.model.topology import Edge, JobGraph, Pattern, Role, StateKind, Vertex
from ckptcheck.model.world import FINISHED, RUNNING

from .op import Family, MayThrow, Op, Throws

# -- the trigger plan ------------------------------------------------------------------------------


def _plan_job(ps, edges, union=None) -> JobGraph:
    has_in = {e[1] for e in edges}
    has_out = {e[0] for e in edges}
    vs = tuple(Vertex(f"v{k}", p, Role.SOURCE if k not in has_in else Role.SINK if k not in has_out else Role.OPERATOR,
                      state=frozenset({StateKind.UNION}) if union and union[k] else frozenset())
               for k, p in enumerate(ps))
    return JobGraph(vs, tuple(Edge(f"v{u}", f"v{v}", Pattern(pat)) for u, v, pat in edges))


@lru_cache(maxsize=512)
def _plan_model(key: str, after_finish: bool) -> FlinkModel:
    import json

    ps, edges, union = json.loads(key)
    from ckptcheck.specs.designs import BASELINE

    design: Design = BASELINE.with_(checkpoints_after_tasks_finish=after_finish)
    return FlinkModel(design, Scope(_plan_job(ps, edges, union)))


def _model_of(a, union=None) -> FlinkModel:
    import json

    return _plan_model(json.dumps([a[0], a[1], union]), a[3])


def _tasks(a):
    return tuple(SimpleNamespace(status=FINISHED if s == "FINISHED" else RUNNING, unreported=False) for per in a[2] for s in per)


def _named(m: FlinkModel, ts) -> list[list[int]]:
    return sorted([m.topo.vertex_of[t], m.topo.index_of[t]] for t in ts)


def _m_plan(a):
    """The plan as the model's coordinator computes it (``tasks_to_trigger``); with checkpoints
    after tasks finish off, a finished task refuses the trigger (``trigger_allowed``), which
    Flink's calculator throws as ``CheckpointException``."""
    m = _model_of(a)
    tasks = _tasks(a)
    if not a[3] and any(t.status == FINISHED for t in tasks):
        raise Throws("CheckpointException")
    trigger, waiting, finished = m.checkpoint_plan.tasks_to_trigger(tasks)
    n = len(tasks)
    return {"trigger": _named(m, trigger), "wait": _named(m, [t for t in range(n) if waiting >> t & 1]),
            "finished": _named(m, [t for t in range(n) if finished >> t & 1])}


def _m_fulfill(a):
    """``partly_finished_union_vertex`` on the pending checkpoint of the plan: the acknowledged
    running subtasks, those flagged as having ended their input before their snapshot
    (``final_cp`` at or before the checkpoint)."""
    union, ended = a[4], a[5]
    m = _model_of(a, union)
    tasks = _tasks(a)
    _, waiting, finished = m.checkpoint_plan.tasks_to_trigger(tasks)
    flags = [x for per in ended for x in per]
    acked = tuple((t, SimpleNamespace(finished=False)) for t in range(len(tasks)) if waiting >> t & 1)
    tx = SimpleNamespace(tasks=tuple(SimpleNamespace(final_cp=1 if flags[t] else 0) for t in range(len(tasks))))
    pending = SimpleNamespace(id=1, finished=finished, acked=acked)
    if m.coordinator.partly_finished_union_vertex(tx, pending) is not None:
        raise Throws("PartialFinishingNotSupportedByStateException")
    return "ok"


def _rand_plan_job(r: random.Random) -> tuple[list[int], list[list]]:
    n = r.randint(1, 4)
    ps = [r.randint(1, 3) for _ in range(n)]
    edges = []
    for v in range(1, n):
        for u in r.sample(range(v), r.randint(1, min(v, 2))):
            edges.append([u, v, r.choice(("ALL_TO_ALL", "POINTWISE"))])
    return ps, edges


def _rand_states(r: random.Random, ps) -> list[list[str]]:
    p_fin = r.choice((0.0, 0.3, 0.6))
    return [["FINISHED" if r.random() < p_fin else "RUNNING" for _ in range(p)] for p in ps]


def _rand_plan(r: random.Random) -> list:
    ps, edges = _rand_plan_job(r)
    return [ps, edges, _rand_states(r, ps), r.random() < 0.85]


def _rand_fulfill(r: random.Random) -> list:
    ps, edges, states, after = _rand_plan(r)
    union = [r.random() < 0.5 for _ in ps]
    ended = [[s == "RUNNING" and r.random() < 0.4 for s in per] for per in states]
    return [ps, edges, states, after or any("FINISHED" in per for per in states), union, ended]


def _plan_domain(a) -> str | None:
    if all(s == "FINISHED" for per in a[2] for s in per):
        return "every subtask FINISHED (the job is finished: no checkpoint is triggered)"
    return None


TRIGGER_PLAN = Family(
    "trigger-plan", "TriggerPlan",
    "the FLIP-147 trigger plan (tasks to trigger, to wait for, finished) and the finished-state checks at completion",
    (
        Op("plan", "DefaultCheckpointPlanCalculator.calculateCheckpointPlan", "CheckpointPlanCalculator.tasks_to_trigger",
           _m_plan, lambda: (), _rand_plan, domain=_plan_domain),
        Op("fulfill", "DefaultCheckpointPlan.fulfillFinishedTaskStatus (via PendingCheckpoint.acknowledgeTask)",
           "CheckpointCoordinator.partly_finished_union_vertex", _m_fulfill, lambda: (), _rand_fulfill, domain=_plan_domain),
    ),
    weight=0.2,
    domains=("every subtask FINISHED (the job is finished: no checkpoint is triggered)",),
)


# -- channel state on a restore ---------------------------------------------------------------------

_MAPPERS = rd.MAPPERS


def _gates(edges, v) -> list[int]:
    """The edges into ``v`` in JobGraph order: its input gates."""
    return [k for k, e in enumerate(edges) if e[1] == v]


def _partitions(edges, v) -> list[int]:
    return [k for k, e in enumerate(edges) if e[0] == v]


def _channels(e, old_ps, o: int) -> int:
    """Input channels of old consumer subtask ``o`` on edge ``e``."""
    src, dst, pattern = e[0], e[1], e[2]
    return old_ps[src] if pattern == "ALL_TO_ALL" else len(rd.pointwise_inputs(old_ps[src], old_ps[dst])[o])


def _subpartitions(e, old_ps, o: int) -> int:
    src, dst, pattern = e[0], e[1], e[2]
    return old_ps[dst] if pattern == "ALL_TO_ALL" else len(rd.pointwise_outputs(old_ps[src], old_ps[dst])[o])


def _m_assign(a):
    """Per new subtask the input and output channel-state handles it restores, as the model
    redistributes them: ``check_channel_state_restore`` (where Flink throws), then per vertex
    ``input_side_redistributes`` (FLINK-35351, vertex-wide) and ``reassign_channel_state`` per
    in-flight gate with its downstream mapper, and per in-flight partition with its upstream
    mapper where the parallelism changed.  A gate or partition with no state in any old
    subtask restores nothing (FLINK-38267).  Where Flink throws in some of its vertex orders
    only, the model says so (``MayThrow``): either Flink answer matches."""
    old_ps, new_ps, edges, inp, outp = a[:5]
    n = len(old_ps)
    in_flight = tuple(any(inp[e[1]]) or any(outp[e[0]]) for e in edges)
    answer = []
    for v in range(n):
        gates = [k for k, e in enumerate(edges) if e[1] == v]
        parts = [k for k, e in enumerate(edges) if e[0] == v]
        redistribute = rd.input_side_redistributes(old_ps[v], new_ps[v], tuple(edges[k][4] for k in gates),
                                                   tuple(new_ps[edges[k][0]] for k in gates))
        per = [{"input": [], "output": []} for _ in range(new_ps[v])]
        for sides, mine, red, mapper_at, count, key in (
                (gates, inp[v], redistribute, 4, _channels, "input"),
                (parts, outp[v], old_ps[v] != new_ps[v], 3, _subpartitions, "output")):
            for g, k in enumerate(sides):
                if not in_flight[k] or not any(mine):
                    continue
                old = [[o] if mine[o] else [] for o in range(old_ps[v])]
                try:
                    got = rd.reassign_channel_state(old, edges[k][mapper_at], old_ps[v], new_ps[v], redistribute=red)
                except rd.UnsupportedRescaleError:
                    got = [[] for _ in range(new_ps[v])]  # the check below names the restore's failure
                for j, olds in enumerate(got):
                    per[j][key] += [f"{v}.{o}.{g}.{c}" for o in olds for c in range(count(edges[k], old_ps, o))]
        answer.append([{"input": sorted(x["input"]), "output": sorted(x["output"])} for x in per])
    try:
        rd.check_channel_state_restore(tuple(old_ps), tuple(new_ps), tuple((e[0], e[1], e[3], e[4]) for e in edges),
                                       in_flight)
    except rd.UnsupportedRescaleError as e:
        if e.order_dependent:
            raise MayThrow("UnsupportedOperationException", answer) from None
        raise
    return answer


def _norm_assign(answer):
    """Flink's answer without what this family does not compare: whether a subtask got a
    restore at all, and the rescaling descriptors (their mappings and ambiguity are what the
    ``subtask-state-mappers`` family checks)."""
    return [[{"input": s["input"], "output": s["output"]} for s in per] for per in answer]


_EDGE_MAPPERS = (
    ("ALL_TO_ALL", "ARBITRARY", "RANGE"),  # keyBy (KeyGroupStreamPartitioner)
    ("ALL_TO_ALL", "ROUND_ROBIN", "ROUND_ROBIN"),  # rebalance
    ("ALL_TO_ALL", "ARBITRARY", "FULL"),  # partitionCustom (FLINK-35351)
    ("ALL_TO_ALL", "UNSUPPORTED", "UNSUPPORTED"),  # broadcast
    ("POINTWISE", "UNSUPPORTED", "UNSUPPORTED"),  # forward, rescale
)


def _rand_assign(r: random.Random) -> list:
    """A job of 2-4 vertices, each after the first with one or two inputs (sometimes two edges
    from one producer), its parallelisms before and after, and which old subtasks hold state."""
    n = r.randint(2, 4)
    old_ps = [r.randint(1, 4) for _ in range(n)]
    new_ps = [p if r.random() < 0.5 else r.randint(1, 4) for p in old_ps]
    edges = []
    for v in range(1, n):
        for u in sorted(r.choices(range(v), k=1 if r.random() < 0.7 else 2)):
            pattern, up, down = r.choice(_EDGE_MAPPERS) if r.random() < 0.8 else (
                r.choice(("ALL_TO_ALL", "POINTWISE")), r.choice(_MAPPERS), r.choice(_MAPPERS))
            edges.append([u, v, pattern, up, down])
    p_state = r.choice((0.0, 0.3, 0.7))
    inp = [[r.random() < p_state and any(e[1] == v for e in edges) for _ in range(p)] for v, p in enumerate(old_ps)]
    outp = [[r.random() < p_state and any(e[0] == v for e in edges) for _ in range(p)] for v, p in enumerate(old_ps)]
    return [old_ps, new_ps, edges, inp, outp]


CHANNEL_STATE = Family(
    "channel-state", "ChannelState",
    "the input and output channel state each new subtask restores on a rescale (per gate and partition, FLINK-35351,"
    " UNSUPPORTED mappers per edge)",
    (
        Op("assign", "StateAssignmentOperation.assignStates (TaskStateAssignment, reDistributeInputChannelStates,"
           " reDistributeResultSubpartitionStates)", "redistribution.input_side_redistributes, reassign_channel_state, check_channel_state_restore",
           _m_assign, lambda: (), _rand_assign, flink_norm=_norm_assign),
    ),
    weight=0.2,
)
