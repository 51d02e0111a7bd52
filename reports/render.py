"""Reports a reviewer can read: one self-contained HTML file (inline SVG, no network), Markdown
for a FLIP page or a mailing-list reply, and JUnit XML for CI.

Templates are jinja2 with autoescaping for HTML and XML; Markdown output escapes what a
Markdown renderer would otherwise treat as HTML.  A name like ``<script>`` renders inert.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from ckptcheck.checks.results import EXHAUSTIVE_ENGINES, HIT, HOLDS, NOT_APPLICABLE, NOT_REACHED, SAMPLED, UNKNOWN, VIOLATED, CheckResult
from ckptcheck.checks.outputs import slug
from ckptcheck.checks.trace import load_trace_file, replay, write_text_atomic
from ckptcheck.model.topology import Expanded
from ckptcheck.specs.spec import Spec

from .narrate import COORDINATOR, Step, narrate

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

    @property
    def replay_command(self) -> str:
        return f"ckptcheck replay {self.trace_file}" if self.trace_file else "(trace not saved)"

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


FAULTS = ("Decline", "FailTask", "Timeout", "LoseNotification", "AlignmentTimeout", "Rescale", "StopWithSavepoint")


def cause_of(actions: list, step: int) -> int | None:
    """The step a reader should look at first: the last fault (a decline, a task failure, a
    timeout, a lost notification, a rescale, a stop) before the violation at ``step``.  A
    heuristic, and labelled so in the reports: it is where the run leaves the fault-free path,
    not a proof that the fault is necessary (``ckptcheck compare`` against a design without it
    answers that)."""
    for k in range(min(step, len(actions)) - 1, 0, -1):
        if type(actions[k - 1]).__name__ in FAULTS:
            return k
    return None


def counterexample(spec, actions: list, prop: str, kind: str, reason: str, step: int, *, engine: str, seed, trace_file, n: int) -> Counterexample:
    import json as _json

    from ckptcheck.checks.trace import trace_document

    steps, _ = narrate(spec, actions)
    doc = trace_document(spec, actions, engine=engine, seed=seed,
                         violation={"property": prop, "kind": kind, "step": step, "reason": reason})
    name = Path(trace_file).name if trace_file else f"{slug(spec.design.name)}--{slug(prop)}.trace.json"
    return Counterexample(
        id=f"cex-{n}",
        design=spec.design.name,
        property=prop,
        kind=kind,
        reason=reason,
        steps=steps,
        violation_step=step,
        diagram=diagram(spec.model.topo, steps, step if step > 0 else None, reason),
        scope=spec.scope.describe(),
        engine=engine,
        seed=seed,
        trace_file=trace_file,
        # <, > and & as JSON escapes: the same document, with nothing an HTML or Markdown reader acts on
        trace_json=_json.dumps(doc, separators=(",", ":"), ensure_ascii=True)
        .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"),
        trace_name=name,
        cause_step=cause_of(actions, step),
    )


def _property_columns(specs) -> list[dict]:
    seen: dict[str, dict] = {}
    for spec in specs:
        for p in spec.properties:
            seen.setdefault(p.name, {"name": p.name, "kind": p.kind, "statement": p.statement})
    return list(seen.values())


def build_report(
    results: list[tuple[CheckResult, object]],
    *,
    title: str,
    command: str,
    proofs: list[dict] | None = None,
    changes: list | None = None,
    catalog: list[dict] | None = None,
    catalog_summary: str = "",
    suite: list[str] | None = None,
) -> Report:
    """A report of check results (each with the spec it checked); with ``changes`` (from
    ``checks.compare``), what each variant changes against the first design."""
    props = _property_columns([s for _, s in results])
    rows = []
    cexes = []
    topologies: dict[str, Topology] = {}
    for result, spec in results:
        cells = {}
        for v in result.verdicts:
            note = v.reason or ""
            cells[v.property] = {"status": v.status, "note": note, "says": result.verdict_words(v)}
            if v.status == VIOLATED and v.trace is not None:
                cexes.append(
                    counterexample(
                        spec, v.trace, v.property, v.kind, v.reason, len(v.trace),
                        engine=result.engine, seed=result.seed, trace_file=v.trace_file, n=len(cexes) + 1,
                    )
                )
                cells[v.property]["link"] = cexes[-1].id
        s = result.stats
        rows.append(
            {
                "design": result.design.name,
                "description": result.design.description,
                "cells": cells,
                "scope": result.scope.describe(),
                "engine": result.engine,
                "stats": _stats_line(result.engine, s, result.complete),
                "headline": result.headline(),
                "outcome": result.outcome,
                "job": result.scope.job_name,
                "seconds": s.get("seconds", 0),
            }
        )
        topologies.setdefault(result.scope.job_name, topology_view(result.scope.job_name, spec.model.topo))
    _unique_suite_names(rows)
    report = Report(title, command, props, rows, cexes, list(topologies.values()), proofs or [])
    report.catalog = catalog or []
    cex_of = {(c.design, c.property): c for c in cexes}
    for row in report.catalog:  # each catalog row links to its counterexample
        c = cex_of.get((row["name"], row["violates"]))
        row["link"] = c.id if c else None
        row["cex_title"] = f"Counterexample: {c.design} violates {c.property}" if c else ""
    report.catalog_summary = catalog_summary
    report.suite = suite or []
    if changes is not None and results:
        report.reference = results[0][0].design.name
        links = {(c.design, c.property): c.id for c in cexes}
        report.changes = [
            {"design": c.design, "property": c.property, "kind": c.kind, "what": c.what, "reason": c.reason,
             "before": c.before.status, "after": c.after.status, "link": links.get((c.design, c.property))}
            for c in changes
        ]
    return report


def _unique_suite_names(rows: list[dict]) -> None:
    """JUnit suite names: the design name, made unique with the job and a number where a design
    appears in several rows (CI servers merge suites of the same name)."""
    counts = Counter(r["design"] for r in rows)
    seen: Counter = Counter()
    for r in rows:
        name = r["design"]
        if counts[name] > 1:
            seen[name] += 1
            name = f"{name} [{r.get('job', '')}] #{seen[name]}"
        r["suite"] = name


def _stats_line(engine: str, s: dict, complete: bool) -> str:
    if engine in EXHAUSTIVE_ENGINES:
        how = "exhaustive" if complete else f"incomplete: {s.get('stopped')}"
        return f"{s['states']:,} states, depth {s['depth']}, {s['seconds']:.1f}s, {how}"
    return f"sampled: {s.get('runs', 0):,} runs, {s.get('steps', 0):,} steps, seed {s.get('seed')}, {s.get('seconds', 0):.1f}s"


def report_from_traces(paths: list[str], *, title: str, command: str) -> Report:
    """A report of saved traces: each is replayed, its verdict recomputed, its steps drawn."""
    props_specs = []
    rows = []
    cexes = []
    topologies: dict[str, Topology] = {}
    for path in paths:
        doc = load_trace_file(path)
        outcome = replay(doc, path)
        spec = outcome.spec
        props_specs.append(spec)
        v = outcome.violation
        cells = {p.name: {"status": ON_TRACE if p.kind != "sometimes" else NOT_APPLICABLE,
                          "note": "this trace only: nothing is said about other runs"} for p in spec.properties}
        for p in spec.properties:
            if p not in spec.applicable:
                cells[p.name] = {"status": NOT_APPLICABLE, "note": ""}
        if v is not None:
            cexes.append(
                counterexample(
                    spec, outcome.actions, v["property"], v["kind"], v["reason"], v["step"],
                    engine=str(doc.get("engine", "trace")), seed=doc.get("seed"), trace_file=path, n=len(cexes) + 1,
                )
            )
            cells[v["property"]] = {"status": VIOLATED, "note": v["reason"], "link": cexes[-1].id}
        rows.append(
            {
                "design": spec.design.name,
                "description": spec.design.description,
                "cells": cells,
                "scope": spec.scope.describe(),
                "engine": "replay",
                "stats": f"{outcome.steps} steps replayed from {Path(path).name}",
            }
        )
        topologies.setdefault(spec.scope.job_name, topology_view(spec.scope.job_name, spec.model.topo))
    _unique_suite_names(rows)
    return Report(title, command, _property_columns(props_specs), rows, cexes, list(topologies.values()))


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


def write_reports(report: Report, out: Path) -> list[Path]:
    """Write report.html, report.md and junit.xml: each whole or not at all."""
    out.mkdir(parents=True, exist_ok=True)
    rendered = {"report.html": render_html(report), "report.md": render_markdown(report), "junit.xml": render_junit(report)}
    paths = []
    for name, text in rendered.items():
        write_text_atomic(out / name, text)
        paths.append(out / name)
    return paths


def render_findings(run, *, command: str, when: str) -> str:
    """The findings report of ``checks.findings.run_findings`` as Markdown for a mailing list:
    a table of findings, each one narrated with its replay command, the rule, the fix and the
    fix's own search; then what holds, the scopes and the design."""
    from ckptcheck.checks.findings import searched_words
    from ckptcheck.specs.designs import BASELINE

    design = run.design
    readings = run.readings
    rows = []
    for f in run.findings:
        read = design if f.reading is None else readings.apply(design, f.reading)
        configured = f.scope.configure(read)
        steps, _ = narrate(Spec(configured, f.scope.scope), f.trace)
        if f.fix is None:
            fix_name, fix_verdict, fix_knobs = "none listed", "not checked", ""
        else:
            fr = f.fix_result
            fix_name = f.fix.fixed.name
            if fr.holds:
                fix_verdict = f"holds ({searched_words(fr)}, depth {fr.stats.get('depth', 0)})"
            elif fr.violated:
                fix_verdict = "does NOT hold: " + "; ".join(f"{v.property}: {v.reason}" for v in fr.violated)
            else:
                fix_verdict = f"shows no violation: {searched_words(fr)}"
            fix_knobs = ", ".join(f"{k} = {v!r}" for k, v in f.fix.fixed.knobs().items() if configured.knobs()[k] != v)
        rows.append({
            "property": f.property, "statement": f.statement, "reason": f.reason, "scope": f.scope.name,
            "scope_text": f.scope.scope.describe() + (f"; the design as configured for it: {configured.name}"
                                                      if configured is not design else ""),
            "steps": len(f.trace),
            "replays": "yes" if f.replays else "NO", "narration": steps,
            "replay": f"ckptcheck replay -v {f.trace_file}", "rule": f.fix.rule if f.fix else "",
            "change": f.fix.change if f.fix else "", "fix_name": fix_name, "fix_verdict": fix_verdict,
            "fix_knobs": fix_knobs,
            "under": "; ".join(f"{r}: {'no violation' if x is None else str(x[0]) + ' steps'}"
                               for r, x in f.by_reading.items()) if readings else "",
            "others": [f"{r}: `ckptcheck replay -v {x[1]}`" + ("" if x[2] else " (does NOT replay)")
                       for r, x in f.by_reading.items() if x is not None and x[1] != f.trace_file],
            "reading": f.reading or "",
        })
    missing = [f"{m.violates} in scope {r.scope.name} ({m.rule})" for r in run.runs for m in r.missing]
    held = [{"scope": r.scope.name + (f" under {readings.knob} = {r.reading}" if readings else ""),
             "searched": searched_words(r.result), "names": ", ".join(names) or "none",
             "hit": ", ".join(hit) or "none", "missed": ", ".join(missed) or "none"}
            for r, names, hit, missed in run.held()]
    scopes = [{"name": r.scope.name, "why": r.scope.why,
               "text": r.scope.scope.describe() + (f"; design {r.result.design.name}" if r.scope.settings else "")}
              for r in run.runs if readings is None or r.reading == run.runs[0].reading]
    base = BASELINE.knobs()
    knobs = ", ".join(f"{k} = {v!r}" for k, v in design.knobs().items() if base[k] != v)
    fixes = sum(1 for f in run.findings if f.fix_holds)
    n_scopes = len({r.scope.name for r in run.runs})
    intro = (f"{design.name} searched in {n_scopes} scope(s): {len(run.findings)} property violation(s) found,"
             f" {fixes} of them with a fix that holds in the same scope after an exhaustive search.  Every"
             " counterexample below is the shortest in its scope and replays with the command under it.")
    if readings:
        intro += (f"  Every scope is searched under each reading of a rule the design's source does not settle,"
                  f" {readings.knob} ({', '.join(map(str, readings.values))}): {readings.why}.  The design's own reading is"
                  f" {design.knobs()[readings.knob]}; the table says under which readings each finding holds.")
    data = {
        "title": f"Findings: {design.name}", "intro": intro, "command": command, "when": when,
        "cost": f"{run.seconds:.0f} s with {run.workers} worker(s)", "findings": rows, "missing": missing,
        "held": held, "scopes": scopes, "design_text": f"{design.name}: {design.description} Origin: {design.origin}",
        "knobs": knobs, "readings": readings.knob if readings else "",
    }
    return ENV.get_template("findings.md").render(r=data)
