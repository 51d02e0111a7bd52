"""The baseline's scopes, and ``scope``, which every feature's scopes build on."""

from __future__ import annotations

from ckptcheck.model.scope import Scope

from ..jobs import job_by_name


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


def incremental_concurrent_scope() -> Scope:
    """Incremental checkpoints with concurrent checkpoints (a design with both adds it to
    ``flip147``'s default scopes, which without instant acknowledgements are too large to search
    in minutes): a keyed stateful sink behind one source, no records, unbounded, four
    checkpoints and no fault, so that a snapshot is taken while the one before it still uploads
    and a confirmation comes late (catalog ``incremental-prune-misses-a-running-upload``)."""
    return scope("keyed-1x1", records_per_split=0, bounded=False, max_checkpoints=4, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


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
