"""The flaw catalog: design variants known to be wrong, each with the property it must violate
and the scope in which the violation is reachable.  ``ckptcheck catalog`` and the tests check
that every entry is caught *and* that the correct design passes the very same scope: that is
how the harness shows it can tell right from wrong.

The entries live in each feature's folder (``baseline/catalog.py``, ``flip600/catalog.py``,
``unaligned/catalog.py`` with the pointwise entries, ``flip147/catalog.py``, ``nullstate/catalog.py``);
this module combines them into :data:`CATALOG` and re-exports their variant classes and scopes,
which traces name by their class names (``model.component.component_id``).
"""

from __future__ import annotations

from ckptcheck.model.design import Design

from .baseline.catalog import (  # noqa: F401  (re-exported)
    BASELINE_CATALOG, CleanerDeletesOlderThanPending, NoOperatorEventGateway, RestartFromInitialOffset)
from .catalog_entry import Entry
from .flip147.catalog import (  # noqa: F401  (re-exported)
    BLOCKING_FIX, FLIP147_CATALOG, BatchSideSkipsFinalCheckpoint, EndOfDataBeforeCommittables, LegacySourceFunction,
    SchedulerWaitsForBlockingInput, UnionStateFinishesPartly, blocking_scope, flip147_scope)
from .flip600.catalog import FINDINGS, FLIP600_CATALOG, RegionsBySubtaskIndex  # noqa: F401  (re-exported)
from .nullstate.catalog import (  # noqa: F401  (re-exported)
    NULL_STATE_CATALOG, BarrierAtRestart, RetentionIgnoresNullState, SinksDiscardOvertakenRecords,
    SinksKeepReplayedRecords, TriggerDuringReplay, WatermarkAtAcknowledgement, WatermarkIgnoresInFlight,
    null_state_catalog_scope, null_state_unaligned_scope)
from .unaligned.catalog import (  # noqa: F401  (re-exported)
    POINTWISE_CATALOG, UNALIGNED_CATALOG, AckAtFirstBarrier, InputStateOneToOne, NewDataBeforeChannelState,
    NoPrimaryProducerRule, NoRecordFilter, NoRecoveryFilter, NoUpstreamRecoveryTracker, OutputStateNotPersisted,
    PeerGateByPosition, PersistsQueuedBuffersTwice, SkipsStatelessVertices, UnrecordedPattern)
from .designs import PRESETS

CATALOG: tuple[Entry, ...] = (BASELINE_CATALOG + FLIP600_CATALOG + FINDINGS + UNALIGNED_CATALOG + POINTWISE_CATALOG
                              + FLIP147_CATALOG + NULL_STATE_CATALOG)


def entry(name: str) -> Entry:
    for e in CATALOG:
        if e.name == name:
            return e
    raise KeyError(name)


def all_designs() -> dict[str, Design]:
    """Every named design: presets and catalog variants (for replay and the CLI)."""
    out = dict(PRESETS)
    for e in CATALOG:
        out[e.design.name] = e.design
    return out
