"""Every design's findings manifest (``specs.finding``: what ``ckptcheck findings`` searches and
expects), collected from the features' folders."""

from __future__ import annotations

from ckptcheck.model.design import Design

from .finding import FindingScope, Fix, Readings, RuleCheck  # noqa: F401  (re-exported)
from .flip600 import findings as flip600
from .flip600.findings import LATE_ACK_FIX, enumerator_scope  # noqa: F401  (re-exported)
from .unaligned import findings as unaligned

FINDINGS: dict[str, tuple[Design, tuple[FindingScope, ...]]] = {**flip600.FINDINGS, **unaligned.FINDINGS}
READINGS: dict[str, Readings] = {**flip600.READINGS}
RULES: dict[str, tuple[RuleCheck, ...]] = {**unaligned.RULES}
