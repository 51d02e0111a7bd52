"""FLIP-547's open rules, each a reading (``model.reading``): where the merged code is not
indexed, or changed during review, every way of reading a step is a subclass of the component
that takes it, chosen by a design knob."""

from __future__ import annotations

from .network_input import StreamTaskNetworkInput
from .reading import Reading


class RecoveryTriggerNoOpAfterDrain(StreamTaskNetworkInput, Reading):
    """``StreamTask`` sets the ``RecoveryCheckpointTrigger`` to NO_OP once ``drain()`` has
    handed every recovered buffer to its channel, as the code 1996fanrui reviewed on
    apache/flink#28554 (30 June 2026) did.  A channel leaves recovery only when the mailbox polls
    its ``EndOfFetchedChannelStateEvent``, so a checkpoint that starts in between inserts no
    ``RecoveryCheckpointBarrier``, and ``checkpointStarted`` on a channel still in recovery
    fails ("Missing RecoveryCheckpointBarrier", ``collectPreRecoveryBarrier``): the subtask
    declines with ``CHECKPOINT_DECLINED``, which the ``CheckpointFailureManager`` counts.

    Abstraction: the model's restore hands every recovered record to its channel at once (the
    in-memory push of apache/flink#28660), so the window is the whole time a subtask reads its
    recovered records after filtering.  Each failover into the window triggers a checkpoint
    with a new id, so a search of this reading does not end: bound it (``--max-seconds``) or stop
    at the first violation, as the catalog does."""

    knob, value = "recovery_trigger_no_op", "after-drain"
    follows = "apache/flink#28554 StreamTask (drainThroughCheckpointTrigger, then NO_OP), review of 30 June 2026"

    def recovery_barriers_inserted(self) -> bool:
        return False
