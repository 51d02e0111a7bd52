"""What the command line prints: its one-line messages and warnings, the progress line of a search,
and a result's header, verdicts and counterexample steps."""

from __future__ import annotations

import sys

from ckptcheck.specs.figures import MEMO_TIME_RATIO
from ckptcheck.specs.scopes import known_figures
from ckptcheck.specs.spec import Spec
from ckptcheck.specs.verdicts import EXHAUSTIVE_ENGINES, HIT, HOLDS, NOT_APPLICABLE, NOT_REACHED, SAMPLED, UNKNOWN, VIOLATED

from ckptcheck.checks.run.results import CheckResult


LARGE = {"records_per_split": 3, "max_checkpoints": 6, "max_failures": 3, "max_declines": 4, "max_timeouts": 3,
         "max_lost_notifications": 3}


def say(msg: str = "") -> None:
    print(msg, flush=True)


def warn(msg: str) -> None:
    print(f"ckptcheck: warning: {msg}", file=sys.stderr, flush=True)


BOUND_IT = "bound it with --max-seconds S or --max-states N, or stop at the first violation with --stop-at-first"


def before_search(design, scope, symmetry: bool = False, *, engine: str = "explore", bounded: bool = False,
                  expect: bool = True) -> None:
    """Say so before a search that will be large: its known figures (``expect``), the limits past which
    an exhaustive search is not expected to end, or that its cost was never measured (an exhaustive
    engine, no bound given)."""
    big = [f"{k} = {getattr(scope, k)}" for k, v in LARGE.items() if getattr(scope, k) > v]
    if big:
        warn(f"{', '.join(big)}: the state space grows exponentially with these limits, and an exhaustive"
             " search this large is not expected to end; bound it with --max-seconds or --max-states")
    if not expect or engine not in EXHAUSTIVE_ENGINES:
        return
    figures = known_figures(design, scope, symmetry)
    if figures:
        say(f"expect   {figures}{memo_note(engine)} (on 2 cores; --max-seconds or --max-states bound it)")
    else:
        say(f"expect   {design.name} in this scope: not measured, so its cost is not known (a scope can take seconds or"
            f" hours){'' if bounded else '; ' + BOUND_IT}")


def seconds_words(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} minutes"


def memo_note(engine: str) -> str:
    """After a measured cost (the reference engine's), what the memo engine took beside it."""
    if engine != "memo":
        return ""
    lo, hi = MEMO_TIME_RATIO
    return f" on the reference engine; the memo engine took {lo:g} to {hi:g} of its time where both were measured"


def expected_total(items: list[tuple[str, float | None]], what: str, bounded: bool = False, engine: str = "explore") -> str:
    """The ``expect`` line before several searches (a check's default scopes, a comparison's designs):
    their measured costs added up, and those not measured named."""
    known = [(name, s) for name, s in items if s is not None]
    unknown = [name for name, s in items if s is None]
    total = sum(s for _, s in known)
    parts = " + ".join(seconds_words(s) for _, s in known)
    if not unknown:
        return (f"expect   {what} together: about {seconds_words(total)} with 2 workers on 2 cores ({parts}){memo_note(engine)};"
                " --max-seconds bounds them all")
    line = f"expect   {what}: {', '.join(unknown)} not measured, so the total is not known"
    if known:
        line += f" (the others: about {seconds_words(total)} with 2 workers on 2 cores{memo_note(engine)})"
    return line + ("" if bounded else f"; {BOUND_IT}")


def rss_mb() -> int:
    """Peak resident memory of this process, in MB."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


class Progress:
    """A progress line as TLC prints it: states, rate, queue, depth, memory.  Every 2 s for the
    first 20 s, then every 15 s, so that a long run's log stays short."""

    def __init__(self, design: str = "") -> None:
        self.last = (0.0, 0)
        self.design = design  # named on a violation's line where several designs are searched in turn

    def named(self, design: str) -> "Progress":
        """The same progress line for the search of ``design`` (``compare`` searches several)."""
        return Progress(design)

    def __call__(self, outcome, queue: int) -> None:
        t0, n0 = self.last
        if outcome.elapsed > 20 and outcome.elapsed - t0 < 15:
            return
        rate = (outcome.states - n0) / (outcome.elapsed - t0) if outcome.elapsed > t0 else 0
        self.last = (outcome.elapsed, outcome.states)
        print(
            f"  ... {outcome.states:,} states ({rate:,.0f}/s), {outcome.transitions:,} transitions, queue {queue:,},"
            f" depth {outcome.depth}, {rss_mb() + getattr(outcome, 'workers_peak_mb', 0):,} MB, {outcome.elapsed:.0f}s",
            file=sys.stderr,
            flush=True,
        )

    def violation(self, name: str, kind: str, steps: int) -> None:
        """A violation named the moment the search finds it (its counterexample comes with the
        result, once the search ends)."""
        where = f" in {self.design}" if self.design else ""
        print(f"  ... VIOLATED {name} ({kind}){where}, {steps} steps from the start: the shortest counterexample"
              " follows with the result", file=sys.stderr, flush=True)


MARK = {
    HOLDS: "holds",
    VIOLATED: "VIOLATED",
    HIT: "hit",
    NOT_REACHED: "NOT REACHED",
    NOT_APPLICABLE: "not applicable",
}


def mark(result: CheckResult, v) -> str:
    words = result.verdict_words(v)
    return MARK[v.status] if words == v.status else words


def engine_line(result: CheckResult) -> str:
    s = result.stats
    if result.engine in EXHAUSTIVE_ENGINES:
        how = "exhaustive" if result.complete else f"INCOMPLETE: {s.get('stopped')}"
        sym = ", symmetry reduction on" if result.symmetry else ""
        store = "exact store" if s.get("store") == "exact" else "fingerprints"
        workers = f", {s.get('workers')} workers" if (s.get("workers") or 1) > 1 else ""
        if s.get("engine_detail"):
            workers = f", {s['engine_detail']}"
        line = (
            f"{result.engine} (BFS, {how}{sym}, {store}{workers}): {s['states']:,} distinct states, {s['transitions']:,}"
            f" transitions, depth {s['depth']}, {s['seconds']:.1f}s ({s['states_per_second'] or 0:,} states/s)"
        )
        if s.get("collision_probability") is not None:
            hint = "; --exact keeps states instead" if result.engine == "explore" else ""
            line += f"\n         fingerprint collision probability {s['collision_probability']:.1e} (TLC's estimate{hint})"
        return line
    return (
        f"stateful (Hypothesis, sampled, profile {s['profile']}, seed {s['seed']}): {s['runs']:,} runs,"
        f" {s['steps']:,} steps, max depth {s['max_depth']}, {s['distinct_states_seen']:,} distinct states"
        f" seen, {s['seconds']:.1f}s"
    )


def print_header(design, scope) -> None:
    """What is about to be searched, before the search (as TLC prints its configuration)."""
    say(f"design   {design.name}: {design.description}")
    replaced = design.replaced()
    if replaced:
        say(f"replaces {', '.join(f'{k} = {v}' for k, v in replaced.items())}")
    say(f"scope    {scope.describe()}")


def wrapped(head: str, items: list[str], width: int = 110, indent: int | None = None) -> list[str]:
    """``head`` and a comma-separated list, wrapped under the list's first column (or at ``indent``)."""
    lines, cur = [], head
    for k, item in enumerate(items):
        piece = item + ("," if k < len(items) - 1 else "")
        if len(cur) + 1 + len(piece) > width and cur.strip() != head.strip():
            lines.append(cur)
            cur = " " * (len(head) + 1 if indent is None else indent) + piece
        else:
            cur = f"{cur} {piece}" if cur else piece
    lines.append(cur)
    return lines


def grouped(result: CheckResult) -> list[str]:
    """The short account: properties that hold and witnesses hit, a line group per kind; the
    properties that do not apply, one line."""
    out: list[str] = []
    plain = [v for v in result.verdicts if result.verdict_words(v) == v.status]
    for kind, status, word in (("always", HOLDS, "hold:"), ("eventually", HOLDS, "holds:"), ("sometimes", HIT, "hit:")):
        names = [v.property + (f" ({len(v.trace)} steps)" if status == HIT else "")
                 for v in plain if v.kind == kind and v.status == status]
        if names:
            out += wrapped(f"  {kind:<10} {word:<6}", names)
    for kind in ("always", "eventually", "sometimes"):  # what a search cut short or sampled says, a line group each
        unsettled = [v for v in result.verdicts if v.kind == kind and v in short_of_plain(result)]
        for words in dict.fromkeys(result.verdict_words(v) for v in unsettled):
            out += wrapped(f"  {kind:<10} {words}:", [v.property for v in unsettled if result.verdict_words(v) == words],
                           indent=20)
    na = sum(1 for v in plain if v.status == NOT_APPLICABLE)
    if na:
        out.append(f"  {na} properties do not apply to this design and scope (--verbose lists every property, and each"
                   " witness's reason)")
    return out


def short_of_plain(result: CheckResult) -> list:
    """The verdicts a search cut short or sampled leaves open (no violation in the part searched, a
    witness not reached in it): said together, a line group per kind, not a line each."""
    return [v for v in result.verdicts if v.status in (UNKNOWN, SAMPLED, NOT_REACHED) and result.verdict_words(v) != v.status]


def print_result(result: CheckResult, header: bool = True, unreached: bool = True, verbose: bool = False,
                 result_line: bool = True) -> None:
    """A scope's verdicts; ``unreached`` False leaves the warning about witnesses it does not
    hit to ``print_suite`` (another default scope may hit them).  By default the properties
    that hold and the witnesses hit are grouped by kind and those that do not apply are one
    line; ``verbose`` lists every property on its own line, as the reports do.  A violation and
    a witness the whole scope never reached get a line each; what a search cut short leaves open
    is said a line group per kind (``short_of_plain``)."""
    if header:
        print_header(result.design, result.scope)
    say(f"engine   {engine_line(result)}")
    open_ = short_of_plain(result)
    shown = result.verdicts if verbose else [v for v in result.verdicts if (v.status not in (HOLDS, HIT, NOT_APPLICABLE)
                                             or result.verdict_words(v) != v.status) and v not in open_]
    if not verbose:
        for line in grouped(result):
            say(line)
    for v in shown:
        line = f"  {v.kind:<10} {v.property:<28} {mark(result, v)}"
        if v.status == VIOLATED:
            line += f" after {len(v.trace)} steps: {v.reason}"
        elif v.status == HIT:
            line += f" ({v.reason}, {len(v.trace)} steps)"
        say(line)
        if v.trace_file:
            say(f"             trace: {v.trace_file}  (ckptcheck replay {v.trace_file})")
    if result.unreached and unreached:
        names = ", ".join(v.property for v in result.unreached)
        if result.searched_whole_scope:
            say(f"WARNING: no witness for {names}: this scope never exercises that behaviour, so the check says nothing about it.")
        elif verbose:
            say(f"note: no witness for {names} in the part searched (the search did not cover the scope).")
    if result_line:
        say("RESULT: " + result.headline())


def steps_text(spec: Spec, actions: list) -> list[str]:
    from ckptcheck.checks.run.narrate import narrate

    steps, _ = narrate(spec, actions)
    return [f"{s.n:>5}. {s.action}: {s.text}" for s in steps]
