"""The extension points (``model.surface``): every declared point exists; variants written against
the previous signatures of the three points that changed still load, adapted, and run as they
did; an override that fits no signature is refused in one line naming the method and today's
signature, by the API and by ``ckptcheck check``; a variant of a method that moved to another component
is refused naming its new place, and a trace that recorded it under the old field still replays."""

from __future__ import annotations

import textwrap
import warnings

import pytest

from ckptcheck.checks.cli.main import main
from ckptcheck.model.assignment import PointwiseStateAssignment, StateAssignmentOperation
from ckptcheck.model.barriers import CheckpointBarrierHandler
from ckptcheck.model.coordinator import CheckpointCoordinator
from ckptcheck.model.design import COMPONENTS
from ckptcheck.model.nullstate import NullStateRecovery
from ckptcheck.model.surface import POINTS, VariantSignatureError
from ckptcheck.specs.designs import BASELINE, NULL_STATE, UNALIGNED, UNALIGNED_TIMEOUT


def test_every_declared_point_is_a_method_of_its_component():
    classes = {k.__name__: k for c in [*COMPONENTS.values(), PointwiseStateAssignment] for k in c.__mro__}
    missing = [p.name for p in POINTS if p.component not in classes or not hasattr(classes[p.component], p.method)]
    assert not missing and len(POINTS) >= 50


# -- variants written against the signatures before the changes ------------------------------------
def _old_timeout_variant():
    calls = []

    class IgnoreTimeout(CheckpointBarrierHandler):
        """Before 2026-11-22: the timer did not name its checkpoint."""

        def on_alignment_timeout(self, tx, t):
            calls.append(t)  # the old rule: the timer does nothing

    return IgnoreTimeout, calls


def test_an_alignment_timeout_override_of_the_old_signature_loads_and_is_called():
    cls, calls = _old_timeout_variant()
    with pytest.warns(UserWarning, match=r"on_alignment_timeout: written for on_alignment_timeout\(self, tx, t\)"):
        design = UNALIGNED_TIMEOUT.with_(name="old-timeout", barriers=cls)
    from ckptcheck.model.tx import Tx
    from ckptcheck.model.protocol import FlinkModel
    from ckptcheck.specs.scopes import default_scope_for

    m = FlinkModel(design, default_scope_for(design))
    tx = Tx(m.initial())
    m.barriers.on_alignment_timeout(tx, 1, 7)  # today's call: (tx, t, cp)
    assert calls == [1]


def test_a_restored_state_override_of_the_old_signature_is_called_without_the_null_checkpoint():
    seen = []

    class OldRestore(NullStateRecovery):
        """Before 2026-11-25: the null-state checkpoint was not passed in."""

        def restored_state(self, t, snap, plan):
            seen.append((t, snap, plan))
            return snap

    with pytest.warns(UserWarning, match="restored_state"):
        design = NULL_STATE.with_(name="old-restore", null_state=OldRestore)
    from ckptcheck.model.protocol import FlinkModel
    from ckptcheck.specs.scopes import default_scope_for

    m = FlinkModel(design, default_scope_for(design))
    assert m.null_state.restored_state(0, "snap", "plan", None) == "snap"  # as FailoverStrategy.restore calls it
    assert seen == [(0, "snap", "plan")]


def test_a_keeps_override_of_the_old_signature_loads_and_drops_the_old_side():
    class KeepAll(StateAssignmentOperation):
        def keeps(self, e, ambiguous, consumer_index, r):
            return True

    with pytest.warns(UserWarning, match="keeps"):
        design = UNALIGNED.with_(name="old-keeps", assignment=KeepAll)
    from ckptcheck.model.protocol import FlinkModel
    from ckptcheck.specs.scopes import default_scope_for

    m = FlinkModel(design, default_scope_for(design))
    assert m.assignment.keeps(None, False, 0, (0, 0, 0), old_consumer=1, old_producer=0) is True


def test_an_override_that_fits_no_signature_is_refused_in_one_line():
    class Wrong(CheckpointCoordinator):
        def maybe_finalize(self, tx):
            pass

    with pytest.raises(VariantSignatureError) as e:
        BASELINE.with_(name="wrong", coordinator=Wrong)
    text = str(e.value)
    assert "\n" not in text
    assert text.startswith("test_an_override_that_fits_no_signature_is_refused_in_one_line.<locals>.Wrong.maybe_finalize(self, tx)")
    assert "CheckpointCoordinator.maybe_finalize is called as maybe_finalize(self, tx: 'Tx', cp: 'int')" in text


def test_an_override_leaving_out_an_optional_parameter_loads_without_a_warning():
    """``CompletedCheckpointStore.discard`` is called without ``referenced`` where an override
    does not take it."""
    from ckptcheck.model.store import CompletedCheckpointStore

    class KeepNothing(CompletedCheckpointStore):
        def discard(self, subsumed, retained, pending):
            return subsumed

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        BASELINE.with_(name="three-parameter-discard", store=KeepNothing)


def test_check_refuses_a_variant_file_with_a_wrong_signature_in_one_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "wrong_variant.py").write_text(textwrap.dedent("""
        from ckptcheck.model.coordinator import CheckpointCoordinator
        from ckptcheck.specs.designs import BASELINE

        class Wrong(CheckpointCoordinator):
            def maybe_finalize(self, tx):
                pass

        DESIGN = BASELINE.with_(name="wrong", coordinator=Wrong)
    """), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--design", "wrong_variant:DESIGN"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "maybe_finalize" in err[0] and "is called as maybe_finalize(self, tx: 'Tx', cp: 'int')" in err[0]


# -- variants of a method that moved to another component --------------------------------------------
def test_a_variant_of_a_moved_method_is_refused_naming_its_new_place():
    """Before 2026-11-29 ``output_state`` (and the rest of a subtask's snapshot) was
    ``StreamTask``'s: a ``StreamTask`` variant overriding it would now never be called, so it is
    refused in one line naming ``SubtaskCheckpointCoordinator`` and the design field to set; the
    same override on the new component loads and runs (the catalog's ``uc-input-side-only``)."""
    from ckptcheck.model.subtask_checkpoint import SubtaskCheckpointCoordinator
    from ckptcheck.model.task import StreamTask

    class InputSideOnly(StreamTask):
        def output_state(self, queued):
            return ()

    with pytest.raises(VariantSignatureError) as e:
        UNALIGNED.with_(name="old-output-state", task=InputSideOnly)
    text = str(e.value)
    assert "\n" not in text and text.startswith(f"{InputSideOnly.__qualname__}.output_state: StreamTask.output_state moved to"
                                                " SubtaskCheckpointCoordinator.output_state (2026-11-29")
    assert text.endswith("subclass SubtaskCheckpointCoordinator and set the design's subtask_checkpoint (docs/pages/changelog.md)")

    class Moved(SubtaskCheckpointCoordinator):
        def output_state(self, queued):
            return ()

    design = UNALIGNED.with_(name="new-output-state", subtask_checkpoint=Moved)
    assert design.component_class("subtask_checkpoint") is Moved


def test_a_trace_of_a_moved_variant_replays_under_its_new_field():
    """A catalog trace written while ``AckAtFirstBarrier`` was a ``StreamTask`` records it under
    ``task``; the entry now sets it as ``subtask_checkpoint``, and the trace still resolves to it."""
    from ckptcheck.specs.catalog import entry
    from ckptcheck.specs.portable import design_from_trace

    e = entry("uc-ack-at-first-barrier")
    recorded = {"name": e.design.name, "knobs": e.design.knobs(),
                "components": {**e.design.components(), "task": "ckptcheck.specs.catalog_unaligned.AckAtFirstBarrier"}}
    recorded["components"].pop("subtask_checkpoint")
    assert design_from_trace(recorded, "old.trace.json") == e.design
    with pytest.raises(Exception, match="design.components.task"):
        design_from_trace({**recorded, "components": {"task": "ckptcheck.specs.catalog_unaligned.Other"}}, "old.trace.json")
