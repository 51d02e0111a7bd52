"""The properties and witnesses of regional checkpoints (FLIP-600, PRs #28963 and #28964): the
bounded refCheckpointId chain, and the split enumerator's and union state's properties that a
failed region's fallback puts at risk (each split held once, read once, one epoch per union
state; they apply to every design whose job has a split enumerator or epoch state); then the
witnesses of regional completions, forced global checkpoints, timeouts that complete regionally,
and a split returned to the live enumerator (the rows each docstring cites)."""

from __future__ import annotations

from functools import lru_cache

from ckptcheck.model.actions import Ack, Decline, JobManagerFailover, LastAck, Rescale, Restore, Timeout
from ckptcheck.model.coordinator import pending_of
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.regional import RegionalCheckpointHandler, ref_chain
from ckptcheck.model.topology import StateKind
from ckptcheck.model.world import FAILED, FINISHED, RUNNING, Completed, World

from ..property import _first_over_store, rec


# -- always ------------------------------------------------------------------------------------
def split_ownership(m: FlinkModel, w: World) -> str | None:
    """In every retained checkpoint each enumerator split is in exactly one place: unassigned in
    the enumerator's state or held by one reader; or nowhere once read to the end, which needs
    its records in the downstream state (the FLIP-600 thread: checkpointCoordinatorForRegionFallback "to
    produce consistent snapshots against the mixed view")."""
    return _first_over_store(m, w, _ownership_verdict) if m.enumerator.readers else None


@lru_cache(maxsize=4096)
def _ownership_verdict(m: FlinkModel, c: Completed) -> str | None:
    names = m.topo.names
    downstream = [s for t, s in enumerate(c.snapshots) if m.stateful[t]]
    for sp in m.enumerator.all_splits:
        holders = [names[t] for t, s in enumerate(c.snapshots) if t in m.enumerator.readers and s.split == sp]
        if sp in c.enum:
            holders.insert(0, "the split enumerator (unassigned)")
        if len(holders) > 1:
            return f"checkpoint {c.id} gives split {sp} to both {holders[0]} and {holders[1]}: a restore reads it twice"
        if holders or not downstream or any(s.finished for s in downstream):
            continue  # no stateful task downstream (a job of readers alone): the records go nowhere
        for off in range(m.scope.records_per_split):
            if not any((sp, off) in s.processed for s in downstream):
                return (
                    f"checkpoint {c.id} has split {sp} neither unassigned in the enumerator nor held by"
                    f" a reader, yet record {rec((sp, off))} is in no downstream state: a restore never reads it"
                )
    return None


def union_epoch_agreed(m: FlinkModel, w: World) -> str | None:
    """Every retained checkpoint gives a vertex with epoch state one epoch: each subtask's union
    list entry is the id of the checkpoint it snapshotted (``StateKind.EPOCH``), so in a
    checkpoint every task took part in they are all equal, and a restore shows each subtask the
    same agreed value.  A regional checkpoint whose failed region falls back composes a view no
    run of global checkpoints has (Roman, dev@ 3 Jul 2026: "{100, 101}"; row B18)."""
    store = w.coord.store
    for c in store:
        why = _epoch_verdict(m.model_of(c), c, store)
        if why:
            return why
    return None


def snapshot_origin(by_id: dict, c: Completed, t: int) -> int:
    """The id of the checkpoint in which subtask ``t``'s snapshot in ``c`` was taken: its own
    id, or the checkpoint its refCheckpointId leads to (followed through the store, ``by_id``,
    since a fallback may itself be a fallback)."""
    seen = c
    while seen.refs and seen.refs[t]:
        nxt = by_id.get(seen.refs[t])
        if nxt is None:
            return seen.refs[t]
        seen = nxt
    return seen.id


@lru_cache(maxsize=4096)
def _epoch_verdict(m: FlinkModel, c: Completed, store: tuple) -> str | None:
    topo = m.topo
    by_id = {x.id: x for x in store}
    for v, vertex in enumerate(topo.job.vertices):
        if StateKind.EPOCH not in vertex.state:
            continue
        entries = [(topo.names[t], snapshot_origin(by_id, c, t)) for t in topo.tasks_of[v]
                   if not c.snapshots[t].finished]
        epochs = sorted({e for _, e in entries})
        if len(epochs) > 1:
            who = ", ".join(f"{n} from checkpoint {e}" for n, e in entries)
            return (f"checkpoint {c.id} gives the union state of {vertex.name} the view"
                    f" {{{', '.join(map(str, epochs))}}} ({who}): no checkpoint every subtask took part in holds two"
                    " epochs, and a restore shows each subtask both")
    return None


def split_read_once(m: FlinkModel, w: World) -> str | None:
    """No split is held by two running readers at once.  A reader keeps the split it was given
    until it asks for the next one, so a second holder means the enumerator handed the split
    out again while (or after) the first reader read it: its records are read twice.  Every
    path by which a split returns to the enumerator in Flink restarts its reader first
    (``subtaskReset`` -> ``addSplitsBack``); PR #28963's fallback does not (row B12)."""
    readers = m.enumerator.readers
    if not readers:
        return None
    names = m.topo.names
    holder: dict[int, int] = {}
    for t in readers:
        ts = w.tasks[t]
        if ts.status != RUNNING or ts.split < 0:
            continue
        if ts.split in holder:
            first = holder[ts.split]
            return (f"split {ts.split} is held by both {names[first]} (at offset {w.tasks[first].position}) and"
                    f" {names[t]} (at offset {ts.position}): the enumerator handed it out again, and its records"
                    " are read twice")
        holder[ts.split] = t
    return None


def w_event_held_by_gateway(m: FlinkModel, prev: World, a, nxt: World) -> str | None:
    """A reader's operator-event gateway, closed at the coordinator's checkpoint, held the
    ``AddSplitEvent`` of a split the enumerator assigned meanwhile, and releases it now: after
    the reader's own snapshot, or when the checkpoint completed or aborted (``model.gateway``,
    row N6).  So the enumerator's snapshot had the split unassigned and the reader's had
    none: the checkpoint holds it once."""
    if not prev.coord.held:
        return None
    names = m.topo.names
    for t, cp, split in prev.coord.held:
        if (t, cp, split) in nxt.coord.held or nxt.tasks[t].status != RUNNING or nxt.tasks[t].split != split:
            continue
        why = ("after its snapshot of checkpoint " + str(cp) if nxt.tasks[t].last_barrier >= cp > prev.tasks[t].last_barrier
               else f"when checkpoint {cp} ended")
        return (f"{names[t]}'s gateway, closed for checkpoint {cp}, held the AddSplitEvent of split {split} and"
                f" releases it {why}")
    return None


def w_gateway_left_closed(m: FlinkModel, prev: World, a, nxt: World) -> str | None:
    """PR #28963 (``regional_gateway_on_fallback`` left-closed): a regional checkpoint completes
    and a failed-region reader's gateway stays closed for it, the coordinator being told of the
    fallback only; it opens when the reader takes its snapshot (its trigger RPC still on its way)
    or fails over."""
    if nxt.coord.completed_count == prev.coord.completed_count or not nxt.coord.gateways:
        return None
    c = nxt.coord.store[-1]
    closed = [t for t, cp in nxt.coord.gateways if cp == c.id]
    if not c.refs or not closed:
        return None
    return (f"regional checkpoint {c.id} completes with {m.topo.names[closed[0]]}'s gateway still closed for it"
            " (the coordinator got the fallback notice only)")


def w_fallback_notice_survives_restart(m, prev: World, a, nxt: World) -> str | None:
    """FLIP-600's reading ``replayed-after-restart`` (row PR3): a restore hands a restarted
    task the fallback notice its failed attempt had not processed."""
    if type(a) is not Restore:
        return None
    for t, (p, n) in enumerate(zip(prev.tasks, nxt.tasks)):
        if p.held and n.inbox:
            return (f"{m.topo.names[t]} restarts and gets again the notice of regional checkpoint {p.held[0][1]} its failed"
                    " attempt had not processed")
    return None


def w_new_coordinator_after_regional(m, prev: World, a, nxt: World) -> str | None:
    """FLIP-600 across a new coordinator (a JobManager failover, a rescale, the adaptive
    scheduler's restart): the old coordinator had counted regional completions in a row; the new
    one starts with the count ``regional_counter_on_recovery`` gives."""
    kind = type(a)
    new = kind is JobManagerFailover or kind is Rescale or (kind is Restore and m.design.scheduler == "adaptive")
    if new and prev.coord.consecutive_regional > 0 and not nxt.coord.restore_failure:
        what = {JobManagerFailover: "the JobManager fails over", Rescale: "the job is rescaled",
                Restore: "the adaptive scheduler restarts the job"}[kind]
        return (f"{what} after {prev.coord.consecutive_regional} regional checkpoint(s) in a row; the new"
                f" coordinator counts {nxt.coord.consecutive_regional}"
                f"{', forced global' if nxt.coord.force_global else ''}")
    return None


def w_force_flag_cleared_under_a_newer_checkpoint(m, prev: World, a, nxt: World) -> str | None:
    """FLIP-600 with concurrent checkpoints: the one force flag is cleared (an older checkpoint's
    tier 2, or its global completion) while a newer checkpoint that was triggered forced is still
    pending, so that one is judged as not forced."""
    if not (prev.coord.force_global and not nxt.coord.force_global):
        return None
    older = {p.id for p in prev.coord.pending} - {p.id for p in nxt.coord.pending}
    newer = [p.id for p in nxt.coord.pending if p.global_only and older and p.id > min(older)]
    if newer:
        return (f"checkpoint {min(older)} ends and clears the force flag while checkpoint {newer[0]}, triggered forced global,"
                " is still pending")
    return None


def w_timeout_while_coordinators_fall_back(m, prev: World, a, nxt: World) -> str | None:
    """FLIP-600 (``regional_wait_reentry = "timeout-reevaluates"``, row T5): a checkpoint's
    timer fires while its regional completion waits for the coordinators' fallback."""
    if type(a) is Timeout:
        p = pending_of(prev.coord, a.checkpoint)
        if p is not None and p.falling_back:
            return (f"checkpoint {a.checkpoint} times out while its regional completion waits for the coordinators' fallback;"
                    " it is judged again")
    return None


def pending_checkpoints_resolve(m: FlinkModel, w: World) -> str | None:
    """No checkpoint stays pending for good: where no progress is possible, none is pending.  In
    Flink a pending checkpoint ends by completing, by an abort, at its timeout (the canceller) or
    with a failover; one that none of these ends keeps the periodic trigger waiting once
    max-concurrent-checkpoints are pending, and no checkpoint completes again until a failover.
    Checked where no progress is possible, in unbounded jobs with regional checkpoints (a bounded
    job's ``bounded-job-completes`` reports the same as a job that cannot finish)."""
    for p in w.coord.pending:
        why = (": it was judged regional, taking a failed subtask's fallback state threw, and nothing caught it"
               if RegionalCheckpointHandler.stuck(p) else "")
        return (f"no progress is possible but checkpoint {p.id} is still pending{why}; no further checkpoint is"
                " triggered until a failover")
    return None


def ref_chain_bounded(m: FlinkModel, w: World) -> str | None:
    """FLIP-600: following refCheckpointId from any retained checkpoint takes at most
    max_consecutive_regional hops (the FLIP-600 thread: "The reference chain can only grow as deep as
    maxConsecutiveFailures")."""
    limit = m.design.max_consecutive_regional
    by_id = {c.id: c for c in w.coord.store}
    for c in w.coord.store:
        for t in range(len(c.snapshots)):
            chain = ref_chain(by_id, c, t)
            if len(chain) - 1 > limit:
                path = " -> ".join(map(str, chain))
                return (
                    f"checkpoint {c.id} refers for {m.model_of(c).topo.names[t]} through a chain {path} of {len(chain) - 1}"
                    f" refs, over max_consecutive_regional = {limit}"
                )
    return None


# -- sometimes (witnesses, on transitions) -----------------------------------------------------
def w_regional_completed(m, prev: World, a, nxt: World) -> str | None:
    if nxt.coord.completed_count > prev.coord.completed_count and any(nxt.coord.store[-1].refs):
        c = nxt.coord.store[-1]
        who = ", ".join(m.topo.names[t] for t, r in enumerate(c.refs) if r)
        return f"regional checkpoint {c.id} completed with {who} falling back to checkpoint {max(c.refs)}"
    return None


def w_restore_regional(m, prev: World, a, nxt: World) -> str | None:
    if type(a) is Restore and a.checkpoint and prev.coord.store and any(prev.coord.store[-1].refs):
        return f"failed subtasks restored from regional checkpoint {a.checkpoint}"
    return None


def w_forced_global(m, prev: World, a, nxt: World) -> str | None:
    """A checkpoint that was forced global (tier 1, or because the sources are exhausted)
    completes after at least one regional one."""
    pend = pending_of(prev.coord, nxt.coord.store[-1].id) if nxt.coord.completed_count > prev.coord.completed_count else None
    if pend is not None and pend.global_only and prev.coord.consecutive_regional:
        why = "tier 1" if prev.coord.force_global else "every source exhausted"
        return (
            f"forced global checkpoint {nxt.coord.store[-1].id} ({why}) completed after"
            f" {prev.coord.consecutive_regional} regional one(s)"
        )
    return None


def w_timeout_completes_regionally(m, prev: World, a, nxt: World) -> str | None:
    """PR #28964: a timeout marks the silent tasks declined and the checkpoint completes
    regionally (row B9)."""
    if type(a) is Timeout and nxt.coord.completed_count > prev.coord.completed_count and any(nxt.coord.store[-1].refs):
        c = nxt.coord.store[-1]
        who = ", ".join(m.topo.names[t] for t, r in enumerate(c.refs) if r)
        return f"checkpoint {c.id} timed out and completed regionally, {who} falling back"
    return None


def w_split_returns_live(m, prev: World, a, nxt: World) -> str | None:
    """PR #28963: a regional completion puts a failed reader's split back into the live
    enumerator while the reader keeps it (row B12), in the step that completes it or,
    when the completion waits for the coordinators (row N5), in the step that judges it.
    (A failover's add-back returns the splits of readers it restarted: none of them holds one.)"""
    back = sorted(set(nxt.coord.unassigned) - set(prev.coord.unassigned))
    held = [s for s in back if any(ts.split == s and ts.status == RUNNING for ts in nxt.tasks)]
    if not held:
        return None
    waiting = [p.id for p in nxt.coord.pending if p.falling_back]
    cp = waiting[0] if waiting else nxt.coord.store[-1].id
    return f"regional checkpoint {cp} returned split {held[0]} to the live enumerator while a reader holds it"


def w_forced_checkpoint_aborts(m, prev: World, a, nxt: World) -> str | None:
    """A forced global checkpoint that a region declined (or that timed out) is aborted: by
    tier 2, or, under ``forced_checkpoint_waits``, by the ratio check before it (which keeps the
    counter)."""
    if type(a) not in (Decline, Timeout, Ack, LastAck) or nxt.coord.completed_count != prev.coord.completed_count:
        return None
    for p in prev.coord.pending:
        if pending_of(nxt.coord, p.id) is not None:
            continue
        if p.global_only or prev.coord.force_global or (
                m.design.forced_checkpoint_waits and m.regional.forced_at_evaluation(prev, p)):
            return (f"forced global checkpoint {p.id} aborted: consecutive regional checkpoints"
                    f" {prev.coord.consecutive_regional} -> {nxt.coord.consecutive_regional}")
    return None


def _evaluated_declined(prev: World, nxt: World):
    """The pending checkpoints with a decline that this step evaluated (they left the pending
    set: completed regionally or aborted)."""
    return [p for p in prev.coord.pending if p.declined and pending_of(nxt.coord, p.id) is None]


def w_finished_region_not_counted(m, prev: World, a, nxt: World) -> str | None:
    """PR #28963 (``regions_of_running_tasks``, row B3): a declined checkpoint is judged
    over the regions of the tasks it waited for (``regionIdProvider`` over
    ``tasksToWaitFor``), so a region whose tasks had all finished is not counted in the
    failure ratio.  (A job with a BLOCKING or HYBRID edge is one region here: nothing to leave
    out.)"""
    if not m.topo.all_pipelined:
        return None
    for p in _evaluated_declined(prev, nxt):
        counted = m.regional.regions(p.waiting)
        if len(counted) < len(m.topo.regions):
            left = [r for r in m.topo.regions if not any(p.waiting >> t & 1 for t in r)]
            names = ", ".join(m.topo.names[t] for r in left for t in sorted(r))
            outcome = "completed regionally" if nxt.coord.completed_count > prev.coord.completed_count else "aborted"
            return (f"declined checkpoint {p.id} was judged over {len(counted)} of {len(m.topo.regions)} regions"
                    f" ({names} had finished, not counted) and {outcome}")
    return None


def w_finished_sources_force_global(m, prev: World, a, nxt: World) -> str | None:
    """PR #28964 (``end_of_input_rule = "finished-sets-force"``, rows B6 and B8): a
    declined checkpoint that was triggered as a regional one, and whose failed regions are
    within the ratio, is judged forced global because every source is FINISHED at its
    evaluation (``checkAllSourcesFinishedAndForceGlobal`` sets the shared flag), so it aborts
    instead of completing regionally.  Under ``"finished-forces-at-trigger"`` (row N2):
    a checkpoint triggered once every source FINISHED, whose trigger set the flag."""
    if m.design.end_of_input_rule == "finished-forces-at-trigger":
        if (not prev.coord.force_global and nxt.coord.force_global and len(nxt.coord.pending) > len(prev.coord.pending)
                and m.regional.sources_done(prev.tasks)):
            return (f"checkpoint {nxt.coord.pending[-1].id} was triggered once every source had FINISHED: the trigger set"
                    f" the force flag (checkAllSourcesFinishedAndForceGlobal), so it is judged global")
        return None
    if prev.coord.force_global:
        return None
    if nxt.coord.completed_count > prev.coord.completed_count:
        return None
    for p in _evaluated_declined(prev, nxt):
        if p.global_only or not m.regional.sources_done(prev.tasks):
            continue
        regions, failed, too_many = m.regional.judged_regions(p)
        if not too_many:
            return (f"declined checkpoint {p.id}, triggered regional, within the failure ratio ({len(failed)} of"
                    f" {len(regions)} regions failed), was judged forced global because every source had FINISHED"
                    f" by its evaluation, and aborted")
    return None


def w_closing_task_falls_back(m, prev: World, a, nxt: World) -> str | None:
    """A regional checkpoint completes with a failed region whose declining task had finished
    before its trigger arrived (TASK_CLOSING): the PR treats every decline reason alike
    (row B1), so that task's state is its fallback's, not a finished state."""
    if nxt.coord.completed_count > prev.coord.completed_count and any(nxt.coord.store[-1].refs):
        c = nxt.coord.store[-1]
        done = [t for t, r in enumerate(c.refs) if r and nxt.tasks[t].status == FINISHED]
        if done:
            return (f"regional checkpoint {c.id} completed with {m.topo.names[done[0]]}, which finished before its"
                    f" trigger arrived, falling back to checkpoint {c.refs[done[0]]}")
    return None


def _pr_timeouts(design, scope) -> bool:
    return design.regional_checkpoints and design.timeouts_complete_regionally and scope.max_timeouts > 0


def _pr_add_back(design, scope) -> bool:
    return (design.regional_checkpoints and design.coordinator_region_fallback == "add-back-live"
            and any(v.coordinator for v in scope.job.vertices))


def w_rescale_regional(m, prev: World, a, nxt: World) -> str | None:
    if type(a) is not Rescale:
        return None
    c = prev.coord.store[-1]
    falls = [m.topo.names[t] for t, r in enumerate(c.refs) if r]
    return (f"regional checkpoint {c.id} (state of {', '.join(falls)} from checkpoint {max(c.refs)}) was restored"
            f" at a new parallelism") if falls else None


def w_regional_union_state_abort(m, prev: World, a, nxt: World) -> str | None:
    """FLIP-147 on the regional path (``RegionalCheckpointHandler.finished_check``, review row
    N3): a declined checkpoint within the failure ratio aborts because a vertex with union list
    state would be partly finished in its regional content; counted, after the coordinators'
    fallback, under ``regional_finished_check = "after-fallback-counted"`` (the PR)."""
    if nxt.coord.completed_count > prev.coord.completed_count or not prev.coord.store:
        return None
    evaluated = _evaluated_declined(prev, nxt)
    if type(a) in (Decline, Timeout):  # the response that declines may be the last one
        for p in prev.coord.pending:
            if p.id == a.checkpoint and not p.declined and pending_of(nxt.coord, p.id) is None:
                acked = sum(1 << t for t, _ in p.acked)
                evaluated.append(p._replace(declined=1 << a.task if type(a) is Decline else p.waiting & ~acked))
    for p in evaluated:
        regions, failed, too_many = m.regional.judged_regions(p)
        if too_many or m.design.forced_checkpoint_waits and m.regional.forced_at_evaluation(prev, p) or p.global_only:
            continue
        in_failed = set().union(*failed)
        if m.regional.finished_check(prev, p, in_failed, prev.coord.store[-1]):
            union = " or ".join(m.topo.job.vertices[v].name for v in m.coordinator.union_vertices)
            failed_over = any(ts.status == FAILED for ts in nxt.tasks) and not any(ts.status == FAILED for ts in prev.tasks)
            counted = nxt.coord.failed_count > prev.coord.failed_count or failed_over
            how = ("counted" + (", the job fails over" if failed_over else "")) if counted else "not counted"
            return (f"declined checkpoint {p.id}, within the failure ratio ({len(failed)} of {len(regions)} regions"
                    f" failed), aborts ({how}): union-state vertex {union} would be partly finished in it")
    return None


def w_late_ack_while_coordinators_fall_back(m, prev: World, a, nxt: World) -> str | None:
    """PR #28963 (``regional_completion`` waiting for the coordinators, row N5): an
    acknowledgement from a task the timeout marked declined reaches a checkpoint that was judged
    regional and waits for the coordinators' fallback; it replaces the task's grafted state
    (``futures-late-ack-overwrites``) or is discarded at the completion."""
    if type(a) is not Ack:
        return None
    p = pending_of(prev.coord, a.checkpoint)
    if p is None or not p.falling_back or not p.declined >> a.task & 1:
        return None
    what = ("replaces its fallback state" if m.design.regional_completion == "futures-late-ack-overwrites"
            else "is discarded at the completion")
    return (f"{m.topo.names[a.task]}'s acknowledgement of checkpoint {p.id}, which the timeout marked declined, arrives"
            f" while the coordinators fall back to checkpoint {p.completing[0]}: it {what}")

