"""Every figure of ``specs/figures.py`` searched again: the claims tier (``pytest -m claims -n 0``)
runs the ones CI can afford, the deep tier (``pytest -m deep -n 0``) the ones measured once.  A
changed count, transition total, depth, verdict or witness fails here, and the pages that
state the figure are generated from the same table (``checks/docgen.py``).  Both search on the
default engine (memo): the claims tier with the figure's workers, the deep tier in one process
with 1 % of the answers taken from the memo tables computed again with the plain model (a
function reading something outside the world stops the search there)."""

from __future__ import annotations

import json
import os

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.results import HIT, NOT_APPLICABLE
from ckptcheck.specs.designs import PRESETS
from ckptcheck.specs.figures import CLAIMS, FIGURES, GENERIC, ONCE


def _param(f):
    mark = {CLAIMS: pytest.mark.claims, ONCE: pytest.mark.deep}[f.tier]
    return pytest.param(f, marks=mark, id=f.id)


@pytest.mark.parametrize("f", [_param(f) for f in FIGURES if f.test == GENERIC])
def test_figure(f):
    deep = f.tier == ONCE
    r = check(PRESETS[f.design], f.scope(), workers=1 if deep else f.workers, symmetry=f.symmetry, memo_check=0.01 if deep else 0.0)
    assert r.engine == "memo"
    assert r.complete, f"{f.id}: the search did not finish"
    if os.environ.get("CKPTCHECK_FIGURES_OUT"):  # what a re-measurement writes down (benchmarks/figures.md)
        with open(os.environ["CKPTCHECK_FIGURES_OUT"], "a") as out:
            got = {"id": f.id, **{k: r.stats[k] for k in ("states", "transitions", "depth", "seconds") if k in r.stats},
                   "violated": sorted(v.property for v in r.violated),
                   "unreached": sorted(v.property for v in r.verdicts if v.kind == "sometimes" and v.status not in (HIT, NOT_APPLICABLE))}
            out.write(json.dumps(got) + "\n")
    assert sorted(v.property for v in r.violated) == sorted(f.violates), [v.reason for v in r.violated]
    stated = {"states": f.states, "transitions": f.transitions, "depth": f.depth}
    got = {k: r.stats[k] for k, v in stated.items() if v is not None}
    assert got == {k: v for k, v in stated.items() if v is not None}, f.id
    if f.unreached is not None:
        unreached = sorted(v.property for v in r.verdicts if v.kind == "sometimes" and v.status not in (HIT, NOT_APPLICABLE))
        assert unreached == sorted(f.unreached), f.id


def test_every_figure_names_a_preset_a_tier_and_a_distinct_search():
    seen = set()
    for f in FIGURES:
        assert f.design in PRESETS and f.tier in (CLAIMS, ONCE), f.id
        key = (f.design, f.scope(), f.symmetry)
        assert key not in seen, f"{f.id}: the same search as another figure"
        seen.add(key)
