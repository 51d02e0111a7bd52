"""Reports: HTML (checked in headless Chromium), Markdown and JUnit; hostile names render inert."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import pytest

from ckptcheck.checks.run.api import check, save_traces
from ckptcheck.checks.cli.main import main
from ckptcheck.checks.run.report import build_report, report_from_traces, write_reports
from ckptcheck.reports.render import render_html, render_junit, render_markdown
from ckptcheck.specs.catalog import CATALOG, entry

from conftest import catalog_run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


# entries whose counterexample takes long to find (the pointwise ones: 25 steps, 206,058 states,
# 18 s each on two cores): rendered in the deep run
SLOW_TO_FIND = ("pointwise-no-primary-producer-rule", "pointwise-no-recovery-filter", "pointwise-no-upstream-recovery-tracker",
                "pointwise-pattern-not-recorded")


# the default run renders one entry of each correct design (every family of rules the narration
# covers: 2PC sinks, regional checkpoints with their files and chains, unaligned channel state,
# pointwise restores, Sink V2, FLINK-4120); the claims run renders every entry
SAMPLE = tuple(dict.fromkeys(e.correct.name for e in CATALOG if e.name not in SLOW_TO_FIND))
SAMPLE = tuple(next(e.name for e in CATALOG if e.correct.name == c and e.name not in SLOW_TO_FIND) for c in SAMPLE)


@lru_cache(maxsize=None)
def catalog_results(which: str = "sample"):
    """The catalog's counterexamples (each result carries its spec): ``sample`` (SAMPLE), ``rest`` (every other
    entry but the slow ones) or ``slow`` (SLOW_TO_FIND)."""
    out = []
    for e in CATALOG:
        slow = e.name in SLOW_TO_FIND
        if {"sample": e.name in SAMPLE, "rest": not slow and e.name not in SAMPLE, "slow": slow}[which]:
            out.append(catalog_run(e.name))
    return tuple(out)


@pytest.mark.parametrize("which", ["sample", pytest.param("rest", marks=pytest.mark.claims),
                                   pytest.param("slow", marks=pytest.mark.claims)])
def test_every_catalog_counterexample_renders_in_all_formats(which):
    report = build_report(list(catalog_results(which)), title="catalog", command="ckptcheck catalog")
    # every entry's counterexample is there (a step can break a second property too)
    entries = [e for e in CATALOG if any(e.design.name == r.design.name and e.scope == r.scope for r in catalog_results(which))]
    assert len(entries) == len(catalog_results(which))
    assert {(e.design.name, e.violates) for e in entries} <= {(c.design, c.property) for c in report.counterexamples}
    html, md, junit = render_html(report), render_markdown(report), render_junit(report)
    flat = " ".join(md.replace("\\<", "<").split())
    assert "&gt;" not in md and "&lt;" not in md and "&amp;" not in md, "plain text: no HTML entities"
    for c in report.counterexamples:
        assert " ".join(c.reason.split()) in flat
        assert f'id="{c.id}"' in html
        assert c.steps[c.violation_step - 1].n == c.violation_step
    root = ET.fromstring(junit)
    assert int(root.get("failures")) == len(report.counterexamples)
    failures = root.findall(".//failure")
    assert len(failures) == len(report.counterexamples)
    if which == "sample":
        assert any("committed twice" in f.get("message") for f in failures)


def test_the_sample_covers_every_correct_design():
    assert len(SAMPLE) == len({e.correct.name for e in CATALOG if e.name not in SLOW_TO_FIND}) >= 8
    assert SAMPLE[0] == CATALOG[0].name


def test_sequence_diagram_has_lanes_arrows_and_highlight():
    report = build_report([catalog_results()[0]], title="t", command="c")
    d = report.counterexamples[0].diagram
    assert [lane["name"] for lane in d.lanes] == ["coordinator", "source[0]", "source[1]", "sink[0]", "sink[1]"]
    assert any(r["kind"] == "arrow" and r["label"].startswith("barrier") for r in d.rows)
    assert any(r["kind"] == "mark" and r["label"].startswith("commit txn") for r in d.rows)
    assert any(r["kind"] == "mark" and r["label"] == "FAILS" for r in d.rows)
    assert d.bands, "the violating step is highlighted"


def assert_markdown_inert(md: str) -> None:
    """Outside code spans (which Markdown prints literally) every ``<`` is backslash-escaped, so
    no name becomes an HTML tag."""
    outside = re.sub(r"`[^`\n]*`", "", md)
    assert not re.search(r"(?<!\\)<", outside), [line for line in outside.splitlines() if re.search(r"(?<!\\)<", line)][:3]


def test_hostile_names_render_inert(tmp_path):
    e = entry("no-alignment-block")
    evil = e.design.with_(name="<script>alert(1)</script>", description="<img src=x onerror=alert(2)>")
    r = check(evil, e.scope, stop_at=e.violates)
    report = build_report([r], title="<script>t()</script>", command="c")
    html, md, junit = render_html(report), render_markdown(report), render_junit(report)
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html
    assert_markdown_inert(md)
    ET.fromstring(junit)  # still well-formed XML
    assert "<script>alert" not in junit


def test_report_command_replays_traces(tmp_path, capsys):
    r = catalog_results()[3]
    paths = save_traces(r, tmp_path / "traces")
    assert main(["report", *map(str, paths), "--out", str(tmp_path / "rep")]) == 0
    assert (tmp_path / "rep" / "report.html").exists()
    rep = report_from_traces([str(p) for p in paths], title="t", command="c")
    assert rep.counterexamples[0].reason == r.violated[0].reason


def test_bad_trace_in_report_command_is_bad_input(tmp_path, capsys):
    p = tmp_path / "x.json"
    p.write_text("[]")
    assert main(["report", str(p), "--out", str(tmp_path / "rep")]) == 2
    assert "x.json: trace: expected a JSON object" in capsys.readouterr().err
    assert not (tmp_path / "rep").exists()


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_html_opens_in_headless_chromium_without_errors(tmp_path):
    report = build_report(list(catalog_results()), title="catalog", command="ckptcheck catalog")
    html_path = write_reports(report, tmp_path)[0]
    proc = subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
            "--dump-dom", html_path.resolve().as_uri(),
        ],
        capture_output=True, text=True, timeout=120, check=False,
    )
    dom = proc.stdout
    assert 'data-errors="0"' in dom, proc.stderr[-2000:]
    drawn = int(dom.split('data-diagram-elements="')[1].split('"')[0])
    assert drawn > 50, "the sequence diagrams are drawn"
    console_errors = [line for line in proc.stderr.splitlines() if "CONSOLE" in line and "ERROR" in line.upper()]
    assert not console_errors, console_errors
    assert Path(html_path).stat().st_size > 10_000


def test_trace_schema_accepts_a_real_trace_and_itf_export(tmp_path, capsys):
    import json

    from ckptcheck.checks.run.itf import to_itf
    from ckptcheck.checks.run.trace import load_trace_file, replay

    schema = json.loads((Path(__file__).resolve().parents[2] / "checks" / "run" / "trace.schema.json").read_text())
    r = catalog_results()[0]
    path = sorted(p for p in save_traces(r, tmp_path) if p.name.endswith(".trace.json"))[0]
    doc = json.loads(path.read_text())
    # the schema's required fields and action types match what we write
    assert set(schema["required"]) <= set(doc)
    action_types = {t for alt in schema["$defs"]["action"]["oneOf"] for t in (alt["properties"]["type"].get("enum") or [alt["properties"]["type"]["const"]])}
    assert {a["type"] for a in doc["actions"]} <= action_types
    assert set(doc["design"]["knobs"]) == set(schema["properties"]["design"]["properties"]["knobs"]["properties"])
    itf = to_itf(replay(load_trace_file(str(path)), str(path)), str(path))
    assert len(itf["states"]) == len(doc["actions"]) + 1
    assert itf["states"][1]["action"] == doc["actions"][0]
    assert set(itf["vars"]) <= set(itf["states"][0]) | {"#meta"}
    assert main(["itf", str(path), "--out", str(tmp_path / "t.itf.json")]) == 0
    assert json.loads((tmp_path / "t.itf.json").read_text())["#meta"]["format"] == "ITF"


def test_trace_with_script_vertex_names_renders_inert(tmp_path):
    from ckptcheck.model.scope import Scope
    from ckptcheck.model.topology import Edge, JobGraph, Role, StateKind, Vertex

    src, snk = "<script>alert(1)</script>", "<img src=x onerror=alert(2)>"
    job = JobGraph(
        (Vertex(src, 2, Role.SOURCE), Vertex(snk, 2, Role.SINK, state=frozenset({StateKind.KEYED}), two_phase_commit=True)),
        (Edge(src, snk),),
    )
    e = entry("no-alignment-block")
    sc = Scope(job, job_name="<b>evil</b>", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0, max_lost_notifications=0)
    r = check(e.design, sc, stop_at=e.violates)
    paths = save_traces(r, tmp_path)
    report = report_from_traces([str(p) for p in paths], title="t", command="c")
    html, md, junit = render_html(report), render_markdown(report), render_junit(report)
    assert "<script>alert(1)" not in html and "<img src=x" not in html and "<b>evil" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;[0]" in html
    assert_markdown_inert(md)
    ET.fromstring(junit)


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.mark.claims  # about 18 s; the default tier keeps the screenshot and the other report tests
def test_f1_and_f2_render_in_all_three_formats():
    rows = [catalog_run(n) for n in ("F1-fallback-notice-finishes-task", "F2-commit-past-own-state")]
    report = build_report(rows, title="findings", command="ckptcheck catalog")
    html, md, junit = render_html(report), render_markdown(report), render_junit(report)
    f2 = next(c for c in report.counterexamples if c.design == "F2-commit-past-own-state")
    # the step table names the events that are the bug: the regional completion with its fallback
    # ref, the abort notice's latest-completed id, and the commit it causes
    texts = [s.text for s in f2.steps]
    assert any("completes regionally: source[0] from 1, sink[0] from 1" in t for t in texts)
    assert "carries latest completed checkpoint 2" in texts[-1] and "sink[0] commits txn 1 = {(0,0)}" in texts[-1]
    for c in report.counterexamples:
        assert f'id="{c.id}"' in html and c.property in md
    assert "18. ⚠ `Notify(sink[0], 3, abort)`" in md
    assert max(len(line) for line in md.splitlines() if not line.startswith(("Command:", "Replay with:"))) <= 104
    ET.fromstring(junit)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_screenshot_of_the_longest_counterexample_keeps_legend_and_reason_inside(tmp_path):
    """The longest catalog counterexample the default run finds (the slow-to-find ones are left
    to the deep run), F1 and F2 (whose reason used to be clipped at the diagram's edge): every
    diagram has its legend, and every reason line lies inside its diagram and inside the
    screenshot."""
    quick = [e for e in CATALOG if e.name not in SLOW_TO_FIND]
    longest = max(quick, key=lambda e: len(catalog_run(e.name).verdict(e.violates).trace))
    names = [longest.name, "F1-fallback-notice-finishes-task", "F2-commit-past-own-state"]
    rows = [catalog_run(n) for n in names]
    report = build_report(rows, title="longest", command="c")
    html_path = write_reports(report, tmp_path)[0]
    width = max(c.diagram.width for c in report.counterexamples) + 80
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={width},16000", "--force-device-scale-factor=1"]
    dom = subprocess.run([*common, "--dump-dom", html_path.resolve().as_uri()], capture_output=True, text=True,
                         timeout=120, check=False).stdout
    attrs = dict(re.findall(r'data-([a-z-]+)="(\d+)"', dom.split("<body", 1)[1].split(">", 1)[0]))
    assert attrs["errors"] == "0"
    assert int(attrs["legend-items"]) == 8 * len(report.counterexamples)
    assert attrs["text-clipped"] == "0", "a reason line or legend item runs past its diagram"
    shot = tmp_path / "shot.png"
    subprocess.run([*common, f"--screenshot={shot}", html_path.resolve().as_uri()], capture_output=True,
                   timeout=120, check=False)
    w, h = _png_size(shot)
    assert int(attrs["text-right"]) <= w and int(attrs["text-bottom"]) <= h, (attrs, w, h)


def test_a_catalog_report_replays_from_its_embedded_trace_alone(tmp_path, capsys):
    """The catalog's report links each row to its counterexample and embeds the trace (HTML: a
    script element and a download link; Markdown: a fenced block): with the trace files gone,
    `ckptcheck replay report.md` and `report.html` re-run it to the recorded verdict."""
    import shutil

    from ckptcheck.checks.run.catalog import run_entry
    from ckptcheck.checks.cli.main import main
    from ckptcheck.checks.run.report import build_report, write_reports
    from ckptcheck.specs.catalog import entry

    e = entry("source-position-not-restored")  # 895 states: the report, not the search, is under test
    row, bad, good = run_entry(e, tmp_path / "traces", {}, workers=1)
    assert row["found"]
    report = build_report([bad], title="ckptcheck flaw catalog", command="ckptcheck catalog", catalog=[row],
                          catalog_summary="1/1 catalog entries found")
    write_reports(report, tmp_path / "rep")
    shutil.rmtree(tmp_path / "traces")
    html = (tmp_path / "rep" / "report.html").read_text()
    md = (tmp_path / "rep" / "report.md").read_text()
    assert '<a href="#cex-1">source-position-not-restored</a>' in html and 'download="' in html
    assert '(see "Counterexample: source-position-not-restored violates exactly-once-output" below)' in " ".join(md.split())
    assert "◆" in md, "the last fault before the violation is marked"
    for name in ("report.md", "report.html"):
        code = main(["replay", str(tmp_path / "rep" / name)])
        out = capsys.readouterr().out
        assert code == 1 and "== trace 1 of 1 embedded in" in out, out
        assert "exactly-once-output (always) VIOLATED at step" in out and "same verdict as recorded in the trace" in out


def test_a_report_without_a_trace_and_a_doctored_embedded_trace_are_one_line(tmp_path, capsys):
    from ckptcheck.checks.cli.main import main

    plain = tmp_path / "report.md"
    plain.write_text("# nothing here\n")
    assert main(["replay", str(plain)]) == 2
    assert "embeds no trace" in capsys.readouterr().err
    bad = tmp_path / "bad.md"
    bad.write_text("```ckptcheck-trace-base64\neyJub3QganNvbg==\n```\n")  # base64 of '{"not json'
    assert main(["replay", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "traces[0]" in err[0] and "not valid JSON" in err[0]
    bad.write_text("```ckptcheck-trace-base64\n%%%\n```\n")
    assert main(["replay", str(bad)]) == 2
    assert "not base64" in capsys.readouterr().err
