"""The operator-event gateway between a split enumerator and its readers: Flink's
``OperatorCoordinatorHolder`` with one ``SubtaskGatewayImpl`` per reader subtask, which keeps the
enumerator's and the readers' halves of a checkpoint in agreement (row N6).  Why it matters is
on the class; the rules, as Flink 2.x has them, and the abstractions are on the methods that
make them.
"""

from __future__ import annotations

from .component import Component, follows
from .tx import Tx
from .world import RUNNING, World, add_sorted, remove_sorted


class OperatorCoordinatorHolder(Component):
    """``OperatorCoordinatorHolder`` / ``SubtaskGatewayImpl``: the readers' event gateways.

    Why it matters: the enumerator's checkpoint is taken before the readers' (``CheckpointCoordinator``
    snapshots the operator coordinators first, then triggers the tasks).  An ``AddSplitEvent`` that
    reached a reader between the two would be in both snapshots: the enumerator's as an unassigned
    split and the reader's as a held one.  Flink closes the gateways when the coordinator's
    checkpoint is taken and holds every event sent meanwhile until the reader has taken its own
    snapshot, so the two halves of the checkpoint agree (row N6; with staggered trigger RPCs the
    model without this rule shows a split owned twice in eight steps, catalog
    ``no-operator-event-gateway``).

    Abstraction: with trigger RPCs in the coordinator's step (``Scope.staggered_triggers`` off)
    every triggered reader snapshots in the step that closed its gateway, so the gateway is only
    ever seen closed by a reader whose trigger is still on its way, or that never snapshots the
    checkpoint (a FLIP-600 failed region: see ``RegionalCheckpointHandler.open_gateways``)."""

    @follows("OperatorCoordinatorHolder.closeGateways")
    def close_gateways(self, tx: Tx, cp: int) -> None:
        """``closeGateways(cp)`` at the coordinator's checkpoint: mark every running reader's
        gateway for ``cp``.  ``OperatorCoordinatorHolder.checkpointCoordinator`` ->
        ``closeGateways(checkpointId)``: every subtask gateway is marked for the checkpoint
        (``SubtaskGatewayImpl.markForCheckpoint``) and closed (``tryCloseGateway``).  The model
        marks the gateways of running readers that have not ended (an ended reader asks for no
        split, so no event is ever sent to it)."""
        readers = self.model.enumerator.readers
        if not readers:
            return
        marks = [(t, cp) for t in readers if tx.tasks[t].status == RUNNING and not tx.tasks[t].ended]
        if marks:
            tx.coord = tx.coord._replace(gateways=add_sorted(tx.coord.gateways, *marks))

    @follows("SubtaskGatewayImpl.sendEvent")
    def send_add_split(self, tx: Tx, t: int, split: int) -> None:
        """``SubtaskGatewayImpl.sendEvent(AddSplitEvent)``: delivered now, or held while the
        reader's gateway is closed (``blockedEventsMap``, under the latest checkpoint it is closed
        for).  The enumerator's own state changes at once: ``SourceCoordinatorContext.assignSplits``
        records the assignment in the ``SplitAssignmentTracker`` before it sends the event, so the
        split is neither unassigned in the live enumerator nor held by the reader until the event
        is released."""
        marked = [cp for r, cp in tx.coord.gateways if r == t]
        if marked:
            tx.coord = tx.coord._replace(held=add_sorted(tx.coord.held, (t, max(marked), split)))
            return
        self.deliver(tx, t, split)

    @follows("SourceOperator.handleOperatorEvent")
    def deliver(self, tx: Tx, t: int, split: int) -> None:
        """The reader receives its ``AddSplitEvent`` (``SourceOperator.handleOperatorEvent``):
        it reads ``split`` from its start."""
        tx.tasks[t] = tx.tasks[t]._replace(split=split, position=0)

    def holds_event_for(self, w: World, t: int) -> bool:
        """Is an event to reader ``t`` held in its closed gateway?  (The reader, waiting for the
        split it asked for, neither asks again nor ends.)"""
        return any(h[0] == t for h in w.coord.held)

    @follows("SubtaskGatewayImpl.openGatewayAndUnmarkCheckpoint")
    def open_gateway(self, tx: Tx, t: int, cp: int) -> None:
        """``openGatewayAndUnmarkCheckpoint(cp)`` of reader ``t``'s gateway: nothing unless it is
        marked for ``cp``; the events held for ``cp`` are released if ``cp`` is the oldest mark,
        else they wait under the next older one.

        Abstraction: a released event reaches the reader in the step that releases it (the reader
        asked for a split and waits for it: nothing it does in between can be observed)."""
        gateways = tx.coord.gateways
        if (t, cp) not in gateways:
            return
        older = [c for r, c in gateways if r == t and c < cp]
        mine = [h for h in tx.coord.held if h[0] == t and h[1] == cp]
        held = remove_sorted(tx.coord.held, *mine)
        if older:
            held = add_sorted(held, *((t, max(older), s) for _, _, s in mine))
        tx.coord = tx.coord._replace(gateways=remove_sorted(gateways, (t, cp)), held=held)
        if not older:
            for _, _, split in mine:
                self.deliver(tx, t, split)

    def on_subtask_snapshot(self, tx: Tx, t: int, cp: int) -> None:
        """The reader took its snapshot of ``cp`` (its ``AcknowledgeCheckpointEvent``): its
        gateway opens (``RegularOperatorChain.snapshotState`` ->
        ``OperatorChain.sendAcknowledgeCheckpointEvent`` after the operators' synchronous
        snapshot, handled by ``OperatorCoordinatorHolder.handleEventFromOperator``; versions with
        ``OperatorEventDispatcherImpl`` send an ``OpenGatewayEvent`` from
        ``notifyOperatorSnapshotCreatedIfExists`` at the same point).

        Abstraction: a reader's snapshot and the opening of its gateway are one step."""
        if tx.coord.gateways:
            self.open_gateway(tx, t, cp)

    @follows("OperatorCoordinatorHolder.notifyCheckpointComplete", "OperatorCoordinatorHolder.notifyCheckpointAborted")
    def on_checkpoint_done(self, tx: Tx, cp: int, readers=None) -> None:
        """``notifyCheckpointComplete(cp)`` / ``notifyCheckpointAborted(cp)`` reach the holder:
        every gateway (of ``readers``, when given) marked for ``cp`` opens.  A trigger the task
        declines before its snapshot (not ready, or an out-of-order or aborted checkpoint) sends
        nothing: its gateway opens here, at the end of the checkpoint."""
        if not tx.coord.gateways:
            return
        for t, c in tx.coord.gateways:
            if c == cp and (readers is None or t in readers):
                self.open_gateway(tx, t, cp)

    @follows("OperatorCoordinatorHolder.subtaskReset")
    def on_failure(self, tx: Tx, victims) -> None:
        """Failed readers lose their gateways and the events held in them (``SubtaskGatewayImpl``'s
        futures fail); the split stays in the tracker as assigned after the restored checkpoint,
        and ``subtaskReset`` gives it back to the enumerator (``SplitEnumerator.on_restore``).  A
        global failover resets the coordinator and every gateway."""
        coord = tx.coord
        if not (coord.gateways or coord.held):
            return
        tx.coord = coord._replace(gateways=tuple(g for g in coord.gateways if g[0] not in victims),
                                  held=tuple(h for h in coord.held if h[0] not in victims))
