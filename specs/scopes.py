"""Named scopes: the model configurations each design is checked in (recorded in every result)."""

from __future__ import annotations

from ckptcheck.model.scope import Scope

from .jobs import job_by_name


def scope(job: str = "keyed-2x2", **limits) -> Scope:
    return Scope(job=job_by_name(job), job_name=job, **limits)


def default_scope() -> Scope:
    """The baseline's default: 2 sources and 2 sinks across a keyed exchange, one record per
    split, one checkpoint before end of input plus the final one (two can complete), and one
    failure and one decline.  398,946 distinct states."""
    return scope("keyed-2x2", records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)


def enumerator_default_scope() -> Scope:
    """The baseline's second default scope: a FLIP-27 source with a split enumerator
    (``enumerator-and-side``: the reader feeds a 2PC sink, and a separate source), bounded, one
    record per split, one checkpoint before end of input, one failure and one decline, trigger
    RPCs one task at a time.  The first scope has no split enumerator, so neither the
    operator-event gateway (an ``AddSplitEvent`` sent between the coordinator's checkpoint and
    the reader's waits in the closed gateway, ``model.gateway``) nor the enumerator's add-back on
    a failover is reached there.  72,504 states, about 4 s with 2 workers."""
    return scope("enumerator-and-side", records_per_split=1, bounded=True, max_checkpoints=1, max_failures=1,
                 max_declines=1, max_timeouts=0, max_lost_notifications=0, staggered_triggers=True)


def regional_scope() -> Scope:
    """FLIP-600's scope: two independent regions (forward-2x2), one record per split, two
    checkpoints before end of input plus the final one (three in a run), one decline and one
    failure: a regional checkpoint completes, is restored from, and a forced global one
    follows.  The full model: 6,218,556 symmetry classes of states, about 7 minutes on two
    cores.  The regional designs' default is this scope with instant acks
    (``regional_default_scope``)."""
    return scope("forward-2x2", records_per_split=1, max_checkpoints=2, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)


def regional_default_scope() -> Scope:
    """The default scope of regional designs whose failure ratio lets one of two regions fail
    (50 % or more): ``regional_scope`` with instant acks, the acknowledgements in flight folded
    into the pending checkpoint (``CheckpointCoordinator.acknowledge_at_once``), exact up to
    that folding (``tests/test_instant_acks.py`` compares the folded state sets on regional
    scopes).  902,129 symmetry classes where the full model has 6,218,556; every verdict and
    witness the same, but ``an-ack-overtakes``, which the folding removes (ack order), does not
    apply; ``--no-instant-acks`` searches the full model."""
    return regional_scope().with_(instant_acks=True)


def four_region_scope() -> Scope:
    """FLIP-600 with a failure ratio below 0.5 (``flip600-pr``: the PR's 0.3), where one failed
    region of the two in ``forward-2x2`` already aborts: four one-subtask regions (job
    ``sources-4``) without records, four checkpoints, three declines, a timeout and a failure,
    so that regional checkpoints follow each other into tier 1, a forced one fails, a timeout
    completes one regionally and a region fails over onto a regional checkpoint: every witness
    is hit.  flip600-pr holds here (828,072 symmetry classes, 209 s with 2 workers); the chain
    that outgrows max-consecutive-failures needs a fifth checkpoint and a fourth decline
    (``specs/findings.py``, scope tier-2-reset).  Symmetry reduction applies (four
    interchangeable sources).  It has no sink: four regions with a 2PC sink
    (``pipeline-and-3-sides``, three checkpoints) passed 8.4 million states in 819 s before any
    regional checkpoint completed, so the PR's sink paths are checked with a ratio of 0.5 on two
    regions (the findings report)."""
    return scope("sources-4", records_per_split=0, bounded=False, max_checkpoints=4, max_failures=1, max_declines=3,
                 max_timeouts=1, max_lost_notifications=0)


def end_of_input_scope() -> Scope:
    """``flip600-pr``'s second default scope: the PR's end-of-input rules, which the first
    (unbounded) never reaches.  A pipeline with a 2PC sink and a separate source
    (``pipeline-and-side``, two regions), bounded, one record per split, two checkpoints
    before end of input, one decline: a declined checkpoint is judged over the regions still
    running, the finished side region left out (row B3), and a checkpoint triggered
    once every source FINISHED while the sink still runs is forced global at its trigger
    (rows B6, B8, N2).  With sources only (``sources-4``) the second never happens: once every
    source has FINISHED no task is left to trigger."""
    return scope("pipeline-and-side", records_per_split=1, bounded=True, max_checkpoints=2, max_failures=0, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)


def regional_union_scope() -> Scope:
    """FLIP-600 with FLIP-147 and union list state: one source of four subtasks, each its own
    region, whose union list state forbids a partly finished vertex in a checkpoint; bounded,
    no records (each subtask ends when the scheduler says), two checkpoints, one decline.  A
    subtask that ended snapshots its final checkpoint while another, not ended, declines it:
    the regional content would hold the vertex partly finished, and FLIP-147's check aborts it
    (``RegionalCheckpointHandler.finished_check``, row N3).  No default scope with a
    sink reaches this: the union vertex must have subtasks in different regions."""
    return scope("union-sources-4", records_per_split=0, bounded=True, max_checkpoints=2, max_failures=0, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)


def regional_coordinator_scope() -> Scope:
    """FLIP-600 with a split enumerator in a failed region and timeouts that complete
    regionally: two FLIP-27 readers and two other sources, each its own region; no records
    (a split is assigned and held, which is what the enumerator's fallback is about), two
    checkpoints, one timeout.  A reader given its split after the first checkpoint does not
    acknowledge the second in time; the timeout marks it declined, the regional completion
    waits for the coordinators' fallback, and the reader's acknowledgement arrives meanwhile
    (row N5)."""
    return scope("enumerator-2-and-sides", records_per_split=0, bounded=False, max_checkpoints=2, max_failures=0,
                 max_declines=0, max_timeouts=1, max_lost_notifications=0)


def regional_enumerator_scope() -> Scope:
    """FLIP-600 with a FLIP-27 source: its split enumerator in the reader's region and a separate
    source (``enumerator-and-side``, two regions), one record per split, unbounded, two
    checkpoints, one decline.  The reader's region declines, the checkpoint completes
    regionally, and the enumerator's state must fall back with the region: the splits it
    assigned after the fallback checkpoint go back to it (``SourceCoordinator``'s
    ``subtaskReset``/``addSplitsBack``; catalog K3).  The first two default scopes have no split
    enumerator, so split ownership does not apply there."""
    return scope("enumerator-and-side", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=0,
                 max_declines=1, max_timeouts=0, max_lost_notifications=0)


def regional_chain_scope() -> Scope:
    """FLIP-600's chains of fallbacks: two sources, each its own region, no records, unbounded,
    five checkpoints and four declines, so that regional checkpoints refer back through a
    ``refCheckpointId`` of a ``refCheckpointId`` (a chain of two hops and more) until tier 1
    forces a global one, and a decline of a forced checkpoint counts toward tier 2 (catalog
    entries K5 and F3); and a JobManager failover, whose new coordinator starts its count
    afresh or from the store (F4).  The first two default scopes allow one decline, so their
    chains stop at one hop.  A default scope of the regional designs whose failure ratio lets one of two
    regions fail (with a lower ratio a regional checkpoint of ``sources-2`` never completes)."""
    return scope("sources-2", records_per_split=0, bounded=False, max_checkpoints=5, max_failures=0, max_declines=4,
                 max_timeouts=0, max_lost_notifications=0, max_jm_failovers=1)


def regional_rescale_scope() -> Scope:
    """FLIP-600 with a rescale: a forward pipeline and a separate source (two regions), the sink
    rescaled from 1 to 2; one record per split, two checkpoints before end of input, one
    decline: a regional checkpoint completes and the job restarts from it at the new
    parallelism (and a regional checkpoint at the new parallelism may fall back to one taken
    at the old)."""
    return scope("pipeline-and-side", records_per_split=1, max_checkpoints=2, max_failures=0, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=1)


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


def flip147_default_scope() -> Scope:
    """FLIP-147's default: job ``sink-v2-keyed-2x1``, two sources that end at their own pace,
    keyed into a Sink V2 writer, its committer and a global committer; the baseline's limits
    (one record per split, one checkpoint before end of input, one failure, one decline).
    The global committer's final checkpoint comes after the others finished, so every
    FLIP-147 mechanism is reached: a task triggered by RPC because its producers finished, a
    checkpoint with a partly finished vertex, a restore FINISHED_ON_RESTORE and one restarting
    a finished subtask, end-of-input committables committed, re-committed at a restore.
    1,337,457 states, about 82 s with 2 workers."""
    return scope("sink-v2-keyed-2x1", records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)


def flip147_concurrent_scope() -> Scope:
    """The ``flip147`` preset's default (two concurrent checkpoints): FLIP-147's default job
    with two checkpoints before end of input, so that two can be pending at once, and instant
    acks (``CheckpointCoordinator.acknowledge_at_once``: the acknowledgements in flight are
    folded into the pending checkpoints, which keeps every verdict and, with two concurrent
    checkpoints, cuts the state space 3 to 56 times in the scopes compared).  Every FLIP-147 witness that applies is hit, the
    concurrency ones too: two checkpoints pending, a completion subsuming the older one, a
    task finishing while a later checkpoint it acknowledged is pending.  8,494,887 states,
    about 9.5 minutes with 2 workers."""
    return scope("sink-v2-keyed-2x1", records_per_split=1, max_checkpoints=2, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0, instant_acks=True)


def incremental_concurrent_scope() -> Scope:
    """Incremental checkpoints with concurrent checkpoints (a design with both adds it to
    ``flip147``'s default scopes, which without instant acknowledgements are too large to search
    in minutes): a keyed stateful sink behind one source, no records, unbounded, four
    checkpoints and no fault, so that a snapshot is taken while the one before it still uploads
    and a confirmation comes late (catalog ``incremental-prune-misses-a-running-upload``)."""
    return scope("keyed-1x1", records_per_split=0, bounded=False, max_checkpoints=4, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


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


def flip147_union_scope() -> Scope:
    """The ``flip147`` preset's second default scope: job ``union-sink-v2-2x2`` (a legacy
    source with union list state feeding a Sink V2 writer and committer, at parallelism 2), so
    that a checkpoint aborts because the union-state source finished partly (TASK_CLOSING)
    while the writer and committer may finish partly; two checkpoints before end of input (two
    pending at once), no fault, instant acks, symmetry reduction.  The union-state abort is
    searched together with partial finishing, end-of-input committables and concurrent
    checkpoints, not with a failure: with one checkpoint and one failure the search passed
    5,148,003 symmetry classes at depth 63 with the queue still growing (docs/pages/engines.md, "Default
    scopes").  2,703,977 symmetry classes, about 9 minutes with 1 worker."""
    return scope("union-sink-v2-2x2", records_per_split=1, max_checkpoints=2, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0, instant_acks=True)


def jobmanager_view_scope() -> Scope:
    """The baseline's third default scope: the JobManager's view of the tasks as Flink has it,
    which the first two scopes leave out (each a scope option, ``model.scope``): trigger RPCs
    one task at a time that may overtake the notices sent before them (``rpcs_overtake``), a
    finish the JobManager learns of a step later, so that a trigger can reach a finished task
    (``late_finish_reports``), and a failure that stops the checkpoint scheduler at once,
    aborting the pending checkpoint uncounted (``suspend_on_failure``).  Job ``keyed-2x1``, no
    records, bounded, two checkpoints before end of input (a finished source's trigger needs a
    second one), one failure.  ``flink-baseline``: 65,058 states, about 4 s with 2 workers."""
    return scope("keyed-2x1", records_per_split=0, max_checkpoints=2, max_failures=1, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0, staggered_triggers=True, rpcs_overtake=True,
                 late_finish_reports=True, suspend_on_failure=True)


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
    ``flink-unaligned``: 328,789 states, about 25 s with 2 workers."""
    return scope("keyed-1x1", records_per_split=1, max_checkpoints=2, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=1,
                 rescaled_tasks_decline=True, suspend_on_failure=True)


def default_scopes_for(design) -> tuple[Scope, ...]:
    """Every scope a design is checked in when the user names none (``checks.run.suite``): the
    first is ``default_scope_for``'s; a design whose mechanisms one affordable scope does not
    reach together has more.  Unaligned checkpoints (not on pointwise edges, not FLINK-4120's)
    add ``unaligned_rescale_scope``: a rescale under backpressure with a failure and a decline,
    which the two-input default cannot afford (docs/pages/model.md, "Not modelled yet"), while the one-input
    rescale scope cannot reach FLIP-147's partial finishing or input channel state; and
    ``spanning_records_scope``: records split across a checkpoint and restored across a custom
    partitioner (the first two keep records whole); with an alignment timeout also
    ``announcement_scope``: a barrier announced in a remote input channel, which the others'
    local channels never announce.  ``flip147``
    adds ``flip147_union_scope``: the union-state abort, which the first scope's job cannot
    reach (its only vertex of parallelism 2, the sources', cannot both hold union state and
    finish partly in a completed checkpoint), and which the union job cannot afford with a
    failure; one with incremental checkpoints too adds ``incremental_concurrent_scope``: a snapshot
    taken while the one before it still uploads.  ``flip600-pr`` (a failure ratio below 50 %) adds ``end_of_input_scope``: the
    PR's end-of-input rules, which its unbounded first scope never reaches.  A regional design
    with FLIP-147 adds ``regional_union_scope``: FLIP-147's union-state check on a regional
    checkpoint's content, which needs a union vertex spread over regions; one whose regional
    completion waits for the coordinators' fallback adds ``regional_coordinator_scope``: a late
    acknowledgement in that window needs a split enumerator and a timeout.  A regional design
    whose failure ratio lets one of two regions fail adds ``regional_enumerator_scope``: a split
    enumerator whose state falls back with its failed region (catalog K3), and
    ``regional_chain_scope``: chains of two ``refCheckpointId`` hops and more (K5, F3), which one
    decline never forms.  The baseline's
    first scope adds ``enumerator_default_scope``: a split enumerator, its operator-event gateway
    and its add-back on a failover, which keyed-2x2 has none of.  Unaligned checkpoints on
    POINTWISE edges add ``pointwise_fan_in_scope`` (two upstream subtasks on a POINTWISE edge:
    the primary-producer rule and the recovery filter), ``pointwise_keyed_order_scope`` (per-key
    order behind recovered output) and ``pointwise_pattern_change_scope`` (an ALL_TO_ALL edge
    restored as POINTWISE), each a mechanism the first scope's single source never reaches.
    The scope options of Flink's runtime (``rpcs_overtake``, ``late_finish_reports``,
    ``rescaled_tasks_decline``, ``suspend_on_failure``) are on in scopes of their own, small
    enough to search them whole: the baseline's and ``flip147``'s ``jobmanager_view_scope``,
    the unaligned presets' ``recovery_scope`` and ``rescaled_recovery_scope``, the pointwise
    preset's ``recovery_scope``; the larger scopes keep them
    off (each moves their figures, and ``suspend_on_failure`` off is a superset of Flink 2.3's
    runs)."""
    from ckptcheck.model.protocol import fitted

    return tuple(fitted(design, sc) for sc in _default_scopes_for(design))


def _default_scopes_for(design) -> tuple[Scope, ...]:
    first = _default_scope_for(design)
    if first == pointwise_scope():
        return (first, pointwise_fan_in_scope(), pointwise_keyed_order_scope(), pointwise_pattern_change_scope(),
                recovery_scope())
    if first == default_scope():
        return (first, enumerator_default_scope(), jobmanager_view_scope())
    if first == unaligned_scope():
        timeout = (announcement_scope(),) if design.checkpoint_mode == "aligned-timeout" else ()
        return (first, unaligned_rescale_scope(), spanning_records_scope()) + timeout \
            + (recovery_scope(), rescaled_recovery_scope())
    if first == flip147_concurrent_scope():
        late = (incremental_concurrent_scope(),) if design.incremental_checkpoints else ()
        return (first, flip147_union_scope(), jobmanager_view_scope()) + late
    union = (regional_union_scope(),) if design.regional_checkpoints and design.checkpoints_after_tasks_finish else ()
    if design.regional_checkpoints and design.regional_completion != "atomic":
        union += (regional_coordinator_scope(),)
    if first == four_region_scope():
        return (first, end_of_input_scope()) + union
    if first == regional_default_scope():
        union += (regional_enumerator_scope(), regional_chain_scope())
    return (first,) + union


def default_scope_for(design) -> Scope:
    """The scope a design is checked in when the user names none.  An aligned design with
    concurrent checkpoints gets ``flip147_concurrent_scope``, one with FLINK-4120's recovery
    ``null_state_scope``; a scope whose instant acks do not fit the design goes without them
    (``model.protocol.fitted``: incremental checkpoints register at an acknowledgement's arrival)."""
    from ckptcheck.model.protocol import fitted

    return fitted(design, _default_scope_for(design))


def _default_scope_for(design) -> Scope:
    if design.recovery == "null-state":
        return null_state_scope() if design.checkpoint_mode == "aligned" else null_state_unaligned_default_scope()
    if design.regional_checkpoints:
        # one failed region of two must be within the ratio, or forward-2x2 never completes regionally
        return regional_default_scope() if design.max_failed_region_percent >= 50 else four_region_scope()
    if design.max_concurrent_checkpoints > 1 and design.checkpoint_mode == "aligned":
        return flip147_concurrent_scope()
    if design.unaligned_pointwise:
        return pointwise_scope()
    return unaligned_scope() if design.checkpoint_mode != "aligned" else default_scope()


def expected_seconds(design, scope: Scope, symmetry: bool = False) -> float | None:
    """What an exhaustive search of ``scope`` is known to take with 2 workers on 2 cores (measured once,
    ``specs.figures``), or None where it was not measured."""
    from .figures import measured

    known = measured(design.name, scope, symmetry)
    return None if known is None or known.states is None else known.seconds


def known_figures(design, scope: Scope, symmetry: bool = False) -> str | None:
    """What an exhaustive search of ``scope`` is known to cost, for designs that run a scope
    measured before (the same design, or one whose default scope is the FLIP-600 one)."""
    from .figures import measured

    known = measured(design.name, scope, symmetry)
    if known is not None and known.states is not None:
        return f"{known.design} in this scope: {known.states:,} {'symmetry classes' if known.symmetry else 'states'}, {known.cost}"
    if design.regional_checkpoints and scope in (regional_scope(), regional_default_scope()):
        # another regional design on flip600-regional's scopes: its figure is the nearest known
        ref = measured("flip600-regional", scope, True)
        if not symmetry:
            return (f"not measured without symmetry reduction; flip600-regional has {ref.states:,} symmetry classes "
                    "in this scope, and about twice as many states are expected")
        return f"the FLIP-600 scope: flip600-regional has {ref.states:,} symmetry classes here ({ref.cost})"
    return None
