"""The documentation: its generated tables match the code, the site builds without a warning
(strict: broken links and pages left out of the navigation fail), and the README stays short."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ckptcheck.checks import docgen

ROOT = Path(__file__).resolve().parents[1]


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


@pytest.mark.skipif(shutil.which("mkdocs") is None, reason="mkdocs is not installed: pip install -e '.[docs]' (.ci/run does)")
def test_the_site_builds_strictly(tmp_path):
    r = subprocess.run(["mkdocs", "build", "--strict", "-f", str(ROOT / "docs" / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "WARNING" not in r.stderr, r.stderr[-2000:]
    assert (tmp_path / "site" / "catalog" / "index.html").exists()


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 250, len(lines)
