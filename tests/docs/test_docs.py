"""The documentation: its generated tables match the code, the site builds without a warning
(strict: broken links and pages left out of the navigation fail), and the README stays short."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ckptcheck.checks import docgen

ROOT = Path(__file__).resolve().parents[2]


def test_generated_tables_match_the_code():
    stale = [str(p.relative_to(ROOT)) for p in docgen.pages(ROOT)
             if docgen.regenerate(p.read_text(encoding="utf-8"), str(p)) != p.read_text(encoding="utf-8")]
    assert not stale, f"run python -m ckptcheck.checks.docgen: {stale}"
    blocks = {m.group(2) for p in docgen.pages(ROOT) for m in docgen.BLOCK.finditer(p.read_text(encoding="utf-8"))}
    assert blocks == set(docgen.TABLES), "every generated table appears on a page"


def test_a_generated_table_follows_the_code(monkeypatch):
    """A catalog entry added to the code changes the generated page: the test above would fail."""
    from ckptcheck.specs import catalog

    page = (ROOT / "docs" / "pages" / "catalog.md").read_text(encoding="utf-8")
    monkeypatch.setattr(catalog, "CATALOG", catalog.CATALOG[:-1])
    assert docgen.regenerate(page) != page


@pytest.mark.skipif(shutil.which("mkdocs") is None, reason="mkdocs is not installed: pip install -e '.[test]' brings it")
def test_the_site_builds_strictly(tmp_path):
    r = subprocess.run(["mkdocs", "build", "--strict", "-f", str(ROOT / "docs" / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "WARNING" not in r.stderr, r.stderr[-2000:]
    assert (tmp_path / "site" / "catalog" / "index.html").exists()


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 250, len(lines)


NUMBER = re.compile(r"(?<![\w.,/-])\d{1,3}(?:,\d{3})+(?![\w,]|\.\d)")
ONCE = "measured once"
BULLET = re.compile(r"\s*(?:[-*]|\d+\.) ")


def _pinned_by_tests() -> set[int]:
    """Every integer a test states as a literal: a figure a named test asserts."""
    found = set()
    for path in (ROOT / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 1000:
                found.add(node.value)
    return found


def _findings_report() -> set[int]:
    """The counts of the committed findings report, which the claims tier's search of the
    manifest states again (tests/specs/test_findings.py)."""
    text = sorted((ROOT / "reports" / "findings").glob("*-flip600-pr.md"))[-1].read_text(encoding="utf-8")
    return {int(n.replace(",", "")) for n in re.findall(r"search of the scope, ([\d,]+) states", text)}


def _units(text: str):
    """A page's paragraphs and table rows with their first line number, generated blocks left out
    (they are the code's own figures); a fenced block counts as part of the paragraph before it
    (which says what the block shows)."""
    text = docgen.BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    start, lines, fenced, before = None, [], False, ""
    for no, line in enumerate(text.splitlines() + [""], 1):
        if line.startswith("```"):
            if fenced:
                yield start, before + " " + " ".join(lines)
                lines = []
            else:
                start = no
            fenced = not fenced
        elif fenced:
            lines.append(line)
        elif line.startswith("|") or not line.strip():
            if lines:
                before = " ".join(lines)
                yield start, before
                lines = []
            if line.startswith("|"):
                yield no, line
        else:
            if lines and BULLET.match(line):  # a list item is a unit of its own
                before = " ".join(lines)
                yield start, before
                lines = []
            start = no if not lines else start
            lines.append(line)


def _unchecked(text: str, checked: set[int]) -> list[tuple[int, str]]:
    return [(no, n) for no, unit in _units(text) if ONCE not in unit.lower()
            for n in NUMBER.findall(unit) if int(n.replace(",", "")) not in checked]


def _checked() -> set[int]:
    from ckptcheck.specs.figures import FIGURES, ONCE as ONCE_TIER

    return _pinned_by_tests() | {n for f in FIGURES if f.tier != ONCE_TIER for n in f.numbers()} | _findings_report()


def test_every_figure_on_a_page_is_checked_or_said_to_be_measured_once():
    """A count on the README or a page is a figure of ``specs/figures.py`` that the claims tier
    or the default run checks, a number a test states, or a count of the committed findings
    report; or it sits in a paragraph or table row that says "measured once" (a figure of the
    ``once`` tier must say so too)."""
    checked = _checked()
    wrong = [f"{page.relative_to(ROOT)}:{no}: {n}" for page in [ROOT / "README.md", *docgen.pages(ROOT)]
             for no, n in _unchecked(page.read_text(encoding="utf-8"), checked)]
    assert not wrong, f"{len(wrong)} figures neither checked nor marked '{ONCE}': " + "; ".join(wrong)


def test_a_count_no_test_checks_is_caught_unless_marked():
    checked = _checked()
    text = "The baseline holds: 398,946 states.\n\nA bigger scope: 1,234,567 states.\n\n| row | 7,654,321 |\n"
    assert _unchecked(text, checked) == [(3, "1,234,567"), (5, "7,654,321")]
    text = "A bigger scope: 1,234,567 states, measured once.\n\nA run:\n\n```\n$ run\n8,765,432 states\n```\n"
    assert _unchecked(text, checked) == [(5, "8,765,432")]
    assert _unchecked("Measured once:\n\n```\n8,765,432 states\n```\n", checked) == []


def test_the_model_page_lists_every_component_with_its_class_and_module():
    """The model page's table has a row per design field, naming the class the model runs for it
    and the module that class is in: a component added or moved shows there."""
    from ckptcheck.model.design import COMPONENTS

    text = (ROOT / "docs" / "pages" / "model.md").read_text(encoding="utf-8")
    rows = {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(r"^  \| `(\w+)` \| `(\w+)` \| `([\w/.]+)` \|", text, re.M)}
    assert set(rows) == set(COMPONENTS)
    for name, cls in COMPONENTS.items():
        assert rows[name] == (cls.__name__, "model/" + cls.__module__.rpartition(".")[2] + ".py"), name
