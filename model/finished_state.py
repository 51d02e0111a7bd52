"""Flink's ``VertexFinishedStateChecker``: the restores it refuses because of the finished state a
checkpoint holds (FLIP-147).  Which restores run the check, what it refuses and where the model
differs are on ``validate_operators_finished_state``.
"""

from __future__ import annotations

from typing import Sequence

from .topology import JobGraph, Pattern

ALL_RUNNING = "ALL_RUNNING"
PARTIALLY_FINISHED = "PARTIALLY_FINISHED"
FULLY_FINISHED = "FULLY_FINISHED"


def vertex_finished_states(tasks_of: Sequence[Sequence[int]], finished: Sequence[bool]) -> tuple[str, ...]:
    """Per vertex, from its subtasks' finished flags in the checkpoint
    (``VerticesFinishedStatusCache.checkOperatorFinishedStatus``: ``OperatorState.isFullyFinished``,
    else any ``OperatorSubtaskState.isFinished``)."""
    out = []
    for tasks in tasks_of:
        flags = [finished[t] for t in tasks]
        out.append(FULLY_FINISHED if flags and all(flags) else PARTIALLY_FINISHED if any(flags) else ALL_RUNNING)
    return tuple(out)


def validate_operators_finished_state(job: JobGraph, states: Sequence[str]) -> str | None:
    """``validateOperatorsFinishedState``: ``None`` if Flink restores a checkpoint whose vertices
    have the finished ``states`` (in ``job.vertices`` order), else Flink's message for the first
    vertex it refuses.  Flink walks a set of vertices; the model walks them in the job's order,
    so where two vertices are refused the message may name another one than Flink's.

    ``CheckpointCoordinator.restoreLatestCheckpointedStateInternal`` runs the check only where its
    ``checkForPartiallyFinishedOperators`` is true: a restore the user starts from a savepoint or
    a retained checkpoint (``restoreSavepoint``; in the model ``Rescale`` and
    ``ResumeFromSavepoint``) and a JobManager failover (``restoreInitialCheckpointIfPresent``, not
    modelled), never a failover's restore (``restoreLatestCheckpointedStateToSubtasks`` /
    ``ToAll``).  The checker gives each vertex a finished state from the checkpoint's operator
    states (``vertex_finished_states``), then refuses

    - a fully finished vertex with a predecessor that is not fully finished
      (``checkPredecessorsOfFullyFinishedVertex``);
    - a partly finished vertex with an ALL_TO_ALL predecessor that is not fully finished, or a
      POINTWISE one that is all running (``checkPredecessorsOfPartiallyFinishedVertex``; two edges
      from one predecessor count as ALL_TO_ALL if either is).

    Abstraction: a model vertex is one operator, so the checker's third refusal, a chain whose
    operators differ in finished state ("mixed operator finished state"), cannot arise; and a
    vertex missing from the checkpoint (Flink: ALL_RUNNING) cannot either, the job graph being the
    same."""
    index = {v.name: k for k, v in enumerate(job.vertices)}
    for k, v in enumerate(job.vertices):
        state = states[k]
        if state == ALL_RUNNING:
            continue
        inputs = [e for e in job.edges if e.target == v.name]
        if state == FULLY_FINISHED:
            for e in inputs:
                if states[index[e.source]] != FULLY_FINISHED:
                    return ("Illegal JobGraph modification. Cannot run a program with fully finished vertices predeceased "
                            f"with the ones not fully finished. Task vertex {v.name} has a predecessor not fully finished")
            continue
        pattern: dict[str, Pattern] = {}
        for e in inputs:  # ALL_TO_ALL wins over POINTWISE from one predecessor
            pattern[e.source] = Pattern.ALL_TO_ALL if pattern.get(e.source) == Pattern.ALL_TO_ALL else e.pattern
        for e in inputs:
            up = states[index[e.source]]
            if pattern[e.source] == Pattern.ALL_TO_ALL and up != FULLY_FINISHED:
                kind = "all running" if up == ALL_RUNNING else "partially finished"
                return ("Illegal JobGraph modification. Cannot run a program with partially finished vertices predeceased "
                        "with running or partially finished ones and connected via the ALL_TO_ALL edges. Task vertex "
                        f"{v.name} has a {kind} predecessor")
            if pattern[e.source] == Pattern.POINTWISE and up == ALL_RUNNING:
                return ("Illegal JobGraph modification. Cannot run a program with partially finished vertices predeceased "
                        f"with all running ones. Task vertex {v.name} has a all running predecessor")
    return None
