"""The documentation's tables that restate code, generated from it so that they cannot drift.

A page under ``docs/pages`` holds a generated table between ``<!-- generated: NAME -->`` and
``<!-- end generated -->``; ``python -m ckptcheck.checks.docgen`` rewrites every such block
from the code (``--check`` only says which differ, exit 1), and ``tests/docs/test_docs.py`` fails
when a committed page differs from what the code generates.  The tables: ``catalog`` (every
entry of ``specs.catalog``), ``designs`` (every preset's knobs that differ from
``flink-baseline`` and the components it replaces), ``default-scopes`` (every preset's default
scopes and the figures measured for them, ``specs.scopes.KNOWN_FIGURES``), ``properties``
(every property and witness of ``specs.properties``), ``conform`` (the conform families),
``flink-index`` (every Flink method a rule follows, from the rules' ``follows`` tags),
``extension-points`` (the methods a variant may override, ``model.surface``) and ``readings``
(every reading a knob value selects, ``model.reading``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable

BLOCK = re.compile(r"(<!-- generated: ([a-z-]+) -->\n)(.*?)(<!-- end generated -->)", re.S)


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def catalog() -> str:
    from ckptcheck.specs.catalog import CATALOG
    from ckptcheck.specs.figures import CATALOG_STEPS

    rows = ["| entry | violates | steps | the flawed design | scope (job) | correct design on the same scope |",
            "| --- | --- | --- | --- | --- | --- |"]
    for e in CATALOG:
        rows.append(f"| `{e.name}` | `{e.violates}` | {CATALOG_STEPS[e.name]} | {_cell(e.design.description)} | "
                    f"{e.scope.job_name} | {e.correct.name} |")
    return "\n".join(rows) + "\n"


def designs() -> str:
    from ckptcheck.specs.designs import BASELINE, PRESETS

    base = BASELINE.knobs()
    rows = ["| preset | what it is | knobs that differ from flink-baseline | components it replaces |", "| --- | --- | --- | --- |"]
    for name, d in PRESETS.items():
        knobs = ", ".join(f"`{k} = {v!r}`" for k, v in d.knobs().items() if v != base[k]) or "none"
        comps = ", ".join(f"`{k}` = `{q.rsplit('.', 1)[-1]}`" for k, q in d.replaced().items()) or "none"
        rows.append(f"| `{name}` | {_cell(d.description)} | {knobs} | {comps} |")
    return "\n".join(rows) + "\n"


def default_scopes() -> str:
    from ckptcheck.specs.designs import PRESETS
    from ckptcheck.specs.scopes import default_scopes_for, known_figures

    rows = ["| preset | default scope | figures measured (an exhaustive search) |", "| --- | --- | --- |"]
    for name, d in PRESETS.items():
        for k, sc in enumerate(default_scopes_for(d), 1):
            from ckptcheck.checks.run.findings import symmetric

            fig = known_figures(d, sc, symmetric(d, sc)) or known_figures(d, sc, False) or "not measured"
            fig = fig.split(": ", 1)[1] if ": " in fig and fig.startswith(name) else fig
            rows.append(f"| `{name}` | {k}. {_cell(sc.describe())} | {_cell(fig)} |")
    return "\n".join(rows) + "\n"


def properties() -> str:
    from ckptcheck.specs.properties import BASELINE_PROPERTIES

    rows = ["| property | kind | statement |", "| --- | --- | --- |"]
    for p in BASELINE_PROPERTIES:
        rows.append(f"| `{p.name}` | {p.kind} | {_cell(p.statement)} |")
    return "\n".join(rows) + "\n"


def conform() -> str:
    from ckptcheck.checks.conform.families import FAMILIES

    rows = ["| family | what | Flink class and method | model function |", "| --- | --- | --- | --- |"]
    for f in FAMILIES:
        for op in f.ops:
            rows.append(f"| `{f.name}` | {_cell(f.summary)} | `{_cell(op.flink)}` | `{_cell(op.model_fn)}` |")
    return "\n".join(rows) + "\n"


def figures() -> str:
    from ckptcheck.specs.figures import CLAIMS, FIGURES, ONCE

    tier = {CLAIMS: "claims tier (every landing)", ONCE: "measured once (`pytest -m deep -n 0`)"}
    rows = ["| search | distinct states | transitions, depth | verdict | checked by | time (measured once) |",
            "| --- | --- | --- | --- | --- | --- |"]
    for f in FIGURES:
        count = "not measured yet" if f.states is None else f"{f.states:,}{' symmetry classes' if f.symmetry else ''}"
        shape = ", ".join(x for x in (f"{f.transitions:,}" if f.transitions else "", f"depth {f.depth}" if f.depth else "") if x)
        hit = "" if f.unreached is None else ("; every applicable witness hit" if not f.unreached else
                                              f"; every applicable witness hit but {', '.join(f.unreached)}")
        rows.append(f"| `{f.id}`: {_cell(f.what)} | {count} | {shape} | {f.verdict}{hit} | {tier[f.tier]}: "
                    f"`{f.test.split('::')[-1]}` | {_cell(f.cost)} |")
    return "\n".join(rows) + "\n"




def flink_index() -> str:
    """Every Flink method a rule of the model follows (its ``follows`` tag), and the rules."""
    from ckptcheck.model.component import flink_tags
    from ckptcheck.model.design import COMPONENTS

    by_method: dict[str, set[str]] = {}
    for field, cls in COMPONENTS.items():
        for rule, tags in flink_tags(cls).items():
            shown = f"`{cls.__name__}.{rule.split('.', 1)[1]}` (`{field}`)"
            for tag in tags:
                by_method.setdefault(tag, set()).add(shown)
    rows = ["| Flink method | in | model rule (design field) |", "| --- | --- | --- |"]
    for tag in sorted(by_method, key=lambda t: (t.split(" ")[-1].lower(), t)):
        pr, _, method = tag.rpartition(" ")
        where = f"PR {pr}" if pr else "Flink 2.3.0"
        rows.append(f"| `{method}` | {where} | {', '.join(sorted(by_method[tag]))} |")
    return "\n".join(rows) + "\n"


def readings() -> str:
    """Every reading (``model.reading.READINGS``): the knob value that selects it, the component it
    changes, the methods it overrides and what it follows."""
    from ckptcheck.model.design import COMPONENTS
    from ckptcheck.model.reading import READINGS

    rows = ["| knob = value | reading | component | overrides | follows |", "| --- | --- | --- | --- | --- |"]
    for (knob, value), classes in sorted(READINGS.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        for cls in classes:
            field = next(n for n, c in COMPONENTS.items() if issubclass(cls, c))
            methods = sorted({m for k in cls.__mro__ if k.__module__ == cls.__module__ and k is not COMPONENTS[field]
                              for m, fn in vars(k).items() if callable(fn) and not m.startswith("__")})
            rows.append(f"| `{knob} = {value!r}` | `{cls.__name__}` | `{field}` | {', '.join(f'`{m}`' for m in methods)} |"
                        f" {_cell(cls.follows)} |")
    return "\n".join(rows) + "\n"


def extension_points() -> str:
    """Every extension point (``model.surface.POINTS``): its signature, what it does (its
    docstring's first sentence) and the signatures it had before."""
    import inspect

    from ckptcheck.model.assignment_pointwise import PointwiseStateAssignment
    from ckptcheck.model.design import COMPONENTS
    from ckptcheck.model.surface import POINTS

    classes = {k.__name__: k for c in [*COMPONENTS.values(), PointwiseStateAssignment] for k in c.__mro__}
    rows = ["| extension point | what it does | signatures before |", "| --- | --- | --- |"]
    for p in POINTS:
        fn = getattr(classes[p.component], p.method)
        fn = fn.fget if isinstance(fn, property) else getattr(fn, "func", fn)
        params = ", ".join(str(x).split(":")[0].split("=")[0].strip() for x in list(inspect.signature(fn).parameters.values())[1:])
        doc = " ".join((inspect.getdoc(fn) or "").split())
        first = re.split(r"(?<=[a-z)`])\.\s", doc, maxsplit=1)[0].rstrip(".")
        was = "; ".join(f"`({', '.join(w.params)})` until {w.until}" for w in p.was) or "none"
        rows.append(f"| `{p.component}.{p.method}({params})` | {_cell(first)} | {_cell(was)} |")
    return "\n".join(rows) + "\n"


TABLES: dict[str, Callable[[], str]] = {
    "catalog": catalog, "designs": designs, "default-scopes": default_scopes, "properties": properties, "conform": conform,
    "figures": figures, "flink-index": flink_index, "extension-points": extension_points, "readings": readings,
}


def regenerate(text: str, where: str = "page") -> str:
    """``text`` with every generated block rewritten from the code; an unknown name raises."""
    def one(m: re.Match) -> str:
        name = m.group(2)
        if name not in TABLES:
            raise ValueError(f"{where}: generated block {name!r}: expected one of {', '.join(TABLES)}")
        return m.group(1) + TABLES[name]() + m.group(4)

    return BLOCK.sub(one, text)


def pages(root: Path) -> list[Path]:
    return sorted((root / "docs" / "pages").glob("*.md"))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    check = "--check" in argv
    root = Path(__file__).resolve().parents[1]
    stale = []
    for page in pages(root):
        text = page.read_text(encoding="utf-8")
        new = regenerate(text, str(page))
        if new != text:
            stale.append(page)
            if not check:
                page.write_text(new, encoding="utf-8")
    for page in stale:
        print(f"{'stale' if check else 'rewrote'}: {page.relative_to(root)}")
    return 1 if (check and stale) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
