"""The catalog's entries for FLINK-4120's null-state recovery, aligned and unaligned:
each entry replaces one rule of ``model.nullstate.NullStateRecovery``; with their scopes and
variant classes."""

from __future__ import annotations

from ckptcheck.model.design import Design
from ckptcheck.model.nullstate import NullStateRecovery
from ckptcheck.model.scope import Scope

from ..catalog_entry import Entry
from .designs import NULL_STATE, NULL_STATE_UNALIGNED
from ..baseline.scopes import scope


def null_state_catalog_scope() -> Scope:
    """FLINK-4120 entries: one source, its recomputable window and a 2PC sink; two records, one
    checkpoint before end of input (a final one may follow), one failure: 8,214 states, every
    null-state witness hit.  Acknowledgements travel (no instant acks): an entry reads the
    window when its acknowledgement arrives."""
    return scope("null-state-1x1", records_per_split=2, max_checkpoints=1, max_failures=1, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


class TriggerDuringReplay(NullStateRecovery):
    """Checkpoints triggered while a re-inserted barrier is still on its way (the seed does not
    say when checkpointing resumes after a null-state recovery)."""

    def replaying(self, w) -> bool:
        return False


class SinksKeepReplayedRecords(NullStateRecovery):
    """FLINK-4120 without "Sinks must discard all records until this barrier reaches them"."""

    def discards(self, t: int) -> bool:
        return False


class BarrierAtRestart(NullStateRecovery):
    """The latest checkpoint's barrier re-inserted where the source restarts (the null-state
    checkpoint's position), not "in the position they were originally inserted"."""

    def reinsert_position(self, split: int, start: int, original: int) -> int:
        return start


class WatermarkAtAcknowledgement(NullStateRecovery):
    """The seed's "current null-state watermark", read when the acknowledgement reaches the
    coordinator instead of at the snapshot: the records that were in flight behind the
    barrier have moved the window on by then."""

    def reported_watermark(self, tx, t, snap):
        return self.watermark(tx.tasks[t].processed)


class RetentionIgnoresNullState(NullStateRecovery):
    """The store keeps only its ``num_retained`` newest checkpoints: the null-state checkpoint,
    older, is subsumed and its files deleted."""

    def retained_for_recovery(self, store: tuple) -> tuple[int, ...]:
        return ()


def null_state_unaligned_scope() -> Scope:
    """FLINK-4120 with unaligned checkpoints: job ``null-state-rebalance`` (an unaligned barrier
    overtakes a record on its way to the window and the sink), one record, one checkpoint before
    end of input, one failure (46,380 states)."""
    return scope("null-state-rebalance", records_per_split=1, max_checkpoints=1, max_failures=1, max_declines=0,
                 max_timeouts=0, max_lost_notifications=0)


class WatermarkIgnoresInFlight(NullStateRecovery):
    """Unaligned checkpoints: the null-state watermark of the operator's own state only, not
    reaching back to the records in flight to it that the checkpoint holds as channel state."""

    def in_flight_watermark(self, c, t: int) -> tuple:
        return ()


class SinksDiscardOvertakenRecords(NullStateRecovery):
    """Unaligned checkpoints, the seed's rule as written: a sink discards every replayed record
    before the re-inserted barrier, also the ones the checkpoint's barrier had overtaken."""

    def kept_in_replay(self, c, t: int) -> tuple:
        return ()


def _null_state(name: str, rules: type[NullStateRecovery], description: str, base: Design = NULL_STATE) -> Design:
    return base.with_(name=name, null_state=rules, description=description)


NULL_STATE_CATALOG: tuple[Entry, ...] = (
    Entry(
        "null-state-sinks-keep-replayed-records",
        _null_state("null-state-sinks-keep-replayed-records", SinksKeepReplayedRecords,
                    "FLINK-4120's recovery with sinks that write the replayed records before the re-inserted barrier: "
                    "the sink's state from the latest checkpoint already holds them, so they are committed twice."),
        "exactly-once-output",
        null_state_catalog_scope(),
        "FLINK-4120: 'Sinks must discard all records until this barrier reaches them'",
        NULL_STATE,
    ),
    Entry(
        "null-state-barrier-at-restart-position",
        _null_state("null-state-barrier-at-restart-position", BarrierAtRestart,
                    "FLINK-4120's recovery re-inserting the latest checkpoint's barrier where the sources restart: it "
                    "passes the window before the replay rebuilt the state the checkpoint held."),
        "recomputed-state-matches",
        null_state_catalog_scope(),
        "FLINK-4120: 'the barriers belonging to that checkpoint must be inserted into the source streams in the "
        "position they were originally inserted'",
        NULL_STATE,
    ),
    Entry(
        "null-state-watermark-at-acknowledgement",
        _null_state("null-state-watermark-at-acknowledgement", WatermarkAtAcknowledgement,
                    "FLINK-4120's null-state watermark read from the operator when its acknowledgement arrives: records "
                    "that were in flight behind the barrier have entered the window, the watermark has passed records "
                    "the checkpoint's state holds, and the null-state checkpoint is too recent to rebuild it."),
        "recomputed-state-matches",
        null_state_catalog_scope(),
        "FLINK-4120: 'each stateful operator should report its \"current null-state watermark\" as part of "
        "acknowledging the ongoing checkpoint'",
        NULL_STATE,
    ),
    Entry(
        "null-state-checkpoint-not-retained",
        _null_state("null-state-checkpoint-not-retained", RetentionIgnoresNullState,
                    "FLINK-4120's recovery with Flink's retention (num-retained 1): the null-state checkpoint of the "
                    "latest checkpoint is subsumed and deleted, and a recovery has nowhere to restart the sources."),
        "null-state-checkpoint-retained",
        null_state_catalog_scope(),
        "FLINK-4120: 'the pipeline must be restarted from the latter to restore the state at the former' (the older "
        "checkpoint must outlive its subsumption); execution.checkpointing.num-retained",
        NULL_STATE,
    ),
    Entry(
        "null-state-checkpoint-during-replay",
        _null_state("null-state-checkpoint-during-replay", TriggerDuringReplay,
                    "FLINK-4120's recovery with checkpoints triggered during the replay: a checkpoint taken before the "
                    "re-inserted barrier reached the sink holds the sink's state from the latest checkpoint next to "
                    "source positions before it, so a recovery from it replays records the sink already has."),
        "checkpoints-consistent",
        scope("null-state-1x1", records_per_split=2, max_checkpoints=2, max_failures=1, max_declines=0, max_timeouts=0,
              max_lost_notifications=0),
        "FLINK-4120 is silent on when checkpointing resumes after a recovery; model.nullstate holds triggers back until "
        "every re-inserted barrier has passed (NullStateRecovery.replaying)",
        NULL_STATE,
    ),
    Entry(
        "null-state-unaligned-watermark-ignores-in-flight",
        _null_state("null-state-unaligned-watermark-ignores-in-flight", WatermarkIgnoresInFlight,
                    "FLINK-4120's recovery with unaligned checkpoints, the null-state watermark taken from the operator's "
                    "state alone: the barrier overtook a record on its way to the window, so the null-state checkpoint "
                    "is one taken after that record and the replay never rebuilds it.", NULL_STATE_UNALIGNED),
        "recomputed-state-matches",
        null_state_unaligned_scope(),
        "FLINK-4120: 'assuming the pipeline preserves the relative order of barriers and watermarks'; the FLIP-76 thread: the "
        "barrier overtakes in-flight data, stored as channel state",
        NULL_STATE_UNALIGNED,
    ),
    Entry(
        "null-state-unaligned-sinks-discard-overtaken-records",
        _null_state("null-state-unaligned-sinks-discard-overtaken-records", SinksDiscardOvertakenRecords,
                    "FLINK-4120's recovery with unaligned checkpoints and the seed's discard rule as written: the "
                    "barrier overtook a record on its way to the sink, whose state in the checkpoint does not hold it; "
                    "replayed before the re-inserted barrier, the sink discards it, and it is never committed.",
                    NULL_STATE_UNALIGNED),
        "bounded-job-completes",
        null_state_unaligned_scope(),
        "FLINK-4120: 'Sinks must discard all records until this barrier reaches them' with 'assuming the pipeline "
        "preserves the relative order of barriers and watermarks'; the FLIP-76 thread",
        NULL_STATE_UNALIGNED,
    ),
)
