"""Shared fixtures: small scopes that keep the default run fast.

The tests mirror the source: ``tests/model``, ``tests/specs`` (a folder per feature, as in
``specs/``), ``tests/checks/<room>``, ``tests/reports`` and ``tests/docs`` (the pages, the README
and the code's floor plan).  Every folder is put on ``sys.path`` here, so a test imports another's
helpers by module name (``from test_protocol import Run``) wherever the two files live, also when
one file runs alone."""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.scopes import scope

sys.path[:0] = [str(d) for d in sorted(Path(__file__).resolve().parent.rglob("*"))
                if d.is_dir() and any(d.glob("test_*.py")) and str(d) not in sys.path]

# Tests that share a process's caches run on one pytest-xdist worker (``--dist loadgroup``): the
# catalog's searches (``catalog_run``, used by the catalog and report tests) are made once, and
# one Spark session (``getOrCreate``) serves every Spark test instead of one JVM per worker.  The
# Z3 proofs run in one process in file order too: Z3's time on a query depends on the terms its
# context made before (the Java-int mutant: 0.1 s in file order, 40 s after another subset).
_GROUPS = {"test_catalog.py": "catalog", "test_reports.py": "catalog", "test_narration.py": "catalog", "test_spark.py": "spark", "test_proofs.py": "z3"}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        group = _GROUPS.get(item.path.name) or ("spark" if "spark" in item.name else None)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def tiny_scope():
    """keyed-2x2, one record per split, one checkpoint before end of input, no faults."""
    return scope("keyed-2x2", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


# processes for a test's own searches: one under pytest-xdist, whose two test processes keep both
# cores busy already (a search on two workers there costs about twice the CPU for a third less
# time), two in the claims and deep tiers (``-n 0``)
SEARCH_WORKERS = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2


@lru_cache(maxsize=None)
def catalog_run(name: str):
    """The search that catches catalog entry ``name`` (shared by the catalog and report tests):
    a breadth-first search, so a shortest counterexample whatever ``SEARCH_WORKERS`` is."""
    e = entry(name)
    return check(e.design, e.scope, stop_at=e.violates, workers=SEARCH_WORKERS)


def one(folder, pattern: str):
    """The one file in ``folder`` matching ``pattern`` (result files carry a run id)."""
    found = sorted(folder.glob(pattern))
    assert len(found) == 1, f"{pattern} in {folder}: {[p.name for p in folder.iterdir()] if folder.is_dir() else 'no folder'}"
    return found[0]
