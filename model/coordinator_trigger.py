"""The checkpoint coordinator's trigger, a part of ``model.coordinator.CheckpointCoordinator``:
when a checkpoint may be triggered, which tasks get the trigger RPC (the plan) and which the
checkpoint waits for, and the stop-with-savepoint that stops the checkpoint scheduler.

Flink: ``CheckpointCoordinator.triggerCheckpoint`` (with ``CheckpointRequestDecider`` and the
operator coordinators' checkpoint futures), ``DefaultCheckpointPlanCalculator``
(``calculateCheckpointPlan``, FLIP-147: tasks whose upstreams finished are triggered),
``Execution.triggerCheckpoint`` (one RPC per task), ``SchedulerBase.stopWithSavepoint`` /
``triggerSynchronousSavepoint`` and ``StopWithSavepointTerminationHandlerImpl``.  The
abstractions are stated in ``model.coordinator``.
"""

from __future__ import annotations

from functools import cached_property
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .actions import StopWithSavepoint, TriggerCheckpoint, handles
from .component import Component, follows
from .topology import Pattern
from .tx import Tx
from .world import DRAIN, FAILED, FINISHED, NO_DRAIN, RUNNING, Pending, World


class TriggerMixin(Component):
    """``CheckpointCoordinator``'s trigger (``triggerCheckpoint``, the plan of
    ``DefaultCheckpointPlanCalculator``) and stop-with-savepoint.  A mixin of
    ``CheckpointCoordinator``."""

    if TYPE_CHECKING:  # the rules of the other parts of the class it is part of
        def partly_finished_union_vertex(self, tx: Tx, pending: Pending, grafted: dict[int, int] | None = None) -> int | None: ...

        def send_trigger(self, tx: Tx, t: int, cp: int, savepoint: int) -> None: ...

        def receive_decline(self, tx: Tx, t: int, cp: int, counted: bool = True) -> None: ...

        def notify_aborted(self, tx: Tx, pending: Pending, skip: frozenset[int] = frozenset()) -> None: ...

    # the trigger plan ---------------------------------------------------------------------------
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
        Abstraction: restoring operator state takes no time, so only unaligned restores have
        an initializing subtask."""
        if not self.model.unaligned:
            return None
        for t in range(self.topo.n_tasks):
            if self.task.is_recovering(w.channels, t):
                return t
        return None

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
        return self.partly_finished_union_vertex(w, Pending(w.coord.next_id, 0, finished, ()))

    @handles(TriggerCheckpoint)
    @follows("CheckpointCoordinator.triggerCheckpoint")
    def trigger(self, tx: Tx) -> None:
        """``triggerCheckpoint``: a new pending checkpoint; the operator coordinators snapshot
        first (their checkpoint futures), then the tasks of the plan.

        Flink sends one ``triggerCheckpointAsync`` RPC per task (``Execution.triggerCheckpoint``)
        and they arrive at different times.  With the scope's ``staggered_triggers`` each RPC
        goes to its task's inbox, behind the notifications already there, and arrives in a
        step of its own (``Task.on_trigger_rpc``).  Without it (the aligned presets' scopes)
        every task of the plan is triggered in this one step.  What that abstraction hides: a
        source triggered later can still send records behind which another source's unaligned
        barrier already reached the consumer, so with local channels (``input_buffers`` 0) and
        every checkpoint unaligned no record would ever be input channel state; the unaligned
        presets' scopes therefore stagger.  Unstaggered, a trigger also overtakes every
        notification already queued for the task (a source snapshots checkpoint 2 before it
        learns that 1 completed or was aborted); staggered, the inbox is FIFO and never lets
        it, unless the scope's ``rpcs_overtake`` lets a trigger and a notice cross either way.
        Flink does let them cross: ``completePendingCheckpoint`` schedules the next trigger
        request before ``cleanupAfterCompletedCheckpoint`` sends the completion notices, and
        abort notices leave from the coordinator's executor; a real run shows a source
        snapshotting checkpoint 3 before its ``notifyCheckpointComplete(2)``
        (``tests/data/runs/trigger-overtakes-notice.jsonl``, ``ckptcheck validate``).  The
        baseline's third default scope (``jobmanager_view_scope``) lets them cross; the other
        preset scopes keep the FIFO inbox, which hides those orders (the baseline's enumerator
        scope grows from 72,504 states to 162,665 with them, and still holds, measured once);
        in the unaligned default scope staggering outweighs the interleavings it adds
        (579,729 states against 582,199; 605,851 against 1,172,500 with the alignment timeout)."""
        coord = tx.coord
        cp = coord.next_id
        to_trigger, waiting, finished = self.tasks_to_trigger(tx.tasks)
        self.regional.on_trigger(tx)
        coord = tx.coord
        global_only = self.regional.must_be_global(tx)
        pending = Pending(cp, waiting, finished, (), 0, global_only, coord.unassigned)
        tx.coord = coord._replace(next_id=cp + 1, pending=coord.pending + (pending,))
        self.gateways.close_gateways(tx, cp)  # the coordinators' checkpoint, before the tasks'
        self.trigger_tasks(tx, to_trigger, cp, 0)
        self.store.retain(tx)

    @follows("CheckpointCoordinator.triggerTasks")
    def trigger_tasks(self, tx: Tx, to_trigger: list[int], cp: int, savepoint: int) -> None:
        """``triggerTasks``: the trigger RPC to each task of the plan, carrying the checkpoint
        type (``savepoint``: 0, or a stop's DRAIN or NO_DRAIN); queued when staggered."""
        if self.scope.staggered_triggers:
            for t in to_trigger:
                self.send_trigger(tx, t, cp, savepoint)
            return
        not_ready = []
        for t in to_trigger:
            if self.task.not_ready_for_trigger(tx, t):
                not_ready.append(t)
            else:
                self.task.trigger(tx, t, cp, savepoint)
        for t in not_ready:
            self.receive_decline(tx, t, cp, counted=False)  # CHECKPOINT_DECLINED_TASK_NOT_READY

    # stop-with-savepoint ------------------------------------------------------------------------
    @follows("DefaultCheckpointPlanCalculator.checkTasksStarted")
    def can_stop(self, w: World) -> bool:
        """May the user stop the job with a savepoint now?  Once per scope that allows it, with
        every task that has not finished RUNNING (``checkTasksStarted``) and one running."""
        if not self.scope.stop_with_savepoint or w.used.stops or w.coord.stop:
            return False
        running = False
        for ts in w.tasks:
            if ts.status == FAILED:
                return False
            running = running or ts.status == RUNNING
        return running

    @handles(StopWithSavepoint)
    @follows("SchedulerBase.stopWithSavepoint")
    def stop_with_savepoint(self, tx: Tx) -> None:
        """``SchedulerBase.stopWithSavepoint``: stop the checkpoint scheduler, which aborts every
        pending checkpoint (``CHECKPOINT_COORDINATOR_SUSPEND``, not counted, the tasks told),
        then ``triggerSynchronousSavepoint``: a savepoint of type terminate (``--drain``) or
        suspend, always aligned, triggered like a checkpoint (the plan's sources, or tasks
        whose producers finished).  A source that gets it stops reading
        (``SourceOperatorStreamTask.triggerStopWithSavepointAsync``), sends EndOfData with the
        stop mode, then the barrier (``SourceReader.stop``).  The records no source will read
        any more are kept in ``Coordinator.stop``: with ``--drain`` the job ends without them.
        Abstraction: the savepoint is never queued behind a trigger in flight (the trigger is
        atomic here)."""
        for p in tx.coord.pending:
            self.notify_aborted(tx, p)
        coord = tx.coord
        mode = DRAIN if self.scope.stop_with_savepoint == "drain" else NO_DRAIN
        cp = coord.next_id
        to_trigger, waiting, finished = self.tasks_to_trigger(tx.tasks)
        pending = Pending(cp, waiting, finished, (), 0, False, coord.unassigned, mode)
        tx.coord = coord._replace(next_id=cp + 1, pending=(pending,), stop=(cp, mode, ()))
        tx.used = tx.used._replace(stops=tx.used.stops + 1)
        self.gateways.close_gateways(tx, cp)
        self.trigger_tasks(tx, to_trigger, cp, mode)
        self.store.retain(tx)

    @follows("StopWithSavepointTerminationHandlerImpl.terminateExceptionally")
    def stop_failed(self, tx: Tx) -> None:
        """The stop's savepoint was aborted: ``StopWithSavepointTerminationHandlerImpl``
        restarts the checkpoint scheduler (``terminateExceptionally``) and the job runs on;
        its sources read again after the restore that follows."""
        tx.coord = tx.coord._replace(stop=())
