"""Named design presets and the TOML design format.

A design file sets knobs on a preset::

    based_on = "flink-baseline"      # optional, the default
    name = "keep-two"                # optional, defaults to the file name
    num_retained = 2
    tolerable_failed_checkpoints = 1

Knobs are data only; a rule is changed from Python by replacing a component::

    from ckptcheck.model.store import CompletedCheckpointStore
    from ckptcheck.specs.designs import BASELINE

    class KeepTwo(CompletedCheckpointStore):
        def retained_ids(self, completed, num_retained):
            return completed[-2:]

    KEEP_TWO = BASELINE.with_(name="keep-two", store=KeepTwo)

and named on the command line as ``module:KEEP_TWO``.
"""

from __future__ import annotations

import inspect
import json

import importlib
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable

from ckptcheck.model.design import KNOB_BY_NAME, Design, knob_conflict

from .baseline.designs import BASELINE, INCREMENTAL
from .errors import InputError, did_you_mean, read_toml
from .flip147.designs import FLIP147
from .flip600.designs import (FLIP600, FLIP600_FILE_MERGING, FLIP600_INCREMENTAL, FLIP600_NO_CLAIM, FLIP600_PR,
                              FLIP600_PROPOSED)
from .nullstate.designs import NULL_STATE, NULL_STATE_UNALIGNED
from .unaligned.designs import (UNALIGNED, UNALIGNED_DURING_RECOVERY, UNALIGNED_POINTWISE, UNALIGNED_POINTWISE_DOWNSTREAM,
                               UNALIGNED_TIMEOUT)

PRESETS: dict[str, Design] = {
    d.name: d for d in (BASELINE, INCREMENTAL, FLIP600, FLIP600_PROPOSED, FLIP600_PR, FLIP600_FILE_MERGING,
                        FLIP600_NO_CLAIM, FLIP600_INCREMENTAL, UNALIGNED, UNALIGNED_TIMEOUT, UNALIGNED_POINTWISE, FLIP147, NULL_STATE,
                        NULL_STATE_UNALIGNED, UNALIGNED_DURING_RECOVERY, UNALIGNED_POINTWISE_DOWNSTREAM)
}


def preset(name: str) -> Design:
    return PRESETS[name]


def shown(value: Any) -> str:
    """A value from a user's file as the file wrote it (TOML's dates and tables, not Python's repr)."""
    import datetime

    if isinstance(value, (datetime.date, datetime.time)):  # datetime.datetime is a date
        return f"the {'date' if isinstance(value, datetime.date) else 'time'} {value.isoformat()}"
    if isinstance(value, dict):
        return "a table {" + ", ".join(f"{k} = {shown(v)}" for k, v in value.items()) + "}"
    return repr(value)


def check_knob(name: str, value: Any, source: str) -> Any:
    """Validate one knob value; raises :class:`InputError` naming file, knob and expectation."""
    knob = KNOB_BY_NAME.get(name)
    if knob is None:
        where = " (knobs go at the top level of a design file, not in a table of their own)" if isinstance(value, dict) else ""
        raise InputError(source, name, f"unknown knob{did_you_mean(name, KNOB_BY_NAME)}{where} (ckptcheck designs lists them)")
    if knob.type is bool:
        if not isinstance(value, bool):
            raise InputError(source, name, f"expected true or false, got {shown(value)}")
    elif knob.type is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(source, name, f"expected an integer, got {shown(value)}")
        if knob.minimum is not None and value < knob.minimum:
            raise InputError(source, name, f"expected an integer >= {knob.minimum}, got {shown(value)}")
        if knob.maximum is not None and value > knob.maximum:
            raise InputError(source, name, f"expected an integer <= {knob.maximum}, got {shown(value)}")
    elif knob.type is str:
        if not isinstance(value, str):
            raise InputError(source, name, f"expected a string, got {shown(value)}")
    if knob.choices and value not in knob.choices:
        raise InputError(source, name, f"expected one of {', '.join(repr(c) for c in knob.choices)}, got {shown(value)}")
    return value


def design_from_dict(data: dict, source: str, default_name: str, bases: dict[str, Design] | None = None,
                     warn: Callable[[str], None] | None = None) -> Design:
    bases = bases if bases is not None else PRESETS
    if not isinstance(data, dict):
        raise InputError(source, "design", "expected a table of knobs")
    base_name = data.get("based_on", BASELINE.name)
    if not isinstance(base_name, str) or base_name not in bases:
        hint = did_you_mean(base_name, bases) if isinstance(base_name, str) else ""
        raise InputError(source, "based_on", f"expected a preset ({', '.join(PRESETS)}) or a catalog entry, got"
                         f" {base_name!r}{hint}")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise InputError(source, "name", f"expected a non-empty string, got {name!r}")
    changed = ", ".join(f"{k} = {json.dumps(v) if isinstance(v, (str, bool)) else v}" for k, v in data.items() if k in KNOB_BY_NAME)
    description = data.get("description", f"{base_name} with {changed or 'no changes'}")
    if not isinstance(description, str):
        raise InputError(source, "description", f"expected a string, got {description!r}")
    knobs = {}
    for key, value in data.items():
        if key in ("based_on", "name", "description"):
            continue
        knobs[key] = check_knob(key, value, source)
    problem = knob_conflict({**bases[base_name].knobs(), **knobs})
    if problem:
        named = [k for k in KNOB_BY_NAME if re.search(rf"\b{k}\b", problem)]
        first = min(named, key=problem.index) if named else "knobs"
        raise InputError(source, first, problem)
    unchanged = [k for k, v in knobs.items() if getattr(bases[base_name], k) == v]
    if warn is not None and len(unchanged) == len(knobs):
        what = f"sets {', '.join(unchanged)} to {base_name}'s own value" if unchanged else "sets no knob"
        warn(f"{source}: {what}: it is {base_name} under the name {name!r}")
    return bases[base_name].with_(name=name, description=description, origin=f"design file {source}", **knobs)


LOADED_AS: dict[str, str] = {}  # a Python variant's design name -> the module:NAME it was loaded by, in this process


PYTHON_DESIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")


def python_design(spec: str) -> Design:
    """A design defined in Python, named ``module:NAME`` on the user's own command line (the
    module is imported from the current folder or the installed packages, as ``python -m``
    would).  Only for names the user types: a trace or design file never makes this import."""
    module_name, attr = spec.split(":")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise InputError(spec, "module", f"cannot import {module_name!r} ({e})") from None
    except Exception as e:  # the user's module failed while importing: one line, not a traceback
        raise InputError(spec, "module", f"importing {module_name!r} raised {type(e).__name__}: {e}") from None
    except SystemExit as e:  # the module ended the program while it was imported (sys.exit at its top level)
        raise InputError(spec, "module", f"importing {module_name!r} called sys.exit({e.code!r}): a variant module must"
                         " define its Design and not end the program") from None
    finally:
        sys.path.remove(os.getcwd())
    if not hasattr(module, attr):
        raise InputError(spec, attr, f"no name {attr!r} in {module_name}: expected a Design (e.g. BASELINE.with_(...))")
    value = getattr(module, attr)
    if isinstance(value, type):
        raise InputError(spec, attr, f"{attr} is a class: name the Design built with it, e.g. MY_VARIANT ="
                         f" BASELINE.with_(name=\"my-variant\", coordinator={attr}) in {module_name}")
    if not isinstance(value, Design):
        raise InputError(spec, attr, f"expected a Design (e.g. BASELINE.with_(...)) in {module_name}, got {type(value).__name__}")
    LOADED_AS[value.name] = spec  # a report names it in its replay command
    return described(value)


def described(d: Design) -> Design:
    """A Python variant that kept its preset's description (``BASELINE.with_(name=...,
    coordinator=Mine)``) says what it changes instead: each replaced component with the first
    paragraph of its class's docstring, and each knob with its value, so that the header and
    the reports name the variant's own rule, not the baseline's."""
    base = next((p for p in PRESETS.values() if p.description == d.description), None)
    if base is None or d.name == base.name:
        return d
    parts = []
    for field_name in d.replaced():
        cls = getattr(d, field_name)
        doc = " ".join((inspect.getdoc(cls) or "").split("\n\n")[0].split())
        parts.append(f"{field_name} = {cls.__name__}" + (f" ({doc})" if doc else ""))
    mine, theirs = d.knobs(), base.knobs()
    parts += [f"{k} = {json.dumps(v) if isinstance(v, (str, bool)) else v}" for k, v in mine.items() if v != theirs[k]]
    return d.with_(description=f"{base.name} with {'; '.join(parts) or 'no changes'}")


def load_design(spec: str, bases: dict[str, Design] | None = None, warn: Callable[[str], None] | None = None) -> Design:
    """A design by preset (or catalog) name, from a TOML file of knobs, or ``module:NAME`` for a
    Python variant."""
    bases = bases if bases is not None else PRESETS
    if spec in bases:
        return bases[spec]
    if PYTHON_DESIGN.match(spec) and not Path(spec).exists():
        return python_design(spec)
    stem, data = read_toml(spec, "design", "a preset or catalog entry (ckptcheck designs lists them), a TOML file,"
                           " or module:NAME for a Python variant", bases)
    return design_from_dict(data, spec, stem, bases, warn)
