"""The families of ``ckptcheck conform``: each a model function, the Flink class and method it
mirrors, and the cases both are asked.  This module holds the two shapes (:class:`Op`,
:class:`Family`) and the generators the families share; the families are in
``keys`` (key groups, HashMap order), ``state`` (state mappers, keyed and
operator state, retention) and ``graph`` (wiring, pipelined regions), and their list in
``families``.

An :class:`Op` pairs one model function (``model``: arguments -> a JSON-like answer) with one
Java operation of the family's class in ``checks/conform/java`` (the same arguments, Flink's answer).
``exhaustive`` lists every case of a small range; ``random`` draws one case from a seeded
``random.Random``.  ``domain`` names the stated domain an input lies outside of (the model
refuses it on purpose; Flink may answer), so such a case counts as *refused*, never as a match.
``flink_norm`` and ``model_norm`` bring both answers to one comparable form where Flink's
answer carries an order the model does not follow on purpose (each says so).

"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ckptcheck.model import redistribution as rd

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
MAXP = rd.UPPER_BOUND_MAX_PARALLELISM


def _identity(x: Any) -> Any:
    return x


class Throws(Exception):
    """Raised by a model adapter to say "here Flink throws ``java``" (the simple name of the
    Java exception): a rule of the model that stands for an exception of Flink's."""

    def __init__(self, java: str):
        super().__init__(java)
        self.java = java


class MayThrow(Exception):
    """Raised by a model adapter to say "here Flink either throws ``java`` or answers
    ``answer``, depending on something the case does not fix" (an iteration order of Flink's):
    either Flink answer is a match."""

    def __init__(self, java: str, answer):
        super().__init__(java)
        self.java = java
        self.answer = answer


@dataclass(frozen=True)
class Op:
    name: str  # the Java operation
    flink: str  # the Flink class and method it calls
    model_fn: str  # the model function it checks
    model: Callable[[list], Any]
    exhaustive: Callable[[], Iterable[list]]
    random: Callable[[random.Random], list]
    domain: Callable[[list], str | None] = lambda args: None
    flink_norm: Callable[[Any], Any] = _identity
    model_norm: Callable[[Any], Any] = _identity
    weight: float = 1.0  # share of the family's random cases
    flink_args: Callable[[list], Any] = _identity  # the arguments as the Java side takes them


@dataclass(frozen=True)
class Family:
    name: str
    java: str  # the class in checks/conform/java
    summary: str
    ops: tuple[Op, ...]
    weight: float = 1.0  # share of --cases
    domains: tuple[str, ...] = field(default=())  # every domain statement its ops may return



_EDGE_INTS = (0, 1, -1, 2, -2, INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1, 1 << 16, -(1 << 16), 0x7FFF, 0x8000, 0xFFFF)


def _int32(r: random.Random) -> int:
    return r.choice(_EDGE_INTS) if r.random() < 0.02 else r.randint(INT_MIN, INT_MAX)



def _string(r: random.Random) -> str:
    """A string of 0-12 UTF-16 code units' worth of characters: ASCII, BMP, supplementary
    (two code units) and, rarely, a lone surrogate."""
    out = []
    for _ in range(r.randint(0, 8)):
        x = r.random()
        if x < 0.5:
            out.append(chr(r.randint(32, 126)))
        elif x < 0.8:
            c = r.randint(0x80, 0xFFFF)
            out.append(chr(c if not 0xD800 <= c <= 0xDFFF else 0x4E00))
        elif x < 0.995:
            out.append(chr(r.randint(0x10000, 0x10FFFF)))
        else:
            out.append(chr(r.randint(0xD800, 0xDFFF)))
    return "".join(out)



def _lone_surrogate(k) -> bool:
    return isinstance(k, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in k)



_NAMES = tuple(f"state-{i}" for i in range(40)) + ("a", "b", "c", "union", "offsets", "splits", "buffer")

