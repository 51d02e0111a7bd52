"""Z3 proofs about the restore of channel state: the ``SubtaskStateMapper`` rules (ROUND_ROBIN
and ARBITRARY, RANGE with its ambiguous subtasks, FULL and FIRST), the wiring of POINTWISE
edges (``VertexInputInfoComputationUtils.computeVertexInputInfoForPointwise``) and the pointwise-UC thread's
restore of output channel state on POINTWISE edges (``model.pointwise``, apache/flink#28523:
each old buffer written exactly once, only to a connected downstream)."""

from __future__ import annotations

import z3

from .solver import M_FLINK, _Enc


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


def _pw_buffer(e: _Enc, old_pw: bool):
    """An old output buffer (u, d) of an edge with the old pattern, at parallelisms in [1, 32768]
    at both ends, old and new: (oldS, oldT, newS, newT, u, d)."""
    oS, oT, nS, nT = (e.var(x) for x in ("oldS", "oldT", "newS", "newT"))
    for x in (oS, oT, nS, nT):
        e.add(1 <= x, x <= M_FLINK)
    u, d = e.var("u"), e.var("d")
    e.add(0 <= u, u < oS, 0 <= d, d < oT)
    if old_pw:
        e.add(_pw_connected(e, u, d, oS, oT))
    return oS, oT, nS, nT, u, d


def _pw_restore_parts(old_pw: bool, new_pw: bool, mutant: str = ""):
    """Old output buffer (u, d) of an edge with the old pattern goes to new downstream
    d mod newT; new upstream U writes it iff U inherited u and (new POINTWISE) d mod newT is
    connected to U and U is its lowest producer.  ``mutant``: "no-primary" drops the
    primary-producer rule, "no-filter" the recovery filter and the rule.  Parallelisms in
    [1, 32768] (Flink's maximum), where every product stays below 2^31: the integers are
    Java's ints."""

    def domain(e):
        return _pw_buffer(e, old_pw)

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


def _pw_downstream_parts(mutant: bool = False):
    """Recovery on the downstream (``recover-output-on-downstream``; apache/flink#28523's
    ``distributePointwiseOutputBufferToDownstream`` and ``recoverPointwise``) on a new POINTWISE
    edge: old buffer (u, d) is restored at new downstream d mod newT on the channel of its
    first producer, floor(newD * newS / newT).  The claim: that producer feeds newD, so it
    inherited u through (newD, d), and ``computePrimaryUpstreamMapping(newD)[u]``, the first
    producer of newD that inherited u, is that channel.  ``mutant``: the buffer filed under
    its old producer's own channel (u, d mod newT), which the new edge need not have."""

    def part(old_pw: bool):
        def claim(e):
            oS, oT, nS, nT, u, d = _pw_buffer(e, old_pw)
            nd = _mod1(e, d, nT)
            shown = {"oldS": oS, "oldT": oT, "newS": nS, "newT": nT, "u": u, "d": d, "newD": nd}
            if mutant:
                e.add(z3.Not(_pw_connected(e, u, nd, nS, nT)))
                return shown
            first = _div1(e, nd * nS, nT)
            e.add(z3.Not(_pw_connected(e, first, nd, nS, nT)))
            return {**shown, "channel": first}

        return claim

    which = "the old producer's channel" if mutant else "the first producer's channel"
    return [(f"{'PW' if old_pw else 'A2A'}->PW: {which}", part(old_pw)) for old_pw in (True, False)]


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
