"""The engines: searches that know only the engine surface of ``specs.spec.Spec`` (``initial_states``,
``actions``, ``next_state``, the property lists), never the Flink model's rules (``memo`` alone also
knows the world's record types, to read them field by field, and ``enabled_groups``).

- ``explore``: exhaustive breadth-first search in one process (``bfs``) or several (``parallel``,
  ``parallel_worker``), with fingerprints or an exact store;
- ``memo``: the same breadth-first search on vectors of interned field ids, each model call
  computed once and answered from a table after (``memo``, ``memo_world``), the default: one
  process, or its compiled loop (``memo_core``) forked into workers (``memo_workers``);
- ``spark``: the same search level by level on a Spark cluster (``sparkbfs``, ``spark_session``), its
  states sent as id vectors and expanded with the memo tables on each executor (``sparkmemo``);
- ``stateful``: Hypothesis random runs (sampled: they prove nothing);
- ``por``: partial-order reduction, built and measured, not used by ``check``.

``search`` is the one place an engine is chosen by name.
"""

from __future__ import annotations

from typing import Callable

from ckptcheck.specs.verdicts import EXHAUSTIVE_ENGINES

from .explore import Discovery, ExploreOutcome, explore, search_bounds

ENGINES = ("explore", "memo", "spark", "stateful")
REFERENCE = "reference"  # another name for explore, the reference engine


def default_engine(store: str = "fingerprint", workers: int = 1, memo_check: float = 0.0) -> str:
    """The engine a search gets when none is named: ``memo``, or the reference engine
    (``explore``) where an option only it has is asked for (an exact store; several workers
    where the memo engine cannot fork: its compiled loop, which its workers run, was not built,
    or ``memo_check`` keeps it on its Python loop)."""
    from . import memo_core

    return "explore" if store == "exact" or (workers > 1 and (memo_check or not memo_core.available())) else "memo"


def engine_workers(engine: str, workers: int) -> int:
    """The processes ``engine`` can use of ``workers``: the reference engine's, or the memo
    engine's compiled loop's; one otherwise."""
    from . import memo_core

    return workers if engine in ("explore", REFERENCE) or (engine == "memo" and memo_core.available()) else 1


__all__ = ["ENGINES", "EXHAUSTIVE_ENGINES", "REFERENCE", "Discovery", "ExploreOutcome", "default_engine", "engine_workers", "explore",
           "search"]


def search(
    model,
    engine: str = "explore",
    *,
    max_states: int | None = None,
    max_seconds: float | None = None,
    max_depth: int | None = None,
    stop_when: Callable[[dict], bool] | None = None,
    progress: Callable | None = None,
    progress_every: float = 2.0,
    store: str = "fingerprint",
    workers: int = 1,
    master: str | None = None,
    partitions: int | None = None,
    seed: int = 0,
    profile: str = "ci",
    stop_at: str | None = None,
    memo_check: float = 0.0,
    compiled: bool | None = None,
):
    """Run the engine named ``engine`` on ``model``: an ``ExploreOutcome`` for the exhaustive engines
    (``store`` and ``workers`` for ``explore``, ``master`` and ``partitions`` for ``spark``), a
    ``StatefulOutcome`` for ``stateful`` (``seed``, ``profile``; ``stop_at`` names the property whose
    first violation ends it).  ``memo_check``: the fraction of the memo engine's cached answers it
    computes again with the plain model (``seed`` chooses which); ``compiled``: its compiled loop
    (``True``), its Python loop (``False``), or the compiled one where it is built and applies."""
    if engine == REFERENCE:
        engine = "explore"
    if engine == "explore":
        return explore(model, max_states=max_states, max_seconds=max_seconds, max_depth=max_depth, stop_when=stop_when,
                       progress=progress, progress_every=progress_every, store=store, workers=workers)
    if engine == "memo":  # the same breadth-first search, each model call computed once
        from .memo import memo_search

        if store == "exact":
            raise ValueError("store: the memo engine keeps fingerprints")
        out = ExploreOutcome()
        bounds = search_bounds(model, stop_when, max_states, max_seconds, max_depth, progress, progress_every)
        memo_search(model, out, Discovery, bounds, memo_check=memo_check, seed=seed, compiled=compiled, workers=workers)
        return out
    if engine == "spark":  # the same breadth-first search with fingerprints, level by level on a Spark cluster
        if store == "exact":
            raise ValueError("store: the Spark search keeps fingerprints")
        from .sparkbfs import spark_search

        out = ExploreOutcome()
        bounds = search_bounds(model, stop_when, max_states, max_seconds, max_depth, progress, progress_every)
        spark_search(model, out, Discovery, bounds, master=master, partitions=partitions)
        return out
    if engine == "stateful":
        from .stateful import run_stateful

        return run_stateful(model, seed=seed, profile=profile, stop_at=stop_at)
    raise ValueError(f"engine: expected one of {', '.join(ENGINES)}, got {engine!r}")
