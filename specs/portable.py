"""A design and a scope read back from their JSON form: a trace, a result file, the arguments a Spark
worker rebuilds its spec from.  Data only: nothing from the document is imported or run, and a
document that names a Python variant is refused, naming the component."""

from __future__ import annotations

from typing import Any

from ckptcheck.model.component import names_component
from ckptcheck.model.design import COMPONENTS, Design
from ckptcheck.model.scope import SCOPE_LIMITS, STOP_MODES, Scope
from ckptcheck.model.surface import MOVED

from .designs import BASELINE, check_knob
from .errors import InputError
from .jobs import job_from_dict


def known_designs() -> dict[str, Design]:
    from ckptcheck.specs.catalog import all_designs

    return all_designs()


def require(doc: dict, key: str, typ, source: str, what: str):
    if key not in doc:
        raise InputError(source, key, f"missing ({what})")
    v = doc[key]
    if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
        raise InputError(source, key, f"expected {what}, got {v!r}")
    return v


# What traces written before components replaced policies recorded for Flink's own rules.
_LEGACY_DEFAULT_POLICIES = {
    "retain": "model.design.flink_retain",
    "discard": "model.design.flink_discard",
    "source_restore_position": "model.design.flink_source_restore_position",
    "regions": "model.design.independent_regions",
}


# A design field whose rules moved, in part, to another field's component: a trace written before
# the move recorded a replaced class there (``model.surface.MOVED``), which names the new field's now.
MOVED_FROM: dict[str, tuple[str, ...]] = {}
for _m in MOVED:
    MOVED_FROM[_m.from_field] = MOVED_FROM.get(_m.from_field, ()) + (_m.field,)


def recorded_components(d: dict, source: str, known_name: bool) -> dict[str, str]:
    """The components a trace says its design ran (qualified class names); {} if it says none.
    A trace written before components (``policies``) is trusted by name for a preset or
    catalog entry, as it was then; another name with a replaced policy is refused."""
    comps = d.get("components", {}) or {}
    if not isinstance(comps, dict) or not all(isinstance(v, str) for v in comps.values()):
        raise InputError(source, "design.components", "expected an object of component class names")
    unknown = sorted(set(comps) - set(COMPONENTS))
    if unknown:
        raise InputError(source, "design.components", f"unknown component {unknown[0]!r} (known: {', '.join(COMPONENTS)})")
    legacy = d.get("policies", {}) or {}
    if isinstance(legacy, dict) and not known_name:
        for name, fn in legacy.items():
            if _LEGACY_DEFAULT_POLICIES.get(name) != fn:
                raise InputError(source, f"design.policies.{name}", f"the trace replaced the Python policy {name!r} ({fn});"
                                 " replay it from Python with ckptcheck.checks.run.trace.replay(doc, design=...)")
    return comps


def design_from_trace(d: Any, source: str, design: Design | None = None) -> Design:
    """The design a trace ran: ``design`` when given (from Python), else a preset or catalog
    entry by name with the recorded knobs.  A trace whose components are not those of the
    design it resolves to (a Python variant) is refused, naming the component: replaying it
    with other rules would judge another design.  Nothing from the trace is imported or run."""
    if not isinstance(d, dict):
        raise InputError(source, "design", "expected an object with name and knobs")
    name = d.get("name")
    knobs = d.get("knobs", {})
    if not isinstance(name, str) or not name:
        raise InputError(source, "design.name", f"expected a design name, got {name!r}")
    if not isinstance(knobs, dict):
        raise InputError(source, "design.knobs", "expected an object of knob values")
    for k, v in knobs.items():
        check_knob(k, v, f"{source}: design.knobs")
    recorded = recorded_components(d, source, design is not None or name in known_designs())
    if design is not None:
        base = design
        hint = "the design given to replay"
    else:
        base = known_designs().get(name) or BASELINE.with_(name=name, description=f"replayed variant {name}")
        hint = f"{name!r}" if name in known_designs() else f"{name!r} (not a preset or catalog entry)"
    mine = base.components()
    for comp, qual in recorded.items():
        if not any(names_component(qual, getattr(base, now)) for now in (comp, *MOVED_FROM.get(comp, ()))):
            raise InputError(
                source, f"design.components.{comp}",
                f"the trace ran {qual}, but {hint} uses {mine[comp]};"
                f" replay a Python variant with --design module:NAME ({qual.rpartition('.')[0] or 'its module'}:NAME,"
                " NAME the Design the module defines; ckptcheck never imports what a trace names), or from Python with"
                " ckptcheck.checks.run.trace.replay(doc, design=...)",
            )
    if design is not None:
        return design
    return base.with_(**knobs) if knobs else base


def scope_from_trace(d: Any, source: str) -> Scope:
    if not isinstance(d, dict):
        raise InputError(source, "scope", "expected an object")
    job = job_from_dict(d.get("job"), f"{source}: scope.job") if isinstance(d.get("job"), dict) else None
    if job is None:
        raise InputError(source, "scope.job", "expected a job graph object")
    kwargs: dict[str, Any] = {"job": job, "job_name": str(d.get("job_name", "custom"))}
    for k in SCOPE_LIMITS:
        if k in d:
            v = d[k]
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise InputError(source, f"scope.{k}", f"expected a non-negative integer, got {v!r}")
            kwargs[k] = v
    for k in ("bounded", "staggered_triggers", "instant_acks", "spanning_records", "rpcs_overtake", "late_finish_reports",
              "rescaled_tasks_decline", "suspend_on_failure", "restart_aligned"):
        if k in d:
            if not isinstance(d[k], bool):
                raise InputError(source, f"scope.{k}", f"expected true or false, got {d[k]!r}")
            kwargs[k] = d[k]
    if "stop_with_savepoint" in d:
        if d["stop_with_savepoint"] not in STOP_MODES:
            raise InputError(source, "scope.stop_with_savepoint",
                             f"expected one of {', '.join(repr(x) for x in STOP_MODES)}, got {d['stop_with_savepoint']!r}")
        kwargs["stop_with_savepoint"] = d["stop_with_savepoint"]
    if d.get("rescale"):
        r = d["rescale"]
        if not isinstance(r, list) or not all(isinstance(x, list) and len(x) == 2 for x in r):
            raise InputError(source, "scope.rescale", f"expected a list of [vertex, parallelism] pairs, got {r!r}")
        kwargs["rescale"] = tuple(tuple(x) for x in r)
    if d.get("repattern"):
        r = d["repattern"]
        if not isinstance(r, list) or not all(isinstance(x, str) for x in r):
            raise InputError(source, "scope.repattern", f"expected a list of edge names like \"source->sink\", got {r!r}")
        kwargs["repattern"] = tuple(r)
    try:
        return Scope(**kwargs)
    except ValueError as e:
        field, _, msg = str(e).partition(": ")
        raise InputError(source, field, msg) from None
