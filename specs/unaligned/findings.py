"""The findings manifest of the pointwise PR with FLIP-547's two options on (``ckptcheck findings
pointwise-downstream``): the pointwise preset's scopes, finding P1's, and the fix of the
violation the search finds."""

from __future__ import annotations

from ckptcheck.model.network_input import StreamTaskNetworkInput

from ..finding import FindingScope, Fix, RuleCheck
from .catalog import unchanged_edge_scope
from .designs import UNALIGNED_POINTWISE_DOWNSTREAM
from .scopes import (pointwise_fan_in_scope, pointwise_keyed_order_scope, pointwise_pattern_change_scope, pointwise_scope,
                     recovery_scope)


class RecoveredRecordsBeforeNewData(StreamTaskNetworkInput):
    """A fix: with checkpoints during recovery a subtask still reads every channel's recovered
    records before new data on any channel of its gate (as ``restoreStateAndGates`` orders them
    without the option), while it takes checkpoints and persists the recovered records not read
    yet."""

    def reads_new_data_while_recovering(self) -> bool:
        return False


GATE_WIDE_ORDER = Fix(
    "per-key-order",
    "with checkpoints during recovery a restored subtask reads new data on one channel while another still holds "
    "recovered records (StreamTask.restoreStateAndGates requests the partitions once filtering is done; "
    "StreamTaskNetworkInput.reads_new_data_while_recovering), and #28523 files an old producer's output buffer on the "
    "channel of the new consumer's first producer that inherited it (computePrimaryUpstreamMapping), not on the old "
    "producer's own channel, which carries that producer's new records of the same key",
    UNALIGNED_POINTWISE_DOWNSTREAM.with_(name="pointwise-downstream-recovered-first", network_input=RecoveredRecordsBeforeNewData),
    "a restored subtask reads every channel's recovered records before new data on any channel, and still takes "
    "checkpoints meanwhile",
)


POINTWISE_DOWNSTREAM_FINDINGS: tuple[FindingScope, ...] = (
    FindingScope("pointwise-default", pointwise_scope(),
                 "the pointwise preset's default: the map rescaled 1 -> 2 -> 1 with a side output turned pointwise, "
                 "restores across the four pattern changes, a failure and a decline"),
    FindingScope("pointwise-fan-in", pointwise_fan_in_scope(),
                 "two producers on a POINTWISE edge whose consumer goes 1 -> 2 -> 1: the primary-producer rule and the "
                 "recovery filter decide which new producer's channel gets an old producer's output buffer"),
    FindingScope("pointwise-keyed-order", pointwise_keyed_order_scope(),
                 "per-key order across a pointwise rescale (FLINK-21936's concern): the map rescaled 2 -> 1 behind "
                 "forward edges, the records of a split sharing one key", fixes=(GATE_WIDE_ORDER,)),
    FindingScope("pointwise-pattern-change", pointwise_pattern_change_scope(),
                 "an ALL_TO_ALL edge restored as POINTWISE: the restore must read the checkpoint's recorded pattern"),
    FindingScope("pointwise-recovery", recovery_scope(),
                 "Flink's scheduling (suspend_on_failure): nothing triggered while a restored subtask initializes"),
    FindingScope("unchanged-edge", unchanged_edge_scope(),
                 "finding P1's scope: an unchanged POINTWISE edge of a subtask whose other edge was rescaled; the "
                 "job manager's path skips the primary-producer check for an identity mapping"),
)



def _rule(rule: str, entry: str, scope_name: str, needed: bool, during_recovery: bool = True) -> RuleCheck:
    """The catalog's pointwise entry ``entry`` (#28523 without one of its rules) with recovery on the
    downstream, and checkpoints during recovery unless ``during_recovery`` is False, in the entry's
    scope."""
    from .catalog import POINTWISE_CATALOG

    e = next(x for x in POINTWISE_CATALOG if x.name == entry)
    # the entry's own name, so that its traces replay by name: a trace records the knobs set here
    without = e.design.with_(recover_output_on_downstream=True, checkpointing_during_recovery=during_recovery)
    return RuleCheck(rule, without, scope_name, e.scope, needed)


#: #28523's rules, each dropped with both options on (the catalog's pointwise variants, searched
#: in their own scopes): which still carry weight when the consumer recovers the output state.
#: P1's variant is the PR as it is (the finding), so there "moot" says the finding does not occur
POINTWISE_DOWNSTREAM_RULES: tuple[RuleCheck, ...] = (
    _rule("the primary-producer rule (computeNewLocalSubpartitionIndex: only a consumer's first producer writes an "
          "old producer's buffer)", "pointwise-no-primary-producer-rule", "pointwise-fan-in", True),
    _rule("the recovery filter (a new producer writes only to consumers it is connected to)",
          "pointwise-no-recovery-filter", "pointwise-fan-in", True),
    _rule("the pattern recorded by EdgeDistributionPatternHook (the restore reads the checkpoint's pattern, not the "
          "new job's)", "pointwise-pattern-not-recorded", "pointwise-pattern-change", True),
    _rule("the producer side's pointwise routing of an unchanged POINTWISE edge in a rescaled task, which drops a "
          "buffer of a producer that is not its consumer's first (finding P1 against the PR); with recovery on the "
          "downstream the job manager's path skips that check for an identity mapping",
          "P1-unchanged-pointwise-edge-in-a-rescaled-task", "unchanged-edge", False),
    _rule("the gate-wide hold behind re-sent output (UpstreamRecoveryTracker, FLINK-21936), checked with recovery on the "
          "downstream alone: with both options the design breaks per-key order in this scope without dropping anything "
          "(finding 1)", "pointwise-no-upstream-recovery-tracker", "pointwise-keyed-order", False, during_recovery=False),
)

FINDINGS = {"pointwise-downstream": (UNALIGNED_POINTWISE_DOWNSTREAM, POINTWISE_DOWNSTREAM_FINDINGS)}
RULES = {"pointwise-downstream": POINTWISE_DOWNSTREAM_RULES}
