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

from .options import add_scope_options, add_search_options, design_from_arg, scope_named, scopes_from_args, search_options
from .printing import Progress, before_search, print_header, print_result, say

UNREACHED_WITNESS = 4  # exit status: every default scope searched whole, nothing violated, a witness hit in none


def _run_check(args, design, scope, opts, out):
    """Search one scope; write its result and traces."""
    print_header(design, scope)
    before_search(design, scope, opts["symmetry"])
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
    runs = []
    # --max-seconds bounds the whole command: each default scope gets what the earlier ones left
    deadline = time.monotonic() + args.max_seconds if args.max_seconds else None
    unsearched = 0
    for k, scope in enumerate(scopes):
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0.5 and k > 0:
                unsearched = len(scopes) - k
                say(f"\nnot searched: default scope{'s' if unsearched > 1 else ''} {k + 1}"
                    f"{f'-{len(scopes)}' if unsearched > 1 else ''} of {len(scopes)}: the --max-seconds"
                    f" {args.max_seconds:g} bound was spent; nothing is said about {'them' if unsearched > 1 else 'it'}")
                break
            opts[k] = {**opts[k], "max_seconds": max(round(left, 1), 0.5)}
        if len(scopes) > 1:
            say(f"{'' if not k else chr(10)}== default scope {k + 1} of {len(scopes)} ==")
        result, path = _run_check(args, design, scope, opts[k], out)
        runs.append(result)
        if len(scopes) == 1:
            print_result(result, header=False, verbose=args.verbose)
        else:
            print_result(result, header=False, unreached=False, verbose=args.verbose)
        say(f"result written to {path}")
        if result.interrupted:
            break
    together = None
    if len(scopes) > 1 and not runs[-1].interrupted and not unsearched:
        suite = SuiteResult(tuple(runs))
        print_suite(suite)
        together = suite_lines(suite) + ["RESULT: " + suite.headline()]
    if report_dir is not None:
        from ckptcheck.checks.run.report import build_report, write_reports

        command = "ckptcheck " + " ".join(sys.argv[1:]) if sys.argv[1:] else f"ckptcheck check --design {design.name}"
        paths = write_reports(build_report(runs, title=f"ckptcheck: {design.name}", command=command, suite=together),
                              report_dir)
        say(f"report written to {', '.join(str(p) for p in paths)}")
    if runs[-1].interrupted:
        say("interrupted: the figures above are those of the part searched")
        return 130
    if unsearched:
        violated = any(r.violated for r in runs)
        say(f"RESULT: {'a property is violated' if violated else 'no violation in the scopes searched'}; {unsearched}"
            f" default scope(s) not searched (--max-seconds): nothing is proved about the design's default scopes")
        return 1 if violated else 3
    status = SuiteResult(tuple(runs)).exit_status if len(runs) > 1 else runs[0].exit_status
    if status == 0 and not scope_named(args):
        unreached = SuiteResult(tuple(runs)).unreached
        if unreached:
            say(f"FAILED: no default scope of {design.name} reaches the witness(es) {', '.join(unreached)}: the check"
                f" says nothing about {'that mechanism' if len(unreached) == 1 else 'those mechanisms'} (exit 4)")
            return UNREACHED_WITNESS
    return status


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
    say("RESULT: " + suite.headline())


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
