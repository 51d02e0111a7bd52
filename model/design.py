"""What a design *is*: the knobs it sets and the component classes it runs.

The model never hard-codes a choice that a FLIP could change; it asks the :class:`Design`.
Knobs are plain data (settable from a TOML file) for the alternatives the model already knows.
Components are the classes that hold the model's rules, one per Flink component
(``COMPONENTS`` below; ``docs/pages/model.md`` lists them): a variant that tries a new idea subclasses one and
overrides one method, a few lines of Python.  Named presets and the flaw catalog live in
``specs``; this module only defines the shape and Flink's own defaults.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .assignment import StateAssignmentOperation
from .barriers import CheckpointBarrierHandler
from .checkpoint_plan import CheckpointPlanCalculator
from .component import Component, component_id, declares_alike
from .coordinator import CheckpointCoordinator
from .failover import FailoverStrategy
from .gateway import OperatorCoordinatorHolder
from .local_state import TaskLocalStateStore
from .network_input import StreamTaskNetworkInput
from .nullstate import NullStateRecovery
from .partitioner import StreamPartitioner
from .regional import RegionalCheckpointHandler
from .registry import SharedStateRegistry
from .request_decider import CheckpointRequestDecider
from .sinks import TwoPhaseCommitSink
from .sinkv2 import CommitterOperator, GlobalCommitterOperator, SinkWriterOperator
from .sources import SourceReader, SplitEnumerator
from .store import CompletedCheckpointStore, FileMergingSnapshotManager
from .surface import checked_variant
from .reading import READINGS, composed
from . import flip600  # noqa: F401  (registers FLIP-600's readings)
from . import flip547  # noqa: F401  (registers FLIP-547's readings)
from .subtask_checkpoint import SubtaskCheckpointCoordinator
from .task import StreamTask


@dataclass(frozen=True)
class Knob:
    name: str
    type: type
    default: Any
    doc: str
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None


KNOBS: tuple[Knob, ...] = (
    Knob(
        "checkpoint_mode",
        str,
        "aligned",
        "barrier handling: aligned (unaligned checkpoints off); unaligned (FLIP-76, aligned-checkpoint-timeout 0: "
        "every checkpoint unaligned); aligned-timeout (each checkpoint starts aligned and may time out into unaligned)",
        ("aligned", "unaligned", "aligned-timeout"),
    ),
    Knob(
        "unaligned_pointwise",
        bool,
        False,
        "FORCE_UNALIGNED on POINTWISE (forward/rescale) edges, as the pointwise-UC thread and apache/flink#28523 propose: their "
        "consumers take unaligned barriers instead of aligning (FLINK-21945's fallback, the default); with Flink 2.3's "
        "redistribution a restore that rescales such an edge with in-flight data fails",
    ),
    Knob(
        "recover_output_on_downstream",
        bool,
        False,
        "execution.checkpointing.unaligned.recover-output-on-downstream.enabled (Flink 2.3.0, FLINK-38542): a restore from "
        "an unaligned checkpoint gives each producer's output channel state to its consumer, which reads it with its "
        "recovered input before any new data (TaskStateAssignment.distributeOutputBuffersToDownstream); the producer "
        "re-sends nothing",
    ),
    Knob(
        "checkpointing_during_recovery",
        bool,
        False,
        "execution.checkpointing.during-recovery.enabled (FLIP-547; Flink 2.3.0 and master): a restored subtask takes "
        "checkpoints while it still reads its recovered channel state, whose unread part becomes the new checkpoint's "
        "input channel state; only with recover_output_on_downstream and unaligned checkpoints "
        "(CheckpointingOptions.isCheckpointingDuringRecoveryEnabled, FLINK-40518)",
    ),
    Knob(
        "recovery_trigger_no_op",
        str,
        "after-state-consumed",
        "FLIP-547 on master: when a subtask's RecoveryCheckpointTrigger stops inserting recovery barriers: once every gate "
        "reported its recovered state consumed (apache/flink#28660, StreamTaskRecoveryTriggerLifecycleTest), or once the "
        "drain handed every recovered buffer to its channel (the code reviewed on apache/flink#28554), where a checkpoint "
        "that starts while a channel is still in recovery is declined, counted",
        ("after-state-consumed", "after-drain"),
    ),
    Knob(
        "alignment_blocks_channels",
        bool,
        True,
        "an aligned task stops reading a channel once that channel delivered the barrier, until the snapshot",
    ),
    Knob(
        "sink_commit",
        str,
        "notify",
        "when a 2PC sink commits a transaction: on notifyCheckpointComplete, or already at pre-commit",
        ("notify", "pre-commit"),
    ),
    Knob(
        "checkpoints_after_tasks_finish",
        bool,
        True,
        "FLIP-147: checkpoints continue after tasks finish, and tasks wait for a final checkpoint",
    ),
    Knob(
        "max_concurrent_checkpoints",
        int,
        1,
        "execution.checkpointing.max-concurrent-checkpoints: how many checkpoints may be pending at once; a "
        "completion aborts the older pending ones (CHECKPOINT_SUBSUMED), a regional one too (PR #28963 "
        "completeRegionalCheckpoint: dropSubsumedCheckpoints). Not with the aligned-timeout mode",
        minimum=1,
    ),
    Knob("num_retained", int, 1, "execution.checkpointing.num-retained (completed checkpoints kept)", minimum=1),
    Knob(
        "tolerable_failed_checkpoints",
        int,
        0,
        "execution.checkpointing.tolerable-failed-checkpoints; exceeding it fails the job (global failover)",
        minimum=0,
    ),
    Knob(
        "regional_checkpoints",
        bool,
        False,
        "FLIP-600 region.enabled: a checkpoint declined in some regions completes with their last state",
    ),
    Knob(
        "max_failed_region_percent",
        int,
        100,
        "FLIP-600 region.max-failure-ratio, in percent: above it the checkpoint aborts",
        minimum=0,
        maximum=100,
    ),
    Knob(
        "max_consecutive_regional",
        int,
        2,
        "FLIP-600 region.max-consecutive-failures: after this many regional checkpoints the next is forced global",
        minimum=0,
    ),
    Knob(
        "force_global_after_max",
        bool,
        True,
        "FLIP-600 tier 1: reaching max_consecutive_regional forces the next checkpoint global",
    ),
    Knob(
        "forced_global_failure_resets_counter",
        bool,
        True,
        "FLIP-600 tier 2: a forced global checkpoint that fails resets the counter (false: the next one is forced global again)",
    ),
    Knob(
        "global_checkpoint_at_end_of_input",
        bool,
        True,
        "FLIP-600: once every source is exhausted, the next checkpoint must be global",
    ),
    Knob(
        "fallback_notice_at_task",
        str,
        "final",
        "FLIP-600: what a failed-region task's StreamTask does with the id of a regional checkpoint that "
        "completed with its fallback state. none: nothing; latest-reported: records it as "
        "latestReportCheckpointId, so a later completion or abort replay of an id up to it is ignored, "
        "without completing finalCheckpointCompleted; final: takes it as a completion in full, its final "
        "checkpoint included (the proposal); replayed-after-restart: as final, and a task that restarts before "
        "it processed the notice gets it again after its restore (PR #28966's documentation: the notice 'survives "
        "task restarts and is applied after the task recovers', row PR3). PR #28963 says the notice is "
        "'delivered via the same task-side checkpoint-complete RPC path'; its StreamTask change is not indexed "
        "(row N4), so the findings report searches every reading",
        ("none", "latest-reported", "final", "replayed-after-restart"),
    ),
    Knob(
        "regional_limit_checked_at",
        str,
        "trigger",
        "FLIP-600 (without forced_checkpoint_waits) with concurrent checkpoints: which checkpoints tier 1 forces "
        "global once the consecutive count reaches region.max-consecutive-failures. trigger: those triggered from "
        "then on (the thread's 'the next checkpoint'), so one triggered before and judged after may still complete "
        "regionally; evaluation: every checkpoint judged while the count is at the maximum. With one checkpoint at a "
        "time the two agree. (Under forced_checkpoint_waits the flag is read at the evaluation, as PR #28963 does.)",
        ("trigger", "evaluation"),
    ),
    Knob(
        "regional_counter_on_recovery",
        str,
        "reset",
        "FLIP-600: the consecutive-regional counter and force flag of the handler of a new CheckpointCoordinator "
        "(a JobManager failover). reset: 0 and not forced, as PR #28963's RegionalCheckpointHandler fields start "
        "(4e12013); from-store: read back from the recovered store (the longest refCheckpointId chain of the latest "
        "checkpoint), forced global when it reaches region.max-consecutive-failures",
        ("reset", "from-store"),
    ),
    Knob(
        "own_state_commit_bound",
        bool,
        False,
        "FLIP-600: the fallback notice and an abort notice's latest-completed id name the checkpoint "
        "that holds the task's own state (refs followed), so a task never commits past it",
    ),
    Knob(
        "retention_follows_refs",
        bool,
        True,
        "FLIP-600: the store retains the checkpoints that retained ones refer to (refCheckpointId closure)",
    ),
    Knob(
        "coordinator_region_fallback",
        str,
        "fallback",
        "FLIP-600 with operator coordinators (split enumerators) in a failed region: the coordinator "
        "corrects the checkpoint's copy of its state for the fallback (fallback: the thread's state correction), "
        "puts the failed readers' later splits back into the live enumerator while those readers keep reading "
        "them (add-back-live: PR #28963's SourceCoordinator.checkpointCoordinatorForRegionFallback, row "
        "B12), the regional checkpoint aborts (a coordinator without support), or the state is taken as is",
        ("fallback", "add-back-live", "abort", "ignore"),
    ),
    Knob(
        "fallback_state_rule",
        str,
        "restored-share",
        "FLIP-600 after a rescale: the state a failed-region subtask takes from the fallback checkpoint. "
        "restored-share: the state it was restored with, its redistributed share (Roman, 29 Jun 2026); by-index: "
        "the fallback's state of the subtask with the same index, whatever parallelism the fallback had (PR "
        "#28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint step 11, lastState.getState(subtaskIdx) "
        "at 4e12013, row N1), where an index the fallback does not have throws (OperatorState.getState: "
        "IndexOutOfBoundsException) and the checkpoint aborts, counted; by-index-stuck: the same, but the throw is "
        "caught nowhere (tryCompleteRegionalCheckpoint at 4e12013; ExecutionGraphHandler only logs an exception of "
        "the decline path) and the checkpoint stays pending: a later decline, or the canceller at its timeout, "
        "re-enters and throws again, and only a failover's restore aborts it (row PR2); by-index-empty: the "
        "same as by-index, but nothing is grafted for such an index (the subtask's state in the checkpoint is empty)",
        ("restored-share", "by-index", "by-index-stuck", "by-index-empty"),
    ),
    Knob(
        "regional_completion",
        str,
        "atomic",
        "FLIP-600 with an operator coordinator (split enumerator) in a failed region: the regional completion is "
        "one step (atomic), or waits for the futures of the coordinators' fallback with the pending checkpoint "
        "still registered, so an acknowledgement from a task a timeout marked declined can arrive meanwhile; it "
        "replaces the task's grafted fallback state, as PR #28963's PendingCheckpoint.acknowledgeTask (which does "
        "not consult declinedTasks) lets it (futures-late-ack-overwrites: RegionalCheckpointHandler step 13, "
        "FutureUtils.combineAll, row N5), or is discarded (futures-late-ack-discarded)",
        ("atomic", "futures-late-ack-overwrites", "futures-late-ack-discarded"),
    ),
    Knob(
        "regional_wait_reentry",
        str,
        "none",
        "FLIP-600 (regional_completion waiting for the coordinators): what a timeout does to a checkpoint whose "
        "regional completion waits for the coordinators' fallback. none: nothing (the timer is not offered); "
        "timeout-reevaluates: the canceller marks the tasks that have not acknowledged declined and runs "
        "tryCompleteRegionalCheckpoint again, the coordinators' fallback a second time (PR #28964's canceller is "
        "not indexed; the pending checkpoint is neither removed nor disposed during the wait: row T5)",
        ("none", "timeout-reevaluates"),
    ),
    Knob(
        "regional_finished_check",
        str,
        "as-global",
        "FLIP-600 with FLIP-147: when a regional checkpoint would leave a vertex with union list state partly "
        "finished (DefaultCheckpointPlan.fulfillFinishedTaskStatus), as-global: it aborts before the fallback "
        "changes anything, uncounted, as a global one does (TASK_CLOSING); after-fallback-counted: it aborts "
        "counted (FINALIZE_CHECKPOINT_FAILURE) after the coordinators' fallback already ran, as PR #28963's "
        "PendingCheckpoint.finalizeRegionalCheckpoint does (row N3)",
        ("as-global", "after-fallback-counted"),
    ),
    Knob(
        "regional_gateway_on_fallback",
        str,
        "reopened",
        "FLIP-600 with a split enumerator: a regional completion tells every operator coordinator that the "
        "checkpoint completed, which reopens the gateways still closed for it (reopened); or, as PR #28963 at "
        "4e12013 does, a coordinator with a subtask in a failed region gets only notifyRegionalCheckpointFallback, "
        "which opens no gateway: a failed-region reader that has not taken its snapshot keeps its gateway closed "
        "until it does (left-closed; OperatorCoordinatorHolder, model.gateway)",
        ("reopened", "left-closed"),
    ),
    Knob(
        "regions_of_running_tasks",
        bool,
        False,
        "FLIP-600: the regions counted (for the single-region check and the failure ratio) are those of "
        "the tasks the checkpoint waits for (PR #28963: regionIdProvider over tasksToWaitFor, row B3), "
        "not every pipelined region of the job",
    ),
    Knob(
        "forced_checkpoint_waits",
        bool,
        False,
        "FLIP-600: a forced global checkpoint buffers declines like any other and is judged once every task "
        "responded, after the single-region and ratio checks, so a ratio abort keeps the force flag and the "
        "counter (PR #28963 RegionalCheckpointHandler.tryCompleteRegionalCheckpoint, rows B1, B5, B6); "
        "false: it aborts at its first decline",
    ),
    Knob(
        "end_of_input_rule",
        str,
        "ended",
        "FLIP-600 with global_checkpoint_at_end_of_input: a checkpoint triggered once every source ended (or "
        "finished) is global-only (ended: the thread, 23 Jun 2026); or, once every source is FINISHED, the "
        "evaluation of a declined checkpoint sets the tier-1 force flag, which tier 2 then resets "
        "(finished-sets-force: an earlier reading of PR #28964 checkAllSourcesFinishedAndForceGlobal, rows B6, B8); "
        "or, once every source is FINISHED, the trigger of a checkpoint sets that flag, so a checkpoint triggered "
        "before the last source finished is judged regional however late its declines come (finished-forces-at-"
        "trigger: PR #28964 checkAllSourcesFinishedAndForceGlobal(CheckpointProperties), which skips savepoints, "
        "and RegionalCheckpointBoundedSourceTest's 'may be re-set by allSourcesFinishedChecker during the next "
        "trigger'; its call site is not indexed; row N2)",
        ("ended", "finished-sets-force", "finished-forces-at-trigger"),
    ),
    Knob(
        "timeouts_complete_regionally",
        bool,
        False,
        "FLIP-600: a pending checkpoint's timeout marks every task that has not acknowledged as declined "
        "and evaluates it like a decline (PR #28964 CheckpointCanceller, RegionalCheckpointTimeoutTest, "
        "row B9); false: a timeout aborts, counted",
    ),
    Knob(
        "fallback_notice_reaches_operators",
        bool,
        True,
        "FLIP-600: a failed-region task's operators act on the fallback notice: they commit what the "
        "fallback state covers (fallback_notice_at_task says what the task does); false: the notice goes to "
        "CheckpointListener.notifyRegionalCheckpointFallback, a no-op by "
        "default, so the operators commit nothing (PR #28963, row B13)",
    ),
    Knob(
        "incremental_checkpoints",
        bool,
        False,
        "incremental checkpoints of the state backend (RocksDB, execution.checkpointing.incremental): a stateful "
        "subtask's snapshot uploads one new shared file and reuses the files of the last snapshot its backend saw "
        "confirmed (RocksIncrementalSnapshotStrategy: uploadedSstFiles, lastCompletedCheckpointId); the "
        "SharedStateRegistry deletes a shared file once its last use is older than the oldest retained checkpoint "
        "(unregisterUnusedState). Not with file_merging, no_claim_restore or recovery 'null-state'",
    ),
    Knob(
        "file_merging",
        bool,
        False,
        "FLIP-306 file merging at task-manager level: the segments that a task manager's subtasks "
        "write for one checkpoint share a physical file, deleted once every segment in it is discarded",
    ),
    Knob(
        "slots_per_task_manager",
        int,
        2,
        "task-manager slots; slot i hosts subtask i of every vertex (slot sharing), task manager = slot // this",
        minimum=1,
    ),
    Knob(
        "file_merging_keeps_fallback_alive",
        bool,
        True,
        "FLIP-600 with FLIP-306: a regional checkpoint re-registers the failed subtasks' fallback "
        "segments under its own id, so the subsumed notice for older checkpoints does not discard them",
    ),
    Knob(
        "no_claim_restore",
        bool,
        False,
        "the job starts from a retained snapshot (checkpoint 1) in NO_CLAIM mode: Flink never deletes "
        "its files, and the user deletes it when no_claim_delete_after allows",
    ),
    Knob(
        "no_claim_delete_after",
        str,
        "first-checkpoint",
        "when the user may delete the NO_CLAIM snapshot: after the first completed checkpoint (Flink's "
        "documentation), or once the latest completed checkpoint no longer refers to it through refs",
        ("first-checkpoint", "independent-checkpoint"),
    ),
    Knob(
        "local_recovery",
        bool,
        False,
        "state.backend.local-recovery: each task manager keeps a local copy of its subtasks' snapshots, and a "
        "restore of checkpoint c on it reads the copy of c in place of the job manager's state "
        "(TaskLocalStateStoreImpl, TaskStateManagerImpl.prioritizedOperatorState); Flink's default is off",
    ),
    Knob(
        "local_recovery_rule",
        str,
        "as-flink",
        "with local_recovery and FLIP-600, what keeps a failed-region subtask's own local copy of a regional "
        "checkpoint c (whose state for it is the fallback's) from being restored: nothing (as-flink: the fallback "
        "notice touches the copies only as fallback_notice_at_task's completion path does); the fallback notice "
        "drops the copy of c (fallback-drops-copy, as PR #28966's documentation says of "
        "notifyRegionalCheckpointFallback); or a restore reads the copy of the checkpoint the subtask's state comes "
        "from, its refCheckpointId (restore-by-ref)",
        ("as-flink", "fallback-drops-copy", "restore-by-ref"),
    ),
    Knob(
        "failover_strategy",
        str,
        "region",
        "jobmanager.execution.failover-strategy: restart the failed pipelined region, or the whole job",
        ("region", "full"),
    ),
    Knob(
        "scheduler",
        str,
        "default",
        "jobmanager.scheduler: default (a failure restarts its failover region's subtasks, restored by the same "
        "CheckpointCoordinator) or adaptive (every restart builds a new execution graph: the whole job, a new "
        "CheckpointCoordinator, the latest checkpoint restored through restoreInitialCheckpointIfPresent with the "
        "finished-state check, as at a JobManager failover). Adaptive needs failover_strategy 'full'",
        ("default", "adaptive"),
    ),
    Knob(
        "recovery",
        str,
        "latest",
        "what a restart restores: the latest completed checkpoint (Flink), or FLINK-4120's null-state recovery "
        "(FLINK-4120): recomputable operators' state is not persisted, the sources restart from the latest "
        "checkpoint's null-state checkpoint and re-insert its barriers, sinks discard until they pass "
        "(``model.nullstate``). Needs failover_strategy 'full'; not with aligned-timeout, FLIP-600, file merging or a NO_CLAIM start",
        ("latest", "null-state"),
    ),
)

KNOB_BY_NAME = {k.name: k for k in KNOBS}

# design field -> the model's own class for that component (Flink's behaviour)
COMPONENTS: dict[str, type[Component]] = {
    "partitioner": StreamPartitioner,
    "source": SourceReader,
    "enumerator": SplitEnumerator,
    "gateways": OperatorCoordinatorHolder,
    "barriers": CheckpointBarrierHandler,
    "sink": TwoPhaseCommitSink,
    "writer": SinkWriterOperator,
    "committer": CommitterOperator,
    "global_committer": GlobalCommitterOperator,
    "task": StreamTask,
    "network_input": StreamTaskNetworkInput,
    "subtask_checkpoint": SubtaskCheckpointCoordinator,
    "coordinator": CheckpointCoordinator,
    "request_decider": CheckpointRequestDecider,
    "checkpoint_plan": CheckpointPlanCalculator,
    "regional": RegionalCheckpointHandler,
    "store": CompletedCheckpointStore,
    "registry": SharedStateRegistry,
    "file_merging_manager": FileMergingSnapshotManager,
    "failover": FailoverStrategy,
    "assignment": StateAssignmentOperation,
    "null_state": NullStateRecovery,
    "local_state": TaskLocalStateStore,
}


def knob_conflict(knobs: dict[str, Any]) -> str:
    """Why the model cannot run this combination of knob values, or "".  More than one
    concurrent checkpoint is modelled for the aligned and unaligned modes (FLIP-600 included: its
    handler keeps one counter and one force flag for every pending checkpoint, as PR #28963 does),
    not for aligned-timeout: such a task keeps one snapshot waiting for its timeoutable barriers
    to leave (``TaskState.sending``)."""
    if knobs["recovery"] == "null-state":
        if knobs["failover_strategy"] != "full":
            return "recovery 'null-state' restarts the whole job: set failover_strategy 'full'"
        if knobs["checkpoint_mode"] == "aligned-timeout":
            return "recovery 'null-state' is not modelled with checkpoint_mode 'aligned-timeout' (use aligned or unaligned)"
        for name, off in (("regional_checkpoints", False), ("no_claim_restore", False), ("file_merging", False),
                          ("incremental_checkpoints", False)):
            if knobs[name] != off:
                return f"recovery 'null-state' is modelled only with {name} {off!r}"
    if knobs["scheduler"] == "adaptive" and knobs["failover_strategy"] != "full":
        return "scheduler 'adaptive' restarts the whole job on every failure: set failover_strategy 'full'"
    if knobs["incremental_checkpoints"] and (knobs["file_merging"] or knobs["no_claim_restore"]):
        return "incremental_checkpoints is not modelled with file_merging or no_claim_restore (one of them)"
    if knobs["checkpointing_during_recovery"]:
        if not knobs["recover_output_on_downstream"]:
            return ("checkpointing_during_recovery: Flink turns it on only with recover_output_on_downstream"
                    " (CheckpointingOptions.isCheckpointingDuringRecoveryEnabled): set both")
        if knobs["checkpoint_mode"] == "aligned":
            return ("checkpointing_during_recovery: needs unaligned checkpoints (since FLINK-40518 Flink turns it off"
                    " without them; a job restarted with them off is the scope option restart_aligned)")
        if knobs["recovery"] == "null-state":
            return "checkpointing_during_recovery is not modelled with recovery 'null-state'"
    if knobs["max_concurrent_checkpoints"] > 1:
        if knobs["checkpoint_mode"] == "aligned-timeout":
            return "max_concurrent_checkpoints > 1 with checkpoint_mode 'aligned-timeout' is not modelled (use 1)"
    return ""


def qualified_name(cls: type) -> str:
    """How traces and reports record a component class (``model.component.component_id``)."""
    return component_id(cls)


@dataclass(frozen=True)
class Design:
    """A checkpointing design: knobs (data) plus component classes (rules).

    A variant is ``design.with_(name="mine", num_retained=2)`` for knobs, or
    ``design.with_(name="mine", store=MyStore)`` with ``MyStore`` a subclass of
    :class:`CompletedCheckpointStore` that overrides one method.
    """

    name: str
    description: str = ""
    origin: str = ""  # where the design (or flaw) comes from: a seed passage, a Flink issue
    checkpoint_mode: str = "aligned"
    unaligned_pointwise: bool = False
    recover_output_on_downstream: bool = False
    checkpointing_during_recovery: bool = False
    recovery_trigger_no_op: str = "after-state-consumed"
    alignment_blocks_channels: bool = True
    sink_commit: str = "notify"
    checkpoints_after_tasks_finish: bool = True
    max_concurrent_checkpoints: int = 1
    num_retained: int = 1
    tolerable_failed_checkpoints: int = 0
    failover_strategy: str = "region"
    regional_checkpoints: bool = False
    max_failed_region_percent: int = 100
    max_consecutive_regional: int = 2
    force_global_after_max: bool = True
    forced_global_failure_resets_counter: bool = True
    global_checkpoint_at_end_of_input: bool = True
    fallback_notice_at_task: str = "final"
    regional_counter_on_recovery: str = "reset"
    regional_limit_checked_at: str = "trigger"
    retention_follows_refs: bool = True
    own_state_commit_bound: bool = False
    coordinator_region_fallback: str = "fallback"
    fallback_state_rule: str = "restored-share"
    regional_completion: str = "atomic"
    regional_wait_reentry: str = "none"
    regional_finished_check: str = "as-global"
    regional_gateway_on_fallback: str = "reopened"
    regions_of_running_tasks: bool = False
    forced_checkpoint_waits: bool = False
    end_of_input_rule: str = "ended"
    timeouts_complete_regionally: bool = False
    fallback_notice_reaches_operators: bool = True
    incremental_checkpoints: bool = False
    file_merging: bool = False
    slots_per_task_manager: int = 2
    file_merging_keeps_fallback_alive: bool = True
    no_claim_restore: bool = False
    no_claim_delete_after: str = "first-checkpoint"
    local_recovery: bool = False
    local_recovery_rule: str = "as-flink"
    recovery: str = "latest"
    scheduler: str = "default"
    # components (compare=False: two designs differ by name and knobs; classes are recorded by name)
    partitioner: type[StreamPartitioner] = field(default=StreamPartitioner, compare=False)
    source: type[SourceReader] = field(default=SourceReader, compare=False)
    enumerator: type[SplitEnumerator] = field(default=SplitEnumerator, compare=False)
    gateways: type[OperatorCoordinatorHolder] = field(default=OperatorCoordinatorHolder, compare=False)
    barriers: type[CheckpointBarrierHandler] = field(default=CheckpointBarrierHandler, compare=False)
    sink: type[TwoPhaseCommitSink] = field(default=TwoPhaseCommitSink, compare=False)
    writer: type[SinkWriterOperator] = field(default=SinkWriterOperator, compare=False)
    committer: type[CommitterOperator] = field(default=CommitterOperator, compare=False)
    global_committer: type[GlobalCommitterOperator] = field(default=GlobalCommitterOperator, compare=False)
    task: type[StreamTask] = field(default=StreamTask, compare=False)
    network_input: type[StreamTaskNetworkInput] = field(default=StreamTaskNetworkInput, compare=False)
    subtask_checkpoint: type[SubtaskCheckpointCoordinator] = field(default=SubtaskCheckpointCoordinator, compare=False)
    coordinator: type[CheckpointCoordinator] = field(default=CheckpointCoordinator, compare=False)
    request_decider: type[CheckpointRequestDecider] = field(default=CheckpointRequestDecider, compare=False)
    checkpoint_plan: type[CheckpointPlanCalculator] = field(default=CheckpointPlanCalculator, compare=False)
    regional: type[RegionalCheckpointHandler] = field(default=RegionalCheckpointHandler, compare=False)
    store: type[CompletedCheckpointStore] = field(default=CompletedCheckpointStore, compare=False)
    registry: type[SharedStateRegistry] = field(default=SharedStateRegistry, compare=False)
    file_merging_manager: type[FileMergingSnapshotManager] = field(default=FileMergingSnapshotManager, compare=False)
    failover: type[FailoverStrategy] = field(default=FailoverStrategy, compare=False)
    assignment: type[StateAssignmentOperation] = field(default=StateAssignmentOperation, compare=False)
    null_state: type[NullStateRecovery] = field(default=NullStateRecovery, compare=False)
    local_state: type[TaskLocalStateStore] = field(default=TaskLocalStateStore, compare=False)

    def __post_init__(self) -> None:
        for name, base in COMPONENTS.items():
            cls = getattr(self, name)
            if not (isinstance(cls, type) and issubclass(cls, base)):
                raise TypeError(
                    f"design {self.name!r}: {name} must be {base.__name__} or a subclass of it"
                    f" (from {base.__module__}), got {cls!r}"
                )
            checked_variant(cls, base)
        read = {k for k, _ in READINGS}
        overridden: dict[str, type] = {}
        for r in self.readings():
            for method in (m for m in vars(r) if callable(vars(r)[m]) and not m.startswith("__")):
                other = overridden.setdefault(f"{next(n for n, c in COMPONENTS.items() if issubclass(r, c))}.{method}", r)
                if other is not r and not issubclass(r, other) and not issubclass(other, r):
                    raise ValueError(f"design {self.name!r}: readings {other.__name__} ({getattr(other, 'knob', '')}) and"
                                     f" {r.__name__} ({getattr(r, 'knob', '')}) both change {method}")
        for k in KNOBS:
            value = getattr(self, k.name)
            if k.name in read and value != k.default and (k.name, value) not in READINGS:  # pragma: no cover - a knob's choices
                raise ValueError(f"design {self.name!r}: {k.name} = {value!r} has no reading (model.flip600, model.flip547)")
        problem = knob_conflict(self.knobs())
        if problem:
            raise ValueError(f"design {self.name!r}: {problem}")

    def with_(self, **changes: Any) -> "Design":
        return dataclasses.replace(self, **changes)

    def knobs(self) -> dict[str, Any]:
        return {k.name: getattr(self, k.name) for k in KNOBS}

    def readings(self) -> tuple[type, ...]:
        """The readings this design's knob values select (``model.reading``), in knob order."""
        return tuple(r for k in KNOBS for r in READINGS.get((k.name, getattr(self, k.name)), ()))

    def component_class(self, name: str) -> type[Component]:
        """The class the model runs for design field ``name``: the design's class, with the
        readings for that component its knob values select mixed in after it."""
        base = COMPONENTS[name]
        return composed(getattr(self, name), tuple(r for r in self.readings() if issubclass(r, base)))

    def components(self) -> dict[str, str]:
        """Design field -> the registry id of its class (``component_id``; for reports and traces)."""
        return {name: qualified_name(getattr(self, name)) for name in COMPONENTS}

    def replaced(self) -> dict[str, str]:
        """The components this design replaces (qualified names): its Python rule changes."""
        return {n: q for n, q in self.components().items() if getattr(self, n) is not COMPONENTS[n]}

    def unlike_subtasks(self) -> dict[str, str]:
        """The replaced components that do not declare ``treats_subtasks_alike``
        (``model.component.declares_alike``): those that may treat subtask indexes differently,
        so symmetry reduction is off for this design."""
        return {n: q for n, q in self.replaced().items() if not declares_alike(getattr(self, n))}
