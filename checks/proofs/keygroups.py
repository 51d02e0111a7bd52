"""Z3 proofs about key groups (``KeyGroupRangeAssignment``, ``model.keygroups``): the range of
operator i is non-empty, the ranges are contiguous and cover [0, M-1], and
``computeOperatorIndexForKeyGroup`` agrees with them, exactly and in Java ``int`` arithmetic;
and the smallest max parallelism at which Java ``int`` arithmetic breaks them (46341, above
Flink's bound 32768)."""

from __future__ import annotations

import time
from functools import lru_cache

import z3

from .solver import M_FLINK, PROVED, REFUTED, UNKNOWN, Outcome, _check_unsat, _Enc


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


def _break_theorem() -> Outcome:
    o = first_java_break(M_FLINK, 1 << 20)
    if o.verdict == REFUTED and o.counterexample["M"] > M_FLINK:
        return Outcome(PROVED, o.seconds, o.counterexample, f"{o.detail} > {M_FLINK}: Flink's bound is safe")
    return o


def _break_mutant() -> Outcome:
    """Claim "Java int arithmetic is safe for every M <= 2^20": Z3 must refute it."""
    return _check_unsat(lambda e: _any_java_violation(e, 1 << 20))
