"""When a checkpoint may be triggered: Flink's ``CheckpointRequestDecider`` (concurrency), with the
checks ``CheckpointCoordinator.triggerCheckpoint`` and the scheduler make before it (every
task running, the periodic scheduler started, FLIP-147's final checkpoint), and the scope's
checkpoint budget."""

from __future__ import annotations

from .component import Component, follows
from .tx import Tx
from .world import FAILED, FINISHED, RUNNING, Pending, World


class CheckpointRequestDecider(Component):
    """``CheckpointRequestDecider.chooseRequestToExecute`` and the checks before a trigger: may
    the coordinator trigger a checkpoint in this world?"""

    @follows("CheckpointRequestDecider.chooseRequestToExecute")
    def can_trigger(self, w: World) -> bool:
        """Trigger preconditions (mechanics note 5, §6) plus the scope budget.

        The budget (``max_checkpoints``) stops applying once every source reached end of
        input and some running task still needs its final checkpoint: FLIP-147's final
        checkpoint must always be possible, or a correct bounded job could not terminate in
        the scope.  A task whose inbox already holds the completion it waits for does not
        count, so every such extra trigger follows a fault (a lost notification, an abort, a
        failure) and their number is bounded by the fault budget.  Such an extra checkpoint
        waits until none is pending, also with ``max_concurrent_checkpoints`` > 1: the exception
        lets a bounded job end, concurrency is searched within the budget.  Without that, every
        stage of a Sink V2 job's finishing (sources, committer, global committer) could keep two
        checkpoints in flight, and sink-v2-global alone grows from 22,485 states to 1,233,894
        (instant acks).  What it hides: overlapping checkpoints after the budget is spent; raise
        ``max_checkpoints`` to search them.
        """
        if self.null_state.replaying(w):  # FLINK-4120: a re-inserted barrier is still on its way
            return False
        return self.trigger_allowed(w)

    def trigger_allowed(self, w: World) -> bool:
        """``can_trigger`` without FLINK-4120's hold during a replay (the witness of that hold
        asks it)."""
        if self.scope.suspend_on_failure and self.execution_not_running(w) is not None:
            return False
        return self.trigger_allowed_once_initialized(w)

    def execution_not_running(self, w: World) -> int | None:
        """With the scope's ``suspend_on_failure``: a subtask whose execution keeps the checkpoint
        scheduler stopped, or ``None``.  ``ExecutionTrackingCheckpointCoordinatorDeActivator``
        starts it once every execution is RUNNING or FINISHED (Flink 2.3.0, read in its jar); a
        FAILED one stops triggers anyway (NOT_ALL_REQUIRED_TASKS_RUNNING), so what is left is a
        restored subtask still INITIALIZING (``initializing``)."""
        return self.initializing(w)

    def trigger_allowed_once_initialized(self, w: World) -> bool:
        """``trigger_allowed`` but for the scope's ``suspend_on_failure`` hold while an execution
        is not running (the witness of that hold asks it)."""
        if len(w.coord.pending) >= self.design.max_concurrent_checkpoints:  # CheckpointRequestDecider
            return False
        if w.coord.stop:  # a stop-with-savepoint stopped the checkpoint scheduler
            return False
        tasks = w.tasks
        if self.topo.blocking_output and not self.periodic_scheduler_running(w) and not all(ts.ended for ts in tasks):
            return False
        running = late = False
        for ts in tasks:
            if ts.status == FAILED:  # NOT_ALL_REQUIRED_TASKS_RUNNING
                return False
            late = late or ts.rescaled  # ``Scope.rescaled_tasks_decline``: it declines until its recovery ends
            if ts.unreported:  # the JobManager still sees it running (``Scope.late_finish_reports``)
                running = late = True
            elif ts.status == FINISHED and not self.design.checkpoints_after_tasks_finish:
                return False
            if ts.status == RUNNING:
                running = True
        if not running:
            return False
        if w.coord.next_id - self.store.first_checkpoint_id < self.scope.max_checkpoints:
            return True
        if w.coord.pending or late:  # past the budget a finish is reported, a recovery ends, first: that
            return False             # bounds the triggers a finished or recovering task declines by the budget
        for t in self.topo.sources:
            ts = tasks[t]
            if ts.status == RUNNING and not ts.ended:
                return False
        needy = [ts for ts in tasks if self.task.needs_final_checkpoint(ts)]
        if needy and self.union_vertex_partly_finished(w) is not None:
            # every checkpoint aborts; its abort notice still replays the latest completion
            # (FLINK-21080), which ends the wait of a task whose final checkpoint completed
            latest = w.coord.store[-1].id if w.coord.store else 0
            return any(0 < ts.final_cp <= latest and ts.notified < latest for ts in needy)
        return bool(needy)

    @follows("StreamTask.restoreStateAndGates")
    def initializing(self, w: World) -> int | None:
        """A restored subtask still INITIALIZING, or ``None``: ``Task.restoreAndInvoke`` reports
        RUNNING only once ``StreamTask.restoreInternal`` returned, after its mailbox loop ran
        until every input gate consumed its recovered channel state
        (``restoreStateAndGates``); with the scope's ``suspend_on_failure`` the scheduler
        (``ExecutionTrackingCheckpointCoordinatorDeActivator``) triggers nothing meanwhile.
        Abstraction: restoring operator state takes no time, so only restores of channel state
        (``FlinkModel.restores_channel_state``) have an initializing subtask.

        With checkpoints during recovery (``FlinkModel.cdr``) ``restoreStateAndGates`` waits for
        each gate's ``getBufferFilteringCompleteFuture`` instead of ``getStateConsumedFuture``
        (Flink 2.3.0, read in its jar): a subtask is INITIALIZING only while it filters, which the
        model has only for a subtask restored at a new parallelism (``TaskState.rescaled``, with
        the scope's ``rescaled_tasks_decline``), and RUNNING while it reads its recovered state."""
        if not self.model.restores_channel_state:
            return None
        return next((t for t in range(self.topo.n_tasks) if self.is_initializing(w, t)), None)

    @follows("StreamTask.restoreStateAndGates")
    def is_initializing(self, w: World | Tx, t: int) -> bool:
        """Is restored subtask ``t`` still INITIALIZING (``initializing``)?  Without checkpoints
        during recovery while it has recovered channel state to read, also in the aligned job of
        the scope's ``restart_aligned`` (``restoreStateAndGates`` does not ask the option); with
        them only while it filters."""
        if not self.model.restores_channel_state:
            return False
        if self.model.cdr:
            return w.tasks[t].rescaled
        return self.network_input.is_recovering(w.channels, t)

    @follows("CheckpointCoordinator.createActivatorDeactivator", "CheckpointCoordinatorDeActivator.alwaysStopping")
    def periodic_scheduler_running(self, w: World) -> bool:
        """FLINK-34371: the periodic checkpoint scheduler stays stopped while any subtask with
        a BLOCKING output is alive.  In the Flink 2.3.0 jar (read with javap):
        ``CheckpointCoordinator.createActivatorDeactivator(false)`` gives a job with a BLOCKING
        output ``CheckpointCoordinatorDeActivator.alwaysStopping`` (every job status change
        stops the scheduler), and ``DefaultExecutionGraph.updateStateInternal`` starts it when a
        task switches to RUNNING only if ``!ExecutionGraphUtils.isAnyOutputBlocking``, which
        looks at the registered executions (a FINISHED, CANCELED or FAILED one is deregistered).
        A trigger then fails "Periodic checkpoint scheduler is shut down" (seen in a Flink 2.3.0
        MiniCluster run), uncounted.  The one other trigger, ``SchedulerBase.notifyEndOfData``'s
        once every task reached end of data, is not periodic and not stopped: ``trigger_allowed``
        lets it through (every further trigger too, a superset of that single one)."""
        tasks = w.tasks
        return not any(tasks[t].status == RUNNING for t in self.topo.blocking_output)

    def union_vertex_partly_finished(self, w: World) -> int | None:
        """The vertex with union list state that is partly FINISHED, if any: then every
        checkpoint triggered aborts (``partly_finished_union_vertex``, check A, asked of a
        checkpoint with no acknowledgement yet) until a failover restarts the vertex, and its
        running subtasks can never take a final checkpoint: the job hangs.  FLIP-147 alone never
        gets here (check B keeps the fast subtasks running until a checkpoint all of them ended
        in completes), but a FLIP-600 fallback notice taken as a completion finishes one subtask
        alone (catalog F1).  Past the budget the model then triggers only while an abort notice
        can still end a task's wait (it replays the latest completion, FLINK-21080); otherwise
        the hang is a state without a next step that the ``terminates`` property reports, where
        Flink would trigger and abort forever; within the budget the aborts are searched."""
        finished = 0
        for t, ts in enumerate(w.tasks):
            if ts.status == FINISHED:
                finished |= 1 << t
        if not finished:
            return None
        return self.coordinator.partly_finished_union_vertex(w, Pending(w.coord.next_id, 0, finished, ()))
