"""FLIP-600's readings: where the thread, PR #28963/#28964 or PR #28966 leave a rule open, the
components hold the thread's reading and each other reading is a subclass here, overriding the
method of one step (``model.reading``).  A knob's value selects it, so ``flip600-pr`` is the
family of the PR's readings (``ckptcheck designs`` lists them).
"""

from __future__ import annotations

from .coordinator import CheckpointCoordinator
from .failover import FailoverStrategy
from .local_state import TaskLocalStateStore
from .reading import Reading
from .regional import STUCK, RegionalCheckpointHandler
from .sources import SplitEnumerator
from .store import CompletedCheckpointStore
from .task import StreamTask
from .tx import Tx
from .coordinator import pending_checkpoint, put_pending
from .world import EMPTY_SNAPSHOT, FINISHED, NOTIFY_FALLBACK, Completed, Coordinator, Pending, remove_sorted


# -- the fallback notice at a failed-region task (StreamTask; rows N4, PR3, B13) --------------------
class FallbackNoticeIgnored(StreamTask, Reading):
    """The task's ``StreamTask`` does nothing with the notice; where it reaches the operators,
    they commit what the fallback state covers and the keyed state backend, a checkpoint
    listener too, confirms its uploads."""

    knob, value = "fallback_notice_at_task", "none"
    follows = "#28963 notifyRegionalCheckpointFallback (StreamTask side not indexed)"

    def take_fallback_notice(self, tx: Tx, t: int, cp: int, own: int) -> None:
        if self.fallback_reaches_operators():
            self.sink.commit_up_to(tx, t, own)
            if self.registry.active:
                self.registry.on_complete(tx, t, cp, own)


class FallbackNoticeLatestReported(StreamTask, Reading):
    """The task records ``cp`` as ``latestReportCheckpointId``, so a later completion or abort
    replay of an id up to ``cp`` is ignored, without completing ``finalCheckpointCompleted``."""

    knob, value = "fallback_notice_at_task", "latest-reported"
    follows = "#28963 StreamTask.notifyCheckpointComplete's early return (not indexed)"

    def take_fallback_notice(self, tx: Tx, t: int, cp: int, own: int) -> None:
        self.on_complete(tx, t, cp, commit_upto=own, final=False, operators=self.fallback_reaches_operators())


class FallbackNoticeReplayedAfterRestart(FailoverStrategy, Reading):
    """A completion in full, as the proposal reads it, that "survives task restarts and is
    applied after the task recovers" (PR #28966's documentation, row PR3): a cancelled task keeps
    its unread fallback notices (``TaskState.held``) for its next attempt."""

    knob, value = "fallback_notice_at_task", "replayed-after-restart"
    follows = "#28966 notifyRegionalCheckpointFallback (documentation)"

    def notices_surviving_restart(self, ts) -> tuple:
        return tuple(m for m in ts.inbox if m[0] == NOTIFY_FALLBACK)


class FallbackNoticeStopsAtTask(StreamTask, Reading):
    """The notice reaches ``CheckpointListener.notifyRegionalCheckpointFallback``, a no-op unless
    an operator overrides it (PR #28963, row B13): the operators commit nothing."""

    knob, value = "fallback_notice_reaches_operators", False
    follows = "#28963 CheckpointListener.notifyRegionalCheckpointFallback"

    def fallback_reaches_operators(self) -> bool:
        return False


# -- local recovery (TaskLocalStateStore) ----------------------------------------------------------
class FallbackDropsCopy(TaskLocalStateStore, Reading):
    """The fallback notice of regional checkpoint ``cp`` drops the task manager's copy of ``cp``,
    which ``cp`` does not hold (PR #28966's documentation of ``notifyRegionalCheckpointFallback``;
    a failure before the notice is processed still leaves it)."""

    knob, value = "local_recovery_rule", "fallback-drops-copy"
    follows = "#28966 notifyRegionalCheckpointFallback (documentation)"

    def on_fallback(self, tx: Tx, t: int, cp: int) -> None:
        self.abort(tx, t, cp)


class RestoreByRef(TaskLocalStateStore, Reading):
    """A grafted subtask's restore asks for the copy of the checkpoint whose state it is, its
    refCheckpointId, not of the checkpoint restored (the fix of catalog F6)."""

    knob, value = "local_recovery_rule", "restore-by-ref"
    follows = "the fix of catalog F6"

    def copy_asked_for(self, cp: int, ref: int) -> int:
        return ref or cp


# -- what a failed-region task may commit up to (own_state_commit_bound: the fix of catalog F1/F2) -
class OwnStateCommitBound(CheckpointCoordinator, Reading):
    """The latest completed id a task is told (an abort notice's) is the checkpoint that really
    holds its state: refs are followed, since a fallback may itself be a fallback, and committing
    a transaction pre-committed for a checkpoint that does not hold the task's state commits
    records a restore of that checkpoint replays."""

    knob, value = "own_state_commit_bound", True
    follows = "the fix: own state as the commit bound"

    def latest_completed_for(self, store: tuple, t: int) -> int:
        if not store:
            return 0
        c = store[-1]
        by_id = {x.id: x for x in store}
        while c.refs and c.refs[t] and c.refs[t] in by_id:
            c = by_id[c.refs[t]]
        return c.refs[t] if c.refs and c.refs[t] else c.id


class OwnStateFallbackNotice(RegionalCheckpointHandler, Reading):
    """The fallback notice carries the checkpoint that really holds the task's state
    (``CheckpointCoordinator.latest_completed_for`` as ``OwnStateCommitBound`` reads it)."""

    knob, value = "own_state_commit_bound", True
    follows = "the fix: own state as the commit bound"

    def fallback_notice_id(self, tx: Tx, t: int, fallback: Completed) -> int:
        return self.coordinator.latest_completed_for(tx.coord.store, t)


# -- operator coordinators in a failed region (coordinator_region_fallback; row B12) ----------------
class AddBackLive(SplitEnumerator, Reading):
    """PR #28963's ``SourceCoordinator.checkpointCoordinatorForRegionFallback``: the splits assigned
    to a failed-region reader after the fallback go back into the live enumerator, while the
    reader keeps reading them; the tracker gives those assignments up."""

    knob, value = "coordinator_region_fallback", "add-back-live"
    follows = "#28963 SourceCoordinator.checkpointCoordinatorForRegionFallback"

    def region_fallback_correction(self, cp: int, e: int, r: int, s: int) -> tuple[bool, tuple | None]:
        return True, None

    def on_region_fallback(self, tx: Tx, coord: Coordinator, pending: Pending, failed_readers: set, fallback_id: int) -> None:
        self.add_back_live(tx, coord, pending, failed_readers, fallback_id)


class CoordinatorWithoutFallback(RegionalCheckpointHandler, Reading):
    """A split enumerator without support for the fallback (``supportsRegionCheckpoint`` false):
    a regional checkpoint with a failed reader aborts (PR step 5)."""

    knob, value = "coordinator_region_fallback", "abort"
    follows = "#28963 OperatorCoordinator.supportsRegionCheckpoint"

    def coordinators_support_fallback(self) -> bool:
        return False


class EnumeratorWithoutFallback(SplitEnumerator, Reading):
    """With the fallback unsupported, the enumerator's state is taken as is (the checkpoint aborts
    before it matters: ``CoordinatorWithoutFallback``)."""

    knob, value = "coordinator_region_fallback", "abort"
    follows = "#28963 OperatorCoordinator.supportsRegionCheckpoint"

    def region_fallback_correction(self, cp: int, e: int, r: int, s: int) -> tuple[bool, tuple | None]:
        return False, None


class EnumeratorStateAsIs(SplitEnumerator, Reading):
    """The coordinator's own snapshot is taken as is: no state correction for the fallback."""

    knob, value = "coordinator_region_fallback", "ignore"
    follows = "no correction (a coordinator the FLIP does not cover)"

    def region_fallback_correction(self, cp: int, e: int, r: int, s: int) -> tuple[bool, tuple | None]:
        return False, None


# -- retention (retention_follows_refs) -------------------------------------------------------------
class RetentionIgnoresRefs(CompletedCheckpointStore, Reading):
    """The store retains ``num_retained`` checkpoints whatever they refer to: a fallback a retained
    checkpoint refers to may be subsumed and its files deleted."""

    knob, value = "retention_follows_refs", False
    follows = "the thread before the refCheckpointId closure"

    def retained_with_refs(self, store: tuple, ids: tuple[int, ...], keep: tuple[int, ...]) -> tuple[int, ...]:
        return keep


# -- a timeout while the coordinators fall back (regional_wait_reentry; row T5) ---------------------
class TimeoutReevaluates(RegionalCheckpointHandler, Reading):
    """The canceller fires while the completion waits for the coordinators' fallback (the PR's
    pending checkpoint stays registered and not disposed during the wait)."""

    knob, value = "regional_wait_reentry", "timeout-reevaluates"
    follows = "#28964 CheckpointCanceller (not indexed; row T5)"

    def may_time_out(self, pending: Pending) -> bool:
        return not pending.completing or bool(pending.falling_back)


# -- the regional handler (RegionalCheckpointHandler) ------------------------------------------------
class RegionsOfRunningTasks(RegionalCheckpointHandler, Reading):
    """Only the regions of the tasks the checkpoint waits for count, each cut to those tasks
    (PR #28963 ``tryCompleteRegionalCheckpoint`` steps 3-6: ``regionIdProvider`` over
    ``tasksToWaitFor``; row B3): a region whose tasks all finished is not counted."""

    knob, value = "regions_of_running_tasks", True
    follows = "#28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint (steps 3-6)"

    def regions(self, waiting: int | None = None) -> list[frozenset[int]]:
        regions = RegionalCheckpointHandler.regions(self, waiting)
        if waiting is None or not self.topo.all_pipelined:
            return regions
        cut = (frozenset(t for t in r if waiting >> t & 1) for r in regions)
        return [r for r in cut if r]


class LimitCheckedAtEvaluation(RegionalCheckpointHandler, Reading):
    """With concurrent checkpoints, tier 1 forces global every checkpoint judged while the count is
    at the maximum, not only those triggered from then on (the fix of catalog F5)."""

    knob, value = "regional_limit_checked_at", "evaluation"
    follows = "the fix of catalog F5 (#28963 reads forceGlobalNextCheckpoint at the evaluation)"

    def forced(self, tx: Tx, pending: Pending) -> bool:
        return pending.global_only or tx.coord.force_global


class CounterFromStore(RegionalCheckpointHandler, Reading):
    """A new coordinator's handler reads the consecutive-regional count back from the recovered
    store: the longest chain of refCheckpointId hops in the latest completed checkpoint (the fix
    of catalog F4)."""

    knob, value = "regional_counter_on_recovery", "from-store"
    follows = "the fix of catalog F4"

    def recovered_count(self, tx: Tx) -> int:
        return self.chain_depth(tx.coord.store, tx.coord.store[-1]) if tx.coord.store else 0


class GatewaysLeftClosed(RegionalCheckpointHandler, Reading):
    """At a regional completion, ``notifyCheckpointComplete`` (which reopens every gateway) goes
    only to coordinators with no subtask in a failed region; the others get
    ``notifyRegionalCheckpointFallback``, which reopens none (PR #28963; row N6)."""

    knob, value = "regional_gateway_on_fallback", "left-closed"
    follows = "#28963 OperatorCoordinatorHolder.notifyRegionalCheckpointFallback"

    def open_gateways(self, tx: Tx, cp: int, in_failed: set) -> None:
        readers = self.enumerator.readers
        vertex_of = self.topo.vertex_of
        failed = {vertex_of[t] for t in in_failed if t in readers}
        self.gateways.on_checkpoint_done(tx, cp, {t for t in readers if vertex_of[t] not in failed})


class FallbackStateByIndex(RegionalCheckpointHandler, Reading):
    """A failed subtask's fallback state is the fallback checkpoint's subtask of the same index,
    even when the fallback was taken at another parallelism (PR #28963 at 4e12013,
    ``OperatorState.getState(subtaskIndex)``; row N1): an index the fallback does not have
    throws, and the checkpoint aborts, counted."""

    knob, value = "fallback_state_rule", "by-index"
    follows = "#28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint (step 11)"
    missing: tuple | None = None  # what an index the fallback lacks gives (None: it throws)

    def fallback_state(self, fallback: Completed, t: int):
        old = self.model.model_of(fallback)
        if old is self.model:
            return self.assignment.fallback_state(fallback, t)
        olds = old.topo.tasks_of[self.topo.vertex_of[t]]
        i = self.topo.index_of[t]
        if i < len(olds):
            return fallback.snapshots[olds[i]], {f for f in fallback.files if f[1] == olds[i]}
        return None if self.missing is None else (self.missing[0], set(self.missing[1]))


class FallbackStateByIndexStuck(FallbackStateByIndex):
    """As ``FallbackStateByIndex``, and the exception is caught nowhere: the checkpoint stays
    pending (``STUCK``) until a failover's restore aborts it (row PR2)."""

    knob, value = "fallback_state_rule", "by-index-stuck"
    follows = "#28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint (step 11; row PR2)"

    def on_fallback_state_missing(self, tx: Tx, pending: Pending) -> None:
        put_pending(tx, pending._replace(completing=STUCK))


class FallbackStateByIndexEmpty(FallbackStateByIndex):
    """As ``FallbackStateByIndex``, and an index the fallback lacks gets empty state."""

    knob, value = "fallback_state_rule", "by-index-empty"
    follows = "a reading of #28963 step 11 that does not throw"
    missing = (EMPTY_SNAPSHOT, ())


class CompletionWaitsForCoordinators(RegionalCheckpointHandler, Reading):
    """With a reader in a failed region the completion waits for the futures of the coordinators'
    fallback (PR #28963 step 13: ``FutureUtils.combineAll`` then ``completeRegionalCheckpoint``;
    row N5); a failed-region task's acknowledgement that arrives meanwhile replaces its grafted
    fallback state (``PendingCheckpoint.acknowledgeTask`` does not consult ``declinedTasks``)."""

    knob, value = "regional_completion", "futures-late-ack-overwrites"
    follows = "#28963 RegionalCheckpointHandler.completeRegionalCheckpoint"

    def waits_for_coordinators(self) -> bool:
        return True


class CompletionWaitsLateAckDiscarded(CompletionWaitsForCoordinators):
    """As ``CompletionWaitsForCoordinators``, and a late acknowledgement is dropped with its file."""

    knob, value = "regional_completion", "futures-late-ack-discarded"
    follows = "a reading of #28963 step 13 in which a declined task's late ack is discarded"

    def late_acks(self, tx: Tx, pending: Pending, late: set[int]) -> tuple[Pending, set[int]]:
        for t in late:
            tx.files = remove_sorted(tx.files, (pending.id, t))
        return pending._replace(acked=tuple(x for x in pending.acked if x[0] not in late)), set()


class FinishedCheckAfterFallback(RegionalCheckpointHandler, Reading):
    """FLIP-147's union-state check runs after the coordinators' fallback, its failure counted
    (``PendingCheckpoint.finalizeRegionalCheckpoint`` throws: FINALIZE_CHECKPOINT_FAILURE; row N3)."""

    knob, value = "regional_finished_check", "after-fallback-counted"
    follows = "#28963 PendingCheckpoint.finalizeRegionalCheckpoint"

    def finished_check_after_fallback(self) -> bool:
        return True


class FallbackSegmentsNotKept(RegionalCheckpointHandler, Reading):
    """With file merging, nothing keeps the fallback's segments alive (the FLIP deferred the
    FLIP-306 integration on 7 Jul 2026)."""

    knob, value = "file_merging_keeps_fallback_alive", False
    follows = "the FLIP-600 thread, 7 Jul 2026 (FLIP-306 deferred)"

    def keep_fallback_alive(self, tx: Tx, files: set, cp: int) -> None:
        return None


class TimeoutsCompleteRegionally(RegionalCheckpointHandler, Reading):
    """PR #28964's canceller: every task of the plan that has not acknowledged is marked declined
    and the checkpoint is evaluated as after a decline (``CheckpointCanceller`` ->
    ``tryCompleteRegionalCheckpoint``; ``RegionalCheckpointTimeoutTest``; row B9); a task marked so
    may still take its snapshot, and its late acknowledgement is discarded.  While the
    completion waits for the coordinators' fallback (a timer ``may_time_out`` lets fire there),
    the checkpoint is judged again from the start (row T5), so the coordinators fall back a
    second time."""

    knob, value = "timeouts_complete_regionally", True
    follows = "#28964 PendingCheckpoint.markUnacknowledgedTasksAsDeclined"

    def on_timeout(self, tx: Tx, cp: int) -> bool:
        if not self.design.regional_checkpoints:
            return False
        pending = pending_checkpoint(tx.coord, cp)
        acked = 0
        for t, _ in pending.acked:
            acked |= 1 << t
        if pending.falling_back:  # ``regional_wait_reentry = "timeout-reevaluates"``: judged again from the start, with
            # every task declined so far (``PendingCheckpoint.declinedTasks`` keeps a late-acknowledged one) and the silent ones
            again = pending._replace(declined=pending.declined | pending.waiting & ~acked, completing=())
            put_pending(tx, again)
            self.try_complete(tx, again)
            return True
        put_pending(tx, pending._replace(declined=pending.waiting & ~acked))
        self.coordinator.maybe_finalize(tx, cp)
        return True


# -- forcing a checkpoint global: tiers 1 and 2, end of input (rows B1, B5, B6, B8, N2) ------------
class ForcedCheckpointWaits(RegionalCheckpointHandler, Reading):
    """PR #28963: a decline of a forced global checkpoint does not abort it at once; it waits until
    every task acknowledged or declined (``recordDecline``, then ``areAllTasksResponded``; row B1),
    and step 7 judges it forced after the region count and the ratio (row B5), by the shared flag
    ``forceGlobalNextCheckpoint`` as it is then.  One flag serves tier 1 and end of input, so tier
    2's reset clears both, and without the reset the next checkpoint stays forced."""

    knob, value = "forced_checkpoint_waits", True
    follows = "#28963 CheckpointCoordinator.receiveDeclineMessage, RegionalCheckpointHandler.tryCompleteRegionalCheckpoint (step 7)"

    def forced_before_judging(self, tx: Tx, pending: Pending) -> bool:
        return False

    def forced_after_judging(self, tx: Tx, pending: Pending) -> bool:
        return self.forced_at_evaluation(tx, pending)

    def decline_aborts(self, w, cp: int) -> bool:
        return False

    def forced_at_evaluation(self, tx, pending: Pending) -> bool:
        if tx.coord.force_global:
            return True
        if self.end_of_input_forces() and self.end_of_input_moment() == "evaluation":
            return self.sources_done(tx.tasks)
        # the PR reads the shared flag alone (step 7), so a checkpoint triggered forced whose flag an
        # older checkpoint cleared meanwhile is judged as not forced; the thread's end-of-input bit
        # (``end_of_input_rule = "ended"``) belongs to the checkpoint
        return pending.global_only and self.end_of_input_moment() == "trigger" and self.sources_done(tx.tasks)

    def tier2(self, tx: Tx, pending: Pending) -> None:
        coord = tx.coord
        resets = self.tier2_resets()
        tx.coord = coord._replace(consecutive_regional=0 if resets else coord.consecutive_regional, force_global=not resets)
        self.coordinator.abort(tx, pending.id, counted=True)


class CounterNotReset(RegionalCheckpointHandler, Reading):
    """Tier 2 without its reset: a forced global checkpoint that aborts leaves the counter, so the
    next checkpoint is forced global again."""

    knob, value = "forced_global_failure_resets_counter", False
    follows = "the FLIP-600 thread without tier 2's reset"

    def tier2_resets(self) -> bool:
        return False


class NoForceAfterMax(RegionalCheckpointHandler, Reading):
    """Without tier 1: regional checkpoints in a row never force the next one global."""

    knob, value = "force_global_after_max", False
    follows = "the FLIP-600 thread without tier 1"

    def forces_global_after(self, count: int) -> bool:
        return False


class NoGlobalAtEndOfInput(RegionalCheckpointHandler, Reading):
    """End of input forces no checkpoint global."""

    knob, value = "global_checkpoint_at_end_of_input", False
    follows = "the FLIP-600 thread before 23 Jun 2026"

    def end_of_input_forces(self) -> bool:
        return False


class SourcesFinished(RegionalCheckpointHandler, Reading):
    """Every source has reached the end of its input when it is FINISHED (PR #28964's
    ``allSourcesFinishedChecker``, ExecutionState FINISHED; row B8), not once it emitted EndOfData."""

    follows = "#28964 RegionalCheckpointHandler.allSourcesFinishedChecker"

    def sources_done(self, tasks) -> bool:
        return all(tasks[t].status == FINISHED for t in self.topo.sources)


class FinishedSetsForce(SourcesFinished):
    """Every source FINISHED sets the shared force flag when a declined checkpoint is evaluated
    (an earlier reading of PR #28964's ``checkAllSourcesFinishedAndForceGlobal``; rows B6, B8)."""

    knob, value = "end_of_input_rule", "finished-sets-force"
    follows = "#28964 RegionalCheckpointHandler.checkAllSourcesFinishedAndForceGlobal (an earlier reading)"

    def end_of_input_moment(self) -> str:
        return "evaluation"


class FinishedForcesAtTrigger(SourcesFinished):
    """Every source FINISHED sets the shared force flag when a periodic checkpoint is triggered
    (PR #28964 ``checkAllSourcesFinishedAndForceGlobal(CheckpointProperties)``, which takes the
    triggering checkpoint's properties and skips savepoints; row N2), so the checkpoint being
    triggered is judged forced global."""

    knob, value = "end_of_input_rule", "finished-forces-at-trigger"
    follows = "#28964 RegionalCheckpointHandler.checkAllSourcesFinishedAndForceGlobal"

    def end_of_input_moment(self) -> str:
        return "flag-at-trigger"
