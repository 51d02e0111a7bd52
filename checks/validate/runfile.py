"""A recorded run of a real Flink job: the ``ckptcheck-run`` format, version 1, read and checked.

A run is a JSON-lines file.  Its first line is the header::

    {"format": "ckptcheck-run", "version": 1, "job": "forward", "parallelism": 1,
     "records_per_split": 4, ...}

``job`` names the job's shape (``forward``: source(P) -forward-> 2PC sink(P), the model's
``forward_pipeline(P)``; ``keyed-to-one``: source(P) -keyBy-> 2PC sink(1); ``sink-v2``:
source(P) -forward-> Sink V2 writer(P) -forward-> committer(P); ``keyed-rescale``: the
``keyed-to-one`` job, which the user cancels once a checkpoint completed and restarts from
that retained checkpoint with the sink at parallelism 2; ``keyed-restart-aligned``: the same,
restarted at parallelism 1 with unaligned checkpoints off; ``keyed-incremental``: the
``keyed-to-one`` job whose sink keeps a keyed count per record in RocksDB with incremental
checkpoints, two checkpoints at most pending at once), ``parallelism`` is
P, ``records_per_split`` the records each source subtask reads, ``checkpointing`` the mode
(``aligned``, the default; ``unaligned``; ``timeout:MS``, aligned until an alignment takes MS
milliseconds), ``max_concurrent_checkpoints`` (optional, 1 by default) the checkpoints at
most pending at once; other keys (the checkpoint interval, the fault schedule) are kept for the
report.  Every other line is one event::

    {"seq": 12, "event": "invoke", "task": "sink", "subtask": 0, "record": [0, 0]}

``seq`` orders the events of the whole run (one counter across the job's threads); ``task`` is
the vertex's name in the model's job (or ``coordinator`` for the JobManager), ``subtask`` its
index.  The events and their fields:

- ``start`` (``restored``: the checkpoint restored, 0 for none; sources also ``position``, the
  offset restored): an operator was initialized (``initializeState``);
- ``emit`` (``record``: [split, offset]): a source emitted a record;
- ``invoke`` (``record``): a sink wrote a record into its open transaction;
- ``snapshot`` (``checkpoint``; sources ``position``, sinks ``precommit``: the records of the
  transaction pre-committed): ``snapshotState``;
- ``notify-complete`` / ``notify-abort`` (``checkpoint``): ``notifyCheckpointComplete`` /
  ``notifyCheckpointAborted`` reached the operator;
- ``prepare-commit`` (``records``, optionally ``txn``): a Sink V2 writer's ``prepareCommit``,
  the committable it hands to its committer;
- ``commit`` / ``abort`` (``records``, optionally ``txn``: the transaction's id, unique in
  the subtask): a transaction was committed (also a recovered one) or aborted in the external
  system;
- ``fail`` (``record``, none for a snapshot that throws): the fault schedule failed the subtask;
- ``end-of-input``: a sink was finished (``finish``, called as EndOfData arrived on every
  input); a source's end is not recorded (its task emits EndOfData from its mailbox, after the
  source function returned, so a snapshot can come between);
- ``trigger`` / ``completed`` (``checkpoint``, task ``coordinator``): the
  CheckpointCoordinator's log lines; ``aborted`` (``checkpoint``, ``reason``: the
  ``CheckpointFailureReason``, such as ``CHECKPOINT_EXPIRED``): the CheckpointFailureManager's
  line of a failed checkpoint;
- ``base-pruned`` (``checkpoint``, ``base``, ``files``; ``keyed-incremental``): the sink's
  RocksDB backend left out of its snapshot of ``checkpoint`` the ``files`` sst files of its
  confirmed checkpoint ``base`` that a newer snapshot uploaded again
  (``RocksDBSnapshotStrategyBase.PreviousSnapshot``'s trace line);
- ``ack-refused`` (task ``coordinator``): the SharedStateRegistry refused an acknowledgement
  ("Attempt to reference unknown state", logged by ``ExecutionGraphHandler``);
- ``job-finished`` (task ``coordinator``): the job reached FINISHED;
- ``rescale`` (``checkpoint``, task ``coordinator``): the user cancelled the job and restarted it
  from retained checkpoint ``checkpoint`` at the other parallelism (``keyed-rescale``); the
  restarted job numbers its checkpoints on from that one.

Anything else is refused with one line naming the file, the line and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ckptcheck.specs.errors import InputError

FORMAT = "ckptcheck-run"
VERSION = 1
JOBS = ("forward", "keyed-to-one", "sink-v2", "keyed-rescale", "keyed-restart-aligned", "keyed-incremental")
MODES = ("aligned", "unaligned", "timeout:MS")

# event -> its fields besides seq, event, task, subtask (name -> kind)
FIELDS: dict[str, dict[str, str]] = {
    "start": {"restored": "int", "position": "int?"},
    "emit": {"record": "record"},
    "invoke": {"record": "record"},
    "snapshot": {"checkpoint": "int", "position": "int?", "precommit": "records?"},
    "notify-complete": {"checkpoint": "int"},
    "notify-abort": {"checkpoint": "int"},
    "commit": {"records": "records", "txn": "int?"},
    "prepare-commit": {"records": "records", "txn": "int?"},
    "abort": {"records": "records", "txn": "int?"},
    "fail": {"record": "record?"},
    "end-of-input": {},
    "trigger": {"checkpoint": "int"},
    "completed": {"checkpoint": "int"},
    "aborted": {"checkpoint": "int", "reason": "name"},
    "job-finished": {},
    "rescale": {"checkpoint": "int"},
    "base-pruned": {"checkpoint": "int", "base": "int", "files": "int"},
    "ack-refused": {},
}
COORDINATOR = "coordinator"


@dataclass(frozen=True)
class Event:
    """One recorded event; ``data`` holds its fields (records as tuples), ``line`` its line."""

    seq: int
    kind: str
    task: str
    subtask: int
    data: tuple  # ((name, value), ...) sorted by name
    line: int

    @property
    def thread(self) -> tuple[str, int]:
        """Whose event it is: (vertex, subtask), or ("coordinator", 0)."""
        return (self.task, self.subtask)

    def get(self, name: str, default=None):
        return dict(self.data).get(name, default)

    def describe(self) -> str:
        who = "JobManager" if self.task == COORDINATOR else f"{self.task}[{self.subtask}]"
        fields = ", ".join(f"{k}={_show(v)}" for k, v in self.data if k != "flink_checkpoint")
        if self.get("flink_checkpoint") is not None:
            fields += f", Flink's id {self.get('flink_checkpoint')}"
        return f"#{self.seq} {who} {self.kind}" + (f" ({fields})" if fields else "")


def _show(v) -> str:
    if isinstance(v, tuple):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    return str(v)


@dataclass(frozen=True)
class Run:
    path: str
    header: dict
    events: tuple[Event, ...]

    @property
    def job(self) -> str:
        return self.header["job"]

    @property
    def parallelism(self) -> int:
        return self.header["parallelism"]

    @property
    def records_per_split(self) -> int:
        return self.header["records_per_split"]

    @property
    def mode(self) -> str:
        return self.header["checkpointing"]

    @property
    def max_concurrent_checkpoints(self) -> int:
        return self.header.get("max_concurrent_checkpoints", 1)


def _int(v, where: tuple[str, str]) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise InputError(*where, f"expected a non-negative integer, got {json.dumps(v)}")
    return v


def _record(v, where: tuple[str, str]) -> tuple[int, int]:
    if not (isinstance(v, list) and len(v) == 2):
        raise InputError(*where, f"expected a record [split, offset], got {json.dumps(v)}")
    return (_int(v[0], where), _int(v[1], where))


def _value(kind: str, v, where: tuple[str, str]):
    if kind == "int":
        return _int(v, where)
    if kind == "record":
        return _record(v, where)
    if kind == "name":
        if not isinstance(v, str) or not v.replace("_", "").isalnum():
            raise InputError(*where, f"expected a name such as CHECKPOINT_EXPIRED, got {json.dumps(v)}")
        return v
    if not isinstance(v, list):
        raise InputError(*where, f"expected a list of records [[split, offset], ...], got {json.dumps(v)}")
    return tuple(_record(x, where) for x in v)


def read_run(path: str | Path) -> Run:
    """The run in ``path``; :class:`InputError` (one line: file, line, field, expectation) if
    it is not a version-1 ``ckptcheck-run`` file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(str(path), "run", f"no such file (expected a recorded run, {FORMAT} JSON lines)") from None
    except IsADirectoryError:
        raise InputError(str(path), "run", f"is a folder (expected a recorded run, {FORMAT} JSON lines)") from None
    except UnicodeDecodeError:
        raise InputError(str(path), "run", f"not UTF-8 text (expected a recorded run, {FORMAT} JSON lines)") from None
    lines = [(k, ln) for k, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if not lines:
        raise InputError(str(path), "run", f"empty (expected a {FORMAT} header line, then events)")
    header = _json(path, *lines[0])
    if header.get("format") != FORMAT:
        raise InputError(f"{path}:{lines[0][0]}", "format", f"expected {FORMAT!r}, got {json.dumps(header.get('format'))}")
    if header.get("version") != VERSION:
        raise InputError(f"{path}:{lines[0][0]}", "version", f"expected {VERSION}, got {json.dumps(header.get('version'))}")
    if header.get("job") not in JOBS:
        raise InputError(f"{path}:{lines[0][0]}", "job", f"expected one of {', '.join(JOBS)}, got {json.dumps(header.get('job'))}")
    mode = header.get("checkpointing", "aligned")
    if not (isinstance(mode, str) and (mode in ("aligned", "unaligned") or
                                       (mode.startswith("timeout:") and mode[len("timeout:"):].isdigit()))):
        raise InputError(f"{path}:{lines[0][0]}", "checkpointing", f"expected one of {', '.join(MODES)}, got {json.dumps(mode)}")
    header["checkpointing"] = mode
    for name in ("parallelism", "records_per_split"):
        _int(header.get(name), (f"{path}:{lines[0][0]}", name))
    if not 1 <= _int(header.get("max_concurrent_checkpoints", 1), (f"{path}:{lines[0][0]}", "max_concurrent_checkpoints")) <= 2:
        raise InputError(f"{path}:{lines[0][0]}", "max_concurrent_checkpoints", f"expected 1 or 2, got {header['max_concurrent_checkpoints']}")
    if not 1 <= header["parallelism"] <= 4:
        raise InputError(f"{path}:{lines[0][0]}", "parallelism", f"expected 1 to 4, got {header['parallelism']}")
    events = []
    last = 0
    for k, ln in lines[1:]:
        d = _json(path, k, ln)
        where = f"{path}:{k}"
        kind = d.get("event")
        if kind not in FIELDS:
            raise InputError(where, "event", f"expected one of {', '.join(FIELDS)}, got {json.dumps(kind)}")
        seq = _int(d.get("seq"), (where, "seq"))
        if seq <= last:
            raise InputError(where, "seq", f"expected more than the line before's {last}, got {seq}")
        last = seq
        task = d.get("task")
        if not isinstance(task, str) or not task:
            raise InputError(where, "task", f"expected a vertex name or {COORDINATOR!r}, got {json.dumps(task)}")
        subtask = _int(d.get("subtask", 0), (where, "subtask"))
        data = []
        spec = FIELDS[kind]
        for name, vkind in spec.items():
            optional = vkind.endswith("?")
            if name not in d:
                if optional:
                    continue
                raise InputError(where, name, f"missing (a {kind} event has {', '.join(spec)})")
            data.append((name, _value(vkind.rstrip("?"), d[name], (where, name))))
        extra = set(d) - set(spec) - {"seq", "event", "task", "subtask"}
        if extra:
            raise InputError(where, sorted(extra)[0], f"not a field of a {kind} event (it has {', '.join(spec) or 'none'})")
        events.append(Event(seq, kind, task, subtask, tuple(sorted(data)), k))
    return Run(str(path), header, tuple(events))


def _json(path, k: int, ln: str) -> dict:
    try:
        d = json.loads(ln)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}:{k}", "line", f"not JSON ({e.msg})") from None
    if not isinstance(d, dict):
        raise InputError(f"{path}:{k}", "line", f"expected a JSON object, got {type(d).__name__}")
    return d
