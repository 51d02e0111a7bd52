"""FLINK-4120's scopes, aligned and unaligned."""

from __future__ import annotations

from ckptcheck.model.scope import Scope

from ..baseline.scopes import scope


def null_state_scope() -> Scope:
    """FLINK-4120's default (preset ``flink-null-state``): job ``null-state``, two sources keyed
    into a window that keeps the last record of each split (so the null-state watermark has a
    value per split) and a 2PC sink; one record per split, two checkpoints before end of input,
    one failure, one decline, instant acks.  Every null-state witness is hit: a restart from a
    null-state checkpoint older than the latest, a sink discarding a replayed record, a
    re-inserted barrier.  938,862 states, about 60-80 s with 2 workers."""
    return scope("null-state", records_per_split=1, max_checkpoints=2, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0, instant_acks=True)


def null_state_unaligned_default_scope() -> Scope:
    """FLINK-4120 with unaligned checkpoints (preset ``flink-null-state-unaligned``): job
    ``null-state-rebalance`` (an unaligned barrier overtakes records on their way to the window
    and the sink), two records, one checkpoint before end of input, one failure, one decline,
    one buffer per input channel (a record waiting there when the barrier arrives is input
    channel state).  Every witness is hit, a sink taking a record the barrier overtook among
    them.  248,244 states, about 21 s with 2 workers.  The two-source job ``null-state`` with
    one record per split, one checkpoint, one failure and one decline also holds (6,812,728
    states, 771 s beside another search, before a later relaxation) but never records input channel state without
    staggered triggers."""
    return scope("null-state-rebalance", records_per_split=2, max_checkpoints=1, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0, input_buffers=1)
