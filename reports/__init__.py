"""Rendering of check results and counterexamples: HTML (with SVG sequence diagrams),
Markdown and JUnit XML, from jinja2 templates in ``templates/``."""
