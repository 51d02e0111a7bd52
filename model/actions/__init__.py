"""Actions are data: small frozen records, serialisable to JSON with subtask and channel names.
Each record carries, beside its fields, its words, its footprint and what a real run records for
it (``base.Action``); the component method that handles it declares so (``base.handles``), and
``FlinkModel.step`` looks the handler up in a table.  Faults (``Decline``, ``Timeout``,
``FailTask``, ``JobManagerFailover``, ``LoseNotification``, ``DeleteSnapshot``) are ordinary
actions with ``fault`` set, so every engine explores them.  ``docs/pages/howto-action.md`` adds one.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from ..topology import Expanded
from ..world import NOTIFY_NAMES
from .base import ACTION_TYPES, OPTIONAL, Action, ActionError, handles
from .checkpoint import (Ack, AlignmentTimeout, CoordinatorsFellBack, FinishReported, LastAck, Notify, EndOfRecovery,
                         TriggerAfterClose, TriggerCheckpoint, rpc_first)
from .data import AssignSplit, ChannelAction, Deliver, EmitRecord, EndOfInput, ReadHead, TaskAction
from .faults import Decline, FailTask, JobManagerFailover, LoseNotification, Timeout
from .lifecycle import DeleteSnapshot, Rescale, Restore, ResumeFromSavepoint, StopWithSavepoint

__all__ = ["OPTIONAL", "Action", "ActionError", "handles", "rpc_first", "TaskAction", "ChannelAction", "ACTION_TYPES",
           "action_from_json", "Ack", "AlignmentTimeout", "AssignSplit", "CoordinatorsFellBack", "Decline", "DeleteSnapshot",
           "Deliver", "EmitRecord", "EndOfInput", "EndOfRecovery", "FailTask", "FinishReported", "JobManagerFailover",
           "LastAck", "LoseNotification", "Notify", "ReadHead", "Rescale", "Restore", "ResumeFromSavepoint",
           "StopWithSavepoint", "Timeout", "TriggerAfterClose", "TriggerCheckpoint"]


def action_from_json(data: Any, topo: Expanded, where: str = "action") -> Action:
    """Read one action; raises :class:`ActionError` naming the field that is wrong."""
    if not isinstance(data, dict):
        raise ActionError(where, f"expected an object, got {type(data).__name__}")
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ActionError(f"{where}.type", f"unknown action {kind!r} (known: {', '.join(ACTION_TYPES)})")
    kwargs: dict[str, Any] = {}
    names = tuple(f.name for f in fields(cls))
    for name in names:
        if name not in data:
            raise ActionError(f"{where}.{name}", f"missing for {kind}")
        v = data[name]
        named = ((cls._task_fields, "a subtask name like 'sink[0]'", "subtask", topo.task_id),
                 (cls._channel_fields, "a channel name like 'src[0]->sink[1]'", "channel", topo.channel_id))
        by_name = next((x for x in named if name in x[0]), None)
        if by_name is not None:
            _, expected, what, lookup = by_name
            if not isinstance(v, str):
                raise ActionError(f"{where}.{name}", f"expected {expected}, got {v!r}")
            try:
                v = lookup(v)
            except KeyError:
                raise ActionError(f"{where}.{name}", f"no {what} named {v!r} in this job") from None
        elif name == "kind":
            if v not in NOTIFY_NAMES:
                raise ActionError(f"{where}.kind", f"expected one of {', '.join(repr(k) for k in NOTIFY_NAMES)}, got {v!r}")
        else:
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ActionError(f"{where}.{name}", f"expected a non-negative integer, got {v!r}")
        kwargs[name] = v
    extra = set(data) - {"type"} - set(names)
    if extra:
        raise ActionError(f"{where}", f"unexpected field(s) {sorted(extra)} for {kind}")
    return cls(**kwargs)
