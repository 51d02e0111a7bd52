"""The open PR apache/flink#28523's ``TaskStateAssignment`` (the pointwise-UC thread): the restore of channel
state on POINTWISE edges, a ``StateAssignmentOperation`` whose routing of such an edge follows
the rules of ``model.pointwise``.  Traces name it by its registry id, ``PointwiseStateAssignment``
(``model.component.component_id``), wherever its module is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .assignment import StateAssignmentOperation
from .pointwise import ALL_TO_ALL, heirs, is_identity, new_consumer_of, resolve_old_pattern, restored_output_buffers
from .pointwise import primary_upstream as pr_primary_upstream
from .pointwise import writes_recovered_output as pr_writes_recovered_output
from .world import Completed

if TYPE_CHECKING:  # pragma: no cover
    from .protocol import FlinkModel


class PointwiseStateAssignment(StateAssignmentOperation):
    """``TaskStateAssignment`` as the open PR apache/flink#28523 (the pointwise-UC thread, FLINK-39680 /
    FLINK-21378) changes it: the channel state of an edge that is POINTWISE before or after the
    restore is redistributed by the edge's topology instead of failing
    (UC note C.2-C.4; the rules are ``model.pointwise``'s, proved in
    ``checks.proofs.theorems``).  An edge ALL_TO_ALL on both sides keeps Flink's mappers.

    - The old pattern is the one ``EdgeDistributionPatternHook`` recorded in the checkpoint:
      the pattern of the job the checkpoint was taken by (``model_of``), not stored as a field
      of the world.  ``read_pattern`` is where a checkpoint without the hook would read as
      ALL_TO_ALL (``resolveOldDistributionPattern``); every checkpoint of a run here has it.
    - Output state: old producer u's buffer for old consumer d goes to new consumer
      ``d mod newDownP``, written by every new producer that inherited u
      (``computeInheritedOldUpstreams``) and passes ``writes_recovered_output`` (connected, and
      the lowest producer of that consumer: ``computeNewLocalSubpartitionIndex``), or by its
      only heir when nothing changed.
    - Input state: new consumer d takes the input state of the old consumers ROUND_ROBIN(d), each
      buffer on the channel of the first new producer of d that inherited the buffer's old
      producer (``computePrimaryUpstreamMapping``), so that an old producer's recovered input
      and output share one channel, input first.  A buffer whose old producer no new producer
      of d inherited (-1) is lost here; with the PR's rules that never happens
      (``tests/specs/unaligned/test_pointwise.py``).

    Abstraction: a buffer is a unit; the PR's local subpartition numbering
    (``D mod |consumersOf(U)|``) names where a buffer is written and does not change which
    subtask reads it.  A write for a downstream the writer is not connected to (only a wrong
    rule makes one) reaches no channel: Flink would write it into another consumer's
    subpartition or fail, which the model does not guess."""

    def state_mappers(self, ek: int, old: "FlinkModel") -> tuple[str, str]:
        """An edge POINTWISE before or after the restore is redistributed by its topology, never
        by a mapper (the PR's rules), so it never fails: "TOPOLOGY" on both ends, which the
        restore check reads as neither UNSUPPORTED nor FULL."""
        if old.topo.job.edges[ek].pattern.value == ALL_TO_ALL and self.topo.job.edges[ek].pattern.value == ALL_TO_ALL:
            return super().state_mappers(ek, old)
        return "TOPOLOGY", "TOPOLOGY"

    def route_edge(self, ek: int, c: Completed, old: "FlinkModel", ins: list, outs: list) -> tuple[list, list, int]:
        e = self.topo.job.edges[ek]
        was, now = old.topo.job.edges[ek].pattern.value, e.pattern.value
        if was == ALL_TO_ALL and now == ALL_TO_ALL:
            return super().route_edge(ek, c, old, ins, outs)
        up, down = self.vidx[e.source], self.vidx[e.target]
        sizes = self.edge_sizes(ek, old)
        unchanged = is_identity(self.read_pattern(was, now), now, *sizes)
        downstream = self.design.recover_output_on_downstream
        targets = restored_output_buffers(was, now, *sizes, resolve=lambda p: self.read_pattern(p, now),
                                          writes=self.writes_recovered_output, new_consumer=self.new_consumer_of,
                                          routed=unchanged and not downstream and self.routes_unchanged_edge(up, False, c, old))
        shortcut = not (unchanged and self.routes_unchanged_edge(down, True, c, old))
        held = heirs(self.read_pattern(was, now), now, *sizes, shortcut)
        nu, nd = sizes[2:]
        to_outputs = [(x, y, recs) for u, got in enumerate(outs) for d, recs in got for x, y in targets[(u, d)]]
        if downstream:
            to_outputs = self.downstream_output_channels(outs, targets, held, now, nu, nd)
        to_inputs = []
        for o, got in enumerate(ins):
            d2 = self.new_consumer_of(o, nd)
            for u, recs in got:
                x = self.primary_upstream(u, d2, held, now, nu, nd)
                if x >= 0:
                    to_inputs.append((x, d2, recs))
        return to_inputs, to_outputs, 0

    def downstream_output_channels(self, outs: list, targets: dict, held: list[list[int]], now: str, nu: int,
                                   nd: int) -> list:
        """With ``recover_output_on_downstream``: where each write of an old producer's output
        buffer lands, as ``distributePointwiseOutputBufferToDownstream`` (apache/flink#28523)
        makes it.  The job manager hands old producer u's buffer for old consumer d to new
        consumer ``d mod newDownP``, once per new producer that holds the handle and passes
        ``computeNewLocalSubpartitionIndex`` (``writes_recovered_output``; the check is skipped
        for an identity mapping, so ``route_edge`` does not route an unchanged edge here), and
        the consumer's task manager files it on the channel of the first of its producers that
        inherited u (``recoverPointwise``, ``computePrimaryUpstreamMapping``: ``primary_upstream``
        with the input side's heirs), or on u's own channel where its descriptor is
        ``NO_RESCALE``; the producer's own output state is cleared.  So the buffer shares its
        channel with u's recovered input state, input first."""
        out = []
        for u, got in enumerate(outs):
            for d, recs in got:
                for _, y in targets[(u, d)]:
                    x = self.primary_upstream(u, y, held, now, nu, nd)
                    if x >= 0:
                        out.append((x, y, recs))
        return out

    def routes_unchanged_edge(self, k: int, inputs: bool, c: Completed, old: "FlinkModel") -> bool:
        """Does the task manager route the channel state of an unchanged edge on vertex ``k``'s
        input side (``inputs``) or output side by the pointwise rules?  In the PR (apache/flink
        at 081b131) yes, once another gate or partition of that side holds in-flight data and
        changed: ``TaskStateAssignment.createRescalingDescriptor`` returns ``NO_RESCALE`` only if
        every gate or partition descriptor is an identity (one without in-flight data is
        ``NO_STATE``, an identity), and an unchanged POINTWISE edge's descriptor still carries
        its ``PointwiseRescaleParams``, so ``isPointwiseRescaling()`` holds and
        ``recoverPointwise`` runs (``RecoveredChannelStateHandler``: on the output side
        ``computeNewLocalSubpartitionIndex`` drops a buffer of a producer that is not its
        consumer's first; on the input side ``computePrimaryUpstreamMapping`` puts every
        buffer on the first producer's channel).  The job manager's own path
        (``distributePointwiseOutputBufferToDownstream``) skips the rule for an identity
        mapping.  Abstraction: the model decides per vertex, not per subtask (a subtask whose
        descriptor has no old instance counts as an identity in Flink)."""
        flight = self.in_flight(c, old)
        for ek, e in enumerate(self.topo.job.edges):
            if self.vidx[e.target if inputs else e.source] != k or not flight[ek]:
                continue
            was, now = old.topo.job.edges[ek].pattern.value, e.pattern.value
            if not is_identity(self.read_pattern(was, now), now, *self.edge_sizes(ek, old)):
                return True
        return False

    def edge_sizes(self, ek: int, old: "FlinkModel") -> tuple[int, int, int, int]:
        """Edge ``ek``'s (old up, old down, new up, new down) parallelisms."""
        e = self.topo.job.edges[ek]
        up, down = self.vidx[e.source], self.vidx[e.target]
        return (len(old.topo.tasks_of[up]), len(old.topo.tasks_of[down]), len(self.topo.tasks_of[up]),
                len(self.topo.tasks_of[down]))

    def new_consumer_of(self, old_consumer: int, new_down_p: int) -> int:
        """The new consumer that takes old consumer ``old_consumer``'s channel state, its input
        state and the output buffers written for it: ``old_consumer mod new_down_p``
        (apache/flink#28523: ``SubtaskStateMapper.ROUND_ROBIN`` for the input state, ``D mod
        newDownP`` for the output state; ``model.pointwise.new_consumer_of``)."""
        return new_consumer_of(old_consumer, new_down_p)

    def primary_upstream(self, u: int, d_new: int, held: list[list[int]], new_pattern: str, new_up: int,
                         new_down: int) -> int:
        """The new producer on whose channel new consumer ``d_new`` gets a recovered input buffer
        of old producer ``u`` (``held[x]``: the old producers new producer x inherited), or -1 (the
        buffer is lost): the first producer of ``d_new`` that inherited ``u``
        (``computePrimaryUpstreamMapping``; ``model.pointwise.primary_upstream``)."""
        return pr_primary_upstream(u, d_new, held, new_pattern, new_up, new_down)

    def read_pattern(self, recorded: str, new: str) -> str:
        """The old pattern the restore reads: the one the checkpoint recorded
        (``resolveOldDistributionPattern``; a checkpoint without the hook reads as ALL_TO_ALL)."""
        return resolve_old_pattern(recorded)

    def writes_recovered_output(self, u: int, d: int, pattern: str, new_up: int, new_down: int) -> bool:
        """``computeNewLocalSubpartitionIndex(D, U) != -1``: the recovery filter and the
        primary-producer rule."""
        return pr_writes_recovered_output(u, d, pattern, new_up, new_down)
