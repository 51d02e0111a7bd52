"""FLIP-600's measured searches and its catalog entries' counterexample lengths."""

from __future__ import annotations

from ckptcheck.model.scope import Scope

from .. import scopes as S
from ..figure import CLAIMS, ONCE, Figure


def _flip600_one_checkpoint() -> Scope:
    return S.regional_scope().with_(max_checkpoints=1)


FIGURES: tuple[Figure, ...] = (
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
)

CATALOG_STEPS: dict[str, int] = {
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
}
