"""The unaligned presets' measured searches (pointwise included) and their catalog entries' counterexample lengths."""

from __future__ import annotations

from ckptcheck.model.scope import Scope

from .. import scopes as S
from ..figure import CLAIMS, ONCE, Figure


def _unchanged_edge_scope() -> Scope:
    from .catalog import unchanged_edge_scope

    return unchanged_edge_scope()


def _unaligned_two_records_rescaled() -> Scope:
    return S.scope("keyed-1x1", records_per_split=2, max_checkpoints=1, max_failures=0, max_declines=0, max_timeouts=0,
                   max_lost_notifications=0, input_buffers=1, rescale=(("sink", 2),), max_rescales=1)


def _unaligned_backpressure_rescale() -> Scope:
    return S.scope("keyed-1x1", records_per_split=3, max_checkpoints=1, max_failures=1, max_declines=1, max_timeouts=0,
                   max_lost_notifications=0, channel_capacity=1, input_buffers=1, rescale=(("sink", 2),), max_rescales=1)


FIGURES: tuple[Figure, ...] = (
    Figure("unaligned-default", "flink-unaligned", S.unaligned_scope, False, 1_618_811, 5_490_812, 78, CLAIMS,
           "about 110 s with 2 workers, estimated (105 s measured at 1,568,773 states, scaled; the memo engine: 9 s)", "`flink-unaligned` default (keyed-2x1, 1 checkpoint before end, 1 failure, 1 decline, "
           "staggered trigger RPCs)"),
    Figure("unaligned-timeout-default", "flink-unaligned-timeout", S.unaligned_scope, False, 2_786_608, 10_135_485, 83,
           CLAIMS, "about 190 s with 2 workers, estimated (113 s measured at 1,642,715 states, scaled; the memo engine: 16 s)", "`flink-unaligned-timeout` default (the same scope)"),
    Figure("unaligned-rescale", "flink-unaligned", S.unaligned_rescale_scope, False, 4_608_400, 17_185_536, 90, ONCE,
           "about 7 minutes with 2 workers", "`flink-unaligned` second default scope (keyed-1x1, 2 records, the sink rescaled "
           "1 -> 2, 1 checkpoint, 1 failure, 1 decline)", unreached=("input-channel-state-recorded",),
           test="tests/checks/engine/test_deep.py::test_unaligned_presets_hold_in_their_default_scopes_and_hit_every_witness_in_one"),
    Figure("unaligned-timeout-rescale", "flink-unaligned-timeout", S.unaligned_rescale_scope, False, 18_172_772, 71_653_459, 99,
           CLAIMS, "about 16 minutes with 2 workers, estimated (the memo engine: 77 s, about 0.08 of the reference engine's time"
           " in the unaligned default scope)", "`flink-unaligned-timeout` second default scope (the same)",
           unreached=("input-channel-state-recorded",)),
    Figure("unaligned-spanning", "flink-unaligned", S.spanning_records_scope, False, 13_429, 88_830, 24, CLAIMS,
           "about 3 s with 1 worker", "`flink-unaligned` third default scope (custom-map, the map restored 2 -> 1, records that "
           "straddle two buffers, 1 checkpoint, 1 failure, 1 decline)",
           unreached=("two-checkpoints-complete", "a-gate-waits-for-resent-output", "a-barrier-passes-the-end-of-resent-state")),
    Figure("unaligned-timeout-spanning", "flink-unaligned-timeout", S.spanning_records_scope, False, 74_104, 505_700, 26, CLAIMS,
           "about 15 s with 1 worker, estimated (6 s measured at 28,926 states, scaled; the memo engine: 2 s)", "`flink-unaligned-timeout` third default scope (the same)",
           unreached=("two-checkpoints-complete", "a-gate-waits-for-resent-output", "a-barrier-passes-the-end-of-resent-state")),
    Figure("unaligned-recovery", "flink-unaligned", S.recovery_scope, False, 3_773, 9_131, 32, CLAIMS,
           "under a second", "`flink-unaligned` fourth default scope (keyed-1x1, one buffer in the sink's input channel, "
           "1 record, 1 checkpoint, 1 failure; the scheduler suspended at a failure and while a restored subtask initializes)",
           unreached=("a-task-declines", "output-channel-state-recorded")),
    Figure("pointwise-recovery", "flink-unaligned-pointwise", S.recovery_scope, False, 3_773, 9_131, 32, CLAIMS,
           "under a second", "`flink-unaligned-pointwise` fifth default scope (the unaligned presets' recovery scope)",
           unreached=("a-task-declines", "output-channel-state-recorded")),
    Figure("unaligned-timeout-recovery", "flink-unaligned-timeout", S.recovery_scope, False, 5_934, 15_231, 32, CLAIMS,
           "about 1 s", "`flink-unaligned-timeout` fifth default scope (the same)",
           unreached=("a-task-declines", "a-barrier-overtakes-a-record", "output-channel-state-recorded", "switch-to-unaligned")),
    Figure("during-recovery-default", "flink-unaligned-during-recovery", S.unaligned_scope, False, 1_700_891, 5_829_007, 78,
           CLAIMS, "about 12 s (the memo engine, one process)", "`flink-unaligned-during-recovery` default (keyed-2x1, 1 "
           "checkpoint before end, 1 failure, 1 decline, staggered trigger RPCs)"),
    Figure("during-recovery-rescale", "flink-unaligned-during-recovery", S.unaligned_rescale_scope, False, 4_664_937,
           17_404_158, 90, CLAIMS, "about 24 s (the memo engine, one process)", "`flink-unaligned-during-recovery` second "
           "default scope (keyed-1x1, 2 records, the sink rescaled 1 -> 2, 1 checkpoint, 1 failure, 1 decline)"),
    Figure("during-recovery-spanning", "flink-unaligned-during-recovery", S.spanning_records_scope, False, 13_429, 88_830, 24,
           CLAIMS, "under a second", "`flink-unaligned-during-recovery` third default scope (custom-map, spanning records)",
           unreached=("two-checkpoints-complete", "a-checkpoint-completes-during-recovery",
                      "a-recovered-record-lands-in-a-new-checkpoint", "a-restore-reads-a-checkpoint-taken-during-recovery")),
    Figure("during-recovery-recovery", "flink-unaligned-during-recovery", S.recovery_scope, False, 4_023, 9_665, 32, CLAIMS,
           "under a second", "`flink-unaligned-during-recovery` fourth default scope (the unaligned presets' recovery scope)",
           unreached=("a-task-declines", "output-channel-state-recorded", "output-state-recovered-downstream",
                      "a-trigger-waits-for-an-initializing-task")),
    Figure("during-recovery-rescaled-recovery", "flink-unaligned-during-recovery", S.rescaled_recovery_scope, False, 193_832,
           700_906, 53, CLAIMS, "about 1 s (the memo engine, one process)", "`flink-unaligned-during-recovery` fifth default "
           "scope (keyed-1x1, the sink rescaled 1 -> 2, 2 checkpoints, no fault; a rescaled subtask filters, INITIALIZING, "
           "before it reads its recovered state while running)",
           unreached=("a-task-declines", "a-task-fails", "restore-from-checkpoint", "channel-state-restored")),
    Figure("during-recovery-restart-aligned", "flink-unaligned-during-recovery", S.restart_aligned_scope, False, 48_806,
           171_221, 44, CLAIMS, "about 4 s (the memo engine, one process)", "`flink-unaligned-during-recovery` sixth default "
           "scope (keyed-1x1, 2 records, 2 checkpoints, 1 failure; the user restarts the job once with unaligned checkpoints "
           "off, FLINK-40518's situation)",
           unreached=("a-task-declines",)),
    Figure("unaligned-rescaled-recovery", "flink-unaligned", S.rescaled_recovery_scope, False, 350_179, 1_343_445, 53, CLAIMS,
           "about 32 s with 2 workers, estimated (30 s measured at 328,789 states, scaled; the memo engine: 1.4 s)", "`flink-unaligned` fifth default scope (keyed-1x1, the sink rescaled 1 -> 2, 1 record, "
           "2 checkpoints, no fault; rescaled subtasks decline until their recovery ends)",
           unreached=("a-task-declines", "a-task-fails", "restore-from-checkpoint", "input-channel-state-recorded",
                      "channel-state-restored", "a-trigger-waits-for-an-initializing-task")),
    Figure("unaligned-timeout-rescaled-recovery", "flink-unaligned-timeout", S.rescaled_recovery_scope, False, 1_300_289,
           5_089_869, 57, CLAIMS, "about 190 s with 2 workers, estimated (3 s measured at 20,520 states, scaled; the memo engine: 5 s)", "`flink-unaligned-timeout` sixth default scope (the same)",
           unreached=("a-task-declines", "a-task-fails", "restore-from-checkpoint", "input-channel-state-recorded",
                      "channel-state-restored", "a-trigger-waits-for-an-initializing-task")),
    Figure("unaligned-timeout-announcement", "flink-unaligned-timeout", S.announcement_scope, False, 37_149, 100_649, 43, CLAIMS,
           "about 4 s with 1 worker", "`flink-unaligned-timeout` fourth default scope (keyed-1x1, one buffer in the remote "
           "input channel, 2 records, 1 checkpoint, 1 failure, 1 decline)", workers=1),
    Figure("unaligned-two-records-rescaled", "flink-unaligned", _unaligned_two_records_rescaled, False, 226_560, 782_607, 49, CLAIMS,
           "about 25 s with 2 workers", "`flink-unaligned --job keyed-1x1 --rescale sink=2 --records 2 --checkpoints 1 "
           "--input-buffers 1 --failures 0 --declines 0`",
           unreached=("a-task-declines", "a-task-fails", "channel-state-restored", "restore-from-checkpoint")),
    Figure("unaligned-backpressure-rescale", "flink-unaligned", _unaligned_backpressure_rescale, False, 12_681_357, 47_474_743, 92,
           ONCE, "2,131 s with 1 worker", "`flink-unaligned --job keyed-1x1 --records 3 --checkpoints 1 --failures 1 --declines 1 "
           "--channel-capacity 1 --input-buffers 1 --rescale sink=2` (a rescale, a failure, a decline and backpressure together)"),
    Figure("pointwise-default", "flink-unaligned-pointwise", S.pointwise_scope, False, 317_813, 1_780_766, 30, CLAIMS,
           "about 56 s with 2 workers", "`flink-unaligned-pointwise` default (pointwise-sides-map, the map rescaled 1 -> 2 -> 1 "
           "with a side output turned pointwise, 2 records, 2 checkpoints, 1 failure, 1 decline)",
           test="tests/specs/unaligned/test_pointwise.py::test_the_proposal_holds_in_its_default_scope_across_the_four_pattern_changes_and_flink_2_3_cannot_restore"),
    Figure("pointwise-fan-in", "flink-unaligned-pointwise", S.pointwise_fan_in_scope, False, 241_541, 1_207_993, 33, CLAIMS,
           "about 60 s with 2 workers", "`flink-unaligned-pointwise` second default scope (pointwise-2x1: two sources on a "
           "POINTWISE edge into one sink, the sink rescaled 1 -> 2 -> 1, 3 checkpoints, no fault)",
           unreached=("a-task-declines", "a-task-fails", "restore-from-checkpoint", "input-channel-state-recorded",
                      "channel-state-restored")),
    Figure("pointwise-pattern-change", "flink-unaligned-pointwise", S.pointwise_pattern_change_scope, False, 199_623, 981_564, 25,
           CLAIMS, "about 45 s with 2 workers", "`flink-unaligned-pointwise` fourth default scope (rebalance-2x3 restored "
           "at 2:2 with the edge turned POINTWISE, 2 records, 1 checkpoint, no fault)",
           unreached=("two-checkpoints-complete", "a-task-declines", "a-task-fails", "restore-from-checkpoint",
                      "input-channel-state-recorded", "channel-state-restored", "a-gate-waits-for-resent-output",
                      "a-barrier-passes-the-end-of-resent-state")),
    Figure("pointwise-keyed-order", "flink-unaligned-pointwise", S.pointwise_keyed_order_scope, False, 463_741, None, None, CLAIMS,
           "about 34 s with 2 workers", "`flink-unaligned-pointwise` third default scope, `pointwise_keyed_order_scope()` (three-stage-2x2x1, the map "
           "rescaled to 1, 2 records per split of one key, 1 checkpoint)", unreached=None,
           test="tests/specs/unaligned/test_pointwise.py::test_claim_flink_21936_keyed_order_holds_in_its_scope_and_breaks_without_the_gate_wide_recovery"),
    Figure("pointwise-unchanged-edge", "flink-unaligned-pointwise", _unchanged_edge_scope, False, 47_780, 195_516, 21, CLAIMS,
           "about 11 s with 2 workers", "`flink-unaligned-pointwise` in `unchanged_edge_scope()` (finding P1: "
           "pointwise-fan-in-and-side, the side rescaled 1 -> 2, 2 records per split, 1 checkpoint, no fault)",
           violates=("rescaled-channel-state-exact",),
           unreached=("two-checkpoints-complete", "a-task-declines", "a-task-fails", "restore-from-checkpoint",
                      "input-channel-state-recorded", "channel-state-restored", "pointwise-restore-pw-to-pw",
                      "a-barrier-passes-the-end-of-resent-state")),
)

CATALOG_STEPS: dict[str, int] = {
    "uc-input-side-only": 10,
    "uc-ack-at-first-barrier": 9,
    "uc-no-record-filter": 18,
    "FLINK-40016-buffers-persisted-twice": 19,
    "uc-announced-barrier-skips-queued-buffers": 5,
    "uc-new-data-before-channel-state": 9,
    "FLINK-31963-stateless-vertex-not-reassigned": 22,
    "FLINK-35351-custom-partitioner-input-state": 16,
    "FLINK-40269-same-upstream-gates": 16,
    "FLINK-40016-recovered-buffers-persisted-twice": 23,
    "FLINK-40518-aligned-checkpoint-waits-for-recovery": 7,
    "FLIP-547-no-op-before-the-sentinel": 10,
    "pointwise-no-primary-producer-rule": 25,
    "pointwise-no-recovery-filter": 25,
    "pointwise-pattern-not-recorded": 14,
    "P1-unchanged-pointwise-edge-in-a-rescaled-task": 11,
    "pointwise-no-upstream-recovery-tracker": 15,
}
