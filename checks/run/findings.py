"""The findings report: a design under review searched in each scope of its manifest
(``specs.findings``), every property it violates with its shortest counterexample saved as a
trace and replayed, each fix checked in the same scope, and what holds with the scope searched.

Nothing in the report is taken from the manifest without a search: a violation the manifest
did not expect is reported (without a fix), and an expected one the search no longer finds is
reported as such.  Each search is exhaustive unless ``max_seconds`` cuts it short, and the
report then says "no violation in N states (incomplete)", never "holds".
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ckptcheck.model.design import Design
from ckptcheck.specs.findings import FindingScope, Fix, Readings, RuleCheck
from ckptcheck.specs.spec import symmetric
from ckptcheck.checks.engine import engine_workers

from .api import check, save_traces
from .results import HIT, NOT_APPLICABLE, VIOLATED, CheckResult
from .trace import load_trace_file, replay


@dataclass
class Finding:
    """One property the design violates in one scope."""

    scope: FindingScope
    property: str
    statement: str
    reason: str
    trace: list
    trace_file: str
    replays: bool
    fix: Fix | None
    fix_result: CheckResult | None
    expected: bool  # the manifest lists it under every reading it was found in
    reading: str | None = None  # the reading the trace above is from (None: the design has no readings)
    # per reading searched: (steps, trace file, replays) where the violation was found, None where it was not
    by_reading: dict = field(default_factory=dict)
    # the readings whose search did not settle it: NOT_FOUND_IN_PART or NOT_SEARCHED (the others searched their whole scope)
    unsettled: dict = field(default_factory=dict)

    def under(self, reading) -> str:
        """What the search under ``reading`` says of this violation, in the report's words."""
        x = self.by_reading.get(reading)
        if x is not None:
            return f"{x[0]} steps"
        return SHORT.get(self.unsettled.get(reading), "no violation")

    @property
    def fix_holds(self) -> bool:
        return self.fix_result is not None and self.fix_result.holds


FOUND = "found"
NOT_FOUND = "not found: the scope was searched to the end"
NOT_FOUND_IN_PART = "not found in the part searched (the search was cut short)"
NOT_SEARCHED = "not searched: the --max-seconds bound was spent first"
SHORT = {NOT_FOUND_IN_PART: "not found in the part searched", NOT_SEARCHED: "not searched"}


@dataclass
class ManifestRow:
    """One violation the manifest expects in one scope (under one reading), and what the run says of it."""

    scope: str
    property: str
    reading: object  # None: the design has no readings
    state: str  # FOUND, NOT_FOUND, NOT_FOUND_IN_PART or NOT_SEARCHED
    rule: str

    @property
    def settled(self) -> bool:
        return self.state in (FOUND, NOT_FOUND)


@dataclass
class ScopeRun:
    scope: FindingScope
    result: CheckResult
    seconds: float
    missing: list[Fix] = field(default_factory=list)  # expected violations the search did not find
    reading: str | None = None  # the reading searched (None: the design has no readings)


@dataclass
class RuleRun:
    """A rule checked by its absence (``specs.finding.RuleCheck``): the search of the design
    without it, and its shortest counterexample where it has one, saved and replayed."""

    check: RuleCheck
    result: CheckResult
    trace_file: str = ""
    steps: int = 0
    replays: bool = False

    @property
    def needed(self) -> bool | None:
        """Does dropping the rule break a property (True), is every property holding in the whole
        scope (False), or did the search not settle it (None)?"""
        if self.result.violated:
            return True
        return False if self.result.searched_whole_scope else None

    @property
    def as_expected(self) -> bool:
        return self.needed is self.check.needed and (not self.needed or self.replays)


@dataclass
class FindingsRun:
    design: Design
    runs: list[ScopeRun]
    findings: list[Finding]
    seconds: float
    workers: int
    interrupted: bool = False  # Ctrl-C: the scopes after the interrupted search were not searched
    readings: Readings | None = None
    manifest: list[ManifestRow] = field(default_factory=list)  # every expected violation and what the run says of it
    max_seconds: float | None = None  # the bound on the whole run, if any
    engine: str = "memo"  # the exhaustive engine of every search (memo: one process, workers unused)
    rules: list[RuleRun] = field(default_factory=list)  # the design's rules checked by their absence

    def cost(self) -> str:
        """The run's time and what ran it."""
        if self.engine == "memo":
            return f"{self.seconds:.0f} s on the memo engine (one process)"
        return f"{self.seconds:.0f} s with {self.workers} worker(s)"

    def not_found(self) -> list[tuple[str, str]]:
        """Each expected violation the run did not find, a line per scope, property and state, with the
        readings it applies to, and the manifest's rule for it."""
        groups: dict[tuple, list] = {}
        for m in self.manifest:
            if m.state != FOUND:
                groups.setdefault((m.scope, m.property, m.state, m.rule), []).append(m.reading)
        knob = self.readings.knob if self.readings else None
        return [(f"{prop} in scope {scope}: {state}" + (f" (under {knob} = {', '.join(map(str, rs))})" if knob else ""), rule)
                for (scope, prop, state, rule), rs in groups.items()]

    @property
    def unsettled(self) -> list[ManifestRow]:
        """The expected violations this run says nothing about: searches cut short or not run."""
        return [m for m in self.manifest if not m.settled]

    @property
    def all_replay(self) -> bool:
        return all(f.replays and all(x is None or x[2] for x in f.by_reading.values()) for f in self.findings)

    @property
    def all_fixed(self) -> bool:
        return all(f.fix_holds for f in self.findings)

    @property
    def as_expected(self) -> bool:
        """Every expected violation found, nothing unexpected, every trace replays, every fix holds."""
        return (all(m.state == FOUND for m in self.manifest) and all(f.expected for f in self.findings)
                and self.all_replay and self.all_fixed and all(r.as_expected for r in self.rules))

    @property
    def exit_status(self) -> int:
        """0 as expected; 1 something the run settled is not (an unexpected violation, a trace that does not
        replay, a fix that is violated, an expected violation absent from a scope searched whole); 3 nothing
        settled is wrong, but a bound left an expected violation or a fix unsettled."""
        wrong = (any(m.state == NOT_FOUND for m in self.manifest) or not all(f.expected for f in self.findings)
                 or not self.all_replay or any(f.fix_result is not None and f.fix_result.violated for f in self.findings)
                 or any(r.needed is not None and not r.as_expected for r in self.rules))
        if wrong:
            return 1
        return 0 if self.as_expected else 3

    def held(self) -> list[tuple[ScopeRun, list[str], list[str], list[str]]]:
        """Per scope: the always/eventually properties with no violation, and the mechanisms
        (``sometimes`` witnesses) the search reached and did not reach: a property holding in a
        scope says nothing about a mechanism the scope never reached."""
        out = []
        for r in self.runs:
            vs = [v for v in r.result.verdicts if v.status != NOT_APPLICABLE]
            held = [v.property for v in vs if v.kind != "sometimes" and v.status != VIOLATED]
            hit = [v.property for v in vs if v.kind == "sometimes" and v.status == HIT]
            missed = [v.property for v in vs if v.kind == "sometimes" and v.status != HIT]
            out.append((r, held, hit, missed))
        return out


def run_findings(design: Design, scopes: tuple[FindingScope, ...], traces: Path, *, workers: int = 2,
                 max_seconds: float | None = None, progress=None, readings: Readings | None = None,
                 engine: str = "memo", rules: tuple[RuleCheck, ...] = ()) -> FindingsRun:
    """Search ``design`` in every scope, save and replay each counterexample under ``traces``,
    and check each violated property's fix in the same scope (fix searches shared when one fix
    serves several properties).  ``max_seconds`` bounds the whole run: each search gets an equal
    share of what the earlier ones left, a search whose share is under half a second is not run,
    and every expected violation is listed in ``FindingsRun.manifest`` with what the run says of it.  Symmetry reduction is on where the design and the fix both
    allow it, as in ``ckptcheck check``; the report then counts symmetry classes and says so.

    With ``readings``, every scope is searched under each reading (the design's own first), each
    counterexample saved and replayed; a fix is checked once, under the first reading its
    violation was found in, unless the fix is a reading of its own (it sets the knob).
    ``engine``: ``explore`` (with ``workers``) or ``memo`` (one process).  ``rules``: each searched
    after the scopes, the design without that rule in its scope, stopping at the first violation
    (whose shortest counterexample is saved and replayed)."""
    t0 = time.perf_counter()
    runs: list[ScopeRun] = []
    findings: list[Finding] = []
    values: tuple = (None,)
    if readings is not None:
        own = design.knobs()[readings.knob]
        values = (own,) + tuple(v for v in readings.values if v != own)

    manifest: list[ManifestRow] = []
    deadline = time.monotonic() + max_seconds if max_seconds else None

    searches = len(scopes) * len(values)

    def left(share: int = 1) -> float | None:
        """The seconds the next search may take: an equal share of what is left among the ``share``
        searches still to run (None: no bound), so that a bound reaches every scope."""
        return None if deadline is None else round((deadline - time.monotonic()) / max(share, 1), 1)

    def stop() -> FindingsRun:
        return FindingsRun(design, runs, findings, time.perf_counter() - t0, workers, interrupted=True, readings=readings,
                           manifest=manifest, max_seconds=max_seconds, engine=engine)

    for fs in scopes:
        fix_runs: dict[str, CheckResult] = {}
        mine: dict[str, Finding] = {}
        unsettled_at: dict = {}  # reading -> NOT_FOUND_IN_PART or NOT_SEARCHED, where the scope was not searched whole
        for value in values:
            expected_here = {f.violates for f in fs.fixes if value is None or not f.readings or value in f.readings}
            budget = left(searches)
            searches -= 1
            if budget is not None and budget < 0.5:
                manifest += [ManifestRow(fs.name, f.violates, value, NOT_SEARCHED, f.rule) for f in fs.fixes
                             if f.violates in expected_here]
                unsettled_at[value] = NOT_SEARCHED
                for f in mine.values():
                    f.by_reading.setdefault(value, None)
                    f.unsettled[value] = NOT_SEARCHED
                continue
            read = design if value is None else readings.apply(design, value)
            configured = fs.configure(read)
            if progress:
                progress(f"searching {configured.name} in scope {fs.name}")
            t1 = time.perf_counter()
            sym = symmetric(configured, fs.scope) and all(symmetric(f.fixed, fs.scope) for f in fs.fixes)
            result = check(configured, fs.scope, engine, workers=engine_workers(engine, workers), max_seconds=budget,
                           symmetry=sym)
            if result.interrupted:  # Ctrl-C ends the whole run, not only this search
                return stop()
            own = value is None or value == values[0]
            save_traces(result, traces, prefix=f"{design.name}--{fs.name}" + ("" if own else f"--{value}"))
            run = ScopeRun(fs, result, time.perf_counter() - t1, reading=value)
            runs.append(run)
            fixes = {f.violates: f for f in fs.fixes}
            for v in result.violated:
                replays = replay(load_trace_file(v.trace_file), v.trace_file).reproduced
                if v.property in mine:
                    f = mine[v.property]
                    f.by_reading[value] = (len(v.trace), v.trace_file, replays)
                    f.expected = f.expected and v.property in expected_here
                    continue
                fix = fixes.get(v.property)
                fix_result = None
                if fix is not None:
                    fixed = fix.fixed
                    if value is not None and fixed.knobs()[readings.knob] == design.knobs()[readings.knob]:
                        fixed = readings.apply(fixed, value)  # a fix that sets the reading itself keeps its value
                    fix_budget = left(searches + 1)
                    if fixed.name not in fix_runs and (fix_budget is None or fix_budget >= 0.5):
                        if progress:
                            progress(f"checking the fix {fixed.name} in scope {fs.name}")
                        fix_runs[fixed.name] = check(fixed, fs.scope, engine, workers=engine_workers(engine, workers),
                                                     max_seconds=fix_budget, symmetry=sym)
                        if fix_runs[fixed.name].interrupted:
                            return stop()
                    fix_result = fix_runs.get(fixed.name)  # None: the bound was spent before the fix's search
                f = Finding(fs, v.property, v.statement, v.reason or "", v.trace, v.trace_file, replays, fix, fix_result,
                            v.property in expected_here, reading=value,
                            by_reading={x: None for x in values[:values.index(value)]},
                            unsettled={x: s for x, s in unsettled_at.items()})
                f.by_reading[value] = (len(v.trace), v.trace_file, replays)
                mine[v.property] = f
                findings.append(f)
            found = {v.property for v in result.violated}
            whole = result.searched_whole_scope
            if not whole:
                unsettled_at[value] = NOT_FOUND_IN_PART
            for f in mine.values():
                f.by_reading.setdefault(value, None)
                if f.by_reading[value] is None and not whole:
                    f.unsettled[value] = NOT_FOUND_IN_PART
            run.missing = [f for f in fs.fixes if f.violates in expected_here and f.violates not in found]
            manifest += [ManifestRow(fs.name, f.violates, value,
                                     FOUND if f.violates in found else NOT_FOUND if whole else NOT_FOUND_IN_PART, f.rule)
                         for f in fs.fixes if f.violates in expected_here]
    rule_runs = []
    for i, rc in enumerate(rules):
        if progress:
            progress(f"checking the rule by its absence: {rc.without.name} in scope {rc.scope_name}")
        result = check(rc.without, rc.scope, engine, workers=engine_workers(engine, workers), stop_at="any",
                       max_seconds=left(len(rules) - i))
        if result.interrupted:
            return stop()
        save_traces(result, traces, prefix=f"{design.name}--rule--{rc.without.name}")
        rr = RuleRun(rc, result)
        if result.violated:
            v = result.violated[0]
            rr.trace_file, rr.steps = v.trace_file, len(v.trace)
            rr.replays = replay(load_trace_file(v.trace_file), v.trace_file).reproduced
        rule_runs.append(rr)
    return FindingsRun(design, runs, findings, time.perf_counter() - t0, workers, readings=readings, manifest=manifest,
                       max_seconds=max_seconds, engine=engine, rules=rule_runs)


def searched_words(r: CheckResult) -> str:
    """How far a search's "holds" reaches (``CheckResult.searched`` for the report), with the
    symmetry reduction named: its states are classes."""
    classes = " (symmetry classes)" if r.symmetry else ""
    if r.searched_whole_scope:
        return f"exhaustive search of the scope, {r.stats.get('states', 0):,} states{classes}"
    return f"no violation in {r.stats.get('states', 0):,} states{classes} (incomplete: nothing is proved beyond them)"
