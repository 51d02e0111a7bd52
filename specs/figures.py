"""Every state count the documentation states for a search, in one place.

A ``Figure`` is one exhaustive search: a preset, a scope, symmetry on or off, and what the
search gives (distinct states, transitions, depth, the verdict, the witnesses it leaves
unreached).  Three readers use this table, so a changed count fails a test instead of leaving a
page wrong:

- the claims tier (``pytest -m claims``, ``tests/test_figures.py``) runs every figure whose
  ``tier`` is ``"claims"`` and compares each stated field; the deep tier (``pytest -m deep``)
  runs the ``"once"`` figures, which do not fit CI's time (they were measured once, and the
  pages say so); a figure whose ``test`` names another test is searched there instead;
- ``ckptcheck check`` prints a figure's ``cost`` before a search of the same design and scope
  (``specs.scopes.known_figures``);
- ``checks/docgen.py`` writes the pages' tables of figures from it, and ``tests/test_docs.py``
  checks that every other figure on a page is one of these or is marked as measured once.

``cost`` is a time measured once on this project's 2-core machine (times are never asserted:
the machines are noisy; ``benchmarks/`` measures them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ckptcheck.model.scope import Scope

from . import scopes as S

CLAIMS, ONCE = "claims", "once"
GENERIC = "tests/test_figures.py::test_figure"  # the test that searches every figure no other test names


@dataclass(frozen=True)
class Figure:
    id: str
    design: str
    scope: Callable[[], Scope]
    symmetry: bool
    states: int | None
    transitions: int | None
    depth: int | None
    tier: str
    cost: str
    what: str
    violates: tuple[str, ...] = ()  # the properties the search finds violated (none: every property holds)
    unreached: tuple[str, ...] | None = ()  # applicable witnesses the search does not hit (none: every one is hit)
    workers: int = 2
    test: str = GENERIC

    def numbers(self) -> tuple[int, ...]:
        return tuple(n for n in (self.states, self.transitions) if n is not None)

    @property
    def seconds(self) -> float | None:
        """``cost`` in seconds: the upper end of a range, a minute as 60 s, under a second as 1 s; None
        where ``cost`` names no time."""
        if self.cost.startswith("under a second"):
            return 1.0
        m = re.search(r"([\d,.]+)(?:-([\d,.]+))? (s\b|seconds?|minutes?)", self.cost)
        if m is None:
            return None
        value = float((m.group(2) or m.group(1)).replace(",", ""))
        return value * 60 if m.group(3).startswith("minute") else value

    @property
    def verdict(self) -> str:
        return f"violates {', '.join(self.violates)}" if self.violates else "holds"


def _unchanged_edge_scope() -> Scope:
    from .catalog_unaligned import unchanged_edge_scope

    return unchanged_edge_scope()


def _flip600_one_checkpoint() -> Scope:
    return S.regional_scope().with_(max_checkpoints=1)


def _unaligned_two_records_rescaled() -> Scope:
    return S.scope("keyed-1x1", records_per_split=2, max_checkpoints=1, max_failures=0, max_declines=0, max_timeouts=0,
                   max_lost_notifications=0, input_buffers=1, rescale=(("sink", 2),), max_rescales=1)


def _unaligned_backpressure_rescale() -> Scope:
    return S.scope("keyed-1x1", records_per_split=3, max_checkpoints=1, max_failures=1, max_declines=1, max_timeouts=0,
                   max_lost_notifications=0, channel_capacity=1, input_buffers=1, rescale=(("sink", 2),), max_rescales=1)


FIGURES: tuple[Figure, ...] = (
    Figure("baseline-default", "flink-baseline", S.default_scope, False, 398_946, 2_190_771, 58, CLAIMS,
           "about 25 s with 2 workers", "`flink-baseline` default (keyed-2x2, 1 checkpoint before end, 1 failure, 1 decline)"),
    Figure("baseline-enumerator", "flink-baseline", S.enumerator_default_scope, False, 72_504, 269_194, 44, CLAIMS,
           "about 4 s with 2 workers", "`flink-baseline` second default scope (enumerator-and-side: a FLIP-27 source with a "
           "split enumerator, 1 checkpoint before end, 1 failure, 1 decline, staggered trigger RPCs)"),
    Figure("baseline-jobmanager-view", "flink-baseline", S.jobmanager_view_scope, False, 65_058, 285_957, 47, CLAIMS,
           "about 4 s with 2 workers", "`flink-baseline` third default scope (keyed-2x1, no records, 2 checkpoints before end, "
           "1 failure; trigger RPCs one task at a time that may overtake notices, late finish reports, the scheduler "
           "suspended at a failure)", unreached=("a-task-declines", "a-sink-commits")),
    Figure("incremental-jobmanager-view", "flink-incremental", S.jobmanager_view_scope, False, 104_037, 434_653, 49, CLAIMS,
           "about 3 s with 2 workers", "`flink-incremental` third default scope (the baseline's third)",
           unreached=("a-task-declines", "a-sink-commits")),
    Figure("flip147-jobmanager-view", "flip147", S.jobmanager_view_scope, False, 236_644, 1_404_377, 47, CLAIMS,
           "about 20 s with 2 workers", "`flip147` third default scope (the baseline's third, with two concurrent "
           "checkpoints)", unreached=("a-task-declines", "a-sink-commits")),
    Figure("incremental-default", "flink-incremental", S.default_scope, False, 646_313, 3_377_426, 66, CLAIMS,
           "about 30 s with 2 workers", "`flink-incremental` default (the baseline's first default scope, keyed-2x2, with "
           "incremental checkpoints)", unreached=("a-snapshot-prunes-files-sent-again",)),
    Figure("incremental-enumerator", "flink-incremental", S.enumerator_default_scope, False, 95_850, 346_679, 49, CLAIMS,
           "about 3 s with 2 workers", "`flink-incremental` second default scope (enumerator-and-side, the baseline's second)"),
    Figure("baseline-flip147", "flink-baseline", S.flip147_default_scope, False, 1_337_457, 7_695_409, 79, CLAIMS,
           "about 82 s with 2 workers", "FLIP-147 default (`flink-baseline --job sink-v2-keyed-2x1`: Sink V2 writer, committer and "
           "global committer; 1 checkpoint before end, 1 failure, 1 decline)"),
    Figure("null-state-default", "flink-null-state", S.null_state_scope, False, 938_862, 3_702_353, 68, CLAIMS,
           "about 60-80 s with 2 workers", "`flink-null-state` default (job null-state, 2 checkpoints before end, 1 failure, "
           "1 decline, instant acks)"),
    Figure("null-state-unaligned-default", "flink-null-state-unaligned", S.null_state_unaligned_default_scope, False, 248_244,
           918_225, 76, CLAIMS, "about 21 s with 2 workers", "`flink-null-state-unaligned` default (job null-state-rebalance, "
           "2 records, 1 checkpoint before end, 1 failure, 1 decline, 1 buffer per input channel)"),
    Figure("flip600-regional-default", "flip600-regional", S.regional_default_scope, True, 902_129, 3_723_489, 44, CLAIMS,
           "about 1 minute with 2 workers", "`flip600-regional` default (forward-2x2, 2 checkpoints before end, 1 failure, "
           "1 decline, instant acks; symmetry classes)"),
    Figure("flip600-proposed-default", "flip600-proposed", S.regional_default_scope, True, 950_481, 3_869_942, 44, CLAIMS,
           "about 1 minute with 2 workers", "`flip600-proposed` (the thread's design) in the FLIP-600 default scope (F1)",
           violates=("bounded-job-completes", "finished-sinks-committed")),
    Figure("flip600-file-merging-default", "flip600-regional-file-merging", S.regional_default_scope, False, 2_884_259,
           10_436_170, 46, ONCE, "about 3.5 minutes with 2 workers", "`flip600-regional-file-merging` default (the FLIP-600 default scope; task-manager file "
           "merging leaves symmetry off)"),
    Figure("flip600-no-claim-default", "flip600-regional-no-claim", S.regional_default_scope, True, 2_581_651, 11_907_172, 45,
           ONCE, "about 5 minutes with 2 workers", "`flip600-regional-no-claim` default (the FLIP-600 default scope, restored from a NO_CLAIM "
           "snapshot; symmetry classes)"),
    Figure("flip600-one-checkpoint", "flip600-regional", _flip600_one_checkpoint, True, 214_636, 1_131_265, 46, CLAIMS,
           "about 15 s with 2 workers", "`flip600-regional` with one checkpoint before end, full model (`benchmarks/engine.py "
           "flip600-small --symmetry`; symmetry classes)",
           unreached=("a-regional-checkpoint-completes", "forced-global-completes", "restore-from-regional")),
    Figure("flip600-regional-full", "flip600-regional", S.regional_scope, True, 6_218_556, 34_654_752, 54, ONCE,
           "about 7.5 minutes with 2 workers", "`flip600-regional` default scope, full model (`--no-instant-acks`; symmetry classes)"),
    Figure("flip600-regional-rescale", "flip600-regional", S.regional_rescale_scope, False, 197_826, 891_779, 44, CLAIMS,
           "about 15 s with 2 workers", "`flip600-regional` in `regional_rescale_scope()` (pipeline-and-side, the sink rescaled "
           "1 -> 2, 2 checkpoints, 1 decline)", unreached=("a-task-fails", "restore-from-regional")),
    Figure("flip600-pr-default", "flip600-pr", S.four_region_scope, True, 828_072, 5_042_990, 38, CLAIMS,
           "about 3.5 minutes with 2 workers", "`flip600-pr` default (sources-4, unbounded, 4 checkpoints, 3 declines, 1 timeout, "
           "1 failure; symmetry classes)"),
    Figure("flip600-pr-end", "flip600-pr", S.end_of_input_scope, False, 68_808, 277_896, 36, CLAIMS,
           "about 6 s with 2 workers", "`flip600-pr` second default scope (pipeline-and-side, bounded, 2 checkpoints, "
           "1 decline)", unreached=("a-task-fails", "a-regional-checkpoint-completes", "restore-from-regional",
                                      "forced-global-completes")),
    Figure("flip600-pr-union", "flip600-pr", S.regional_union_scope, True, 25_767, 132_174, 33, CLAIMS,
           "about 6 s with 2 workers", "`flip600-pr` third default scope (union-sources-4, bounded, no records, 2 checkpoints, "
           "1 decline; symmetry classes)", unreached=("a-task-fails", "a-checkpoint-with-a-partly-finished-vertex",
                                                     "restore-from-regional", "forced-global-completes",
                                                     "finished-sources-force-global")),
    Figure("flip600-pr-coordinators", "flip600-pr", S.regional_coordinator_scope, False, 46_369, 185_258, 24, CLAIMS,
           "about 3 s with 2 workers", "`flip600-pr` fourth default scope (enumerator-2-and-sides, no records, 2 checkpoints, "
           "1 timeout)", violates=("split-ownership-consistent", "split-read-once"),
           unreached=("a-task-declines", "a-task-fails", "restore-from-regional", "forced-global-completes")),
    Figure("flip600-incremental-default", "flip600-regional-incremental", S.regional_scope, True, 16_629_581,
           87_156_641, 59, ONCE, "about 20 minutes with 2 workers", "`flip600-regional-incremental` default (the FLIP-600 "
           "default scope with incremental checkpoints, without instant acknowledgements, which registration at each "
           "acknowledgement does not allow; symmetry classes; 154 s on the memo engine in one process)"),
    Figure("flip600-incremental-union", "flip600-regional-incremental", S.regional_union_scope, True, 19_958, 107_079, 31,
           CLAIMS, "about 5 s with 2 workers", "`flip600-regional-incremental` second default scope (union-sources-4: no "
           "stateful subtask, so no shared file; symmetry classes)",
           unreached=("a-task-fails", "a-checkpoint-with-a-partly-finished-vertex", "a-placeholder-refers-to-an-earlier-file",
                      "a-shared-file-outlives-its-checkpoint", "a-snapshot-prunes-files-sent-again", "restore-from-regional")),
    Figure("flip600-regional-union", "flip600-regional", S.regional_union_scope, True, 19_958, 107_079, 31, CLAIMS,
           "about 5 s with 2 workers", "`flip600-regional` second default scope (union-sources-4, the same; symmetry classes)",
           unreached=("a-task-fails", "a-checkpoint-with-a-partly-finished-vertex", "restore-from-regional")),
    Figure("flip600-regional-enumerator", "flip600-regional", S.regional_enumerator_scope, False, 13_572, 54_439, 20, CLAIMS,
           "about 2 s with 1 worker", "`flip600-regional` third default scope (enumerator-and-side: a split enumerator in a "
           "region that falls back, 2 checkpoints, 1 decline)",
           unreached=("a-task-fails", "restore-from-checkpoint", "restore-from-regional", "forced-global-completes")),
    Figure("flip600-regional-chain", "flip600-regional", S.regional_chain_scope, True, 12_798, 40_215, 25, CLAIMS,
           "about 1 s with 1 worker", "`flip600-regional` fourth default scope (sources-2, 5 checkpoints, 4 declines, a "
           "JobManager failover: chains of refCheckpointId hops; symmetry classes)", unreached=("a-task-fails",)),
    Figure("flip600-proposed-chain", "flip600-proposed", S.regional_chain_scope, True, 12_825, 39_130, 25, CLAIMS,
           "about 1 s with 1 worker", "`flip600-proposed` (the thread's design) in the chain scope (F3: tier 2 resets the "
           "chain bound; F4: so does a JobManager failover)", violates=("ref-chain-bounded",), unreached=("a-task-fails",)),
    Figure("unaligned-default", "flink-unaligned", S.unaligned_scope, False, 1_618_811, 5_490_812, 78, CLAIMS,
           "about 110 s with 2 workers, estimated (105 s measured at 1,568,773 states, scaled; the memo engine: 9 s)", "`flink-unaligned` default (keyed-2x1, 1 checkpoint before end, 1 failure, 1 decline, "
           "staggered trigger RPCs)"),
    Figure("unaligned-timeout-default", "flink-unaligned-timeout", S.unaligned_scope, False, 2_786_608, 10_135_485, 83,
           CLAIMS, "about 190 s with 2 workers, estimated (113 s measured at 1,642,715 states, scaled; the memo engine: 16 s)", "`flink-unaligned-timeout` default (the same scope)"),
    Figure("unaligned-rescale", "flink-unaligned", S.unaligned_rescale_scope, False, 4_608_400, 17_185_536, 90, ONCE,
           "about 7 minutes with 2 workers", "`flink-unaligned` second default scope (keyed-1x1, 2 records, the sink rescaled "
           "1 -> 2, 1 checkpoint, 1 failure, 1 decline)", unreached=("input-channel-state-recorded",),
           test="tests/test_deep.py::test_unaligned_presets_hold_in_their_default_scopes_and_hit_every_witness_in_one"),
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
           test="tests/test_pointwise.py::test_the_proposal_holds_in_its_default_scope_across_the_four_pattern_changes_and_flink_2_3_cannot_restore"),
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
           test="tests/test_pointwise.py::test_claim_flink_21936_keyed_order_holds_in_its_scope_and_breaks_without_the_gate_wide_recovery"),
    Figure("pointwise-unchanged-edge", "flink-unaligned-pointwise", _unchanged_edge_scope, False, 47_780, 195_516, 21, CLAIMS,
           "about 11 s with 2 workers", "`flink-unaligned-pointwise` in `unchanged_edge_scope()` (finding P1: "
           "pointwise-fan-in-and-side, the side rescaled 1 -> 2, 2 records per split, 1 checkpoint, no fault)",
           violates=("rescaled-channel-state-exact",),
           unreached=("two-checkpoints-complete", "a-task-declines", "a-task-fails", "restore-from-checkpoint",
                      "input-channel-state-recorded", "channel-state-restored", "pointwise-restore-pw-to-pw",
                      "a-barrier-passes-the-end-of-resent-state")),
    Figure("flip147-default", "flip147", S.flip147_concurrent_scope, False, 8_494_887, 41_474_219, 75, ONCE,
           "about 9.5 minutes with 2 workers", "`flip147` default (sink-v2-keyed-2x1 with 2 concurrent checkpoints, 2 checkpoints "
           "before end, 1 failure, 1 decline, instant acks)",
           test="tests/test_instant_acks.py::test_flip147_default_holds_with_every_witness_the_concurrency_ones_included"),
    Figure("flip147-union", "flip147", S.flip147_union_scope, True, 2_703_977, 15_126_523, 56, ONCE,
           "about 9 minutes with 1 worker", "`flip147` second default scope (union-sink-v2-2x2, 2 checkpoints before end, no "
           "fault, instant acks; symmetry classes)", workers=1, unreached=None,
           test="tests/test_instant_acks.py::test_flip147_second_default_scope_reaches_the_union_abort_with_partial_finishing_and_concurrency"),
)
"""``unreached=None``: the scope is not meant to reach every witness, so only the verdicts and
the counts are compared."""


def figure(id: str) -> Figure:
    for f in FIGURES:
        if f.id == id:
            return f
    raise KeyError(f"no figure {id!r}; known: {', '.join(f.id for f in FIGURES)}")


# The memo engine's time over the reference engine's (2 workers) where both searched a scope in one
# run (docs/pages/engines.md, measured once): FLIP-600's full default scope 46.7 s / 390.1 s, the
# baseline's default 2.9 s / 17.7 s, the pointwise preset's default 22.0 s / 27.3 s.  The figures'
# costs above are the reference engine's; the expect line gives this range beside them.
MEMO_TIME_RATIO = (0.12, 0.81)


def measured(design_name: str, scope: Scope, symmetry: bool) -> Figure | None:
    """The figure of a search of ``design_name`` in ``scope`` with or without symmetry, if one
    was measured."""
    for f in FIGURES:
        if f.design == design_name and f.symmetry == symmetry and f.scope() == scope:
            return f
    return None


CATALOG_STEPS: dict[str, int] = {
    "commit-at-pre-commit": 17,
    "source-position-not-restored": 17,
    "cleaner-deletes-restore-checkpoint": 14,
    "no-alignment-block": 11,
    "no-checkpoints-after-finish": 14,
    "no-operator-event-gateway": 8,
    "scheduler-waits-for-finished-tasks": 14,
    "FLINK-40482-failed-task-planned-as-finished": 18,
    "incremental-prune-misses-a-running-upload": 12,
    "incremental-base-not-pruned": 12,
    "K1-regional-final-checkpoint": 26,
    "K2-regions-joined-by-keyby": 20,
    "K3-no-coordinator-fallback": 11,
    "K4-retention-ignores-refs": 14,
    "K5-no-consecutive-limit": 12,
    "K6-file-merging-drops-fallback-segments": 22,
    "K7-no-claim-snapshot-deleted-too-early": 8,
    "K8-regional-skips-union-check": 12,
    "K9-late-ack-overwrites-fallback": 12,
    "K10-backend-confirms-regional-id": 19,
    "F1-fallback-notice-finishes-task": 19,
    "F2-commit-past-own-state": 18,
    "F3-tier2-resets-the-chain-bound": 15,
    "F4-new-coordinator-resets-the-chain-bound": 13,
    "F5-limit-checked-at-trigger": 12,
    "F6-local-copy-beside-the-fallback": 18,
    "uc-input-side-only": 10,
    "uc-ack-at-first-barrier": 9,
    "uc-no-record-filter": 18,
    "FLINK-40016-buffers-persisted-twice": 19,
    "uc-announced-barrier-skips-queued-buffers": 5,
    "uc-new-data-before-channel-state": 9,
    "FLINK-31963-stateless-vertex-not-reassigned": 22,
    "FLINK-35351-custom-partitioner-input-state": 16,
    "FLINK-40269-same-upstream-gates": 16,
    "pointwise-no-primary-producer-rule": 25,
    "pointwise-no-recovery-filter": 25,
    "pointwise-pattern-not-recorded": 14,
    "P1-unchanged-pointwise-edge-in-a-rescaled-task": 11,
    "pointwise-no-upstream-recovery-tracker": 15,
    "legacy-source-rereads-finished-split": 35,
    "union-state-finishes-partly": 22,
    "FLINK-38614-end-of-data-before-committables": 16,
    "blocking-output-waits-for-final-checkpoint": 6,
    "blocking-side-finishes-before-its-result-is-read": 9,
    "null-state-sinks-keep-replayed-records": 29,
    "null-state-barrier-at-restart-position": 12,
    "null-state-watermark-at-acknowledgement": 14,
    "null-state-checkpoint-not-retained": 21,
    "null-state-checkpoint-during-replay": 17,
    "null-state-unaligned-watermark-ignores-in-flight": 10,
    "null-state-unaligned-sinks-discard-overtaken-records": 28,
}
"""Each catalog entry's shortest counterexample, in steps: what ``ckptcheck catalog`` reports
and the catalog page's table shows; ``tests/test_catalog.py`` finds each again (the default run,
and the claims tier for the entries it leaves out) and checks it is no longer."""

