"""The how-tos' code, run as the pages show it: each page's Python block is executed as a module,
and what the page says of it is checked."""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT
from ckptcheck.model.actions import ACTION_TYPES, EmitRecord, FailTask, Restore, TriggerCheckpoint, action_from_json
from ckptcheck.model.protocol import FlinkModel, handlers
from ckptcheck.model.world import FAILED
from ckptcheck.specs.scopes import scope

from test_protocol import Run

PAGES = Path(__file__).resolve().parents[2] / "docs" / "pages"
KEYED_1X1 = scope("keyed-1x1", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=1, max_declines=0,
                  max_timeouts=0, max_lost_notifications=0)
SOURCE, SINK = 0, 1


def page_module(page: str) -> types.ModuleType:
    """The Python blocks of ``docs/pages/<page>`` run as one module (registered, so that a search's
    worker processes find its classes)."""
    text = (PAGES / page).read_text(encoding="utf-8")
    code = "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))
    name = "howto_" + page.removesuffix(".md").replace("-", "_")
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(code, str(PAGES / page), "exec"), module.__dict__)  # the project's own page
    return module


HOWTO = page_module("howto-action.md")
READING = page_module("howto-reading.md")
TWO_REGIONS = scope("forward-2x2", records_per_split=0, bounded=False, max_checkpoints=2, max_failures=0, max_declines=1,
                    max_timeouts=0, max_lost_notifications=0)


def test_the_new_action_is_handled_by_the_new_method_and_read_from_a_trace():
    kinds = handlers(HOWTO.DESIGN)
    assert kinds[HOWTO.LoseLocalState].component == "local_state" and kinds[HOWTO.LoseLocalState].method == "lose"
    assert ACTION_TYPES["LoseLocalState"] is HOWTO.LoseLocalState
    topo = FlinkModel(HOWTO.DESIGN, KEYED_1X1).topo
    a = action_from_json(json.loads(json.dumps(HOWTO.LoseLocalState(SINK).to_json(topo))), topo)
    assert a == HOWTO.LoseLocalState(SINK)


def test_a_run_that_loses_its_copies_restores_the_checkpoints_state():
    r = Run(FlinkModel(HOWTO.DESIGN, KEYED_1X1))
    r.do(EmitRecord(SOURCE)).do(TriggerCheckpoint(1)).drain("source[0]->sink[0]").acks()
    assert r.w.coord.store and r.w.tasks[SINK].local, "checkpoint 1 completed and its copy kept"
    assert HOWTO.LoseLocalState(SINK) not in r.m.enabled(r.w), "enabled only for a failed subtask"
    r.do(FailTask(SINK))
    assert r.w.tasks[SINK].status == FAILED and HOWTO.LoseLocalState(SINK) in r.m.enabled(r.w)
    r.do(HOWTO.LoseLocalState(SINK))
    assert r.w.tasks[SINK].local == () and HOWTO.LoseLocalState(SINK) not in r.m.enabled(r.w)
    r.do(Restore(1))
    assert r.w.tasks[SINK].processed == r.w.coord.store[-1].snapshots[SINK].processed
    steps_text = HOWTO.LoseLocalState(SINK).narrate(r.m, r.w, r.w)[0]
    assert "without its local copies" in steps_text


def test_the_design_holds_with_the_copies_lost():
    res = check(HOWTO.DESIGN, KEYED_1X1, workers=1)
    assert res.holds, res.headline()
    assert "a-restore-reads-a-local-copy" in {v.property for v in res.verdicts if v.status == HIT}
    without = check(HOWTO.DESIGN.with_(local_state=HOWTO.TaskLocalStateStore), KEYED_1X1, workers=1)
    assert res.stats["states"] > without.stats["states"], "the new action adds worlds: the search took it"


def test_the_ratio_reading_reaches_no_regional_completion_where_the_threads_does():
    thread = check(READING.FLIP600_PROPOSED, TWO_REGIONS, workers=1)
    assert READING.FLIP600_PROPOSED.max_failed_region_percent == 50 and thread.holds
    assert "a-regional-checkpoint-completes" in {v.property for v in thread.verdicts if v.status == HIT}
    res = check(READING.DESIGN, TWO_REGIONS, workers=1)
    assert res.holds, res.headline()
    assert "a-regional-checkpoint-completes" not in {v.property for v in res.verdicts if v.status == HIT}
    assert READING.RatioReached.follows and issubclass(READING.RatioReached, READING.Reading)
