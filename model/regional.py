"""FLIP-600 regional checkpoints: the coordinator's ``RegionalCheckpointHandler`` as the FLIP-600
thread and PR #28963 describe it (mechanics note 8.1, ``tryCompleteRegionalCheckpoint``).  The
pull requests' readings of the rules the thread leaves open are subclasses in ``model.flip600``;
each abstraction is stated on the method that makes it.
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import CoordinatorsFellBack, handles
from .component import Component, follows
from .coordinator import pending_checkpoint, put_pending
from .tx import Tx
from .world import (
    EMPTY_SNAPSHOT,
    FINISHED,
    RUNNING,
    Completed,
    Pending,
    Snapshot,
    World,
    remove_sorted,
)

# ``Pending.completing`` of a checkpoint whose evaluation threw and that stays pending for good
# (``fallback_state_rule = "by-index-stuck"``): fallback id 0, no failed region recorded
STUCK = (0, 0, 0)


def ref_chain(by_id: dict, c: Completed, t: int) -> list[int]:
    """The checkpoint ids from ``c`` following subtask ``t``'s refCheckpointId through the
    checkpoints of ``by_id`` (id -> ``Completed``): ``[c.id, ref, ref of ref, ...]``.  A chain
    into a checkpoint at another parallelism, or one the store no longer holds, ends there."""
    chain, cur = [c.id], c
    while cur is not None and cur.refs and len(cur.refs) == len(c.snapshots) and cur.refs[t]:
        chain.append(cur.refs[t])
        cur = by_id.get(cur.refs[t])
    return chain


class RegionalCheckpointHandler(Component):
    """FLIP-600's handler of declines and regional completion, as the thread has it.

    A checkpoint declined in some pipelined regions waits until every task acked or declined;
    then, if few enough regions failed and a completed checkpoint exists, every subtask of a
    failed region takes its state (and files) from the latest completed checkpoint, tagged
    ``refCheckpointId``.  ``max_consecutive_regional`` regional completions in a row force the
    next checkpoint global (tier 1); a forced global checkpoint that fails aborts (tier 2); once
    every source is exhausted the next checkpoint must be global.  The pull request as it stands
    (preset ``flip600-pr``) differs in the readings its knob values select (``model.flip600``):
    the regions counted are those of the running tasks (row B3), a forced checkpoint is judged
    after every response (B1, B5, B6), end of input sets the shared force flag (B6, B8, N2), a
    timeout marks the silent tasks declined (B9), the fallback state is taken by subtask index
    (N1), FLIP-147's union-state check runs after the coordinators' fallback (N3), the completion
    waits for the coordinators' fallback (N5).

    With more than one concurrent checkpoint (``max_concurrent_checkpoints``) the counter and the
    force flag stay one per handler, as in PR #28963: a checkpoint triggered forced may be judged
    after an older one's tier 2 or global completion cleared the flag (with the PR's
    ``forced_checkpoint_waits`` the evaluation reads the flag alone, PR step 7), and a regional
    completion aborts the older pending checkpoints (``dropSubsumedCheckpoints``).

    Abstractions: the failure ratio counts the regions of ``regions()``; the enumerator's state
    correction is ``SplitEnumerator.state_in_checkpoint``.  BLOCKING-separated regions: the model
    runs a BLOCKING exchange as a pipelined one (its consumers are not held back until the
    producers finish), so ``regions()`` keeps the thread's auto-disable for jobs with such an
    edge; the PR's reading (distinct regions) is not offered, because in Flink the consumer
    region of a BLOCKING edge is deployed only after its producers finished, and a checkpoint
    waits for no FINISHED task."""

    @follows("#28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint")
    def regions(self, waiting: int | None = None) -> list[frozenset[int]]:
        """The regions a regional checkpoint may treat independently (the FLIP-600 thread).

        The pipelined regions, but only when no BLOCKING or HYBRID edge joins them ("BLOCKING/
        HYBRID edges between Regions -> Auto-disable at runtime"): otherwise the whole job is one
        region, and a single region disables regional checkpoints.  With
        ``regions_of_running_tasks`` and the checkpoint's ``waiting`` mask, only the regions of
        the tasks it waits for, each cut to those tasks (PR #28963,
        ``RegionalCheckpointHandler.tryCompleteRegionalCheckpoint`` steps 3-6: ``regionIdProvider``
        over ``tasksToWaitFor``; row B3): a region whose tasks all finished is not counted.
        """
        topo = self.topo
        if not topo.all_pipelined:
            return [frozenset(range(topo.n_tasks))]
        return list(topo.regions)

    @follows("#28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint")
    def judged_regions(self, pending: Pending) -> tuple[list[frozenset[int]], list[frozenset[int]], bool]:
        """The regions a declined checkpoint is judged over, the failed ones among them, and
        whether that already aborts it: one region or fewer, or more failed than
        ``max_failed_region_percent`` allows (PR #28963 ``tryCompleteRegionalCheckpoint``
        steps 3-6)."""
        regions = self.regions(pending.waiting)
        failed = [r for r in regions if any(pending.declined >> t & 1 for t in r)]
        return regions, failed, self.too_many_failed(len(failed), len(regions))

    def too_many_failed(self, failed: int, regions: int) -> bool:
        """Does a checkpoint with ``failed`` of its ``regions`` failed abort: one region or fewer, or
        a failed share that exceeds ``region.max-failure-ratio`` (``max_failed_region_percent``;
        PR #28963 steps 4-6)?"""
        return regions <= 1 or 100 * failed > self.design.max_failed_region_percent * regions

    @follows("#28963 RegionalCheckpointHandler.allSourcesFinishedChecker")
    def sources_done(self, tasks: Sequence) -> bool:
        """Has every source reached the end of its input: ended (EndOfData emitted) or FINISHED
        (the thread; PR #28964's ``allSourcesFinishedChecker`` asks for FINISHED only, row B8,
        ``model.flip600.SourcesFinished``)?"""
        return all(tasks[t].ended or tasks[t].status == FINISHED for t in self.topo.sources)

    def end_of_input_forces(self) -> bool:
        """Does every source exhausted force a checkpoint global (``global_checkpoint_at_end_of_input``;
        Raorao, 23 Jun 2026)?  Here it does."""
        return True

    def end_of_input_moment(self) -> str:
        """When end of input forces a checkpoint global (``end_of_input_rule``): ``"trigger"``, a
        bit the checkpoint gets at its trigger (the thread); ``"flag-at-trigger"``, the shared force
        flag set at a trigger (PR #28964); ``"evaluation"``, decided when a declined checkpoint is
        evaluated (an earlier reading of the PR)."""
        return "trigger"

    def forces_global_after(self, count: int) -> bool:
        """Does ``count`` regional checkpoints in a row force the next one global (tier 1,
        ``force_global_after_max``)?  At ``max_consecutive_regional``."""
        return count >= self.design.max_consecutive_regional

    def tier2_resets(self) -> bool:
        """Does a forced global checkpoint that aborts reset the counter (tier 2,
        ``forced_global_failure_resets_counter``; the thread: "the checkpoint is aborted normally ...
        The counter is then reset")?  Here it does."""
        return True

    def must_be_global(self, tx: Tx) -> bool:
        """Is the checkpoint being triggered forced global?  Tier 1 (``force_global``), or
        every source exhausted (``global_checkpoint_at_end_of_input``; Raorao, 23 Jun 2026).
        Under ``end_of_input_rule = "finished-sets-force"`` end of input is not decided at the
        trigger but when a declined checkpoint is evaluated (``forced_at_evaluation``); under
        ``"finished-forces-at-trigger"`` it set the force flag just before (``on_trigger``)."""
        if not self.design.regional_checkpoints:
            return False
        if tx.coord.force_global:
            return True
        return self.end_of_input_forces() and self.end_of_input_moment() == "trigger" and self.sources_done(tx.tasks)

    @follows("#28964 RegionalCheckpointHandler.checkAllSourcesFinishedAndForceGlobal")
    def on_trigger(self, tx: Tx) -> None:
        """A periodic checkpoint is being triggered.  Under ``end_of_input_rule =
        "finished-forces-at-trigger"``, every source FINISHED sets the shared force flag
        (PR #28964 ``checkAllSourcesFinishedAndForceGlobal(CheckpointProperties)``: it takes the
        triggering checkpoint's properties and skips savepoints; row N2), so the
        checkpoint being triggered is judged forced global.  The PR's call site is not indexed:
        if it were at the evaluation instead (``"finished-sets-force"``, searchable), a checkpoint
        triggered before the last source finished and declined after would abort where this
        reading completes it regionally."""
        if (self.design.regional_checkpoints and self.end_of_input_forces() and self.end_of_input_moment() == "flag-at-trigger"
                and not tx.coord.force_global and self.sources_done(tx.tasks)):
            tx.coord = tx.coord._replace(force_global=True)

    @follows("#28963 PendingCheckpoint.recordDecline")
    def on_decline(self, tx: Tx, t: int, cp: int) -> None:
        """A decline in regional mode.  Without ``forced_checkpoint_waits`` a forced global
        checkpoint aborts at once; tier 2 (the FLIP-600 thread: "the checkpoint is aborted normally ... The
        counter is then reset") resets the counter when ``forced_global_failure_resets_counter``.
        Otherwise the checkpoint waits until every task acked or declined (``recordDecline``,
        then ``areAllTasksResponded``: PR #28963 ``CheckpointCoordinator.receiveDeclineMessage``,
        row B1)."""
        pending = pending_checkpoint(tx.coord, cp)
        if self.forced_before_judging(tx, pending):
            self.tier2(tx, pending)
            return
        put_pending(tx, pending._replace(declined=pending.declined | 1 << t))
        if self.scope.instant_acks and pending.acked:  # evaluated by LastAck (``acknowledge_at_once``)
            return
        self.coordinator.maybe_finalize(tx, cp)

    def on_timeout(self, tx: Tx, cp: int) -> bool:
        """A pending checkpoint's timer fires: the handler leaves it to the coordinator, which
        aborts it, counted (the thread; ``model.flip600.TimeoutsCompleteRegionally`` reads PR
        #28964, row B9).  Returns whether it handled the timeout."""
        return False

    def forced(self, tx: Tx, pending: Pending) -> bool:
        """The thread's rule (without ``forced_checkpoint_waits``): may ``pending`` not complete
        regionally?  Its mark at its trigger (``must_be_global``), or, with
        ``regional_limit_checked_at = "evaluation"``, the count at the maximum now: with
        concurrent checkpoints, one triggered before the count reached the maximum is judged
        after it (catalog F5)."""
        return pending.global_only

    @follows("#28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint")
    def forced_at_evaluation(self, tx: Tx | World, pending: Pending) -> bool:
        """PR #28963 step 7: is the checkpoint being evaluated forced global (read from a step's
        ``Tx`` or, for a witness, a ``World``: only ``coord`` and ``tasks``)?  The shared flag
        ``forceGlobalNextCheckpoint`` (tier 1), or, under ``end_of_input_rule =
        "finished-sets-force"``, every source FINISHED, which sets that same flag
        (``checkAllSourcesFinishedAndForceGlobal``, row B6).  Without
        ``forced_checkpoint_waits`` (the thread) the checkpoint's own mark at its trigger counts
        too; with it (the PR) only the flag as it is now."""
        if tx.coord.force_global or pending.global_only:
            return True
        if self.end_of_input_forces() and self.end_of_input_moment() == "evaluation":
            return self.sources_done(tx.tasks)
        return False

    def forced_before_judging(self, tx: Tx, pending: Pending) -> bool:
        """Does ``pending`` abort as a forced global one before its regions are judged: at a decline,
        or at its evaluation (the thread: ``forced``)?  PR #28963 checks it after the region
        count and the ratio (``forced_after_judging``, ``model.flip600.ForcedCheckpointWaits``)."""
        return self.forced(tx, pending)

    def forced_after_judging(self, tx: Tx, pending: Pending) -> bool:
        """Does ``pending`` abort as a forced global one once its regions are judged?  Not here:
        the thread decides it before (``forced_before_judging``)."""
        return False

    def decline_aborts(self, w: World, cp: int) -> bool:
        """Does a decline abort pending checkpoint ``cp`` at once (``CheckpointCoordinator.decline_fails_job``
        asks)?  Here a forced global one does."""
        return pending_checkpoint(w.coord, cp).global_only

    def tier2(self, tx: Tx, pending: Pending) -> None:
        """A forced global checkpoint that some region declined aborts (counted).  Tier 2 (seed
        000: "the checkpoint is aborted normally ... The counter is then reset") resets the
        counter and the force flag when ``forced_global_failure_resets_counter``.  Under
        ``forced_checkpoint_waits`` there is one flag for tier 1 and end of input (PR #28963 step
        7), so the reset clears both, and without the reset the next checkpoint stays forced;
        otherwise the thread's end-of-input rule is a bit of its own that leaves the counter
        alone."""
        coord = tx.coord
        if coord.force_global and self.tier2_resets():
            tx.coord = coord._replace(consecutive_regional=0, force_global=False)
        self.coordinator.abort(tx, pending.id, counted=True)

    @follows("#28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint")
    def try_complete(self, tx: Tx, pending: Pending) -> None:
        """``tryCompleteRegionalCheckpoint`` (mechanics note 8.1).

        Aborts (counted) with one region or fewer, when too many regions failed, when it is a
        forced global one (tier 2, ``tier2``; PR #28963 checks this after the region count and
        the ratio, row B5), without a completed checkpoint to fall back to, or when a
        split enumerator in a failed region does not support the fallback
        (``coordinator_region_fallback = "abort"``, PR step 5).
        FLIP-147's union-state check (``finished_check``) aborts it uncounted here, before the
        fallback, unless ``regional_finished_check`` puts it after the fallback, counted, as the
        PR does (``finish``).  Otherwise the coordinators fall back (the enumerator's state
        correction, ``add_back_live``), and with a reader in a failed region and
        ``regional_completion`` waiting for them the checkpoint stays pending until
        ``after_coordinators``; then (or at once) ``finish`` completes it with the failed
        regions' fallback state, grows the counter (reaching the maximum forces the next
        checkpoint global), and notifies: healthy tasks complete, failed-region tasks as
        ``notice_for_failed_region`` says (the completion with the fallback id,
        ``fallback_notice_id``).
        """
        if self.forced_before_judging(tx, pending):  # only a timeout brings a forced one here (or, judged at the
            # evaluation, a checkpoint the count reached the maximum for since its trigger)
            self.tier2(tx, pending)
            return
        regions, failed, too_many = self.judged_regions(pending)
        store = tx.coord.store
        if too_many:
            self.coordinator.abort(tx, pending.id, counted=True)
            return
        if self.forced_after_judging(tx, pending):
            self.tier2(tx, pending)
            return
        if not store:
            self.coordinator.abort(tx, pending.id, counted=True)
            return
        in_failed = set().union(*failed)
        failed_readers = in_failed.intersection(self.enumerator.readers)
        if failed_readers and not self.coordinators_support_fallback():
            self.coordinator.abort(tx, pending.id, counted=True)
            return
        fallback = store[-1]
        if not self.finished_check_after_fallback() and self.finished_check(tx, pending, in_failed, fallback):
            self.coordinator.abort(tx, pending.id, counted=False)  # as the global path: TASK_CLOSING
            return
        if any(self.fallback_state(fallback, t) is None for t in in_failed if not pending.finished >> t & 1):
            # PR step 11 throws (IndexOutOfBoundsException) before step 12's coordinator fallback
            self.on_fallback_state_missing(tx, pending)
            return
        enum, assignments = self.enumerator.state_in_checkpoint(tx.coord, pending, failed_readers, fallback.id)
        self.enumerator.on_region_fallback(tx, tx.coord, pending, failed_readers, fallback.id)
        if failed_readers and self.waits_for_coordinators():
            acked = 0
            for t, _ in pending.acked:
                acked |= 1 << t
            failed_mask = sum(1 << t for t in in_failed)
            put_pending(tx, pending._replace(enum=enum, completing=(fallback.id, failed_mask, acked)))
            return
        self.finish(tx, pending, in_failed, fallback, enum, assignments)

    def keep_fallback_alive(self, tx: Tx, files: set, cp: int) -> None:
        """With file merging, the fallback's segments a regional checkpoint refers to are kept
        alive (``file_merging_keeps_fallback_alive``; the FLIP deferred it on 7 Jul 2026)."""
        self.file_merging_manager.keep_alive(tx, files, cp)

    def finished_check_after_fallback(self) -> bool:
        """Does FLIP-147's union-state check run after the coordinators' fallback, its failure
        counted (``regional_finished_check = "after-fallback-counted"``)?  Here it runs before
        the fallback, uncounted, as on the global path (``as-global``)."""
        return False

    def waits_for_coordinators(self) -> bool:
        """Does a regional completion with a failed reader wait for the operator coordinators'
        fallback (``CoordinatorsFellBack``)?  Not here: it completes atomically with the
        evaluation (``regional_completion = "atomic"``; ``model.flip600`` holds the PR's futures)."""
        return False

    def late_acks(self, tx: Tx, pending: Pending, late: set[int]) -> tuple[Pending, set[int]]:
        """Acknowledgements that arrived during the wait from failed-region tasks (``late``): they
        replace the grafted fallback state (``futures-late-ack-overwrites``)."""
        return pending, late

    def on_fallback_state_missing(self, tx: Tx, pending: Pending) -> None:
        """Taking a failed subtask's fallback state threw (PR step 11, before step 12's coordinator
        fallback): the checkpoint aborts, counted (the exception's path past the handler is not
        indexed; ``model.flip600.FallbackStateStuck`` reads it as caught nowhere)."""
        self.coordinator.abort(tx, pending.id, counted=True)

    def may_time_out(self, pending: Pending) -> bool:
        """May ``pending``'s timer fire?  Not while its regional completion waits for the
        coordinators' fallback (``regional_wait_reentry = "none"``; row T5)."""
        return not pending.completing

    def coordinators_support_fallback(self) -> bool:
        """Do the operator coordinators of a failed region support the fallback
        (``supportsRegionCheckpoint``, PR step 5)?  Here they do."""
        return True

    @staticmethod
    def stuck(pending: Pending) -> bool:
        """Did the evaluation of ``pending`` throw and leave it pending for good
        (``fallback_state_rule = "by-index-stuck"``)?  Such a checkpoint is ``completing`` with
        ``STUCK``: no coordinator fallback follows, nothing re-evaluates it and its timeout does
        nothing; a failover's restore aborts it, as it aborts every pending checkpoint."""
        return pending.completing == STUCK

    @handles(CoordinatorsFellBack, "checkpoint")
    @follows("#28963 RegionalCheckpointHandler.completeRegionalCheckpoint")
    def after_coordinators(self, tx: Tx, cp: int) -> None:
        """The futures of the coordinators' fallback for ``cp`` completed (PR #28963
        ``tryCompleteRegionalCheckpoint`` step 13: ``FutureUtils.combineAll(...)`` then
        ``completeRegionalCheckpoint``): the completion goes on with the regions judged at the
        evaluation.  An acknowledgement that arrived meanwhile from a failed-region task (one a
        timeout marked declined) replaces the fallback state grafted for it under
        ``futures-late-ack-overwrites`` (``PendingCheckpoint.acknowledgeTask`` does not consult
        ``declinedTasks``: ``updateOperatorState`` -> ``putState``), and its own snapshot goes into
        the checkpoint with no refCheckpointId; under ``futures-late-ack-discarded`` it is
        dropped with its file.  Abstractions: the PR's ``receiveAcknowledgeMessage`` is not
        indexed, so whether that late ack could instead complete the checkpoint globally is not
        modelled; and where the PR keeps a grafted subtask's refCheckpointId apart from its
        state, the model's "no refCheckpointId" hides a checkpoint that refers to the fallback
        for state it no longer holds (retention keeps more, never less)."""
        pending = pending_checkpoint(tx.coord, cp)
        fallback_id, failed_mask, acked_before = pending.completing
        fallback = next(c for c in tx.coord.store if c.id == fallback_id)
        late = {t for t, _ in pending.acked if failed_mask >> t & 1 and not acked_before >> t & 1}
        if late:
            pending, late = self.late_acks(tx, pending, late)
        in_failed = {t for t in range(self.topo.n_tasks) if failed_mask >> t & 1}
        failed_readers = in_failed.intersection(self.enumerator.readers)
        _, assignments = self.enumerator.state_in_checkpoint(tx.coord, pending, failed_readers, fallback_id)
        self.finish(tx, pending._replace(completing=()), in_failed - late, fallback, pending.enum, assignments, late)

    def finish(self, tx: Tx, pending: Pending, in_failed: set, fallback: Completed, enum: tuple, assignments: tuple,
               late: set[int] | frozenset[int] = frozenset()) -> None:
        """The regional completion after the coordinators' fallback: FLIP-147's check where the
        PR runs it, the checkpoint's content, the store, the counters and the notices.
        ``late``: failed-region tasks whose own late acknowledgement replaced their graft
        (``after_coordinators``); they are notified as failed-region tasks all the same (the PR
        picks the notice by the region judged at step 8)."""
        if self.finished_check_after_fallback() and self.finished_check(tx, pending, in_failed, fallback):
            # PendingCheckpoint.finalizeRegionalCheckpoint throws; FINALIZE_CHECKPOINT_FAILURE, counted
            self.coordinator.abort(tx, pending.id, counted=True)
            return
        snaps, refs, files = self.mixed_state(tx, pending, in_failed, fallback)
        if self.design.file_merging:
            self.keep_fallback_alive(tx, files, pending.id)
        coord = tx.coord
        count = coord.consecutive_regional + 1
        tx.coord = coord._replace(
            assignments=assignments,
            pending=tuple(p for p in coord.pending if p.id > pending.id),
            store=coord.store + (Completed(pending.id, tuple(snaps), tuple(sorted(files)), tuple(refs), False, enum),),
            failed_count=0,
            completed_count=coord.completed_count + 1,
            consecutive_regional=count,
            force_global=self.forces_global_after(count),
        )
        for older in coord.pending:  # dropSubsumedCheckpoints: CHECKPOINT_SUBSUMED, not counted, their tasks told
            if older.id < pending.id:
                self.coordinator.notify_aborted(tx, older)
        subsumed = self.store.retain(tx)
        self.open_gateways(tx, pending.id, in_failed)
        for t in range(self.topo.n_tasks):
            if pending.waiting >> t & 1 and tx.tasks[t].status == RUNNING:
                if t in in_failed or t in late:
                    self.notice_for_failed_region(tx, t, pending, fallback, subsumed)
                else:
                    self.coordinator.send_complete(tx, t, pending.id, subsumed)

    @follows("#28963 PendingCheckpoint.finalizeRegionalCheckpoint")
    def finished_check(self, tx: Tx, pending: Pending, in_failed: set, fallback: Completed) -> bool:
        """FLIP-147's check on a regional checkpoint's content (``DefaultCheckpointPlan.fulfillFinishedTaskStatus``,
        ``CheckpointCoordinator.partly_finished_union_vertex``): would a vertex with union list
        state be partly finished in it, the failed-region subtasks counted by the state they
        take from ``fallback``?  ``regional_finished_check`` says when it runs and what its
        failure costs: ``as-global``, before the fallback changes anything, an uncounted abort
        as on the global path (TASK_CLOSING); ``after-fallback-counted``, as PR #28963 does
        (row N3): ``PendingCheckpoint.finalizeRegionalCheckpoint`` calls
        ``checkpointPlan.fulfillFinishedTaskStatus(operatorStates)`` after step 12 already ran
        ``checkpointCoordinatorForRegionFallback`` (a live add-back stays), and the
        ``PartialFinishingNotSupportedByStateException`` reaches ``completeRegionalCheckpoint``'s
        ``catch (Exception)``: ``abortPendingCheckpoint(FINALIZE_CHECKPOINT_FAILURE)``, which
        ``CheckpointFailureManager.checkFailureCounter`` counts.  Abstraction: a grafted
        subtask's operators count as finished when it ended before the fallback's snapshot of it."""
        grafted = {t: fallback.id for t in in_failed if not pending.finished >> t & 1}
        return self.coordinator.partly_finished_union_vertex(tx, pending, grafted) is not None

    @follows("#28963 OperatorCoordinatorHolder.notifyRegionalCheckpointFallback")
    def open_gateways(self, tx: Tx, cp: int, in_failed: set) -> None:
        """The operator-event gateways at a regional completion (``model.gateway``).
        ``reopened``: every coordinator is told the checkpoint completed, as on the global path
        (``OperatorCoordinatorHolder.notifyCheckpointComplete`` opens every gateway marked for
        it), so a failed-region reader that never took its snapshot gets its held split.
        ``left-closed`` (``regional_gateway_on_fallback``, PR #28963 at 4e12013):
        ``completeRegionalCheckpoint`` calls ``notifyRegionalCheckpointComplete`` (which reopens
        every gateway) only on coordinators with no subtask in a failed region, and
        ``notifyRegionalCheckpointFallback`` (which reopens none) on the others; their readers'
        gateways open when each reader takes its snapshot, or at a later completion or abort.
        The model's readers in a failed region that have not snapshotted are those whose trigger
        RPC is still on its way (a decline follows a snapshot here; a lost trigger RPC is not
        modelled), so the gateway stays closed until that RPC arrives, or until the reader fails
        over and gets a new one: what the PR's rule can hide is a reader that never takes that
        snapshot."""
        self.gateways.on_checkpoint_done(tx, cp)

    def notice_for_failed_region(self, tx: Tx, t: int, pending: Pending, fallback: Completed, subsumed: int) -> None:
        """The notice running task ``t`` of a failed region gets when ``pending`` completes
        regionally with ``fallback``'s state for it: PR #28963 step 8 (``tryCompleteRegionalCheckpoint``
        notifies the failed regions' tasks with the fallback id), the completion of ``pending``
        carrying ``fallback_notice_id`` (``CheckpointCoordinator.send_fallback``; ``subsumed`` is
        FLIP-306's ``lastSubsumedCheckpointId``)."""
        self.coordinator.send_fallback(tx, t, pending.id, self.fallback_notice_id(tx, t, fallback), subsumed)

    def mixed_state(self, tx: Tx, pending: Pending, in_failed: set, fallback: Completed):
        """The regional checkpoint's content: per subtask its snapshot and refCheckpointId (0: its
        own state), and the files it refers to.  A failed-region subtask takes the fallback's
        snapshot and files (``StateAssignmentOperation.fallback_state``: after a rescale, the
        state it was restored with); its own acked snapshot is not part of the checkpoint and is
        discarded."""
        acked = dict(pending.acked)
        snaps: list = []
        refs: list = []
        files: set = set()
        for t in range(self.topo.n_tasks):
            if pending.finished >> t & 1:
                snaps.append(self.task.finished_snapshot(tx.tasks[t]))
                refs.append(0)
            elif t in in_failed:
                snap, its_files = self.fallback_state(fallback, t)
                snaps.append(snap)
                refs.append(fallback.id)
                files.update(its_files)
            else:
                snaps.append(acked.get(t, EMPTY_SNAPSHOT))
                refs.append(0)
                if t in acked:
                    files.update(self.registry.snapshot_files(pending.id, t, acked[t]))
        for t in acked:
            if t in in_failed:
                tx.files = remove_sorted(tx.files, (pending.id, t))
        return snaps, refs, files

    @follows("#28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint")
    def fallback_state(self, fallback: Completed, t: int) -> tuple[Snapshot, set] | None:
        """What failed-region subtask ``t`` takes from ``fallback``: its snapshot and the files it
        refers to, or None where the PR's rule throws.  At the fallback's own parallelism every
        rule gives the fallback's snapshot of ``t``.  After a rescale, ``fallback_state_rule``:
        the state ``t`` was restored with (``StateAssignmentOperation.fallback_state``, the
        thread's rule), or the fallback's subtask with ``t``'s index (PR #28963
        ``tryCompleteRegionalCheckpoint`` step 11: ``lastState.getState(subtaskIdx)``, no
        parallelism check, row N1): after a scale-down the old subtask's state, covering
        other key groups and splits than ``t`` now owns; after a scale-up an index the fallback
        lacks, for which Flink's ``OperatorState.getState`` throws (``by-index``) or, in the
        reading that nothing is grafted, an empty state (``by-index-empty``).  Abstraction: the
        exception's path past the handler (the PR's ``CheckpointCoordinator`` is not indexed) is
        modelled as a counted abort of the checkpoint; if the PR instead fails the job over, or
        the checkpoint hangs, the model hides that failover or that hang."""
        return self.assignment.fallback_state(fallback, t)

    def recovered(self, tx: Tx) -> None:
        """The handler of a new ``CheckpointCoordinator`` (a JobManager failover).  PR #28963 keeps
        the counter and the force flag in fields of the handler the coordinator creates
        (``consecutiveRegionalCheckpointCount = 0``, ``forceGlobalNextCheckpoint = false`` at
        4e12013), so the new one starts at 0, not forced (``regional_counter_on_recovery =
        "reset"``), whatever chain of refCheckpointIds the restored checkpoint already has.
        ``"from-store"``: the counter is read back from the recovered store, as the longest
        chain of refCheckpointId hops in the latest completed checkpoint (what the next regional
        completion extends), and forces the next checkpoint global when that reaches the
        maximum."""
        if not self.design.regional_checkpoints:
            return
        count = self.recovered_count(tx)
        tx.coord = tx.coord._replace(
            consecutive_regional=count,
            force_global=count > 0 and self.forces_global_after(count))

    def recovered_count(self, tx: Tx) -> int:
        """The consecutive-regional count of a new handler: 0 (``regional_counter_on_recovery =
        "reset"``, as PR #28963's fields start; ``model.flip600.CounterFromStore`` reads it back)."""
        return 0

    @staticmethod
    def chain_depth(store: tuple, c: Completed) -> int:
        """The most refCheckpointId hops from ``c`` for any subtask, through the checkpoints of
        ``store``."""
        by_id = {x.id: x for x in store}
        return max((len(ref_chain(by_id, c, t)) - 1 for t in range(len(c.snapshots))), default=0)

    def fallback_notice_id(self, tx: Tx, t: int, fallback: Completed) -> int:
        """The id a failed-region task's notice carries (PR step 8: the fallback id): the task
        commits up to it (``model.flip600.OwnStateCommitBound`` reads it otherwise)."""
        return fallback.id
