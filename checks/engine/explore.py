"""Exhaustive bounded breadth-first search over any model with the engine surface.

The surface (see ``specs.spec.Spec``; ``benchmarks/twophase.py`` is a second, unrelated model):

- ``initial_states()``, ``actions(s)``, ``next_state(s, a)``;
- ``is_progress(a)``: actions that are not faults (``eventually`` is checked at states where
  no progress action is enabled);
- ``canonical``: ``None``, or a function to a canonical representative (symmetry reduction);
- optionally ``successors(s)``: ``[(a, next_state(s, a)) for a in actions(s)]`` built in one
  pass, which a model with cheap actions can offer to save the engine a call per transition
  (the search uses it when present; counterexamples are still re-executed action by action);
- ``always``, ``eventually``, ``sometimes``: lists of ``(property, check)``.

The search is chosen by the engine, never by the model (``checks.engine.search``): here one
process with a fingerprint store (the default) or an exact one (``checks.engine.bfs``), or
several processes level by level (``checks.engine.parallel``); on a Spark cluster,
``checks.engine.sparkbfs``.  BFS finds each violation first on a shortest path, so
counterexamples are minimal in length.  Exploration stops when every property has a discovery or the space (or
a bound) is exhausted; Ctrl-C ends it too, with the figures reached so far and the search
marked incomplete.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .bfs import Bounds, bfs_search
from .parallel import parallel_search


@dataclass
class Discovery:
    property: Any
    reason: str
    path: list  # actions from the initial state
    kind: str


@dataclass
class ExploreOutcome:
    states: int = 0
    transitions: int = 0
    depth: int = 0
    elapsed: float = 0.0
    complete: bool = False  # the whole reachable space (within the scope) was searched
    stopped: str = ""  # why the search ended early, if it did
    discoveries: dict[str, Discovery] = field(default_factory=dict)  # property name -> first discovery
    quiescent_states: int = 0
    store: str = "fingerprint"  # "fingerprint": 64-bit fingerprints, paths re-executed; "exact": worlds kept
    collision_probability: float | None = None  # fingerprint store: TLC's estimate that a state was missed
    workers: int = 1
    workers_peak_mb: int = 0  # with workers: the sum of their peak resident memory so far
    engine_detail: str = ""  # Spark: the master and the number of partitions


def explore(
    model,
    *,
    max_states: int | None = None,
    max_seconds: float | None = None,
    max_depth: int | None = None,
    stop_when: Callable[[dict], bool] | None = None,
    progress: Callable[[ExploreOutcome, int], None] | None = None,
    progress_every: float = 2.0,
    store: str = "fingerprint",
    workers: int = 1,
) -> ExploreOutcome:
    """Breadth-first search; returns counts and the first discovery of every property.

    ``store="fingerprint"`` keeps 64-bit fingerprints and rebuilds counterexamples by
    re-execution; ``"exact"`` keeps every world: the same states and paths at ten times the
    memory (``checks.engine.bfs``).  ``workers`` > 1 runs the fingerprint search level-synchronously
    over that many processes (``checks.engine.parallel``).  The same search on a Spark cluster is
    ``checks.engine.sparkbfs``, which ``checks.engine.search`` runs by the name ``spark``."""
    if store not in ("exact", "fingerprint"):
        raise ValueError(f"store: expected 'exact' or 'fingerprint', got {store!r}")
    if workers < 1:
        raise ValueError(f"workers: expected at least 1, got {workers!r}")
    if store == "exact" and workers > 1:
        raise ValueError("workers: the exact store runs in one process; use the fingerprint store for more")
    out = ExploreOutcome()
    bounds = search_bounds(model, stop_when, max_states, max_seconds, max_depth, progress, progress_every)
    if workers > 1:
        parallel_search(model, out, Discovery, bounds, workers=workers)
    else:
        bfs_search(model, out, Discovery, bounds, exact=store == "exact")
    return out


def search_bounds(model, stop_when, max_states, max_seconds, max_depth, progress, progress_every: float = 2.0) -> Bounds:
    """The bounds of a breadth-first search; without ``stop_when`` it stops once every property of
    ``model`` has a discovery."""
    stop_reason = "stop condition met"
    if stop_when is None:
        total = len(model.always) + len(model.eventually) + len(model.sometimes)
        stop_reason = "every property has a discovery"

        def stop_when(d: dict) -> bool:
            return total > 0 and len(d) == total

    return Bounds(stop_when, stop_reason, max_states, max_seconds, max_depth, progress, progress_every)

