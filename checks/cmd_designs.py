"""``ckptcheck designs``: list the presets, catalog variants, knobs (as TOML to copy), components
and jobs."""

from __future__ import annotations

import json

from ckptcheck.model.design import KNOBS
from ckptcheck.specs.catalog import CATALOG
from ckptcheck.specs.designs import PRESETS
from ckptcheck.specs.jobs import JOBS

from .cli_common import _say


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def cmd_designs(args) -> int:
    _say("Presets:")
    for d in PRESETS.values():
        _say(f"  {d.name}: {d.description}")
    _say("Catalog variants (known flaws; ckptcheck catalog):")
    for e in CATALOG:
        _say(f"  {e.design.name}: violates {e.violates}")
    _say("Knobs: a design file is TOML; every line below is valid TOML to copy (flink-baseline's values):")
    _say('  based_on = "flink-baseline"   # a preset or catalog entry the file changes; name = "..." names it')
    base = PRESETS["flink-baseline"]
    for k in KNOBS:
        limits = [f"one of {', '.join(_toml_value(c) for c in k.choices)}"] if k.choices else []
        if k.minimum is not None:
            limits.append(f">= {k.minimum}")
        if k.maximum is not None:
            limits.append(f"<= {k.maximum}")
        _say(f"  # {k.doc}" + (f" ({'; '.join(limits)})" if limits else ""))
        _say(f"  {k.name} = {_toml_value(getattr(base, k.name))}")
    _say("Components (replace from Python with design.with_(name=..., FIELD=MySubclass)):")
    for name, cls in base.components().items():
        _say(f"  {name}: {cls}")
    _say("Jobs:")
    for name, (_, doc) in JOBS.items():
        _say(f"  {name}: {doc}")
    return 0


def add_parser(sub) -> None:
    """``ckptcheck designs``."""
    d = sub.add_parser("designs", help="list presets, catalog variants, knobs, components and jobs")
    d.set_defaults(func=cmd_designs)
