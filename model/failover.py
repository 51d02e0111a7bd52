"""Failover and restore: Flink's ``FailoverStrategy`` (``RestartPipelinedRegionFailoverStrategy``
or ``RestartAllFailoverStrategy``), the scheduler's cancellation of the tasks to restart, and
``CheckpointCoordinator.restoreLatestCheckpointedStateToSubtasks`` when they are redeployed.
Each abstraction is stated on the method that makes it.
"""

from __future__ import annotations

from functools import cached_property

from .actions import FailTask, FinishReported, JobManagerFailover, Rescale, Restore, ResumeFromSavepoint, handles
from .assignment import RestoreFailure
from .component import Component, follows
from .finished_state import validate_operators_finished_state, vertex_finished_states
from .sinkv2 import COMMITTER, GLOBAL_COMMITTER
from .topology import Role
from .tx import Tx
from .world import EMPTY_SNAPSHOT, EOD, FAILED, FINISHED, NO_DRAIN, Snapshot, World, remove_sorted


class FailoverStrategy(Component):
    """Which subtasks a failure restarts, their cancellation, and their restore.

    A ``Rescale`` is the user's restart at another parallelism (``bin/flink run -s`` from the
    latest checkpoint, or the adaptive scheduler's restart): every subtask is cancelled as in a
    global failover, then every subtask of the new parallelism is deployed with the state
    ``StateAssignmentOperation`` assigns it.

    Abstractions: the restart is one action (``Restore``) once every victim is cancelled; it uses
    the latest completed checkpoint, whose state is redistributed when it was taken at another
    parallelism.  A rescale is one action too: cancellation and redeployment with nothing between
    them (a failure in between is a failure of the rescaled job right after it).  A channel whose
    two ends are not both restored keeps nothing: pipelined regions contain both ends of every
    pipelined channel, and a job with another exchange restarts whole.  The model restarts the
    whole job whenever the job has a BLOCKING edge: Flink restarts the failed region and every
    region downstream, and the producer's region only if its result is no longer available
    (``RestartPipelinedRegionFailoverStrategy.getRegionsToRestart``); re-consuming a finished
    BLOCKING result across regions is not modelled.  (A HYBRID edge is refused:
    ``protocol.scope_conflict``.)"""

    @cached_property
    def failover_sets(self) -> tuple[frozenset[int], ...]:
        """Per task: the subtasks a failure of it cancels (mechanics note 6 failover): its pipelined
        region, or everything with ``failover_strategy = "full"``."""
        topo = self.topo
        everyone = frozenset(range(topo.n_tasks))
        if self.design.failover_strategy == "full" or not topo.all_pipelined:
            return tuple(everyone for _ in range(topo.n_tasks))
        return tuple(topo.regions[topo.region_of[t]] for t in range(topo.n_tasks))

    @follows("PipelinedRegionSchedulingStrategy.isDownstreamConsumedPartitionGroupSchedulable")
    def deployed(self, w: World, t: int) -> bool:
        """Is subtask ``t`` deployed?  The scheduler (``PipelinedRegionSchedulingStrategy``)
        deploys the consumer region of a BLOCKING result only once every partition it consumes
        is fully produced, that is once every producer subtask finished
        (``isDownstreamConsumedPartitionGroupSchedulable``); every other region is deployed at
        once.  A subtask not deployed reads nothing, is triggered by no one (the checkpoint
        scheduler is stopped meanwhile, ``CheckpointRequestDecider.periodic_scheduler_running``)
        and cannot fail.  Abstraction: it is RUNNING in the world, idle; a failover restarts
        the whole job when a BLOCKING edge exists (see the module), which may restart such a
        subtask too, a behaviour Flink does not have (a superset: it can add a counterexample
        Flink cannot run, never hide one)."""
        producers = self.topo.blocking_producers[t]
        return not producers or all(w.tasks[p].status == FINISHED for p in producers)

    @follows("RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart")
    def tasks_to_restart(self, t: int) -> frozenset[int]:
        """``getTasksNeedingRestart`` for a failure of subtask ``t``."""
        return self.failover_sets[t]

    @handles(FailTask, "task")
    @follows("SchedulerBase.updateTaskExecutionState")
    def on_task_failure(self, tx: Tx, t: int) -> None:
        """Subtask ``t`` fails (``SchedulerBase.updateTaskExecutionState`` -> the failover
        strategy): the tasks ``tasks_to_restart`` names are cancelled (``fail``)."""
        self.fail(tx, self.tasks_to_restart(t))

    def notices_surviving_restart(self, ts) -> tuple:
        """The RPCs in cancelled task state ``ts``'s inbox that its next attempt gets after its
        restore: none (an RPC to a cancelled attempt is lost;
        ``model.flip600.FallbackNoticeReplayedAfterRestart`` reads PR #28966 otherwise).  The
        inbox is read only by a reading that keeps some: an engine that records what a step
        reads (``checks.engine.memo``) sees no read of it here."""
        return ()

    @handles(FinishReported, "task")
    @follows("Execution.markFinished")
    def mark_finished(self, tx: Tx, t: int) -> None:
        """The JobManager processes subtask ``t``'s switch to FINISHED (``Execution.markFinished``):
        from now on the checkpoint plan leaves it out (``Scope.late_finish_reports``)."""
        tx.tasks[t] = tx.tasks[t]._replace(unreported=False)

    @follows("SchedulerBase.restoreState")
    def fail(self, tx: Tx, victims: frozenset[int]) -> None:
        """Cancel ``victims``: their channels are cleared and RPCs to them are lost.  The pending
        checkpoint is not aborted here (unless the scope's ``suspend_on_failure`` has Flink 2.3's
        deactivator abort it, ``CheckpointCoordinator.suspend``) but at the restore
        (``SchedulerBase.restoreState`` calls
        ``abortPendingCheckpoints(JOB_FAILOVER_REGION)``, mechanics note 6,
        row A24): acknowledgements a victim sent before it failed still arrive and count
        (the pending checkpoint waits for that execution attempt), so a checkpoint may complete
        between a failure and its restore, and the restore then uses it.  A victim's acks of a
        checkpoint no longer pending, which the coordinator would discard, are dropped with it.
        A cancelled task reports no decline (``AsyncCheckpointRunnable`` does not decline once
        cancelled).  Abstraction: the restart delay is not modelled, so a timeout of the pending
        checkpoint before the restore is possible only within the scope's timeout budget."""
        for t in victims:
            ts = tx.tasks[t]
            tx.tasks[t] = ts._replace(status=FAILED, inbox=(), held=self.notices_surviving_restart(ts))
        self.gateways.on_failure(tx, victims)
        if tx.coord.pending and self.scope.suspend_on_failure:  # Flink 2.3: the scheduler stops at once
            self.coordinator.suspend(tx)
        keep = {p.id for p in tx.coord.pending}
        dropped = [a for a in tx.acks if a[0] in victims and a[1] not in keep]
        if dropped:  # acks of a checkpoint no longer pending: discarded when they arrive, dropped here
            tx.acks = tuple(a for a in tx.acks if a[0] not in victims or a[1] in keep)
            tx.files = remove_sorted(tx.files, *((a[1], a[0]) for a in dropped))
        for ch in self.topo.channels:
            if ch.producer in victims or ch.consumer in victims:
                tx.channels[ch.id] = ()

    def may_resume_from_savepoint(self, w: World) -> bool:
        """After the stop's savepoint completed: the user resumes from it once the job stopped
        without ``--drain`` (every subtask finished), or once a failure ended the job: a task
        that does not finish after the savepoint fails the job for good
        (``StopWithSavepointTerminationHandlerImpl``: ``StopWithSavepointStoppingException``,
        not recoverable; its message asks the user to restart from the savepoint)."""
        tasks = w.tasks
        if any(ts.status == FAILED for ts in tasks):
            return True
        return w.coord.stop[1] == NO_DRAIN and all(ts.status == FINISHED for ts in tasks)

    @handles(ResumeFromSavepoint)
    def resume_from_savepoint(self, tx: Tx) -> None:
        """The user runs the job again from the stop's savepoint (``--fromSavepoint``, NO_CLAIM:
        Flink never deletes its files): a new job whose store holds only the savepoint, every
        subtask deployed with its state (``restore``); the old job's acknowledgements and
        records in flight are gone, and checkpoint ids continue after the savepoint."""
        sp = tx.coord.savepoint
        for t, ts in enumerate(tx.tasks):
            tx.tasks[t] = ts._replace(status=FAILED, inbox=())
        for c in range(len(tx.channels)):
            tx.channels[c] = ()
        tx.files = remove_sorted(tx.files, *((cp, t) for t, cp, _ in tx.acks))
        tx.acks = ()
        tx.coord = tx.coord._replace(store=(sp._replace(unclaimed=True),), pending=(), stop=(), savepoint=(), failed_count=0)
        self.restore(tx, user_restore=True)

    def restore_checkpoint(self, w: World) -> int:
        """The checkpoint failed subtasks are restored from: the latest completed (0: none)."""
        store = w.coord.store
        return store[-1].id if store else 0

    @follows("CheckpointCoordinator.restoreLatestCheckpointedStateToSubtasks")
    def restore(self, tx: Tx, user_restore: bool = False) -> None:
        """Redeploy every failed task with the latest completed checkpoint's state.

        A vertex whose every subtask is FINISHED in that checkpoint is deployed
        ``FINISHED_ON_RESTORE`` (``TaskStateAssignment.isFullyFinished``, UC note
        D.4): each subtask emits EndOfData at once, still runs (``FinishedOperatorChain``),
        takes part in the next checkpoints as finished, and emits EndOfPartition once one of
        them completed (``StreamTask.finished_on_restore``).  A finished subtask of a partly
        finished vertex restarts as a regular task with empty state
        (``FinishedOperatorSubtaskState``, ``finished_subtask_state``).  A source resumes at its
        stored position (``SourceReader.restore_position``); the split enumerator resets or takes splits back
        (``SplitEnumerator.on_restore``); a 2PC sink recovers-and-commits
        (``TwoPhaseCommitSink.initialize_state``); a Sink V2 committer and global committer
        commit their restored committables at once (``initializeState``).

        With FLINK-4120's null-state recovery (``model.nullstate``) the sources restart from the
        latest checkpoint's null-state checkpoint and re-insert its barrier, recomputable
        operators start empty, and no vertex is deployed FINISHED_ON_RESTORE.

        A restore Flink cannot carry out (``RestoreFailure``: a rescaled edge whose channel state
        cannot be redistributed; a null-state checkpoint the store no longer holds) deploys
        nothing: the tasks stay failed and the coordinator keeps the reason, which
        ``restores-succeed`` (``null-state-checkpoint-retained``) reports.  Flink then restarts
        the job again and again from the same checkpoint, failing each time.  A restore the user
        starts (``user_restore``: a rescale, a resume from the stop's savepoint) first passes
        ``VertexFinishedStateChecker`` (``model.finished_state``), as
        ``CheckpointCoordinator.restoreSavepoint`` runs it; a failover's restore does not.
        """
        self.coordinator.abort_for_failover(tx, frozenset(t for t, ts in enumerate(tx.tasks) if ts.status == FAILED))
        store = tx.coord.store
        latest = store[-1] if store else None
        cp = latest.id if latest else 0
        replay = self.null_state.plan(store) if latest is not None and self.null_state.active else None
        if isinstance(replay, str):
            tx.coord = tx.coord._replace(restore_failure=replay)
            return
        try:
            if user_restore and latest is not None:
                self.check_finished_state(latest)
            snaps = self.assignment.snapshots(latest) if latest else None
            if latest is not None and self.model.restores_channel_state:
                self.assignment.channel_state(latest)
        except RestoreFailure as e:
            tx.coord = tx.coord._replace(restore_failure=f"restoring checkpoint {cp} fails: {e}")
            return
        victims = [t for t, ts in enumerate(tx.tasks) if ts.status == FAILED]
        if self.enumerator.readers:
            self.enumerator.on_restore(tx, latest._replace(snapshots=snaps) if latest else None, victims)
        all_out = self.model.all_out
        if latest is not None and self.model.restores_channel_state and replay is None:  # a null-state replay re-sends in-flight data
            self.restore_channel_state(tx, latest, set(victims))
        fully = self.fully_finished(snaps) if latest else ()
        null_checkpoint = self.null_state.null_checkpoint(store) if replay is not None else None
        rescaled = self.rescaled_vertices(latest)
        local_here = self.local_state.active and latest is not None and self.model.model_of(latest) is self.model
        for t in victims:
            snap = snaps[t] if latest else EMPTY_SNAPSHOT
            old = tx.tasks[t]
            local = ()
            if local_here:  # TaskStateManagerImpl.prioritizedOperatorState: the copy of cp, if any, first
                snap, local = self.local_state.restored(old, cp, snap, latest.refs[t] if latest.refs else 0)
            restored = snap
            if replay is not None:  # FLINK-4120: no FINISHED_ON_RESTORE, the sources replay
                snap = self.null_state.restored_state(t, snap, replay, null_checkpoint)
            elif snap.finished:
                if fully[self.topo.vertex_of[t]]:
                    tx.tasks[t] = self.task.finished_on_restore(t, snap, cp)
                    tx.push(all_out[t], EOD)
                    continue
                snap = self.finished_subtask_state(t, snap)
            if self.model.roles[t] is Role.SOURCE:
                snap = snap._replace(position=self.source.restore_position(snap.position))
            next_txn = old.txn
            if self.model.two_pc[t]:
                next_txn = self.sink.initialize_state(tx, t, snap)
            tx.tasks[t] = self.task.fresh(t, snap, cp, next_txn)
            if local:
                tx.tasks[t] = tx.tasks[t]._replace(local=local)
            if old.held:  # PR #28966's documentation: the fallback notice "survives task restarts"
                tx.tasks[t] = tx.tasks[t]._replace(inbox=old.held)
            if self.topo.vertex_of[t] in rescaled:
                tx.tasks[t] = tx.tasks[t]._replace(rescaled=True)
            if self.registry.active:  # the restored handle's files are the backend's, all confirmed
                self.registry.restore(tx, t, latest)
            if replay is not None:
                self.null_state.start_replay(tx, t, restored, replay)
            part = self.model.sink_v2[t]
            if part == COMMITTER:
                self.committer.commit_and_emit(tx, t, cp)
            elif part == GLOBAL_COMMITTER:
                self.global_committer.commit(tx, t, cp)

    def may_fail_over_jobmanager(self, w: World) -> bool:
        """Can the JobManager fail over now?  While the job runs: not once every subtask
        finished (the job is done), nor once the stop's savepoint completed (the job ends)."""
        return not w.coord.savepoint and any(ts.status != FINISHED for ts in w.tasks)

    @handles(JobManagerFailover)
    @follows("DefaultExecutionGraphFactory.createAndRestoreExecutionGraph")
    def jobmanager_failover(self, tx: Tx) -> None:
        """``JobManagerFailover``: the JobManager fails; with high availability a new leader
        recovers the job.  Every subtask is cancelled (their TaskManagers lose the leader), the
        old coordinator's pending checkpoints go with it, acknowledgements in flight to it are
        lost; then a new ``CheckpointCoordinator`` (``CheckpointCoordinator.recover``) restores
        the latest completed checkpoint to every subtask
        (``DefaultExecutionGraphFactory.createAndRestoreExecutionGraph`` ->
        ``CheckpointCoordinator.restoreInitialCheckpointIfPresent``, which runs
        ``VertexFinishedStateChecker``, as a user's restore does).  Abstractions: cancellation,
        the new leader's election and the redeployment are one step (a failure in between is a
        failure of the recovered job right after it); the pending checkpoints' files, which the
        old JobManager never discards, are deleted (no checkpoint can refer to them)."""
        self.fail(tx, frozenset(range(self.topo.n_tasks)))
        self.new_execution_graph(tx)

    @follows("CheckpointCoordinator.restoreInitialCheckpointIfPresent")
    def new_execution_graph(self, tx: Tx) -> None:
        """Every subtask cancelled: a new execution graph and ``CheckpointCoordinator``
        (``DefaultExecutionGraphFactory.createAndRestoreExecutionGraph``) restore the latest
        checkpoint to every subtask through ``restoreInitialCheckpointIfPresent`` (with the
        finished-state check).  The old coordinator's pending checkpoints and the
        acknowledgements in flight to it are gone."""
        everyone = frozenset(range(self.topo.n_tasks))
        self.coordinator.abort_for_failover(tx, everyone)
        tx.files = remove_sorted(tx.files, *((cp, t) for t, cp, _ in tx.acks))
        tx.acks = ()
        self.coordinator.recover(tx)
        self.restore(tx, user_restore=True)

    @handles(Restore)
    def restart(self, tx: Tx) -> None:
        """``Restore`` after a failure.  The default scheduler restores the failed subtasks
        (``restore``).  The adaptive scheduler (``scheduler = "adaptive"``) restarts the whole job
        on a new execution graph each time (``AdaptiveScheduler``: ``Restarting`` ->
        ``CreatingExecutionGraph``), so with a new coordinator (``new_execution_graph``)."""
        if self.design.scheduler == "adaptive":
            self.new_execution_graph(tx)
        else:
            self.restore(tx)

    def rescaled_vertices(self, latest) -> frozenset[int]:
        """``Scope.rescaled_tasks_decline``: the vertices whose subtasks restore ``latest``'s
        channel state at a new parallelism (the scope's rescaled vertices, when ``latest`` was
        taken at the other one).  Flink gives them an ``InflightDataRescalingDescriptor``, so
        their input is a ``RescalingStreamTaskNetworkInput``, whose ``prepareSnapshot`` declines
        a checkpoint (TASK_NOT_READY) until the recovery ends.  Abstractions: a downstream
        vertex of a rescaled one, which gets a descriptor too, is not included (its subtasks take
        the checkpoint); a rescaled subtask without channel state to read is included, where
        Flink's descriptor is NO_STATE (FLINK-38267) and nothing is declined, which only adds runs
        (``EndOfRecovery`` may come before any barrier)."""
        if not (self.scope.rescaled_tasks_decline and self.model.unaligned and latest is not None):
            return frozenset()
        if self.model.model_of(latest) is self.model:
            return frozenset()
        names = {name for name, _ in self.scope.rescale}
        return frozenset(k for k, v in enumerate(self.topo.job.vertices) if v.name in names)

    @follows("VertexFinishedStateChecker.validateOperatorsFinishedState")
    def check_finished_state(self, latest) -> None:
        """``VertexFinishedStateChecker.validateOperatorsFinishedState`` on ``latest``'s finished
        subtasks (at the parallelism it was taken at) against this job's edges: raise
        ``RestoreFailure`` with Flink's message where it refuses the restore."""
        old = self.model.model_of(latest)
        states = vertex_finished_states(old.topo.tasks_of, [s.finished for s in latest.snapshots])
        refused = validate_operators_finished_state(self.topo.job, states)
        if refused:
            raise RestoreFailure(refused)

    @follows("OperatorState.isFullyFinished")
    def fully_finished(self, snaps: tuple) -> tuple[bool, ...]:
        """Per vertex: is every subtask of it finished in the checkpoint
        (``TaskStateAssignment.isFullyFinished``)?"""
        return tuple(all(snaps[t].finished for t in tasks) for tasks in self.topo.tasks_of)

    def finished_subtask_state(self, t: int, snap: Snapshot) -> Snapshot:
        """The state a finished subtask of a partly finished vertex restarts with: the empty
        ``FinishedOperatorSubtaskState`` (UC note D.4).  A source reader gets no
        split back: a fixed split's reader resumes where ``SourceReader.finished_split_position``
        says (a FLIP-27 reader: at the end), and an enumerator's reader holds none.  The ghost
        ``discarded`` of ``snap`` goes along: the records whose effect was in the finished
        subtask's state."""
        if self.model.roles[t] is Role.SOURCE and t not in self.enumerator.readers:
            return EMPTY_SNAPSHOT._replace(position=self.source.finished_split_position(), discarded=snap.discarded)
        return EMPTY_SNAPSHOT._replace(discarded=snap.discarded)

    def restore_channel_state(self, tx: Tx, latest, victims: set[int]) -> None:
        """Unaligned checkpoints (UC note B.1): each restored channel holds, in this
        order, the consumer's recovered input state (``RecoveredInputChannel``, read before any
        new data), then the producer's recovered output state (written into its subpartition
        before its operators open), then what the restored producer emits.  Both kinds of
        recovered record are marked: the consumer reads the input ones first and declines
        checkpoints until it has (FLINK-20654), and reads no new item on any channel while some
        channel still holds re-sent output (FLINK-19856).  ``StateAssignmentOperation.channel_state`` says what each
        channel gets (redistributed when the checkpoint was taken at another parallelism)."""
        topo = self.topo
        for cid, items in self.assignment.channel_state(latest).items():
            ch = topo.channels[cid]
            if ch.consumer in victims and ch.producer in victims:
                tx.channels[cid] = items

    def may_rescale(self, w: World) -> bool:
        """Can the user restart the job at the other parallelism now?  It needs a completed
        checkpoint, a subtask that has not finished, and no finished subtask of a rescaled
        vertex in the checkpoint.  Abstraction: the model does not rescale a vertex that is
        finished, or partly finished, in the checkpoint (FLIP-147's ``FinishedOperatorSubtaskState``
        at a new parallelism); it hides whatever Flink does with such a restore."""
        store = w.coord.store
        if not store or all(ts.status == FINISHED for ts in w.tasks):
            return False
        latest = store[-1]
        old = self.model.model_of(latest)
        rescaled = {name for name, _ in self.scope.rescale}
        return not any(s.finished for t, s in enumerate(latest.snapshots) if old.topo.vertex(t).name in rescaled)

    @handles(Rescale, whole_world=True)
    def rescale(self, w: World) -> World:
        """``Rescale``: cancel every subtask (the pending checkpoint aborts, channels empty, acks
        in flight are lost with the job), then deploy the job at the other parallelism from the
        latest completed checkpoint, with a new ``CheckpointCoordinator`` (``CheckpointCoordinator.recover``:
        the user's new job, or the adaptive scheduler's new execution graph, whose
        checkpoint-then-rescale, FLINK-36753, is a ``Rescale`` right after a completion)."""
        tx = Tx(w)
        everyone = frozenset(range(self.topo.n_tasks))
        self.fail(tx, everyone)
        self.coordinator.abort_for_failover(tx, everyone)
        tx.files = remove_sorted(tx.files, *((cp, t) for t, cp, _ in tx.acks))  # the old job's acks are gone with it
        gone = tx.freeze()
        new = self.model.configs[(w.used.rescales + 1) % len(self.model.configs)]
        nxt = World(
            tasks=tuple(new.task.fresh(t, EMPTY_SNAPSHOT, 0, 1)._replace(status=FAILED) for t in range(new.topo.n_tasks)),
            channels=tuple(() for _ in new.topo.channels),
            coord=gone.coord,
            acks=(),
            files=gone.files,
            txns=gone.txns,
            used=gone.used._replace(rescales=gone.used.rescales + 1),
            reused=gone.reused,
        )
        tx = Tx(nxt)
        new.coordinator.recover(tx)  # a new job (or, adaptive, a new execution graph): a new coordinator
        new.failover.restore(tx, user_restore=True)
        return tx.freeze()
