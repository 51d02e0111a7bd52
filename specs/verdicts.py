"""What a check can say of a property, and of a whole scope: the words every engine, result and
report shares (``checks.run.results`` holds the verdicts themselves; ``reports`` draws them)."""

from __future__ import annotations

HOLDS = "holds"  # always/eventually: no violation in the searched space
VIOLATED = "violated"
HIT = "hit"  # sometimes: a witness was found
NOT_REACHED = "not reached"  # sometimes: no witness; the check may be vacuous
UNKNOWN = "unknown"  # always/eventually: a bounded search stopped early without finding a violation
SAMPLED = "sampled"  # always/eventually: random runs found no violation (nothing is proved)
NOT_APPLICABLE = "not applicable"  # the property means nothing in this scope (e.g. termination of an unbounded job)

# What a whole check says: three different statements, never confused (and a violation).
OUTCOME_HOLDS = "holds"  # exhaustive search of the scope, no violation
OUTCOME_VIOLATED = "violated"
OUTCOME_INCOMPLETE = "incomplete"  # a bound cut the search short: "no violation in N states to depth D"
OUTCOME_SAMPLED = "sampled"  # random runs: "no violation in N runs"
# the engines that search a scope exhaustively (one machine, or Spark); any other samples it
EXHAUSTIVE_ENGINES = ("explore", "memo", "spark")
