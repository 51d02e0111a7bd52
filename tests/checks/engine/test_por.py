"""Partial-order reduction over the model's footprints (``checks.engine.por``, ``model.footprint``):
an experiment measured by ``benchmarks/por_bound.py``, not used by ``check``.  These tests pin
what it does on a scope where it reduces, and that a footprint the table gets wrong stops it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ckptcheck.checks.engine.por import FootprintError, Reducer
from ckptcheck.model.actions import EmitRecord, FailTask
from ckptcheck.model.footprint import Footprints
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.scopes import scope
from ckptcheck.specs.spec import Spec

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from por_bound import search  # noqa: E402

NO_FAULTS = dict(max_failures=0, max_declines=0, max_timeouts=0, max_lost_notifications=0)


def _spec(**limits) -> Spec:
    return Spec(BASELINE, scope("forward-2x2", **limits))


def test_the_reduced_search_finds_what_the_full_one_finds_in_fewer_states():
    """forward-2x2, two records a split, one checkpoint, unbounded, no fault: the two
    pipelines' records move independently.  Golden counts: 5,136 states in full, 4,197 reduced
    (1,402 worlds expanded in part); the same always-verdicts and the same witnesses hit, and
    no successor of a world expanded in part writes outside its action's footprint."""
    spec = _spec(records_per_split=2, max_checkpoints=1, bounded=False, **NO_FAULTS)
    reducer = Reducer(spec)
    full = search(spec, lambda s, acts: None)
    reduced = search(spec, lambda s, acts: reducer.ample(s, acts, spec.is_progress), reducer.check_writes)
    assert (full[0], reduced[0], reduced[1]) == (5136, 4197, 1402)
    assert full[2:4] == reduced[2:4]
    assert full[3]  # witnesses are hit, so their equality says something


def test_a_fault_still_to_come_leaves_every_world_whole():
    """A failure touches every location: while one may come, no world is expanded in part
    (keyed-2x1 has one failover region)."""
    spec = Spec(BASELINE, scope("keyed-2x1", records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=0,
                                max_timeouts=0, max_lost_notifications=0))
    reducer = Reducer(spec)
    m = spec.model
    s = spec.initial_states()[0]
    for _ in range(6):
        acts = m.enabled(s)
        assert any(isinstance(a, FailTask) for a in acts)
        assert reducer.ample(s, acts, spec.is_progress) is None
        s = m.step(s, next(a for a in acts if not a.fault))


def test_a_write_outside_the_table_stops_the_search(monkeypatch):
    """If the table said an emit does not touch its output channel, the first reduced world's
    successor would show the write, and the search stops naming the action."""
    real = Footprints.touch

    def wrong(self, a, w=None, quiet=False):
        x = real(self, a, w, quiet)
        return x & ~sum(self.tail) if isinstance(a, EmitRecord) else x

    monkeypatch.setattr(Footprints, "touch", wrong)
    spec = _spec(records_per_split=2, max_checkpoints=1, bounded=False, **NO_FAULTS)
    reducer = Reducer(spec)
    m = spec.model
    queue, seen = [spec.initial_states()[0]], set()
    while queue:  # breadth-first, to the first world whose ample set is an emit
        s = queue.pop(0)
        acts = m.enabled(s)
        idx = reducer.ample(s, acts, spec.is_progress)
        if idx is not None and isinstance(acts[idx[0]], EmitRecord):
            break
        for a in acts:
            t = m.step(s, a)
            if t not in seen:
                seen.add(t)
                queue.append(t)
    a = acts[idx[0]]
    with pytest.raises(FootprintError, match=r"EmitRecord\(source\[\d\]\) wrote outside its footprint"):
        reducer.check_writes(s, a, m.step(s, a))
