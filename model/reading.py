"""Readings: where a FLIP's text or a PR's code leaves a rule open, each way of reading it is a
subclass of one component that overrides the method of one step.

A reading names the design knob whose value selects it (``knob``, ``value``), so TOML files,
traces and the findings search keep choosing readings by knob, and what it follows (``follows``:
the PR method or the thread's words).  The knob's default is the component's own rule; a design
runs, for each component, its class composed with the readings its knob values select
(``composed``), the design's own class first, so that a variant's override wins over a reading's.
"""

from __future__ import annotations

from typing import Any, ClassVar

#: (knob, value) -> the reading classes that value selects (one per component it changes)
READINGS: dict[tuple[str, Any], list[type]] = {}


class Reading:
    """A mixin marking a component subclass as a reading (see the module).  A reading is part of
    the model's own rules: symmetry reduction treats it as the component's default rule (it is
    no replaced component), and the model's checks of "stock" rules count it as stock
    (``is_stock``)."""

    knob: ClassVar[str] = ""
    value: ClassVar[Any] = None
    follows: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("knob"):
            classes = READINGS.setdefault((cls.knob, cls.value), [])
            classes[:] = [c for c in classes if c.__qualname__ != cls.__qualname__] + [cls]


_COMPOSED: dict[tuple[type, tuple[type, ...]], type] = {}


def composed(cls: type, readings: tuple[type, ...]) -> type:
    """``cls`` with ``readings`` (each a subclass of ``cls``'s component) mixed in after it: one
    class per combination, made once."""
    readings = tuple(r for r in readings if not issubclass(cls, r))
    if not readings:
        return cls
    key = (cls, readings)
    out = _COMPOSED.get(key)
    if out is None:
        name = "+".join([cls.__name__, *(r.__name__ for r in readings)])
        bases = readings if any(issubclass(r, cls) for r in readings) else (cls, *readings)
        out = type(name, bases, {"__module__": cls.__module__, "__qualname__": name})
        _COMPOSED[key] = out
    return out


def is_stock(cls: type, base: type, name: str) -> bool:
    """Is method ``name`` of ``cls`` the model's own: ``base``'s (or a class ``base`` derives from),
    or a built-in reading's?"""
    for klass in cls.__mro__:
        if name in vars(klass):
            return klass in base.__mro__ or issubclass(klass, Reading) and klass.__module__.startswith(__name__.rpartition(".")[0] + ".")
    return False
