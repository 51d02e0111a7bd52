"""The extension points: the component methods a design variant may override, kept stable.

A FLIP author keeps a variant in a repository of their own and runs it again when the PR
changes, so a model that learns something must not break it.  Each point below is a method a
variant may override; the docs list them with their signatures and what each does
(``docs/pages/designs.md``, generated).  When a point's signature changes, the old one goes into
``was`` with an adapter: a variant written against it still loads (``Design`` adapts its
override, with a warning naming the change), and one that fits neither is refused in one line
naming the method and today's signature (``VariantSignatureError``).  A method that moved to
another component (``MOVED``) is refused in one line naming its new place, whatever the
override.  The changelog (``docs/pages/changelog.md``) lists every change.  Other methods may
change without notice.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from dataclasses import dataclass
from typing import Any, Callable


class VariantSignatureError(TypeError):
    """A variant overrides an extension point with a signature the model cannot call."""


@dataclass(frozen=True)
class Was:
    """A signature an extension point had before: its parameters after ``self``, the change that
    ended it, and how an override of that signature is called today."""

    params: tuple[str, ...]
    until: str
    adapt: Callable[[Callable[..., Any]], Callable[..., Any]]


@dataclass(frozen=True)
class ExtensionPoint:
    component: str  # the model's component class a variant subclasses (the method may sit in a part of it)
    method: str
    was: tuple[Was, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.component}.{self.method}"


def _drop_cp(old):
    return lambda self, tx, t, cp: old(self, tx, t)


def _drop_null_checkpoint(old):
    return lambda self, t, snap, plan, null_checkpoint=None: old(self, t, snap, plan)


def _drop_old_side(old):
    return lambda self, e, ambiguous, consumer_index, r, *, old_consumer=None, old_producer=None: old(
        self, e, ambiguous, consumer_index, r)


_POINTS = {
    "CheckpointCoordinator": ("maybe_finalize", "complete", "abort", "partly_finished_union_vertex", "send_complete",
                              "send_abort", "send_fallback", "send_trigger", "receive_decline", "latest_completed_for"),
    "CheckpointRequestDecider": ("can_trigger", "periodic_scheduler_running"),
    "CheckpointPlanCalculator": ("tasks_to_trigger",),
    "RegionalCheckpointHandler": ("regions", "notice_for_failed_region", "fallback_state", "try_complete", "too_many_failed",
                                  "end_of_input_forces", "end_of_input_moment", "forces_global_after", "tier2_resets",
                                  "forced_before_judging", "forced_after_judging", "decline_aborts", "recovered_count",
                                  "may_time_out", "coordinators_support_fallback", "waits_for_coordinators", "late_acks",
                                  "on_fallback_state_missing", "finished_check_after_fallback", "keep_fallback_alive",
                                  "on_timeout", "sources_done", "forced", "fallback_notice_id"),
    "CompletedCheckpointStore": ("retained_ids", "referenced", "discard", "retained_with_refs"),
    "SharedStateRegistry": ("unregister_unused",),
    "CheckpointBarrierHandler": ("on_barrier", "is_blocked", "on_alignment_timeout"),
    "StreamTask": ("ready_to_finish", "final_checkpoint_done", "needs_final_checkpoint", "on_fallback", "on_complete",
                   "take_fallback_notice", "fallback_reaches_operators"),
    "StreamTaskNetworkInput": ("deliver", "persists_on_poll", "recovery_phase"),
    "SubtaskCheckpointCoordinator": ("output_state", "start_unaligned"),
    "TwoPhaseCommitSink": ("commit_up_to",),
    "SinkWriterOperator": ("prepare_snapshot_pre_barrier",),
    "CommitterOperator": ("state", "forwards_end_of_data"),
    "SourceReader": ("restore_position", "finished_split_position"),
    "SplitEnumerator": ("region_fallback_correction", "on_region_fallback"),
    "OperatorCoordinatorHolder": ("close_gateways",),
    "FailoverStrategy": ("tasks_to_restart", "notices_surviving_restart"),
    "StateAssignmentOperation": ("input_state_assignment", "keeps", "keyed", "state_mappers", "route_edge", "peer_edge",
                                 "has_rescaling_descriptor"),
    "PointwiseStateAssignment": ("new_consumer_of", "primary_upstream"),
    "NullStateRecovery": ("restored_state", "reported_watermark", "null_state_checkpoint", "retained_for_recovery", "replaying",
                          "reinsert_position", "discards", "kept_in_replay", "in_flight_watermark"),
    "TaskLocalStateStore": ("restored", "copy_asked_for", "on_fallback"),
}

_WAS = {
    "CheckpointBarrierHandler.on_alignment_timeout": (
        Was(("tx", "t"), "2026-11-22: the timer names its checkpoint (cp)", _drop_cp),),
    "NullStateRecovery.restored_state": (
        Was(("t", "snap", "plan"), "2026-11-25: the null-state checkpoint is passed in (null_checkpoint)", _drop_null_checkpoint),),
    "StateAssignmentOperation.keeps": (
        Was(("e", "ambiguous", "consumer_index", "r"), "2026-11-25: the old side of the virtual channel is passed in"
            " (old_consumer, old_producer)", _drop_old_side),),
}


@dataclass(frozen=True)
class Moved:
    """Methods that left a component for another: an override of one on the old component
    would never be called, so a variant with one is refused, naming the new place."""

    component: str  # the model's class they were on
    from_field: str  # its design field
    to: str  # the model's class they are on now
    field: str  # the design field of the new class
    until: str  # the change that moved them
    methods: tuple[str, ...]


MOVED: tuple[Moved, ...] = (
    Moved("StreamTask", "task", "SubtaskCheckpointCoordinator", "subtask_checkpoint",
          "2026-11-29: a subtask's snapshot, barriers, channel state and acknowledgement are SubtaskCheckpointCoordinator's",
          ("operator_snapshot", "acknowledge", "snapshot", "queued_barrier", "maybe_sent", "on_alignment_timer",
           "decline_checkpoint", "on_sender_timeout", "start_unaligned", "send_unaligned_barriers", "put_priority_barrier",
           "output_state", "finish_unaligned")),
    Moved("StreamTask", "task", "StreamTaskNetworkInput", "network_input",
          "2026-11-29: a task's input (each item a channel delivers, a restored gate, input channel state) is"
          " StreamTaskNetworkInput's", ("deliver", "read_head", "persists_on_poll", "record_input", "recovery_phase",
                                        "is_recovering", "process")),
    Moved("CheckpointCoordinator", "coordinator", "CheckpointRequestDecider", "request_decider",
          "2026-11-29: whether a checkpoint may be triggered is CheckpointRequestDecider's",
          ("can_trigger", "trigger_allowed", "execution_not_running", "trigger_allowed_once_initialized", "initializing",
           "periodic_scheduler_running", "union_vertex_partly_finished")),
    Moved("CheckpointCoordinator", "coordinator", "CheckpointPlanCalculator", "checkpoint_plan",
          "2026-11-29: the checkpoint plan is CheckpointPlanCalculator's", ("trigger_rule", "tasks_to_trigger")),
)


POINTS: tuple[ExtensionPoint, ...] = tuple(
    ExtensionPoint(component, method, _WAS.get(f"{component}.{method}", ()))
    for component, methods in _POINTS.items() for method in methods)


def _binds(fn: Callable[..., Any], like: inspect.Signature, required_only: bool = False) -> bool:
    """Can ``fn`` be called as a method with every parameter of ``like`` (after ``self``; with
    ``required_only``, those without a default), the positional ones by position and the
    keyword-only ones by name?"""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # pragma: no cover - a builtin: nothing to check
        return True
    params = [p for p in list(like.parameters.values())[1:] if not (required_only and p.default is not p.empty)]
    args = [None for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    kwargs = {p.name: None for p in params if p.kind is p.KEYWORD_ONLY}
    try:
        sig.bind(None, *args, **kwargs)
    except TypeError:
        return False
    return True


def _old(params: tuple[str, ...]) -> inspect.Signature:
    names = ("self",) + params
    return inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])


def checked_variant(cls: type, base: type) -> None:
    """Check the overrides of extension points in component class ``cls`` (a subclass of
    ``base``): one written against a previous signature is adapted in place (a warning says
    which); one that fits no signature raises ``VariantSignatureError`` in one line."""
    if cls is base:
        return
    model_classes = [k for k in cls.__mro__ if k.__module__.startswith(base.__module__.rpartition(".")[0] + ".")]
    for moved in MOVED:
        if moved.component != base.__name__:
            continue
        for klass in cls.__mro__[:cls.__mro__.index(base)]:
            if klass in model_classes:
                continue
            gone = next((m for m in moved.methods if m in vars(klass)), None)
            if gone is not None:
                raise VariantSignatureError(
                    f"{klass.__qualname__}.{gone}: {moved.component}.{gone} moved to {moved.to}.{gone} ({moved.until});"
                    f" subclass {moved.to} and set the design's {moved.field} (docs/pages/changelog.md)")
    named = {k.__name__ for k in model_classes}
    for point in POINTS:
        if point.component not in named:
            continue
        owner = next((k for k in model_classes if point.method in vars(k)), None)
        if owner is None:  # pragma: no cover - tests/model/test_variant_api.py checks every point exists
            continue
        today = vars(owner)[point.method]
        for klass in cls.__mro__:
            if klass is owner:
                break
            fn = vars(klass).get(point.method)
            if fn is None or not callable(fn) or getattr(fn, "__adapted_from__", None) is not None:
                continue
            now = inspect.signature(today)
            if _binds(fn, now):
                break
            was = next((w for w in point.was if _binds(fn, _old(w.params))), None)
            if was is None and _binds(fn, now, required_only=True):
                break  # it leaves out optional parameters, which the model passes only where an override takes them
            if was is None:
                raise VariantSignatureError(
                    f"{klass.__qualname__}.{point.method}{inspect.signature(fn)}: {point.name} is called as"
                    f" {point.method}{now} (docs/pages/changelog.md)")
            adapted = functools.wraps(fn)(was.adapt(fn))
            adapted.__adapted_from__ = fn  # type: ignore[attr-defined]
            setattr(klass, point.method, adapted)
            warnings.warn(f"{klass.__qualname__}.{point.method}: written for {point.method}(self, {', '.join(was.params)}),"
                          f" the signature until {was.until}; adapted (today: {point.method}{now})", stacklevel=2)
            break
