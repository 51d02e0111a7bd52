"""What each action of the model may read or write, as a set of the world's locations: the
independence relation that partial-order reduction (``checks.engine.por``) is built on.  The
locations, and how the table is checked, are on ``Footprints``; the narrowing to a world, the
enabling sets and the mechanisms the table does not follow are on its methods.
"""

from __future__ import annotations

from functools import cached_property

from .actions import (ACTION_TYPES, Ack, AlignmentTimeout, AssignSplit, ChannelAction, Deliver, EmitRecord, EndOfInput, EndOfRecovery,
                      FinishReported, LastAck, LoseNotification, Notify, ReadHead, Restore, TaskAction, TriggerCheckpoint)
from .world import FAILED, OPEN, REC, World

#: the kinds of the actions a subtask takes itself, on its own inputs (``own_keys``)
TASK_KINDS = tuple(k for k in ACTION_TYPES.values() if issubclass(k, TaskAction))
CHANNEL_KINDS = tuple(k for k in ACTION_TYPES.values() if issubclass(k, ChannelAction))


class Footprints:
    """The footprints of one model configuration (one parallelism).

    A location is one bit of an int: a subtask's state (``TaskState`` without its inbox and
    without what the checkpoint plan reads: its status and end of input, ``status``), the head
    and the tail of its inbox, the head and the tail of each channel, a subtask's
    acknowledgements in flight, its external transactions, whether a transaction was committed,
    aborted or opened empty (``COMMIT``), the coordinator's pending state, its completed
    checkpoints (``STORE``), the fault budget, "some subtask failed", the shared-state registry.
    Two actions are independent when their footprints do not meet: each runs the same whether
    or not the other ran first.  A FIFO's head and tail are different locations: a consumer
    taking the head of a non-empty channel and a producer appending to it commute (``Deliver``
    is enabled only on a non-empty channel, and an append does not disable it), and so do a task
    reading its next RPC and the coordinator sending it another.  Checkpoint files are no
    location: a file is named (checkpoint, subtask), a snapshot adds its own, and only the
    coordinator deletes one, after the acknowledgement that carries it arrived (or with the
    checkpoint it belongs to), so the writes to different files commute and no rule reads them
    (the property that does, ``checkpoints-restorable``, reads the files of completed
    checkpoints, which only actions writing ``STORE`` or faults change).

    Abstraction: the table is stated per kind, not traced from the code; ``checks.engine.por``
    checks that each successor a reduced search computes changed nothing outside its action's
    footprint (a write the table does not list stops the search with an error naming the
    action), and the reduction is compared with the full search (the same verdicts and
    witnesses, ``tests/checks/engine/test_por.py``, ``benchmarks/por_bound.py``).  A read the table misses is
    caught only by the second check."""

    def __init__(self, model) -> None:
        self.model = model
        topo = model.topo
        n, m = topo.n_tasks, len(topo.channels)
        self.n, self.m = n, m
        base = 0

        def bits(k: int) -> list[int]:
            nonlocal base
            base += k
            return [1 << (base - k + i) for i in range(k)]

        self.st = bits(n)
        self.in_head = bits(n)
        self.in_tail = bits(n)
        self.head = bits(m)
        self.tail = bits(m)
        self.ack = bits(n)
        self.txn = bits(n)
        self.status = bits(n)  # what the checkpoint plan reads: status, ended, finish reports
        self.COORD = 1 << base
        self.BUDGET = 1 << (base + 1)
        self.FAILED = 1 << (base + 2)  # "some subtask is FAILED": what a Restore waits for
        self.REUSED = 1 << (base + 3)
        self.COMMIT = 1 << (base + 4)  # a transaction committed, aborted, or opened with no record
        self.STORE = 1 << (base + 5)  # the completed checkpoints, the stop's savepoint, a restore's failure
        self.EVERY = (1 << (base + 6)) - 1
        self.ALL_ST = sum(self.st)
        self.ALL_IN_TAIL = sum(self.in_tail)
        self.ALL_ACK = sum(self.ack)
        self.ALL_TXN = sum(self.txn)
        self.ALL_STATUS = sum(self.status)

    # -- what reaches further than the usual ----------------------------------------------------
    @cached_property
    def everything(self) -> bool:
        """Mechanisms whose effects the per-kind table does not follow: every action touches
        everything (no reduction).  Where a design or scope has a mechanism whose effects reach
        further than the table follows (regional checkpoints, the FLINK-4120 recovery, file
        merging, incremental checkpoints, NO_CLAIM restores, a stop with a savepoint, RPCs
        overtaking each other, pattern changes), every action touches everything (``EVERY``): no
        reduction there, rather than a wrong one."""
        d, s = self.model.design, self.model.scope
        return bool(d.regional_checkpoints or d.recovery != "latest" or d.file_merging or d.no_claim_restore or d.incremental_checkpoints
                    or s.stop_with_savepoint or s.rpcs_overtake or s.repattern)

    @cached_property
    def _stock_sink(self) -> bool:
        """Flink's 2PC sink as it is (a variant's sink may commit at a barrier)."""
        from .sinks import TwoPhaseCommitSink
        model = self.model
        return type(model.sink) is TwoPhaseCommitSink and model.design.sink_commit == "notify" and not any(model.sink_v2)

    def _outs(self, t: int) -> int:
        return sum(self.tail[c] for c in self.model.all_out[t])

    def _channels_of(self, t: int) -> int:
        topo = self.model.topo
        return sum(self.head[c] | self.tail[c] for c in topo.inputs[t] + self.model.all_out[t])

    @cached_property
    def _wide(self) -> bool:
        """Channels read beyond their ends: unaligned snapshots take channel contents, bounded
        channels and input buffers make a queue's length matter."""
        scope = self.model.scope
        return bool(self.model.unaligned or scope.channel_capacity or scope.input_buffers or scope.spanning_records)

    @cached_property
    def _data(self) -> list[int]:
        """Per subtask: what moving a record through it may touch: its state, its outputs'
        tails, a 2PC sink's transactions (every channel of it, whole, where ``_wide``)."""
        return self._data_of(self._wide)

    @cached_property
    def _data_quiet(self) -> list[int]:
        """``_data`` where no snapshot can be taken any more (``quiet``): a channel is read
        whole only where its length matters (bounded channels, input buffers)."""
        scope = self.model.scope
        return self._data_of(bool(scope.channel_capacity or scope.input_buffers))

    def _data_of(self, wide: bool) -> list[int]:
        model = self.model
        sink_v2 = bool(any(model.sink_v2))
        out = []
        for t in range(self.n):
            x = self.st[t] | self._outs(t)
            if model.two_pc[t]:
                x |= self.txn[t]
            if sink_v2:  # a committer commits its writers' transactions
                x |= self.ALL_TXN
            if wide:
                x |= self._channels_of(t)
            out.append(x)
        return out

    def quiet(self, w: World) -> bool:
        """Can no checkpoint activity happen any more from ``w``: no checkpoint pending or to be
        triggered (an unbounded job past its budget), no acknowledgement, RPC or barrier on its
        way, no snapshot under way, no fault, restore or rescale to come?  Then every action
        still possible moves records (or ends recovery), and the footprints narrow to that."""
        scope, used = self.model.scope, w.used
        if (scope.bounded or w.coord.next_id <= scope.max_checkpoints or w.coord.pending or w.acks
                or used.failures < scope.max_failures or used.declines < scope.max_declines
                or used.timeouts < scope.max_timeouts or used.rescales < scope.max_rescales or used.lost < scope.max_lost_notifications
                or used.jm_failovers < scope.max_jm_failovers):
            return False
        for ts in w.tasks:
            if ts.inbox or ts.uc or ts.sending or ts.status == FAILED or ts.replay:
                return False
        for items in w.channels:
            for x in items:
                if x[0] != REC:
                    return False
        return True

    @cached_property
    def _task(self) -> list[int]:
        """Per subtask: what any of its own actions (a delivery, an RPC it reads, a snapshot, a
        finish) may touch: ``_data`` and its status, its inbox's head, its acknowledgements, a
        sink's commits."""
        model, scope, design = self.model, self.model.scope, self.model.design
        out = []
        for t in range(self.n):
            x = self._data[t] | self.status[t] | self.in_head[t] | self.ack[t]
            if model.two_pc[t] or any(model.sink_v2):
                x |= self.COMMIT
            if scope.staggered_triggers:  # a barrier may take the trigger RPC out of the inbox
                x |= self.in_tail[t]
            if scope.instant_acks:  # the snapshot counts at the coordinator at once
                x |= self.COORD | self.ALL_IN_TAIL | self.ALL_ST | self.ALL_STATUS
            if scope.late_finish_reports or scope.rescaled_tasks_decline:
                x |= self.COORD
            out.append(x)
        return out

    # -- per action: each record states its own (``actions``) ---------------------------------------
    def touch(self, a, w: World | None = None, quiet: bool = False) -> int:
        """Every location ``a`` (an action, enabled or not) may read or write; with ``w``, the
        world ``a`` is enabled in, narrowed to what it does there: a record delivered changes
        nothing the checkpoint plan reads (neither the status nor the end of input), a barrier at
        Flink's 2PC sink commits nothing and finishes nothing, an acknowledgement that is not the
        last only adds itself to its pending checkpoint.  With
        ``quiet`` (``quiet(w)`` holds), what ``a`` may touch in a world from which no checkpoint
        activity can come.  The kinds the table does not follow (the faults, restores, rescales,
        stops, the coordinators' fallback) touch everything (``Action.touch``): a failover resets
        its region's tasks and channels.

        The footprints are over-approximations per action kind and subject (a subtask or a
        channel), so that an action not enabled yet is covered too: a reduction must know what an
        action that becomes enabled later may touch.  For an action enabled in a world they are
        narrowed to what it does there."""
        if self.everything:
            return self.EVERY
        return a.touch(self, w, quiet)

    def guard(self, a, quiet: bool = False) -> int:
        """What decides whether ``a`` is enabled: an action disabled now needs one of the actions
        writing there to become enabled (``nes`` gives a narrower necessary enabling set where one
        is known)."""
        if self.everything:
            return self.EVERY
        return a.guard(self, quiet)

    def _faults_to_come(self, w: World) -> bool:
        """May a fault, a rescale or a stop still come after ``w`` (each touches everything)?"""
        scope, used = self.model.scope, w.used
        return (used.failures < scope.max_failures or used.declines < scope.max_declines or used.timeouts < scope.max_timeouts
                or used.rescales < scope.max_rescales or used.lost < scope.max_lost_notifications or bool(scope.stop_with_savepoint)
                or used.jm_failovers < scope.max_jm_failovers)

    def _completion_nes(self, w: World, members) -> list | None:
        """A necessary enabling set of the pending checkpoint's completion: the acknowledgement
        of a subtask it waits for and has not received (preferably one already in ``members``).
        None when there is no single pending checkpoint."""
        pending = w.coord.pending
        if len(pending) != 1 or self.model.design.max_concurrent_checkpoints != 1:
            return None
        p = pending[0]
        acked = {t for t, _ in p.acked}
        missing = [t for t in range(self.n) if p.waiting >> t & 1 and t not in acked]
        if not missing:
            return None
        for t in missing:
            if (Ack, t) in members:
                return [(Ack, t)]
        return [(Ack, missing[0])]

    def own_keys(self, t: int) -> list:
        """The keys of the actions subtask ``t`` takes itself (a snapshot among them)."""
        topo = self.model.topo
        keys: list[tuple] = [(k, c) for k in CHANNEL_KINDS for c in topo.inputs[t]]
        keys += [(k, t) for k in TASK_KINDS]
        if t in topo.sources and not self.model.scope.staggered_triggers:
            keys.append((TriggerCheckpoint,))
        return keys

    def nes(self, a, w: World, members=()) -> list | None:
        """A necessary enabling set of ``a``, disabled in ``w``, as keys: every run that enables
        ``a`` takes one of them first.  None where the table has none narrower than ``guard``.

        Without faults to come, a completion notice, and a trigger that waits for the pending
        checkpoint, come only after the pending checkpoint's completion, which needs the
        acknowledgement of every subtask it waits for (``_completion_nes``); a subtask's
        acknowledgement needs its snapshot, one of its own actions."""
        model, scope = self.model, self.model.scope
        if (self.everything or self._faults_to_come(w) or scope.instant_acks or scope.staggered_triggers
                or scope.rescaled_tasks_decline or not model.design.checkpoints_after_tasks_finish):
            return None  # an abort may come from elsewhere: a trigger reaching a closed task, a decline, a finish
        kind = type(a)
        if kind is Ack:  # a new acknowledgement of the subtask comes from its own snapshot
            return self.own_keys(a.task)
        if kind is Notify or kind is TriggerCheckpoint:
            if kind is Notify and w.tasks[a.task].inbox:
                return None
            if not w.coord.pending:
                return [(TriggerCheckpoint,)] if kind is Notify else None
            return self._completion_nes(w, members)
        return None

    # -- what may still happen -------------------------------------------------------------------
    def universe(self, w: World, enabled: list) -> list:
        """Representatives of every action that may be enabled in ``w`` or after it (the enabled
        ones themselves among them): one per kind and subject that can still occur.  A fault
        whose budget is spent never comes back (budgets only grow); a restore needs a failed
        subtask or a fault to come."""
        from .actions import CoordinatorsFellBack, Decline, FailTask, JobManagerFailover, Rescale, Timeout, TriggerAfterClose

        model, scope, topo = self.model, self.model.scope, self.model.topo
        used = w.used
        out = list(enabled)
        if self.quiet(w):
            out.extend(Deliver(c.id) for c in topo.channels)
            if scope.spanning_records:
                out.extend(ReadHead(c.id) for c in topo.channels)
            out.extend(EmitRecord(t) for t in topo.sources)
            if scope.rescaled_tasks_decline:
                out.extend(EndOfRecovery(t) for t in range(self.n))
            return out
        out.extend(Deliver(c.id) for c in topo.channels)
        if scope.spanning_records:
            out.extend(ReadHead(c.id) for c in topo.channels)
        for t in topo.sources:
            out.append(EmitRecord(t))
            if scope.bounded:
                out.append(EndOfInput(t))
            if t in model.enumerator.readers:
                out.append(AssignSplit(t, 0))
        for t in range(self.n):
            out.append(Notify(t, 0, "trigger" if scope.staggered_triggers else "complete"))
            if not scope.instant_acks:
                out.append(Ack(t, 0))
            if scope.late_finish_reports:
                out.append(FinishReported(t))
            if scope.rescaled_tasks_decline:
                out.append(EndOfRecovery(t))
            if model.design.checkpoint_mode == "aligned-timeout":
                out.append(AlignmentTimeout(t, 0))
            if used.lost < scope.max_lost_notifications:
                out.append(LoseNotification(t, 0, "complete"))
        if scope.instant_acks:
            out.append(LastAck(0))
        faults = ((used.failures < scope.max_failures, FailTask(0)), (used.declines < scope.max_declines, Decline(0, 0)),
                  (used.timeouts < scope.max_timeouts, Timeout(0)), (used.rescales < scope.max_rescales, Rescale(0)),
                  (used.jm_failovers < scope.max_jm_failovers, JobManagerFailover(0)))
        coming = [f for ok, f in faults if ok]
        out.extend(coming)
        if any(isinstance(f, (FailTask, Decline, Timeout, Rescale, JobManagerFailover)) for f in coming) or any(ts.status == FAILED for ts in w.tasks):
            out.append(Restore(0))
        if scope.bounded or w.coord.next_id <= scope.max_checkpoints:  # a bounded job's final checkpoints come after the budget
            out.append(TriggerCheckpoint(0))
        if model.design.regional_checkpoints:
            out.append(CoordinatorsFellBack(0))
        if scope.staggered_triggers and used.declines < scope.max_declines:
            out.append(TriggerAfterClose(0, 0))
        return out

    # -- keys and writes -------------------------------------------------------------------------
    @staticmethod
    def key(a) -> tuple:
        """The kind and subject of ``a``: the actions that share it share a footprint."""
        return a.key()

    @staticmethod
    def single(a) -> bool:
        """Is ``a`` the only action of its key, whatever the world (no checkpoint id in it)?"""
        return a.single

    def written(self, s: World, t: World) -> int:
        """The locations in which ``t`` differs from ``s`` (a queue's head when only its first
        items went, its tail when only items were added at its end)."""
        x = 0
        if s.tasks is not t.tasks:
            for i, (a, b) in enumerate(zip(s.tasks, t.tasks)):
                if a is b or a == b:
                    continue
                if a.inbox != b.inbox:
                    x |= _queue_change(a.inbox, b.inbox, self.in_head[i], self.in_tail[i])
                if a._replace(inbox=()) != b._replace(inbox=()):
                    x |= self.st[i]
                if a.status != b.status or a.ended != b.ended or a.unreported != b.unreported or a.rescaled != b.rescaled:
                    x |= self.status[i]
        if s.channels is not t.channels:
            for c, (a, b) in enumerate(zip(s.channels, t.channels)):
                if a is not b and a != b:
                    x |= _queue_change(a, b, self.head[c], self.tail[c])
        if s.coord != t.coord:
            a, b = s.coord, t.coord
            if a.store != b.store or a.savepoint != b.savepoint or a.restore_failure != b.restore_failure:
                x |= self.STORE
            if a._replace(store=(), savepoint=(), restore_failure="") != b._replace(store=(), savepoint=(), restore_failure=""):
                x |= self.COORD
        if s.acks != t.acks:
            for task in {k[0] for k in set(s.acks).symmetric_difference(t.acks)}:
                x |= self.ack[task]
        if s.txns != t.txns:
            before = {(x_.task, x_.seq): x_ for x_ in s.txns}
            after = {(x_.task, x_.seq): x_ for x_ in t.txns}
            for k in before.keys() | after.keys():
                a, b = before.get(k), after.get(k)
                if a == b:
                    continue
                x |= self.txn[k[0]] if k[0] < self.n else self.EVERY
                if a is None or b is None or a.status != b.status or b.records[:len(a.records)] != a.records:
                    if not (a is None and b.status == OPEN and b.records):
                        x |= self.COMMIT  # not a record written into an open transaction
        if s.used != t.used:
            x |= self.BUDGET
        if s.reused != t.reused:
            x |= self.REUSED
        if any(ts.status == FAILED for ts in t.tasks) and not any(ts.status == FAILED for ts in s.tasks):
            x |= self.FAILED
        return x


def _queue_change(a: tuple, b: tuple, head: int, tail: int) -> int:
    """Which end of a FIFO queue changed from ``a`` to ``b``: its head (items taken from the
    front), its tail (items added at the end), or both."""
    if len(b) < len(a) and a[len(a) - len(b):] == b:
        return head
    if len(b) > len(a) and b[:len(a)] == a:
        return tail
    return head | tail
