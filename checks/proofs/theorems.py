"""Z3 proofs that Flink's redistribution arithmetic preserves its invariants.

Each :class:`Theorem` has a name, its statement in words, a Z3 encoding (``prove``) and a
deliberately wrong variant of the formula (``mutant``) that Z3 must refute: a proof that
cannot fail proves nothing.  Every claim is proved symbolically, for all parallelisms at once
(the domain is in the statement): integer division ``a / b`` is encoded with a quotient
variable ``q`` constrained by ``q*b <= a < (q+1)*b``, which Z3's nonlinear integer arithmetic
decides quickly here.  Java ``int`` arithmetic is encoded over the integers too: every
product and sum is wrapped into [-2^31, 2^31) by an explicit multiple of 2^32, and division
truncates toward zero.  (Bit-vector encodings of division by a symbolic divisor time out.)

The formulas mirror ``model.redistribution`` (and so Flink): the tests check, with Hypothesis,
that the Python functions satisfy the same statements the proofs make.

The theorems are listed here (:data:`THEOREMS`, in the order ``ckptcheck prove`` shows them);
their encodings are in ``keygroups``, ``operator_state`` and
``channel_state``, on the solver helpers of ``solver``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .channel_state import (_full_first_parts, _pointwise_ge_parts, _pointwise_lt_parts, _pw_downstream_parts,
                            _pw_read_as_pointwise_loses, _pw_restore_all, _range_parts, _round_robin_parts)
from .keygroups import _break_mutant, _break_theorem, _kg_parts, first_java_break  # noqa: F401  (re-exported)
from .operator_state import _broadcast_parts, _even_split_parts, _rotation_parts, _union_parts
from .solver import (  # noqa: F401  (re-exported)
    INT_MAX, INT_MIN, M_FLINK, PROVED, REFUTED, SEEDS, TIMEOUT_MS, UNKNOWN, Outcome, _all)


@dataclass(frozen=True)
class Theorem:
    name: str
    statement: str
    prove: Callable[[], Outcome] = field(repr=False)
    mutant_statement: str = ""
    mutant: Callable[[], Outcome] = field(default=lambda: Outcome(UNKNOWN), repr=False)
    expect: str = PROVED  # what ``prove`` must give for the theorem to pass


THEOREMS: tuple[Theorem, ...] = (
    Theorem(
        "key-group-ranges",
        "for all 1 <= P <= M (unbounded integers) and 0 <= i < P: the range "
        "[(i*M+P-1)/P, ((i+1)*M-1)/P] is non-empty, consecutive ranges are contiguous, they cover "
        "[0, M-1], and every key group kg in range i has kg*P/M = i",
        lambda: _all(_kg_parts()),
        "start = i*M/P (no rounding up)",
        lambda: _all(_kg_parts(start_formula="floor")),
    ),
    Theorem(
        "key-group-ranges-java-int",
        "the same four claims with Java 32-bit int arithmetic (wrap-around products, truncating "
        f"division) for every 1 <= P <= M <= {M_FLINK}",
        lambda: _all(_kg_parts(java=True, max_m=M_FLINK)),
        "the same for M <= 65536",
        lambda: _all(_kg_parts(java=True, max_m=65536)),
    ),
    Theorem(
        "key-group-java-int-first-break",
        f"the smallest max parallelism M at which Java int arithmetic breaks a key-group claim is "
        f"found by Z3 and lies above Flink's bound {M_FLINK}",
        _break_theorem,
        "Java int arithmetic is safe for every M <= 2^20",
        _break_mutant,
    ),
    Theorem(
        "even-split",
        "SPLIT_DISTRIBUTE, one state name with T offsets over P new subtasks: rotation position r "
        "gets the slice [r*base+min(r,rem), (r+1)*base+min(r+1,rem)); the slices partition [0, T) "
        "in concatenation order (each element to exactly one subtask) and sizes are base or "
        "base+1, the extras to the first rem positions",
        lambda: _all(_even_split_parts()),
        "the slice end uses min(r+1, rem+1)",
        lambda: _all(_even_split_parts(mutant=True)),
    ),
    Theorem(
        "even-split-rotation",
        "SPLIT_DISTRIBUTE across 3 state names with start <- (start + rem) mod P: the total loads "
        "of any two new subtasks differ by at most one, for all P and all totals",
        lambda: _all(_rotation_parts()),
        "no rotation (every name starts at subtask 0)",
        lambda: _all(_rotation_parts(mutant=True)),
    ),
    Theorem(
        "union-exactly-once",
        "UNION: every new subtask gets the concatenation of all old lists, and the concatenation "
        "layout off(i)+k is injective into [0, total): every element exactly once",
        lambda: _all(_union_parts()),
        "off(i+1) = off(i) + len(i) - 1",
        lambda: _all(_union_parts(mutant=True)),
    ),
    Theorem(
        "broadcast-one-copy",
        "BROADCAST: new subtask i gets entry i mod E, always one valid entry (a complete copy); "
        "on scale-up entry j is copied floor(newP/E) + [j < newP mod E] times; on scale-down new i "
        "gets entry i",
        lambda: _all(_broadcast_parts()),
        "entry i mod (E+1)",
        lambda: _all(_broadcast_parts(mutant=True)),
    ),
    Theorem(
        "round-robin-once",
        "ROUND_ROBIN and ARBITRARY: new n reads {n + k*newP < oldP}; every old subtask is read by "
        "exactly one new subtask, for all oldP, newP >= 1",
        lambda: _all(_round_robin_parts()),
        "stride newP+1",
        lambda: _all(_round_robin_parts(mutant=True)),
    ),
    Theorem(
        "range-mapper",
        f"RANGE (M = {M_FLINK}): every old subtask is read, and an old subtask is read by two new "
        "subtasks exactly when it holds the boundary between two consecutive new ranges "
        "(the ambiguous ones), for all 1 <= oldP, newP <= 32768",
        lambda: _all(_range_parts()),
        "the last old subtask of each range dropped",
        lambda: _all(_range_parts(mutant=True)),
    ),
    Theorem(
        "full-and-first",
        "FULL: every new subtask reads all old subtasks; FIRST: each old subtask is read by "
        "exactly one new subtask (subtask 0)",
        lambda: _all(_full_first_parts()),
        "FIRST reads at subtask 1",
        lambda: _all(_full_first_parts(mutant=True)),
    ),
    Theorem(
        "pointwise-upstream-larger",
        "POINTWISE with S >= T: downstream i reads [floor(iS/T), floor((i+1)S/T)-1]: non-empty, "
        "disjoint and contiguous, and every partition is read",
        lambda: _all(_pointwise_ge_parts()),
        "inclusive end floor((i+1)S/T)",
        lambda: _all(_pointwise_ge_parts(mutant=True)),
    ),
    Theorem(
        "pointwise-upstream-smaller",
        "POINTWISE with S < T: upstream p feeds [ceil(pT/S), ceil((p+1)T/S)); every downstream "
        "reads exactly one partition and every partition is read",
        lambda: _all(_pointwise_lt_parts()),
        "floor instead of ceil",
        lambda: _all(_pointwise_lt_parts(mutant=True)),
    ),
    Theorem(
        "pointwise-output-state-exactly-once",
        "the pointwise-UC thread / apache/flink#28523, for each pattern change A2A<->A2A, A2A<->PW, PW<->A2A, "
        "PW<->PW and all parallelisms 1..32768 at both ends, old and new: an old output buffer "
        "(u, d) goes to new downstream d mod newT and is written by exactly one new upstream "
        "(one that inherited u; on a new POINTWISE edge the lowest producer of that downstream; "
        "the general rule, which the PR replaces by the identity when nothing changes)",
        lambda: _all(_pw_restore_all()),
        "no primary-producer rule (every connected heir writes)",
        lambda: _all(_pw_restore_all("no-primary", only=("at most once",))),
    ),
    Theorem(
        "pointwise-output-state-connected",
        "the same restore writes each buffer only to a new downstream connected to its writer "
        "on the new POINTWISE edge",
        lambda: _all(_pw_restore_all(only=("only to a connected downstream",))),
        "no recovery filter (every heir writes)",
        lambda: _all(_pw_restore_all("no-filter", only=("only to a connected downstream",))),
    ),
    Theorem(
        "pointwise-old-checkpoint-as-all-to-all",
        "a checkpoint taken without the pattern hook (its channel state is on ALL_TO_ALL edges: "
        "before the proposal a POINTWISE edge fell back to aligned) read as ALL_TO_ALL restores "
        "every buffer exactly once, whatever the new pattern and parallelisms 1..32768",
        lambda: _all([p for p in _pw_restore_all(only=("at least once", "at most once")) if p[0].startswith("A2A")]),
        "read as the new job's POINTWISE pattern: every buffer still has a writer (parallelisms 1..4)",
        lambda: _all(_pw_read_as_pointwise_loses()),
    ),
    Theorem(
        "pointwise-downstream-recovery-channel",
        "recovery on the downstream (FLIP-547's recover-output-on-downstream, apache/flink#28523's "
        "distributePointwiseOutputBufferToDownstream and recoverPointwise), PW->PW and A2A->PW, all parallelisms "
        "1..32768: old buffer (u, d) is restored at new downstream d mod newT on the channel of its first producer "
        "floor(newD*newS/newT), which feeds it and so inherited u (computePrimaryUpstreamMapping names it); with "
        "pointwise-output-state-exactly-once, each buffer is restored exactly once, on a channel of a connected producer",
        lambda: _all(_pw_downstream_parts()),
        "filed under its old producer's own channel (u, d mod newT): that channel exists",
        lambda: _all(_pw_downstream_parts(mutant=True)),
    ),
)


def theorem(name: str) -> Theorem:
    for t in THEOREMS:
        if t.name == name:
            return t
    raise KeyError(name)
