"""Rendering of check results and counterexamples (HTML, Markdown, JUnit) belongs here.

Nothing renders yet: results are JSON (``checks.results``) and counterexamples are traces
(``checks.trace``), printed by ``ckptcheck check`` and ``ckptcheck replay``.
"""
