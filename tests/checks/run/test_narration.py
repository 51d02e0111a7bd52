"""Narration from what happened: no step of a counterexample says something a later step
contradicts.  Each claim the narration makes about what comes next is checked against the steps
that follow (``contradictions``), on the shortest counterexample of every catalog entry and of
every variant the designs page documents; and the checker itself is shown to catch a narration
that tells a flag instead of the rule (the ``no-block`` variant's, before narration asked the
barrier handler)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.checks.run.narrate import narrate
from ckptcheck.reports.steps import Step
from ckptcheck.specs.catalog import CATALOG
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.scopes import scope

from conftest import catalog_run
from test_reports import SLOW_TO_FIND

BLOCKS = re.compile(r"(\S+) receives barrier (\d+) from (\S+) and blocks that channel")
RECORD = re.compile(r"(\S+) receives (?:replayed )?record \(split \d+, offset \d+\)\S* (?:\([^)]*\) )?from (\S+)")
ALIGNED = re.compile(r"(\S+) receives barrier (\d+) from \S+: aligned, it snapshots")
COMPLETES = re.compile(r"(?<!fallback for )checkpoint (\d+) completes")


def contradictions(steps: list[Step]) -> list[str]:
    """The narration's claims that a later step contradicts:

    - "X receives barrier N from Y and blocks that channel": no record from Y reaches X before X's
      alignment of N ends (its aligned snapshot, or a failure, a restore or an abort that ends it);
    - "checkpoint N completes": no later step completes checkpoint N again.
    """
    out = []
    blocked: dict[tuple[str, str], tuple[int, int]] = {}  # (consumer, producer) -> (checkpoint, step that said so)
    completed: dict[int, int] = {}
    for s in steps:
        for m in RECORD.finditer(s.text):
            key = (m.group(1), m.group(2))
            if key in blocked:
                cp, said = blocked[key]
                out.append(f"step {said} says {key[0]} blocks the channel from {key[1]} (checkpoint {cp}); step {s.n}"
                           f" delivers a record on it: {s.text}")
        for m in ALIGNED.finditer(s.text):
            for key in [k for k, (cp, _) in blocked.items() if k[0] == m.group(1) and cp <= int(m.group(2))]:
                del blocked[key]
        if re.match(r"(Fail|Restore|Rescale|Timeout|Decline|StopWithSavepoint)", s.action) or "aborted" in s.text:
            blocked.clear()  # a failure, restore or abort ends every alignment it touches: no claim survives it
        for m in BLOCKS.finditer(s.text):
            blocked[(m.group(1), m.group(3))] = (int(m.group(2)), s.n)
        for cp in {int(m.group(1)) for m in COMPLETES.finditer(s.text)}:
            if cp in completed:
                out.append(f"step {completed[cp]} and step {s.n} both say checkpoint {cp} completes")
            completed[cp] = s.n
    return out


def narration_of(result, prop: str) -> list[Step]:
    steps, _ = narrate(result.spec, result.verdict(prop).trace)
    return steps


QUICK = [e for e in CATALOG if e.name not in SLOW_TO_FIND]


@pytest.mark.parametrize("e", QUICK, ids=lambda e: e.name)
def test_no_catalog_counterexample_narrates_what_a_later_step_contradicts(e):
    steps = narration_of(catalog_run(e.name), e.violates)
    assert not contradictions(steps), contradictions(steps)


@pytest.mark.claims  # the four pointwise entries' counterexamples take about 20 s each to find
@pytest.mark.parametrize("e", [e for e in CATALOG if e.name in SLOW_TO_FIND], ids=lambda e: e.name)
def test_no_slow_catalog_counterexample_narrates_what_a_later_step_contradicts(e):
    steps = narration_of(catalog_run(e.name), e.violates)
    assert not contradictions(steps), contradictions(steps)


NO_BLOCK = BASELINE.with_(name="no-block", alignment_blocks_channels=False)
TOUR = scope("keyed-2x2", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0, max_timeouts=0,
             max_lost_notifications=0)


def test_a_variant_that_keeps_reading_is_not_said_to_block():
    """The designs page's no-block variant: its barrier step says the channel stays open (the design's
    rule), and no narration of its counterexample is contradicted; the same steps told from the
    ``blocked`` flag, as narration once did, are caught."""
    r = check(NO_BLOCK, TOUR, stop_at="checkpoints-consistent")
    steps = narration_of(r, "checkpoints-consistent")
    assert any("keeps reading that channel" in s.text for s in steps)
    assert not contradictions(steps), contradictions(steps)
    flag_told = [Step(s.n, s.action, s.text.replace(
        "and keeps reading that channel while it waits for the barrier on its other inputs (this design does not block a"
        " channel during alignment)", "and blocks that channel until every input delivered it"), s.events) for s in steps]
    assert contradictions(flag_told), "the checker must catch a block the next steps deliver through"


def test_a_quorum_completion_says_whose_acknowledgement_it_lacks(tmp_path, monkeypatch):
    """The designs page's quorum coordinator: the completing step names the task that never acknowledged."""
    from test_variants import QUORUM

    (tmp_path / "narration_quorum.py").write_text(QUORUM)
    monkeypatch.syspath_prepend(str(tmp_path))
    from narration_quorum import COMPLETE_ON_QUORUM
    small = scope("forward-2x2", records_per_split=1, max_checkpoints=1, max_failures=0, max_declines=0, max_timeouts=0,
                  max_lost_notifications=0)
    steps = narration_of(check(COMPLETE_ON_QUORUM, small, stop_at="checkpoints-consistent"), "checkpoints-consistent")
    assert re.search(r"checkpoint 1 completes without \S+'s acknowledgement", steps[-1].text), steps[-1].text
    assert not contradictions(steps)


def test_a_regional_judgement_and_a_split_taken_back_are_narrated_at_their_step():
    """FLIP-600 finding 1 (flip600-pr, live-enumerator-add-back): the step after which a split is read
    twice says the checkpoint was judged regional and the enumerator took the split back while its
    reader still reads it."""
    from ckptcheck.checks.run.trace import load_trace_file, replay

    path = Path(__file__).resolve().parents[3] / "reports" / "findings" / "traces" / (
        "flip600-pr--live-enumerator-add-back--split-read-once.trace.json")
    outcome = replay(load_trace_file(str(path)), str(path))
    steps, _ = narrate(outcome.spec, outcome.actions)
    decisive = steps[-2].text
    assert "checkpoint 2 is judged regional (failed region: source[0])" in decisive, decisive
    assert "the split enumerator takes split 0 back, though source[0] still reads it" in decisive, decisive


def test_no_documented_variant_narrates_what_a_later_step_contradicts(tmp_path, monkeypatch):
    """The designs page's Python variants (run from their blocks as written): each counterexample's
    narration holds up against its own later steps."""
    from test_variants import README_VARIANTS, readme_blocks

    for name, code in readme_blocks().items():
        (tmp_path / name).write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name, (attr, prop, _) in sorted(README_VARIANTS.items()):
        mod = __import__(name[:-3])
        steps = narration_of(check(getattr(mod, attr), mod.SMALL, stop_at=prop), prop)
        assert steps and not contradictions(steps), (name, contradictions(steps))
