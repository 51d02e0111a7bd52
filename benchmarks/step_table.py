"""Is ``FlinkModel.step``'s table (each kind's handler looked up once per model) slower than the
if-ladder over kinds it replaced?  Both step the same transitions of one design's default scope,
in one process, alternated ``--rounds`` times; the ladder is rebuilt here as it was (a chain of
``kind is X`` tests in the old order, calling each handler directly).

    python benchmarks/step_table.py [design] [--transitions N] [--rounds N]

Both must give the same successor for every transition, or the script stops.
Last line: the figure (best of the rounds, ladder over table; above 1 the table is faster).
"""

from __future__ import annotations

import argparse
import time
from collections import deque

from ckptcheck.model.actions import (Ack, Action, AlignmentTimeout, AssignSplit, CoordinatorsFellBack, Decline, DeleteSnapshot, Deliver,
                                     EmitRecord, EndOfInput, EndOfRecovery, FailTask, FinishReported, JobManagerFailover, LastAck,
                                     LoseNotification, Notify, ReadHead, Rescale, Restore, ResumeFromSavepoint, StopWithSavepoint,
                                     Timeout, TriggerAfterClose, TriggerCheckpoint)
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.tx import edit
from ckptcheck.specs.designs import preset
from ckptcheck.specs.scopes import default_scope_for

def ladder_step(m: FlinkModel, w, a):
    """The step as it was before the table: a chain of kind tests calling each handler directly
    (without the successor memos of a decline and a failure, which the table keeps)."""
    m = m.at(w)
    tx = edit(w)
    kind = type(a)
    if kind is Deliver:
        m.network_input.deliver(tx, a.channel)
    elif kind is ReadHead:
        m.network_input.read_head(tx, a.channel)
    elif kind is AlignmentTimeout:
        m.subtask_checkpoint.on_alignment_timer(tx, a.task, a.checkpoint)
    elif kind is EmitRecord:
        m.source.emit(tx, a.task)
    elif kind is Ack:
        m.coordinator.receive_acknowledge(tx, a.task, a.checkpoint)
    elif kind is LastAck:
        m.coordinator.maybe_finalize(tx, a.checkpoint)
    elif kind is CoordinatorsFellBack:
        m.regional.after_coordinators(tx, a.checkpoint)
    elif kind is Notify:
        a.before(m, tx)
        m.task.notify(tx, a.task)
    elif kind is FinishReported:
        m.failover.mark_finished(tx, a.task)
    elif kind is EndOfRecovery:
        m.task.finish_recovery(tx, a.task)
    elif kind is TriggerAfterClose:
        a.before(m, tx)
        tx.used = tx.used._replace(declines=tx.used.declines + 1)
        m.task.trigger_after_close(tx, a.task)
    elif kind is StopWithSavepoint:
        m.coordinator.stop_with_savepoint(tx)
    elif kind is ResumeFromSavepoint:
        m.failover.resume_from_savepoint(tx)
    elif kind is TriggerCheckpoint:
        m.coordinator.trigger(tx)
    elif kind is EndOfInput:
        m.source.end_of_input(tx, a.task)
    elif kind is Restore:
        m.failover.restart(tx)
    elif kind is Rescale:
        return m.failover.rescale(w)
    elif kind is AssignSplit:
        m.enumerator.assign(tx, a.task, a.split)
    elif kind is Decline:
        tx.used = tx.used._replace(declines=tx.used.declines + 1)
        m.subtask_checkpoint.decline_checkpoint(tx, a.task, a.checkpoint)
    elif kind is Timeout:
        tx.used = tx.used._replace(timeouts=tx.used.timeouts + 1)
        m.coordinator.on_timeout(tx, a.checkpoint)
    elif kind is FailTask:
        tx.used = tx.used._replace(failures=tx.used.failures + 1)
        m.failover.on_task_failure(tx, a.task)
    elif kind is JobManagerFailover:
        tx.used = tx.used._replace(jm_failovers=tx.used.jm_failovers + 1)
        m.failover.jobmanager_failover(tx)
    elif kind is DeleteSnapshot:
        m.store.delete_snapshot(tx)
    elif kind is LoseNotification:
        tx.used = tx.used._replace(lost=tx.used.lost + 1)
        m.task.lose_rpc(tx, a.task)
    return tx.freeze()


def table_step(m: FlinkModel, w, a):
    """``FlinkModel.step``: the table's function for the kind."""
    return m.at(w)._steps[type(a)](w, a)


def transitions(m: FlinkModel, n: int) -> list:
    """The first ``n`` transitions of a breadth-first search."""
    seen = {m.initial()}
    queue, out = deque(seen), []
    while queue and len(out) < n:
        w = queue.popleft()
        for a in m.enabled(w):
            out.append((w, a))
            t = m.step(w, a)
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return out[:n]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("design", nargs="?", default="flink-baseline")
    ap.add_argument("--transitions", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    design = preset(args.design)
    m = FlinkModel(design, default_scope_for(design))
    # the kinds with a successor memo (a decline, a failure) left out: the ladder has none to compare
    steps = [(w, a) for w, a in transitions(m, args.transitions) if type(a).memo_key is Action.memo_key]
    for w, a in steps:
        if ladder_step(m, w, a) != table_step(m, w, a):
            raise SystemExit(f"the two steps differ on {a!r}")
    best = {"ladder": float("inf"), "table": float("inf")}
    for _ in range(args.rounds):
        for name, fn in (("ladder", ladder_step), ("table", table_step)):
            start = time.perf_counter()
            for w, a in steps:
                fn(m, w, a)
            best[name] = min(best[name], time.perf_counter() - start)
    n = len(steps)
    print(f"{args.design}: {n:,} of the first {args.transitions:,} transitions of its default scope (not the declines and"
          f" failures), best of {args.rounds} rounds")
    for name, t in best.items():
        print(f"  {name}: {t:.3f} s ({t / n * 1e6:.2f} us per step)")
    print(f"ladder / table: {best['ladder'] / best['table']:.2f}")


if __name__ == "__main__":
    main()
