"""The catalog's entries for FLIP-600 regional checkpoints: ``FLIP600_CATALOG`` (K1-K7, the
flaws the proposal's thread names) and ``FINDINGS`` (F1-F6, what the model found in the design
as proposed), with their scope and variant class."""

from __future__ import annotations

from ckptcheck.model.regional import RegionalCheckpointHandler
from ckptcheck.model.registry import SharedStateRegistry
from ckptcheck.model.scope import Scope

from ..baseline.scopes import scope
from ..catalog_entry import Entry
from .designs import FLIP600, FLIP600_FILE_MERGING, FLIP600_INCREMENTAL, FLIP600_NO_CLAIM
from .scopes import regional_chain_scope, regional_coordinator_scope

# flip600-regional where the PR's timeout rule and asynchronous completion apply, with late
# acknowledgements of declined tasks discarded: the correct side of K9
FLIP600_AWAITING_COORDINATORS = FLIP600.with_(
    name="flip600-regional-awaiting-coordinators",
    timeouts_complete_regionally=True,
    regional_completion="futures-late-ack-discarded",
    description="flip600-regional with timeouts that complete regionally and a regional completion that waits for "
    "the coordinators' fallback, discarding an acknowledgement that arrives meanwhile from a task the timeout "
    "marked declined.",
)


# flip600-regional with two concurrent checkpoints: the correct side of F5
FLIP600_CONCURRENT = FLIP600.with_(
    name="flip600-regional-concurrent",
    max_concurrent_checkpoints=2,
    description="flip600-regional with execution.checkpointing.max-concurrent-checkpoints 2: every checkpoint judged "
    "while the consecutive count is at the maximum is forced global, whenever it was triggered.",
)


# flip600-regional with local recovery on: the correct side of F6
FLIP600_LOCAL = FLIP600.with_(
    name="flip600-regional-local-recovery",
    local_recovery=True,
    description="flip600-regional with state.backend.local-recovery: a grafted subtask's restore reads the local copy of "
    "the checkpoint its state comes from (its refCheckpointId), never its own copy of the regional checkpoint.",
)


def _flip600_scope(job: str = "forward-2x2", records: int = 0, checkpoints: int = 2, declines: int = 1,
                   bounded: bool = False) -> Scope:
    """FLIP-600 entries: two independent regions, only declines as faults.  Entries that do not
    need records flowing use none and unbounded sources: the regional machinery (declines,
    fallbacks, refs, retention, files) is exercised all the same, in a space small enough to
    check the correct design exhaustively next to each flaw."""
    return scope(job, records_per_split=records, bounded=bounded, max_checkpoints=checkpoints, max_failures=0,
                 max_declines=declines, max_timeouts=0, max_lost_notifications=0)


class BackendConfirmsRegionalId(SharedStateRegistry):
    """Flawed backend notification: a failed-region subtask's incremental backend takes the
    regional checkpoint's id as confirmed, not the fallback's whose state it has there."""

    treats_subtasks_alike = True

    def confirmed_checkpoint(self, cp: int, upto: int) -> int:
        return cp


class RegionsBySubtaskIndex(RegionalCheckpointHandler):
    """Flawed region rule: subtask i of every vertex forms region i, whatever edge joins them
    (the thread's "each parallelism maps to an independent Region" applied to a keyBy job)."""

    treats_subtasks_alike = True  # renaming index i to pi(i) renames region i to pi(i): tests/checks/engine/test_explore.py

    def regions(self, waiting: int | None = None) -> list[frozenset[int]]:
        groups: dict[int, set[int]] = {}
        for t in range(self.topo.n_tasks):
            groups.setdefault(self.topo.index_of[t], set()).add(t)
        return [frozenset(g) for _, g in sorted(groups.items())]


class SkipsFinishedCheck(RegionalCheckpointHandler):
    """Flawed regional completion: FLIP-147's union-state check (``fulfillFinishedTaskStatus``)
    is left out of the regional path, as the model had it before row N3."""

    treats_subtasks_alike = True

    def finished_check(self, tx, pending, in_failed, fallback) -> bool:
        return False


FLIP600_CATALOG: tuple[Entry, ...] = (
    Entry(
        "K1-regional-final-checkpoint",
        FLIP600.with_(
            name="K1-regional-final-checkpoint",
            global_checkpoint_at_end_of_input=False,
            fallback_notice_at_task="final",
            description="FLIP-600 as first proposed: the checkpoint after end of input may be "
            "regional, and a failed-region task takes notifyCheckpointComplete(id, fallbackId) as "
            "the completion of its final checkpoint: it finishes, and the transaction it "
            "pre-committed for that checkpoint is never committed.",
        ),
        "finished-sinks-committed",
        _flip600_scope(records=1, checkpoints=1, bounded=True),
        "the FLIP-600 thread, Roman (19 Jun 2026): 'the job might complete with some subtasks/regions failing "
        "the final checkpoint ... This is essentially data loss'",
        FLIP600,
    ),
    Entry(
        "K2-regions-joined-by-keyby",
        FLIP600.with_(
            name="K2-regions-joined-by-keyby",
            regional=RegionsBySubtaskIndex,
            description="Regional mode across regions joined by an ALL_TO_ALL (keyBy) edge: a "
            "failed region's old state is mixed with a healthy region's new state that already "
            "holds records the failed region's source will replay.",
        ),
        "checkpoints-consistent",
        _flip600_scope(job="keyed-2x2", records=1, checkpoints=2),
        "the FLIP-600 thread: 'Our current scope is limited to embarrassingly parallel regions'; "
        "'BLOCKING/HYBRID edges between Regions -> Auto-disable at runtime'",
        FLIP600,
    ),
    Entry(
        "K3-no-coordinator-fallback",
        FLIP600.with_(
            name="K3-no-coordinator-fallback",
            coordinator_region_fallback="ignore",
            description="The split enumerator's own snapshot goes into a regional checkpoint as is: "
            "a split it assigned to a failed-region reader after the fallback checkpoint is neither "
            "unassigned in the enumerator's state nor in the reader's fallback state, so a restore "
            "never reads it.",
        ),
        "split-ownership-consistent",
        _flip600_scope(job="enumerator-and-side", records=1, checkpoints=2),
        "the FLIP-600 thread: 'State Correction — New checkpointCoordinatorForRegionFallback interface for "
        "OperatorCoordinators to produce consistent snapshots against the mixed view'",
        FLIP600,
    ),
    Entry(
        "K4-retention-ignores-refs",
        FLIP600.with_(
            name="K4-retention-ignores-refs",
            retention_follows_refs=False,
            description="The store subsumes checkpoints by id only: the fallback checkpoint a "
            "regional checkpoint refers to is subsumed and the cleaner deletes its files.",
        ),
        "checkpoints-restorable",
        _flip600_scope(),
        "the FLIP-600 thread: 'Track ref_checkpoint_id in metadata to prevent premature cleanup of referenced "
        "historical checkpoints'",
        FLIP600,
    ),
    Entry(
        "K5-no-consecutive-limit",
        FLIP600.with_(
            name="K5-no-consecutive-limit",
            force_global_after_max=False,
            description="No tier 1: regional checkpoints may follow each other without limit, so a "
            "region that keeps failing makes the refCheckpointId chain grow with every checkpoint.",
        ),
        "ref-chain-bounded",
        _flip600_scope(job="sources-2", checkpoints=4, declines=3),
        "the FLIP-600 thread, Tier 1: 'When consecutiveRegionalCount >= maxConsecutiveFailures, the next "
        "checkpoint is forced to be global'",
        FLIP600,
    ),
    Entry(
        "K6-file-merging-drops-fallback-segments",
        FLIP600_FILE_MERGING.with_(
            name="K6-file-merging-drops-fallback-segments",
            file_merging_keeps_fallback_alive=False,
            description="FLIP-306 task-manager file merging with regional checkpoints, without "
            "keeping the fallback segments alive: the subsumed notice that comes with the regional "
            "completion makes every subtask discard its segments of the fallback checkpoint, the "
            "physical file goes, and the regional checkpoint refers to it.",
        ),
        "checkpoints-restorable",
        _flip600_scope(),
        "the FLIP-600 thread, Zakelly (23 Jun 2026): 'The only thing we should do is to keep previous checkpoint "
        "files alive when a region checkpoint occurs'",
        FLIP600_FILE_MERGING,
    ),
    Entry(
        "K7-no-claim-snapshot-deleted-too-early",
        FLIP600_NO_CLAIM.with_(
            name="K7-no-claim-snapshot-deleted-too-early",
            no_claim_delete_after="first-checkpoint",
            description="The user deletes the NO_CLAIM snapshot once the first checkpoint completed, "
            "as Flink's documentation allows; that checkpoint was regional and its failed region "
            "still refers to the snapshot's files.",
        ),
        "checkpoints-restorable",
        _flip600_scope(),
        "the FLIP-600 thread: 'NO_CLAIM mode warning ... After restoring from a Regional Checkpoint, only a "
        "successful global checkpoint guarantees independence from the old state'",
        FLIP600_NO_CLAIM,
    ),
    Entry(
        "K8-regional-skips-union-check",
        FLIP600.with_(
            name="K8-regional-skips-union-check",
            regional=SkipsFinishedCheck,
            description="A regional checkpoint completes without FLIP-147's union-state check: a source "
            "subtask that ended takes it as its final checkpoint and finishes while a sibling, whose "
            "snapshot failed, has not ended; from then on the vertex is partly finished, every "
            "checkpoint aborts (PartialFinishingNotSupportedByStateException), and the sibling never "
            "gets the final checkpoint it waits for: the job hangs.",
        ),
        "bounded-job-completes",
        _flip600_scope(job="union-sources-2", bounded=True),
        "UC note D.3 (DefaultCheckpointPlan.fulfillFinishedTaskStatus at finalizeCheckpoint); "
        "PR #28963 PendingCheckpoint.finalizeRegionalCheckpoint keeps the check (row N3)",
        FLIP600,
    ),
    Entry(
        "K9-late-ack-overwrites-fallback",
        FLIP600_AWAITING_COORDINATORS.with_(
            name="K9-late-ack-overwrites-fallback",
            regional_completion="futures-late-ack-overwrites",
            description="The regional completion waits for the split enumerator's fallback with the pending "
            "checkpoint still registered, and takes an acknowledgement that arrives meanwhile from a reader the "
            "timeout marked declined: the reader's new state (holding its split) replaces its fallback state, "
            "while the enumerator's state in the same checkpoint has that split back as unassigned.",
        ),
        "split-ownership-consistent",
        regional_coordinator_scope(),
        "PR #28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint step 13 (FutureUtils.combineAll of the "
        "coordinators' fallback futures) and PendingCheckpoint.acknowledgeTask, which does not consult "
        "declinedTasks (row N5)",
        FLIP600_AWAITING_COORDINATORS,
    ),
    Entry(
        "K10-backend-confirms-regional-id",
        FLIP600_INCREMENTAL.with_(
            name="K10-backend-confirms-regional-id",
            registry=BackendConfirmsRegionalId,
            description="With incremental checkpoints, a failed-region subtask's state backend takes the "
            "regional checkpoint's id as its last completed one, although the checkpoint holds the "
            "fallback's state for it: its next snapshot sends the files of its own declined snapshot as "
            "placeholders, and the coordinator discarded those files with the declined snapshot: the registry refuses "
            "that acknowledgement, and the checkpoint can never complete.",
        ),
        "shared-state-registered",
        _flip600_scope(checkpoints=3),
        "RocksIncrementalSnapshotStrategy: placeholders for uploadedSstFiles.get(lastCompletedCheckpointId); "
        "SharedStateRegistryImpl.registerReference; PR #28963 notifies failed-region tasks with the fallback id "
        "(rows A20, B10, B17)",
        FLIP600_INCREMENTAL,
    ),
)

# What the model found in the design as proposed (flip600-proposed): each entry reverts one of
# flip600-regional's corrections to the proposal.
FINDINGS: tuple[Entry, ...] = (
    Entry(
        "F1-fallback-notice-finishes-task",
        FLIP600.with_(
            name="F1-fallback-notice-finishes-task",
            fallback_notice_at_task="final",
            description="The proposal's fix for bounded jobs (a global checkpoint once every source "
            "is exhausted), with a failed-region task taking notifyCheckpointComplete(id, fallbackId) "
            "as its final checkpoint: a region whose sources end first while another still runs "
            "finishes on a regional completion, and its sink's last transaction is never committed.",
        ),
        "finished-sinks-committed",
        _flip600_scope(job="pipeline-and-side", records=1, checkpoints=2, bounded=True),
        "the FLIP-600 thread, Raorao (23 Jun 2026): 'When all sources are exhausted, the JM will mark the next "
        "checkpoint as mandatory global'; refuted when regions end at different times",
        FLIP600,
    ),
    Entry(
        "F2-commit-past-own-state",
        FLIP600.with_(
            name="F2-commit-past-own-state",
            own_state_commit_bound=False,
            description="An abort notice carries the latest completed checkpoint id, and a task "
            "commits its transactions up to it (notifyCheckpointAbortAsync): a failed-region sink "
            "commits the transaction it pre-committed for the regional checkpoint that holds its "
            "fallback state instead, so a restore of that checkpoint replays the records.  (In the "
            "proposal the fallback notice itself counts as that completion (F1), so there it "
            "takes a lost fallback notice; with F1 fixed, it takes nothing.)",
        ),
        "committed-output-covered",
        scope("pipeline-and-side", records_per_split=1, bounded=False, max_checkpoints=3, max_failures=1,
              max_declines=1, max_timeouts=0, max_lost_notifications=0),
        "mechanics note 6 (abort notices replay the latest completion) and 8.1 step 8 (failed-region tasks "
        "notified with the fallback id); found by ckptcheck spark generate (40,000 walks)",
        FLIP600,
    ),
    Entry(
        "F3-tier2-resets-the-chain-bound",
        FLIP600.with_(
            name="F3-tier2-resets-the-chain-bound",
            forced_global_failure_resets_counter=True,
            description="Tier 2: a forced global checkpoint that fails resets the counter, so the "
            "next regional checkpoint falls back to one that already refers back twice.",
        ),
        "ref-chain-bounded",
        _flip600_scope(job="sources-2", checkpoints=5, declines=4),
        "the FLIP-600 thread, Raorao (26 Jun 2026): 'The reference chain can only grow as deep as "
        "maxConsecutiveFailures'; Tier 2: 'The counter is then reset'",
        FLIP600,
    ),
    Entry(
        "F4-new-coordinator-resets-the-chain-bound",
        FLIP600.with_(
            name="F4-new-coordinator-resets-the-chain-bound",
            regional_counter_on_recovery="reset",
            description="The consecutive-regional counter and the force flag live in the coordinator's handler: "
            "after a JobManager failover the new coordinator starts at 0, not forced, so regional checkpoints "
            "follow a restored checkpoint that already refers back to the limit.",
        ),
        "ref-chain-bounded",
        regional_chain_scope(),  # two sources, five checkpoints, four declines, a JobManager failover
        "PR #28963 RegionalCheckpointHandler at 4e12013 (consecutiveRegionalCheckpointCount = 0, "
        "forceGlobalNextCheckpoint = false: fields of the handler a CheckpointCoordinator creates); "
        "DefaultExecutionGraphFactory.createAndRestoreExecutionGraph builds a new coordinator on every JobManager "
        "failover",
        FLIP600,
    ),
    Entry(
        "F5-limit-checked-at-trigger",
        FLIP600_CONCURRENT.with_(
            name="F5-limit-checked-at-trigger",
            regional_limit_checked_at="trigger",
            description="Tier 1 forces 'the next checkpoint' global, marked at its trigger: with two concurrent "
            "checkpoints, one triggered before the count reached the maximum is judged after it and completes "
            "regionally, a third refCheckpointId hop.",
        ),
        "ref-chain-bounded",
        _flip600_scope(job="sources-2", checkpoints=5, declines=3),
        "the FLIP-600 thread, Raorao (26 Jun 2026): tier 1 forces the next checkpoint global; "
        "execution.checkpointing.max-concurrent-checkpoints > 1, which PR #28963's own tests run",
        FLIP600_CONCURRENT,
    ),
    Entry(
        "F6-local-copy-beside-the-fallback",
        FLIP600_LOCAL.with_(
            name="F6-local-copy-beside-the-fallback",
            local_recovery_rule="as-flink",
            description="Local recovery as Flink has it: a restore of checkpoint c reads each subtask's local copy of c. "
            "A failed-region subtask that acknowledged c keeps its own copy while c holds its fallback state, so a "
            "restore of c mixes that subtask's own state with its region-mates' fallback state.",
        ),
        "committed-output-covered",
        scope("forward-2x2", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=1, max_declines=1,
              max_timeouts=0, max_lost_notifications=0),
        "TaskStateManagerImpl.prioritizedOperatorState (retrieveLocalState(restoreCheckpointId)), "
        "TaskLocalStateStoreImpl.confirmCheckpoint; PR #28963 grafts the fallback state under the regional id "
        "(local recovery)",
        FLIP600_LOCAL,
    ),
)
