"""Citations resolve: no docstring, page or report names a document outside the repository, and
every source the code and pages cite (a thread, a row of the fidelity review, a note on Flink's
mechanics) is defined on ``docs/pages/sources.md`` with a public link."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "docs" / "pages" / "sources.md"
FOLDERS = ("model", "specs", "checks", "reports", "docs", "benchmarks", "tests")
SUFFIXES = {".py", ".pyx", ".md", ".json", ".toml", ".j2", ".html", ".yml"}

#: names of documents that are not in the repository
OUTSIDE = re.compile(r"[Ss]eed 0\d\d|reference-flink|review-fidelity|review-architecture|review-usability|engine-study"
                     r"|\.\./shared|\bref(?:erence)? §|\breference \d")
ROWS = re.compile(r"\brows? ((?:[A-Z]{1,2}\d+[a-z]?(?:, | and | or |-|/)?)+)")
NOTES = re.compile(r"\b(UC|mechanics) notes? ((?:[A-E](?:\.\d+)?|\d+(?:\.\d+)?)(?:(?:, |-| and )(?:[A-E](?:\.\d+)?|\d+(?:\.\d+)?))*)")
THREADS = ("the FLIP-600 thread", "the FLIP-76 thread", "the pointwise-UC thread")


def _texts():
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and path != Path(__file__):
                yield path, path.read_text(encoding="utf-8", errors="replace")
    yield ROOT / "README.md", (ROOT / "README.md").read_text(encoding="utf-8")


def defined_ids() -> set[str]:
    """The ids the sources page defines: the first cell of its table rows, in backticks."""
    return set(re.findall(r"^\| `([^`]+)` \|", SOURCES.read_text(encoding="utf-8"), re.M))


def cited(text: str) -> set[str]:
    """The source ids ``text`` cites, as the sources page names them (``B12``, ``uc-A.6``,
    ``mechanics-8.1``): a range cites its two ends, a bare letter every note under it."""
    out = {x for m in ROWS.finditer(text) for x in re.findall(r"[A-Z]{1,2}\d+", m.group(1))}
    for m in NOTES.finditer(text):
        prefix = "uc-" if m.group(1) == "UC" else "mechanics-"
        out |= {prefix + x for x in re.findall(r"[A-E](?:\.\d+)?|\d+(?:\.\d+)?", m.group(2))}
    return out


def test_no_citation_names_a_document_outside_the_repository():
    wrong = [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
             for path, text in _texts() for m in OUTSIDE.finditer(text)]
    assert not wrong, "cite the sources page's ids instead:\n" + "\n".join(wrong[:40])


def test_every_cited_source_is_defined_on_the_sources_page():
    ids = defined_ids()
    page = SOURCES.read_text(encoding="utf-8")
    missing = sorted({(x, str(path.relative_to(ROOT))) for path, text in _texts() if path != SOURCES
                      for x in cited(text) if x not in ids and not any(i.startswith(x + ".") for i in ids)})
    assert not missing, f"cited but not on {SOURCES.name}: {missing[:40]}"
    assert all(name in page for name in THREADS), "each thread the code names is a row of the page"


def test_every_source_on_the_page_has_a_public_link():
    rows = [line for line in SOURCES.read_text(encoding="utf-8").splitlines() if re.match(r"^\| `[^`]+` \|", line)]
    assert rows, "the sources page has tables of ids"
    unlinked = [row.split("|")[1].strip() for row in rows if "https://" not in row]
    assert not unlinked, f"rows without a public link: {unlinked}"


def test_the_checks_catch_an_outside_document_and_an_undefined_row():
    assert OUTSIDE.search("as seed 003 proposes") and OUTSIDE.search("reference-flink-uc A.6")
    assert cited("review rows B1, B5 and N4; UC note A.5-A.6; mechanics note 8.1") == {
        "B1", "B5", "N4", "uc-A.5", "uc-A.6", "mechanics-8.1"}
    assert "Z99" not in defined_ids()
