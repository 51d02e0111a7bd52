"""Every state count the documentation states for a search, in one place (each feature lists its
own in its folder, ``specs/<feature>/figures.py``; this module collects them).

A ``Figure`` is one exhaustive search: a preset, a scope, symmetry on or off, and what the
search gives (distinct states, transitions, depth, the verdict, the witnesses it leaves
unreached).  Three readers use this table, so a changed count fails a test instead of leaving a
page wrong:

- the claims tier (``pytest -m claims``, ``tests/specs/test_figures.py``) runs every figure whose
  ``tier`` is ``"claims"`` and compares each stated field; the deep tier (``pytest -m deep``)
  runs the ``"once"`` figures, which do not fit CI's time (they were measured once, and the
  pages say so); a figure whose ``test`` names another test is searched there instead;
- ``ckptcheck check`` prints a figure's ``cost`` before a search of the same design and scope
  (``specs.scopes.known_figures``);
- ``checks/docgen.py`` writes the pages' tables of figures from it, and ``tests/docs/test_docs.py``
  checks that every other figure on a page is one of these or is marked as measured once.

``cost`` is a time measured once on this project's 2-core machine (times are never asserted:
the machines are noisy; ``benchmarks/`` measures them).
"""

from __future__ import annotations

from ckptcheck.model.scope import Scope

from .baseline import figures as baseline
from .figure import CLAIMS, GENERIC, ONCE, Figure  # noqa: F401  (re-exported)
from .flip147 import figures as flip147
from .flip600 import figures as flip600
from .nullstate import figures as nullstate
from .unaligned import figures as unaligned

_FEATURES = (baseline, nullstate, flip600, unaligned, flip147)

FIGURES: tuple[Figure, ...] = tuple(f for feature in _FEATURES for f in feature.FIGURES)


def figure(id: str) -> Figure:
    for f in FIGURES:
        if f.id == id:
            return f
    raise KeyError(f"no figure {id!r}; known: {', '.join(f.id for f in FIGURES)}")


# The memo engine's time over the reference engine's (2 workers) where both searched a scope in one
# run (docs/pages/engines.md, measured once): FLIP-600's full default scope 46.7 s / 390.1 s, the
# baseline's default 2.9 s / 17.7 s, the pointwise preset's default 22.0 s / 27.3 s.  The figures'
# costs above are the reference engine's; the expect line gives this range beside them.
MEMO_TIME_RATIO = (0.12, 0.81)


def measured(design_name: str, scope: Scope, symmetry: bool) -> Figure | None:
    """The figure of a search of ``design_name`` in ``scope`` with or without symmetry, if one
    was measured."""
    for f in FIGURES:
        if f.design == design_name and f.symmetry == symmetry and f.scope() == scope:
            return f
    return None


CATALOG_STEPS: dict[str, int] = {name: n for feature in (baseline, flip600, unaligned, flip147, nullstate)
                                 for name, n in feature.CATALOG_STEPS.items()}
"""Each catalog entry's shortest counterexample, in steps: what ``ckptcheck catalog`` reports
and the catalog page's table shows; ``tests/specs/test_catalog.py`` finds each again (the default run,
and the claims tier for the entries it leaves out) and checks it is no longer."""
