"""Golden state counts of small scopes, one per mechanism whose change shows only in how many
states a search reaches (no property is violated): the round-robin channel of a rebalance, a
cancellation marker, the wait for downstream to read EndOfData, the tolerable-failure budget,
the abort notice's latest completed id, FLIP-600's failure ratio and its end-of-input force.
A model whose rule changes (``benchmarks/mutants.py`` has a one-line mutant of each) reaches
another number of states; each scope also hits the witness of its mechanism where one exists.
Like Stateright's golden counts, a deliberate change of the model updates these numbers."""

from __future__ import annotations

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT
from ckptcheck.specs.designs import PRESETS
from ckptcheck.specs.scopes import scope

NO = dict(max_timeouts=0, max_lost_notifications=0)

CASES = [
    # StreamPartitioner.route: the rebalance's round-robin channel advances per record
    ("rebalance", "flink-baseline", {}, dict(job="rebalance-2x3", records_per_split=2, max_checkpoints=0, max_failures=0,
                                             max_declines=0, **NO), 32875, None),
    # CheckpointBarrierHandler.on_cancel: a CancelCheckpointMarker of the checkpoint being aligned aborts it
    ("cancel-marker", "flink-baseline", {"tolerable_failed_checkpoints": 1},
     dict(job="three-stage-2x2x1", records_per_split=0, bounded=False, max_checkpoints=1, max_failures=0, max_declines=1, **NO),
     4508, "a-cancel-marker-aborts"),
    # StreamTask.all_data_processed: a finished task waits until downstream read its EndOfData
    ("end-of-data-read", "flink-unaligned", {}, dict(job="keyed-2x1", records_per_split=0, max_checkpoints=2, max_failures=0,
                                                     max_declines=0, staggered_triggers=True, **NO), 13893, None),
    # CheckpointCoordinator.over_tolerable: with tolerable 0 a counted decline fails the job over
    ("tolerable", "flink-baseline", {}, dict(job="keyed-1x1", records_per_split=1, max_checkpoints=1, max_failures=0,
                                             max_declines=1, **NO), 304, None),
    # CheckpointCoordinator.latest_completed_for: the abort notice replays a lost completion
    ("abort-replay", "flink-baseline", {"tolerable_failed_checkpoints": 1},
     dict(job="keyed-1x1", records_per_split=1, max_checkpoints=2, max_failures=0, max_declines=1, max_timeouts=0,
          max_lost_notifications=1), 19472, None),
    # RegionalCheckpointHandler.judged_regions: one failed region of two is within a 50 % ratio
    ("failure-ratio", "flip600-regional", {}, dict(job="forward-2x2", records_per_split=0, bounded=False, max_checkpoints=2,
                                                   max_failures=0, max_declines=1, **NO), 1860,
     "a-regional-checkpoint-completes"),
    # RegionalCheckpointHandler.must_be_global: once every source is exhausted the next checkpoint is global
    ("end-of-input-global", "flip600-regional", {}, dict(job="forward-2x2", records_per_split=1, bounded=True, max_checkpoints=1,
                                                         max_failures=0, max_declines=1, **NO), 31007, None),
]


@pytest.mark.parametrize("engine", ["explore", "memo"])
@pytest.mark.parametrize("design, knobs, limits, states, witness", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_golden_count(design, knobs, limits, states, witness, engine):
    """The same count with the reference engine and the memo engine."""
    d = PRESETS[design].with_(name=f"{design}-golden", **knobs) if knobs else PRESETS[design]
    r = check(d, scope(**limits), engine, workers=1) if engine == "explore" else check(d, scope(**limits), engine)
    assert r.complete and r.ok, [v.reason for v in r.violated]
    assert r.stats["states"] == states
    if witness:
        assert r.verdict(witness).status == HIT, witness
