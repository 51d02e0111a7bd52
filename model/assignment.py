"""Restoring a checkpoint at another parallelism: Flink's ``StateAssignmentOperation`` (which
old state handles each new subtask gets, mechanics notes 3,
UC note B.2) and the task side of channel-state recovery (B.3:
``SequentialChannelStateReaderImpl`` routing, ``RescalingStreamTaskNetworkInput``'s virtual
channels and its ``RecordFilter``).  A checkpoint taken at one parallelism is restored at another
after a ``Rescale`` (and after any failure before a checkpoint completes at the new parallelism);
each kind of state's rule and each abstraction is on the method that applies it.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from .component import Component, follows
from .keygroups import operator_index_for_key_group
from .partitioner import custom_channel, record_key_group
from .redistribution import (
    SPLIT_DISTRIBUTE,
    ambiguous_targets,
    UnsupportedRescaleError,
    check_channel_state_restore,
    invert_mapping,
    key_group_range,
    input_side_redistributes,
    reassign_channel_state,
    reassign_keyed_state,
    repartition_operator_state,
    rescale_mappings,
)
from .topology import Pattern, StateKind
from .world import EMPTY_SNAPSHOT, FINISHED_SNAPSHOT, REC, RECOVERED_INPUT, RECOVERED_OUTPUT, Completed, Snapshot

if TYPE_CHECKING:  # pragma: no cover
    from .protocol import FlinkModel
    from .topology import Edge


# A virtual channel's deserializer that starts mid-record (or continues a head with another
# record's bytes) reads garbage; the exception Flink throws then depends on those bytes (not
# confirmed from FLINK-35351's thread, which quotes none), so the model names the cause.
CORRUPT_RECORD = "corrupt record stream (a deserializer reads a record's parts apart)"


class RestoreFailure(Exception):
    """A restore that Flink refuses or that fails on the task managers: the job cannot be
    deployed from the checkpoint at this parallelism.  The message is Flink's exception: a
    rescaled edge with an UNSUPPORTED mapper and in-flight data (``UnsupportedOperationException``,
    ``StateAssignmentOperation.check_restore``), or an output buffer routed to a subtask that has
    no virtual channel for its old subpartition (``DemultiplexingRecordDeserializer.select``:
    "Cannot select SubtaskConnectionDescriptor", ``route_edge``), or, with spanning records, a
    record whose head and tail reach different subtasks (``join_parts``).
    ``FailoverStrategy.restore`` then deploys nothing and ``restores-succeed`` reports it."""


def edge_mappers(e: "Edge") -> tuple[str, str]:
    """(upstream, downstream) ``SubtaskStateMapper`` of an edge's partitioner:
    ``KeyGroupStreamPartitioner`` ARBITRARY / RANGE, ``RebalancePartitioner`` ARBITRARY /
    ROUND_ROBIN (the upstream default is ``StreamPartitioner.getUpstreamSubtaskStateMapper``),
    ``CustomPartitionerWrapper`` ARBITRARY / FULL ("fully rely on filtering downstream"),
    ``ForwardPartitioner`` and ``RescalePartitioner`` (POINTWISE) UNSUPPORTED on both sides."""
    if e.pattern is Pattern.POINTWISE:
        return "UNSUPPORTED", "UNSUPPORTED"
    return "ARBITRARY", {"hash": "RANGE", "custom": "FULL"}.get(e.partitioner, "ROUND_ROBIN")


class StateAssignmentOperation(Component):
    """``StateAssignmentOperation`` and the task-side routing and filtering of recovered
    channel state, for a restore of a checkpoint taken at another parallelism."""

    def __init__(self, model: "FlinkModel"):
        super().__init__(model)
        self._memo: dict = {}

    def _memoised(self, key, compute):
        """``compute()`` once per key; a ``RestoreFailure`` it raises is remembered and raised
        again."""
        memo = self._memo
        if key not in memo:
            if len(memo) > 4096:
                memo.clear()
            try:
                memo[key] = compute()
            except RestoreFailure as e:
                memo[key] = e
        got = memo[key]
        if isinstance(got, RestoreFailure):
            raise got
        return got

    # -- operator and keyed state ---------------------------------------------------------------
    def snapshots(self, c: Completed) -> tuple[Snapshot, ...]:
        """Per subtask of this parallelism, the state a restore of ``c`` gives it: ``c``'s own
        snapshots when ``c`` was taken at this parallelism, else the redistributed ones."""
        old = self.model.model_of(c)
        if old is self.model:
            return c.snapshots
        return self._memoised(("snapshots", c), lambda: self._assign(c, old))

    def _assign(self, c: Completed, old: "FlinkModel") -> tuple[Snapshot, ...]:
        out: list[Snapshot] = []
        for k, v in enumerate(self.topo.job.vertices):
            olds = [c.snapshots[t] for t in old.topo.tasks_of[k]]
            if len(olds) == v.parallelism:
                out.extend(s._replace(inputs=(), outputs=()) for s in olds)
                continue
            out.extend(self.repartition_vertex(k, olds, [old.gid[t] for t in old.topo.tasks_of[k]]))
        return tuple(out)

    def repartition_vertex(self, k: int, olds: list[Snapshot], old_gids: list[int]) -> list[Snapshot]:
        """The snapshots of vertex ``k``'s new subtasks from its old subtasks' ``olds``, for a
        vertex whose parallelism changed: keyed state by key group (``keyed``), any other state of
        a stateful subtask as operator list state (``even_split``).  A 2PC sink's state is
        ``TwoPhaseCommitSinkFunction``'s operator list state, one entry per old subtask (its
        pending transactions and its open one): the new subtask that gets an entry commits its
        pending transactions and aborts the open ones of that old subtask (``initializeState``:
        ``recoverAndCommitInternal`` / ``recoverAndAbort``).

        Abstraction: union and broadcast state are not redistributed here (``Scope`` refuses to
        rescale a vertex with union state; the redistribution functions themselves are checked on
        their own).  Sources are not rescaled."""
        v = self.topo.job.vertices[k]
        new_p = v.parallelism
        gone = tuple(sorted({r for s in olds for r in s.discarded}))  # the ghost goes along, to the first subtask
        if all(s.finished for s in olds):
            return [FINISHED_SNAPSHOT._replace(discarded=gone)] + [FINISHED_SNAPSHOT] * (new_p - 1)
        if any(s.finished for s in olds):  # pragma: no cover - Rescale is not enabled then
            raise ValueError(f"{v.name} is partially finished in the checkpoint: it cannot be rescaled")
        first = self.topo.tasks_of[k][0]
        if not self.model.stateful[first]:
            return [EMPTY_SNAPSHOT] * new_p
        if StateKind.KEYED in v.state:
            processed = self.keyed(v.max_p, new_p, olds, self.scope.keys_per_split)
        else:
            processed = self.even_split([s.processed for s in olds], new_p)
        if self.model.two_pc[first]:
            entries = self.even_split([((g, s.pending),) for g, s in zip(old_gids, olds)], new_p)
            sink = []
            for i, got in enumerate(entries):
                owners = tuple(g for g, _ in got) or (self.model.gid[self.topo.tasks_of[k][i]],)
                pending = tuple((cp, seq, g) for g, ps in got for cp, seq in ps)
                sink.append((owners, pending))
        else:
            sink = [((), ())] * new_p
        return [
            Snapshot(False, 0, tuple(sorted(processed[i])), sink[i][1], owners=sink[i][0], discarded=() if i else gone)
            for i in range(new_p)
        ]

    @staticmethod
    @follows("StateAssignmentOperation.reDistributeKeyedStates")
    def keyed(max_p: int, new_p: int, olds: list[Snapshot], keys: int = 0) -> list[list]:
        """``reDistributeKeyedStates``: new subtask i gets, from each old subtask, the records of
        the key groups in the intersection of their ranges.  This is the rule of keyed state
        (``StateKind.KEYED``; ``reassign_keyed_state``)."""
        old_ranges = [key_group_range(max_p, len(olds), o) for o in range(len(olds))]
        out = []
        for got in reassign_keyed_state(old_ranges, max_p, new_p):
            mine: list = []
            for o, (lo, hi) in got:
                mine.extend(r for r in olds[o].processed if lo <= record_key_group(r[0], r[1], max_p, keys) <= hi)
            out.append(mine)
        return out

    @staticmethod
    @follows("RoundRobinOperatorStateRepartitioner.repartitionState")
    def even_split(lists: list, new_p: int) -> list[list]:
        """``RoundRobinOperatorStateRepartitioner`` for one ``SPLIT_DISTRIBUTE`` list state whose
        old subtasks wrote ``lists``: new subtask i gets its slice of the concatenation
        (``repartition_operator_state``).  Any state of a stateful subtask that is not keyed is
        such operator list state."""
        old = [[(f"h{i}", {"s": (SPLIT_DISTRIBUTE, tuple(range(len(lst))))})] for i, lst in enumerate(lists)]
        out = []
        for handles in repartition_operator_state(old, len(lists), new_p):
            got: list = []
            for name, states in handles:
                entries = lists[int(name[1:])]
                for _, offsets in states.values():
                    got.extend(entries[j] for j in offsets)
            out.append(got)
        return out

    def fallback_state(self, fallback: Completed, t: int) -> tuple[Snapshot, set]:
        """FLIP-600: the state a declined subtask ``t`` takes from the fallback checkpoint, and
        the files it refers to.  Taken at this parallelism: the fallback's snapshot of ``t``.
        Taken at another one: the state ``t`` was restored with (its redistributed share, which
        refers to the files of every old subtask of its vertex), as the thread settled (Roman,
        29 Jun 2026: "the restored (redistributed) assignment has to be retained until the first
        checkpoint completes at the new parallelism")."""
        old = self.model.model_of(fallback)
        if old is self.model:
            return fallback.snapshots[t], {f for f in fallback.files if f[1] == t}
        k = self.topo.vertex_of[t]
        olds = set(old.topo.tasks_of[k])
        return self.snapshots(fallback)[t], {f for f in fallback.files if f[1] in olds}

    # -- channel state --------------------------------------------------------------------------
    def channel_state(self, c: Completed) -> dict[int, tuple]:
        """Per channel of this parallelism, what a restore of ``c`` puts into it before any new
        data (UC note B.1): the consumer's recovered input state (marked
        ``RECOVERED_INPUT``, read first), then the producer's recovered output state (marked
        ``RECOVERED_OUTPUT``, which ends the gate's recovery once read on every channel)."""
        return self._channels(c)[0]

    def filtered(self, c: Completed) -> int:
        """How many replicated copies of ``c``'s channel-state records the ``RecordFilter``
        dropped when ``c`` is restored at this parallelism."""
        return self._channels(c)[1]

    def _channels(self, c: Completed) -> tuple[dict[int, tuple], int]:
        old = self.model.model_of(c)
        self.check_restore(c, old)
        if old is self.model:
            return self._memoised(("channels", c), lambda: (self._own_channels(c), 0))
        return self._memoised(("channels", c), lambda: self._rescaled_channels(c, old))

    def state_mappers(self, ek: int, old: "FlinkModel") -> tuple[str, str]:
        """The (upstream, downstream) ``SubtaskStateMapper`` a restore asks for edge ``ek``: its
        partitioner's in the job being restored (``JobEdge.get*SubtaskStateMapper``)."""
        return edge_mappers(self.topo.job.edges[ek])

    def in_flight(self, c: Completed, old: "FlinkModel") -> tuple[bool, ...]:
        """Per edge: does ``c`` hold channel state on it (input state on its consumers' gate or
        output state on its producers' partition)?"""
        otopo = old.topo
        got = [False] * len(otopo.job.edges)
        for ch in otopo.channels:
            inp = c.snapshots[ch.consumer].inputs
            outp = c.snapshots[ch.producer].outputs
            if (inp and inp[ch.input_index]) or (outp and outp[old.all_out[ch.producer].index(ch.id)]):
                got[ch.edge] = True
        return tuple(got)

    def input_redistributes(self, v: int, old: "FlinkModel") -> bool:
        """``input_side_redistributes`` for vertex ``v`` of this job restored from ``old``'s."""
        job = self.topo.job
        gates = [ek for ek, e in enumerate(job.edges) if self.vidx[e.target] == v]
        return input_side_redistributes(
            len(old.topo.tasks_of[v]), len(self.topo.tasks_of[v]), tuple(self.state_mappers(ek, old)[1] for ek in gates),
            tuple(len(self.topo.tasks_of[self.vidx[job.edges[ek].source]]) for ek in gates))

    def check_restore(self, c: Completed, old: "FlinkModel") -> None:
        """Raise ``RestoreFailure`` where Flink's channel-state assignment throws on this restore
        (``check_channel_state_restore``: an UNSUPPORTED mapper asked, at a rescale or, through
        FLINK-35351's vertex-wide rule and the descriptors' spreading, without one)."""
        in_flight = self.in_flight(c, old)
        if not any(in_flight):
            return
        job = self.topo.job
        edges = tuple((self.vidx[e.source], self.vidx[e.target], *self.state_mappers(ek, old)) for ek, e in enumerate(job.edges))
        ps = lambda m: tuple(len(m.topo.tasks_of[v]) for v in range(len(job.vertices)))  # noqa: E731
        try:
            check_channel_state_restore(ps(old), ps(self.model), edges, in_flight)
        except UnsupportedRescaleError as err:
            raise RestoreFailure(f"UnsupportedOperationException: {' '.join(str(err).split())}") from None

    @follows("TaskStateAssignment.distributeOutputBuffersToDownstream")
    def output_state_marker(self) -> int:
        """How a restore puts a producer's output channel state into a channel: re-sent by the
        producer after the consumer read its own recovered input (``RECOVERED_OUTPUT``, the
        gate's ``UpstreamRecoveryTracker`` phase), or, with ``recover_output_on_downstream``
        (Flink 2.3.0, FLINK-38542), read by the consumer as part of its recovered input
        (``RECOVERED_INPUT``): ``TaskStateAssignment.distributeOutputBuffersToDownstream`` turns
        each ``ResultSubpartitionStateHandle`` into an ``InputChannelStateHandle`` of the
        downstream subtasks its rescaling mapping names, and clears the producer's own output
        state.

        Abstraction: the buffer keeps the channel it was re-sent on here, (new producer, new
        consumer), where Flink files it under the channel of its old producer in the consumer's
        gate; both are read before any new data, so only the order among recovered records of
        different channels differs, which no property reads.  The consumer reads its own input
        state first, then the producer's output state, as ``readInputData``'s two passes do.  On
        POINTWISE edges (``PointwiseStateAssignment``) the records go where the producer's
        re-sending would have sent them (its primary-producer rule), not by PR #28523's own
        downstream distribution (``distributePointwiseOutputBufferToDownstream``), which the model
        does not follow yet: a routing that rule gets wrong and the re-sending gets right is
        hidden there."""
        return RECOVERED_INPUT if self.design.recover_output_on_downstream else RECOVERED_OUTPUT

    def _own_channels(self, c: Completed) -> dict[int, tuple]:
        all_out = self.model.all_out
        names = self.topo.names
        marker = self.output_state_marker()
        out = {}
        for ch in self.topo.channels:
            inp = c.snapshots[ch.consumer].inputs
            outp = c.snapshots[ch.producer].outputs
            ins = inp[ch.input_index] if inp else ()
            outs = outp[all_out[ch.producer].index(ch.id)] if outp else ()
            if (ins and len(ins[-1]) == 3) or (outs and len(outs[0]) == 3):
                [(_, _, ins)], [(_, _, outs)] = self.join_parts(
                    [(0, 0, ins)], [(0, 0, outs)],
                    lambda _k: f"{names[ch.consumer]} on {self.topo.channel_name(ch.id)}")
            recovered = tuple((REC, r[0], r[1], RECOVERED_INPUT) for r in ins)
            resent = tuple((REC, r[0], r[1], marker) for r in outs)
            if recovered or resent:
                out[ch.id] = recovered + resent
        return out

    def _rescaled_channels(self, c: Completed, old: "FlinkModel") -> tuple[dict[int, tuple], int]:
        topo, otopo = self.topo, old.topo
        job = topo.job
        new_id = {(ch.edge, topo.index_of[ch.producer], topo.index_of[ch.consumer]): ch.id for ch in topo.channels}
        recovered: dict[int, list] = {}
        resent: dict[int, list] = {}
        dropped = 0
        for ek, e in enumerate(job.edges):
            up, down = self.vidx[e.source], self.vidx[e.target]
            up_old, down_old = len(otopo.tasks_of[up]), len(otopo.tasks_of[down])
            ins: list[list] = [[] for _ in range(down_old)]  # per old consumer: (old producer, records)
            outs: list[list] = [[] for _ in range(up_old)]  # per old producer: (old consumer, records)
            for ch in otopo.channels:
                if ch.edge != ek:
                    continue
                u, d = otopo.index_of[ch.producer], otopo.index_of[ch.consumer]
                inp = c.snapshots[ch.consumer].inputs
                if inp and inp[ch.input_index]:
                    ins[d].append((u, inp[ch.input_index]))
                outp = c.snapshots[ch.producer].outputs
                if outp:
                    recs = outp[old.all_out[ch.producer].index(ch.id)]
                    if recs:
                        outs[u].append((d, recs))
            if not any(ins) and not any(outs):
                continue  # NO_STATE: the mapper is never called (FLINK-38267)
            to_inputs, to_outputs, lost = self.route_edge(ek, c, old, ins, outs)
            dropped += lost
            for into, marker, routed in ((recovered, RECOVERED_INPUT, to_inputs), (resent, self.output_state_marker(), to_outputs)):
                for u2, d2, recs in routed:
                    cid = new_id.get((ek, u2, d2))
                    if cid is None:  # a mutant's write to a downstream its writer is not connected to
                        continue
                    into.setdefault(cid, []).extend((REC, r[0], r[1], marker) for r in recs)
        merged = {cid: tuple(recovered.get(cid, ())) + tuple(resent.get(cid, ())) for cid in set(recovered) | set(resent)}
        return merged, dropped

    @cached_property
    def vidx(self) -> dict[str, int]:
        return {v.name: k for k, v in enumerate(self.topo.job.vertices)}

    def route_edge(self, ek: int, c: Completed, old: "FlinkModel", ins: list, outs: list) -> tuple[list, list, int]:
        """Where the channel state of edge ``ek`` goes at a restore of ``c`` (taken by ``old``)
        at this parallelism: ``ins[d]`` is old consumer d's input state per old producer,
        ``outs[u]`` old producer u's output state per old consumer.  Returns the recovered
        input and the re-sent output as ``(new producer, new consumer, records)`` and how many
        replicated records the ``RecordFilter`` dropped (``TaskStateAssignment``'s mappers, then
        the task side's virtual channels).  Raises ``RestoreFailure`` where Flink refuses.

        Channel state (unaligned checkpoints) is redistributed per edge with the edge's mappers
        (``getUpstreamSubtaskStateMapper`` / ``getDownstreamSubtaskStateMapper``): the consumer's
        input state by the downstream mapper, each buffer then on the channel of every new
        producer that inherited its old producer; the producer's output state by the upstream
        mapper, each buffer then on the subpartition of every new consumer that inherited its old
        consumer (UC note B.3).  A record that an ambiguous mapper (RANGE, FULL) replicated is kept
        only by the consumer the new partitioner routes it to (``RecordFilter``, ``keeps``).

        Abstraction: virtual channels are not kept apart: buffers of different old channels are
        concatenated, old consumer by old consumer, so the model reads them in one of the orders
        Flink can (per-key order across old channels is not guaranteed by Flink either); only a
        record held in two parts (spanning records) is put together per virtual channel, where
        Flink's deserializer of that channel would read it (``join_parts``)."""
        topo, otopo = self.topo, old.topo
        job = topo.job
        e = job.edges[ek]
        up, down = self.vidx[e.source], self.vidx[e.target]
        up_old, up_new = len(otopo.tasks_of[up]), len(topo.tasks_of[up])
        down_old, down_new = len(otopo.tasks_of[down]), len(topo.tasks_of[down])
        up_mapper, down_mapper = self.state_mappers(ek, old)  # an UNSUPPORTED one has failed the restore (check_restore)
        up_map = self.mapping(up_mapper, up_old, up_new)
        # FLINK-35351: a consumer at unchanged parallelism that still redistributes its input
        # state gets the FULL mapping, virtual channels and the filter on that gate
        # (``TaskStateAssignment.getInputMapping``; UC note B.2)
        redistributes = self.input_redistributes(down, old)
        full = down_old == down_new and redistributes
        down_map = rescale_mappings(down_mapper, down_old, down_new)[0] if full else self.mapping(down_mapper, down_old, down_new)
        up_inv = invert_mapping(up_map, up_old)
        descriptor = (down_old != down_new or full) and self.has_rescaling_descriptor(down, c, old)
        ambiguous = ambiguous_targets(down_map) if descriptor else set()
        # input state: the downstream mapper picks the new consumers, the upstream mapping the channels
        per_new = self.input_state_assignment([[(d, h) for h in ins[d]] for d in range(down_old)], down_mapper,
                                              down_old, down_new, up_new, redistributes)
        to_inputs = [(u2, d2, d, u, recs) for d2, hs in enumerate(per_new) for d, (u, recs) in hs for u2 in up_inv[u]]
        # output state: the upstream mapper picks the new producers, the downstream mapping the subpartitions
        per_new = reassign_channel_state([[(u, h) for h in outs[u]] for u in range(up_old)], up_mapper,
                                         up_old, up_new)
        peer = job.edges[self.peer_edge(ek)]
        peer_map = down_map if peer is e else self.mapping(edge_mappers(peer)[1], down_old, down_new)
        peer_inv = invert_mapping(peer_map, down_old)
        to_outputs = [(u2, d2, d, u, recs) for u2, hs in enumerate(per_new) for u, (d, recs) in hs for d2 in peer_inv[d]]
        for u2, d2, d, _u, recs in to_outputs:
            if d not in down_map[d2]:  # DemultiplexingRecordDeserializer.select: no such virtual channel
                raise RestoreFailure(
                    f"IllegalStateException: Cannot select SubtaskConnectionDescriptor(oldSubtask={d}, ...):"
                    f" {e.target}[{d2}] reads old subtasks {down_map[d2]} on its input from {e.source}"
                    f" ({e.partitioner})")
        # a record split between an old consumer's input state and its producer's output state is
        # whole again only where both parts reach one virtual channel; the filter runs after
        # deserialization, on whole records
        to_inputs, to_outputs = self.join_parts(
            [((d2, d, u), (u2, d2, d), recs) for u2, d2, d, u, recs in to_inputs],
            [((d2, d, u), (u2, d2, d), recs) for u2, d2, d, u, recs in to_outputs],
            lambda k: f"{e.target}[{k[0]}] on its virtual channel (old {e.target}[{k[1]}], old {e.source}[{k[2]}])")
        dropped = 0
        routed: tuple[list, list] = ([], [])
        for into, got in zip(routed, (to_inputs, to_outputs)):
            for (_, d, u), (u2, d2, _), recs in got:
                kept = [r for r in recs if self.keeps(e, d in ambiguous, d2, r, old_consumer=d, old_producer=u)]
                dropped += len(recs) - len(kept)
                into.append((u2, d2, kept))
        return routed[0], routed[1], dropped

    @follows("StateAssignmentOperation.reDistributeInputChannelStates")
    def input_state_assignment(self, handles: list, mapper: str, old_p: int, new_p: int, up_new: int,
                               redistribute: bool | None = None) -> list:
        """Which old consumers' input-state handles each new consumer gets
        (``StateAssignmentOperation.reDistributeInputChannelStates``): 1:1 at an unchanged
        parallelism unless the consumer redistributes (``redistribute``: FLINK-35351's condition,
        decided for the whole vertex by ``input_side_redistributes``), else by the downstream
        mapper."""
        return reassign_channel_state(handles, mapper, old_p, new_p, upstream_new_ps=(up_new,), redistribute=redistribute)

    @staticmethod
    def join_parts(to_inputs: list, to_outputs: list, where) -> tuple[list, list]:
        """Put records split across a checkpoint back together (spanning records): a head, the
        last input-state entry of a virtual channel, and the tail, the first entry of the output
        state restored to the same virtual channel, become the record, read when the re-sent
        output arrives.  Entries are ``(key, place, records)``; ``key`` names the virtual channel
        (new consumer, old consumer, old producer).  A part whose other part reaches another
        subtask leaves the deserializer of its virtual channel reading a record's tail as a new
        record, or a head followed by the next record's bytes: the restored task fails on the
        corrupt record (``RestoreFailure``; ``where(key)`` names the virtual channel).  A head
        that nothing follows is caught at the end of recovery instead
        (``RescalingStreamTaskNetworkInput.finishRecovery``: "Not all data has been fully
        consumed"); the model reports both at the restore, where their cause lies."""
        heads: dict[tuple, list[int]] = {}
        for i, (k, _, recs) in enumerate(to_inputs):
            if recs and len(recs[-1]) == 3:
                heads.setdefault((k, recs[-1][:2]), []).append(i)
        ins = [list(x) for x in to_inputs]
        outs = [list(x) for x in to_outputs]
        for x in outs:
            k, _, recs = x
            if not recs or len(recs[0]) != 3:
                continue
            r = recs[0][:2]
            if not heads.get((k, r)):
                raise RestoreFailure(
                    f"{CORRUPT_RECORD}: {where(k)} reads the tail of record (split {r[0]}, offset {r[1]}) without its head, which is in"
                    f" another subtask's input channel state")
            i = heads[(k, r)].pop(0)
            ins[i][2] = ins[i][2][:-1]
            x[2] = (r,) + tuple(recs[1:])
        for (k, r), left in heads.items():
            if left:  # followed by other bytes, or by none: then finishRecovery's hasPartialData check fails
                raise RestoreFailure(
                    f"{CORRUPT_RECORD}: {where(k)} reads the head of record (split {r[0]}, offset {r[1]}) and then no tail: its tail is in the"
                    f" output channel state restored to another subtask")
        return [tuple(x) for x in ins], [tuple(x) for x in outs]

    def peer_edge(self, ek: int) -> int:
        """The edge whose downstream (input) mapping routes the upstream's output state of edge
        ``ek`` to the new subpartitions: ``ek`` itself.  ``TaskStateAssignment`` finds the
        peer's gate by ``IntermediateDataSetID`` (``getConnectedMapping``, FLINK-40269,
        apache/flink#28856), so two edges between the same vertices keep their own mappings."""
        return ek

    def has_rescaling_descriptor(self, k: int, c: Completed, old: "FlinkModel") -> bool:
        """Is rescaled vertex ``k`` reassigned, so that its subtasks get an
        ``InflightDataRescalingDescriptor`` (virtual channels and the ``RecordFilter``)?  Since
        FLINK-31963 (apache/flink#22584, UC note B.2) every vertex with state of its
        own, or whose upstream has output state or downstream input state, is: here, every
        rescaled vertex that reads channel state."""
        return True

    @staticmethod
    @follows("SubtaskStateMapper.getNewToOldSubtasksMapping")
    def mapping(mapper: str, old_p: int, new_p: int) -> list[list[int]]:
        """New subtask -> the old subtasks it reads (``getNewToOldSubtasksMapping``); identity
        when the parallelism is unchanged (``RescaleMappings.identity``)."""
        if old_p == new_p:
            return [[i] for i in range(new_p)]
        m, _ = rescale_mappings(mapper, old_p, new_p)
        return m + [[] for _ in range(new_p - len(m))]

    @follows("InflightDataRescalingDescriptor.isAmbiguous")
    def keeps(self, e: "Edge", ambiguous: bool, consumer_index: int, r: tuple, *, old_consumer: int | None = None,
              old_producer: int | None = None) -> bool:
        """``RecordFilter`` (made per virtual channel by ``DemultiplexingRecordDeserializer.create``
        with ``RescalingStreamTaskNetworkInput.RecordFilterFactory``): is record ``r`` of edge
        ``e``, restored to new consumer ``consumer_index``, kept?  Its virtual channel is the
        ``SubtaskConnectionDescriptor`` of the old subtasks its channel state came from: old
        consumer ``old_consumer`` and old producer ``old_producer`` (``None`` where a caller does
        not say).  A record of a virtual channel whose old consumer is ``ambiguous``
        (``InflightDataRescalingDescriptor.isAmbiguous``) is kept only if the edge's partitioner,
        set up for the new parallelism, routes it here; in Flink the old side chooses only
        whether the filter runs.

        Abstraction: the filter runs when the state is put back into the channels, not when the
        consumer reads it: the same records are kept, since the filter is a function of the record
        and the new parallelism."""
        if not ambiguous:
            return True
        dst = self.topo.job.vertex(e.target)
        if e.partitioner == "custom":
            return custom_channel(r[0], r[1], dst.parallelism, self.scope.keys_per_split) == consumer_index
        return operator_index_for_key_group(dst.max_p, dst.parallelism, record_key_group(r[0], r[1], dst.max_p, self.scope.keys_per_split)) == consumer_index


def __getattr__(name: str):
    """``PointwiseStateAssignment`` lives in ``model.assignment_pointwise``; a variant that imports it
    from here, where it was first, still finds it (on first use: an import at the top would be
    circular).  Traces name it by its registry id, not by this path."""
    if name == "PointwiseStateAssignment":
        from .assignment_pointwise import PointwiseStateAssignment

        return PointwiseStateAssignment
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
