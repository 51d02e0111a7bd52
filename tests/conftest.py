"""Shared fixtures: small scopes that keep the default run fast."""

from __future__ import annotations

import pytest

from specs.scopes import scope


@pytest.fixture(scope="session")
def tiny_scope():
    """keyed-2x2, one record per split, one checkpoint before end of input, no faults."""
    return scope("keyed-2x2", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)
