"""The catalog's entries for FLIP-147 (checkpoints after tasks finish) and the Sink V2
committer: a legacy ``SourceFunction`` re-reading a finished split, union list state finishing
partly, and FLINK-38614 (EndOfData before the final committables), with their scope and
variant classes."""

from __future__ import annotations

from ckptcheck.model.coordinator import CheckpointCoordinator
from ckptcheck.model.scope import Scope
from ckptcheck.model.sinkv2 import CommitterOperator
from ckptcheck.model.sources import SourceReader

from .catalog_entry import Entry, catalog_class
from .designs import BASELINE
from .scopes import scope


@catalog_class
class EndOfDataBeforeCommittables(CommitterOperator):
    """FLINK-38614 as released (before apache/flink#28476): the committer task finishes its
    operators and broadcasts EndOfData as soon as its input ended; the final checkpoint's
    committables, emitted on ``notifyCheckpointComplete`` after it, reach a global committer
    that has already seen EndOfData and drops them (reference-flink-uc D.6)."""

    def forwards_end_of_data(self, tx, t: int) -> bool:
        return True


def flip147_scope(job: str = "sink-v2-global", checkpoints: int = 0, failures: int = 0) -> Scope:
    """FLIP-147 and Sink V2 entries: one record per split, ``checkpoints`` checkpoints before end
    of input (by default only the final ones) and ``failures`` failures, nothing else."""
    return scope(job, records_per_split=1, max_checkpoints=checkpoints, max_failures=failures, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


@catalog_class
class LegacySourceFunction(SourceReader):
    """Seed 004: a legacy ``SourceFunction`` keeps each split's progress in union list state;
    FLIP-147 discards a finished subtask's state, so when its vertex is restored partly
    finished the split is read again from the start."""

    def finished_split_position(self) -> int:
        return 0


@catalog_class
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
        "seed 004: 'with this pattern if we discard the state for the finished splits, we would re-read "
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
        "seed 004, 'UnionListState': 'if an operator checkpoints UnionListState, it can only finish all "
        "at once'; PartialFinishingNotSupportedByStateException, reference-flink-uc D.3",
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
        "emitted'); reference-flink-uc D.6",
    ),
)
