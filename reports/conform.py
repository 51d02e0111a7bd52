"""The ``ckptcheck conform`` report: HTML, Markdown and JUnit XML of one run (per family its
cases, matches, refused cases by domain and mismatches with their first examples)."""

from __future__ import annotations

from pathlib import Path

from ckptcheck.checks.trace import write_text_atomic

from .render import ENV


def write_conform_reports(result, out: Path, *, command: str) -> list[Path]:
    """Write report.html, report.md and junit.xml into ``out``: each whole or not at all."""
    out.mkdir(parents=True, exist_ok=True)
    ctx = {"r": result, "command": command}
    rendered = {
        "report.html": ENV.get_template("conform.html").render(**ctx),
        "report.md": ENV.get_template("conform.md").render(**ctx),
        "junit.xml": ENV.get_template("conform.xml").render(**ctx),
    }
    paths = []
    for name, text in rendered.items():
        write_text_atomic(out / name, text)
        paths.append(out / name)
    return paths
