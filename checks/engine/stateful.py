"""The Hypothesis engine: a ``RuleBasedStateMachine`` driven by the model.

One rule picks an enabled action: first whether to inject a fault (about one step in eight),
then which action of that class (Hypothesis shrinks towards no fault and towards the first
action, so shrunk counterexamples are short and keep only the faults they need); the ``always``
properties are invariants; at teardown the run is driven to quiescence by progress actions
alone (a fair, deterministic scheduler) and the ``eventually`` properties are checked there.

Settings are immutable named profiles (``ci``, ``dev``, ``deep``), deadline off.  The seed is
passed to Hypothesis (``hypothesis.seed``) and the example database is off, so the same seed
gives the same result.  After a property fails, the search runs again without it, so each
property gets its own (shrunk) counterexample.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass, field

import hypothesis
from hypothesis import configuration
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, get_state_machine_test, invariant, rule

from .explore import Discovery

PROFILES: dict[str, settings] = {
    "ci": settings(max_examples=200, stateful_step_count=80),
    "dev": settings(max_examples=1000, stateful_step_count=100),
    "deep": settings(max_examples=10000, stateful_step_count=150),
}
_COMMON = dict(
    deadline=None,
    database=None,
    derandomize=False,
    print_blob=False,
    report_multiple_bugs=False,
    suppress_health_check=list(HealthCheck),
    phases=(Phase.generate, Phase.shrink),
)
DRAIN_LIMIT = 10_000


class PropertyFailure(AssertionError):
    def __init__(self, prop, reason: str, path: list, kind: str):
        super().__init__(f"{prop.name}: {reason}")
        self.prop = prop
        self.reason = reason
        self.path = path
        self.kind = kind


@dataclass
class StatefulOutcome:
    discoveries: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)


def _machine(spec, active_always, active_eventually, witnesses: dict, stats: dict):
    sometimes = spec.sometimes

    class CheckpointMachine(RuleBasedStateMachine):
        def __init__(self):
            super().__init__()
            self.world = spec.initial_states()[0]
            self.path: list = []
            stats["runs"] += 1

        @rule(data=st.data())
        def act(self, data):
            acts = spec.actions(self.world)
            if not acts:
                return
            progress = [a for a in acts if spec.is_progress(a)]
            faults = [a for a in acts if not spec.is_progress(a)]
            # A fault on about one step in eight: uniform choice would spend the fault budget in
            # the first steps, before the protocol reaches anything interesting.  The draw
            # shrinks towards 0 (no fault), so shrunk counterexamples keep only needed faults.
            inject = bool(faults) and (not progress or data.draw(st.integers(0, 7), label="fault?") == 7)
            a = data.draw(st.sampled_from(faults if inject else progress), label="action")
            nxt = spec.next_state(self.world, a)
            for prop, check in sometimes:
                if prop.name not in witnesses:
                    what = check(self.world, a, nxt)
                    if what is not None:
                        witnesses[prop.name] = Discovery(prop, what, self.path + [a], "sometimes")
            self.world = nxt
            self.path.append(a)
            stats["steps"] += 1
            stats["fingerprints"].add(hash(nxt))
            stats["max_depth"] = max(stats["max_depth"], len(self.path))

        @invariant()
        def always_hold(self):
            for prop, check in active_always:
                why = check(self.world)
                if why is not None:
                    raise PropertyFailure(prop, why, list(self.path), "always")

        def teardown(self):
            if not active_eventually and not active_always:
                return
            w = self.world
            path = list(self.path)
            self.always_hold()  # the last step's world, before any drain step
            for _ in range(DRAIN_LIMIT):
                progress = [a for a in spec.actions(w) if spec.is_progress(a)]
                if not progress:
                    break
                a = progress[0]
                w = spec.next_state(w, a)
                path.append(a)
                for prop, check in active_always:
                    why = check(w)
                    if why is not None:
                        raise PropertyFailure(prop, why, path, "always")
            else:
                return  # no quiescence within the drain limit: nothing to conclude
            for prop, check in active_eventually:
                why = check(w)
                if why is not None:
                    raise PropertyFailure(prop, why, path, "eventually")

    return CheckpointMachine


def run_stateful(spec, *, seed: int = 0, profile: str = "ci", stop_at: str | None = None) -> StatefulOutcome:
    """Sample runs of ``spec`` with Hypothesis.  Hypothesis's storage goes to a temporary folder
    that is removed afterwards: a check leaves no ``.hypothesis/`` in the user's folder."""
    if profile not in PROFILES:
        raise ValueError(f"profile: expected one of {', '.join(PROFILES)}, got {profile!r}")
    home = tempfile.mkdtemp(prefix="ckptcheck-hypothesis-")
    configuration.set_hypothesis_home_dir(home)
    try:
        return _run_stateful(spec, seed=seed, profile=profile, stop_at=stop_at)
    finally:
        configuration.set_hypothesis_home_dir(None)
        shutil.rmtree(home, ignore_errors=True)


def _run_stateful(spec, *, seed: int, profile: str, stop_at: str | None) -> StatefulOutcome:
    started = time.perf_counter()
    stats = {"runs": 0, "steps": 0, "max_depth": 0, "fingerprints": set(), "profile": profile, "seed": seed}
    witnesses: dict = {}
    found: dict = {}
    active_always = list(spec.always)
    active_eventually = list(spec.eventually)
    chosen = settings(PROFILES[profile], **_COMMON)
    stopped = None
    try:
        while active_always or active_eventually:
            machine = _machine(spec, active_always, active_eventually, witnesses, stats)
            test = get_state_machine_test(machine, settings=chosen)
            test = hypothesis.seed(seed)(test)
            try:
                test()
                break
            except PropertyFailure as failure:
                found[failure.prop.name] = Discovery(failure.prop, failure.reason, failure.path, failure.kind)
                active_always = [x for x in active_always if x[0].name != failure.prop.name]
                active_eventually = [x for x in active_eventually if x[0].name != failure.prop.name]
                if stop_at in (failure.prop.name, "any"):
                    break
    except KeyboardInterrupt:  # Ctrl-C: the runs so far are the result, marked as interrupted
        stopped = "interrupted (Ctrl-C)"
    found.update({k: v for k, v in witnesses.items() if k not in found})
    elapsed = time.perf_counter() - started
    out_stats = {
        "runs": stats["runs"],
        "steps": stats["steps"],
        "max_depth": stats["max_depth"],
        "distinct_states_seen": len(stats["fingerprints"]),
        "seconds": round(elapsed, 3),
        "profile": profile,
        "seed": seed,
    }
    if stopped:
        out_stats["stopped"] = stopped
    return StatefulOutcome(found, out_stats)
