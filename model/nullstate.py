"""FLINK-4120, "lightweight fault tolerance through recomputing lost state": the null-state
checkpoint as a recovery strategy (design knob ``recovery = "null-state"``).

Nothing in Flink implements it (UC note E: only the JIRA text exists), so every rule here is the
seed's, read as literally as the model allows, and every place where the seed is silent is named,
on the method that decides it, as a choice of this model.
"""

from __future__ import annotations

from functools import cached_property

from .component import Component
from .topology import Role
from .tx import Tx
from .world import EMPTY_SNAPSHOT, REPLAY, Completed, Snapshot, World

NULL_STATE = "null-state"


class NullStateRecovery(Component):
    """FLINK-4120's recovery from a null-state checkpoint: one method per rule.

    The recovery is not modelled with the aligned-timeout mode, FLIP-600, rescaling, split
    enumerators or stop-with-savepoint (``design.knob_conflict``, ``protocol.scope_conflict``)."""

    @cached_property
    def active(self) -> bool:
        return self.design.recovery == NULL_STATE

    @cached_property
    def windows(self) -> tuple[int, ...]:
        """Per subtask: the size of its recomputable window (0: none)."""
        return tuple(self.topo.vertex(t).window for t in range(self.topo.n_tasks))

    # the operator ------------------------------------------------------------------------------
    def trim(self, t: int, processed: tuple) -> tuple:
        """A recomputable operator's state after a record: the last ``window`` records of each
        split (``processed`` is sorted, so a split's records are consecutive and in order).

        An operator vertex with ``window = k`` keeps this sliding count window.  Its state is never
        persisted: the checkpoint keeps it only as a ghost, for ``recomputed-state-matches`` to
        compare against.  Seed: "the operator state can be recomputed from a finite (practically:
        small) set of source records".

        Abstraction: the window is a count window per split (order-insensitive across splits, so
        the replay rebuilds it whatever the interleaving); an operator whose state depends on the
        interleaving of its inputs would not be rebuilt exactly, and the model does not check
        that."""
        k = self.windows[t]
        out = []
        for i, r in enumerate(processed):
            later = sum(1 for x in processed[i + 1:] if x[0] == r[0])
            if later < k:
                out.append(r)
        return tuple(out)

    def watermark(self, window: tuple) -> tuple:
        """The null-state watermark of a window: per split, the lowest offset it holds; a split with
        no record in it constrains nothing.  A record's offset is its event time.  Seed: "each
        stateful operator should report its 'current null-state watermark' as part of
        acknowledging the ongoing checkpoint"."""
        low: dict[int, int] = {}
        for sp, off in window:
            if sp not in low or off < low[sp]:
                low[sp] = off
        return tuple(sorted(low.items()))

    def reported_watermark(self, tx: Tx, t: int, snap: Snapshot) -> tuple:
        """The watermark a recomputable operator reports with its acknowledgement: the one of
        the state it snapshotted.  The seed's "current" could also mean the state when the
        acknowledgement leaves, which the catalog entry ``null-state-watermark-at-acknowledgement``
        shows is wrong."""
        return self.watermark(snap.processed)

    def on_acknowledge(self, tx: Tx, t: int, snap: Snapshot) -> Snapshot:
        """The coordinator receives task ``t``'s acknowledgement: a recomputable operator's
        carries its null-state watermark."""
        if not self.windows[t] or snap.finished:
            return snap
        return snap._replace(watermark=self.reported_watermark(tx, t, snap))

    # the coordinator and the store -------------------------------------------------------------
    def positions(self, c: Completed | None) -> dict[int, int]:
        """Where a recovery from ``c`` (``None``: the job's start) resumes each split."""
        if c is None:
            return {self.topo.split_of[t]: 0 for t in self.topo.sources}
        return self.source.restore_positions(c)

    def in_flight(self, c: Completed, t: int) -> tuple:
        """The records checkpoint ``c`` holds as channel state on their way to task ``t``
        (unaligned checkpoints: on a channel into ``t`` or into a vertex upstream of it), which
        ``t`` processes only after ``c``'s barrier passed it: none with aligned checkpoints.

        Unaligned checkpoints break the seed's stated assumption ("the pipeline preserves the
        relative order of barriers and watermarks"): a barrier overtakes records, which the
        checkpoint then holds as channel state.  The replay re-sends them, so a recovery restores
        no channel state; a recomputable operator's state there is its state plus the records in
        flight to it (``state_at``), its null-state watermark must reach back to those records
        (``in_flight_watermark``), and a sink must take the replayed records the barrier overtook
        on their way to it although they precede the re-inserted barrier (``kept_in_replay``): its
        state does not hold them.  Neither rule is in the seed; the catalog entries
        ``null-state-unaligned-*`` show what each prevents."""
        if not self.model.unaligned:
            return ()
        topo = self.topo
        v = topo.vertex_of[t]
        on_the_way = {ch.id for ch in topo.channels
                      if ch.consumer == t or v in topo.downstream_vertices[topo.vertex_of[ch.consumer]]}
        return tuple(sorted({(x[1], x[2]) for cid, items in self.assignment.channel_state(c).items()
                             if cid in on_the_way for x in items}))

    def in_flight_watermark(self, c: Completed, t: int) -> tuple:
        """What the records in flight to recomputable task ``t`` add to its null-state watermark
        in checkpoint ``c``: their effect is part of the state the checkpoint stands for, so the
        replay must reach back to them too."""
        return self.watermark(self.in_flight(c, t))

    def null_state_checkpoint(self, store: tuple, cp: int, snaps: tuple, in_flight: bool = True) -> int:
        """The null-state checkpoint of checkpoint ``cp`` completing with ``snaps``: the newest
        of the retained checkpoints, ``cp`` itself and the job's start (0) that precedes every
        reported watermark (and, with unaligned checkpoints, every record in flight to a
        recomputable operator, ``in_flight_watermark``; ``in_flight`` false leaves those out,
        for the witness that they mattered).  Seed: "the most recent checkpoint preceding all the
        received null-state watermarks"; the job's start has every split at offset 0.  The
        coordinator computes it when ``cp`` completes (``Completed.null_state``)."""
        latest = Completed(cp, snaps, ())
        marks = [m for s in snaps if s.watermark for m in s.watermark]
        if self.model.unaligned and in_flight:
            marks += [m for t, s in enumerate(snaps) if self.windows[t] and not s.finished
                      for m in self.in_flight_watermark(latest, t)]
        for c in (latest,) + tuple(reversed(store)):
            pos = self.positions(c)
            if all(pos[sp] <= off for sp, off in marks):
                return c.id
        return 0

    def retained_for_recovery(self, store: tuple) -> tuple[int, ...]:
        """The checkpoints the store must keep beyond its own retention: the latest one's
        null-state checkpoint, which a recovery restarts from.  The store keeps it as long as that
        checkpoint is the latest."""
        if not self.active or not store or not store[-1].null_state:
            return ()
        return (store[-1].null_state,)

    def replaying(self, w: World) -> bool:
        """Is a re-inserted barrier still on its way?  Then no checkpoint is triggered.

        A choice of this model (the seed is silent): a checkpoint taken then would mix the latest
        checkpoint's sink state with sources before its positions."""
        return self.active and any(ts.replay for ts in w.tasks)

    # recovery ------------------------------------------------------------------------------------
    def null_checkpoint(self, store: tuple) -> Completed | None:
        """The latest checkpoint's null-state checkpoint N (FLINK-4120's "most recent checkpoint
        preceding all the received null-state watermarks", ``Completed.null_state``) as the store
        holds it (snapshots, files, positions), or ``None``: N is the job's start, or the store
        no longer holds it (``plan`` then refuses the recovery)."""
        n = store[-1].null_state if store else 0
        return next((c for c in store if c.id == n), None) if n else None

    def plan(self, store: tuple) -> tuple[int, dict[int, int], dict[int, int]] | str:
        """The recovery from the latest checkpoint L: (L, N's positions, L's positions), or why
        it cannot run (its null-state checkpoint is gone).  Every task restarts
        (``failover_strategy = "full"``): sources resume at N's positions and re-insert L's
        barrier as ``(REPLAY, L)`` when they reach L's positions (``reinsert_position``);
        recomputable operators start empty; every other task gets its state from L as in Flink
        (a 2PC sink recovers and commits L's transactions)."""
        latest = store[-1]
        n = latest.null_state
        older = self.null_checkpoint(store)
        if n and older is None:
            return (f"recovering checkpoint {latest.id} needs its null-state checkpoint {n}, which the store no"
                    f" longer holds")
        return latest.id, self.positions(older), self.positions(latest)

    def reinsert_position(self, split: int, start: int, original: int) -> int:
        """Where a source re-inserts the latest checkpoint's barrier: at its original
        position.  Seed: "the barriers belonging to that checkpoint must be inserted into the source
        streams in the position they were originally inserted"."""
        return original

    def discards(self, t: int) -> bool:
        """Does task ``t`` drop records until the re-inserted barrier reached it?  Every task
        restored from the latest checkpoint whose state holds the replayed records' effects:
        sinks, Sink V2 writers (their transactions), other stateful operators.  The seed names
        only sinks ("Sinks must discard all records until this barrier reaches them"); a stateful
        operator restored from the latest checkpoint must do the same or count a record twice."""
        return self.model.stateful[t] and not self.windows[t] or self.model.sink_v2[t] == "writer"

    @staticmethod
    def drops(ts, r: tuple) -> bool:
        """Does a non-source task in state ``ts`` drop replayed record ``r`` unread: it discards
        until the re-inserted barrier and ``r`` is not one it still takes?"""
        return bool(ts.replay) and ts.replay[2] and r not in ts.replay[1]

    def kept_in_replay(self, c: Completed, t: int) -> tuple:
        """The replayed records a discarding task ``t`` still takes before the re-inserted
        barrier: the ones checkpoint ``c`` holds in flight to it (unaligned checkpoints: the
        barrier overtook them, so ``t``'s state in ``c`` does not hold them)."""
        return self.in_flight(c, t)

    def restored_state(self, t: int, snap: Snapshot, plan, null_checkpoint: Completed | None = None) -> Snapshot:
        """The state task ``t`` restarts with (FLINK-4120: "restarting the pipeline
        from a checkpoint taken before the pipeline ingested any of the records required"): a
        source at the null-state checkpoint's position, a recomputable operator empty, any other
        task its state in the latest checkpoint, ``snap`` (empty where it had finished).
        ``null_checkpoint`` is the null-state checkpoint as the store holds it, ``None`` for the
        job's start (``null_checkpoint``): the default reads only its positions, from ``plan``.

        A choice of this model (the seed is silent): sources and operators restart as running
        tasks even where they had finished in the latest checkpoint (FLIP-147's
        FINISHED_ON_RESTORE would skip the replay); a task that finished there restarts with the
        empty state FLIP-147 keeps for it."""
        _, start, _ = plan
        if self.model.roles[t] is Role.SOURCE:
            return EMPTY_SNAPSHOT._replace(position=start[self.topo.split_of[t]])
        if self.windows[t] or snap.finished:
            return EMPTY_SNAPSHOT
        return snap

    def start_replay(self, tx: Tx, t: int, snap: Snapshot, plan) -> None:
        """Put restored task ``t`` into replay: a source re-inserts the barrier at once if it
        resumes at the barrier's position."""
        cp, start, original = plan
        ts = tx.tasks[t]
        if self.model.roles[t] is Role.SOURCE:
            sp = self.topo.split_of[t]
            tx.tasks[t] = ts._replace(replay=(cp, self.reinsert_position(sp, start[sp], original[sp])))
            self.maybe_reinsert(tx, t)
            return
        latest = tx.coord.store[-1]
        if self.windows[t]:
            tx.tasks[t] = ts._replace(replay=(cp, () if snap.finished else self.state_at(latest, t), False))
        elif self.discards(t):
            tx.tasks[t] = ts._replace(replay=(cp, self.kept_in_replay(latest, t), True))
        else:
            tx.tasks[t] = ts._replace(replay=(cp, (), False))

    def state_at(self, c: Completed, t: int) -> tuple:
        """The state recomputable operator ``t`` stands for in checkpoint ``c``: its state there
        once it processed the records in flight to it (``in_flight``), which is what the replay
        up to the re-inserted barrier rebuilds."""
        held = c.snapshots[t].processed
        flight = self.in_flight(c, t)
        return self.trim(t, tuple(sorted(set(held).union(flight)))) if flight else held

    def maybe_reinsert(self, tx: Tx, t: int) -> None:
        """A source that reached the position of the barrier it re-inserts emits it."""
        ts = tx.tasks[t]
        if ts.replay and ts.position >= ts.replay[1]:
            tx.push(self.model.all_out[t], (REPLAY, ts.replay[0]))
            tx.tasks[t] = ts._replace(replay=())

    def on_barrier(self, tx: Tx, t: int, cp: int, bit: int) -> None:
        """The re-inserted barrier on one input: the input blocks until every input delivered
        it; then a recomputable operator's state is what the checkpoint held (else the ghost
        ``recomputed`` records the difference; not for one that had finished in it, whose state
        FLIP-147 discarded and which only ends again), the task leaves replay and forwards it.
        Each non-source task aligns the re-inserted barrier over its inputs as an aligned barrier."""
        ts = tx.tasks[t]
        blocked = ts.blocked | bit
        if (blocked | ts.eop) != self.model.all_inputs_mask[t]:
            tx.tasks[t] = ts._replace(blocked=blocked)
            return
        recomputed = ts.recomputed
        replayed = next((c for c in tx.coord.store if c.id == cp), None)
        finished = replayed is not None and replayed.snapshots[t].finished  # its state is gone for good: it only ends again
        if self.windows[t] and ts.processed != ts.replay[1] and not finished:
            recomputed = (cp, ts.processed, ts.replay[1])
        tx.tasks[t] = ts._replace(blocked=0, replay=(), recomputed=recomputed)
        tx.push(self.model.all_out[t], (REPLAY, cp))
