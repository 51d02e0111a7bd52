"""Traces: versioned JSON documents (design, scope, seed, engine, actions, violation), and replay.

A trace is data only: reading one never runs code.  Designs are named (a preset or a catalog
entry) and their knobs are stored, so a TOML-made variant replays exactly; a design that
replaced a component (a Python variant) records the class by qualified name and replays from
Python with ``replay(doc, design=...)``: reading a trace never imports what it names.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckptcheck.model.actions import Rescale
from ckptcheck.model.design import Design
from ckptcheck.specs.errors import InputError, did_you_mean
from ckptcheck.specs.portable import design_from_trace, require, scope_from_trace
from ckptcheck.specs.spec import Spec

FORMAT = "ckptcheck-trace"
VERSION = 1
TOO_DEEP = "nested too deeply to be a trace"  # JSON deeper than Python's decoder recurses (RecursionError)


def trace_document(spec: Spec, actions: list, *, engine: str, seed: int | None, violation: dict | None) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        "design": {"name": spec.design.name, "knobs": spec.design.knobs(), "components": spec.design.components()},
        "scope": spec.scope.to_json(),
        "engine": engine,
        "seed": seed,
        "symmetry": spec.symmetry,
        "actions": spec.actions_to_json(actions),
        "violation": violation,
    }


def write_text_atomic(path: Path, text: str) -> None:
    """Write a whole file or nothing: a temporary file renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_json_atomic(path: Path, doc: Any) -> None:
    """Write a JSON document whole or not at all (``write_text_atomic``)."""
    write_text_atomic(path, json.dumps(doc, indent=2) + "\n")


def _read_text(path: str, what: str) -> str:
    """A user's file as UTF-8 text, or one line saying why not."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, "file", f"no such {what}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(path, "file", f"cannot be read as UTF-8 text ({e})") from None


def load_trace_file(path: str) -> dict:
    text = _read_text(path, "trace file")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(path, "json", f"not valid JSON (line {e.lineno}: {e.msg})") from None
    except RecursionError:
        raise InputError(path, "trace", TOO_DEEP) from None
    return doc


REPORT_SUFFIXES = (".html", ".htm", ".md")
_HTML_TRACE = re.compile(r'<script type="application/json" class="ckptcheck-trace" data-name="([^"]*)">(.*?)</script>', re.S)
_MD_TRACE = re.compile(r"^```ckptcheck-trace-base64()\n(.*?)\n```", re.S | re.M)


def traces_in_report(path: str) -> list[tuple[str, dict]]:
    """The traces a report embeds (``report.html``: one ``<script class="ckptcheck-trace">``
    per counterexample; ``report.md``: one fenced ``ckptcheck-trace-base64`` block), as (name,
    document); one line naming the report when it holds none or one is not JSON."""
    p = Path(path)
    text = _read_text(path, "report")
    found = (_HTML_TRACE if p.suffix.lower() in (".html", ".htm") else _MD_TRACE).findall(text)  # md: base64 blocks
    if not found:
        raise InputError(path, "traces", "the report embeds no trace (only reports with a counterexample do)")
    out = []
    markdown = p.suffix.lower() == ".md"
    for k, (name, body) in enumerate(found):
        name = name or f"trace {k + 1}"
        try:
            if markdown:
                body = base64.b64decode("".join(body.split()), validate=True).decode("utf-8")
            out.append((html.unescape(name), json.loads(body)))
        except (ValueError, UnicodeDecodeError) as e:
            if not isinstance(e, json.JSONDecodeError):
                raise InputError(path, f"traces[{k}]", f"embedded trace {name!r} is not base64 of UTF-8 text") from None
            raise InputError(path, f"traces[{k}]", f"embedded trace {name!r} is not valid JSON (line {e.lineno}: {e.msg})") from None
        except json.JSONDecodeError as e:
            raise InputError(path, f"traces[{k}]", f"embedded trace {name!r} is not valid JSON (line {e.lineno}: {e.msg})") from None
        except RecursionError:
            raise InputError(path, f"traces[{k}]", TOO_DEEP) from None
    return out


@dataclass
class ReplayOutcome:
    spec: Spec
    actions: list
    steps: int
    violation: dict | None  # {"property", "kind", "step", "reason"}: the recorded property's first violation, else the first of any
    recorded: dict | None  # the violation the trace says it shows
    worlds: list  # world after each step (index 0 = initial)
    earlier: dict | None = None  # another property violated before ``violation`` (one step can show two flaws)

    @property
    def reproduced(self) -> bool:
        if self.recorded is None:
            return self.violation is None
        if self.violation is None:
            return False
        return (
            self.violation["property"] == self.recorded.get("property")
            and self.violation["step"] == self.recorded.get("step")
        )


_SPECS: dict[str, Spec] = {}  # canonical (design, scope, symmetry) JSON -> the spec it built
_SPECS_KEPT = 64


def _spec_of(doc: dict, source: str, design: Design | None) -> Spec:
    """The spec a trace ran.  Traces of one design and scope (a replay of many walks) share it:
    a spec is immutable and ``step`` pure, so building it once per distinct (design, scope,
    symmetry), keyed by their canonical JSON, changes no verdict and saves about a quarter of a
    short trace's replay.  Input that does not build a spec raises every time (nothing cached)."""
    try:
        key = json.dumps([doc.get("design"), doc.get("scope"), doc.get("symmetry", False)], sort_keys=True) if design is None else None
    except (TypeError, ValueError):
        key = None  # not canonical JSON (keys of mixed types): built and checked as usual
    if key is not None and key in _SPECS:
        return _SPECS[key]
    d = design_from_trace(doc.get("design"), source, design)
    scope = scope_from_trace(doc.get("scope"), source)
    spec = Spec(d, scope, symmetry=bool(doc.get("symmetry", False)))
    if key is not None:
        if len(_SPECS) >= _SPECS_KEPT:
            _SPECS.pop(next(iter(_SPECS)))
        _SPECS[key] = spec
    return spec


def parse_trace(doc: Any, source: str, design: Design | None = None) -> tuple[Spec, list, dict | None]:
    if not isinstance(doc, dict):
        raise InputError(source, "trace", "expected a JSON object")
    fmt = doc.get("format")
    if fmt != FORMAT:
        raise InputError(source, "format", f"expected {FORMAT!r}, got {fmt!r}")
    version = doc.get("version")
    if version != VERSION:
        raise InputError(source, "version", f"expected {VERSION} (this ckptcheck reads trace format v{VERSION}), got {version!r}")
    spec = _spec_of(doc, source, design)
    raw = require(doc, "actions", list, source, "a list of actions")
    actions = []
    rescales = 0  # counted as the actions are read: one pass, however long the trace
    for i, a in enumerate(raw or ()):
        action = spec.action_from_json(a, f"actions[{i}]", rescales)
        actions.append(action)
        rescales += type(action) is Rescale
    violation = doc.get("violation")
    if violation is not None:
        _check_violation(violation, spec, len(actions), source)
    return spec, actions, violation


def _check_violation(v: Any, spec: Spec, n_actions: int, source: str) -> None:
    """The recorded verdict names a property of this design and a step of this trace."""
    if not isinstance(v, dict):
        raise InputError(source, "violation", "expected an object or null")
    names = [p.name for p in spec.properties]
    prop = v.get("property")
    if prop not in names:
        hint = did_you_mean(prop, names) if isinstance(prop, str) else ""
        raise InputError(source, "violation.property", f"unknown property {prop!r}{hint} (known: {', '.join(names)})")
    step = v.get("step")
    if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step <= n_actions:
        raise InputError(source, "violation.step", f"expected a step from 0 to {n_actions} (the trace's length), got {step!r}")


def replay(doc: Any, source: str = "<trace>", design: Design | None = None) -> ReplayOutcome:
    """Re-execute a trace through ``step``: each action must be enabled; every ``always``
    property is checked after each step, ``eventually`` at the end if no progress remains."""
    try:
        spec, actions, recorded = parse_trace(doc, source, design)
    except InputError:
        raise
    except ValueError as e:  # action or topology errors carry their field
        raise InputError(source, getattr(e, "field", "trace"), str(e).split(": ", 1)[-1]) from None
    w = spec.initial_states()[0]
    worlds = [w]
    target = recorded.get("property") if isinstance(recorded, dict) else None
    last = len(actions)

    def judge(w, step: int) -> tuple[dict | None, dict | None]:
        anyone = spec.always_violation(w, step) or (spec.end_violation(w, step) if step == last else None)
        mine = spec.violation_of(target, w, step, step == last) if target else anyone
        return mine, anyone

    first, earliest = judge(w, 0)
    for i, a in enumerate(actions):
        enabled = spec.actions(w)
        if a not in enabled:
            raise InputError(source, f"actions[{i}]", f"{spec.describe_action(a, w.used.rescales)} is not enabled at step {i + 1}")
        w = spec.next_state(w, a)
        worlds.append(w)
        if first is None or earliest is None:
            mine, anyone = judge(w, i + 1)
            first = first or mine
            earliest = earliest or anyone
    earlier = earliest if earliest and first and earliest["step"] < first["step"] else None
    return ReplayOutcome(spec, actions, len(actions), first, recorded, worlds, earlier)

