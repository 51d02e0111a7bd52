"""Output channel state on POINTWISE edges at a restore: the proposal of the pointwise-UC thread as the open
PR apache/flink#28523 (FLINK-39680 / FLINK-21378) implements it.

Pure functions over parallelisms, with S/T the upstream/downstream parallelism and patterns
``POINTWISE`` or ``ALL_TO_ALL`` (UC note C.2-C.4); each names the PR's method it follows, and
the one abstraction is on ``restored_output_buffers``.
"""

from __future__ import annotations

from .keygroups import pointwise_inputs, pointwise_outputs
from .redistribution import old_subtasks

POINTWISE = "POINTWISE"
ALL_TO_ALL = "ALL_TO_ALL"
PATTERNS = (POINTWISE, ALL_TO_ALL)


def resolve_old_pattern(recorded: str | None) -> str:
    """``resolveOldDistributionPattern``: a checkpoint without the hook's state (the
    ``EdgeDistributionPatternSnapshot`` master-hook state; or without this edge in it) reads as
    ALL_TO_ALL."""
    return ALL_TO_ALL if recorded is None else recorded


def producers_of(d: int, s: int, t: int) -> list[int]:
    """``PointwiseChannelMappingUtils.producersOf``: the wiring of
    ``computeVertexInputInfoForPointwise`` (``keygroups``)."""
    return pointwise_inputs(s, t)[d]


def consumers_of(u: int, s: int, t: int) -> list[int]:
    """``PointwiseChannelMappingUtils.consumersOf``: the wiring of
    ``computeVertexInputInfoForPointwise`` (``keygroups``)."""
    return pointwise_outputs(s, t)[u]


def connected(u: int, d: int, pattern: str, s: int, t: int) -> bool:
    return pattern == ALL_TO_ALL or d in consumers_of(u, s, t)


def is_identity(old_pattern: str, new_pattern: str, old_up: int, old_down: int, new_up: int, new_down: int) -> bool:
    return old_pattern == new_pattern and old_up == new_up and old_down == new_down


def inherited_old_upstreams(u_new: int, old_pattern: str, new_pattern: str, old_up: int, old_down: int,
                            new_up: int, new_down: int, shortcut: bool = True) -> list[int]:
    """The old upstream subtasks whose output state new upstream ``u_new`` reads (sorted; the sets
    of two new upstreams may overlap): ``computeInheritedOldUpstreams`` on a new POINTWISE edge,
    newUpstream -> consumersOf -> newDownstream -> ROUND_ROBIN -> oldDownstream -> producersOf ->
    oldUpstream.
    On a new ALL_TO_ALL edge the state handles go by the upstream partitioner's mapper
    (``ARBITRARY``, so ``ROUND_ROBIN``: ``TaskStateAssignment.getOutputMapping`` calls
    ``computeInheritedOldUpstreams`` only for ``SubtaskStateMapper.POINTWISE_UPSTREAM``, which the
    forward and rescale partitioners set), so new upstream i reads old upstream i and a new one
    past the old parallelism none.  The PR's ``computeInheritedOldUpstreams`` itself gives every
    new upstream every old one there (``PointwiseChannelMappingUtilsTest.computeInheritedOldUpstreamsPwToA2a``,
    3 -> 4 upstreams: {0, 1, 2} each), a set that goes only into the rescaling descriptor
    (``computePointwiseOldSubtaskInstances``); the handlers write the handles they were given, so
    each buffer is written once (apache/flink#28523 at 081b1317).  An unchanged
    edge reads its own (``TaskStateAssignment.getOutputMapping``'s identity mapping), unless
    ``shortcut`` is off: the formula itself, as the task manager's
    ``computePrimaryUpstreamMapping`` evaluates it for an unchanged POINTWISE gate of a task
    whose descriptor is not ``NO_RESCALE`` (it has no identity case: on a 2 -> 1 edge the one
    consumer's producers 0 and 1 both trace back to both old producers)."""
    if shortcut and is_identity(old_pattern, new_pattern, old_up, old_down, new_up, new_down):
        return [u_new] if u_new < old_up else []
    if new_pattern == ALL_TO_ALL:
        return old_subtasks("ROUND_ROBIN", u_new, old_up, new_up)
    out: set[int] = set()
    for d_new in consumers_of(u_new, new_up, new_down):
        for o in old_subtasks("ROUND_ROBIN", d_new, old_down, new_down):
            out.update(producers_of(o, old_up, old_down) if old_pattern == POINTWISE else range(old_up))
    return sorted(out)


def heirs(old_pattern: str, new_pattern: str, old_up: int, old_down: int, new_up: int, new_down: int,
          shortcut: bool = True) -> list[list[int]]:
    """Per new upstream, ``inherited_old_upstreams``."""
    return [inherited_old_upstreams(x, old_pattern, new_pattern, old_up, old_down, new_up, new_down, shortcut)
            for x in range(new_up)]


def new_consumer_of(old_consumer: int, new_down: int) -> int:
    """The new downstream that takes old downstream ``old_consumer``'s channel state, as the PR
    routes it (UC note C.3-C.4): the output buffers written for it (old (U, D) to
    ``D mod newDownP``) and its input state (``SubtaskStateMapper.ROUND_ROBIN``, exactly once:
    the ``round-robin-once`` theorem)."""
    return old_consumer % new_down


def primary_upstream(u: int, d_new: int, held: list[list[int]], new_pattern: str, new_up: int, new_down: int) -> int:
    """``computePrimaryUpstreamMapping(D)[u]``: the first new producer of ``d_new`` (in
    ascending order) whose inherited set ``held[x]`` contains old upstream ``u``, or -1."""
    candidates = producers_of(d_new, new_up, new_down) if new_pattern == POINTWISE else range(new_up)
    return next((x for x in candidates if u in held[x]), -1)


def writes_recovered_output(u_new: int, d_new: int, new_pattern: str, new_up: int, new_down: int) -> bool:
    """``computeNewLocalSubpartitionIndex(D, U) != -1``: on a new POINTWISE edge U writes
    recovered output for D only if D is connected to U (the recovery filter) and U is D's lowest
    producer (the primary-producer rule); on a new ALL_TO_ALL edge always."""
    if new_pattern == ALL_TO_ALL:
        return True
    return d_new in consumers_of(u_new, new_up, new_down) and producers_of(d_new, new_up, new_down)[0] == u_new


def restored_output_buffers(old_pattern: str, new_pattern: str, old_up: int, old_down: int, new_up: int, new_down: int,
                            *, recorded: bool = True, resolve=resolve_old_pattern, writes=writes_recovered_output,
                            new_consumer=new_consumer_of, routed: bool = False) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """Every old output buffer ``(old upstream, old downstream)`` of an edge that had
    ``old_pattern`` -> the ``(new upstream, new downstream)`` pairs that restore it (exactly
    one pair each, by the theorems of ``checks.proofs.theorems``).  ``recorded`` False: the checkpoint
    was taken without the pattern hook, and the restore reads the pattern ``resolve(None)``.
    ``resolve``, ``writes`` and ``new_consumer`` are the PR's rules; the tests pass wrong ones
    (mutants), a design variant its own (``PointwiseStateAssignment``).  An unchanged edge
    restores each buffer where it was, unless ``routed``: its producer's descriptor is not
    ``NO_RESCALE`` (another of its partitions changed), so the task manager's
    ``ResultSubpartitionRecoveredStateHandler.recoverPointwise`` applies ``writes`` to it too,
    with no identity case (the theorems are about one edge and do not cover this).

    Old (u, oldDown) goes to new downstream ``oldDown mod newDownP``, written by the new upstreams
    that read it and pass the rule.  The pattern recorded in the checkpoint (the
    ``EdgeDistributionPatternSnapshot`` master-hook state) is ``None`` for a checkpoint taken
    without the hook: it reads as ALL_TO_ALL (``resolveOldDistributionPattern``).

    Abstraction: a buffer is one unit; the PR's local-index bookkeeping (``D mod |consumersOf(U)|``)
    names the subpartition it is written to and does not change which subtask gets it."""
    old = resolve(old_pattern if recorded else None)
    identity = is_identity(old, new_pattern, old_up, old_down, new_up, new_down) and not routed
    holders = heirs(old, new_pattern, old_up, old_down, new_up, new_down)
    out: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for u in range(old_up):
        for d in range(old_down):
            if not connected(u, d, old_pattern, old_up, old_down):
                continue
            d_new = new_consumer(d, new_down)
            out[(u, d)] = [(x, d_new) for x in range(new_up) if u in holders[x]
                           and (identity or writes(x, d_new, new_pattern, new_up, new_down))]
    return out


def input_buffer_channel(o: int, c: int, old_pattern: str, new_pattern: str, old_up: int, old_down: int, new_up: int,
                         new_down: int) -> tuple[int, int]:
    """An old input buffer (old downstream ``o``, its local channel ``c``) -> (new downstream,
    new upstream whose channel it is put on), or (new downstream, -1) when no new producer
    inherited its old upstream (``computePrimaryUpstreamMapping`` returns -1).

    New downstream d takes the input state of the old downstreams ROUND_ROBIN(d), exactly once
    (the ``round-robin-once`` theorem).  The buffer is put on the channel of the first new
    producer that inherited the buffer's old upstream (``computePrimaryUpstreamMapping``), so that
    the recovered input and output of one old upstream share a channel, input first; UC note C.4.
    The task manager's code, ``RecoveredChannelStateHandler``'s ``recoverPointwise`` at
    apache/flink 081b131, was read since: it calls it for a new POINTWISE edge, and for a new
    ALL_TO_ALL one puts the buffer on the channel of ``u mod newUpP``, the same channel."""
    u = producers_of(o, old_up, old_down)[c] if old_pattern == POINTWISE else c
    d_new = new_consumer_of(o, new_down)
    held = heirs(old_pattern, new_pattern, old_up, old_down, new_up, new_down)
    return d_new, primary_upstream(u, d_new, held, new_pattern, new_up, new_down)
