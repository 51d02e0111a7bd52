"""Reports built from results and trace documents: each counterexample narrated through the model
(``narrate``), its trace embedded, its diagram drawn; then rendered by ``reports.render`` (a pure
function of the ``Report``) and written here, each file whole or not at all."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ckptcheck.reports.render import (NOT_APPLICABLE, ON_TRACE, VIOLATED, Counterexample, Report, Topology, diagram, render_all,
                                      render_findings, topology_view)
from ckptcheck.model.design import COMPONENTS
from ckptcheck.specs.designs import BASELINE, LOADED_AS
from ckptcheck.specs.spec import Spec
from ckptcheck.specs.verdicts import EXHAUSTIVE_ENGINES

from .narrate import narrate
from .outputs import slug
from .results import CheckResult
from .trace import load_trace_file, replay, trace_document, write_text_atomic


FAULTS = ("Decline", "FailTask", "Timeout", "LoseNotification", "AlignmentTimeout", "Rescale", "StopWithSavepoint",
          "JobManagerFailover")


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


def design_option(design) -> str:
    """``--design module:NAME `` for a design with a component of the user's own Python (replay never imports
    what a trace names, so the reader names the module); "" for ckptcheck's own components."""
    if design.name in LOADED_AS:
        return f"--design {LOADED_AS[design.name]} "
    # ckptcheck's own classes are named by their registry ids, a user's by module.QualName
    modules = dict.fromkeys(q.rpartition(".")[0] for q in design.components().values() if "." in q)
    return "".join(f"--design {m}:NAME " for m in modules)


def counterexample(spec: Spec, actions: list, prop: str, kind: str, reason: str, step: int, *, engine: str, seed, trace_file, n: int) -> Counterexample:
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
        trace_json=json.dumps(doc, separators=(",", ":"), ensure_ascii=True)
        .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"),
        trace_name=name,
        cause_step=cause_of(actions, step),
        design_option=design_option(spec.design),
    )


def _property_columns(specs) -> list[dict]:
    seen: dict[str, dict] = {}
    for spec in specs:
        for p in spec.properties:
            seen.setdefault(p.name, {"name": p.name, "kind": p.kind, "statement": p.statement})
    return list(seen.values())


def build_report(
    results: list[CheckResult],
    *,
    title: str,
    command: str,
    proofs: list[dict] | None = None,
    changes: list | None = None,
    catalog: list[dict] | None = None,
    catalog_summary: str = "",
    suite: list[str] | None = None,
) -> Report:
    """A report of check results (each carries the spec it checked); with ``changes`` (from
    ``checks.run.compare``), what each variant changes against the first design."""
    props = _property_columns([r.spec for r in results])
    rows = []
    cexes = []
    topologies: dict[str, Topology] = {}
    for result in results:
        spec = result.spec
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
        report.reference = results[0].design.name
        links = {(c.design, c.property): c.id for c in cexes}
        by_name = {r.design.name: r for r in results}
        report.changes = [
            {"design": c.design, "property": c.property, "kind": c.kind, "what": c.what, "reason": c.reason,
             "before": results[0].verdict_words(c.before),
             "after": by_name[c.design].verdict_words(c.after) if c.design in by_name else c.after.status,
             "link": links.get((c.design, c.property))}
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


def write_reports(report: Report, out: Path) -> list[Path]:
    """Write report.html, report.md and junit.xml: each whole or not at all."""
    return write_texts(render_all(report), out)


def write_spark_report(summary: dict, out: Path) -> list[Path]:
    """The report of a Spark run's shortest counterexamples (``checks.run.spark`` writes their traces and
    its summary; the report is drawn from those traces), in ``out/report``; nothing without one."""
    traces = list(summary.get("shortest_counterexamples", {}).values())
    if not traces:
        return []
    report = report_from_traces(traces, title="ckptcheck spark: shortest counterexamples", command="ckptcheck spark")
    return write_reports(report, out / "report")


def write_texts(rendered: dict[str, str], out: Path) -> list[Path]:
    """Write each named text into ``out``, each file whole or not at all."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in rendered.items():
        write_text_atomic(out / name, text)
        paths.append(out / name)
    return paths


def findings_report(run, *, command: str, when: str) -> str:
    """The findings report of ``checks.run.findings.run_findings`` as Markdown for a mailing list:
    a table of findings, each one narrated with its replay command, the rule, the fix and the
    fix's own search; then what holds, the scopes and the design."""
    from .findings import searched_words

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
            if fr is None:
                fix_verdict = "was not searched: the --max-seconds bound was spent first"
            elif fr.holds:
                fix_verdict = f"holds ({searched_words(fr)}, depth {fr.stats.get('depth', 0)})"
            elif fr.violated:
                fix_verdict = "does NOT hold: " + "; ".join(f"{v.property}: {v.reason}" for v in fr.violated)
            else:
                fix_verdict = f"shows no violation: {searched_words(fr)}"
            fix_knobs = ", ".join([f"{k} = {v!r}" for k, v in f.fix.fixed.knobs().items() if configured.knobs()[k] != v]
                                  + [f"{k} = {getattr(f.fix.fixed, k).__name__}" for k in COMPONENTS
                                     if getattr(f.fix.fixed, k) is not getattr(configured, k)]) or "none"
        rows.append({
            "property": f.property, "statement": f.statement, "reason": f.reason, "scope": f.scope.name,
            "scope_text": f.scope.scope.describe() + (
                f"; the design as configured for it: {configured.name}, because {f.scope.settings_why}"
                if f.scope.settings else ""),
            "steps": len(f.trace),
            "replays": "yes" if f.replays else "NO", "narration": steps,
            "replay": f"ckptcheck replay -v {f.trace_file}", "rule": f.fix.rule if f.fix else "",
            "change": f.fix.change if f.fix else "", "fix_name": fix_name, "fix_verdict": fix_verdict,
            "fix_knobs": fix_knobs,
            "under": "; ".join(f"{r}: {f.under(r)}" for r in f.by_reading) if readings else "",
            "others": [f"{r}: `ckptcheck replay -v {x[1]}`" + ("" if x[2] else " (does NOT replay)")
                       for r, x in f.by_reading.items() if x is not None and x[1] != f.trace_file],
            "reading": f.reading or "",
        })
    missing = [f"{line}; the manifest's rule: {rule}" for line, rule in run.not_found()]
    held = [{"scope": r.scope.name + (f" under {readings.knob} = {r.reading}" if readings else ""),
             "searched": searched_words(r.result), "names": ", ".join(names) or "none",
             "hit": ", ".join(hit) or "none", "missed": ", ".join(missed) or "none"}
            for r, names, hit, missed in run.held()]
    scopes = [{"name": r.scope.name, "why": r.scope.why,
               "text": r.scope.scope.describe() + (f"; design {r.result.design.name}, because {r.scope.settings_why}"
                                                   if r.scope.settings else "")}
              for r in run.runs if readings is None or r.reading == run.runs[0].reading]
    base = BASELINE.knobs()
    knobs = ", ".join(f"{k} = {v!r}" for k, v in design.knobs().items() if base[k] != v)
    fixes = sum(1 for f in run.findings if f.fix_holds)
    n_scopes = len({r.scope.name for r in run.runs})
    intro = (f"{design.name} searched in {n_scopes} scope(s): {len(run.findings)} property violation(s) found,"
             f" {fixes} of them with a fix that holds in the same scope after an exhaustive search.  Every"
             " counterexample below is the shortest in its scope and replays with the command under it.")
    if run.unsettled:
        intro += (f"  The run was bounded to {run.max_seconds:g} s: {len(run.unsettled)} of the {len(run.manifest)}"
                  " violations the manifest expects (per scope and reading) were not settled, and are listed under the"
                  " table; nothing is said about them.")
    if readings:
        intro += (f"  Every scope is searched under each reading of a rule the design's source does not settle,"
                  f" {readings.knob}, read by one class each ({', '.join(map(readings.named, readings.values))}): {readings.why}.  The design's own reading is"
                  f" {design.knobs()[readings.knob]}; the table says under which readings each finding holds.")
    rules = []
    for rr in run.rules:
        if rr.needed:
            v = rr.result.violated[0]
            outcome = (f"still needed: without it {v.property} is violated in {rr.steps} steps ({v.reason})"
                       + ("" if rr.replays else "; the trace does NOT replay"))
        elif rr.needed is False:
            outcome = f"moot here: without it every property holds ({searched_words(rr.result)})"
        else:
            outcome = f"not settled: {searched_words(rr.result)}"
        expected = "as the manifest expects" if rr.as_expected else (
            "the manifest expects it " + ("needed" if rr.check.needed else "moot"))
        rules.append({"rule": rr.check.rule, "without": rr.check.without.name, "scope": rr.check.scope_name,
                      "outcome": outcome, "expected": expected,
                      "replay": f"ckptcheck replay -v {rr.trace_file}" if rr.needed else ""})
    data = {
        "title": f"Findings: {design.name}", "intro": intro, "rules": rules, "command": command, "when": when,
        "cost": run.cost(), "findings": rows, "missing": missing,
        "held": held, "scopes": scopes, "design_text": f"{design.name}: {design.description} Origin: {design.origin}",
        "knobs": knobs, "readings": readings.knob if readings else "",
    }
    return render_findings(data)
