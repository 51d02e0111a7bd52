"""``VertexFinishedStateChecker`` (``model.finished_state``): the restores Flink refuses because of
a checkpoint's finished state, case by case as Flink's ``VertexFinishedStateCheckerTest`` has
them, and where the model runs the check (a restore the user starts, never a failover's)."""

from __future__ import annotations

import pytest

from ckptcheck.model.finished_state import (ALL_RUNNING, FULLY_FINISHED, PARTIALLY_FINISHED, validate_operators_finished_state,
                                            vertex_finished_states)
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.topology import Edge, JobGraph, Pattern, Role, Vertex
from ckptcheck.model.world import FINISHED_SNAPSHOT
from ckptcheck.model.actions import FailTask, Rescale, Restore
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.scopes import scope

A2A, PW = Pattern.ALL_TO_ALL, Pattern.POINTWISE


def two_vertices(patterns: tuple[Pattern, ...]) -> JobGraph:
    """An upstream vertex feeding a downstream one over one edge per pattern (two edges join
    one pair of vertices only as side outputs)."""
    records = ("all",) if len(patterns) == 1 else ("even", "odd")
    edges = tuple(Edge("up", "down", p, records=r) for p, r in zip(patterns, records))
    return JobGraph((Vertex("up", 2, Role.SOURCE), Vertex("down", 2, Role.SINK)), edges)


# (upstream, downstream, patterns, refused with) -- VertexFinishedStateCheckerTest's cases, then
# the ones it accepts
CASES = [
    (ALL_RUNNING, FULLY_FINISHED, (A2A,), "Task vertex down has a predecessor not fully finished"),
    (PARTIALLY_FINISHED, FULLY_FINISHED, (A2A,), "Task vertex down has a predecessor not fully finished"),
    (ALL_RUNNING, PARTIALLY_FINISHED, (A2A,), "connected via the ALL_TO_ALL edges. Task vertex down has a all running predecessor"),
    (PARTIALLY_FINISHED, PARTIALLY_FINISHED, (A2A,),
     "connected via the ALL_TO_ALL edges. Task vertex down has a partially finished predecessor"),
    (PARTIALLY_FINISHED, PARTIALLY_FINISHED, (PW, A2A),
     "connected via the ALL_TO_ALL edges. Task vertex down has a partially finished predecessor"),
    (ALL_RUNNING, PARTIALLY_FINISHED, (PW,), "predeceased with all running ones. Task vertex down has a all running predecessor"),
    (PARTIALLY_FINISHED, PARTIALLY_FINISHED, (PW,), None),
    (FULLY_FINISHED, PARTIALLY_FINISHED, (A2A,), None),
    (FULLY_FINISHED, FULLY_FINISHED, (A2A,), None),
    (FULLY_FINISHED, ALL_RUNNING, (A2A,), None),
    (PARTIALLY_FINISHED, ALL_RUNNING, (PW,), None),
    (ALL_RUNNING, ALL_RUNNING, (A2A,), None),
]


@pytest.mark.parametrize("up, down, patterns, refused", CASES)
def test_the_checker_refuses_what_flinks_refuses(up, down, patterns, refused):
    got = validate_operators_finished_state(two_vertices(patterns), (up, down))
    if refused is None:
        assert got is None
    else:
        assert got is not None and got.startswith("Illegal JobGraph modification.") and got.endswith(refused)


def test_a_vertex_is_fully_finished_partly_finished_or_all_running_by_its_subtasks():
    assert vertex_finished_states(((0, 1), (2,), (3, 4)), (True, True, False, True, False)) == (
        FULLY_FINISHED, ALL_RUNNING, PARTIALLY_FINISHED)


def _with_a_completed_checkpoint(m: FlinkModel):
    """The first world (breadth-first) whose store holds a completed checkpoint."""
    frontier, seen = [m.initial()], set()
    while frontier:
        w = frontier.pop(0)
        if w.coord.store:
            return w
        for a in m.enabled(w):
            n = m.step(w, a)
            if n not in seen:
                seen.add(n)
                frontier.append(n)
    raise AssertionError("no checkpoint completes")


def test_a_rescale_runs_the_check_and_a_refusal_is_a_failed_restore_a_failover_does_not_run_it():
    """``custom-map`` (source(1) -> map(2) -> sink(2)), the map rescaled to 1.  A checkpoint
    doctored to hold the sink finished behind the running map (a fully finished vertex with a
    predecessor not fully finished) is refused by the rescale, as ``restoreSavepoint`` refuses
    it; the same checkpoint restored by a failover is not checked
    (``restoreLatestCheckpointedStateToSubtasks``)."""
    sc = scope("custom-map", records_per_split=1, bounded=False, max_checkpoints=1, max_failures=1, max_declines=0,
               max_timeouts=0, max_lost_notifications=0, rescale=(("map", 1),), max_rescales=1)
    m = FlinkModel(BASELINE, sc)
    w = _with_a_completed_checkpoint(m)
    c = w.coord.store[-1]
    sinks = {t for t, name in enumerate(m.topo.names) if name.startswith("sink")}
    doctored = c._replace(snapshots=tuple(FINISHED_SNAPSHOT if t in sinks else s for t, s in enumerate(c.snapshots)))
    bad = w._replace(coord=w.coord._replace(store=(doctored,)))
    assert Rescale(c.id) in m.enabled(bad)
    refused = m.step(bad, Rescale(c.id)).coord.restore_failure
    assert "Illegal JobGraph modification" in refused and refused.endswith("Task vertex sink has a predecessor not fully finished")
    assert not m.step(w, Rescale(c.id)).coord.restore_failure
    failed = m.step(bad, FailTask(m.topo.names.index("sink[0]")))
    restore = next(a for a in m.enabled(failed) if isinstance(a, Restore))
    assert not m.step(failed, restore).coord.restore_failure
