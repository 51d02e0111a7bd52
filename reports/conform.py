"""The ``ckptcheck conform`` report: HTML, Markdown and JUnit XML of one run (per family its
cases, matches, refused cases by domain and mismatches with their first examples), as texts by
file name (the command writes them)."""

from __future__ import annotations

from .render import ENV


def render_conform(result, *, command: str) -> dict[str, str]:
    """report.html, report.md and junit.xml of a conform run, by name."""
    ctx = {"r": result, "command": command}
    return {
        "report.html": ENV.get_template("conform.html").render(**ctx),
        "report.md": ENV.get_template("conform.md").render(**ctx),
        "junit.xml": ENV.get_template("conform.xml").render(**ctx),
    }
