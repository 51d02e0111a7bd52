"""FLIP-147's scopes: Sink V2 with finishing tasks, two concurrent checkpoints, union state."""

from __future__ import annotations

from ckptcheck.model.scope import Scope

from ..baseline.scopes import scope


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
