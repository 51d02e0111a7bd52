"""Reports a reviewer can read: one self-contained HTML file (inline SVG, no network), Markdown
for a FLIP page or a mailing-list reply, and JUnit XML for CI.

Templates are jinja2 with autoescaping for HTML and XML; Markdown output escapes what a
Markdown renderer would otherwise treat as HTML.  A name like ``<script>`` renders inert.

A pure function of what it is given: ``checks.run.report`` builds a ``Report`` from results and
trace documents (replaying and narrating them through the model) and writes the files; nothing
here runs a search, replays a trace or writes a file.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from jinja2 import Environment, PackageLoader, select_autoescape

from ckptcheck.model.topology import Expanded
from ckptcheck.specs.verdicts import HIT, HOLDS, NOT_APPLICABLE, NOT_REACHED, SAMPLED, UNKNOWN, VIOLATED

from .steps import COORDINATOR, Step

LANE_W = 132
ROW_H = 22
LEFT = 56
TOP = 62


ON_TRACE = "no violation on this trace"


def _md(text: object) -> str:
    """Markdown that reads as plain text (a mailing-list reply): no HTML entities.  Only what
    Markdown would act on is backslash-escaped: ``<`` (so a name like ``<script>`` stays text),
    and ``|`` and backslashes.  ``**`` and backticks that the templates put around whole spans
    are kept; ``*``, ``_`` and ``>`` inside words are left as they are, which CommonMark reads
    literally."""
    s = str(text).replace("\\", "\\\\").replace("<", "\\<").replace("|", "\\|")
    return s


def _wrap(text: object, width: int = 100, wrapstring: str = "\n") -> str:
    """Short lines for a plain-text reader; names with hyphens and long paths are never split."""
    lines = textwrap.wrap(str(text), width, break_long_words=False, break_on_hyphens=False)
    return wrapstring.join(lines)


def _code(text: object) -> str:
    """Text for a Markdown code span: no backticks inside."""
    return str(text).replace("`", "'")


ENV = Environment(
    loader=PackageLoader(__package__, "templates"),
    autoescape=select_autoescape(enabled_extensions=("html", "xml"), default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
ENV.filters["md"] = _md
ENV.filters["code"] = _code
ENV.filters["wrap"] = _wrap


@dataclass
class Diagram:
    width: int
    height: int
    lanes: list[dict]
    rows: list[dict]  # one per event: y, step, arrow or mark geometry, label, tone, highlight
    bands: list[dict]  # highlighted step backgrounds
    reason_y: int
    reason_lines: list[str] = field(default_factory=list)  # the violation, wrapped to the width
    legend: list[tuple[str, int, str]] = field(default_factory=list)  # (tone, x, words)


LEGEND = (
    ("data", "record (split,offset)"),
    ("barrier", "barrier, snapshot"),
    ("control", "RPC, EndOfData"),
    ("complete", "complete"),
    ("regional", "regional / fallback"),
    ("commit", "commit"),
    ("restore", "restore"),
    ("fault", "fault, abort, delete"),
)
CHAR_W = 7  # px per character of the 11px monospace labels (a little over, so nothing clips)


@dataclass
class Counterexample:
    id: str
    design: str
    property: str
    kind: str
    reason: str
    steps: list[Step]
    violation_step: int
    diagram: Diagram
    scope: str
    engine: str
    seed: int | None
    trace_file: str | None
    trace_json: str = ""  # the trace document, embedded in the report so that it replays from the report alone
    trace_name: str = ""
    cause_step: int | None = None  # the last fault before the violation (a decline, a failure, a lost notice, ...)
    design_option: str = ""  # a Python variant's: "--design module:NAME ", which replay needs (it never imports from a trace)

    @property
    def replay_command(self) -> str:
        return f"ckptcheck replay {self.design_option}{self.trace_file}" if self.trace_file else "(trace not saved)"

    @property
    def trace_script(self) -> str:
        """The trace as the body of a ``<script type="application/json">``: it holds no ``<``
        (``trace_json`` escapes it), so no name in the trace can end the element."""
        return self.trace_json

    @property
    def trace_b64(self) -> str:
        import base64

        return base64.b64encode(self.trace_json.encode("utf-8")).decode("ascii")

    @property
    def trace_b64_lines(self) -> list[str]:
        """The trace in base64, 76 characters a line: a Markdown block that no reader reflows
        or renders, and that ``ckptcheck replay report.md`` decodes."""
        b = self.trace_b64
        return [b[i:i + 76] for i in range(0, len(b), 76)]


@dataclass
class Topology:
    name: str
    description: str
    vertices: list[dict]
    edges: list[dict]
    regions: int
    width: int
    height: int


@dataclass
class Report:
    title: str
    command: str
    properties: list[dict]
    rows: list[dict]
    counterexamples: list[Counterexample] = field(default_factory=list)
    topologies: list[Topology] = field(default_factory=list)
    proofs: list[dict] = field(default_factory=list)
    changes: list[dict] = field(default_factory=list)  # compare: what each variant changes against the reference
    reference: str = ""
    catalog: list[dict] = field(default_factory=list)  # the flaw catalog: one row per entry
    catalog_summary: str = ""
    suite: list[str] = field(default_factory=list)  # check with several default scopes: what they say together

    @property
    def replay_options(self) -> str:
        """What ``ckptcheck replay`` needs to replay every trace of this report: a ``--design`` for each
        Python variant among them."""
        return "".join(dict.fromkeys(c.design_option for c in self.counterexamples))

    @property
    def shown_properties(self) -> list[dict]:
        """The properties that apply to at least one row (the others are left out of tables)."""
        return [p for p in self.properties
                if any(r["cells"].get(p["name"], {}).get("status", NOT_APPLICABLE) != NOT_APPLICABLE for r in self.rows)]

    @property
    def violations(self) -> int:
        return sum(1 for r in self.rows for c in r["cells"].values() if c["status"] == VIOLATED)


def diagram(topo: Expanded, steps: list[Step], highlight: int | None, reason: str = "") -> Diagram:
    lanes_names = [COORDINATOR, *topo.names]
    x = {name: LEFT + LANE_W // 2 + i * LANE_W for i, name in enumerate(lanes_names)}
    rows = []
    bands = []
    y = TOP + 10
    for s in steps:
        start_y = y
        for e in s.events or []:
            row = {"y": y, "step": s.n, "label": e.label, "tone": e.tone, "highlight": s.n == highlight}
            if e.dst is not None and e.dst in x and e.src in x and e.dst != e.src:
                row.update(kind="arrow", x1=x[e.src], x2=x[e.dst], lx=(x[e.src] + x[e.dst]) // 2)
            else:
                row.update(kind="mark", x1=x.get(e.src, x[COORDINATOR]), lx=x.get(e.src, x[COORDINATOR]) + 8)
            rows.append(row)
            y += ROW_H
        if not s.events:
            rows.append({"y": y, "step": s.n, "label": s.action, "tone": "control", "kind": "note", "x1": LEFT, "lx": LEFT + 4, "highlight": s.n == highlight})
            y += ROW_H
        if s.n == highlight:
            bands.append({"y": start_y - ROW_H + 6, "h": y - start_y})
    width = LEFT + LANE_W * len(lanes_names) + 160  # room for mark labels on the last lane
    longest_mark = max((r["lx"] + CHAR_W * len(r["label"]) for r in rows if r["kind"] != "arrow"), default=0)
    legend, lx = [], 8
    for tone, words in LEGEND:
        legend.append((tone, lx, words))
        lx += 7 + CHAR_W * len(words) + 18
    width = max(width, longest_mark + 12, lx)
    lanes = [{"name": n, "x": x[n]} for n in lanes_names]
    lines = textwrap.wrap(f"step {highlight}: {reason}", max(40, (width - 12) // CHAR_W)) if reason else []
    return Diagram(width, y + 30 + 15 * max(0, len(lines) - 1), lanes, rows, bands, y + 14, lines, legend)


def topology_view(name: str, topo: Expanded) -> Topology:
    job = topo.job
    vertices = []
    for k, v in enumerate(job.vertices):
        subs = []
        for i, t in enumerate(topo.tasks_of[k]):
            r = topo.region_of[t]
            subs.append({"name": topo.names[t], "region": r, "y": 40 + i * 34, "hue": (200 + r * 67) % 360})
        vertices.append({"name": v.name, "parallelism": v.parallelism, "x": 20 + k * 200, "subtasks": subs, "role": v.role.value})
    pos = {s["name"]: (vt["x"], s["y"]) for vt in vertices for s in vt["subtasks"]}
    edges = []
    for c in topo.channels:
        (x1, y1), (x2, y2) = pos[topo.names[c.producer]], pos[topo.names[c.consumer]]
        e = job.edges[c.edge]
        edges.append({"x1": x1 + 150, "y1": y1 + 12, "x2": x2, "y2": y2 + 12, "dashed": e.exchange.value != "PIPELINED"})
    height = 60 + 34 * max(v.parallelism for v in job.vertices)
    return Topology(name, job.describe(), vertices, edges, len(topo.regions), 40 + 200 * len(job.vertices), height)


STATUS_CLASS = {
    HOLDS: "ok",
    ON_TRACE: "na",
    "proved": "ok",
    HIT: "ok",
    VIOLATED: "bad",
    NOT_REACHED: "warn",
    UNKNOWN: "warn",
    SAMPLED: "warn",
    NOT_APPLICABLE: "na",
}


def render_html(report: Report) -> str:
    return ENV.get_template("report.html").render(r=report, status_class=STATUS_CLASS, ROW_H=ROW_H, TOP=TOP)


def render_markdown(report: Report) -> str:
    return ENV.get_template("report.md").render(r=report)


def render_junit(report: Report) -> str:
    return ENV.get_template("junit.xml").render(r=report, VIOLATED=VIOLATED, skipped=(NOT_REACHED, NOT_APPLICABLE, UNKNOWN, SAMPLED))


def render_all(report: Report) -> dict[str, str]:
    """The three files of a report, by name: report.html, report.md and junit.xml."""
    return {"report.html": render_html(report), "report.md": render_markdown(report), "junit.xml": render_junit(report)}


def render_findings(data: dict) -> str:
    """The findings report (``checks.run.findings.findings_report`` gathers ``data``) as Markdown for a
    mailing list."""
    return ENV.get_template("findings.md").render(r=data)
