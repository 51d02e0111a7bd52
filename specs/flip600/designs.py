"""FLIP-600's presets: the thread's proposal, the pull requests as written, the corrected design and its
three companions (file merging, a NO_CLAIM restore, incremental checkpoints)."""

from __future__ import annotations

from ..baseline.designs import BASELINE


FLIP600_PROPOSED = BASELINE.with_(
    name="flip600-proposed",
    description=(
        "FLIP-600 regional checkpoints as the design thread (the FLIP-600 thread) describes them: a checkpoint "
        "declined in some pipelined regions completes with their last completed state "
        "(refCheckpointId), at most max_consecutive_regional = 2 in a row (tier 1 forces a global "
        "one; tier 2 aborts a failed forced one and resets the counter), a global checkpoint once "
        "the sources are exhausted, failed-region tasks notified with the fallback id, abort "
        "notices carrying the latest completed id, retention of referenced checkpoints, disabled "
        "across BLOCKING/HYBRID edges, a failure ratio of 50 %.  Expected to FAIL: catalog entries F1-F3 (and F4 across a JobManager failover).  The "
        "pull requests differ in several rules: that is flip600-pr."
    ),
    origin="the FLIP-600 thread (FLIP-600 thread, May-July 2026); mechanics note 8.1 (an early reading of PR #28963)",
    regional_checkpoints=True,
    max_failed_region_percent=50,
)


FLIP600_PR = FLIP600_PROPOSED.with_(
    name="flip600-pr",
    description=(
        "FLIP-600 as pull requests #28963 (core) and #28964 (per-region timeout, bounded sources) implement "
        "it, as reviewed up to 15 Sep 2026: declines of every reason and timeouts buffered until every task "
        "responded; regions counted over the running tasks; failure ratio 0.3 and at most 2 consecutive "
        "regional checkpoints; one force flag for tier 1, tier 2 and end of input (every source FINISHED), "
        "checked after the ratio; healthy tasks get a plain completion, failed-region tasks a fallback "
        "notice their operators ignore (what the task itself does with it is one of four readings, each "
        "searched by ckptcheck findings); the enumerator takes a failed reader's later splits back while that "
        "reader reads on, and the completion waits for it, taking a late acknowledgement meanwhile; FLIP-147's "
        "union-state check after that fallback, its failure counted; a coordinator with a reader in a failed "
        "region is told of the fallback only, which leaves that reader's event gateway closed.  Each knob's text in ckptcheck designs "
        "cites the PR method or row it follows.  "
        "The FLIP-306 (file merging) integration is left out: the FLIP deferred it on 7 Jul 2026, so with file "
        "merging on nothing keeps the fallback's segments alive (findings scope file-merging)."
    ),
    origin="apache/flink PR #28963 and #28964 (RegionalCheckpointHandler, CheckpointCoordinator."
    "receiveDeclineMessage, CheckpointCanceller, SourceCoordinator.checkpointCoordinatorForRegionFallback); "
    "the rows B1-B18 and PR1-PR4 of the sources page",
    max_failed_region_percent=30,  # B4: region.max-failure-ratio 0.3 (RegionalCheckpointConfigTest)
    max_consecutive_regional=2,  # B4: region.max-consecutive-failures 2
    regions_of_running_tasks=True,  # B3
    forced_checkpoint_waits=True,  # B1, B5, B6
    end_of_input_rule="finished-forces-at-trigger",  # B6, B8, N2
    fallback_state_rule="by-index-stuck",  # N1; PR2: the throw past the fallback's parallelism is caught nowhere
    regional_finished_check="after-fallback-counted",  # N3
    regional_completion="futures-late-ack-overwrites",  # N5
    timeouts_complete_regionally=True,  # B9
    fallback_notice_reaches_operators=False,  # B13
    fallback_notice_at_task="none",  # N4, PR3: one reading of four; the findings report searches each
    coordinator_region_fallback="add-back-live",  # B12
    regional_gateway_on_fallback="left-closed",  # N6: OperatorCoordinatorHolder.notifyRegionalCheckpointFallback at 4e12013
    file_merging_keeps_fallback_alive=False,  # PR4: nothing in the PR keeps the fallback's merged segments alive
    local_recovery_rule="fallback-drops-copy",  # PR #28966's documentation (the task-side code is not indexed)
)


FLIP600 = FLIP600_PROPOSED.with_(
    name="flip600-regional",
    description=(
        "FLIP-600 regional checkpoints as proposed, with the six corrections this model "
        "found necessary (catalog F1-F6): a task's final checkpoint must hold its own state (a "
        "fallback notice does not finish it); a task commits only up to the checkpoint that holds "
        "its own state (fallback and abort notices follow refCheckpointId); a forced global "
        "checkpoint that fails keeps the next one forced; the coordinator of a new JobManager reads "
        "the consecutive count back from the recovered store; with concurrent checkpoints, every "
        "checkpoint judged while the count is at the maximum is forced global; with local recovery, a "
        "grafted subtask restores the local copy of the checkpoint its state comes from."
    ),
    origin="the FLIP-600 thread and PR #28963, corrected: Roman (19 Jun 2026) 'the final checkpoint must always "
    "be acked by all subtasks/regions' and 'we would not allow this particular failed region to fail "
    "the checkpoint again'; the commit bound is this model's finding",
    fallback_notice_at_task="none",
    own_state_commit_bound=True,
    forced_global_failure_resets_counter=False,
    regional_counter_on_recovery="from-store",
    regional_limit_checked_at="evaluation",
    local_recovery_rule="restore-by-ref",
)


FLIP600_FILE_MERGING = FLIP600.with_(
    name="flip600-regional-file-merging",
    description="flip600-regional on a job with FLIP-306 file merging at task-manager level "
    "(one physical file per task manager and checkpoint); regional checkpoints keep their "
    "fallback segments alive.  The FLIP deferred its FLIP-306 integration (wiki page, 7 Jul 2026), so "
    "this models a design the FLIP does not contain.",
    origin="the FLIP-600 thread, Zakelly (23 Jun 2026): TM-level merging, 'keep previous checkpoint files alive "
    "when a region checkpoint occurs'; mechanics note 8.2",
    file_merging=True,
)


FLIP600_NO_CLAIM = FLIP600.with_(
    name="flip600-regional-no-claim",
    description="flip600-regional on a job started from a snapshot in NO_CLAIM mode; the user "
    "deletes the snapshot only once the latest checkpoint no longer refers to it.",
    origin="the FLIP-600 thread, limitations: 'NO_CLAIM restore mode -> Warn (require global checkpoint before "
    "snapshot deletion)'; mechanics note 8.3",
    no_claim_restore=True,
    no_claim_delete_after="independent-checkpoint",
)


FLIP600_INCREMENTAL = FLIP600.with_(
    name="flip600-regional-incremental",
    description="flip600-regional with incremental checkpoints (RocksDB): a regional checkpoint registers "
    "the failed subtasks' grafted fallback files under its own id, and a failed-region subtask's backend "
    "confirms only the fallback checkpoint, whose state it has.",
    origin="the FLIP-600 thread (Zakelly, 23 Jun 2026: keep the fallback's files alive); PR #28963 "
    "registerSharedStates(..., checkpointId); (rows A20, B10, B17)",
    incremental_checkpoints=True,
)

