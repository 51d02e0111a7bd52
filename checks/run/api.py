"""The Python API: check a design in a scope with an engine, get per-property verdicts.

A user's own test checks a variant in three lines::

    from .api import check
    from ckptcheck.specs.designs import BASELINE
    from ckptcheck.specs.scopes import default_scope

    result = check(BASELINE.with_(name="keep-two", num_retained=2), default_scope())
    assert result.ok, [v.reason for v in result.violated]
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable

from ckptcheck.model.design import Design
from ckptcheck.model.scope import Scope
from ckptcheck.specs.properties import SOMETIMES, Property
from ckptcheck.specs.spec import Spec

from ckptcheck.checks.engine import ENGINES, REFERENCE, default_engine, search

from .outputs import slug
from .results import EXHAUSTIVE_ENGINES, HIT, HOLDS, NOT_APPLICABLE, NOT_REACHED, SAMPLED, UNKNOWN, VIOLATED, CheckResult, Verdict
from .trace import trace_document, write_json_atomic

STOP_AT_ANY = "any"  # ``check(stop_at=...)``: the first violation of any property


def _verdicts(spec: Spec, discoveries: dict, complete: bool) -> list[Verdict]:
    out = []
    for p in spec.properties:
        d = discoveries.get(p.name)
        if p not in spec.applicable:
            out.append(Verdict(p.name, p.kind, p.statement, NOT_APPLICABLE, "not applicable in this scope"))
        elif p.kind == SOMETIMES:
            if d is not None:
                out.append(Verdict(p.name, p.kind, p.statement, HIT, d.reason, d.path))
            else:
                out.append(Verdict(p.name, p.kind, p.statement, NOT_REACHED, "no witness in the searched space"))
        elif d is not None:
            out.append(Verdict(p.name, p.kind, p.statement, VIOLATED, d.reason, d.path))
        else:
            out.append(Verdict(p.name, p.kind, p.statement, HOLDS if complete else UNKNOWN))
    return out


def check(
    design: Design,
    scope: Scope,
    engine: str | None = None,
    *,
    symmetry: bool = False,
    seed: int = 0,
    profile: str = "ci",
    max_states: int | None = None,
    max_seconds: float | None = None,
    max_depth: int | None = None,
    stop_at: str | None = None,
    properties: tuple[Property, ...] | None = None,
    progress: Callable | None = None,
    trace_dir: str | Path | None = None,
    store: str = "fingerprint",
    workers: int = 1,
    master: str | None = None,
    partitions: int | None = None,
    memo_check: float = 0.0,
) -> CheckResult:
    """Check ``design`` in ``scope``.  ``stop_at`` ends the search at the first violation of
    that property, or with ``"any"`` of any property (a witness does not stop it; the CLI's
    ``--stop-at-first``).  With ``trace_dir``, every counterexample is written there as a trace.
    ``store`` ("fingerprint" or "exact") and ``workers`` choose how the exhaustive search keeps
    its visited states and how many processes share it (``checks.engine.explore``); ``engine="spark"`` runs
    the same exhaustive search on Spark (``master``, ``partitions``); ``engine="memo"`` the same search with
    each model call computed once (``memo_check``: the fraction of its cached answers computed again
    plainly); ``None`` is ``memo``, or ``explore`` (the reference engine, also named ``reference``)
    where ``store="exact"`` asks for it, or ``workers > 1`` where the memo engine cannot fork
    (``checks.engine.default_engine``); ``checks.engine.search`` runs it."""
    if engine is None:
        engine = default_engine(store, workers, memo_check)
    elif engine == REFERENCE:
        engine = "explore"
    if engine not in ENGINES:
        raise ValueError(f"engine: expected one of {', '.join(ENGINES)}, got {engine!r}")
    kwargs = {} if properties is None else {"properties": properties}
    spec = Spec(design, scope, symmetry=symmetry, **kwargs)
    stop_when = (lambda d: stop_at in d) if stop_at else None
    if stop_at == STOP_AT_ANY:
        violable = {p.name for p in spec.applicable if p.kind != SOMETIMES}
        stop_when = lambda d: not violable.isdisjoint(d)  # noqa: E731
    outcome = search(spec, engine, max_states=max_states, max_seconds=max_seconds, max_depth=max_depth, stop_when=stop_when,
                     progress=progress, store=store, workers=workers, master=master, partitions=partitions, seed=seed,
                     profile=profile, stop_at=stop_at, memo_check=memo_check)
    if engine in EXHAUSTIVE_ENGINES:
        complete = outcome.complete
        stats = {
            "states": outcome.states,
            "transitions": outcome.transitions,
            "depth": outcome.depth,
            "quiescent_states": outcome.quiescent_states,
            "seconds": round(outcome.elapsed, 3),
            "states_per_second": round(outcome.states / outcome.elapsed) if outcome.elapsed > 0 else None,
            "stopped": outcome.stopped or None,
            "store": outcome.store,
            "workers": outcome.workers,
            "collision_probability": outcome.collision_probability,
        }
        if outcome.engine_detail:
            stats["engine_detail"] = outcome.engine_detail
        verdicts = _verdicts(spec, outcome.discoveries, complete)
        if stop_at and outcome.stopped == "stop condition met":
            first = stop_at if stop_at != STOP_AT_ANY else next(v.property for v in verdicts if v.status == VIOLATED)
            stats["stopped"] = f"stopped at the first violation of {first}"
        used_seed = None
    else:
        complete = False  # random exploration never proves absence
        stats = outcome.stats
        verdicts = _verdicts(spec, outcome.discoveries, complete=False)
        for v in verdicts:
            if v.status == UNKNOWN:
                v.status = SAMPLED
                v.reason = f"no violation in {stats['runs']:,} random runs ({stats['steps']:,} steps, profile {profile}, seed {seed})"
        used_seed = seed
    result = CheckResult(design, scope, engine, used_seed, verdicts, stats, complete, symmetry, spec)
    if trace_dir is not None:
        save_traces(result, Path(trace_dir))
    return result


def run_id(result: CheckResult) -> str:
    """``<design>.<engine>-<hash>``: the design plus a short hash of everything that decides what
    was searched (scope, knobs, components, symmetry; seed and profile when sampled), so a run
    never overwrites the record of a different search."""
    what = {
        "scope": result.scope.to_json(), "knobs": result.design.knobs(), "components": result.design.components(),
        "symmetry": result.symmetry, "engine": result.engine,
        "sampling": [result.stats.get("seed"), result.stats.get("profile")] if result.engine not in EXHAUSTIVE_ENGINES else None,
    }
    digest = hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:8]
    return f"{slug(result.design.name)}.{result.engine}-{digest}"


def save_traces(result: CheckResult, out: Path, prefix: str | None = None) -> list[Path]:
    """Write every counterexample of ``result`` as a trace file; returns the paths.  With
    ``prefix`` (a ``run_id``), files are ``<prefix>--<property>.trace.json`` and the traces an
    earlier run of the same design and scope left there are removed first (stale)."""
    if prefix is not None and out.is_dir():
        for old in out.glob(f"{prefix}--*.trace.json"):
            old.unlink()
    written = []
    for v in result.verdicts:
        if v.status != VIOLATED or v.trace is None:
            continue
        doc = trace_document(
            result.spec,
            v.trace,
            engine=result.engine,
            seed=result.seed,
            violation={"property": v.property, "kind": v.kind, "step": len(v.trace), "reason": v.reason},
        )
        path = out / f"{prefix or slug(result.design.name)}--{slug(v.property)}.trace.json"
        write_json_atomic(path, doc)
        v.trace_file = str(path)
        written.append(path)
    return written

