"""``ckptcheck conform``: the model's functions against the Flink classes they mirror.

Each case goes to both: the model's function (Python) and the Flink class and method it cites
(Java, through :mod:`checks.flinkjvm`), with the same arguments.  A case is

- a *match*: equal answers, or both refuse the input (the model's ``ValueError`` and any Flink
  exception; the model's ``UnsupportedRescaleError`` only with Flink's
  ``UnsupportedOperationException``, the one exception the model reproduces as behaviour);
- *refused*: outside a stated domain of the model (``Op.domain``), the model refuses and Flink
  answers; never counted as a match, and every such domain is listed in docs/pages/conform.md;
- a *mismatch*: anything else, shown with the input, both answers and the Flink method.

Cases are the exhaustive small ranges of every operation plus ``--cases`` random ones drawn
from ``random.Random(seed)`` and shared out by the families' weights, so the same seed gives
the same cases and the same verdict.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ckptcheck.checks.flinkjvm import FlinkJVM
from ckptcheck.model.redistribution import UnsupportedRescaleError

from .families import FAMILIES, Family, Op
from .op import MayThrow, Throws

BATCH = 4000
EXAMPLES = 3


@dataclass(frozen=True)
class Mismatch:
    op: str
    flink_method: str
    model_fn: str
    args: Any
    model: str
    flink: str


@dataclass
class FamilyResult:
    name: str
    summary: str
    cases: int = 0
    matched: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    mismatches: int = 0
    examples: list[Mismatch] = field(default_factory=list)
    missing: str = ""  # what the Flink build lacks, if the family could not run
    seconds: float = 0.0
    complete: bool = False

    @property
    def refused_total(self) -> int:
        return sum(self.refused.values())


@dataclass
class ConformResult:
    flink_version: str
    flink_jar: str
    seed: int
    random_cases: int
    families: list[FamilyResult]
    interrupted: bool = False
    seconds: float = 0.0

    @property
    def cases(self) -> int:
        return sum(f.cases for f in self.families)

    @property
    def mismatches(self) -> int:
        return sum(f.mismatches for f in self.families)

    @property
    def refused(self) -> int:
        return sum(f.refused_total for f in self.families)

    @property
    def missing(self) -> list[FamilyResult]:
        return [f for f in self.families if f.missing]

    def summary(self) -> str:
        ran = [f for f in self.families if not f.missing]
        what = (f"{self.mismatches:,} mismatch{'es' if self.mismatches != 1 else ''} in {self.cases:,} cases over "
                f"{len(ran)} famil{'ies' if len(ran) != 1 else 'y'} against Flink {self.flink_version}")
        extra = f"; {self.refused:,} refused (outside the model's stated domains)" if self.refused else ""
        cut = "; INTERRUPTED: the families not finished were not fully checked" if self.interrupted else ""
        lack = (f"; {len(self.missing)} famil{'ies' if len(self.missing) != 1 else 'y'} could not run on this build"
                if self.missing else "")
        return f"{what}{extra}{lack}{cut}; {self.seconds:.1f} s"

    @property
    def exit_status(self) -> int:
        if self.interrupted:
            return 130
        if self.mismatches:
            return 1
        return 2 if self.missing else 0


def _cases(op: Op, n: int, rng: random.Random) -> Iterable[list]:
    yield from op.exhaustive()
    for _ in range(n):
        yield op.random(rng)


def _share(total: int, weights: list[float]) -> list[int]:
    s = sum(weights) or 1.0
    out = [int(total * w / s) for w in weights]
    out[0] += total - sum(out)
    return out


def _model_answer(op: Op, args: list) -> tuple[str, Any]:
    try:
        return "v", op.model_norm(op.model(args))
    except UnsupportedRescaleError:
        return "x", "UnsupportedOperationException"
    except Throws as e:
        return "x", e.java
    except MayThrow as e:
        return "either", (e.java, op.model_norm(e.answer))
    except (ValueError, ZeroDivisionError) as e:
        return "refuse", f"{type(e).__name__}: {e}"


def _show(x: Any, limit: int = 300) -> str:
    s = repr(x)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def judge(op: Op, args: list, flink: dict) -> tuple[str, str | None, Mismatch | None]:
    """One case's verdict: ("match" | "refused" | "mismatch", domain, example)."""
    kind, mine = _model_answer(op, args)
    dom = op.domain(args)
    if kind == "either":  # Flink may throw or answer: either is a match, anything else is not
        java, answer = mine
        if ("x" in flink and flink["x"].split(":", 1)[0] == java) or ("v" in flink and op.flink_norm(flink["v"]) == answer):
            return "match", None, None
        theirs = f"throws {flink['x']}" if "x" in flink else _show(op.flink_norm(flink["v"]))
        return "mismatch", None, Mismatch(op.name, op.flink, op.model_fn, args,
                                          f"throws {java} or answers {_show(answer)}", theirs)
    if "x" in flink:
        flink_exc = flink["x"].split(":", 1)[0]
        if kind == "refuse" or (kind == "x" and mine == flink_exc):
            return "match", None, None
        if dom is not None:
            return "refused", dom, None
        return "mismatch", None, Mismatch(op.name, op.flink, op.model_fn, args, _show(mine if kind == "v" else f"raises {mine}"),
                                          f"throws {flink['x']}")
    theirs = op.flink_norm(flink["v"])
    if kind == "v" and mine == theirs:
        return "match", None, None
    if kind != "v" and dom is not None:
        return "refused", dom, None
    return "mismatch", None, Mismatch(op.name, op.flink, op.model_fn, args,
                                      _show(mine if kind == "v" else f"raises {mine}"), _show(theirs))


def run(jvm: FlinkJVM, families: list[Family], *, random_cases: int, seed: int, flink_version: str, flink_jar: str,
        broken: dict[str, str] | None = None, progress: Callable[[str], None] = lambda s: None) -> ConformResult:
    """Run every family's cases; a ``KeyboardInterrupt`` ends the run with what was found so far
    (``interrupted``), the JVM is ended by the caller's ``with``."""
    rng = random.Random(seed)
    result = ConformResult(flink_version, flink_jar, seed, random_cases, [])
    per_family = _share(random_cases, [f.weight for f in families])
    start = time.monotonic()
    try:
        for fam, n_fam in zip(families, per_family):
            fr = FamilyResult(fam.name, fam.summary)
            result.families.append(fr)
            t0 = time.monotonic()
            if broken and fam.java in broken:
                fr.missing = f"{fam.java}.java does not compile against this build: {broken[fam.java]}"
                continue
            frng = random.Random(rng.random())
            for op, n_op in zip(fam.ops, _share(n_fam, [o.weight for o in fam.ops])):
                batch: list[list] = []
                for args in _cases(op, n_op, frng):
                    batch.append(args)
                    if len(batch) >= BATCH:
                        if not _run_batch(jvm, fam, op, batch, fr):
                            break
                        batch = []
                        progress(f"conform  {fam.name}: {fr.cases:,} cases, {fr.mismatches:,} mismatches")
                else:
                    if batch:
                        _run_batch(jvm, fam, op, batch, fr)
                if fr.missing:
                    break
            fr.seconds = time.monotonic() - t0
            fr.complete = not fr.missing
    except KeyboardInterrupt:
        result.interrupted = True
        if result.families:
            result.families[-1].seconds = time.monotonic() - t0
    result.seconds = time.monotonic() - start
    return result


def _run_batch(jvm: FlinkJVM, fam: Family, op: Op, batch: list[list], fr: FamilyResult) -> bool:
    answers = jvm.call(fam.java, op.name, [op.flink_args(a) for a in batch])
    if isinstance(answers, str):
        fr.missing = f"{op.flink}: {answers}"
        return False
    for args, flink in zip(batch, answers):
        verdict, dom, example = judge(op, args, flink)
        fr.cases += 1
        if verdict == "match":
            fr.matched += 1
        elif verdict == "refused":
            fr.refused[dom] = fr.refused.get(dom, 0) + 1
        else:
            fr.mismatches += 1
            if len(fr.examples) < EXAMPLES:
                fr.examples.append(example)
    return True


def select(names: str | None) -> list[Family]:
    """The families named in a comma-separated list (all when ``None``), in the canonical order;
    raises ``ValueError`` naming an unknown one."""
    if not names:
        return list(FAMILIES)
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    known = {f.name for f in FAMILIES}
    bad = [n for n in wanted if n not in known]
    if bad or not wanted:
        raise ValueError(f"--families: unknown famil{'ies' if len(bad) > 1 else 'y'} {', '.join(map(repr, bad)) or '(none given)'}"
                         f" (known: {', '.join(f.name for f in FAMILIES)})")
    return [f for f in FAMILIES if f.name in wanted]


def lines(result: ConformResult) -> list[str]:
    """The console's account: per family its cases, matches, refused and mismatches, the first
    examples of each mismatch, the refused domains, then the summary line."""
    out = [f"{'family':<24}{'cases':>11}{'match':>11}{'refused':>9}{'mismatch':>10}{'time':>8}"]
    for f in result.families:
        if f.missing:
            out.append(f"{f.name:<24} could not run: {f.missing}")
            continue
        mark = "" if f.complete else "  (interrupted)"
        out.append(f"{f.name:<24}{f.cases:>11,}{f.matched:>11,}{f.refused_total:>9,}{f.mismatches:>10,}{f.seconds:>7.1f}s{mark}")
        for m in f.examples:
            out.append(f"  MISMATCH {m.op}{_show(m.args, 160)}: model ({m.model_fn}) {m.model}; Flink ({m.flink_method}) {m.flink}")
        for dom, n in sorted(f.refused.items()):
            out.append(f"  refused {n:,}: {dom}")
    out.append(f"RESULT: {result.summary()}")
    return out
