"""What must hold, as predicates that return a verdict with a human reason.

Each property is ``always`` (every reachable world), ``eventually`` (every quiescent world: no
progress action enabled, only faults or nothing; in our finite scopes every fair run ends in
one), or ``sometimes`` (a witness: some reachable transition shows the behaviour, so the check
is not vacuous).  A check function returns ``None`` when the property holds and a reason string
naming the record, task or checkpoint when it does not (for ``sometimes``: a string describing
the witness when the transition is one).
"""

from __future__ import annotations

from ckptcheck.model.topology import StateKind

from .property import ALWAYS, EVENTUALLY, SOMETIMES, Property, _always_applies, _bounded, _first_over_store, _regional, rec
from .baseline.properties import (_capacity, _cut_verdict, _keyed_layout, _markers_possible, committed_output_covered, consistent_cut,
                   exactly_once_output, key_groups_owned_once, per_key_order, restorable, restores_succeed, shared_state_registered,
                   terminates_with_all_output, w_ack_overtakes, w_backpressure, w_cancel_marker_aborts,
                   w_checkpoint_completed, w_completes_before_restore, w_base_pruned, w_completion_subsumes_pending, w_decline, w_rpc_overtakes,
                   w_trigger_at_finished, w_failure_suspends, w_trigger_waits_for_initializing,
                   w_failover, w_jobmanager_failover, w_job_finished, w_local_copy_restored, w_placeholder_reused, w_restore, w_shared_file_outlives, w_sink_commit,
                   w_two_checkpoints_completed, w_two_checkpoints_pending)
from .flip147.properties import (_data_item, _finishing, _new_commits, _outlives_upstream, _parallel, _post_commit, _sink_v2,
                      describe_item, finished_sinks_committed, no_data_after_end_of_data,
                      w_checkpoint_survives_a_finish, w_committables_recommitted, w_committer_holds_end_of_data,
                      w_blocking_result_read, w_end_of_partition_aborts,
                      w_end_of_input_committables, w_finished_on_restore, w_finished_subtask_restarts,
                      w_finishes_on_later_completion, w_finishes_with_checkpoint_pending, w_partly_finished_checkpoint,
                      w_resumed_from_savepoint, w_savepoint_completes, w_stop_fails, w_stopped_job_finishes,
                      w_user_restore_checks_finished_state,
                      w_trigger_after_close, w_triggered_after_producers_finished, w_union_state_abort,
                      writer_input_before_end_of_input)
from .nullstate.properties import (_null_state, _replayed_head, null_state_checkpoint_retained, recomputed_state_matches,
                        w_barrier_reinserted, w_in_flight_pushes_back, w_older_null_state_recovery,
                        w_sink_discards_replayed, w_sink_takes_overtaken, w_trigger_held_during_replay)
from .flip600.properties import (_epoch_verdict, _evaluated_declined, _ownership_verdict, _pr_add_back, _pr_timeouts,
                       pending_checkpoints_resolve, ref_chain_bounded, snapshot_origin, split_ownership, split_read_once, union_epoch_agreed,
                       w_closing_task_falls_back, w_finished_region_not_counted, w_finished_sources_force_global,
                       w_forced_checkpoint_aborts, w_forced_global, w_regional_completed, w_rescale_regional,
                       w_late_ack_while_coordinators_fall_back, w_regional_union_state_abort, w_restore_regional,
                       w_event_held_by_gateway, w_fallback_notice_survives_restart, w_force_flag_cleared_under_a_newer_checkpoint, w_new_coordinator_after_regional,
                       w_timeout_while_coordinators_fall_back, w_gateway_left_closed, w_split_returns_live,
                       w_timeout_completes_regionally)
from .unaligned.properties import (_acked_snapshot, _during_recovery, _filterable_keyed_edge, _forced_aligned_node, _keyed_edge, _pattern_changes, _rescales,
                        _announcing, _restore_verdict, _timeoutable, _two_input_subtask, _unaligned, _w_pattern_change,
                        channel_state, rescaled_channel_state_exact, w_aligned_node_sends_unaligned,
                        w_barrier_overtakes, w_barrier_passes_end_of_resent_state, w_channel_state_restored,
                        w_finish_waits_for_consumers, w_rescaled_task_declines,
                        w_gate_waits_for_resent_output, w_input_state, w_output_state, w_output_state_recovered_downstream, w_record_spans,
                        w_checkpoint_completes_during_recovery, w_recovered_record_in_new_checkpoint,
                        w_restore_from_checkpoint_during_recovery, w_refused_while_filtering, declined_by_itself,
                        waits_for_recovery, w_restart_aligned,
                        w_replica_filtered, w_rescale_channel_state, w_rescaled, w_split_record_restored,
                        w_switch_to_unaligned, w_timer_fires_on_announcement)

# The predicates live by the feature they check, on ``base``'s vocabulary: ``core`` (checkpointing
# itself), ``flip147`` (finished tasks, Sink V2, stop-with-savepoint), ``regional`` (FLIP-600),
# ``unaligned`` (channel state, rescaling) and ``nullstate`` (FLINK-4120).  Every name is imported
# here too, so ``ckptcheck.specs.properties.<name>`` keeps working; the registry below lists them
# in one fixed order, which results and golden counts depend on.

BASELINE_PROPERTIES: tuple[Property, ...] = (
    Property(
        "exactly-once-output",
        ALWAYS,
        "no record is ever committed to the external system twice",
        exactly_once_output,
    ),
    Property(
        "checkpoints-restorable",
        ALWAYS,
        "every checkpoint the store retains still has every file it refers to",
        restorable,
    ),
    Property(
        "checkpoints-consistent",
        ALWAYS,
        "every retained checkpoint is a consistent cut: restoring it and replaying the sources loses and duplicates no record",
        consistent_cut,
    ),
    Property(
        "key-groups-owned-once",
        ALWAYS,
        "every key group is owned by exactly one subtask, and keyed state sits with its owner",
        key_groups_owned_once,
    ),
    Property(
        "restores-succeed",
        ALWAYS,
        "every restore at a new parallelism, from a savepoint or after a JobManager failover can deploy the job from its checkpoint (no restore fails on state it "
        "cannot redistribute or on a finished state VertexFinishedStateChecker refuses)",
        restores_succeed,
        lambda design, scope: scope.max_rescales > 0 or bool(scope.stop_with_savepoint) or scope.max_jm_failovers > 0
        or design.scheduler == "adaptive" and scope.max_failures > 0,
    ),
    Property(
        "rescaled-channel-state-exact",
        ALWAYS,
        "every retained checkpoint's channel state, redistributed to the other parallelism the scope may restart at, puts every record back exactly once",
        rescaled_channel_state_exact,
        lambda design, scope: scope.max_rescales > 0 and design.checkpoint_mode != "aligned",
    ),
    Property(
        "per-key-order",
        ALWAYS,
        "the records of one key reach the keyed operator in source order (where the scope's records share keys)",
        per_key_order,
        lambda design, scope: scope.keys_per_split > 0 and any(StateKind.KEYED in v.state for v in scope.job.vertices),
    ),
    Property(
        "no-checkpoint-declined-by-itself",
        ALWAYS,
        "no subtask declines a checkpoint, counted, for a reason of its own (an injected decline stands for a failed "
        "snapshot): a checkpoint that starts during recovery is taken",
        declined_by_itself,
        _during_recovery,
    ),
    Property(
        "no-checkpoint-waits-for-a-recovery",
        ALWAYS,
        "no pending checkpoint's barrier waits behind a recovered record at a subtask that counts as RUNNING: it would"
        " neither be declined nor taken until the recovery ends, and expire when the recovery outlasts the checkpoint"
        " timeout (checkpointing_during_recovery)",
        waits_for_recovery,
        _during_recovery,
    ),
    Property(
        "committed-output-covered",
        ALWAYS,
        "every record a 2PC sink committed lies before its split's position in the latest completed checkpoint (a restore never re-reads it)",
        committed_output_covered,
    ),
    Property(
        "finished-sinks-committed",
        ALWAYS,
        "a 2PC sink that finished has committed every transaction it wrote (its final checkpoint completed with its own state)",
        finished_sinks_committed,
        _bounded,
    ),
    Property(
        "writer-input-before-end-of-input",
        ALWAYS,
        "no record reaches a Sink V2 writer after its end of input (processElement would throw IllegalStateException)",
        writer_input_before_end_of_input,
        lambda design, scope: any(v.sink_v2 == "writer" for v in scope.job.vertices),
    ),
    Property(
        "no-data-after-end-of-data",
        ALWAYS,
        "no record or committable is sent behind EndOfData, where its consumer would drop it (FinishedDataOutput)",
        no_data_after_end_of_data,
        lambda design, scope: any(v.sink_v2 for v in scope.job.vertices),
    ),
    Property(
        "bounded-job-completes",
        EVENTUALLY,
        "a bounded job terminates, with every record committed (checked where no progress is possible)",
        terminates_with_all_output,
        _bounded,
    ),
    Property("a-checkpoint-completes", SOMETIMES, "a checkpoint completes", w_checkpoint_completed),
    Property("two-checkpoints-complete", SOMETIMES, "two checkpoints complete in one run", w_two_checkpoints_completed),
    Property("a-task-declines", SOMETIMES, "a subtask declines a checkpoint", w_decline),
    Property("a-task-fails", SOMETIMES, "a subtask fails and its region fails over", w_failover),
    Property("restore-from-checkpoint", SOMETIMES, "failed subtasks are restored from a completed checkpoint", w_restore),
    Property("a-restore-reads-a-local-copy", SOMETIMES,
             "local recovery: a restarted subtask restores its task manager's local copy of the checkpoint restored",
             w_local_copy_restored, lambda design, scope: design.local_recovery
             and (scope.max_failures > 0 or scope.max_jm_failovers > 0)),
    Property("a-jobmanager-fails-over", SOMETIMES,
             "the JobManager fails over and the new one's coordinator restores the latest completed checkpoint to every subtask",
             w_jobmanager_failover, lambda design, scope: scope.max_jm_failovers > 0),
    Property("an-ack-overtakes", SOMETIMES, "acknowledgements of different subtasks arrive out of subtask order", w_ack_overtakes,
             lambda design, scope: not scope.instant_acks),
    Property("a-sink-commits", SOMETIMES, "a sink commits a transaction", w_sink_commit,
             lambda design, scope: any(v.two_phase_commit or v.sink_v2 for v in scope.job.vertices)),
    Property("the-job-finishes", SOMETIMES, "every subtask finishes", w_job_finished, _bounded),
    Property("a-task-triggered-after-its-producers-finished", SOMETIMES,
             "FLIP-147: the plan triggers a non-source task by RPC because its producers finished",
             w_triggered_after_producers_finished, _outlives_upstream),
    Property("a-user-restore-checks-finished-state", SOMETIMES,
             "a rescale, a resume from a savepoint or a JobManager failover restores a checkpoint with a finished vertex, which"
             " VertexFinishedStateChecker accepts",
             w_user_restore_checks_finished_state,
             lambda d, s: s.bounded and d.checkpoints_after_tasks_finish and bool(s.max_rescales or s.stop_with_savepoint
                                                                                  or s.max_jm_failovers
                                                                                  or d.scheduler == "adaptive" and s.max_failures)),
    Property("a-checkpoint-with-a-partly-finished-vertex", SOMETIMES,
             "FLIP-147: a checkpoint completes while some subtasks of a vertex finished and others run",
             w_partly_finished_checkpoint, lambda d, s: s.bounded and d.checkpoints_after_tasks_finish and _parallel(s)),
    Property("a-vertex-restored-finished", SOMETIMES,
             "FLIP-147: a fully finished vertex is deployed FINISHED_ON_RESTORE",
             w_finished_on_restore, lambda d, s: _outlives_upstream(d, s) and s.max_failures > 0 and not _null_state(d, s)),
    Property("a-finished-subtask-restarts", SOMETIMES,
             "FLIP-147: a finished subtask of a partly finished vertex restarts as a regular task with empty state",
             w_finished_subtask_restarts,
             lambda d, s: s.bounded and d.checkpoints_after_tasks_finish and s.max_failures > 0 and _parallel(s)
             and not _null_state(d, s)),
    Property("a-checkpoint-completes-before-the-restore", SOMETIMES,
             "a checkpoint completes after a failure and before its restore (the restore aborts the pending checkpoint)",
             w_completes_before_restore,
             lambda d, s: s.max_failures > 0 and not d.regional_checkpoints and not s.suspend_on_failure),
    Property("a-checkpoint-survives-a-finish", SOMETIMES,
             "FLIP-147: a checkpoint completes although a task it was triggered with finished while it was pending",
             w_checkpoint_survives_a_finish, lambda d, s: s.bounded and d.checkpoints_after_tasks_finish and _parallel(s)),
    Property("a-union-state-abort", SOMETIMES,
             "FLIP-147: a checkpoint aborts because a vertex with union list state would be partly finished in it",
             w_union_state_abort,
             lambda d, s: s.bounded and d.checkpoints_after_tasks_finish
             and any(StateKind.UNION in v.state and v.parallelism > 1 for v in s.job.vertices)),
    Property("two-checkpoints-pending", SOMETIMES,
             "two checkpoints are pending at once (max_concurrent_checkpoints > 1)",
             w_two_checkpoints_pending, lambda d, s: d.max_concurrent_checkpoints > 1),
    Property("a-completion-subsumes-a-pending-checkpoint", SOMETIMES,
             "a checkpoint completes while an older one is pending and aborts it (CHECKPOINT_SUBSUMED)",
             w_completion_subsumes_pending, lambda d, s: d.max_concurrent_checkpoints > 1),
    Property("a-trigger-reaches-a-closed-task", SOMETIMES,
             "FLIP-147: a task finishes between the plan and its trigger RPC, which it declines (TASK_CLOSING)",
             w_trigger_after_close,
             lambda d, s: s.bounded and s.staggered_triggers and d.checkpoints_after_tasks_finish and s.max_declines > 0),
    Property("end-of-partition-aborts-a-checkpoint", SOMETIMES,
             "without checkpoints after tasks finish: an EndOfPartition reaches a task aligning a checkpoint, which aborts"
             " (INPUT_END_OF_STREAM)",
             w_end_of_partition_aborts,
             lambda d, s: (s.bounded and not d.checkpoints_after_tasks_finish and s.max_checkpoints > 0 and s.staggered_triggers
                           and s.max_declines > 0)),
    Property("shared-state-registered", ALWAYS,
             "incremental checkpoints: the SharedStateRegistry accepts every acknowledgement (no placeholder names a"
             " shared file it deleted; registerReference's checkState)", shared_state_registered,
             lambda d, s: d.incremental_checkpoints),
    Property("a-snapshot-prunes-files-sent-again", SOMETIMES,
             "incremental checkpoints: a snapshot's placeholder base leaves out the confirmed upload's files that a newer"
             " snapshot sent again (PreviousSnapshot.pruneFirstCheckpointSstFiles)", w_base_pruned,
             lambda d, s: d.incremental_checkpoints and (s.bounded or s.max_checkpoints >= 3)),
    Property("a-placeholder-refers-to-an-earlier-file", SOMETIMES,
             "incremental checkpoints: a checkpoint completes that refers to a file of an earlier checkpoint by a"
             " placeholder (the backend saw that checkpoint confirmed)", w_placeholder_reused,
             lambda d, s: d.incremental_checkpoints and (s.bounded or s.max_checkpoints >= 2)),
    Property("a-shared-file-outlives-its-checkpoint", SOMETIMES,
             "incremental checkpoints: a subsumed checkpoint's shared file stays because a retained checkpoint still"
             " refers to it (SharedStateRegistry.unregisterUnusedState)", w_shared_file_outlives,
             lambda d, s: d.incremental_checkpoints and (s.bounded or s.max_checkpoints >= 2)),
    Property("a-stop-savepoint-completes", SOMETIMES, "a stop-with-savepoint's synchronous savepoint completes",
             w_savepoint_completes, lambda d, s: bool(s.stop_with_savepoint)),
    Property("a-stopped-job-finishes", SOMETIMES, "every subtask finishes after a stop-with-savepoint's savepoint",
             w_stopped_job_finishes, lambda d, s: bool(s.stop_with_savepoint)),
    Property("a-stop-fails", SOMETIMES, "a stop-with-savepoint's savepoint aborts and the job runs on",
             w_stop_fails, lambda d, s: bool(s.stop_with_savepoint) and (s.max_failures or s.max_declines or s.max_timeouts) > 0),
    Property("a-job-resumes-from-its-savepoint", SOMETIMES,
             "the job is started again from its stop's savepoint (without --drain, or after a failure ended it)",
             w_resumed_from_savepoint, lambda d, s: s.stop_with_savepoint == "no-drain" or (bool(s.stop_with_savepoint) and s.max_failures > 0)),
    Property("a-task-finishes-on-a-later-completion", SOMETIMES,
             "FLIP-147: a task finishes on the completion of a checkpoint later than its final one (FLIP-147)",
             w_finishes_on_later_completion,
             lambda d, s: s.bounded and d.checkpoints_after_tasks_finish
             and (s.max_lost_notifications > 0 or (s.max_declines or s.max_timeouts) > 0 and d.tolerable_failed_checkpoints > 0)),
    Property("a-task-finishes-with-a-checkpoint-pending", SOMETIMES,
             "FLIP-147: a task finishes while a later checkpoint it acknowledged is pending (FLIP-147's 42/43/44)",
             w_finishes_with_checkpoint_pending,
             lambda d, s: s.bounded and d.checkpoints_after_tasks_finish and d.max_concurrent_checkpoints > 1),
    Property("end-of-input-committables-committed", SOMETIMES,
             "a Sink V2 writer's end-of-input committables (lastKnownCheckpointId + 1) are committed",
             w_end_of_input_committables, lambda d, s: _sink_v2(d, s) and s.bounded),
    Property("a-committer-holds-end-of-data", SOMETIMES,
             "a Sink V2 committer holds EndOfData back until its final committables were emitted (FLINK-38614)",
             w_committer_holds_end_of_data, lambda d, s: _post_commit(d, s) and s.bounded),
    Property("recomputed-state-matches", ALWAYS,
             "FLINK-4120: a recomputable operator's state, rebuilt by the time the re-inserted barrier passes it, is the"
             " one the latest checkpoint held", recomputed_state_matches, _null_state),
    Property("null-state-checkpoint-retained", ALWAYS,
             "FLINK-4120: the latest checkpoint's null-state checkpoint is still in the store (a recovery never needs a"
             " checkpoint the store deleted)", null_state_checkpoint_retained, _null_state),
    Property("a-recovery-from-an-older-null-state-checkpoint", SOMETIMES,
             "FLINK-4120: the job restarts from a null-state checkpoint older than the latest checkpoint",
             w_older_null_state_recovery, lambda d, s: _null_state(d, s) and s.max_failures > 0),
    Property("a-sink-discards-a-replayed-record", SOMETIMES,
             "FLINK-4120: a sink drops a replayed record that precedes the re-inserted barrier",
             w_sink_discards_replayed, lambda d, s: _null_state(d, s) and s.max_failures > 0),
    Property("a-sink-takes-an-overtaken-record", SOMETIMES,
             "FLINK-4120 with unaligned checkpoints: a sink takes a replayed record before the re-inserted barrier,"
             " because the checkpoint's barrier overtook it", w_sink_takes_overtaken,
             lambda d, s: _null_state(d, s) and s.max_failures > 0 and d.checkpoint_mode != "aligned"),
    Property("a-trigger-is-held-during-a-replay", SOMETIMES,
             "FLINK-4120: a checkpoint could be triggered, but a re-inserted barrier is still on its way",
             w_trigger_held_during_replay, lambda d, s: _null_state(d, s) and s.max_failures > 0),
    Property("in-flight-records-push-the-null-state-checkpoint-back", SOMETIMES,
             "FLINK-4120 with unaligned checkpoints: records a checkpoint holds in flight to a recomputable operator make"
             " its null-state checkpoint older than the operator's watermark alone", w_in_flight_pushes_back,
             lambda d, s: _null_state(d, s) and d.checkpoint_mode != "aligned"),
    Property("a-barrier-is-reinserted", SOMETIMES,
             "FLINK-4120: a source re-inserts the latest checkpoint's barrier after replaying records",
             w_barrier_reinserted, lambda d, s: _null_state(d, s) and s.max_failures > 0),
    Property("restored-committables-recommitted", SOMETIMES,
             "a restore re-commits the committables in a Sink V2 committer's state",
             w_committables_recommitted, lambda d, s: _sink_v2(d, s) and s.max_failures > 0),
    Property(
        "split-ownership-consistent",
        ALWAYS,
        "in every retained checkpoint, the split enumerator's state and the readers' states hold each split once",
        split_ownership,
        lambda design, scope: any(v.coordinator for v in scope.job.vertices),
    ),
    Property(
        "union-epoch-agreed",
        ALWAYS,
        "every retained checkpoint gives a vertex with epoch state one epoch (its subtasks' union entries come from one checkpoint)",
        union_epoch_agreed,
        lambda design, scope: any(StateKind.EPOCH in v.state for v in scope.job.vertices),
    ),
    Property(
        "split-read-once",
        ALWAYS,
        "no split is held by two running readers at once (the enumerator never hands out a split a reader still holds)",
        split_read_once,
        lambda design, scope: any(v.coordinator for v in scope.job.vertices),
    ),
    Property("an-event-waits-for-a-closed-gateway", SOMETIMES,
             "a split's AddSplitEvent, sent after the coordinator's checkpoint, waits in the reader's closed gateway until"
             " the reader took its own snapshot (or the checkpoint ended)",
             w_event_held_by_gateway,
             lambda design, scope: scope.staggered_triggers and any(v.coordinator for v in scope.job.vertices)),
    Property("an-older-checkpoint-clears-the-force-flag", SOMETIMES,
             "FLIP-600 with concurrent checkpoints: an older checkpoint's tier 2 or global completion clears the one force flag"
             " while a newer one triggered forced is pending", w_force_flag_cleared_under_a_newer_checkpoint,
             lambda d, s: d.regional_checkpoints and d.max_concurrent_checkpoints > 1),
    Property("a-timeout-while-coordinators-fall-back", SOMETIMES,
             "FLIP-600 (reading timeout-reevaluates, row T5): a checkpoint times out while its regional completion waits"
             " for the coordinators' fallback, and is judged again", w_timeout_while_coordinators_fall_back,
             lambda d, s: d.regional_wait_reentry == "timeout-reevaluates" and s.max_timeouts > 0),
    Property("a-new-coordinator-after-regional-checkpoints", SOMETIMES,
             "FLIP-600: a new coordinator (a JobManager failover, a rescale, an adaptive scheduler's restart) follows regional"
             " checkpoints in a row and starts its count as regional_counter_on_recovery says", w_new_coordinator_after_regional,
             lambda d, s: d.regional_checkpoints and (s.max_jm_failovers > 0 or s.max_rescales > 0
                                                      or d.scheduler == "adaptive" and s.max_failures > 0)),
    Property("a-fallback-notice-survives-a-restart", SOMETIMES,
             "FLIP-600 (reading replayed-after-restart, PR #28966's documentation): a restarted task gets again the fallback"
             " notice its failed attempt had not processed", w_fallback_notice_survives_restart,
             lambda d, s: d.fallback_notice_at_task == "replayed-after-restart" and s.max_failures > 0),
    Property(
        "pending-checkpoints-resolve",
        EVENTUALLY,
        "no checkpoint stays pending for good: it completes, aborts, expires or is aborted by a failover (checked where"
        " no progress is possible, in unbounded jobs)",
        pending_checkpoints_resolve,
        lambda design, scope: design.regional_checkpoints and not scope.bounded,
    ),
    Property(
        "ref-chain-bounded",
        ALWAYS,
        "refCheckpointId chains of retained checkpoints are at most max_consecutive_regional long",
        ref_chain_bounded,
        _regional,
    ),
    Property("a-regional-checkpoint-completes", SOMETIMES, "a regional checkpoint completes", w_regional_completed, _regional),
    Property("restore-from-regional", SOMETIMES, "failed subtasks are restored from a regional checkpoint", w_restore_regional, _regional),
    Property("forced-global-completes", SOMETIMES, "a forced global checkpoint completes after regional ones", w_forced_global, _regional),
    Property("a-forced-checkpoint-aborts", SOMETIMES, "a forced global checkpoint that a region declined (or that timed out) is aborted",
             w_forced_checkpoint_aborts, lambda d, s: _regional(d, s) and s.max_checkpoints >= 4),
    Property("a-closing-task-falls-back", SOMETIMES,
             "a regional checkpoint completes with a task that declined TASK_CLOSING in a failed region",
             w_closing_task_falls_back,
             lambda d, s: _regional(d, s) and s.bounded and s.staggered_triggers and s.max_declines > 0),
    Property("a-timeout-completes-regionally", SOMETIMES, "PR #28964: a timed-out checkpoint completes regionally",
             w_timeout_completes_regionally, _pr_timeouts),
    Property("a-finished-region-is-not-counted", SOMETIMES,
             "PR #28963: a declined checkpoint is judged over the regions of the tasks it waited for, a finished region left out",
             w_finished_region_not_counted,
             lambda d, s: _regional(d, s) and d.regions_of_running_tasks and s.bounded and s.max_declines > 0),
    Property("finished-sources-force-global", SOMETIMES,
             "PR #28964: every source FINISHED forces a checkpoint global (at its trigger, or at its evaluation)",
             w_finished_sources_force_global,
             lambda d, s: (_regional(d, s) and d.global_checkpoint_at_end_of_input and s.bounded and s.max_declines > 0
                           and d.end_of_input_rule in ("finished-sets-force", "finished-forces-at-trigger")
                           and d.forced_checkpoint_waits)),
    Property("a-regional-union-state-abort", SOMETIMES,
             "FLIP-600 with FLIP-147: a declined checkpoint within the failure ratio aborts because a vertex with union"
             " list state would be partly finished in its regional content",
             w_regional_union_state_abort,
             lambda d, s: (_regional(d, s) and s.bounded and s.max_declines > 0 and d.checkpoints_after_tasks_finish
                           and any(StateKind.UNION in v.state and v.parallelism > 1 for v in s.job.vertices))),
    Property("a-late-ack-while-coordinators-fall-back", SOMETIMES,
             "PR #28963: an acknowledgement the timeout marked declined arrives while the regional completion waits"
             " for the coordinators' fallback",
             w_late_ack_while_coordinators_fall_back,
             lambda d, s: (_regional(d, s) and d.regional_completion != "atomic" and d.timeouts_complete_regionally
                           and s.max_timeouts > 0 and any(v.coordinator for v in s.job.vertices))),
    Property("a-gateway-stays-closed-after-a-fallback", SOMETIMES,
             "PR #28963: a regional checkpoint completes while a failed-region reader's event gateway stays closed for"
             " it (the coordinator is told of the fallback only)",
             w_gateway_left_closed,
             lambda d, s: (_regional(d, s) and d.regional_gateway_on_fallback == "left-closed" and s.staggered_triggers
                           and any(v.coordinator for v in s.job.vertices))),
    Property("a-split-returns-to-the-live-enumerator", SOMETIMES,
             "PR #28963: a regional completion returns a split a failed reader still holds to the live enumerator",
             w_split_returns_live, _pr_add_back),
    Property("a-barrier-overtakes-a-record", SOMETIMES, "an unaligned barrier overtakes a record", w_barrier_overtakes, _unaligned),
    Property("input-channel-state-recorded", SOMETIMES, "a subtask acknowledges with input channel state", w_input_state, _unaligned),
    Property("output-channel-state-recorded", SOMETIMES, "a subtask acknowledges with output channel state", w_output_state, _unaligned),
    Property("a-record-spans-the-checkpoint", SOMETIMES,
             "a checkpoint holds a record in two parts: its head in the consumer's input channel state, its tail in"
             " the producer's output channel state", w_record_spans, lambda d, s: _unaligned(d, s) and s.spanning_records),
    Property("a-split-record-is-restored", SOMETIMES,
             "a restore puts a record held in two parts back together on one virtual channel", w_split_record_restored,
             lambda d, s: _unaligned(d, s) and s.spanning_records),
    Property("switch-to-unaligned", SOMETIMES, "a checkpoint that started aligned continues unaligned", w_switch_to_unaligned, _timeoutable),
    Property("a-timer-fires-on-an-announcement", SOMETIMES,
             "an alignment timer started by a barrier's announcement fires before any barrier is read, and the barrier jumps a record",
             w_timer_fires_on_announcement, _announcing),
    Property("channel-state-restored", SOMETIMES, "failed subtasks are restored with channel state", w_channel_state_restored,
             lambda d, s: _unaligned(d, s) and not _null_state(d, s)),  # a null-state replay re-sends it instead
    Property("output-state-recovered-downstream", SOMETIMES,
             "a restore gives a producer's output channel state to its consumer's recovered input"
             " (recover_output_on_downstream)", w_output_state_recovered_downstream,
             lambda d, s: d.recover_output_on_downstream and _unaligned(d, s) and (s.max_failures > 0 or s.max_rescales > 0)
             and not _null_state(d, s)),
    Property("a-checkpoint-completes-during-recovery", SOMETIMES,
             "a checkpoint completes while a restored subtask still has recovered channel state to read"
             " (checkpointing_during_recovery)", w_checkpoint_completes_during_recovery,
             lambda d, s: _during_recovery(d, s) and (s.max_failures > 0 or s.max_rescales > 0)),
    Property("a-recovered-record-lands-in-a-new-checkpoint", SOMETIMES,
             "a checkpoint holds, as input channel state, a recovered record its subtask had not read when the checkpoint"
             " started there (checkpointing_during_recovery)", w_recovered_record_in_new_checkpoint,
             lambda d, s: _during_recovery(d, s) and (s.max_failures > 0 or s.max_rescales > 0)),
    Property("a-restore-reads-a-checkpoint-taken-during-recovery", SOMETIMES,
             "a restore from a checkpoint that holds recovered records not read when it started recovers them again"
             " (checkpointing_during_recovery)", w_restore_from_checkpoint_during_recovery,
             lambda d, s: _during_recovery(d, s) and s.max_failures + s.max_rescales >= 2),
    Property("no-checkpoint-while-a-subtask-filters", SOMETIMES,
             "a checkpoint waits (Flink's scheduling, suspend_on_failure) or is declined (TASK_NOT_READY) while a subtask"
             " restored at a new parallelism filters its recovered state (checkpointing_during_recovery, scopes with"
             " rescaled_tasks_decline)", w_refused_while_filtering,
             lambda d, s: _during_recovery(d, s) and _rescales(d, s) and s.rescaled_tasks_decline),
    Property("an-aligned-restart-restores-channel-state", SOMETIMES,
             "the user restarts the job with unaligned checkpoints off and it restores the checkpoint's channel state"
             " (scopes with restart_aligned)", w_restart_aligned, lambda d, s: s.restart_aligned),
    Property("a-source-is-backpressured", SOMETIMES, "a full channel stops a source", w_backpressure, _capacity),
    Property("a-cancel-marker-aborts", SOMETIMES, "a cancellation marker aborts the alignment of the checkpoint its consumer collects",
             w_cancel_marker_aborts, _markers_possible),
    Property("an-aligned-node-sends-unaligned-barriers", SOMETIMES,
             "a node that had to align (POINTWISE input) sends unaligned barriers downstream and records output channel state",
             w_aligned_node_sends_unaligned, _forced_aligned_node),
    Property("a-finish-waits-for-consumers", SOMETIMES,
             "a task whose final checkpoint completed waits until its consumers processed its data",
             w_finish_waits_for_consumers, lambda d, s: _unaligned(d, s) and s.bounded),
    Property("a-gate-waits-for-resent-output", SOMETIMES,
             "after a restore a gate holds a new record back until every channel delivered its re-sent output state",
             w_gate_waits_for_resent_output,
             lambda d, s: _unaligned(d, s) and (s.max_failures > 0 or s.max_rescales > 0) and _two_input_subtask(s)
             and not _null_state(d, s)  # a null-state replay restores no channel state
             and not d.recover_output_on_downstream),  # no producer re-sends: the consumer recovers it
    Property("a-barrier-passes-the-end-of-resent-state", SOMETIMES,
             "after a restore a gate takes an unaligned barrier on a channel whose re-sent output state is read while"
             " another channel still re-sends",
             w_barrier_passes_end_of_resent_state,
             lambda d, s: _unaligned(d, s) and (s.max_failures > 0 or s.max_rescales > 0) and _two_input_subtask(s)
             and not _null_state(d, s) and not d.recover_output_on_downstream),
    Property("a-rescaled-task-declines-while-recovering", SOMETIMES,
             "a subtask restored at a new parallelism declines a checkpoint whose barrier arrives before its recovery"
             " ended (scopes with rescaled_tasks_decline)",
             w_rescaled_task_declines,
             lambda d, s: _unaligned(d, s) and _rescales(d, s) and s.rescaled_tasks_decline and not _during_recovery(d, s)),
    Property("the-job-is-rescaled", SOMETIMES, "the job restarts from a checkpoint at a new parallelism", w_rescaled, _rescales),
    Property("a-regional-checkpoint-is-rescaled", SOMETIMES, "a regional checkpoint is restored at a new parallelism",
             w_rescale_regional, lambda d, s: _regional(d, s) and _rescales(d, s)),
    Property("a-rescale-restores-channel-state", SOMETIMES, "a restore at a new parallelism puts channel state back",
             w_rescale_channel_state, lambda d, s: _unaligned(d, s) and _rescales(d, s)),
    Property("a-replica-is-filtered", SOMETIMES,
             "a restore at a new parallelism drops a replicated channel-state record the new partitioner sends elsewhere",
             w_replica_filtered, lambda d, s: _unaligned(d, s) and _rescales(d, s) and _filterable_keyed_edge(s)),
    *(Property(f"pointwise-restore-{short[was]}-to-{short[now]}", SOMETIMES,
               f"the pointwise-UC thread: a rescaled restore puts back channel state of an edge that was {was} and is {now}",
               _w_pattern_change(was, now),
               lambda d, s, pair=(was, now): d.unaligned_pointwise and _unaligned(d, s) and pair in _pattern_changes(s))
      for short in ({"POINTWISE": "pw", "ALL_TO_ALL": "a2a"},)
      for was in ("POINTWISE", "ALL_TO_ALL") for now in ("POINTWISE", "ALL_TO_ALL")),
    Property("a-blocking-result-is-read", SOMETIMES,
             "the consumer of a BLOCKING edge, deployed once every producer of it finished, reads the result",
             w_blocking_result_read, lambda d, s: any(e.exchange.value == "BLOCKING" for e in s.job.edges)),
    Property("a-trigger-and-a-notice-cross", SOMETIMES,
             "a trigger RPC reaches a task before a completion or abort notice sent to it earlier, or the other way"
             " round (scopes with rpcs_overtake)",
             w_rpc_overtakes, lambda d, s: s.rpcs_overtake),
    Property("a-trigger-reaches-a-finished-task", SOMETIMES,
             "a trigger RPC planned before the JobManager saw a task finish reaches the finished task, and the"
             " checkpoint aborts uncounted (scopes with late_finish_reports)",
             w_trigger_at_finished, lambda d, s: s.late_finish_reports),
    Property("a-failure-aborts-the-pending-checkpoint", SOMETIMES,
             "a task fails while a checkpoint is pending and the JobManager aborts it at once, uncounted"
             " (scopes with suspend_on_failure)",
             w_failure_suspends, lambda d, s: s.suspend_on_failure and s.max_failures > 0),
    Property("a-trigger-waits-for-an-initializing-task", SOMETIMES,
             "a checkpoint could be triggered but for a restored subtask still reading its recovered input channel"
             " state (scopes with suspend_on_failure)",
             w_trigger_waits_for_initializing,
             lambda d, s: s.suspend_on_failure and _unaligned(d, s) and (s.max_failures > 0 or s.max_rescales > 0)
             and not _null_state(d, s)),
)
