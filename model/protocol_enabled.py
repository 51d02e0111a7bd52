"""What is enabled, a part of the protocol (``model.protocol.FlinkModel``): every action that
may happen next in a world, in a fixed order, progress first, then faults.

Which channel a running task may read next follows Flink's input side: ``CheckpointedInputGate``
(a channel blocked by alignment, ``CheckpointBarrierHandler.is_blocked``; priority events
first), ``RecordWriter.isAvailable`` (a full output backpressures the task,
``FlinkModel.has_room``), ``UpstreamRecoveryTracker`` and ``StreamTask.restoreStateAndGates``
(a restored gate reads its recovered state first).  The rest is asked of the components (the
coordinator's ``can_trigger`` and ``can_stop``, the failover's restore, rescale and resume, the
task's inbox); faults are offered within the scope's budget.
"""

from __future__ import annotations

from .actions import (Ack, Action, AlignmentTimeout, CoordinatorsFellBack, Decline, DeleteSnapshot, Deliver, EndOfRecovery, FailTask,
                      FinishReported, LastAck, LoseNotification, Notify, ReadHead, Rescale, Restore, ResumeFromSavepoint, StopWithSavepoint, Timeout,
                      TriggerAfterClose, TriggerCheckpoint)
from .task import priority_index
from .world import FAILED, FINISHED, NOTIFY_NAMES, NOTIFY_TRIGGER, REC, RECOVERED_INPUT, RUNNING, World, is_recovered


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


class EnabledMixin:
    """``FlinkModel.enabled``: the actions enabled in a world.  A mixin of ``FlinkModel``."""

    def enabled(self, w: World) -> list[Action]:
        """Every action enabled in ``w``, in a fixed order: progress first, then faults."""
        if w.used.rescales & 1 != self.config:
            return self.at(w).enabled(w)
        scope = self.scope
        out: list[Action] = []
        tasks = w.tasks
        self.source.enabled(w, out)
        if self.unaligned:
            self._enabled_unaligned(w, out)
        else:
            is_blocked = self.barriers.is_blocked
            cap = self.scope.channel_capacity
            deployed = self.failover.deployed if self.topo.blocking_output else None
            for ch in self.topo.channels:
                items = w.channels[ch.id]
                if not items:
                    continue
                ts = tasks[ch.consumer]
                if ts.status != RUNNING or is_blocked(ts, ch.input_index):
                    continue
                if deployed is not None and not deployed(w, ch.consumer):
                    continue
                if cap and items[0][0] == REC and not self.has_room(w, ch.consumer):
                    continue
                out.append(Deliver(ch.id))
        if self.coordinator.can_trigger(w):
            out.append(TriggerCheckpoint(w.coord.next_id))
        out.extend(CoordinatorsFellBack(p.id) for p in w.coord.pending if p.completing)
        if scope.instant_acks:
            for p in w.coord.pending:  # every task responded (regionally: acknowledged or declined)
                if len(p.acked) + bin(p.declined).count("1") == bin(p.waiting).count("1"):
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
        for t, ts in enumerate(tasks):
            if ts.unreported:
                out.append(FinishReported(t))
            if ts.inbox:
                kind, cp = ts.inbox[0][:2]
                out.append(Notify(t, cp, NOTIFY_NAMES[kind]))
                if ts.status == FINISHED:  # a trigger the JobManager sent before it saw the finish
                    continue
                if kind == NOTIFY_TRIGGER and w.used.declines < scope.max_declines and self.task.ready_to_finish(w, t):
                    out.append(TriggerAfterClose(t, cp))  # a decline: it takes the scope's decline budget
                if scope.rpcs_overtake:
                    k = overtaking(ts.inbox)
                    if k:
                        other, ocp = ts.inbox[k][:2]
                        out.append(Notify(t, ocp, NOTIFY_NAMES[other]))
                        if other == NOTIFY_TRIGGER and w.used.declines < scope.max_declines and self.task.ready_to_finish(w, t):
                            out.append(TriggerAfterClose(t, ocp))
        any_failed = any(ts.status == FAILED for ts in tasks)
        if w.coord.savepoint:  # the stop's savepoint completed: a failure now ends the job
            if self.failover.may_resume_from_savepoint(w):
                out.append(ResumeFromSavepoint(w.coord.savepoint.id))
        elif any_failed:
            out.append(Restore(self.failover.restore_checkpoint(w)))
        if self.coordinator.can_stop(w):
            out.append(StopWithSavepoint(w.coord.next_id))
        used = w.used
        if used.rescales < scope.max_rescales and self.failover.may_rescale(w):
            out.append(Rescale(w.coord.store[-1].id))
        # faults
        pending = w.coord.pending
        if pending and used.declines < scope.max_declines:
            if scope.instant_acks:  # an acknowledgement counted at once may still be one in flight
                for p in pending:
                    out.extend(Decline(t, p.id) for t, _ in p.acked if tasks[t].status == RUNNING)
            else:
                ids = {p.id for p in pending}
                for t, cp, _ in w.acks:
                    if cp in ids and tasks[t].status == RUNNING:
                        out.append(Decline(t, cp))
        if pending and used.timeouts < scope.max_timeouts:
            out.extend(Timeout(p.id) for p in pending if not p.completing)
        if used.failures < scope.max_failures and not any_failed:
            deployed = self.failover.deployed if self.topo.blocking_output else None
            for t, ts in enumerate(tasks):
                if ts.status == RUNNING and (deployed is None or deployed(w, t)):
                    out.append(FailTask(t))
        if used.lost < scope.max_lost_notifications:
            for t, ts in enumerate(tasks):
                if ts.inbox:
                    kind, cp = ts.inbox[0][:2]
                    # a lost trigger RPC is not modelled: it hides a checkpoint that can only
                    # time out because one task never heard of it (a timeout covers its effect)
                    if kind != NOTIFY_TRIGGER:
                        out.append(LoseNotification(t, cp, NOTIFY_NAMES[kind]))
        if self.design.no_claim_restore and self.store.may_delete_snapshot(w):
            out.append(DeleteSnapshot(1))
        return out

    def _enabled_unaligned(self, w: World, out: list[Action]) -> None:
        """Input actions with unaligned checkpoints on.  A subtask reads its recovered input
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
        checkpoint 2's barrier of one source while re-sent records of the other are unread."""
        tasks = w.tasks
        channels = w.channels
        topo = self.topo
        is_blocked = self.barriers.is_blocked
        for t, ts in enumerate(tasks):
            ins = topo.inputs[t]
            if ts.status != RUNNING:
                continue
            if ts.sending:
                out.append(AlignmentTimeout(t, ts.sending[0]))  # the sender's timer
            if not ins:
                continue
            phase = self.task.recovery_phase(channels, t)
            if phase == RECOVERED_INPUT:
                if self.has_room(w, t):
                    out.extend(Deliver(c) for c in ins if channels[c] and is_recovered(channels[c][0]))
                continue
            if not phase and ts.rescaled:  # every EndOfChannelStateEvent is next: only a priority barrier overtakes one
                out.append(EndOfRecovery(t))
                out.extend(Deliver(c) for c in ins if priority_index(channels[c]) >= 0)
                continue
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
                continue
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
