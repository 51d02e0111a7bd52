"""Barrier handling: Flink's ``CheckpointBarrierHandler`` (``SingleCheckpointBarrierHandler``
with its aligned ``BarrierHandlerState``s), as run by the task's ``CheckpointedInputGate``.

Only aligned checkpoints are modelled (``checkpoint_mode = "aligned"``): a channel that
delivered the barrier being aligned is blocked until every live input (one that has not
delivered EndOfPartition) has delivered it; then the task snapshots and forwards the barrier
(``StreamTask.snapshot``).  Abstraction: Flink's handler also cancels an alignment on a
``CancelCheckpointMarker``; here a cancelled checkpoint's barrier still travels and is handled
like any barrier, which the downstream treats the same way.
"""

from __future__ import annotations

from .component import Component
from .tx import Tx
from .world import TaskState


class CheckpointBarrierHandler(Component):
    """``SingleCheckpointBarrierHandler`` in aligned mode."""

    def is_blocked(self, ts: TaskState, input_index: int) -> bool:
        """Does the task hold back input ``input_index`` (it delivered the barrier being
        aligned)?  ``alignment_blocks_channels = false`` is the flawed handler that keeps
        reading it (catalog ``no-alignment-block``)."""
        return self.design.alignment_blocks_channels and bool(ts.blocked >> input_index & 1)

    def on_barrier(self, tx: Tx, t: int, cp: int, bit: int) -> None:
        """``processBarrier``: a barrier older than the one being aligned (or already handled)
        is dropped; a newer one cancels the current alignment and starts its own
        (``checkNewCheckpoint``); the delivering channel is blocked."""
        ts = tx.tasks[t]
        if cp <= ts.last_barrier or (ts.aligning and cp < ts.aligning):
            return
        if ts.aligning == cp:
            ts = ts._replace(blocked=ts.blocked | bit)
        else:
            ts = ts._replace(aligning=cp, blocked=bit)
        tx.tasks[t] = ts
        self.maybe_complete_alignment(tx, t)

    def on_end_of_partition(self, tx: Tx, t: int) -> None:
        """``processEndOfPartition``: an input that ended no longer needs to deliver the barrier."""
        self.maybe_complete_alignment(tx, t)

    def maybe_complete_alignment(self, tx: Tx, t: int) -> None:
        """Every live input delivered the barrier: the task snapshots (``triggerCheckpointOnBarrier``)."""
        ts = tx.tasks[t]
        if ts.aligning and (ts.blocked | ts.eop) == self.model.all_inputs_mask[t]:
            self.task.snapshot(tx, t, ts.aligning)
