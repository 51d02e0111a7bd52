"""``ckptcheck designs``: list the presets, catalog variants, knobs (as TOML to copy), components,
the readings each knob value selects (with what each follows) and jobs."""

from __future__ import annotations

import json

from ckptcheck.model.design import COMPONENTS, KNOBS
from ckptcheck.model.reading import READINGS
from ckptcheck.specs.catalog import CATALOG
from ckptcheck.specs.designs import PRESETS
from ckptcheck.specs.jobs import JOBS

from .printing import say


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def cmd_designs(args) -> int:
    say("Presets:")
    for d in PRESETS.values():
        say(f"  {d.name}: {d.description}")
    say("Catalog variants (known flaws; ckptcheck catalog):")
    for e in CATALOG:
        say(f"  {e.design.name}: violates {e.violates}")
    say("Knobs: a design file is TOML; every line below is valid TOML to copy (flink-baseline's values):")
    say('  based_on = "flink-baseline"   # a preset or catalog entry the file changes; name = "..." names it')
    base = PRESETS["flink-baseline"]
    for k in KNOBS:
        limits = [f"one of {', '.join(_toml_value(c) for c in k.choices)}"] if k.choices else []
        if k.minimum is not None:
            limits.append(f">= {k.minimum}")
        if k.maximum is not None:
            limits.append(f"<= {k.maximum}")
        say(f"  # {k.doc}" + (f" ({'; '.join(limits)})" if limits else ""))
        say(f"  {k.name} = {_toml_value(getattr(base, k.name))}")
    say("Components (replace from Python with design.with_(name=..., FIELD=MySubclass)):")
    for name, cls in base.components().items():
        say(f"  {name}: {cls}")
    say("Readings (a knob's value selects each; the component's own rule is the knob's default):")
    for (knob, value), classes in sorted(READINGS.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        for cls in classes:
            base = next(n for n, c in COMPONENTS.items() if issubclass(cls, c))
            say(f"  {knob} = {_toml_value(value)}: {cls.__name__} ({base}), follows {cls.follows}")
    uses = {d.name: [r.__name__ for r in d.readings()] for d in PRESETS.values() if d.readings()}
    for name, readings in uses.items():
        say(f"  {name} runs {', '.join(readings)}")
    say("Jobs:")
    for name, (_, doc) in JOBS.items():
        say(f"  {name}: {doc}")
    return 0


def add_parser(sub) -> None:
    """``ckptcheck designs``."""
    d = sub.add_parser("designs", help="list presets, catalog variants, knobs, components, readings and jobs")
    d.set_defaults(func=cmd_designs)
