"""Running the flaw catalog: each entry's search, its correct design on the same scope, the
replay of the saved trace, and the one-row summary the console and the reports show."""

from __future__ import annotations

import time
from pathlib import Path

from ckptcheck.specs.catalog import Entry
from ckptcheck.specs.spec import Spec
from ckptcheck.checks.engine import engine_workers

from .api import check, save_traces
from .results import VIOLATED, CheckResult
from .trace import load_trace_file, replay


def catalog_row(e: Entry, bad: CheckResult, good: CheckResult, replay_ok: bool, seconds: float) -> dict:
    """One entry's verdict: found only when the flaw is violated, the saved trace replays to it,
    and the correct design holds on the same scope after an exhaustive search."""
    v = bad.verdict(e.violates)
    found = v.status == VIOLATED and good.holds and replay_ok
    if v.status == VIOLATED:
        summary = f"found: {e.violates} in {len(v.trace)} steps"
    else:
        summary = f"MISSED: {e.violates} {bad.verdict_words(v)}"
    summary += (f"; correct design {e.correct.name} {'passes' if good.holds else 'does NOT pass'} its scope,"
                f" {good.stats['states']:,} states ({good.searched()})")
    if v.status == VIOLATED and not replay_ok:
        summary += "; the saved trace does NOT replay to the same verdict"
    return {"name": e.name, "violates": e.violates, "found": found, "summary": summary, "replays": replay_ok,
            "reason": v.reason or "", "origin": e.origin, "seconds": round(seconds, 3)}


class CatalogInterrupted(KeyboardInterrupt):
    """Ctrl-C during an entry's searches: the catalog stops there (not only the running search)."""


def run_entry(e: Entry, out: Path, correct_runs: dict, workers: int = 1,
              max_seconds: float | None = None, engine: str = "memo") -> tuple[dict, CheckResult, Spec, CheckResult]:
    """Search entry ``e`` (to its first violation; one process, so that the counterexample is
    the one the exact store finds), check its correct design on the same scope with
    ``workers`` processes (shared between entries with the same design and scope), save and
    replay the trace.  ``max_seconds`` bounds each of the two searches (a search cut short is
    reported as incomplete, never as found or passed).  ``engine``: ``memo`` or ``explore`` (the
    reference engine); ``engine_workers`` says how many of ``workers`` each can use.  Ctrl-C in either search raises
    :class:`CatalogInterrupted`."""
    t0 = time.perf_counter()
    bad = check(e.design, e.scope, engine, stop_at=e.violates, max_seconds=max_seconds)
    if bad.interrupted:
        raise CatalogInterrupted(e.name)
    key = (e.correct.name, repr(e.scope), max_seconds)
    if key not in correct_runs:
        correct_runs[key] = check(e.correct, e.scope, engine, workers=engine_workers(engine, workers), max_seconds=max_seconds)
    good = correct_runs[key]
    if good.interrupted:
        del correct_runs[key]
        raise CatalogInterrupted(e.name)
    replay_ok = False
    for p in save_traces(bad, out):
        if p.name.endswith(f"--{e.violates}.trace.json"):
            replay_ok = replay(load_trace_file(str(p)), str(p)).reproduced
    return catalog_row(e, bad, good, replay_ok, time.perf_counter() - t0), bad, good
