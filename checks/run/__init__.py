"""The Python API and what a check produces: ``check`` (``api``), per-property verdicts and results
(``results``), a design's default scopes together (``suite``), trace files and their replay (``trace``),
``compare``, ``findings``, the flaw catalog's runs (``catalog``, ``catalog_reach``), narration
(``narrate``) and the reports built from results and traces (``report``), the Spark walks and
replays (``spark``)."""

from .api import check, run_id, save_traces
from .results import CheckResult, Verdict
from .trace import load_trace_file, replay, trace_document

__all__ = ["CheckResult", "Verdict", "check", "load_trace_file", "replay", "run_id", "save_traces", "trace_document"]
