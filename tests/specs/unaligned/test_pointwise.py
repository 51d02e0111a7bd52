"""Output channel state on POINTWISE edges at a restore (the pointwise-UC thread, the open PR
apache/flink#28523): the PR's worked examples element for element, and every old buffer
restored exactly once, to a downstream connected to its new producer, for every pattern change
and every parallelism up to 6 at both ends; each wrong rule a reviewer would try loses or
duplicates a buffer there (the symbolic proofs are in ``checks.proofs.theorems``)."""

from __future__ import annotations

from itertools import product

import pytest

from ckptcheck.model.assignment_pointwise import PointwiseStateAssignment
from ckptcheck.model.pointwise import (
    ALL_TO_ALL,
    PATTERNS,
    POINTWISE,
    connected,
    consumers_of,
    heirs,
    inherited_old_upstreams,
    primary_upstream,
    producers_of,
    restored_output_buffers,
)

from conftest import SEARCH_WORKERS

PW, A2A = POINTWISE, ALL_TO_ALL


def inherited(old, new, ou, od, nu, nd):
    return [inherited_old_upstreams(u, old, new, ou, od, nu, nd) for u in range(nu)]


def test_a_new_all_to_all_edge_puts_an_input_buffer_on_the_channel_u_mod_the_new_upstream_parallelism():
    """apache/flink#28523 at 081b131, ``InputChannelRecoveredStateHandler.recoverPointwise``: for a
    new ALL_TO_ALL pattern the old upstream u's recovered input buffer goes on the channel of
    ``newSubtaskAssignedFrom(u, newUpP)`` (u mod newUpP), and ``computePrimaryUpstreamMapping``
    is not called; the model's first heir of u under the upstream's ROUND_ROBIN mapper is the
    same channel."""
    for ou, od, nu, nd in product(range(1, 6), repeat=4):
        held = heirs(PW, A2A, ou, od, nu, nd)
        for d in range(nd):
            assert [primary_upstream(u, d, held, A2A, nu, nd) for u in range(ou)] == [u % nu for u in range(ou)]


def test_an_unchanged_edge_in_a_task_whose_descriptor_changed_loses_the_buffers_of_every_producer_but_the_first():
    """Finding P1 (apache/flink#28523 at 081b131): on a 2:1 rescale() edge left as it was, the
    job manager gives each source its own output state, but a source whose other partition
    changed recovers with the pointwise rules, and ``computeNewLocalSubpartitionIndex`` lets only
    the sink's first producer write: source[1]'s buffer has no writer.  Where every partition of
    the task is unchanged (``NO_RESCALE``) each buffer goes back where it was."""
    assert restored_output_buffers(PW, PW, 2, 1, 2, 1) == {(0, 0): [(0, 0)], (1, 0): [(1, 0)]}
    assert restored_output_buffers(PW, PW, 2, 1, 2, 1, routed=True) == {(0, 0): [(0, 0)], (1, 0): []}
    # the input side of such a sink: computePrimaryUpstreamMapping has no identity case, so both
    # sources' recovered input buffers go on source[0]'s channel
    assert heirs(PW, PW, 2, 1, 2, 1) == [[0], [1]] and heirs(PW, PW, 2, 1, 2, 1, shortcut=False) == [[0, 1], [0, 1]]
    assert [primary_upstream(u, 0, heirs(PW, PW, 2, 1, 2, 1, shortcut=False), PW, 2, 1) for u in (0, 1)] == [0, 0]


def test_the_prs_worked_examples():
    # UC note C.5; (T): values from the PR's PointwiseChannelMappingUtilsTest
    assert inherited(PW, PW, 3, 3, 4, 3) == [[0], [1], [2], [2]]  # (T) for U0 and U3
    assert restored_output_buffers(PW, PW, 3, 3, 4, 3) == {(0, 0): [(0, 0)], (1, 1): [(1, 1)], (2, 2): [(2, 2)]}
    assert inherited(PW, PW, 4, 2, 2, 4) == [[0, 1, 2, 3], []]
    assert restored_output_buffers(PW, PW, 4, 2, 2, 4) == {
        (0, 0): [(0, 0)], (1, 0): [(0, 0)], (2, 1): [(0, 1)], (3, 1): [(0, 1)]}
    assert inherited(PW, PW, 2, 2, 4, 2) == [[0], [0], [1], [1]]
    assert restored_output_buffers(PW, PW, 2, 2, 4, 2) == {(0, 0): [(0, 0)], (1, 1): [(2, 1)]}
    assert inherited(PW, PW, 2, 4, 2, 2) == [[0, 1], [0, 1]]
    assert restored_output_buffers(PW, PW, 2, 4, 2, 2) == {
        (0, 0): [(0, 0)], (0, 1): [(1, 1)], (1, 2): [(0, 0)], (1, 3): [(1, 1)]}
    assert inherited(A2A, PW, 3, 3, 4, 3) == [[0, 1, 2]] * 4  # (T)
    assert inherited(PW, A2A, 3, 3, 4, 3) == [[0], [1], [2], []]  # the partitioner's ROUND_ROBIN, not the inherited set
    assert inherited(A2A, PW, 2, 2, 2, 2) == [[0, 1], [0, 1]]
    assert restored_output_buffers(A2A, PW, 2, 2, 2, 2) == {
        (0, 0): [(0, 0)], (1, 0): [(0, 0)], (0, 1): [(1, 1)], (1, 1): [(1, 1)]}
    assert restored_output_buffers(PW, PW, 3, 3, 3, 3) == {(u, u): [(u, u)] for u in range(3)}  # identity
    assert consumers_of(2, 4, 6) == [3, 4]  # 4:6, u2's consumers (the PR numbers them sp0 = D4 by modulo)


def violations(restore, bound: int = 6) -> list[str]:
    """Every (pattern change, parallelisms) up to ``bound`` where an old buffer is restored
    other than exactly once to a connected downstream; ``restore`` as ``restored_output_buffers``."""
    out = []
    for old, new, ou, od, nu, nd in product(PATTERNS, PATTERNS, *[range(1, bound + 1)] * 4):
        for (u, d), got in restore(old, new, ou, od, nu, nd).items():
            where = f"{old} {ou}:{od} -> {new} {nu}:{nd}, buffer of old upstream {u} for old downstream {d}"
            if len(got) != 1:
                out.append(f"{where}: restored {len(got)} times {got}")
            out.extend(f"{where}: written by new upstream {x} to unconnected downstream {y}"
                       for x, y in got if not connected(x, y, new, nu, nd))
    return out


def test_every_old_buffer_is_restored_exactly_once_to_a_connected_downstream():
    assert violations(restored_output_buffers) == []
    # a checkpoint taken without the pattern hook (an ALL_TO_ALL edge then) restores the same way
    assert violations(lambda *a: restored_output_buffers(*a, recorded=False) if a[0] == A2A else {}) == []


def test_the_wrong_rules_a_reviewer_would_try_lose_or_duplicate_buffers():
    def connected_only(u, d, new, nu, nd):  # no primary-producer rule
        return new == A2A or d in consumers_of(u, nu, nd)

    no_primary = violations(lambda *a: restored_output_buffers(*a, writes=connected_only))
    assert "POINTWISE 3:3 -> POINTWISE 4:3, buffer of old upstream 2 for old downstream 2: restored 2 times [(2, 2), (3, 2)]" in no_primary
    assert not any("unconnected" in v for v in no_primary)
    no_filter = violations(lambda *a: restored_output_buffers(*a, writes=lambda *_: True))
    assert ("POINTWISE 4:2 -> POINTWISE 2:4, buffer of old upstream 2 for old downstream 1: written by new upstream 0 to"
            " unconnected downstream 1") not in no_filter  # U0 feeds D0 and D1 at 2:4
    assert ("POINTWISE 2:2 -> POINTWISE 4:2, buffer of old upstream 1 for old downstream 1: restored 2 times [(2, 1), (3, 1)]"
            in no_filter)
    assert "POINTWISE 1:2 -> POINTWISE 2:2, buffer of old upstream 0 for old downstream 1: written by new upstream 0 to unconnected downstream 1" in no_filter
    # the pattern not recorded, and the new job's pattern assumed for the old checkpoint
    assumed = violations(lambda old, new, *a: restored_output_buffers(old, new, *a, recorded=False, resolve=lambda p: new)
                         if old == A2A else {})
    assert "ALL_TO_ALL 2:2 -> POINTWISE 3:2, buffer of old upstream 0 for old downstream 1: restored 0 times []" in assumed
    assert ("ALL_TO_ALL 2:2 -> POINTWISE 2:2, buffer of old upstream 0 for old downstream 1: written by new upstream 0 to"
            " unconnected downstream 1") in assumed


def test_claim_downstream_needs_only_round_robin_holds_for_the_assignment_not_for_the_channels():
    """the pointwise-UC thread: "Downstream: standard ROUND_ROBIN assignment, no special handling needed."
    Verdict: holds for which new subtask gets an old downstream's input state (ROUND_ROBIN,
    exactly once: the ``round-robin-once`` theorem), refuted for the channels.  A recovered
    input buffer must go to the channel of the new producer that writes its old upstream's
    recovered output to the same downstream, so that the two reach the consumer in one FIFO,
    input first (``computePrimaryUpstreamMapping``).  With the PR's rule that holds for every
    parallelism up to 6 and every pattern change; keeping the buffer's old local channel index
    ("no special handling") puts it on a channel that does not exist or on another producer's."""
    from ckptcheck.model.pointwise import input_buffer_channel

    broken_plain = []
    for old, new, ou, od, nu, nd in product(PATTERNS, PATTERNS, *[range(1, 7)] * 4):
        out = restored_output_buffers(old, new, ou, od, nu, nd)
        writer = {(u, got[0][1]): got[0][0] for (u, d), got in out.items()}  # (old upstream, new downstream) -> writer
        for o in range(od):
            ups = producers_of(o, ou, od) if old == PW else list(range(ou))
            for c, u in enumerate(ups):
                d_new, x = input_buffer_channel(o, c, old, new, ou, od, nu, nd)
                where = f"{old} {ou}:{od} -> {new} {nu}:{nd}, old downstream {o} channel {c}"
                assert x >= 0, f"{where}: no channel"
                if (u, d_new) in writer:
                    assert writer[(u, d_new)] == x, f"{where}: input on {x}, output by {writer[(u, d_new)]}"
                # "no special handling": the old local index, on the new downstream's channels
                chans = producers_of(d_new, nu, nd) if new == PW else list(range(nu))
                plain = chans[c] if c < len(chans) else -1
                if plain != x:
                    broken_plain.append(f"{where}: kept on channel {c} ({'none' if plain < 0 else f'new upstream {plain}'}),"
                                        f" its old upstream {u}'s output comes from new upstream {x}")
    assert "POINTWISE 4:2 -> POINTWISE 4:4, old downstream 0 channel 1: kept on channel 1 (none), its old upstream 1's output comes from new upstream 0" in broken_plain
    assert "ALL_TO_ALL 2:2 -> ALL_TO_ALL 2:1, old downstream 1 channel 0: kept on channel 0 (new upstream 0), its old upstream 0's output comes from new upstream 0" not in broken_plain
    # a channel that exists but is another producer's: u1's recovered output could overtake its input
    assert ("POINTWISE 2:1 -> POINTWISE 3:1, old downstream 0 channel 1: kept on channel 1 (new upstream 1), its old"
            " upstream 1's output comes from new upstream 0") in broken_plain


# -- the proposal in the state machine ------------------------------------------------------------

@pytest.mark.claims
def test_the_proposal_holds_in_its_default_scope_across_the_four_pattern_changes_and_flink_2_3_cannot_restore():
    """``flink-unaligned-pointwise`` (apache/flink#28523's ``TaskStateAssignment``) in its
    default scope: restores at a new parallelism cross POINTWISE -> POINTWISE, ALL_TO_ALL ->
    POINTWISE, POINTWISE -> ALL_TO_ALL and ALL_TO_ALL -> ALL_TO_ALL with channel state on a
    rescaled edge, every property holds, and every witness is hit.  The same scope with Flink
    2.3's redistribution (the opt-in alone) fails a restore: the scope tells the two apart."""
    from ckptcheck.checks.run.api import check
    from ckptcheck.checks.run.results import HIT, HOLDS, NOT_APPLICABLE, VIOLATED
    from ckptcheck.specs.designs import UNALIGNED, UNALIGNED_POINTWISE
    from ckptcheck.specs.scopes import default_scope_for

    sc = default_scope_for(UNALIGNED_POINTWISE)
    r = check(UNALIGNED_POINTWISE, sc, workers=SEARCH_WORKERS)
    assert r.complete and r.ok and r.stats["states"] == 317813
    for name in ("pointwise-restore-pw-to-pw", "pointwise-restore-a2a-to-pw", "pointwise-restore-pw-to-a2a",
                 "pointwise-restore-a2a-to-a2a"):
        assert r.verdict(name).status == HIT, name
    assert "taken with source->map/odd ALL_TO_ALL at 1:1, was restored with it POINTWISE at 1:2" in r.verdict(
        "pointwise-restore-a2a-to-pw").reason
    assert "taken with map->sink ALL_TO_ALL at 1:1, was restored with it ALL_TO_ALL at 2:1" in r.verdict(
        "pointwise-restore-a2a-to-a2a").reason
    for v in r.verdicts:
        assert v.status in (HOLDS, HIT, NOT_APPLICABLE), (v.name, v.status)
    flink = check(UNALIGNED.with_(name="uc-pointwise-forced", unaligned_pointwise=True), sc, workers=SEARCH_WORKERS,
                  stop_at="restores-succeed")
    assert flink.verdict("restores-succeed").status == VIOLATED
    assert "UnsupportedOperationException" in flink.verdict("restores-succeed").reason


@pytest.mark.claims
def test_claim_flink_21936_keyed_order_holds_in_its_scope_and_breaks_without_the_gate_wide_recovery():
    """FLINK-21936 ("UC recovery with parallelism changes may redistribute data ... breaking
    ordering assumptions on KeyedStreams"), as the pointwise-UC thread repeats it.  In ``pointwise_keyed_order_scope``
    (the map behind a forward edge rescaled 2 -> 1, two records of one key per split) the
    proposal keeps the per-key order, exhaustively, and so does today's aligned fallback.  The
    order rests on FLINK-19856: without the gate-wide recovery the primary-producer rule's
    re-sent record is overtaken (the catalog's ``pointwise-no-upstream-recovery-tracker``)."""
    from ckptcheck.checks.run.api import check
    from ckptcheck.checks.run.results import HIT, HOLDS, VIOLATED
    from ckptcheck.specs.catalog import entry
    from ckptcheck.specs.scopes import pointwise_keyed_order_scope
    from ckptcheck.specs.designs import UNALIGNED, UNALIGNED_POINTWISE

    sc = pointwise_keyed_order_scope()
    for design, states in ((UNALIGNED_POINTWISE, 463741), (UNALIGNED, None)):
        r = check(design, sc, workers=SEARCH_WORKERS)
        assert r.complete and r.ok and r.verdict("per-key-order").status == HOLDS, design.name
        if states:
            assert r.stats["states"] == states
            assert r.verdict("pointwise-restore-pw-to-pw").status == HIT
        else:  # the fallback aligns the map, whose keyBy output still carries channel state
            assert r.verdict("an-aligned-node-sends-unaligned-barriers").status == HIT
    e = entry("pointwise-no-upstream-recovery-tracker")
    bad = check(e.design, sc, workers=SEARCH_WORKERS, stop_at="per-key-order").verdict("per-key-order")
    assert bad.status == VIOLATED and len(bad.trace) == 15
    assert "record (split 1, offset 1) but not the earlier record (split 1, offset 0) of the same key" in bad.reason


class RecordedRoutes(PointwiseStateAssignment):
    """The proposal's assignment, recording each restore ``route_edge`` routed: (old pattern, new
    pattern, old and new parallelism of the edge's ends, with input state, with output state)."""

    routes: set = set()

    def route_edge(self, ek, c, old, ins, outs):
        e = self.topo.job.edges[ek]
        ends = [(len(m.topo.tasks_of[self.vidx[e.source]]), len(m.topo.tasks_of[self.vidx[e.target]])) for m in (old, self)]
        RecordedRoutes.routes.add((old.topo.job.edges[ek].pattern.value, e.pattern.value, *ends,
                                   any(recs for got in ins for _, recs in got), any(recs for got in outs for _, recs in got)))
        return super().route_edge(ek, c, old, ins, outs)


def test_the_proposal_restores_a_pointwise_edge_both_ways_in_a_small_scope_and_every_property_holds():
    """The proposal's state-machine path (``PointwiseStateAssignment.route_edge``) in the default
    run: pointwise-2x1 (two sources, a POINTWISE edge into one sink), the sink rescaled 1 -> 2
    and back, two checkpoints, staggered triggers (so the sink has input state as well as the
    sources' output state), unbounded, no fault: 24,676 states, exhaustively.  Restores cross
    POINTWISE 2:1 -> 2:2 and 2:2 -> 2:1 with both kinds of channel state, and every property holds."""
    from ckptcheck.checks.run.api import check
    from ckptcheck.checks.run.results import HIT, HOLDS, NOT_APPLICABLE, NOT_REACHED
    from ckptcheck.specs.designs import UNALIGNED_POINTWISE
    from ckptcheck.specs.properties import SOMETIMES
    from ckptcheck.specs.scopes import scope

    sc = scope("pointwise-2x1", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=0, max_declines=0,
               max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=2, staggered_triggers=True)
    RecordedRoutes.routes = set()
    r = check(UNALIGNED_POINTWISE.with_(assignment=RecordedRoutes), sc)
    assert r.complete and r.ok and r.stats["states"] == 25252
    for v in r.verdicts:
        assert v.status in ((HIT, NOT_REACHED, NOT_APPLICABLE) if v.kind == SOMETIMES else (HOLDS, NOT_APPLICABLE)), v
    for name in ("rescaled-channel-state-exact", "restores-succeed", "checkpoints-consistent", "exactly-once-output"):
        assert r.verdict(name).status == HOLDS, name
    for name in ("pointwise-restore-pw-to-pw", "a-rescale-restores-channel-state", "input-channel-state-recorded"):
        assert r.verdict(name).status == HIT, name
    for ends in (((2, 1), (2, 2)), ((2, 2), (2, 1))):  # sink 1 -> 2 and back, input and output state each way
        routed = [x for x in RecordedRoutes.routes if x[:4] == (PW, PW, *ends)]
        assert any(x[4] for x in routed) and any(x[5] for x in routed), (ends, RecordedRoutes.routes)
