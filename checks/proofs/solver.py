"""What every proof of ``checks.proofs.theorems`` shares: the verdicts (``PROVED``, ``REFUTED``,
``UNKNOWN``), :class:`Outcome`, the encoder ``_Enc`` (a Z3 solver with integer division by a
quotient variable and Java ``int`` arithmetic over the integers), ``_check_unsat`` (one
refutation query, asked again with other seeds when Z3 answers unknown) and ``_all`` (a
theorem's parts, one query each)."""

from __future__ import annotations

import time
from dataclasses import dataclass
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
