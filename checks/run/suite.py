"""A design's default scopes, checked as one: a verdict per scope, witnesses across them.

Some designs have mechanisms that no one scope this machine can search exhaustively reaches
together (for unaligned checkpoints a rescale under backpressure and FLIP-147's partial
finishing; for ``flip147`` the union-state abort and a failure; for ``flip600-pr`` its
unbounded regional paths and its end-of-input rules).  Such a design has
several default scopes (``specs.scopes.default_scopes_for``), as a TLA+ spec has several model
configurations: each is searched on its own, each verdict is the verdict of that scope, and a
``sometimes`` witness counts as hit if one scope hits it.

What this can hide, and every output says so: two mechanisms that no single default scope
reaches together are not checked in combination.  ``SuiteResult.only_in`` names, for each
scope, the witnesses only it hits, so a reader sees which combinations were searched.
"""

from __future__ import annotations

from dataclasses import dataclass

from .results import HIT, NOT_REACHED, CheckResult


@dataclass(frozen=True)
class SuiteResult:
    """The results of a design's default scopes, in the order they were searched."""

    results: tuple[CheckResult, ...]

    @property
    def holds(self) -> bool:
        """Every property holds in every scope, each searched exhaustively."""
        return all(r.holds for r in self.results)

    @property
    def exit_status(self) -> int:
        """1 if a property is violated in some scope, else 3 if some scope was not searched
        exhaustively, else 0 (as for one scope)."""
        statuses = [r.exit_status for r in self.results]
        return 1 if 1 in statuses else max(statuses)

    def hit_in(self, name: str) -> int | None:
        """The index of the first scope whose search hit witness ``name`` (None: none did)."""
        for i, r in enumerate(self.results):
            if r.verdict(name).status == HIT:
                return i
        return None

    @property
    def unreached(self) -> list[str]:
        """Witnesses applicable in some scope and hit in none."""
        out = []
        for v in self.results[0].verdicts:
            statuses = {r.verdict(v.property).status for r in self.results}
            if NOT_REACHED in statuses and HIT not in statuses:
                out.append(v.property)
        return out

    @property
    def covered_elsewhere(self) -> dict[int, list[tuple[str, int]]]:
        """Per scope, the witnesses it does not reach that another default scope hits."""
        out: dict[int, list[tuple[str, int]]] = {}
        for i, r in enumerate(self.results):
            for v in r.verdicts:
                if v.status == NOT_REACHED:
                    j = self.hit_in(v.property)
                    if j is not None:
                        out.setdefault(i, []).append((v.property, j))
        return out

    @property
    def only_in(self) -> dict[int, list[str]]:
        """Per scope, the witnesses it hits and no other default scope does: the mechanisms
        only that scope searches."""
        out: dict[int, list[str]] = {}
        for i, r in enumerate(self.results):
            for v in r.verdicts:
                if v.status == HIT and sum(o.verdict(v.property).status == HIT for o in self.results) == 1:
                    out.setdefault(i, []).append(v.property)
        return out

    def headline(self) -> str:
        n = len(self.results)
        violated = [i for i, r in enumerate(self.results) if r.violated]
        if violated:
            k = sum(len(self.results[i].violated) for i in violated)
            return f"{k} property(ies) violated, in default scope(s) {', '.join(str(i + 1) for i in violated)} of {n}"
        if self.holds:
            states = " + ".join(f"{r.stats.get('states', 0):,}" for r in self.results)
            return (f"every property holds in each of the {n} default scopes: exhaustive searches of {states} states;"
                    f" {'every witness is hit in at least one' if not self.unreached else 'some witnesses are hit in none'}")
        return "no violation in " + "; ".join(f"scope {i + 1}: {r.searched()}" for i, r in enumerate(self.results)) + (
            ": nothing is proved beyond what was searched")

