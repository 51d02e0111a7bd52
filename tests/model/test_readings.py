"""Readings as classes (``model.reading``, ``model.flip600``): every value of a reading knob other
than its default selects a subclass of one component; no shared rule branches on a reading knob;
a design runs its component classes with the readings its knobs select; two readings that change
the same method are refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ckptcheck.model.design import COMPONENTS, KNOBS
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.reading import READINGS, Reading, composed
from ckptcheck.model.regional import RegionalCheckpointHandler
from ckptcheck.specs.designs import FLIP600_PROPOSED, FLIP600_PR
from ckptcheck.specs.scopes import default_scope_for

MODEL = Path(__file__).resolve().parents[2] / "model"
READING_KNOBS = sorted({k for k, _ in READINGS})


def test_every_value_of_a_reading_knob_but_its_default_selects_a_reading_of_one_component():
    for k in KNOBS:
        if k.name not in READING_KNOBS:
            continue
        values = k.choices or (True, False)
        for v in values:
            classes = READINGS.get((k.name, v), [])
            assert bool(classes) == (v != k.default), (k.name, v)
            for cls in classes:
                assert issubclass(cls, Reading) and cls.follows, cls
                assert sum(issubclass(cls, c) for c in COMPONENTS.values()) == 1, cls


def test_no_rule_branches_on_a_reading_knob():
    """A reading knob is read only where the model asks what the design is (``scope_conflict``),
    never inside a rule: the rule is the class the knob selects."""
    pattern = re.compile(r"design\.(" + "|".join(READING_KNOBS) + r")\b")
    found = [f"{p.name}:{n}" for p in sorted(MODEL.glob("*.py")) for n, line in enumerate(p.read_text().splitlines(), 1)
             if pattern.search(line)]
    assert len(found) == 1 and found[0].startswith("protocol.py:"), found  # scope_conflict's timeouts_complete_regionally


def test_the_pr_runs_its_readings():
    m = FlinkModel(FLIP600_PR, default_scope_for(FLIP600_PR))
    names = {type(m.regional).__mro__[i].__name__ for i in range(len(type(m.regional).__mro__))}
    assert {"ForcedCheckpointWaits", "FinishedForcesAtTrigger", "RegionsOfRunningTasks", "TimeoutsCompleteRegionally"} <= names
    assert type(FlinkModel(FLIP600_PROPOSED, default_scope_for(FLIP600_PROPOSED)).regional) is RegionalCheckpointHandler


def test_a_variant_keeps_its_override_over_a_reading():
    class MyRegions(RegionalCheckpointHandler):
        def regions(self, waiting=None):
            return [frozenset(range(self.topo.n_tasks))]

    design = FLIP600_PR.with_(name="my-regions", regional=MyRegions)
    cls = design.component_class("regional")
    assert cls.__mro__[1] is MyRegions and cls.regions is MyRegions.regions
    assert composed(MyRegions, ()) is MyRegions


def test_two_readings_that_change_the_same_method_are_refused():
    class OtherTimeout(RegionalCheckpointHandler, Reading):
        knob, value = "max_consecutive_regional", 7  # a test-only reading of a plain knob
        follows = "a test"

        def on_timeout(self, tx, cp):
            return False

    try:
        with pytest.raises(ValueError, match="both change on_timeout"):
            FLIP600_PR.with_(name="two-timeouts", max_consecutive_regional=7)
    finally:
        del READINGS[("max_consecutive_regional", 7)]
