"""Trace validation: is a recorded run of real Flink a behaviour of the model?

The run (``checks.validate.runfile``) is a sequence of events from several threads: each subtask's and
the JobManager's.  The model's steps are mapped to the events they would record
(``_Observer``); a step that records nothing (an acknowledgement that does not complete a
checkpoint, EndOfData or EndOfPartition on its way, a source's end of input) may happen
anywhere.  The model's scope is the run's job, records and faults, with trigger RPCs that reach
each task on their own and may cross the notices sent before them (``Scope.rpcs_overtake``), and
the JobManager learns of a finished task a step later (``Scope.late_finish_reports``), as real
runs show.  The search is over
pairs (model world, position in each thread's events): from a pair, every enabled step is
taken; a step whose observations are the next events of their threads (as a set within one
thread, since one atomic step of the model is a few calls in Flink) advances those threads, a
step that records nothing keeps the positions, any other step is not this run.  The run is a
behaviour of the model if a pair with every thread at its end is reached.  The pair with the
most events matched is taken first; the search is still exhaustive (a rejection has searched
every pair), and a rejection is searched again breadth-first for the explanation's paths.

Only the order within each thread is checked, not the order across threads: the model orders
what is causal itself (a record is read after it was emitted, a commit follows a completion),
and the interleaving of independent threads in the recording is one of many.  What it can
hide: a real run in which one thread saw another's effect before the cause in the model's
terms would still be accepted if each thread's own sequence fits.

Where the model abstracts from Flink, the recording is normalized first, each rule stated in
``NORMALIZATIONS`` and listed in every result:

- the model records no empty transaction (``model.sinks``), so commits and aborts of empty
  ones are dropped;
- the model cancels a failed subtask's region in the failure's step (``FailoverStrategy.fail``)
  and, in validation's scopes (``Scope.suspend_on_failure``), aborts the pending checkpoints
  in the same step, unrecorded, without notices to the cancelled subtasks (a checkpoint that
  expires past the tolerable number fails the job over too); Flink cancels the other subtasks
  after the JobManager processed the failure, which first aborts the pending checkpoints
  (``CheckpointCoordinator.stopCheckpointScheduler``, CHECKPOINT_COORDINATOR_SUSPEND): the
  abort notices a subtask receives between its region's
  failure and its restart are dropped.  Its other events there are kept: the model must place
  them before the failure's step;
- aborts are not matched, only commits (what the outside sees): Flink's
  ``TwoPhaseCommitSinkFunction`` aborts the open transaction in ``close`` and the restored
  state's open one in ``initializeState``, and leaves a transaction pre-committed for a
  checkpoint that never completed to the external system; the model aborts every open
  transaction of a restored subtask at the restore (``model.sinks``);
- a subtask finishes in the model in the step that meets its last condition (its final
  checkpoint completed and known to it, its consumers done with its data); Flink first
  drains the task's mailbox (``StreamTask.afterInvoke``), so it can snapshot a checkpoint
  triggered meanwhile, and ignores the notifications it gets once it stopped running
  (``SubtaskCheckpointCoordinatorImpl.notifyCheckpoint``): a snapshot of a subtask the model
  has finished is matched without a step, and a completion notice to a subtask ready to
  finish may go unrecorded;
- a source's end of input, where a recording has one, is dropped: its task sends EndOfData
  from its mailbox after the source function returned, so a snapshot can come between;
- a second commit of a transaction (a restored pending transaction committed again by
  ``recoverAndCommit``, a no-op in the external system) is dropped where the recording names
  transactions, else matched without a step when the model already committed those records;
- the aborts of pending checkpoints by a failover (``CHECKPOINT_COORDINATOR_SUSPEND``,
  ``JOB_FAILOVER_REGION``, or any reason between a failure and the restart of its subtasks,
  such as the cancelled task's ``CHANNEL_STATE_SHARED_STREAM_EXCEPTION``) are dropped: the
  model aborts them in the failure's step, unrecorded;
- checkpoint ids are renumbered 1, 2, ... over the checkpoints some subtask snapshotted, and the
  events of the others are dropped: Flink takes an id before the trigger's checks and its
  ``Triggering checkpoint`` line (a trigger the failover suspends in between leaves a gap), the
  model numbers the checkpoints it triggers.  What it can hide: a checkpoint that no subtask
  ever snapshotted has no effect on any state, only on ids.
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass

from ckptcheck.model.actions import OPTIONAL, Deliver, Rescale, Restore
from ckptcheck.model.protocol import scope_conflict
from ckptcheck.model.scope import Scope
from ckptcheck.model.world import COMMITTABLE, COMMITTED, FAILED, FINISHED
from ckptcheck.specs.errors import InputError
from ckptcheck.specs.jobs import forward_pipeline, job_by_name, keyed_pipeline, sink_v2_pipeline
from ckptcheck.specs.spec import Spec

from .runfile import COORDINATOR, Event, Run

NORMALIZATIONS = (
    "commits and aborts of empty transactions dropped (the model records no empty transaction)",
    "abort notices a subtask receives between its region's failure and its restart, or of the checkpoints a user's cancellation aborts before a restart at another parallelism, dropped (the model aborts the pending checkpoints in the failure's step, without notices)",
    "aborts not matched, only commits (Flink leaves a transaction pre-committed for a checkpoint that never completed to the external system; the model aborts it at the restore)",
    "a snapshot of a subtask the model has finished matched without a step, and a completion notice to a subtask ready to finish may go unrecorded (Flink drains a finishing task's mailbox; the model finishes it at once)",
    "a second commit of a transaction dropped, by its id where the recording names it, else matched without a step (recoverAndCommit commits a restored transaction again, a no-op)",
    "a source's end of input dropped where a recording has one (its task sends EndOfData later, from its mailbox; the model's EndOfInput records nothing)",
    "aborts of pending checkpoints by a failover dropped (the model aborts them in the failure's step, unrecorded)",
    "aborts of pending checkpoints that a newer one subsumed dropped (CHECKPOINT_SUBSUMED: the model aborts them in the completion's step, unrecorded)",
    "checkpoint ids renumbered over the checkpoints some subtask snapshotted; events of the others dropped (Flink takes an id before the trigger's checks); a job restarted at another parallelism numbers on from the checkpoint it restored, so its ids are moved past the first job's (the model keeps counting)",
)

# which operator calls each job's operators record: vertex -> the notifications recorded
# (TwoPhaseCommitSinkFunction.notifyCheckpointComplete is final: a sink records its commits only)
# what each vertex of a recorded job records (``checks/validate/runs/RecordedJob.java``): a model step's
# observation of another kind at that vertex records nothing.  TwoPhaseCommitSinkFunction's
# notifyCheckpointComplete is final (a sink records its commits); a Sink V2 writer has no state
# (no start, no snapshot) and its committer no snapshot hook
_SOURCE = frozenset({"start", "emit", "snapshot", "notify-complete", "notify-abort"})
_2PC_SINK = frozenset({"start", "invoke", "snapshot", "notify-abort", "commit", "end-of-input", "fail"})
RECORDED = {
    "forward": {"source": _SOURCE, "sink": _2PC_SINK},
    "keyed-to-one": {"source": _SOURCE, "sink": _2PC_SINK},
    "keyed-rescale": {"source": _SOURCE, "sink": _2PC_SINK},
    "keyed-restart-aligned": {"source": _SOURCE, "sink": _2PC_SINK},
    "keyed-incremental": {"source": _SOURCE, "sink": _2PC_SINK | {"base-pruned"}},
    "sink-v2": {"source": _SOURCE, "writer": frozenset({"invoke", "prepare-commit", "end-of-input", "fail"}),
                "committer": frozenset({"start", "commit"})},
}
# the preset that is Flink as released in each checkpointing mode of a recording
PRESET_OF_MODE = {"aligned": "flink-baseline", "unaligned": "flink-unaligned", "timeout": "flink-unaligned-timeout"}


def preset_for(run: Run) -> str:
    """The preset a run is validated against when no design is named: Flink as released, in the
    run's checkpointing mode (with incremental checkpoints for a ``keyed-incremental`` run)."""
    if run.job == "keyed-incremental":
        return "flink-incremental"
    return PRESET_OF_MODE[run.mode.split(":")[0]]


def design_for(run: Run, design):
    """``design`` (the preset ``preset_for`` names, where none is given) with the run's
    ``max_concurrent_checkpoints``."""
    from ckptcheck.specs.designs import PRESETS

    d = design if design is not None else PRESETS[preset_for(run)]
    n = run.max_concurrent_checkpoints
    if n == d.max_concurrent_checkpoints:
        return d
    return d.with_(name=f"{d.name} (max-concurrent-checkpoints {n})", max_concurrent_checkpoints=n)
COORD = (COORDINATOR, 0)


# the scope options of Flink's runtime that validation's scopes turn on (a run may be searched with
# one off, to show that the run needs it)
RUNTIME_OPTIONS = ("rpcs_overtake", "late_finish_reports", "rescaled_tasks_decline", "suspend_on_failure")


def scope_of(run: Run, **runtime: bool) -> Scope:
    """The model's scope for ``run``: its job at its parallelism and records, checkpoints up to
    the highest id recorded, and the faults it recorded (nothing more).  Trigger RPCs reach the
    sources one at a time, as they do in Flink, so that a source that is closing can decline
    one (CHECKPOINT_DECLINED_TASK_CLOSING, ``TriggerAfterClose``), and a trigger and a notice
    to one task may arrive in either order (``Scope.rpcs_overtake``), and a trigger may reach a
    source that finished before the JobManager saw it (``Scope.late_finish_reports``); a
    failure aborts the pending checkpoints and stops the scheduler until every subtask runs
    again (``Scope.suspend_on_failure``, the recordings' CHECKPOINT_COORDINATOR_SUSPEND).  A
    ``keyed-rescale`` run is the keyed job that the user may restart once with the sink at
    parallelism 2 (``Scope.rescale``), whose rescaled subtasks decline a checkpoint until their
    channel state is read (``Scope.rescaled_tasks_decline``); a ``keyed-restart-aligned`` run
    is the one the user restarts once at parallelism 1 with unaligned checkpoints off
    (``Scope.restart_aligned``).  ``runtime`` turns one of
    ``RUNTIME_OPTIONS`` off (each is on by default)."""
    unknown = set(runtime) - set(RUNTIME_OPTIONS)
    if unknown:
        raise TypeError(f"scope_of: not a runtime option: {', '.join(sorted(unknown))}")
    on = {k: runtime.get(k, True) for k in RUNTIME_OPTIONS}
    ids = [e.get("checkpoint") for e in _rescale_ids(run.events) if e.get("checkpoint") is not None]
    fails = sum(1 for e in run.events if e.kind == "fail")
    declines = sum(1 for e in run.events if e.kind == "aborted" and abort_kind(e.get("reason")) == "declined")
    timeouts = sum(1 for e in run.events if e.kind == "aborted" and abort_kind(e.get("reason")) == "expired")
    p = run.parallelism
    if run.job == "forward":
        job, name = forward_pipeline(p), f"forward-{p}x{p}"
    elif run.job == "sink-v2":
        job, name = sink_v2_pipeline(p, global_committer=False), f"sink-v2-{p}"
    else:
        job, name = (keyed_pipeline(1), "keyed-1x1") if p == 1 else (job_by_name(f"keyed-{p}x1"), f"keyed-{p}x1")
    rescale = (("sink", 2),) if run.job == "keyed-rescale" else ()
    restart_aligned = run.job == "keyed-restart-aligned"
    return Scope(job=job, job_name=name, records_per_split=run.records_per_split,
                 bounded=True, max_checkpoints=max(ids, default=1), max_failures=fails, max_declines=declines,
                 max_timeouts=timeouts, max_lost_notifications=0, staggered_triggers=True,
                 rpcs_overtake=on["rpcs_overtake"], late_finish_reports=on["late_finish_reports"],
                 suspend_on_failure=on["suspend_on_failure"], rescale=rescale,
                 max_rescales=len(rescale) or int(restart_aligned), restart_aligned=restart_aligned,
                 rescaled_tasks_decline=on["rescaled_tasks_decline"] and bool(rescale))


# CheckpointFailureReason -> what the model does: a timeout, a decline, or the failover's own abort
# (in the failure's step, unrecorded); any other reason is kept as itself, which no model step records
_ABORTS = {"CHECKPOINT_EXPIRED": "expired", "TASK_CHECKPOINT_FAILURE": "declined", "CHECKPOINT_DECLINED": "declined",
           "CHECKPOINT_DECLINED_TASK_CLOSING": "declined", "CHECKPOINT_DECLINED_TASK_NOT_READY": "declined",
           "CHECKPOINT_COORDINATOR_SUSPEND": "failover", "JOB_FAILOVER_REGION": "failover", "TASK_FAILURE": "failover",
           "CHECKPOINT_COORDINATOR_SHUTDOWN": "failover",
           # a newer checkpoint completed: the model aborts the older pending one in that step
           "CHECKPOINT_SUBSUMED": "subsumed",
           # a subtask's channel state shares a file with others: one's decline fails the others' writes
           "CHANNEL_STATE_SHARED_STREAM_EXCEPTION": "declined"}


def abort_kind(reason: str | None) -> str:
    """What an ``aborted`` event's ``CheckpointFailureReason`` is to the model."""
    return _ABORTS.get(reason or "", reason or "")


def _key(e: Event) -> tuple:
    """What the model's step must record to match ``e``."""
    k = e.kind
    if k == "start":
        return ("start", e.get("restored"), e.get("position"))
    if k in ("emit", "invoke"):
        return (k, e.get("record"))
    if k == "snapshot":
        return ("snapshot", e.get("checkpoint"), e.get("position"), e.get("precommit"))
    if k == "prepare-commit":
        return (k, tuple(sorted(e.get("records"))))  # the model's writer keeps its records sorted
    if k in ("commit", "abort"):
        return (k, tuple(sorted(e.get("records"))) if e.task == "committer" else e.get("records"))
    if k == "fail":
        return ("fail",)
    if k in ("job-finished", "end-of-input", "ack-refused"):
        return (k,)
    if k == "base-pruned":  # the files' number is not compared: the model's upload is one file
        return (k, e.get("checkpoint"), e.get("base"))
    if k == "aborted":
        return ("aborted", e.get("checkpoint"), abort_kind(e.get("reason")))
    return (k, e.get("checkpoint"))


def normalize(run: Run, spec: Spec) -> dict[tuple, list[Event]]:
    """Per thread, the events the model must produce in order (see ``NORMALIZATIONS``).  A run
    that names a subtask the model's job does not have, or whose operators do not start fresh,
    is bad input (:class:`InputError`)."""
    configs = [_Threads(c) for c in spec.model.configs]
    threads = list(dict.fromkeys(th for c in configs for th in c.thread))  # the job's own first, in order
    sources = {c.thread[t] for c in configs for t in c.sources}
    names = [n for c in configs for n in c.m.topo.names]
    rescaled = next((e.seq for e in run.events if e.kind == "rescale"), None)
    cancelled = {e.get("checkpoint") for e in run.events if rescaled is not None and e.seq < rescaled
                 and e.kind == "aborted" and abort_kind(e.get("reason")) == "failover"}
    events = _renumbered(_first_commits([e for e in run.events if e.kind != "abort" and not (e.kind == "commit" and not e.get("records"))
                                         and not (e.kind == "aborted" and abort_kind(e.get("reason")) in ("failover", "subsumed"))
                                         and not (e.kind == "notify-abort" and e.seq < (rescaled or 0)
                                                  and e.get("checkpoint") in cancelled)]))
    # the failure windows: (seq of the fail, the failed subtask's thread, the region's threads)
    windows = []
    for e in events:
        if e.kind == "fail":
            c = configs[1 if rescaled is not None and e.seq > rescaled else 0]
            t = c.task_of.get(e.thread)
            if t is None:
                continue  # refused below, as every event of an unknown subtask
            windows.append((e.seq, e.thread, {c.thread[v] for v in c.m.failover.tasks_to_restart(t)}))
        elif e.kind == "aborted" and abort_kind(e.get("reason")) == "expired":
            # a checkpoint past the tolerable failures fails the job over: every subtask that restarts
            later = {x.thread for x in events if x.kind == "start" and x.seq > e.seq}
            windows.append((e.seq, e.thread, later))
    out: dict[tuple, list[Event]] = {th: [] for th in threads}
    out[COORD] = []
    open_until_start: dict[tuple, int] = {}  # thread -> seq of the failure whose window it is in
    for e in events:
        th = e.thread
        if th not in out:
            raise InputError(f"{run.path}:{e.line}", "task", f"expected a subtask of the model's job {spec.scope.job_name}"
                             f" ({', '.join(dict.fromkeys(names))}) or {COORDINATOR!r}, got {e.task}[{e.subtask}]")
        for seq, _, victims in windows:
            if seq == e.seq:
                for v in victims:
                    if "start" in RECORDED[run.job].get(v[0], ()):  # a window closes at the subtask's restart
                        open_until_start[v] = seq
        if th in open_until_start and e.kind != "fail":
            if e.kind == "start":
                del open_until_start[th]
            elif e.kind == "notify-abort":
                continue
        if e.kind == "end-of-input" and th in sources:
            continue  # a source's EndOfData leaves from its mailbox later: the model's EndOfInput records nothing
        if e.kind == "aborted" and th == COORD and open_until_start and abort_kind(e.get("reason")) != "expired":
            continue  # a checkpoint the failover aborts (its tasks cancelled): the model aborts it in the failure's step
        out[th].append(e)
    for th, evs in out.items():
        if th == COORD or "start" not in RECORDED[run.job].get(th[0], ()) or th not in configs[0].task_of:
            continue  # a subtask only the rescaled job has starts at the rescale
        if not evs and not run.events:
            raise InputError(run.path, "events", "the run records no event after its header (a run records every"
                             " operator's start, at least)")
        if not evs or evs[0].kind != "start":
            raise InputError(run.path, f"{th[0]}[{th[1]}]", "its first event must be a start (the run records every operator's initialization)")
        first = evs.pop(0)
        if first.get("restored") != 0 or first.get("position", 0) != 0:
            raise InputError(f"{run.path}:{first.line}", "start", "expected a fresh start (restored 0, position 0): a run is validated from the job's beginning")
    return out


def _first_commits(events: list[Event]) -> list[Event]:
    """``events`` without the second commit of a transaction (by its id, where the recording
    gives one): ``recoverAndCommit`` commits a restored pending transaction again, which the
    external system takes as a no-op and the model records no step for."""
    seen: set = set()
    out = []
    for e in events:
        if e.kind == "commit" and e.get("txn") is not None:
            key = (e.thread, e.get("txn"))
            if key in seen:
                continue
            seen.add(key)
        out.append(e)
    return out


def _rescale_ids(events) -> list[Event]:
    """``events`` with the ids of a job restarted by the user at another parallelism (after its
    ``rescale`` event) moved past the first job's: Flink's restarted job numbers on from the
    checkpoint it restored, so it reuses the ids of the first job's checkpoints after that one,
    where the model's coordinator keeps counting."""
    at = next((k for k, e in enumerate(events) if e.kind == "rescale"), None)
    if at is None:
        return list(events)
    first = max((e.get("checkpoint") or 0 for e in events[:at]), default=0)
    shift = first - events[at].get("checkpoint")
    out = list(events[:at + 1])
    for e in events[at + 1:]:
        d = dict(e.data)
        if "checkpoint" in d:
            d["checkpoint"] += shift
        out.append(Event(e.seq, e.kind, e.task, e.subtask, tuple(sorted(d.items())), e.line))
    return out


def _renumbered(events) -> list[Event]:
    """``events`` with checkpoint ids renumbered densely over the snapshotted ones (see the
    module docstring); the events of other ids dropped."""
    events = _rescale_ids(events)
    ids = sorted({e.get("checkpoint") for e in events if e.kind == "snapshot"})
    new = {cp: k for k, cp in enumerate(ids, 1)}
    new[0] = 0
    out = []
    for e in events:
        d = dict(e.data)
        if "checkpoint" in d:
            if d["checkpoint"] not in new:
                continue
            if new[d["checkpoint"]] != d["checkpoint"]:
                d["flink_checkpoint"] = d["checkpoint"]
            d["checkpoint"] = new[d["checkpoint"]]
        for name in ("restored", "base"):
            if name in d:
                d[name] = new.get(d[name], d[name])
        out.append(Event(e.seq, e.kind, e.task, e.subtask, tuple(sorted(d.items())), e.line))
    return out


def _finished(c: _Threads, w, th: tuple) -> bool:
    """Is thread ``th``'s subtask FINISHED in ``w`` (at ``w``'s parallelism)?"""
    x = c.task_of.get(th)
    return x is not None and w.tasks[x].status == FINISHED


def _appended(old: tuple, new: tuple) -> tuple:
    """The items a step pushed onto a channel (its head may have been taken in the same step),
    or () when the channel was reset (a failover, a restore)."""
    if new[:len(old)] == old:
        return new[len(old):]
    if old and new[:len(old) - 1] == old[1:]:
        return new[len(old) - 1:]
    return ()


class _Threads:
    """The recorded threads of one parallelism configuration of the model (a ``Rescale``
    switches configuration): subtask -> (vertex name, subtask index), and back."""

    def __init__(self, m):
        topo = m.topo
        self.m = m
        self.thread = tuple((topo.job.vertices[topo.vertex_of[t]].name, topo.index_of[t]) for t in range(len(topo.names)))
        self.task_of = {th: t for t, th in enumerate(self.thread)}
        self.sources = frozenset(topo.sources)
        # who records a transaction's commit: its owner, or for a Sink V2 writer its committer
        self.committer = {t: next((c.consumer for c in topo.channels if c.producer == t), t) if m.sink_v2[t] == "writer" else t
                          for t in range(len(topo.names))}


class _Observer:
    """What a model step records, per thread: ``observe(w, a, t)`` -> [(thread, key), ...]."""

    def __init__(self, spec: Spec, job: str):
        m = spec.model
        self.m = m
        self.configs = tuple(_Threads(c) for c in m.configs)
        self.recorded = RECORDED[job]
        # a transaction's owner (its global id, stable across a rescale) -> the thread that commits it
        self.commit_thread = {c.m.gid[t]: c.thread[c.committer[t]] for c in self.configs for t in range(len(c.thread))}
        self.threads = frozenset(th for c in self.configs for th in c.thread)
        self.sink_v2 = {c.m.gid[t]: c.m.sink_v2[t] for c in self.configs for t in range(len(c.thread))}

    def at(self, w) -> _Threads:
        """The threads of the configuration ``w`` runs at."""
        return self.configs[w.used.rescales & 1] if len(self.configs) > 1 else self.configs[0]

    def records(self, thread: tuple, kind: str) -> bool:
        """Does ``thread``'s vertex record events of ``kind``?"""
        return thread == COORD or kind in self.recorded.get(thread[0], ())

    def observe(self, w, a, t) -> list[tuple]:
        return [(th, key) for th, key in self._observe(w, a, t) if self.records(th, key[0])]

    def _observe(self, w, a, t) -> list[tuple]:
        c = self.at(w)
        m = c.m
        thread = c.thread
        out: list[tuple] = []
        kind = type(a)
        if kind is Rescale:
            return self._rescaled(w, t)
        out.extend((COORD if x is None else thread[x], key) for x, key in a.observed(m, w))
        if a.state_observed:
            wt, tt = w.tasks, t.tasks
            done = {c.id for c in t.coord.store}
            # checkpoints aborted in this step: a subtask that declines a barrier (a rescaled one
            # still recovering, a cancellation marker) moves past it without a snapshot
            gone = {p.id for p in w.coord.pending} - {p.id for p in t.coord.pending} - done
            for x in range(len(tt)):
                before, after = wt[x], tt[x]
                if before is after:
                    continue
                if kind is Restore and before.status == FAILED and after.status != FAILED and not after.finished_on_restore:
                    out.append(self._start(c, w, x, after))
                if after.ended and not before.ended and x not in c.sources and kind is not Restore:
                    out.append((thread[x], ("end-of-input",)))
                if after.last_barrier != before.last_barrier and after.status != FAILED and kind is not Restore \
                        and not (kind is Deliver and after.last_barrier in gone):
                    cp = after.last_barrier
                    if x in c.sources:
                        out.append((thread[x], ("snapshot", cp, before.position, None)))
                    else:
                        new = [p for p in after.pending if p not in before.pending]
                        recs = ()
                        for _, seq in new:
                            txn = next((y for y in t.txns if y.task == m.gid[x] and y.seq == seq), None)
                            recs = txn.records if txn else ()
                        out.append((thread[x], ("snapshot", cp, None, recs)))
                        if m.registry.active and set(m.registry.unpruned_upload(before)) - set(m.registry.confirmed_upload(before, x)):
                            out.append((thread[x], ("base-pruned", cp, before.confirmed)))
            for x in range(len(tt)):  # a Sink V2 writer's committable, handed on in this step
                if m.sink_v2[x] == "writer":
                    for ch in m.all_out[x]:
                        old, new = w.channels[ch], t.channels[ch]
                        for item in () if new is old else _appended(old, new):
                            if item[0] == COMMITTABLE:
                                out.append((thread[x], ("prepare-commit", tuple(sorted(item[2][1])))))
            if kind is Deliver:
                # a barrier its consumer declines: the checkpoint aborts in this step
                out.extend((COORD, ("aborted", cp, "declined")) for cp in sorted(gone))
        out.extend(self._completions_and_commits(w, t))
        return out

    @staticmethod
    def _start(c: _Threads, w, x: int, after) -> tuple:
        """Subtask ``x`` of configuration ``c`` starts from the latest completed checkpoint."""
        store = w.coord.store
        restored = store[-1].id if store else 0
        return (c.thread[x], ("start", restored, after.position if x in c.sources else None))

    def _rescaled(self, w, t) -> list[tuple]:
        """``Rescale``: the user's restart from the latest checkpoint at the other parallelism
        (the ``rescale`` event), every subtask of the new job starting, and the commits of the
        restore."""
        c = self.at(t)
        out = [(COORD, ("rescale", w.coord.store[-1].id))]
        out.extend(self._start(c, w, x, ts) for x, ts in enumerate(t.tasks)
                   if ts.status != FAILED and not ts.finished_on_restore)
        out.extend(self._completions_and_commits(w, t))
        return out

    def _completions_and_commits(self, w, t) -> list[tuple]:
        out: list[tuple] = []
        if t.coord.store is not w.coord.store:
            had = {c.id for c in w.coord.store}
            out.extend((COORD, ("completed", c.id)) for c in t.coord.store if c.id not in had)
        if t.txns is not w.txns:
            before = {(x.task, x.seq): x for x in w.txns}
            for k, x in {(x.task, x.seq): x for x in t.txns}.items():
                old = before.get(k)
                if x.status == COMMITTED and (old is None or old.status != COMMITTED):
                    th = self.commit_thread[x.task]
                    out.append((th, ("commit", tuple(sorted(x.records)) if self.sink_v2[x.task] else x.records)))
        return out


@dataclass
class Mismatch:
    """Where the search got furthest: the events matched, the model's steps that matched them
    (unrecorded steps included), the next event of each thread, and per model step enabled
    there what it would record and which of the run's next events refuses it."""

    matched: int
    path: list[str]
    next_events: list[Event]
    world: str
    steps: list[str]
    silent: int  # enabled steps that record nothing (the search took them too)


@dataclass
class ValidationResult:
    run: str
    design: str
    scope: str
    events: int
    validated: bool
    complete: bool  # the search ended by itself (not at a bound)
    states: int
    elapsed: float
    mismatch: Mismatch | None = None
    normalizations: tuple[str, ...] = NORMALIZATIONS
    witnesses: tuple[str, ...] = ()  # validated: the witnesses the matching model run hits (what it exercised)


def check_design(run: Run, design, **runtime: bool) -> None:
    """:class:`InputError` (one line) if ``design`` cannot be checked in ``run``'s scope, before
    any search (a null-state design on a job without a recomputable operator, ...)."""
    why = scope_conflict(design, scope_of(run, **runtime))
    if why:
        raise InputError(run.path, "--design", f"{design.name} cannot be checked in this run's scope: {why}")


def validate(run: Run, design, *, max_states: int = 2_000_000, **runtime: bool) -> ValidationResult:
    """Search the model for a behaviour that records ``run`` (see the module docstring).
    ``runtime`` turns one of ``RUNTIME_OPTIONS`` off, as most preset scopes have them:
    ``rpcs_overtake`` False keeps each task's RPCs in order, ``late_finish_reports`` False lets
    the JobManager see a finish at once, ``rescaled_tasks_decline`` False lets a rescaled subtask
    take a checkpoint while it recovers (real runs show none of the three holds), and
    ``suspend_on_failure`` False keeps a pending checkpoint until the restore (more behaviours
    than Flink 2.3 has)."""
    started = time.perf_counter()
    check_design(run, design, **runtime)
    scope = scope_of(run, **runtime)
    spec = Spec(design, scope, symmetry=False)
    threads = normalize(run, spec)
    order = sorted(threads)
    lists = [threads[th] for th in order]
    keys = [[_key(e) for e in evs] for evs in lists]
    total = sum(len(x) for x in lists)
    res = ValidationResult(run.path, design.name, scope.describe(), total, False, False, 0, 0.0)
    index = {th: k for k, th in enumerate(order)}
    obs = _Observer(spec, run.job)

    def stutter(w, pos: tuple) -> tuple:
        """Consume the events that need no step: commits already made, the job's end."""
        pos = list(pos)
        moved = True
        while moved:
            moved = False
            for k, th in enumerate(order):
                if pos[k] >= len(keys[k]):
                    continue
                key = keys[k][pos[k]]
                if key[0] == "commit" and th != COORD:
                    if committed(w, th, key[1]):
                        pos[k] += 1
                        moved = True
                elif key[0] == "job-finished" and all(ts.status == FINISHED for ts in w.tasks):
                    pos[k] += 1
                    moved = True
                elif key[0] == "snapshot" and th != COORD and _finished(obs.at(w), w, th):
                    pos[k] += 1  # a finishing task's snapshot while it drains its mailbox
                    moved = True
        return tuple(pos)

    owners = {th: [g for g, cth in obs.commit_thread.items() if cth == th] for th in obs.threads}

    def committed(w, th: tuple, records: tuple) -> bool:
        """Has ``w`` a committed transaction with ``records`` that ``th`` commits (its own, or a
        Sink V2 committer's writer's)?"""
        return any(x.task in owners[th] and x.status == COMMITTED and tuple(sorted(x.records)) == tuple(sorted(records))
                   for x in w.txns)

    def take(w, k: int, at: int, n: int) -> tuple[list, int]:
        """The next ``n`` events of thread ``k`` from ``at`` a step must record, and the position
        after them; commits of records ``w`` already committed are passed over (a recovered
        transaction committed again, where the recording does not name transactions)."""
        got = []
        th = order[k]
        while len(got) < n and at < len(keys[k]):
            key = keys[k][at]
            at += 1
            if key[0] == "commit" and th != COORD and committed(w, th, key[1]):
                continue
            got.append(key)
        return got, at

    def advance(w, pos, a, t):
        """The pair after step ``a`` (to ``t``) from (``w``, ``pos``), or None if the step records
        an event that is not its thread's next."""
        o = obs.observe(w, a, t)
        if not o:
            return (t, stutter(t, pos))
        npos = list(pos)
        by: dict[int, list] = {}
        for th, key in o:
            k = index.get(th)
            if k is None:
                return None
            by.setdefault(k, []).append(key)
        for k, got in by.items():
            need = [x for x in got if x[-1] != OPTIONAL]
            want, npos[k] = take(w, k, pos[k], len(need))
            if sorted(want, key=repr) != sorted(need, key=repr):
                return None
            for x in got:  # an optional observation is matched if it is the thread's next event
                if x[-1] == OPTIONAL and npos[k] < len(keys[k]) and keys[k][npos[k]] == x[:-1]:
                    npos[k] += 1
        return (t, stutter(t, tuple(npos)))

    def search(greedy: bool):
        """Every pair reachable from the initial ones, up to ``max_states``: the pair with every
        thread at its end, if reached; whether the search ended by itself; the parents; and up to
        three pairs that matched the most events.  ``greedy`` takes the pair with the most events
        matched first (a run that is a behaviour is found long before the space is exhausted);
        otherwise breadth-first, so that the furthest pairs' paths are shortest (the explanation
        of a rejection)."""
        start = [(w, stutter(w, (0,) * len(order))) for w in spec.initial_states()]
        seen = set(start)
        parents: dict = {x: None for x in start}
        ticket = itertools.count()
        heap = [((-sum(x[1]) if greedy else 0), next(ticket), x) for x in start]
        best, frontier = -1, []
        while heap:
            _, _, (w, pos) = heapq.heappop(heap)
            done = sum(pos)
            if done == total:
                return (w, pos), True, seen, parents, frontier, best
            if done > best:
                best, frontier = done, [(w, pos)]
            elif done == best and len(frontier) < 3:
                frontier.append((w, pos))
            for a, t in spec.successors(w):
                nxt = advance(w, pos, a, t)
                if nxt is None or nxt in seen:
                    continue
                seen.add(nxt)
                parents[nxt] = ((w, pos), a)
                heapq.heappush(heap, ((-sum(nxt[1]) if greedy else 0), next(ticket), nxt))
                if len(seen) >= max_states:
                    return None, False, seen, parents, frontier, best
        return None, True, seen, parents, frontier, best

    found, res.complete, seen, parents, frontier, best = search(greedy=True)
    res.states = len(seen)
    if found is not None:
        res.validated = True
        res.witnesses = _witnesses(spec, parents, found)
    elif res.complete:  # not a behaviour: search again breadth-first for the shortest paths to show
        _, _, _, parents, frontier, best = search(greedy=False)
        res.mismatch = _explain(spec, obs, order, lists, keys, frontier, best, parents)
    res.elapsed = time.perf_counter() - started
    return res


def _witnesses(spec: Spec, parents: dict, node) -> tuple[str, ...]:
    """The ``sometimes`` properties the model run ending at ``node`` hits: which mechanisms the
    validated run went through, in the model's terms."""
    steps = []
    while parents.get(node) is not None:
        prev, a = parents[node]
        steps.append((prev[0], a, node[0]))
        node = prev
    hit = []
    for prop, check in spec.sometimes:
        if any(check(w, a, t) is not None for w, a, t in reversed(steps)):
            hit.append(prop.name)
    return tuple(hit)


def show(th: tuple, key: tuple) -> str:
    """A model observation in the words of ``Event.describe``."""
    who = "JobManager" if th == COORD else f"{th[0]}[{th[1]}]"
    if key[-1] == OPTIONAL:
        return show(th, key[:-1]) + " (or nothing)"
    kind = key[0]
    if kind == "start":
        fields = [("restored", key[1])] + ([("position", key[2])] if key[2] is not None else [])
    elif kind in ("emit", "invoke"):
        fields = [("record", key[1])]
    elif kind == "snapshot":
        fields = [("checkpoint", key[1])] + ([("position", key[2])] if key[2] is not None else [("precommit", key[3])])
    elif kind in ("commit", "abort"):
        fields = [("records", key[1])]
    elif kind == "aborted":
        fields = [("checkpoint", key[1]), ("as", key[2])]
    elif len(key) > 1:
        fields = [("checkpoint", key[1])]
    else:
        fields = []
    text = ", ".join(f"{k}={_show_value(v)}" for k, v in fields)
    return f"{who} {kind}" + (f" ({text})" if text else "")


def _show_value(v) -> str:
    if isinstance(v, tuple):
        return "[" + ", ".join(_show_value(x) for x in v) + "]"
    return str(v)


def _explain(spec: Spec, obs: _Observer, order, lists, keys, frontier, best: int, parents: dict) -> Mismatch:
    w, pos = frontier[0]
    path = []
    node = (w, pos)
    while parents.get(node) is not None:
        node, a = parents[node]
        path.append(spec.describe_action(a, node[0].used.rescales))  # named at the parallelism it is taken at
    path.reverse()
    index = {th: k for k, th in enumerate(order)}
    nexts = [lists[k][pos[k]] for k in range(len(order)) if pos[k] < len(lists[k])]
    steps = []
    silent = 0
    for a, t in spec.successors(w):
        o = obs.observe(w, a, t)
        if not o:
            silent += 1
            continue
        refused = []
        for th, key in o:
            k = index.get(th)
            if k is None or pos[k] >= len(lists[k]):
                refused.append(f"the run has no further event of {show(th, key).split(' ')[0]}")
            elif keys[k][pos[k]] != key and key[-1] != OPTIONAL:
                refused.append(f"its next is {lists[k][pos[k]].describe()}")
        said = "; ".join(show(th, key) for th, key in o)
        steps.append(f"{spec.describe_action(a, w.used.rescales)} records {said}" + (f", but {'; '.join(refused)}" if refused else ""))
    return Mismatch(best, path, nexts, _describe_world(spec, w), steps, silent)


def _describe_world(spec: Spec, w) -> str:
    names = spec.model.at(w).topo.names
    status = ("RUNNING", "FAILED", "FINISHED")
    tasks = ", ".join(f"{names[x]} {status[ts.status]}" for x, ts in enumerate(w.tasks))
    pending = ", ".join(str(p.id) for p in w.coord.pending) or "none"
    store = ", ".join(str(c.id) for c in w.coord.store) or "none"
    return f"{tasks}; pending checkpoints {pending}; completed {store}"


def describe(res: ValidationResult) -> list[str]:
    """The result in lines, as ``ckptcheck validate`` prints it."""
    out = [f"run      {res.run}", f"design   {res.design}", f"scope    {res.scope}",
           f"rules    the recording normalized by the {len(res.normalizations)} stated abstractions of the model"
           " (checks/validate/matching.py NORMALIZATIONS, docs/pages/validate.md)"]
    if res.validated:
        out.append(f"validated: {res.events} events, {res.states:,} model states searched ({res.elapsed:.2f}s)")
        out.append(f"  the model run that records them hits: {', '.join(res.witnesses) or 'no witness'}")
        return out
    if not res.complete:
        out.append(f"not settled: no model run recording these {res.events} events found in {res.states:,} states"
                   f" (the search stopped at its bound; incomplete)")
        return out
    mm = res.mismatch
    out.append(f"not a behaviour of the model: every model run stops matching after {mm.matched} of {res.events} events"
               f" ({res.states:,} states, searched to the end)")
    out.append(f"  a model run matching the most ({len(mm.path)} steps): {', '.join(mm.path) or 'none'}")
    out.append(f"  there: {mm.world}")
    out.append("  the run's next events:")
    out += [f"    {e.describe()} (line {e.line})" for e in mm.next_events]
    out.append(f"  the model's steps there ({mm.silent} more record nothing):")
    out += [f"    {s}" for s in mm.steps]
    return out
