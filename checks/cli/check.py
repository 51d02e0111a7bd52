"""``ckptcheck check``: search a design in its default scopes (or the scope the options name),
print each scope's verdicts and what the default scopes say together, write the results, the
counterexample traces and, with ``--report``, the reports."""

from __future__ import annotations

import sys
import time

from ckptcheck.checks.run.api import check, run_id, save_traces
from ckptcheck.checks.run.outputs import out_dir
from ckptcheck.checks.run.suite import SuiteResult
from ckptcheck.checks.run.trace import write_json_atomic
from ckptcheck.specs.designs import PRESETS
from ckptcheck.specs.scopes import expected_seconds
from ckptcheck.specs.verdicts import EXHAUSTIVE_ENGINES

from .options import add_scope_options, add_search_options, design_from_arg, scope_named, scopes_from_args, search_options
from .printing import Progress, before_search, expected_total, print_header, print_result, say

UNREACHED_WITNESS = 4  # exit status: every default scope searched whole, nothing violated, a witness hit in none
MIN_SLICE = 5.0  # seconds: a later default scope known to take longer is not started on less (a sliver says nothing)


def _run_check(args, design, scope, opts, out):
    """Search one scope; write its result and traces."""
    print_header(design, scope)
    before_search(design, scope, opts["symmetry"], engine=args.engine, bounded=bounded(args))
    result = check(design, scope, args.engine, progress=Progress(), **opts)
    prefix = run_id(result)
    save_traces(result, out, prefix=prefix)
    path = out / f"{prefix}.result.json"
    write_json_atomic(path, result.to_json())
    return result, path


def cmd_check(args) -> int:
    out = out_dir(args.out, "--out")
    report_dir = out_dir(args.report, "--report") if args.report else None
    design = design_from_arg(args.design)
    scopes = scopes_from_args(args, design)
    # every scope's options are checked before the first search starts (--symmetry may be refused by any)
    opts = [search_options(args, [design], scope, quiet=k > 0) for k, scope in enumerate(scopes)]
    if len(scopes) > 1 and args.engine in EXHAUSTIVE_ENGINES:
        say(expected_total([(f"scope {k + 1}", expected_seconds(design, s, o["symmetry"]))
                            for k, (s, o) in enumerate(zip(scopes, opts))], f"the {len(scopes)} default scopes", bounded(args),
                           engine=args.engine))
    runs = []
    # --max-seconds bounds the whole command: each default scope gets what the earlier ones left
    deadline = time.monotonic() + args.max_seconds if args.max_seconds else None
    unsearched = 0
    for k, scope in enumerate(scopes):
        if deadline is not None:
            left = deadline - time.monotonic()
            need = expected_seconds(design, scope, opts[k]["symmetry"])
            if k > 0 and (left <= 0.5 or left < MIN_SLICE and need is not None and need > left):
                unsearched = len(scopes) - k
                say(f"\nnot searched: default scope{'s' if unsearched > 1 else ''} {k + 1}"
                    f"{f'-{len(scopes)}' if unsearched > 1 else ''} of {len(scopes)}: {max(left, 0):.0f} s of the"
                    f" --max-seconds {args.max_seconds:g} bound were left"
                    f"{f', and scope {k + 1} takes about {need:.0f} s' if need else ''}; nothing is said about"
                    f" {'them' if unsearched > 1 else 'it'}")
                break
            opts[k] = {**opts[k], "max_seconds": max(round(left, 1), 0.5)}
        if len(scopes) > 1:
            say(f"{'' if not k else chr(10)}== default scope {k + 1} of {len(scopes)} ==")
        result, path = _run_check(args, design, scope, opts[k], out)
        runs.append(result)
        # every scope's verdicts now; the one verdict of the whole check comes last
        print_result(result, header=False, unreached=len(scopes) == 1, verbose=args.verbose, result_line=len(scopes) > 1)
        say(f"result written to {path}")
        if result.interrupted:
            break
    suite = SuiteResult(tuple(runs))
    interrupted = runs[-1].interrupted
    together = None
    status = suite.exit_status if len(runs) > 1 else runs[0].exit_status
    if unsearched:
        verdict = partial_headline(runs, len(scopes), args.max_seconds)
        status = 1 if any(r.violated for r in runs) else 3
    elif status == 0 and not scope_named(args) and suite.unreached:
        verdict = gap_headline(design, suite, suite.unreached)
        status = UNREACHED_WITNESS
    else:
        verdict = suite.headline() if len(scopes) > 1 else runs[0].headline()
    if len(scopes) > 1 and not interrupted and not unsearched:
        print_suite(suite)
        together = suite_lines(suite) + ["RESULT: " + verdict]
    if report_dir is not None:
        from ckptcheck.checks.run.report import build_report, write_reports

        command = "ckptcheck " + " ".join(sys.argv[1:]) if sys.argv[1:] else f"ckptcheck check --design {design.name}"
        paths = write_reports(build_report(runs, title=f"ckptcheck: {design.name}", command=command, suite=together),
                              report_dir)
        say(f"report written to {', '.join(str(p) for p in paths)}")
    if interrupted:
        say("interrupted: the figures above are those of the part searched")
        return 130
    say("RESULT: " + verdict)
    return status


def partial_headline(runs: list, total: int, max_seconds: float) -> str:
    """The verdict of a check whose bound left default scopes unsearched: what each searched scope
    says, in its own words (a scope searched whole that holds is said to hold), then the scopes left."""
    parts = []
    whole = [i for i, r in enumerate(runs) if r.holds]
    if whole:
        states = " + ".join(f"{runs[i].stats.get('states', 0):,}" for i in whole)
        parts.append(f"every property holds in scope{'s' if len(whole) > 1 else ''} {', '.join(str(i + 1) for i in whole)}"
                     f" (exhaustive searches of {states} states)")
    for i, r in enumerate(runs):
        if r.violated:
            parts.append(f"scope {i + 1}: {len(r.violated)} property(ies) violated")
        elif not r.holds:
            parts.append(f"scope {i + 1}: no violation in {r.searched()}")
    left = list(range(len(runs) + 1, total + 1))
    parts.append(f"scope{'s' if len(left) > 1 else ''} {left[0]}{f'-{left[-1]}' if len(left) > 1 else ''} not searched"
                 f" (--max-seconds {max_seconds:g}): nothing is proved about {'them' if len(left) > 1 else 'it'}")
    return "; ".join(parts)


def gap_headline(design, suite: SuiteResult, unreached: list[str]) -> str:
    """The verdict of a check whose default scopes hold but reach a witness in none of them: the gap is
    in the default scopes (the tool's, for a preset), not a fault found in the design; and where a
    measured scope of the design is known to hit the witness, the command that searches it."""
    states = " + ".join(f"{r.stats.get('states', 0):,}" for r in suite.results)
    names = ", ".join(unreached)
    whose = "its own default scopes, which ckptcheck ships" if design.name in PRESETS else "the default scopes it is checked in"
    line = (f"every property holds in each of the {len(suite.results)} default scopes (exhaustive searches of {states}"
            f" states), but none of them reaches {names}: a gap in {whose}, not a fault found in {design.name}, and"
            f" the check says nothing about {'that mechanism' if len(unreached) == 1 else 'those mechanisms'}")
    hints = [h for h in (scope_hitting(design, w) for w in unreached) if h]
    if hints:
        line += "; a measured scope that reaches it: " + "; ".join(hints)
    else:
        line += "; no measured scope is known to reach it (docs/pages/engines.md lists what each default scope hits)"
    return line + " (exit 4)"


def scope_hitting(design, witness: str) -> str | None:
    """The command that checks ``design`` in a measured scope (``specs.figures``) that hits ``witness``."""
    from ckptcheck.specs.figures import FIGURES
    from ckptcheck.specs.spec import Spec

    from .options import scope_options

    for f in FIGURES:
        if f.design != design.name or f.unreached is None or witness in f.unreached or f.violates:
            continue
        sc = f.scope()
        if any(p.name == witness for p in Spec(design, sc).applicable):
            opts = scope_options(design, sc)
            if opts is not None:
                return f"`ckptcheck check --design {design.name} {' '.join(opts)}` ({f.cost})"
    return None


def bounded(args) -> bool:
    """Did the user bound the search (a time, a state count or a depth, or the first violation)?"""
    return bool(args.max_seconds or args.max_states or args.max_depth or args.stop_at_first)


def suite_lines(suite: SuiteResult) -> list[str]:
    """What the default scopes say together, a line each (the console and the reports): each
    scope's result, the witnesses only it hits, where each witness a scope misses was hit, what
    the combination hides, the witnesses no scope hits."""
    lines = [f"scope {i + 1} (job {r.scope.job_name}): {r.headline()}" for i, r in enumerate(suite.results)]
    lines += [f"only scope {i + 1} hits: {', '.join(names)}" for i, names in sorted(suite.only_in.items())]
    for i, missed in sorted(suite.covered_elsewhere.items()):
        lines.append(f"not reached in scope {i + 1}, hit in another: {', '.join(f'{n} (scope {j + 1})' for n, j in missed)}")
    lines.append("each scope searches in combination only the mechanisms it hits; two mechanisms hit in different"
                 " scopes only are not checked together")
    if suite.unreached:
        names = ", ".join(suite.unreached)
        if all(r.searched_whole_scope for r in suite.results):
            lines.append(f"WARNING: no witness for {names} in any default scope: they never exercise that behaviour,"
                         " so the check says nothing about it.")
        else:
            lines.append(f"note: no witness for {names} in the parts searched (not every scope was searched whole).")
    return lines


def print_suite(suite: SuiteResult) -> None:
    say("")
    say(f"== the {len(suite.results)} default scopes together ==")
    for line in suite_lines(suite):
        say(line if line.startswith(("WARNING", "note")) else f"  {line}")


def add_parser(sub) -> None:
    """``ckptcheck check``."""
    c = sub.add_parser(
        "check", help="check a design in a scope",
        description="Check a design in a scope.  Exit status: 0 every property holds (exhaustive search), 1 a "
        "property is violated, 2 bad input, 3 no violation found but the search was cut short or sampled, 4 the "
        "design's default scopes were searched whole without a violation but a witness is hit in none of them (the "
        "check says nothing about that mechanism), 130 interrupted (the partial result is written).",
        epilog="examples: ckptcheck check --design flip600-regional | ckptcheck check --design my.toml --job "
        "forward-2x2 --checkpoints 1 --failures 0 | ckptcheck check --design mymod:MY_VARIANT --report rep",
    )
    c.add_argument("--design", default="flink-baseline",
                   help="a preset, a catalog variant, a TOML design file or module:NAME (default flink-baseline)")
    add_search_options(c)
    c.add_argument("--out", default="results", help="where the result and counterexample traces go (default results)")
    c.add_argument("--report", default=None, metavar="DIR", help="also write report.html, report.md and junit.xml to DIR")
    add_scope_options(c)
    c.set_defaults(func=cmd_check)
