"""The unaligned presets' scopes: channel state, rescaling under backpressure, spanning records, and the
pointwise edges' fan-in, key order and pattern changes."""

from __future__ import annotations

from ckptcheck.model.scope import Scope

from ..baseline.scopes import scope


def unaligned_scope() -> Scope:
    """Unaligned checkpoints' default: two sources into one keyed sink (the smallest job where a
    subtask records one channel while waiting for the other's barrier), one record per split,
    one checkpoint before end of input plus the final ones, one failure and one decline."""
    return scope("keyed-2x1", records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0, staggered_triggers=True)


def pointwise_scope() -> Scope:
    """Unaligned checkpoints on pointwise edges (the pointwise-UC thread), with a restore across each of the
    four pattern changes at a new parallelism of the edge: job ``pointwise-sides-map``, one
    source feeding a stateless map over a forward edge (even offsets) and a rebalance edge (odd
    offsets), the map feeding a 2PC sink over a rebalance edge.  The rescaled job runs the map
    at 2 and turns the source's rebalance edge into a pointwise one; the job may be rescaled
    twice (there and back).  So restores cross POINTWISE -> POINTWISE (the forward edge),
    ALL_TO_ALL -> POINTWISE and back (the flipped edge) and ALL_TO_ALL -> ALL_TO_ALL (map ->
    sink), each with its ends at a new parallelism.  Two records, one per side output; local
    channels (``input_buffers`` 0), so a record in a channel at the source's snapshot is its
    output state, and one the map reads after its first barrier its input state, and after a
    restore the map's gate holds a new record back behind the other channel's re-sent output.
    Two checkpoints, one failure and one decline.  Unbounded sources: a bounded version showed a
    loss Flink does not have while the model restored a finished subtask of a partly finished
    vertex as finished; the restore is Flink's now, the bounded scope is not the default yet.
    317,813 states, about 56 s with 2 workers (measured once)."""
    return scope("pointwise-sides-map", records_per_split=2, bounded=False, max_checkpoints=2, max_failures=1,
                 max_declines=1, max_timeouts=0, max_lost_notifications=0, input_buffers=0,
                 rescale=(("map", 2),), max_rescales=2, repattern=("source->map/odd",))


def pointwise_fan_in_scope() -> Scope:
    """Two upstream subtasks on a POINTWISE edge (``pointwise-2x1``: source(2) -rescale()->
    sink(1)), the sink rescaled to 2 and back, so a restore crosses POINTWISE 2:1 -> 2:2 -> 2:1,
    where a new consumer's old channel state comes from two producers and the primary-producer
    rule and the recovery filter decide who restores what (catalog entries
    ``pointwise-no-primary-producer-rule``, ``pointwise-no-recovery-filter``); one record per
    split, unbounded, three checkpoints (the last commits what the second restore put back), no
    fault.  ``pointwise_scope`` has one source subtask, so every new consumer there has one
    producer."""
    return scope("pointwise-2x1", records_per_split=1, bounded=False, max_checkpoints=3, max_failures=0,
                 max_declines=0, max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=2)


def pointwise_keyed_order_scope() -> Scope:
    """Per-key order across a pointwise rescale (FLINK-21936's concern): ``three-stage-2x2x1``
    (source(2) -forward-> map(2) -keyBy-> keyed sink(1)), the map rescaled to 1, two records per
    split sharing one key, one checkpoint, unbounded, no fault: the new map's gate holds a
    channel's new records back until every old producer's recovered output is read (catalog
    ``pointwise-no-upstream-recovery-tracker``); the other pointwise scopes' records have no
    keys, so per-key order does not apply there."""
    return scope("three-stage-2x2x1", records_per_split=2, bounded=False, max_checkpoints=1, max_failures=0,
                 max_declines=0, max_timeouts=0, max_lost_notifications=0, rescale=(("map", 1),), max_rescales=1,
                 keys_per_split=1)


def pointwise_pattern_change_scope() -> Scope:
    """An edge that was ALL_TO_ALL at 2:3 restored as POINTWISE at 2:2 (``rebalance-2x3``, the
    sink rescaled to 2 and the edge turned pointwise): the restore must read the checkpoint's
    recorded pattern, not the new job's (catalog ``pointwise-pattern-not-recorded``); two records
    per split, unbounded, one checkpoint, no fault."""
    return scope("rebalance-2x3", records_per_split=2, bounded=False, max_checkpoints=1, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=1,
                 repattern=("source->sink",))


def unaligned_rescale_scope() -> Scope:
    """The unaligned presets' second default scope: a rescale, backpressure, a failure and a
    decline in one scope.  Job ``keyed-1x1``, two records, a subpartition that holds one record
    (the second backpressures the source) and local channels (``input_buffers`` 0: what a
    barrier overtakes is the producer's output state), the sink restored at parallelism 2 from
    a checkpoint taken at 1, one checkpoint before end of input, one failure, one decline.
    Every unaligned witness is hit but input channel state (one local channel: a priority
    barrier overtakes only the producer's queue), which the first default scope hits.
    ``flink-unaligned``: 4,608,400 states; ``flink-unaligned-timeout``: 135,830 (its barriers
    go aligned unless the sender's timer fires)."""
    return scope("keyed-1x1", records_per_split=2, max_checkpoints=1, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0, channel_capacity=1, input_buffers=0,
                 rescale=(("sink", 2),), max_rescales=1)


def spanning_records_scope() -> Scope:
    """The unaligned presets' third default scope: records that straddle two buffers
    (``spanning_records``), restored across a custom partitioner (FLINK-35351's shape).  Job
    ``custom-map`` (source(1) -rebalance-> stateless map(2) -custom-> 2PC sink(2)), the map
    restored at parallelism 1 while the sink keeps 2, one record, unbounded, one checkpoint, one
    failure, one decline, staggered triggers: a checkpoint holds a record's head as input
    channel state and its tail as output channel state, a restore (at the same or a new
    parallelism) joins them, and the FULL mapper's replicas are filtered.  ``flink-unaligned``:
    13,429 states, 2.7 s; ``flink-unaligned-timeout``: 28,926, 5.6 s (one process)."""
    return scope("custom-map", records_per_split=1, bounded=False, max_checkpoints=1, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0, staggered_triggers=True, rescale=(("map", 1),),
                 max_rescales=1, spanning_records=True)


def announcement_scope() -> Scope:
    """``aligned-timeout`` designs' fourth default scope: barrier announcements.  Job
    ``keyed-1x1`` with one buffer in the sink's remote input channel (``input_buffers`` 1: a
    barrier that reached it is announced, ``RemoteInputChannel``; the other default scopes'
    local channels announce nothing), two records, one checkpoint before end of input, one
    failure, one decline.  The sink has one input channel, so its alignment never starts before
    its only barrier is read: its receiving side goes unaligned only when the timer, counted
    from the checkpoint's start, fires on the announcement and the barrier jumps the record
    queued in front of it.  ``flink-unaligned-timeout``: 37,149 states, about 4 s (one process)."""
    return scope("keyed-1x1", records_per_split=2, max_checkpoints=1, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0, input_buffers=1)


def recovery_scope() -> Scope:
    """The unaligned presets' recovery as Flink 2.3 schedules it (``suspend_on_failure``): a
    failure aborts the pending checkpoint at once, and nothing is triggered while a restored
    subtask reads its recovered input channel state (INITIALIZING).  Job ``keyed-1x1`` with one
    buffer in the sink's input channel (so that a checkpoint records input channel state with
    one channel), one record, one checkpoint before end of input, one failure.
    ``flink-unaligned``: 3,773 states, under a second."""
    return scope("keyed-1x1", records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0, input_buffers=1, suspend_on_failure=True)


def rescaled_recovery_scope() -> Scope:
    """The unaligned presets' rescaled recovery as Flink has it: a subtask restored at a new
    parallelism declines every checkpoint whose barrier reaches it before its recovery ended
    (``rescaled_tasks_decline``), and nothing is triggered while a restored subtask
    initializes (``suspend_on_failure``).  Job ``keyed-1x1``, the sink rescaled 1 -> 2, one
    record, two checkpoints before end of input (one to restore, one to decline), no fault.
    ``flink-unaligned``: 350,179 states (``specs/unaligned/figures.py``)."""
    return scope("keyed-1x1", records_per_split=1, max_checkpoints=2, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=1,
                 rescaled_tasks_decline=True, suspend_on_failure=True)


def restart_aligned_scope() -> Scope:
    """FLINK-40518's situation: the user restarts the job from an unaligned checkpoint with
    unaligned checkpoints off (``restart_aligned``), and the restarted job restores the
    checkpoint's channel state and takes aligned checkpoints, as Flink's scheduler has it
    (``suspend_on_failure``: nothing is triggered while a restored subtask is INITIALIZING).
    Job ``keyed-1x1`` with one buffer in the sink's input channel, two records, two checkpoints
    before end of input (one to restart from, one during the restarted job's recovery), one
    failure.  ``flink-unaligned-during-recovery``: 48,806 states (``specs/unaligned/figures.py``)."""
    return scope("keyed-1x1", records_per_split=2, max_checkpoints=2, max_failures=1, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0, input_buffers=1, suspend_on_failure=True,
                 max_rescales=1, restart_aligned=True)
