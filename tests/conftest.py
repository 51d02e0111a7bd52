"""Shared fixtures: small scopes that keep the default run fast."""

from __future__ import annotations

import os
from functools import lru_cache

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.scopes import scope


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
