"""What is enabled, a part of the protocol (``model.protocol.FlinkModel``): every action that
may happen next in a world, in a fixed order, progress first, then faults.

Which channel a running task may read next follows Flink's input side: ``CheckpointedInputGate``
(a channel blocked by alignment, ``CheckpointBarrierHandler.is_blocked``; priority events
first), ``RecordWriter.isAvailable`` (a full output backpressures the task,
``FlinkModel.has_room``), ``UpstreamRecoveryTracker`` and ``StreamTask.restoreStateAndGates``
(a restored gate reads its recovered state first).  The rest is asked of the components (the
request decider's ``can_trigger``, the coordinator's ``can_stop``, the failover's restore, rescale and resume, the
task's inbox); faults are offered within the scope's budget.
"""

from __future__ import annotations

from functools import cached_property, partial
from typing import TYPE_CHECKING, Callable

from .actions import (Ack, Action, AlignmentTimeout, CoordinatorsFellBack, Decline, DeleteSnapshot, Deliver, EndOfRecovery, FailTask, JobManagerFailover,
                      FinishReported, LastAck, LoseNotification, Notify, ReadHead, Rescale, Restore, ResumeFromSavepoint, StopWithSavepoint, Timeout,
                      TriggerAfterClose, TriggerCheckpoint)
from .component import Peers
from .task import priority_index
from .world import FAILED, FINISHED, NOTIFY_NAMES, NOTIFY_TRIGGER, REC, RECOVERED_INPUT, RUNNING, World, is_recovered

if TYPE_CHECKING:  # pragma: no cover
    from .design import Design
    from .protocol import FlinkModel
    from .scope import Scope
    from .topology import Expanded


def overtaking(inbox: tuple) -> int:
    """``Scope.rpcs_overtake``: the index of the first RPC of the other kind than the head's
    (a trigger behind notices, or a notice behind triggers), 0 when there is none.  Flink sends
    a trigger RPC and the completion or abort notices on different paths:
    ``CheckpointCoordinator.completePendingCheckpoint`` schedules the next trigger request (in
    its ``finally``) before ``cleanupAfterCompletedCheckpoint`` sends the completion notices,
    and ``sendAbortedMessages`` sends abort notices from its executor.  A real run shows a
    trigger of checkpoint n + 1 reaching a source before the completion of n
    (``ckptcheck validate``); each kind still arrives in order."""
    head = inbox[0][0] == NOTIFY_TRIGGER
    for k in range(1, len(inbox)):
        if (inbox[k][0] == NOTIFY_TRIGGER) != head:
            return k
    return 0


class EnabledMixin(Peers):
    """``FlinkModel.enabled``: the actions enabled in a world.  A mixin of ``FlinkModel``.

    The list is the concatenation of rule groups (``enabled_groups``), each one reading a few
    fields of the world: the sources, each channel's delivery (each subtask's input with
    unaligned checkpoints), the coordinator's trigger, the acknowledgements, each subtask's
    inbox, recovery, then each fault kind.  An engine may compute each group once per distinct
    value of what it reads (``checks.engine.memo``); the order is the list's order."""

    if TYPE_CHECKING:  # what it reads of the model it is part of (``FlinkModel``)
        design: Design
        scope: Scope
        config: int

        @property
        def topo(self) -> Expanded: ...

        @property
        def unaligned(self) -> bool: ...

        @property
        def restores_channel_state(self) -> bool: ...

        @property
        def cdr(self) -> bool: ...

        @property
        def timeoutable(self) -> tuple[bool, ...]: ...

        @property
        def handled_kinds(self) -> tuple[type[Action], ...]: ...

        def at(self, w: World) -> "FlinkModel": ...

        def has_room(self, w: World, t: int) -> bool: ...

    def enabled(self, w: World) -> list[Action]:
        """Every action enabled in ``w``, in a fixed order: progress first, then faults."""
        if w.used.rescales & 1 != self.config:
            return self.at(w).enabled(w)
        out: list[Action] = []
        for group in self.enabled_groups:
            group(w, out)
        return out

    @cached_property
    def enabled_groups(self) -> tuple[Callable[[World, list], None], ...]:
        """The rule groups whose actions, appended in this order, are ``enabled(w)``; each is
        called as ``group(w, out)`` on a world at this model's parallelism."""
        n = self.topo.n_tasks
        inputs = ([partial(self._inputs_unaligned, t) for t in range(n)] if self.restores_channel_state
                  else [partial(self._deliveries, ch.id) for ch in self.topo.channels])
        return (self.source.enabled, *inputs, self._coordinator_actions, self._acknowledgements,
                *(partial(self._inbox_actions, t) for t in range(n)), self._recovery_actions,
                self._declines, self._timeouts, self._failures, self._jobmanager_failovers, self._lost_notifications,
                self._snapshot_deletion, *self._added_kinds)

    @property
    def _added_kinds(self) -> list[Callable[[World, list], None]]:
        """The rule groups of the kinds that say themselves when they are enabled
        (``Action.enabled_in``) and that a component of the design handles."""
        return [partial(kind.enabled_in, self) for kind in self.handled_kinds if kind.enabled_in is not None]

    def _deliveries(self, c: int, w: World, out: list[Action]) -> None:
        """Aligned checkpoints: channel ``c``'s head, if its consumer may read it."""
        items = w.channels[c]
        if not items:
            return
        ch = self.topo.channels[c]
        ts = w.tasks[ch.consumer]
        if ts.status != RUNNING or self.barriers.is_blocked(ts, ch.input_index):
            return
        if self.topo.blocking_output and not self.failover.deployed(w, ch.consumer):
            return
        if self.scope.channel_capacity and items[0][0] == REC and not self.has_room(w, ch.consumer):
            return
        out.append(Deliver(c))

    def _coordinator_actions(self, w: World, out: list[Action]) -> None:
        """The coordinator's periodic trigger, and FLIP-600's coordinators falling back."""
        if self.request_decider.can_trigger(w):
            out.append(TriggerCheckpoint(w.coord.next_id))
        out.extend(CoordinatorsFellBack(p.id) for p in w.coord.pending if p.falling_back)

    def _acknowledgements(self, w: World, out: list[Action]) -> None:
        """Acknowledgements arriving (under instant acks: the last response to a checkpoint)."""
        if self.scope.instant_acks:
            for p in w.coord.pending:  # every task responded (regionally: acknowledged or declined), not judged yet
                if not p.completing and len(p.acked) + bin(p.declined).count("1") == bin(p.waiting).count("1"):
                    out.append(LastAck(p.id))
        elif w.acks and self.design.max_concurrent_checkpoints > 1:
            out.extend(Ack(t, cp) for t, cp, _ in w.acks)  # concurrent async parts: any order
        elif w.acks:
            first: dict[int, int] = {}
            for t, cp, _ in w.acks:
                if t not in first:
                    first[t] = cp
            for t in sorted(first):
                out.append(Ack(t, first[t]))

    def _inbox_actions(self, t: int, w: World, out: list[Action]) -> None:
        """Subtask ``t``'s finish report reaching the JobManager, and the RPC at the head of its
        inbox (with ``Scope.rpcs_overtake``, the first of the other kind too)."""
        ts = w.tasks[t]
        if ts.unreported:
            out.append(FinishReported(t))
        if not ts.inbox:
            return
        scope = self.scope
        kind, cp = ts.inbox[0][:2]
        out.append(Notify(t, cp, NOTIFY_NAMES[kind]))
        if ts.status == FINISHED:  # a trigger the JobManager sent before it saw the finish
            return
        if kind == NOTIFY_TRIGGER and w.used.declines < scope.max_declines and self.task.ready_to_finish(w, t):
            out.append(TriggerAfterClose(t, cp))  # a decline: it takes the scope's decline budget
        if scope.rpcs_overtake:
            k = overtaking(ts.inbox)
            if k:
                other, ocp = ts.inbox[k][:2]
                out.append(Notify(t, ocp, NOTIFY_NAMES[other]))
                if other == NOTIFY_TRIGGER and w.used.declines < scope.max_declines and self.task.ready_to_finish(w, t):
                    out.append(TriggerAfterClose(t, ocp))

    def _recovery_actions(self, w: World, out: list[Action]) -> None:
        """A restore (or a resume from the stop's savepoint), a stop-with-savepoint, a rescale."""
        if w.coord.savepoint:  # the stop's savepoint completed: a failure now ends the job
            if self.failover.may_resume_from_savepoint(w):
                out.append(ResumeFromSavepoint(w.coord.savepoint.id))
        elif any(ts.status == FAILED for ts in w.tasks):
            out.append(Restore(self.failover.restore_checkpoint(w)))
        if self.coordinator.can_stop(w):
            out.append(StopWithSavepoint(w.coord.next_id))
        if w.used.rescales < self.scope.max_rescales and self.failover.may_rescale(w):
            out.append(Rescale(w.coord.store[-1].id))

    def _declines(self, w: World, out: list[Action]) -> None:
        """Fault: a running subtask declines a pending checkpoint it acknowledged (its
        acknowledgement still in flight), within the scope's decline budget."""
        pending = w.coord.pending
        if not pending or w.used.declines >= self.scope.max_declines:
            return
        tasks = w.tasks
        if self.scope.instant_acks:  # an acknowledgement counted at once may still be one in flight
            for p in pending:
                out.extend(Decline(t, p.id) for t, _ in p.acked if tasks[t].status == RUNNING)
        else:
            ids = {p.id for p in pending}
            for t, cp, _ in w.acks:
                if cp in ids and tasks[t].status == RUNNING:
                    out.append(Decline(t, cp))

    def _timeouts(self, w: World, out: list[Action]) -> None:
        """Fault: a pending checkpoint's timer fires, within the scope's timeout budget (not while its
        regional completion waits for the coordinators, unless ``regional_wait_reentry`` says)."""
        pending = w.coord.pending
        if pending and w.used.timeouts < self.scope.max_timeouts:
            may = self.regional.may_time_out
            out.extend(Timeout(p.id) for p in pending if may(p))

    def _failures(self, w: World, out: list[Action]) -> None:
        """Fault: a running (deployed) subtask fails, while none is failed, within the budget."""
        if w.used.failures >= self.scope.max_failures:
            return
        tasks = w.tasks
        if any(ts.status == FAILED for ts in tasks):
            return
        deployed = self.failover.deployed if self.topo.blocking_output else None
        for t, ts in enumerate(tasks):
            if ts.status == RUNNING and (deployed is None or deployed(w, t)):
                out.append(FailTask(t))

    def _jobmanager_failovers(self, w: World, out: list[Action]) -> None:
        """Fault: the JobManager fails over, within the scope's budget."""
        if w.used.jm_failovers < self.scope.max_jm_failovers and self.failover.may_fail_over_jobmanager(w):
            out.append(JobManagerFailover(self.failover.restore_checkpoint(w)))

    def _lost_notifications(self, w: World, out: list[Action]) -> None:
        """Fault: the RPC at the head of a subtask's inbox is lost, within the budget."""
        if w.used.lost >= self.scope.max_lost_notifications:
            return
        for t, ts in enumerate(w.tasks):
            if ts.inbox:
                kind, cp = ts.inbox[0][:2]
                # a lost trigger RPC is not modelled: it hides a checkpoint that can only
                # time out because one task never heard of it (a timeout covers its effect)
                if kind != NOTIFY_TRIGGER:
                    out.append(LoseNotification(t, cp, NOTIFY_NAMES[kind]))

    def _snapshot_deletion(self, w: World, out: list[Action]) -> None:
        """NO_CLAIM restore: the user deletes the snapshot the job started from."""
        if self.design.no_claim_restore and self.store.may_delete_snapshot(w):
            out.append(DeleteSnapshot(1))

    def _inputs_unaligned(self, t: int, w: World, out: list[Action]) -> None:
        """Subtask ``t``'s input actions wherever a restore may find channel state
        (``restores_channel_state``: unaligned checkpoints on, or the aligned job of the scope's
        ``restart_aligned``, whose barriers are all FIFO).  A subtask reads its recovered input
        channel state first, then its upstreams' re-sent output state on the channels that still
        hold some (the others are blocked until all are done, ``UpstreamRecoveryTracker``),
        then a priority barrier before anything else, then the heads of its channels; a record
        needs room downstream.  An aligning subtask's timer may fire.

        The EndOfChannelStateEvent that ends a channel's re-sent state is not an item of the
        channel: a channel counts as blocked once its last re-sent record is read.  In Flink the
        event is a buffer of its own, and an unaligned barrier that its producer adds before
        the event was polled goes ahead of it (``PipelinedSubpartition.processPriorityBuffer``
        inserts priority buffers before every non-priority one; the subpartition blocks only
        when ``pollBuffer`` hands out the event).  So a priority barrier is delivered on a
        channel whose re-sent records are all read, as if its event were still queued: the
        event is read as late as possible, which loses no run (reading it has no effect of its
        own until every channel's event is read, and then the gate resumes all of them).  A
        real run (``tests/data/runs/barrier-during-recovery.jsonl``) showed it: the sink takes
        checkpoint 2's barrier of one source while re-sent records of the other are unread.

        With checkpoints during recovery (``cdr``) a subtask restored at a new parallelism first
        filters (``EndOfRecovery`` ends it) and then reads its channels as a running task does:
        each channel's recovered records before its new ones (``LocalInputChannel``'s
        ``toBeConsumedBuffers`` first in Flink 2.3.0), the channels in any order, since its gates
        request their partitions once filtering is done (``StreamTask.restoreStateAndGates``),
        not once their recovered state is consumed."""
        tasks = w.tasks
        channels = w.channels
        topo = self.topo
        is_blocked = self.barriers.is_blocked
        ts = tasks[t]
        ins = topo.inputs[t]
        if ts.status != RUNNING:
            return
        if ts.sending:
            out.append(AlignmentTimeout(t, ts.sending[0]))  # the sender's timer
        if not ins:
            return
        phase = 0
        hold = False  # with checkpoints during recovery: new data waits until every channel's recovered records are read
        if self.cdr:
            if ts.rescaled:  # filtering (NOT_READY): no recovered buffer is read yet, a priority barrier is declined
                out.append(EndOfRecovery(t))
                out.extend(Deliver(c) for c in ins if priority_index(channels[c]) >= 0)
                return
            hold = (not self.network_input.reads_new_data_while_recovering()
                    and self.network_input.is_recovering(channels, t))
        else:
            phase = self.network_input.recovery_phase(channels, t)
        if phase == RECOVERED_INPUT:
            if self.has_room(w, t):
                out.extend(Deliver(c) for c in ins if channels[c] and is_recovered(channels[c][0]))
            return
        if not phase and ts.rescaled:  # every EndOfChannelStateEvent is next: only a priority barrier overtakes one
            out.append(EndOfRecovery(t))
            out.extend(Deliver(c) for c in ins if priority_index(channels[c]) >= 0)
            return
        if phase:  # RECOVERED_OUTPUT: only the channels still re-sending are open
            room = None
            for c in ins:
                items = channels[c]
                prio = priority_index(items)
                if not any(is_recovered(x) for x in items):
                    if prio >= 0:  # it overtakes the channel's EndOfChannelStateEvent
                        out.append(Deliver(c))
                    continue
                if prio < 0:  # the head is a re-sent record
                    if room is None:
                        room = self.has_room(w, t)
                    if not room:
                        continue
                out.append(Deliver(c))
            return
        prio = [c for c in ins if priority_index(channels[c]) >= 0]
        if prio:
            out.extend(Deliver(c) for c in prio)
        else:
            room = None
            spanning = self.scope.spanning_records
            for c in ins:
                if not channels[c] or is_blocked(ts, topo.channels[c].input_index):
                    continue
                head = channels[c][0]
                if hold and not is_recovered(head):
                    continue
                if spanning and head[0] == REC and len(head) == 3:
                    out.append(ReadHead(c))
                if head[0] == REC:
                    if room is None:
                        room = self.has_room(w, t)
                    if not room:
                        continue
                out.append(Deliver(c))
        if not ts.uc and self.timeoutable[t]:
            if ts.aligning:
                out.append(AlignmentTimeout(t, ts.aligning))
            else:  # the timer counts from the checkpoint's start: an announcement started it
                cp = self.barriers.announced(channels, t, ts)
                if cp:
                    out.append(AlignmentTimeout(t, cp))
