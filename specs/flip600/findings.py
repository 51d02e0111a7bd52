"""FLIP-600's findings manifest: the scopes ``ckptcheck findings flip600-pr`` searches the pull requests in, the
fix of each violation it expects, and the readings of the rule the PR leaves open."""

from __future__ import annotations

from ckptcheck.model.design import Design
from ckptcheck.model.flip600 import FallbackNoticeIgnored, FallbackNoticeLatestReported, FallbackNoticeReplayedAfterRestart
from ckptcheck.model.scope import Scope
from ckptcheck.model.task import StreamTask

from ..finding import FindingScope, Fix, Readings
from .designs import FLIP600_PR
from .scopes import end_of_input_scope, regional_coordinator_scope, scope

TWO_REGIONS = ("the job has two regions, so one failed region is 50 % of them: at the PR's default of 30 % no checkpoint "
               "can complete regionally in it, and the regional path this scope is about is never taken (the four-region "
               "scopes keep 30 %)")


def enumerator_scope() -> Scope:
    """Two FLIP-27 readers and two other sources, each its own region (so one failed region is
    within the ratio 0.3); one record per split, unbounded; two checkpoints, one decline: a
    checkpoint completes, then a reader that was given its split after it declines the next."""
    return scope("enumerator-2-and-sides", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=0,
                 max_declines=1, max_timeouts=0, max_lost_notifications=0)


def chain_scope() -> Scope:
    """Four one-subtask regions without records, five checkpoints and four declines: enough
    regional checkpoints in a row for tier 1, a forced one that fails (tier 2), and more."""
    return scope("sources-4", records_per_split=0, bounded=False, max_checkpoints=5, max_failures=0, max_declines=4,
                 max_timeouts=0, max_lost_notifications=0)


def epoch_scope() -> Scope:
    """Four one-subtask regions whose union list state holds an epoch; two checkpoints, one
    decline and one timeout: a regional checkpoint (after either) composes the union state of
    two epochs."""
    return scope("epoch-sources-4", records_per_split=0, bounded=False, max_checkpoints=2, max_failures=0,
                 max_declines=1, max_timeouts=1, max_lost_notifications=0)


def abort_replay_scope() -> Scope:
    """A pipeline with a 2PC sink and a separate source (two regions), one record, three
    checkpoints, a decline, a failure and a lost notification: a regional checkpoint, then an
    abort whose notice carries its id.  The lost notification is there for the readings of the
    fallback notice (row N4): a task that records the fallback id as reported ignores
    the abort's replay of it, unless the fallback notice was lost.  Two regions complete regionally only with a failure ratio of 0.5 or more:
    with the default 0.3 the same path needs four regions, which this engine cannot search to
    the end (8.4 million states without a regional checkpoint completing)."""
    return scope("pipeline-and-side", records_per_split=1, bounded=False, max_checkpoints=3, max_failures=1,
                 max_declines=1, max_timeouts=0, max_lost_notifications=1)


def closing_scope() -> Scope:
    """Four one-record sources that end (bounded), trigger RPCs one task at a time, one
    checkpoint before end of input, a decline and a failure: a source finishes between the plan
    and its trigger RPC and declines it (TASK_CLOSING), and the PR turns that decline, like any
    other, into a regional fallback (row B1); end of input is every source FINISHED (B8)."""
    return scope("sources-4", records_per_split=1, bounded=True, max_checkpoints=1, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0, staggered_triggers=True)


def rescale_fallback_scope() -> Scope:
    """A keyed 2PC sink scaled down from 2 to 1 next to a separate source (two regions), one
    record, unbounded, two checkpoints, a decline and a failure, instant acks: a checkpoint
    completes at parallelism 2, the job restarts from it at 1, and the next checkpoint, declined
    by the pipeline, completes regionally with the sink's state taken from the checkpoint at 2
    (row N1).  Two regions complete regionally only with a ratio of 0.5 or more."""
    return scope("keyed-pipeline-and-side", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=1,
                 max_declines=1, max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 1),), max_rescales=1,
                 instant_acks=True)


def rescale_up_scope() -> Scope:
    """``rescale_fallback_scope`` with the sink scaled up from 2 to 3: the next regional
    checkpoint's fallback has no state for the new sink[2] (row PR2)."""
    return rescale_fallback_scope().with_(rescale=(("sink", 3),))


def two_region_scope() -> Scope:
    """Two one-pipeline regions (``forward-2x2``), no records, unbounded, two checkpoints and a
    decline: a regional checkpoint completes and the next one subsumes the checkpoints before it
    (catalog K4, K6, K7's scope)."""
    return scope("forward-2x2", records_per_split=0, bounded=False, max_checkpoints=2, max_failures=0, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)


LATE_ACK_FIX = FLIP600_PR.with_(name="flip600-pr-fix-N5-B12", regional_completion="futures-late-ack-discarded",
                                coordinator_region_fallback="fallback")

FLIP600_PR_FINDINGS: tuple[FindingScope, ...] = (
    FindingScope(
        "live-enumerator-add-back",
        enumerator_scope(),
        "a reader in a failed region keeps reading after the fallback (row B12)",
        (
            Fix(
                "split-read-once",
                "SourceCoordinator.checkpointCoordinatorForRegionFallback puts the splits a failed-region reader "
                "was given after the fallback checkpoint back into the live enumerator, while that reader, which "
                "only declined, keeps them (PR #28963; SourceCoordinatorRegionalCheckpointTest; row B12)",
                FLIP600_PR.with_(name="flip600-pr-fix-B12", coordinator_region_fallback="fallback"),
                "correct only the checkpoint's copy of the enumerator state: the splits are unassigned in the "
                "regional checkpoint and stay assigned to the live reader, whose reset (subtaskReset) adds them back",
            ),
        ),
    ),
    FindingScope(
        "tier-2-reset",
        chain_scope(),
        "regional checkpoints in a row, and a forced global one that a region declines (rows B6, B7)",
        (
            Fix(
                "ref-chain-bounded",
                "tier 2: a forced global checkpoint that fails resets the consecutive counter and the force flag "
                "(PR #28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint step 7; "
                "RegionalCheckpointConsecutiveLimitTest asserts the reset), so the next regional checkpoint falls "
                "back to one that already refers back max-consecutive-failures times",
                FLIP600_PR.with_(name="flip600-pr-fix-tier2", forced_global_failure_resets_counter=False),
                "keep the next checkpoint forced until a global one completes (the PR's earliest revision aborted "
                "every regional checkpoint at the limit; Roman, 19 Jun 2026: 'we would not allow this particular "
                "failed region to fail the checkpoint again')",
            ),
        ),
    ),
    FindingScope(
        "jobmanager-failover",
        chain_scope().with_(max_checkpoints=4, max_declines=3, max_jm_failovers=1),
        "regional checkpoints in a row, then a JobManager failover (catalog F4)",
        (
            Fix(
                "ref-chain-bounded",
                "the consecutive counter and the force flag are fields of the RegionalCheckpointHandler each new "
                "CheckpointCoordinator creates (PR #28963 at 4e12013: consecutiveRegionalCheckpointCount = 0, "
                "forceGlobalNextCheckpoint = false); a JobManager failover builds a new coordinator "
                "(DefaultExecutionGraphFactory.createAndRestoreExecutionGraph), which counts from 0 on a restored "
                "checkpoint that already refers back max-consecutive-failures times",
                FLIP600_PR.with_(name="flip600-pr-fix-jm-failover", forced_global_failure_resets_counter=False,
                                 regional_counter_on_recovery="from-store"),
                "read the count back from the recovered store (the longest refCheckpointId chain of the latest "
                "checkpoint), or persist it with the checkpoint's metadata",
            ),
        ),
        settings=(("forced_global_failure_resets_counter", False),),
        settings_why=("tier 2's reset (scope tier-2-reset) reaches the same violation on its own; kept off so that the "
                      "path found is the JobManager failover's"),
    ),
    FindingScope(
        "adaptive-scheduler",
        chain_scope().with_(max_checkpoints=4, max_declines=3, max_failures=1),
        "regional checkpoints in a row, then a task failure under the adaptive scheduler, whose every restart builds a "
        "new execution graph and coordinator (catalog F4)",
        (
            Fix(
                "ref-chain-bounded",
                "as in the scope jobmanager-failover: the handler the new coordinator creates counts from 0 "
                "(AdaptiveScheduler: Restarting -> CreatingExecutionGraph -> "
                "DefaultExecutionGraphFactory.createAndRestoreExecutionGraph on every restart)",
                FLIP600_PR.with_(name="flip600-pr-fix-adaptive", forced_global_failure_resets_counter=False,
                                 regional_counter_on_recovery="from-store", scheduler="adaptive", failover_strategy="full"),
                "read the count back from the recovered store, as for a JobManager failover",
            ),
        ),
        settings=(("scheduler", "adaptive"), ("failover_strategy", "full"), ("forced_global_failure_resets_counter", False)),
        settings_why=("jobmanager.scheduler: adaptive (which restarts the whole job); tier 2's reset (scope tier-2-reset) "
                      "kept off so that the path found is the restart's"),
    ),
    FindingScope(
        "concurrent-checkpoints",
        scope("pipeline-and-side", records_per_split=1, bounded=False, max_checkpoints=3, max_failures=0,
              max_declines=1, max_timeouts=0, max_lost_notifications=0),
        "two checkpoints pending at once, as the PR's own tests run them",
        (
            Fix(
                "committed-output-covered",
                "a regional completion subsumes the older pending checkpoint (completeRegionalCheckpoint: "
                "dropSubsumedCheckpoints), whose abort notice carries the latest completed checkpoint id: the "
                "regional one, which holds the failed-region sink's fallback state; the sink commits the transaction "
                "it pre-committed for the subsumed checkpoint (StreamTask.notifyCheckpointAbortAsync), past its state",
                FLIP600_PR.with_(name="flip600-pr-fix-concurrent-commit-bound", own_state_commit_bound=True,
                                 max_concurrent_checkpoints=2, max_failed_region_percent=50),
                "tell a failed-region task the checkpoint that holds its own state (follow refCheckpointId), as for "
                "the scope abort-replay-commit, which needs a failure and a lost notice where this needs one decline",
            ),
        ),
        settings=(("max_concurrent_checkpoints", 2), ("max_failed_region_percent", 50)),
        settings_why=("execution.checkpointing.max-concurrent-checkpoints 2 (the PR's tests run unlimited); " + TWO_REGIONS),
    ),
    FindingScope(
        "local-recovery",
        two_region_scope().with_(records_per_split=1, max_failures=1),
        "local recovery (state.backend.local-recovery) beside regional checkpoints",
        (
            Fix(
                "committed-output-covered",
                "a restore of checkpoint c reads each subtask's local copy of c (TaskStateManagerImpl."
                "prioritizedOperatorState: retrieveLocalState(restoreCheckpointId)); a failed-region subtask that "
                "acknowledged c keeps its own copy while c holds its fallback state, and PR #28966's documented drop of "
                "that copy on notifyRegionalCheckpointFallback comes too late when the task fails before the notice "
                "is processed: the restore mixes its own state with its region-mates' fallback state",
                FLIP600_PR.with_(name="flip600-pr-fix-local-recovery", local_recovery=True,
                                 local_recovery_rule="restore-by-ref", max_failed_region_percent=50),
                "restore a grafted subtask from the local copy of its refCheckpointId (or from the job manager's state), "
                "never from its own copy of the regional checkpoint",
            ),
        ),
        settings=(("local_recovery", True), ("max_failed_region_percent", 50)),
        settings_why=("state.backend.local-recovery, which a user may turn on with the PR; " + TWO_REGIONS),
    ),
    FindingScope(
        "timeout-during-the-wait",
        regional_coordinator_scope().with_(max_timeouts=2),
        "a second timeout while the regional completion waits for the coordinators' fallback, in the reading that "
        "the canceller judges the checkpoint again (row T5)",
        (
            Fix(
                "split-ownership-consistent",
                "as in the scope late-ack-while-coordinators-fall-back: the late acknowledgement replaces the reader's "
                "fallback state (PendingCheckpoint.acknowledgeTask), and a second evaluation changes nothing about it",
                LATE_ACK_FIX.with_(name="flip600-pr-fix-N5-B12-reentry", regional_wait_reentry="timeout-reevaluates"),
                "as in that scope; the fix holds with the second evaluation too (a second coordinator fallback on a "
                "checkpoint whose declinedTasks still names the reader)",
            ),
            Fix(
                "split-read-once",
                "the live add-back of row B12, as in the scope late-ack-while-coordinators-fall-back",
                LATE_ACK_FIX.with_(name="flip600-pr-fix-N5-B12-reentry", regional_wait_reentry="timeout-reevaluates"),
                "as above",
            ),
        ),
        settings=(("regional_wait_reentry", "timeout-reevaluates"),),
        settings_why=("PR #28964's CheckpointCanceller is not indexed and the pending checkpoint stays registered during "
                      "the wait: this scope searches the reading in which its timer re-enters tryCompleteRegionalCheckpoint"),
    ),
    FindingScope(
        "abort-replay-commit",
        abort_replay_scope(),
        "a failed-region sink told of a later abort (row B13, 'The three corrections vs the PR' 2)",
        (
            Fix(
                "committed-output-covered",
                "an abort notice carries the latest completed checkpoint id and the task commits up to it "
                "(CheckpointCoordinator.sendAbortedMessages, StreamTask.notifyCheckpointAbortAsync, unchanged by "
                "the PR), also when that checkpoint is regional and holds the task's fallback state",
                FLIP600_PR.with_(name="flip600-pr-fix-commit-bound", own_state_commit_bound=True,
                                 max_failed_region_percent=50),
                "tell a failed-region task the checkpoint that holds its own state (follow refCheckpointId), so it "
                "never commits past it",
            ),
        ),
        settings=(("max_failed_region_percent", 50),),
        settings_why=TWO_REGIONS,
    ),
    FindingScope(
        "rescale-fallback-by-index",
        rescale_fallback_scope(),
        "a regional checkpoint after a rescale, its fallback taken at the old parallelism (row N1)",
        (
            Fix(
                "checkpoints-consistent",
                "a failed-region subtask takes the fallback checkpoint's state of the same subtask index, whatever "
                "parallelism that checkpoint was taken at (PR #28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint "
                "step 11, lastState.getState(subtaskIdx), at 4e12013): after a scale-down the new subtask gets one old "
                "subtask's state, and the key groups of the others are in no state",
                FLIP600_PR.with_(name="flip600-pr-fix-restored-share", fallback_state_rule="restored-share",
                                 max_failed_region_percent=50),
                "take the state the subtask was restored with (its redistributed share) until a checkpoint completes at "
                "the new parallelism (Roman, 29 Jun 2026)",
            ),
        ),
        settings=(("max_failed_region_percent", 50),),
        settings_why=TWO_REGIONS,
    ),
    FindingScope(
        "rescale-up-fallback-stuck",
        rescale_up_scope(),
        "a regional checkpoint after a scale-up, its fallback taken at the old parallelism (row PR2)",
        (
            Fix(
                "pending-checkpoints-resolve",
                "a failed-region subtask whose index the fallback checkpoint lacks makes OperatorState.getState throw "
                "(PR #28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint step 11 at 4e12013), nothing "
                "catches it (ExecutionGraphHandler only logs an exception of the decline path; the canceller at the "
                "timeout re-enters and throws again), and the checkpoint stays pending: no checkpoint is triggered "
                "again until a failover",
                FLIP600_PR.with_(name="flip600-pr-fix-restored-share", fallback_state_rule="restored-share",
                                 max_failed_region_percent=50),
                "take the state the subtask was restored with (as for row N1); catching the exception and aborting the "
                "checkpoint would end the hang, not N1's inconsistent cut",
            ),
        ),
        settings=(("max_failed_region_percent", 50),),
        settings_why=TWO_REGIONS,
    ),
    FindingScope(
        "final-checkpoint-fallback",
        end_of_input_scope(),
        "a region whose source ends first while the other region's snapshot of the final checkpoint fails "
        "(catalog F1, under the readings of row N4)",
        (
            Fix(
                "finished-sinks-committed",
                "the fallback notice counts toward the failed-region task's finalCheckpointCompleted (one reading of "
                "PR #28963's 'same task-side checkpoint-complete RPC path', row N4): the sink finishes on a "
                "checkpoint that holds its fallback state, and its last transaction is never committed",
                FLIP600_PR.with_(name="flip600-pr-fix-final-own-state", fallback_notice_at_task="latest-reported",
                                 max_failed_region_percent=50),
                "record the fallback id as the latest reported checkpoint but leave finalCheckpointCompleted to a "
                "checkpoint that holds the task's own state (Roman, 19 Jun 2026: 'the final checkpoint must always "
                "be acked by all subtasks/regions')",
                readings=("final", "replayed-after-restart"),
            ),
            Fix(
                "bounded-job-completes",
                "the same reading: the failed-region sink finishes on the fallback notice, and the job then ends "
                "without ever committing the record's transaction",
                FLIP600_PR.with_(name="flip600-pr-fix-final-own-state", fallback_notice_at_task="latest-reported",
                                 max_failed_region_percent=50),
                "as above",
                readings=("final", "replayed-after-restart"),
            ),
        ),
        settings=(("max_failed_region_percent", 50),),
        settings_why=TWO_REGIONS,
    ),
    FindingScope(
        "late-ack-while-coordinators-fall-back",
        regional_coordinator_scope(),
        "a reader the timeout marked declined acknowledges while the regional completion waits for the split "
        "enumerator's fallback (rows N5, B9, B12)",
        (
            Fix(
                "split-ownership-consistent",
                "the regional completion waits for the coordinators' fallback futures with the pending checkpoint "
                "registered (PR #28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint step 13, "
                "FutureUtils.combineAll), and PendingCheckpoint.acknowledgeTask, which does not consult declinedTasks, "
                "takes the late acknowledgement: the reader's new state, holding its split, replaces its fallback "
                "state while the enumerator's state in the same checkpoint has the split back",
                LATE_ACK_FIX,
                "discard an acknowledgement from a task in declinedTasks, and correct only the checkpoint's copy of "
                "the enumerator state (row B12's fix, without which the live add-back still hands the split out twice)",
            ),
            Fix(
                "split-read-once",
                "SourceCoordinator.checkpointCoordinatorForRegionFallback puts the timed-out reader's split back into "
                "the live enumerator while the reader keeps it (row B12, here after a timeout, row B9)",
                LATE_ACK_FIX,
                "as above",
            ),
        ),
    ),
    FindingScope(
        "standalone-store",
        two_region_scope(),
        "a regional checkpoint on a cluster without high availability, whose store is the "
        "StandaloneCompletedCheckpointStore (row B15)",
        (
            Fix(
                "checkpoints-restorable",
                "the store subsumes by count alone (Flink 2.x StandaloneCompletedCheckpointStore, "
                "CheckpointSubsumeHelper.subsume): the checkpoint a regional one refers to is subsumed and its files "
                "deleted; PR #28963 protects refCheckpointIds in DefaultCompletedCheckpointStore.computeReferencedCheckpointIds, "
                "and its change to the standalone store, if any, is not in the indexed code",
                FLIP600_PR.with_(name="flip600-pr-fix-standalone-refs", retention_follows_refs=True,
                                 max_failed_region_percent=50),
                "give the standalone store the same protection of referenced checkpoints (or refuse regional "
                "checkpoints without it)",
            ),
        ),
        settings=(("retention_follows_refs", False), ("max_failed_region_percent", 50)),
        settings_why=("a non-HA cluster's store, as Flink 2.x has it (the PR's version of it is not indexed); and the "
                      "job has two regions, so one failed region is 50 % of them: at the PR's default of 30 % no "
                      "checkpoint can complete regionally in it"),
    ),
    FindingScope(
        "no-claim-start",
        two_region_scope(),
        "a job started from a snapshot in NO_CLAIM mode whose user deletes the snapshot once a checkpoint completed, "
        "as Flink's documentation allows (row PR4, catalog K7)",
        (
            Fix(
                "checkpoints-restorable",
                "the fallback is CompletedCheckpointStore.getLatestCheckpoint() with no isUnclaimed() check (PR #28963 "
                "RegionalCheckpointHandler at 4e12013): the first checkpoint after the restore may be regional and graft "
                "the snapshot's handles, and the PR's documentation adds no warning to 'delete once a checkpoint succeeds'",
                FLIP600_PR.with_(name="flip600-pr-fix-no-claim", no_claim_restore=True,
                                 no_claim_delete_after="independent-checkpoint", max_failed_region_percent=50),
                "tell users to wait for a checkpoint that no longer refers to the snapshot (or force the first "
                "checkpoint after a NO_CLAIM restore global, as forceFullSnapshot forces it full)",
            ),
        ),
        settings=(("no_claim_restore", True), ("no_claim_delete_after", "first-checkpoint"),
                  ("max_failed_region_percent", 50)),
        settings_why=("a NO_CLAIM start whose snapshot the user deletes after the first checkpoint (Flink's "
                      "documentation); the job has two regions, so one failed region is 50 % of them"),
    ),
    FindingScope(
        "file-merging",
        two_region_scope(),
        "FLIP-306 task-manager file merging under regional checkpoints (row PR4, catalog K6)",
        (
            Fix(
                "checkpoints-restorable",
                "nothing in PR #28963 keeps the fallback checkpoint's merged segments alive: the subsumed notice that "
                "comes with the regional completion makes each task discard its segments of the fallback checkpoint, and "
                "the physical file the regional checkpoint refers to goes",
                FLIP600_PR.with_(name="flip600-pr-fix-file-merging", file_merging=True,
                                 file_merging_keeps_fallback_alive=True, max_failed_region_percent=50),
                "re-register the fallback segments under the regional checkpoint's id (Zakelly, 23 Jun 2026: 'keep "
                "previous checkpoint files alive when a region checkpoint occurs')",
            ),
        ),
        settings=(("file_merging", True), ("max_failed_region_percent", 50)),
        settings_why=("execution.checkpointing.file-merging.enabled, which a user may turn on with the PR; the job has "
                      "two regions, so one failed region is 50 % of them"),
    ),
    FindingScope(
        "trigger-time-declines",
        closing_scope(),
        "declines at the trigger (TASK_CLOSING) and the end of input of a bounded job (rows B1, B8)",
    ),
    FindingScope(
        "epoch-union-state",
        epoch_scope(),
        "state that does not follow from the records consumed: an epoch in union list state (row B18)",
        (
            Fix(
                "union-epoch-agreed",
                "a failed-region subtask takes its fallback snapshot while the healthy ones take their new one "
                "(PR #28963 referenceFallbackState), whatever the state; the FLIP's safety boundary (Raorao and "
                "Roman, 3 Jul 2026) is documentation, not a check",
                FLIP600_PR.with_(name="flip600-pr-off-for-epoch-state", regional_checkpoints=False),
                "leave region.enabled off for a job whose operators keep such state (the documented boundary); the "
                "framework could refuse it for operators that declare union list state",
            ),
        ),
    ),
)

FINDINGS: dict[str, tuple[Design, tuple[FindingScope, ...]]] = {
    "flip600-pr": (FLIP600_PR, FLIP600_PR_FINDINGS),
}

READINGS: dict[str, Readings] = {
    "flip600-pr": Readings(
        (FallbackNoticeIgnored, FallbackNoticeLatestReported, StreamTask, FallbackNoticeReplayedAfterRestart),
        "what a failed-region task's StreamTask does with the fallback notice: PR #28963 delivers it 'via the same "
        "task-side checkpoint-complete RPC path' and calls notifyRegionalCheckpointFallback, a no-op by default, on "
        "the operators; its StreamTask change (latestReportCheckpointId, finalCheckpointCompleted) is not in the "
        "indexed code (row N4); PR #28966's documentation adds that the notice survives task restarts and "
        "is applied after the task recovers, which its code does not do (row PR3): the fourth reading",
    ),
}
