"""Shared fixtures: small scopes that keep the default run fast."""

from __future__ import annotations

from functools import lru_cache

import pytest

from ckptcheck.checks.api import check
from ckptcheck.specs.catalog import entry
from ckptcheck.specs.scopes import scope


@pytest.fixture(scope="session")
def tiny_scope():
    """keyed-2x2, one record per split, one checkpoint before end of input, no faults."""
    return scope("keyed-2x2", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


@lru_cache(maxsize=None)
def catalog_run(name: str):
    """The search that catches catalog entry ``name`` (shared by the catalog and report tests),
    on two workers: a counterexample as short as one process finds (the deep run compares)."""
    e = entry(name)
    return check(e.design, e.scope, stop_at=e.violates, workers=2)


def one(folder, pattern: str):
    """The one file in ``folder`` matching ``pattern`` (result files carry a run id)."""
    found = sorted(folder.glob(pattern))
    assert len(found) == 1, f"{pattern} in {folder}: {[p.name for p in folder.iterdir()] if folder.is_dir() else 'no folder'}"
    return found[0]
