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
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import z3

PROVED = "proved"
REFUTED = "refuted"
UNKNOWN = "unknown"

M_FLINK = 32768
INT_MIN = -(2**31)
INT_MAX = 2**31 - 1
TIMEOUT_MS = 120_000  # generous: an "unknown" from a loaded machine must not read as a verdict


@dataclass
class Outcome:
    verdict: str
    seconds: float = 0.0
    counterexample: dict | None = None
    detail: str = ""


class _Enc:
    """A solver plus helpers for integer division and Java int arithmetic."""

    def __init__(self, seed: int = 0, timeout_ms: int = TIMEOUT_MS) -> None:
        self.s = z3.Solver()
        self.s.set("timeout", timeout_ms)
        self.s.set("random_seed", seed)
        self.n = 0
        self.quotients: dict = {}  # one quotient per term, for ``_div1``

    def var(self, prefix: str) -> z3.ArithRef:
        self.n += 1
        return z3.Int(f"{prefix}!{self.n}")

    def add(self, *c) -> None:
        self.s.add(*c)

    def div(self, a, b):
        """floor(a / b) for b > 0."""
        q = self.var("q")
        self.add(q * b <= a, a < (q + 1) * b)
        return q

    def ceil(self, a, b):
        return self.div(a + b - 1, b)

    def mod(self, a, b):
        return a - b * self.div(a, b)

    # Java int semantics
    def jwrap(self, x):
        k = self.var("k")
        w = self.var("w")
        self.add(w == x - (2**32) * k, INT_MIN <= w, w <= INT_MAX)
        return w

    def jmul(self, a, b):
        return self.jwrap(a * b)

    def jadd(self, a, b):
        return self.jwrap(a + b)

    def jdiv(self, a, b):
        """Java ``a / b`` for b > 0: truncation toward zero."""
        q = self.var("jq")
        self.add(z3.If(a >= 0, z3.And(q * b <= a, a < (q + 1) * b), z3.And(q * b >= a, a > (q - 1) * b)))
        return q


SEEDS = (0, 1, 2)  # Z3's search can stall on one seed and finish at once on another


def _check_unsat(build: Callable[[_Enc], dict]) -> Outcome:
    """``build`` adds the domain and the *negation* of the claim; returns named terms to show.

    A query that comes back unknown (a timeout) is asked again with another random seed, each
    try with a third of the time: Z3's time on these queries varies with the process's
    history, from milliseconds to minutes, and a verdict must not depend on test order."""
    t0 = time.perf_counter()
    why = ""
    for seed in SEEDS:
        enc = _Enc(seed, TIMEOUT_MS // len(SEEDS))
        shown = build(enc)
        r = enc.s.check()
        dt = time.perf_counter() - t0
        if r == z3.unsat:
            return Outcome(PROVED, dt)
        if r == z3.sat:
            m = enc.s.model()
            cex = {k: m.eval(v, model_completion=True).as_long() for k, v in shown.items()}
            return Outcome(REFUTED, dt, cex)
        why = str(enc.s.reason_unknown())
    return Outcome(UNKNOWN, time.perf_counter() - t0, detail=f"{why} with seeds {', '.join(map(str, SEEDS))}")


def _all(parts: list[tuple[str, Callable[[_Enc], dict]]]) -> Outcome:
    """Prove each part; the theorem holds if every part does."""
    total = 0.0
    for name, build in parts:
        o = _check_unsat(build)
        total += o.seconds
        if o.verdict != PROVED:
            o.seconds = total
            o.detail = f"part '{name}': {o.detail}".rstrip(": ")
            return o
    return Outcome(PROVED, total, detail=f"{len(parts)} part{'s' if len(parts) != 1 else ''}: " + "; ".join(n for n, _ in parts))


# --- key groups ------------------------------------------------------------------------------


def _kg_parts(start_formula: str = "flink", java: bool = False, max_m: int | None = None):
    """The four key-group claims as refutation queries.  ``start_formula='floor'`` is the
    mutant (start = i*M/P, without rounding up)."""

    def domain(e: _Enc):
        M, P, i = e.var("M"), e.var("P"), e.var("i")
        e.add(1 <= P, P <= M, 0 <= i, i < P)
        if max_m is not None:
            e.add(M <= max_m)
        return M, P, i

    def start(e, M, P, i):
        if java:
            return e.jdiv(e.jadd(e.jmul(i, M), P - 1), P)
        if start_formula == "floor":
            return e.div(i * M, P)
        return e.div(i * M + P - 1, P)

    def end(e, M, P, i):
        if java:
            return e.jdiv(e.jadd(e.jmul(i + 1, M), -1), P)
        return e.div((i + 1) * M - 1, P)

    def op(e, M, P, kg):
        if java:
            return e.jdiv(e.jmul(kg, P), M)
        return e.div(kg * P, M)

    def nonempty(e):
        M, P, i = domain(e)
        s, t = start(e, M, P, i), end(e, M, P, i)
        e.add(z3.Not(s <= t))
        return {"M": M, "P": P, "i": i, "start": s, "end": t}

    def contiguous(e):
        M, P, i = domain(e)
        e.add(i < P - 1)
        t, s2 = end(e, M, P, i), start(e, M, P, i + 1)
        e.add(s2 != t + 1)
        return {"M": M, "P": P, "i": i, "end(i)": t, "start(i+1)": s2}

    def covers(e):
        M, P, i = domain(e)
        s0, last = start(e, M, P, 0 * i), end(e, M, P, P - 1)
        e.add(z3.Or(s0 != 0, last != M - 1))
        return {"M": M, "P": P, "start(0)": s0, "end(P-1)": last}

    def agrees(e):
        M, P, i = domain(e)
        kg = e.var("kg")
        s, t = start(e, M, P, i), end(e, M, P, i)
        e.add(s <= kg, kg <= t)
        o = op(e, M, P, kg)
        e.add(o != i)
        return {"M": M, "P": P, "i": i, "kg": kg, "operatorIndex(kg)": o}

    return [("non-empty", nonempty), ("contiguous", contiguous), ("covers [0, M-1]", covers), ("operator index agrees", agrees)]


def _any_java_violation(e: _Enc, hi: int) -> dict:
    """Some key-group claim fails under Java int arithmetic with M <= hi."""
    M, P, i, kg = e.var("M"), e.var("P"), e.var("i"), e.var("kg")
    e.add(1 <= P, P <= M, M <= hi, 0 <= i, i < P)
    st = e.jdiv(e.jadd(e.jmul(i, M), P - 1), P)
    en = e.jdiv(e.jadd(e.jmul(i + 1, M), -1), P)
    st2 = e.jdiv(e.jadd(e.jmul(i + 1, M), P - 1), P)
    o = e.jdiv(e.jmul(kg, P), M)
    e.add(
        z3.Or(
            z3.Not(st <= en),
            z3.And(i < P - 1, st2 != en + 1),
            z3.And(i == 0, st != 0),
            z3.And(i == P - 1, en != M - 1),
            z3.And(st <= kg, kg <= en, o != i),
        )
    )
    return {
        "M": M,
        "P": P,
        "i": i,
        "start(i) Java": st,
        "end(i) Java": en,
        "start(i+1) Java": st2,
        "start(i) exact": e.div(i * M + P - 1, P),
        "end(i) exact": e.div((i + 1) * M - 1, P),
        "start(i+1) exact": e.div((i + 1) * M + P - 1, P),
    }


@lru_cache(maxsize=8)
def first_java_break(lo: int, hi: int) -> Outcome:
    """The smallest M in (lo, hi] for which Java int arithmetic breaks a key-group claim,
    by binary search on the monotone question "is there a violation with M <= x?"."""
    t0 = time.perf_counter()
    witness = None
    if _check_unsat(lambda e: _any_java_violation(e, hi)).verdict == PROVED:
        return Outcome(PROVED, time.perf_counter() - t0, detail=f"no violation for any M <= {hi}")
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        o = _check_unsat(lambda e, mid=mid: _any_java_violation(e, mid))
        if o.verdict == UNKNOWN:
            return Outcome(UNKNOWN, time.perf_counter() - t0, detail=f"at M <= {mid}: {o.detail}")
        if o.verdict == REFUTED:
            hi, witness = mid, o.counterexample
        else:
            lo = mid
    if witness is None or witness["M"] != hi:
        o = _check_unsat(lambda e: _any_java_violation(e, hi))
        witness = o.counterexample
    return Outcome(REFUTED, time.perf_counter() - t0, witness, detail=f"first break at M = {hi}")


# --- even split ------------------------------------------------------------------------------


def _even_split_parts(mutant: bool = False):
    def ends(r, base, rem):
        a = r * base + z3.If(r < rem, r, rem)
        r1 = r + 1
        if mutant:  # one extra element too many handed out at the front
            b = r1 * base + z3.If(r1 < rem + 1, r1, rem + 1)
        else:
            b = r1 * base + z3.If(r1 < rem, r1, rem)
        return a, b

    def domain(e):
        T, P, r = e.var("T"), e.var("P"), e.var("r")
        e.add(T >= 0, P >= 1, 0 <= r, r < P)
        base, rem = e.var("base"), e.var("rem")
        e.add(T == base * P + rem, 0 <= rem, rem < P, base >= 0)  # base = T / P, rem = T % P
        return T, P, r, base, rem

    def first_starts_at_zero(e):
        T, P, r, base, rem = domain(e)
        a, _ = ends(0 * r, base, rem)
        e.add(a != 0)
        return {"T": T, "P": P, "a(0)": a}

    def last_ends_at_total(e):
        T, P, r, base, rem = domain(e)
        _, b = ends(P - 1, base, rem)
        e.add(b != T)
        return {"T": T, "P": P, "b(P-1)": b}

    def contiguous(e):
        T, P, r, base, rem = domain(e)
        e.add(r < P - 1)
        _, b = ends(r, base, rem)
        a2, _ = ends(r + 1, base, rem)
        e.add(a2 != b)
        return {"T": T, "P": P, "r": r, "b(r)": b, "a(r+1)": a2}

    def balanced(e):
        T, P, r, base, rem = domain(e)
        a, b = ends(r, base, rem)
        e.add(b - a != base + z3.If(r < rem, 1, 0))
        return {"T": T, "P": P, "r": r, "size": b - a}

    return [
        ("position 0 starts at 0", first_starts_at_zero),
        ("the last position ends at T", last_ends_at_total),
        ("consecutive positions are contiguous", contiguous),
        ("sizes are base or base+1, extras first", balanced),
    ]


def _rotation_parts(names: int = 3, mutant: bool = False):
    def balanced(e):
        P = e.var("P")
        e.add(P >= 1)
        ops = [e.var("op"), e.var("op")]
        for op in ops:
            e.add(0 <= op, op < P)
        loads = [0, 0]
        start = 0
        totals = []
        for _ in range(names):
            T = e.var("T")
            e.add(T >= 0)
            totals.append(T)
            base, rem = e.div(T, P), e.mod(T, P)
            for k, op in enumerate(ops):
                pos = e.mod(op - start + P, P)
                loads[k] = loads[k] + base + z3.If(pos < rem, 1, 0)
            start = 0 if mutant else e.mod(start + rem, P)
        e.add(loads[0] - loads[1] > 1)
        shown = {"P": P, "op a": ops[0], "op b": ops[1], "load a": loads[0], "load b": loads[1]}
        shown.update({f"T{k}": t for k, t in enumerate(totals)})
        return shown

    return [(f"loads differ by at most one across {names} state names", balanced)]


# --- union and broadcast -----------------------------------------------------------------------


def _union_parts(mutant: bool = False):
    """Union: each new subtask gets the concatenation of every old list.  Element k of old
    list i sits at off(i) + k, off(0) = 0, off(i+1) = off(i) + len(i).  Lemma (by induction,
    base and step proved here): i < j implies off(j) >= off(i) + len(i).  Then the layout is
    injective into [0, off(oldP)): every element appears exactly once."""
    step = -1 if mutant else 0

    def arrays(e):
        ln = z3.Array(f"len!{e.var('a')}", z3.IntSort(), z3.IntSort())
        off = z3.Array(f"off!{e.var('a')}", z3.IntSort(), z3.IntSort())
        return ln, off

    def lemma_base(e):
        ln, off = arrays(e)
        i = e.var("i")
        e.add(i >= 0, ln[i] >= 0, off[i + 1] == off[i] + ln[i] + step)
        e.add(z3.Not(off[i + 1] >= off[i] + ln[i]))
        return {"i": i, "len(i)": ln[i]}

    def lemma_step(e):
        ln, off = arrays(e)
        i, j = e.var("i"), e.var("j")
        e.add(0 <= i, i < j, ln[j] >= 0, off[j + 1] == off[j] + ln[j] + step)
        e.add(off[j] >= off[i] + ln[i])  # induction hypothesis
        e.add(z3.Not(off[j + 1] >= off[i] + ln[i]))
        return {"i": i, "j": j}

    def injective(e):
        ln, off = arrays(e)
        i1, i2, k1, k2 = e.var("i"), e.var("i"), e.var("k"), e.var("k")
        e.add(0 <= i1, i1 <= i2, 0 <= k1, k1 < ln[i1], 0 <= k2, k2 < ln[i2])
        e.add(z3.Implies(i1 < i2, off[i2] >= off[i1] + ln[i1]))  # the lemma
        e.add(z3.Or(i1 != i2, k1 != k2), off[i1] + k1 == off[i2] + k2)
        return {"i1": i1, "k1": k1, "i2": i2, "k2": k2}

    return [("lemma base", lemma_base), ("lemma step", lemma_step), ("layout injective", injective)]


def _broadcast_parts(mutant: bool = False):
    """Broadcast: new i gets entry i mod E (E = number of entries, normally oldP).  Every new
    subtask gets exactly one entry, a complete copy (all entries are equal copies); on scale-up
    entry j is copied floor(newP/E) + [j < newP mod E] times; on scale-down new i gets entry i."""

    def pick(e, i, E):
        return e.mod(i, E + 1) if mutant else e.mod(i, E)

    def valid(e):
        i, N, E = e.var("i"), e.var("newP"), e.var("E")
        e.add(N >= 1, E >= 1, 0 <= i, i < N)
        x = pick(e, i, E)
        e.add(z3.Or(x < 0, x >= E))
        return {"newP": N, "E": E, "i": i, "entry": x}

    def copies(e):
        j, N, E, c = e.var("j"), e.var("newP"), e.var("E"), e.var("c")
        e.add(N >= 1, E >= 1, 0 <= j, j < E)
        # c = number of i in [0, N) with i mod E == j: i = q*E + j for q in [0, c)
        e.add(c >= 0, z3.If(j < N, z3.And((c - 1) * E + j < N, c * E + j >= N), c == 0))
        expected = e.div(N, E) + z3.If(j < e.mod(N, E), 1, 0)
        if mutant:
            expected = e.div(N, E + 1) + z3.If(j < e.mod(N, E), 1, 0)
        e.add(c != expected)
        return {"newP": N, "E": E, "j": j, "copies": c}

    def scale_down(e):
        i, N, E = e.var("i"), e.var("newP"), e.var("E")
        e.add(1 <= N, N <= E, 0 <= i, i < N)
        x = pick(e, i, E)
        e.add(x != i)
        return {"newP": N, "E": E, "i": i, "entry": x}

    return [("one valid entry per new subtask", valid), ("copy counts on scale-up", copies), ("identity on scale-down", scale_down)]


# --- subtask state mappers ----------------------------------------------------------------------


def _round_robin_parts(mutant: bool = False):
    """ROUND_ROBIN (and ARBITRARY, which is defined as ROUND_ROBIN): new n reads
    {n + k*newP < oldP}; every old subtask is read by exactly one new subtask."""
    stride = (lambda N: N + 1) if mutant else (lambda N: N)

    def exists(e):
        j, O, N = e.var("j"), e.var("oldP"), e.var("newP")
        e.add(O >= 1, N >= 1, 0 <= j, j < O)
        n = e.mod(j, stride(N))
        k = e.div(j, stride(N))
        e.add(z3.Not(z3.And(0 <= n, n < N, k >= 0, n + k * N == j)))
        return {"oldP": O, "newP": N, "j": j, "n": n}

    def unique(e):
        N, n1, n2, k1, k2 = e.var("newP"), e.var("n"), e.var("n"), e.var("k"), e.var("k")
        e.add(N >= 1, 0 <= n1, n1 < N, 0 <= n2, n2 < N, k1 >= 0, k2 >= 0, n1 != n2)
        e.add(n1 + k1 * stride(N) == n2 + k2 * stride(N))
        return {"newP": N, "n1": n1, "n2": n2}

    return [("every old subtask is read", exists), ("by exactly one new subtask", unique)]


def _range_terms(e: _Enc, O, N, n, mutant=False):
    """RANGE: new n reads [opOld(start_n), opOld(end_n)], M = 32768, opOld(kg) = kg*oldP/M."""
    M = M_FLINK
    s = e.div(n * M + N - 1, N)
    t = e.div((n + 1) * M - 1, N)
    lo = e.div(s * O, M)
    hi = e.div(t * O, M) - (1 if mutant else 0)
    return s, t, lo, hi


def _range_parts(mutant: bool = False):
    M = M_FLINK

    def domain(e):
        O, N = e.var("oldP"), e.var("newP")
        e.add(1 <= O, O <= M, 1 <= N, N <= M)
        return O, N

    def covers(e):
        O, N = domain(e)
        j = e.var("j")
        e.add(0 <= j, j < O)
        kg = e.ceil(j * M, O)  # old subtask j's first key group
        n = e.div(kg * N, M)  # the new subtask owning it
        _, _, lo, hi = _range_terms(e, O, N, n, mutant)
        e.add(z3.Not(z3.And(0 <= n, n < N, lo <= j, j <= hi)))
        return {"oldP": O, "newP": N, "j": j, "n": n, "lo": lo, "hi": hi}

    def ambiguous_only_at_boundaries(e):
        O, N = domain(e)
        j, n1, n2 = e.var("j"), e.var("n"), e.var("n")
        e.add(0 <= n1, n1 < n2, n2 < N)
        _, _, lo1, hi1 = _range_terms(e, O, N, n1, mutant)
        _, _, lo2, hi2 = _range_terms(e, O, N, n2, mutant)
        _, _, lo_next, _ = _range_terms(e, O, N, n1 + 1, mutant)
        e.add(lo1 <= j, j <= hi1, lo2 <= j, j <= hi2)
        # read by two new subtasks, yet not the boundary subtask shared by n1 and n1+1
        e.add(z3.Not(z3.And(hi1 == j, lo_next == j)))
        return {"oldP": O, "newP": N, "j": j, "n1": n1, "n2": n2}

    def boundary_is_ambiguous(e):
        O, N = domain(e)
        n = e.var("n")
        e.add(0 <= n, n < N - 1)
        _, _, lo1, hi1 = _range_terms(e, O, N, n, mutant)
        _, _, lo2, hi2 = _range_terms(e, O, N, n + 1, mutant)
        # if the boundary of n and n+1 falls inside one old subtask, both read it
        e.add(hi1 == lo2, z3.Not(z3.And(lo1 <= hi1, lo2 <= hi2)))
        return {"oldP": O, "newP": N, "n": n}

    return [
        ("every old subtask is read", covers),
        ("an old subtask read twice sits on a range boundary", ambiguous_only_at_boundaries),
        ("a boundary subtask is read by both sides", boundary_is_ambiguous),
    ]


def _full_first_parts(mutant: bool = False):
    """FULL: every new subtask reads every old one (so it is ambiguous as soon as newP > 1).
    FIRST: new subtask 0 reads every old subtask and the others none: each old subtask is read
    exactly once."""
    first = 1 if mutant else 0

    def full(e):
        O, N, n, j = e.var("oldP"), e.var("newP"), e.var("n"), e.var("j")
        e.add(O >= 1, N >= 1, 0 <= n, n < N, 0 <= j, j < O)
        reads = z3.And(0 <= j, j < O)  # FULL's definition: [0, oldP)
        e.add(z3.Not(reads))
        return {"oldP": O, "newP": N, "n": n, "j": j}

    def first_once(e):
        O, N, j = e.var("oldP"), e.var("newP"), e.var("j")
        e.add(O >= 1, N >= 1, 0 <= j, j < O)
        n1, n2 = e.var("n"), e.var("n")
        read = lambda n: z3.And(0 <= n, n < N, n == first)  # noqa: E731
        # not read at all, or read by two distinct new subtasks
        e.add(z3.Or(z3.ForAll([n1], z3.Not(read(n1))), z3.And(read(n1), read(n2), n1 != n2)))
        return {"oldP": O, "newP": N, "j": j}

    return [("FULL reads all", full), ("FIRST reads each old subtask once", first_once)]


# --- pointwise wiring --------------------------------------------------------------------------


def _pointwise_ge_parts(mutant: bool = False):
    """S >= T: downstream i reads [floor(iS/T), floor((i+1)S/T) - 1]: non-empty, the ranges
    are disjoint and contiguous in i, and cover [0, S-1] (every partition is read)."""
    extra = 1 if mutant else 0

    def rng(e, S, T, i):
        return e.div(i * S, T), e.div((i + 1) * S, T) - 1 + extra

    def domain(e):
        S, T, i = e.var("S"), e.var("T"), e.var("i")
        e.add(1 <= T, T <= S, 0 <= i, i < T)
        return S, T, i

    def nonempty(e):
        S, T, i = domain(e)
        a, b = rng(e, S, T, i)
        e.add(a > b)
        return {"S": S, "T": T, "i": i}

    def contiguous(e):
        S, T, i = domain(e)
        e.add(i < T - 1)
        _, b = rng(e, S, T, i)
        a2, _ = rng(e, S, T, i + 1)
        e.add(a2 != b + 1)
        return {"S": S, "T": T, "i": i, "end(i)": b, "start(i+1)": a2}

    def covers(e):
        S, T, i = domain(e)
        a0, _ = rng(e, S, T, 0 * i)
        _, bl = rng(e, S, T, T - 1)
        e.add(z3.Or(a0 != 0, bl != S - 1))
        return {"S": S, "T": T, "start(0)": a0, "end(T-1)": bl}

    return [("non-empty", nonempty), ("disjoint and contiguous", contiguous), ("every partition read", covers)]


def _pointwise_lt_parts(mutant: bool = False):
    """S < T: upstream p feeds downstreams [ceil(pT/S), ceil((p+1)T/S)): every downstream reads
    exactly one partition, and every partition is read."""

    def start(e, S, T, p):
        return e.div(p * T, S) if mutant else e.ceil(p * T, S)

    def domain(e):
        S, T = e.var("S"), e.var("T")
        e.add(1 <= S, S < T)
        return S, T

    def exactly_one(e):
        S, T = domain(e)
        i, p1, p2 = e.var("i"), e.var("p"), e.var("p")
        e.add(0 <= i, i < T, 0 <= p1, p1 < p2, p2 < S)
        feeds = lambda p: z3.And(start(e, S, T, p) <= i, i < start(e, S, T, p + 1))  # noqa: E731
        e.add(feeds(p1), feeds(p2))
        return {"S": S, "T": T, "i": i, "p1": p1, "p2": p2}

    def some(e):
        S, T = domain(e)
        i = e.var("i")
        e.add(0 <= i, i < T)
        p = e.div(i * S, T)
        e.add(z3.Not(z3.And(0 <= p, p < S, start(e, S, T, p) <= i, i < start(e, S, T, p + 1))))
        return {"S": S, "T": T, "i": i, "p": p}

    def every_partition_read(e):
        S, T = domain(e)
        p = e.var("p")
        e.add(0 <= p, p < S)
        e.add(start(e, S, T, p) >= start(e, S, T, p + 1))
        return {"S": S, "T": T, "p": p}

    return [
        ("no downstream reads two partitions", exactly_one),
        ("every downstream reads one", some),
        ("every partition is read", every_partition_read),
    ]


# --- output channel state on POINTWISE edges (model.pointwise, apache/flink#28523) --------------


def _div1(e: _Enc, a, b):
    """``e.div`` with one quotient per term: the same floor written twice is then the same
    variable, so a claim that repeats a condition it assumes is refuted or proved by its shape
    rather than by nonlinear reasoning about two equal quotients (which timed out)."""
    key = (z3.simplify(a).get_id(), z3.simplify(b).get_id())
    if key not in e.quotients:
        e.quotients[key] = e.div(a, b)
    return e.quotients[key]


def _mod1(e: _Enc, a, b):
    return a - b * _div1(e, a, b)


def _pw_connected(e: _Enc, u, d, S, T):
    """u -> d is an edge of POINTWISE S:T (``producersOf`` / ``consumersOf``)."""
    return z3.And(0 <= u, u < S, 0 <= d, d < T,
                  z3.If(S >= T, z3.And(_div1(e, d * S, T) <= u, u < _div1(e, (d + 1) * S, T)),
                        z3.And(_div1(e, u * T + S - 1, S) <= d, d < _div1(e, (u + 1) * T + S - 1, S))))


def _pw_restore_parts(old_pw: bool, new_pw: bool, mutant: str = ""):
    """Old output buffer (u, d) of an edge with the old pattern goes to new downstream
    d mod newT; new upstream U writes it iff U inherited u and (new POINTWISE) d mod newT is
    connected to U and U is its lowest producer.  ``mutant``: "no-primary" drops the
    primary-producer rule, "no-filter" the recovery filter and the rule.  Parallelisms in
    [1, 32768] (Flink's maximum), where every product stays below 2^31: the integers are
    Java's ints."""

    def domain(e):
        oS, oT, nS, nT = (e.var(x) for x in ("oldS", "oldT", "newS", "newT"))
        for x in (oS, oT, nS, nT):
            e.add(1 <= x, x <= M_FLINK)
        u, d = e.var("u"), e.var("d")
        e.add(0 <= u, u < oS, 0 <= d, d < oT)
        if old_pw:
            e.add(_pw_connected(e, u, d, oS, oT))
        return oS, oT, nS, nT, u, d

    def holds(e, U, u, oS, oT, nS, nT, D1, o1):
        """U inherited old upstream u, through new downstream D1 and old downstream o1."""
        if not new_pw:
            return z3.And(0 <= U, U < nS, _mod1(e, u, nS) == U)  # the partitioner's ROUND_ROBIN
        return z3.And(_pw_connected(e, U, D1, nS, nT), 0 <= o1, o1 < oT, _mod1(e, o1, nT) == D1,
                      _pw_connected(e, u, o1, oS, oT) if old_pw else z3.BoolVal(True))

    def writes(e, U, u, d, oS, oT, nS, nT, D1, o1):
        h = holds(e, U, u, oS, oT, nS, nT, D1, o1)
        if not new_pw or mutant == "no-filter":
            return h
        nd = _mod1(e, d, nT)
        rule = [_pw_connected(e, U, nd, nS, nT)]
        if mutant != "no-primary":
            rule.append(U == _div1(e, nd * nS, nT))
        return z3.And(h, *rule)

    def shown(oS, oT, nS, nT, u, d, **more):
        return {"oldS": oS, "oldT": oT, "newS": nS, "newT": nT, "u": u, "d": d, **more}

    def at_least_once(e):
        oS, oT, nS, nT, u, d = domain(e)
        nd = _mod1(e, d, nT)
        # the writer: the new downstream's lowest producer, or u's round-robin heir
        first = _div1(e, nd * nS, nT) if new_pw else _mod1(e, u, nS)
        e.add(z3.Not(writes(e, first, u, d, oS, oT, nS, nT, nd, d)))
        return shown(oS, oT, nS, nT, u, d, writer=first)

    def at_most_once(e):
        oS, oT, nS, nT, u, d = domain(e)
        U1, U2 = e.var("U1"), e.var("U2")
        w = [(e.var("D"), e.var("o")) for _ in range(2)]
        e.add(U1 < U2, writes(e, U1, u, d, oS, oT, nS, nT, *w[0]), writes(e, U2, u, d, oS, oT, nS, nT, *w[1]))
        return shown(oS, oT, nS, nT, u, d, U1=U1, U2=U2)

    def connected_only(e):
        oS, oT, nS, nT, u, d = domain(e)
        U, D1, o1 = e.var("U"), e.var("D"), e.var("o")
        nd = _mod1(e, d, nT)
        e.add(writes(e, U, u, d, oS, oT, nS, nT, D1, o1), z3.Not(_pw_connected(e, U, nd, nS, nT)))
        return shown(oS, oT, nS, nT, u, d, U=U, newD=nd)

    parts = [("at least once", at_least_once), ("at most once", at_most_once)]
    if new_pw:
        parts.append(("only to a connected downstream", connected_only))
    return parts


def _pw_restore_all(mutant: str = "", only: tuple[str, ...] = ("at least once", "at most once")):
    """The parts named ``only`` of every pattern change, each part named by its change."""
    out = []
    for old_pw, new_pw in ((True, True), (False, True), (True, False), (False, False)):
        change = f"{'PW' if old_pw else 'A2A'}->{'PW' if new_pw else 'A2A'}"
        out += [(f"{change}: {name}", f) for name, f in _pw_restore_parts(old_pw, new_pw, mutant) if name in only]
    return out


def _pw_read_as_pointwise_loses(bound: int = 4):
    """The wrong reading of a checkpoint taken without the pattern hook: the old edge was
    ALL_TO_ALL (every (u, d) has a buffer) but the restore takes the new job's POINTWISE
    pattern for it.  The claim "every buffer has a writer" is refuted by a buffer that its only
    possible writer, the lowest producer of d mod newT, did not inherit through any new
    downstream D and old downstream o.  That is a universal over (D, o), expanded here into a
    conjunction for parallelisms up to ``bound`` (Z3's quantifier instantiation gave up on the
    unbounded form): a refutation within the bound is a real counterexample."""

    def lost(e):
        oS, oT, nS, nT, u, d = (e.var(x) for x in ("oldS", "oldT", "newS", "newT", "u", "d"))
        for x in (oS, oT, nS, nT):
            e.add(1 <= x, x <= bound)
        e.add(0 <= u, u < oS, 0 <= d, d < oT)
        nd = _mod1(e, d, nT)
        first = _div1(e, nd * nS, nT)
        for D in range(bound):
            for o in range(bound):
                e.add(z3.Not(z3.And(_pw_connected(e, first, z3.IntVal(D), nS, nT), o < oT,
                                    _mod1(e, z3.IntVal(o), nT) == D, _pw_connected(e, u, z3.IntVal(o), oS, oT))))
        return {"oldS": oS, "oldT": oT, "newS": nS, "newT": nT, "u": u, "d": d}

    return [("a buffer no heir writes", lost)]


# --- the theorems ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Theorem:
    name: str
    statement: str
    prove: Callable[[], Outcome] = field(repr=False)
    mutant_statement: str = ""
    mutant: Callable[[], Outcome] = field(default=lambda: Outcome(UNKNOWN), repr=False)
    expect: str = PROVED  # what ``prove`` must give for the theorem to pass


def _break_theorem() -> Outcome:
    o = first_java_break(M_FLINK, 1 << 20)
    if o.verdict == REFUTED and o.counterexample["M"] > M_FLINK:
        return Outcome(PROVED, o.seconds, o.counterexample, f"{o.detail} > {M_FLINK}: Flink's bound is safe")
    return o


def _break_mutant() -> Outcome:
    """Claim "Java int arithmetic is safe for every M <= 2^20": Z3 must refute it."""
    return _check_unsat(lambda e: _any_java_violation(e, 1 << 20))


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
        "seed 003 / apache/flink#28523, for each pattern change A2A<->A2A, A2A<->PW, PW<->A2A, "
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
)


def theorem(name: str) -> Theorem:
    for t in THEOREMS:
        if t.name == name:
            return t
    raise KeyError(name)
