"""Z3 proofs about the repartitioning of operator state (``RoundRobinOperatorStateRepartitioner``,
``model.redistribution``): SPLIT_DISTRIBUTE's even split of one state name and its rotation
across names, UNION's concatenation (every element exactly once) and BROADCAST's copies."""

from __future__ import annotations

import z3


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
