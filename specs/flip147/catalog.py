"""The catalog's entries for FLIP-147 (checkpoints after tasks finish) and the Sink V2
committer: a legacy ``SourceFunction`` re-reading a finished split, union list state finishing
partly, FLINK-38614 (EndOfData before the final committables), and a streaming job with a
BLOCKING edge (FLINK-34371's output-after-end-of-input operators) under FLIP-147, with their
scope and variant classes."""

from __future__ import annotations

from functools import cached_property

import networkx as nx

from ckptcheck.model.coordinator import CheckpointCoordinator
from ckptcheck.model.request_decider import CheckpointRequestDecider
from ckptcheck.model.scope import Scope
from ckptcheck.model.sinkv2 import CommitterOperator
from ckptcheck.model.sources import SourceReader
from ckptcheck.model.task import StreamTask
from ckptcheck.model.topology import Exchange
from ckptcheck.model.world import RUNNING

from ..baseline.designs import BASELINE
from ..baseline.scopes import scope
from ..catalog_entry import Entry


class EndOfDataBeforeCommittables(CommitterOperator):
    """FLINK-38614 as released (before apache/flink#28476): the committer task finishes its
    operators and broadcasts EndOfData as soon as its input ended; the final checkpoint's
    committables, emitted on ``notifyCheckpointComplete`` after it, reach a global committer
    that has already seen EndOfData and drops them (UC note D.6)."""

    def forwards_end_of_data(self, tx, t: int) -> bool:
        return True


class BatchSideSkipsFinalCheckpoint(StreamTask):
    """A possible fix of the hang of a streaming job with a BLOCKING edge (Flink 2.3 as released,
    catalog ``blocking-output-waits-for-final-checkpoint``): a subtask that runs while the
    checkpoint scheduler is stopped for a BLOCKING output (a vertex with a BLOCKING output, or
    upstream of one) finishes without waiting for a final checkpoint, as it would without
    FLIP-147 (its output is the persisted BLOCKING result).  Not in Flink.  Checked only where
    the batch side has no 2PC sink and no Sink V2 committer (job ``end-of-stream-partition``):
    their last transaction or committables would need a checkpoint this rule skips."""

    @cached_property
    def batch_side(self) -> frozenset[int]:
        topo = self.topo
        heads = {e.source for e in topo.job.edges if e.exchange is Exchange.BLOCKING}
        names = set(heads).union(*(nx.ancestors(topo.job.graph, h) for h in heads))
        return frozenset(t for t in range(topo.n_tasks) if topo.vertex(t).name in names)

    def ready_to_finish(self, tx, t: int) -> bool:
        if t in self.batch_side:
            ts = tx.tasks[t]
            return ts.status == RUNNING and ts.ended and ts.eop == self.model.all_inputs_mask[t]
        return super().ready_to_finish(tx, t)


class SchedulerWaitsForBlockingInput(CheckpointRequestDecider):
    """The other half of that fix: the periodic checkpoint scheduler starts only once every
    BLOCKING result has also been read whole.  A checkpoint holds no BLOCKING result (the
    producers are FINISHED in it, with empty state), so one taken while a consumer still has
    part of it to read loses that part on a restore.  Not in Flink."""

    def periodic_scheduler_running(self, w) -> bool:
        return super().periodic_scheduler_running(w) and not any(w.channels[c] for c in self.topo.blocking_channels)


BLOCKING_FIX = BASELINE.with_(
    name="blocking-side-finishes-after-its-result-is-read",
    task=BatchSideSkipsFinalCheckpoint,
    request_decider=SchedulerWaitsForBlockingInput,
    description="A possible fix, not in Flink: with a BLOCKING edge, the subtasks upstream of it finish without a final "
    "checkpoint, and the checkpoint scheduler starts only once every BLOCKING result was read whole.",
)


def blocking_scope(failures: int = 0) -> Scope:
    """The smallest streaming job with a BLOCKING edge (``end-of-stream-partition``), two
    records, one checkpoint, ``failures`` failures, nothing else."""
    return scope("end-of-stream-partition", records_per_split=2, max_checkpoints=1, max_failures=failures, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


def flip147_scope(job: str = "sink-v2-global", checkpoints: int = 0, failures: int = 0) -> Scope:
    """FLIP-147 and Sink V2 entries: one record per split, ``checkpoints`` checkpoints before end
    of input (by default only the final ones) and ``failures`` failures, nothing else."""
    return scope(job, records_per_split=1, max_checkpoints=checkpoints, max_failures=failures, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


class LegacySourceFunction(SourceReader):
    """FLIP-147: a legacy ``SourceFunction`` keeps each split's progress in union list state;
    FLIP-147 discards a finished subtask's state, so when its vertex is restored partly
    finished the split is read again from the start."""

    def finished_split_position(self) -> int:
        return 0


class UnionStateFinishesPartly(CheckpointCoordinator):
    """FLIP-147 without its union-list-state rule: a checkpoint completes while a vertex with
    union list state is partly finished (no ``PartialFinishingNotSupportedByStateException``)."""

    def partly_finished_union_vertex(self, tx, pending):
        return None


FLIP147_CATALOG: tuple[Entry, ...] = (
    Entry(
        "legacy-source-rereads-finished-split",
        BASELINE.with_(
            name="legacy-source-rereads-finished-split",
            source=LegacySourceFunction,
            description="A legacy SourceFunction keeps split progress in union list state. source[0] "
            "finishes, a checkpoint holds its empty FinishedOperatorSubtaskState while source[1] still "
            "runs; after a failure source[0] restarts and reads its split again: the sink commits its "
            "records twice.",
        ),
        "exactly-once-output",
        flip147_scope("keyed-2x1", checkpoints=1, failures=1),
        "FLIP-147: 'with this pattern if we discard the state for the finished splits, we would re-read "
        "them after failover'; FLIP-27 sources keep split state in the OperatorCoordinator",
    ),
    Entry(
        "union-state-finishes-partly",
        BASELINE.with_(
            name="union-state-finishes-partly",
            coordinator=UnionStateFinishesPartly,
            description="A checkpoint completes while only one subtask of a vertex with union list "
            "state finished: the finished subtask's part of the union state is discarded with its "
            "state, and a restore of that checkpoint loses it.",
        ),
        "checkpoints-consistent",
        flip147_scope("union-2x2", checkpoints=1),
        "FLIP-147, 'UnionListState': 'if an operator checkpoints UnionListState, it can only finish all "
        "at once'; PartialFinishingNotSupportedByStateException, UC note D.3",
    ),
    Entry(
        "FLINK-38614-end-of-data-before-committables",
        BASELINE.with_(
            name="FLINK-38614-end-of-data-before-committables",
            committer=EndOfDataBeforeCommittables,
            description="Flink 2.3 as released: the Sink V2 committer task broadcasts EndOfData when its "
            "input ends, before the final checkpoint completes; the final committables it emits on that "
            "completion arrive at the global committer after EndOfData and are dropped.",
        ),
        "no-data-after-end-of-data",
        flip147_scope(),
        "FLINK-38614 (apache/flink#28476, open: 'Defer EndOfData until final checkpoint committables are "
        "emitted'); UC note D.6",
    ),
    Entry(
        "blocking-output-waits-for-final-checkpoint",
        BASELINE.with_(
            name="blocking-output-waits-for-final-checkpoint",
            description="Flink 2.3 as released, in a streaming job with a BLOCKING edge: the checkpoint scheduler stays "
            "stopped while a subtask with a BLOCKING output runs (FLINK-34371), and every subtask that reached end of input "
            "waits for a final checkpoint (FLIP-147): no checkpoint is ever triggered, the producers never finish, the "
            "consumer region is never deployed.",
        ),
        "bounded-job-completes",
        blocking_scope(),
        "a Flink 2.3.0 MiniCluster run (fromSequence -> fullWindowPartition().mapPartition() -> rebalance -> map -> sink, "
        "checkpointing every 200 ms) stayed RUNNING after 40 s, 'Periodic checkpoint scheduler is shut down' logged every "
        "200 ms; with checkpoints-after-tasks-finish off, or without checkpointing, it finished",
        correct=BLOCKING_FIX,
    ),
    Entry(
        "blocking-side-finishes-before-its-result-is-read",
        BASELINE.with_(
            name="blocking-side-finishes-before-its-result-is-read",
            task=BatchSideSkipsFinalCheckpoint,
            description="The first half of a fix of the hang alone: the subtasks upstream of a BLOCKING edge finish "
            "without a final checkpoint, and checkpoints start as soon as they finished; one taken while the consumer "
            "still has part of the BLOCKING result to read holds that part nowhere.",
        ),
        "checkpoints-consistent",
        blocking_scope(),
        "the hang above (blocking-output-waits-for-final-checkpoint) and its fix",
        correct=BLOCKING_FIX,
    ),
)
