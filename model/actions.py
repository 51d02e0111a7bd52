"""Actions are data: small frozen records, serialisable to JSON with subtask and channel names.

Faults (``Decline``, ``Timeout``, ``FailTask``, ``LoseNotification``) are ordinary actions, so
every engine explores them; ``FAULTS`` lists them so that liveness checks can tell a run that
is stuck from one that merely stopped injecting faults.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from .topology import Expanded
from .world import NOTIFY_NAMES


class ActionError(ValueError):
    """A serialised action that cannot be read; ``field`` names the offending part."""

    def __init__(self, field_name: str, message: str):
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


@dataclass(frozen=True, slots=True)
class Action:
    fault: ClassVar[bool] = False
    # fields holding a subtask id / channel id (serialised by name)
    _task_fields: ClassVar[tuple[str, ...]] = ()
    _channel_fields: ClassVar[tuple[str, ...]] = ()

    def to_json(self, topo: Expanded) -> dict[str, Any]:
        out: dict[str, Any] = {"type": type(self).__name__}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in self._task_fields:
                v = topo.names[v]
            elif f.name in self._channel_fields:
                v = topo.channel_name(v)
            out[f.name] = v
        return out

    def describe(self, topo: Expanded) -> str:
        args = []
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in self._task_fields:
                v = topo.names[v]
            elif f.name in self._channel_fields:
                v = topo.channel_name(v)
            args.append(str(v))
        return f"{type(self).__name__}({', '.join(args)})"


@dataclass(frozen=True, slots=True)
class EmitRecord(Action):
    """A source reads the next record of its split and emits it downstream."""

    task: int
    _task_fields: ClassVar = ("task",)


@dataclass(frozen=True, slots=True)
class EndOfInput(Action):
    """A bounded source has read its whole split: it emits EndOfData (FLIP-147)."""

    task: int
    _task_fields: ClassVar = ("task",)


@dataclass(frozen=True, slots=True)
class Deliver(Action):
    """The head of a channel (record, barrier, EndOfData, EndOfPartition) reaches its consumer."""

    channel: int
    _channel_fields: ClassVar = ("channel",)


@dataclass(frozen=True, slots=True)
class ReadHead(Action):
    """Spanning records (``Scope.spanning_records``): the consumer of ``channel`` polls the buffer
    with the head of the channel's next record while the buffer with its tail is still in the
    producer's subpartition; its deserializer holds the partial record
    (``SpillingAdaptiveSpanningRecordDeserializer``) until the tail arrives (a ``Deliver``)."""

    channel: int
    _channel_fields: ClassVar = ("channel",)


@dataclass(frozen=True, slots=True)
class AlignmentTimeout(Action):
    """``aligned-checkpoint-timeout``: a subtask's alignment timer for checkpoint ``checkpoint``
    fires (a nondeterministic event: no clocks).  The receiver's timer, counted from the
    checkpoint's start, while the subtask aligns it or once a barrier of it was announced in an
    input channel: the checkpoint goes unaligned.  The sender's, while a timeoutable barrier of it is still
    queued in one of the subtask's subpartitions: the barrier jumps ahead as an unaligned one."""

    task: int
    checkpoint: int
    _task_fields: ClassVar = ("task",)


@dataclass(frozen=True, slots=True)
class TriggerCheckpoint(Action):
    """The coordinator triggers checkpoint ``checkpoint`` on the tasks of its plan."""

    checkpoint: int


@dataclass(frozen=True, slots=True)
class Ack(Action):
    """A subtask's acknowledgement (with its state handle) reaches the coordinator."""

    task: int
    checkpoint: int
    _task_fields: ClassVar = ("task",)


@dataclass(frozen=True, slots=True)
class LastAck(Action):
    """With the scope's instant acks: the last acknowledgement of checkpoint ``checkpoint``
    reaches the coordinator, which completes it (``CheckpointCoordinator.acknowledge_at_once``)."""

    checkpoint: int


@dataclass(frozen=True, slots=True)
class CoordinatorsFellBack(Action):
    """FLIP-600 (``regional_completion`` waiting for the coordinators): the futures of the
    operator coordinators' fallback for checkpoint ``checkpoint`` complete, and the regional
    completion goes on (``RegionalCheckpointHandler.after_coordinators``)."""

    checkpoint: int


@dataclass(frozen=True, slots=True)
class Notify(Action):
    """A coordinator RPC (``complete``, ``abort``, FLIP-600's ``fallback``, or with staggered
    triggers ``trigger``) reaches a subtask."""

    task: int
    checkpoint: int
    kind: str
    _task_fields: ClassVar = ("task",)


@dataclass(frozen=True, slots=True)
class EndOfRecovery(Action):
    """A subtask restored at a new parallelism has read every channel's
    ``EndOfChannelStateEvent``: ``RescalingStreamTaskNetworkInput.finishRecovery`` replaces it by
    a plain ``StreamTaskNetworkInput``, and the subtask takes checkpoints again
    (``Scope.rescaled_tasks_decline``)."""

    task: int
    _task_fields: ClassVar = ("task",)


@dataclass(frozen=True, slots=True)
class FinishReported(Action):
    """The JobManager processes a subtask's switch to FINISHED (``Execution.markFinished``, from
    the task manager's ``updateTaskExecutionState`` RPC): from now on its checkpoint plan
    leaves the subtask out (``Scope.late_finish_reports``)."""

    task: int
    _task_fields: ClassVar = ("task",)


@dataclass(frozen=True, slots=True)
class TriggerAfterClose(Action):
    """A subtask that is ready to finish closes its mailbox before the trigger RPC of
    ``checkpoint`` reaches it (staggered triggers): it finishes, and declines the RPC
    (TASK_CLOSING, not counted).  A race, not a fault, but a decline: it takes one of the
    scope's ``max_declines``, which bounds how often a search lets it happen."""

    task: int
    checkpoint: int
    _task_fields: ClassVar = ("task",)


@dataclass(frozen=True, slots=True)
class StopWithSavepoint(Action):
    """The user stops the job with a savepoint (``flink stop``, with ``--drain`` or without, as
    the scope says): the coordinator triggers synchronous savepoint ``checkpoint``."""

    checkpoint: int


@dataclass(frozen=True, slots=True)
class ResumeFromSavepoint(Action):
    """The user starts the job again from the stop's savepoint ``checkpoint``."""

    checkpoint: int


@dataclass(frozen=True, slots=True)
class Restore(Action):
    """Failed subtasks are redeployed with the state of checkpoint ``checkpoint`` (0: none)."""

    checkpoint: int


@dataclass(frozen=True, slots=True)
class Rescale(Action):
    """The user restarts the job from its latest completed checkpoint ``checkpoint`` at the
    parallelism the scope's ``rescale`` gives (or back at the job's own): every subtask is
    cancelled, and the state is redistributed (``StateAssignmentOperation``).  The subtask and
    channel names of the steps after it are those of the new parallelism."""

    checkpoint: int


@dataclass(frozen=True, slots=True)
class Decline(Action):
    """Fault: the asynchronous part of a subtask's snapshot fails; it declines instead of acking."""

    task: int
    checkpoint: int
    fault: ClassVar[bool] = True
    _task_fields: ClassVar = ("task",)


@dataclass(frozen=True, slots=True)
class Timeout(Action):
    """Fault: the checkpoint's timeout fires before every task acknowledged."""

    checkpoint: int
    fault: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class FailTask(Action):
    """Fault: a subtask fails; its failover region (or the whole job) is cancelled."""

    task: int
    fault: ClassVar[bool] = True
    _task_fields: ClassVar = ("task",)


@dataclass(frozen=True, slots=True)
class JobManagerFailover(Action):
    """Fault: the JobManager fails and, with high availability, a new leader recovers the job
    (``Dispatcher`` -> ``JobMaster``): every subtask is cancelled, a new execution graph with a new
    ``CheckpointCoordinator`` is built on the completed checkpoints recovered from the HA store,
    and every subtask is deployed with the state of checkpoint ``checkpoint`` (0: none)."""

    checkpoint: int
    fault: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class LoseNotification(Action):
    """Fault: a coordinator RPC to a subtask is lost."""

    task: int
    checkpoint: int
    kind: str
    fault: ClassVar[bool] = True
    _task_fields: ClassVar = ("task",)


@dataclass(frozen=True, slots=True)
class DeleteSnapshot(Action):
    """The user deletes the NO_CLAIM snapshot the job was started from, once the design says a
    completed checkpoint no longer needs it (an environment action, not progress)."""

    checkpoint: int
    fault: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class AssignSplit(Action):
    """The split enumerator (the source's operator coordinator) assigns its next unassigned
    split to a reader subtask that has none (FLIP-27 ``handleSplitRequest``)."""

    task: int
    split: int
    _task_fields: ClassVar = ("task",)


ACTION_TYPES: dict[str, type[Action]] = {
    cls.__name__: cls
    for cls in (
        EmitRecord,
        EndOfInput,
        Deliver,
        ReadHead,
        AlignmentTimeout,
        TriggerCheckpoint,
        Ack,
        LastAck,
        CoordinatorsFellBack,
        Notify,
        TriggerAfterClose,
        FinishReported,
        EndOfRecovery,
        StopWithSavepoint,
        ResumeFromSavepoint,
        Restore,
        Rescale,
        Decline,
        Timeout,
        FailTask,
        JobManagerFailover,
        LoseNotification,
        DeleteSnapshot,
        AssignSplit,
    )
}


_FIELD_NAMES = {cls: tuple(f.name for f in fields(cls)) for cls in ACTION_TYPES.values()}


def action_from_json(data: Any, topo: Expanded, where: str = "action") -> Action:
    """Read one action; raises :class:`ActionError` naming the field that is wrong."""
    if not isinstance(data, dict):
        raise ActionError(where, f"expected an object, got {type(data).__name__}")
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ActionError(f"{where}.type", f"unknown action {kind!r} (known: {', '.join(ACTION_TYPES)})")
    kwargs: dict[str, Any] = {}
    names = _FIELD_NAMES[cls]
    for name in names:
        if name not in data:
            raise ActionError(f"{where}.{name}", f"missing for {kind}")
        v = data[name]
        if name in cls._task_fields:
            if not isinstance(v, str):
                raise ActionError(f"{where}.{name}", f"expected a subtask name like 'sink[0]', got {v!r}")
            try:
                v = topo.task_id(v)
            except KeyError:
                raise ActionError(f"{where}.{name}", f"no subtask named {v!r} in this job") from None
        elif name in cls._channel_fields:
            if not isinstance(v, str):
                raise ActionError(f"{where}.{name}", f"expected a channel name like 'src[0]->sink[1]', got {v!r}")
            try:
                v = topo.channel_id(v)
            except KeyError:
                raise ActionError(f"{where}.{name}", f"no channel named {v!r} in this job") from None
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
