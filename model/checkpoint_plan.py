"""The checkpoint plan: Flink's ``DefaultCheckpointPlanCalculator``, which tasks a checkpoint
triggers by RPC, which it waits for, and which are finished in it (FLIP-147)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from .component import Component, follows
from .topology import Pattern
from .world import FINISHED, RUNNING


class CheckpointPlanCalculator(Component):
    """``DefaultCheckpointPlanCalculator.calculateCheckpointPlan``, asked by the coordinator at
    a trigger and at a stop-with-savepoint."""

    @cached_property
    def trigger_rule(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """Per task: (ALL_TO_ALL upstream subtasks, POINTWISE-connected producer subtasks).

        ``DefaultCheckpointPlanCalculator`` (mechanics note 5): a running task is triggered iff every
        ALL_TO_ALL upstream vertex is fully finished and no pointwise-connected producer
        subtask is running.  Sources always qualify.
        """
        topo = self.topo
        out = []
        for t in range(topo.n_tasks):
            a2a: set[int] = set()
            pw: set[int] = set()
            for c in topo.inputs[t]:
                ch = topo.channels[c]
                e = topo.job.edges[ch.edge]
                if e.pattern is Pattern.ALL_TO_ALL:
                    a2a.update(topo.tasks_of[topo.vertex_of[ch.producer]])
                else:
                    pw.add(ch.producer)
            out.append((tuple(sorted(a2a)), tuple(sorted(pw))))
        return tuple(out)

    @follows("DefaultCheckpointPlanCalculator.calculateCheckpointPlan")
    def tasks_to_trigger(self, tasks: Sequence) -> tuple[list[int], int, int]:
        """``DefaultCheckpointPlanCalculator.calculateCheckpointPlan``: the tasks to trigger by
        RPC, and the bitmasks of tasks to wait for (every task not FINISHED) and of finished
        tasks (FLIP-147: their state is a ``FinishedOperatorSubtaskState``).

        The plan reads the JobManager's execution states (``Execution.getState``): a task that
        finished but whose finish the JobManager has not processed yet (``TaskState.unreported``,
        ``Scope.late_finish_reports``) is planned as a running one, triggered by RPC if its
        upstreams are finished, and waited for."""
        waiting = finished = 0
        to_trigger = []
        for t, ts in enumerate(tasks):
            if ts.status == FINISHED and not ts.unreported:
                finished |= 1 << t
                continue
            waiting |= 1 << t
            a2a, pw = self.trigger_rule[t]
            if all(tasks[u].status == FINISHED and not tasks[u].unreported for u in a2a) \
                    and not any(tasks[u].status == RUNNING or tasks[u].unreported for u in pw):
                to_trigger.append(t)
        return to_trigger, waiting, finished
