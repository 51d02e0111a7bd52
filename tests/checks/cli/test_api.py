"""The Python API, used as a user's own test would use it."""

from __future__ import annotations

from ckptcheck.checks.run.api import check
from ckptcheck.model.store import CompletedCheckpointStore
from ckptcheck.specs.designs import BASELINE


def test_users_variant_in_three_lines():
    from ckptcheck.specs.scopes import scope

    small = scope("forward-2x2", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0,
                  max_lost_notifications=0)
    result = check(BASELINE.with_(name="keep-two", num_retained=2), small)
    assert result.ok, [v.reason for v in result.violated]


def test_users_python_component_is_caught(tiny_scope):
    class KeepNothingOnDisk(CompletedCheckpointStore):  # a "clever" cleaner
        def discard(self, subsumed, retained, pending):
            return subsumed + retained

    result = check(BASELINE.with_(name="eager-cleaner", store=KeepNothingOnDisk), tiny_scope, stop_at="checkpoints-restorable")
    v = result.verdict("checkpoints-restorable")
    assert v.failed
    assert "which the cleaner deleted" in v.reason
