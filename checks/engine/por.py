"""Partial-order reduction: stubborn sets over the model's footprints.  An experiment:
``benchmarks/por_bound.py`` measures it against the full search (docs/pages/engines.md,
"Partial-order reduction"); ``check`` does not use it, since it saves almost nothing in the
default scopes and costs about twice the time per world.

In a world where several actions are enabled, a search may follow a subset of them (the
*ample* set) when three conditions hold, as in SPIN and LTSmin:

- persistence: no action outside the set, now or after any sequence of actions outside it, can
  touch what an action in the set touches (``ample``'s closure over ``model.footprint``: an
  enabled member adds every action its footprint meets; a disabled one, every action that
  writes what decides whether it is enabled);
- visibility: when the set is not everything, none of its actions writes what an ``always``
  property reads (``_reads``; a property not listed there reads everything);
- the cycle proviso, which the search applies: when one of the set's successors was already
  found at this depth or less, the world is expanded in full (Bošnački and Holzmann's
  condition for breadth-first search; ``benchmarks/por_bound.search``).

Every invariant violation and every quiescent world (where ``eventually`` properties are judged)
reachable in the full search is reachable in the reduced one; counterexamples may be longer.
Witnesses are predicates on transitions, which the theory does not cover: the reduction is
compared with the full search on them (``tests/checks/engine/test_por.py``, ``benchmarks/por_bound.py``).

Each successor the reduced search computes is checked against its action's footprint (a
write outside it raises ``FootprintError``): the table is a claim about the model's code, and
a design that changes a component may make it false.
"""

from __future__ import annotations

from typing import Callable

from ckptcheck.model.footprint import Footprints


class FootprintError(RuntimeError):
    """An action wrote outside the footprint the reduction assumed for it."""


def _reads(fp: Footprints, model) -> dict[str, int]:
    """What each always-property reads.  The three about transactions read committed ones, and
    a finished sink's open ones: a record written into a running sink's open transaction (the
    transaction bit without ``COMMIT``) changes none of them."""
    sinks = sum(fp.status[t] for t in range(fp.n) if model.two_pc[t])
    return {
        "exactly-once-output": fp.COMMIT,
        "checkpoints-restorable": fp.STORE | fp.REUSED,  # files: see model.footprint
        "checkpoints-consistent": fp.STORE,
        "key-groups-owned-once": fp.STORE,
        "restores-succeed": fp.STORE,
        "committed-output-covered": fp.COMMIT | fp.STORE,
        "finished-sinks-committed": fp.COMMIT | sinks,
    }


class Reducer:
    """Chooses the actions to follow in a world (``ample``), for one spec."""

    def __init__(self, spec) -> None:
        model = spec.model
        self._fps = {m.config: Footprints(m) for m in model.configs}
        self._visible = {}
        names = [p.name for p, _ in spec.always]
        for config, fp in self._fps.items():
            reads = _reads(fp, fp.model)
            vis = 0
            for name in names:
                vis |= reads.get(name, fp.EVERY)
            self._visible[config] = vis
        self._static: dict = {}

    def _masks(self, fp: Footprints, a, quiet: bool) -> tuple[int, int]:
        key = (fp.model.config, fp.key(a), quiet)
        got = self._static.get(key)
        if got is None:
            touch = fp.touch(a, quiet=quiet)
            got = self._static[key] = (touch, touch | fp.guard(a, quiet))
        return got

    def ample(self, s, acts: list, is_progress: Callable) -> list[int] | None:
        """Indexes into ``acts`` (the actions enabled in ``s``) of an ample set smaller than
        ``acts``, or None to follow every action."""
        if len(acts) < 2:
            return None
        fp = self._fps[s.used.rescales & 1]
        if fp.everything:
            return None
        vis = self._visible[fp.model.config]
        key = fp.key
        enabled_keys: dict = {}
        for i, a in enumerate(acts):
            enabled_keys.setdefault(key(a), []).append(i)
        quiet = fp.quiet(s)
        universe = {}
        universe_rep = {}
        for a in fp.universe(s, acts):
            k = key(a)
            if k not in universe:
                universe[k] = self._masks(fp, a, quiet)
                universe_rep[k] = a
        best = None
        tried = set()
        for i, a in enumerate(acts):
            k = key(a)
            if k in tried or not is_progress(a):
                continue
            tried.add(k)
            own = 0
            for j in enabled_keys[k]:
                own |= fp.touch(acts[j], s, quiet)
            if own & vis:
                continue
            members = {k}
            frontier = own
            pending = [] if fp.single(a) else [k]  # keys whose disabled actions need an enabling set

            def admit(k2) -> None:
                """Add key ``k2`` to the set: an enabled one brings its footprint, and (unless
                it is its key's only action) its later actions need an enabling set too."""
                nonlocal frontier
                members.add(k2)
                if k2 in enabled_keys:
                    for j in enabled_keys[k2]:
                        frontier |= fp.touch(acts[j], s, quiet)
                    if fp.single(acts[enabled_keys[k2][0]]):
                        return
                pending.append(k2)

            grown = True
            while grown:
                grown = False
                for k3 in pending:  # keys appended meanwhile are taken in the same pass
                    nes = fp.nes(universe_rep[k3], s, members) if k3 in universe_rep else None
                    if nes is None:
                        frontier |= universe[k3][1]
                        continue
                    for k4 in nes:
                        if k4 in universe and k4 not in members:
                            admit(k4)
                            grown = True
                pending.clear()
                for k2, (touch, _) in universe.items():
                    if k2 not in members and touch & frontier:
                        admit(k2)
                        grown = True
            chosen = [j for k2 in members if k2 in enabled_keys for j in enabled_keys[k2]]
            if len(chosen) == len(acts):
                continue
            if any(fp.touch(acts[j], s, quiet) & vis for j in chosen):
                continue
            if best is None or len(chosen) < len(best):
                best = sorted(chosen)
                if len(best) == 1:
                    break
        return best

    def check_writes(self, s, a, t) -> None:
        """Raise ``FootprintError`` if ``a`` took ``s`` to ``t`` writing outside its footprint."""
        fp = self._fps[s.used.rescales & 1]
        if t.used.rescales != s.used.rescales:
            return
        extra = fp.written(s, t) & ~fp.touch(a, s, fp.quiet(s))
        if extra:
            raise FootprintError(f"{a.describe(fp.model.topo)} wrote outside its footprint (locations {bin(extra)}): "
                                 f"model.footprint's table does not hold for this design; search it with --no-por")
