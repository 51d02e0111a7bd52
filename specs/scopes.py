"""Named scopes: the model configurations each design is checked in (recorded in every result)."""

from __future__ import annotations

from ckptcheck.model.scope import Scope

from .jobs import job_by_name


def scope(job: str = "keyed-2x2", **limits) -> Scope:
    return Scope(job=job_by_name(job), job_name=job, **limits)


def default_scope() -> Scope:
    """The baseline's default: 2 sources and 2 sinks across a keyed exchange, one record per
    split, one checkpoint before end of input plus the final one (two can complete), and one
    failure and one decline.  About 270k distinct states."""
    return scope("keyed-2x2", records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)



def regional_scope() -> Scope:
    """FLIP-600's default: two independent regions (forward-2x2), one record per split, two
    checkpoints before end of input plus the final one (three in a run), one decline and one
    failure: a regional checkpoint completes, is restored from, and a forced global one
    follows.  About 9 million distinct states, 10 minutes and 7.6 GB on two cores."""
    return scope("forward-2x2", records_per_split=1, max_checkpoints=2, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)


def default_scope_for(design) -> Scope:
    """The scope a design is checked in when the user names none."""
    return regional_scope() if design.regional_checkpoints else default_scope()


# Figures measured on this project's 2-core machine (README, "Scopes and figures"): design name
# and scope -> what a full exhaustive search of it costs.  Shown before such a search starts.
KNOWN_FIGURES: tuple[tuple[str, Scope, str], ...] = (
    ("flink-baseline", default_scope(), "273,577 states, about 15 s with 2 workers"),
    ("flip600-regional", regional_scope(), "9,017,680 states, about 9 minutes and 4 GB with 2 workers"),
    ("flip600-proposed", regional_scope(), "a violation after about 2.5 million states; 9,301,889 states in all, about 9 minutes with 2 workers"),
)


def known_figures(design, scope: Scope) -> str | None:
    """What an exhaustive search of ``scope`` is known to cost, for designs that run a scope
    measured before (the same design, or one whose default scope is the FLIP-600 one)."""
    for name, known, figures in KNOWN_FIGURES:
        if scope == known and design.name == name:
            return f"{name} in this scope: {figures}"
    if scope == regional_scope():
        return "the FLIP-600 default scope: flip600-regional has 9,017,680 states here (about 9 minutes and 4 GB with 2 workers)"
    return None
