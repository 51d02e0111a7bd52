"""FLIP-600's scopes: two regions, four regions, end of input, and one per mechanism the first cannot
reach with the others."""

from __future__ import annotations

from ckptcheck.model.scope import Scope

from ..baseline.scopes import scope


def regional_scope() -> Scope:
    """FLIP-600's scope: two independent regions (forward-2x2), one record per split, two
    checkpoints before end of input plus the final one (three in a run), one decline and one
    failure: a regional checkpoint completes, is restored from, and a forced global one
    follows.  The full model: 6,218,556 symmetry classes of states, about 7 minutes on two
    cores.  The regional designs' default is this scope with instant acks
    (``regional_default_scope``)."""
    return scope("forward-2x2", records_per_split=1, max_checkpoints=2, max_failures=1, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)


def regional_default_scope() -> Scope:
    """The default scope of regional designs whose failure ratio lets one of two regions fail
    (50 % or more): ``regional_scope`` with instant acks, the acknowledgements in flight folded
    into the pending checkpoint (``CheckpointCoordinator.acknowledge_at_once``), exact up to
    that folding (``tests/model/test_instant_acks.py`` compares the folded state sets on regional
    scopes).  902,129 symmetry classes where the full model has 6,218,556; every verdict and
    witness the same, but ``an-ack-overtakes``, which the folding removes (ack order), does not
    apply; ``--no-instant-acks`` searches the full model."""
    return regional_scope().with_(instant_acks=True)


def four_region_scope() -> Scope:
    """FLIP-600 with a failure ratio below 0.5 (``flip600-pr``: the PR's 0.3), where one failed
    region of the two in ``forward-2x2`` already aborts: four one-subtask regions (job
    ``sources-4``) without records, four checkpoints, three declines, a timeout and a failure,
    so that regional checkpoints follow each other into tier 1, a forced one fails, a timeout
    completes one regionally and a region fails over onto a regional checkpoint: every witness
    is hit.  flip600-pr holds here (828,072 symmetry classes, 209 s with 2 workers); the chain
    that outgrows max-consecutive-failures needs a fifth checkpoint and a fourth decline
    (``specs/flip600/findings.py``, scope tier-2-reset).  Symmetry reduction applies (four
    interchangeable sources).  It has no sink: four regions with a 2PC sink
    (``pipeline-and-3-sides``, three checkpoints) passed 8.4 million states in 819 s before any
    regional checkpoint completed, so the PR's sink paths are checked with a ratio of 0.5 on two
    regions (the findings report)."""
    return scope("sources-4", records_per_split=0, bounded=False, max_checkpoints=4, max_failures=1, max_declines=3,
                 max_timeouts=1, max_lost_notifications=0)


def end_of_input_scope() -> Scope:
    """``flip600-pr``'s second default scope: the PR's end-of-input rules, which the first
    (unbounded) never reaches.  A pipeline with a 2PC sink and a separate source
    (``pipeline-and-side``, two regions), bounded, one record per split, two checkpoints
    before end of input, one decline: a declined checkpoint is judged over the regions still
    running, the finished side region left out (row B3), and a checkpoint triggered
    once every source FINISHED while the sink still runs is forced global at its trigger
    (rows B6, B8, N2).  With sources only (``sources-4``) the second never happens: once every
    source has FINISHED no task is left to trigger."""
    return scope("pipeline-and-side", records_per_split=1, bounded=True, max_checkpoints=2, max_failures=0, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)


def regional_union_scope() -> Scope:
    """FLIP-600 with FLIP-147 and union list state: one source of four subtasks, each its own
    region, whose union list state forbids a partly finished vertex in a checkpoint; bounded,
    no records (each subtask ends when the scheduler says), two checkpoints, one decline.  A
    subtask that ended snapshots its final checkpoint while another, not ended, declines it:
    the regional content would hold the vertex partly finished, and FLIP-147's check aborts it
    (``RegionalCheckpointHandler.finished_check``, row N3).  No default scope with a
    sink reaches this: the union vertex must have subtasks in different regions."""
    return scope("union-sources-4", records_per_split=0, bounded=True, max_checkpoints=2, max_failures=0, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0)


def regional_coordinator_scope() -> Scope:
    """FLIP-600 with a split enumerator in a failed region and timeouts that complete
    regionally: two FLIP-27 readers and two other sources, each its own region; no records
    (a split is assigned and held, which is what the enumerator's fallback is about), two
    checkpoints, one timeout.  A reader given its split after the first checkpoint does not
    acknowledge the second in time; the timeout marks it declined, the regional completion
    waits for the coordinators' fallback, and the reader's acknowledgement arrives meanwhile
    (row N5)."""
    return scope("enumerator-2-and-sides", records_per_split=0, bounded=False, max_checkpoints=2, max_failures=0,
                 max_declines=0, max_timeouts=1, max_lost_notifications=0)


def regional_enumerator_scope() -> Scope:
    """FLIP-600 with a FLIP-27 source: its split enumerator in the reader's region and a separate
    source (``enumerator-and-side``, two regions), one record per split, unbounded, two
    checkpoints, one decline.  The reader's region declines, the checkpoint completes
    regionally, and the enumerator's state must fall back with the region: the splits it
    assigned after the fallback checkpoint go back to it (``SourceCoordinator``'s
    ``subtaskReset``/``addSplitsBack``; catalog K3).  The first two default scopes have no split
    enumerator, so split ownership does not apply there."""
    return scope("enumerator-and-side", records_per_split=1, bounded=False, max_checkpoints=2, max_failures=0,
                 max_declines=1, max_timeouts=0, max_lost_notifications=0)


def regional_chain_scope() -> Scope:
    """FLIP-600's chains of fallbacks: two sources, each its own region, no records, unbounded,
    five checkpoints and four declines, so that regional checkpoints refer back through a
    ``refCheckpointId`` of a ``refCheckpointId`` (a chain of two hops and more) until tier 1
    forces a global one, and a decline of a forced checkpoint counts toward tier 2 (catalog
    entries K5 and F3); and a JobManager failover, whose new coordinator starts its count
    afresh or from the store (F4).  The first two default scopes allow one decline, so their
    chains stop at one hop.  A default scope of the regional designs whose failure ratio lets one of two
    regions fail (with a lower ratio a regional checkpoint of ``sources-2`` never completes)."""
    return scope("sources-2", records_per_split=0, bounded=False, max_checkpoints=5, max_failures=0, max_declines=4,
                 max_timeouts=0, max_lost_notifications=0, max_jm_failovers=1)


def regional_rescale_scope() -> Scope:
    """FLIP-600 with a rescale: a forward pipeline and a separate source (two regions), the sink
    rescaled from 1 to 2; one record per split, two checkpoints before end of input, one
    decline: a regional checkpoint completes and the job restarts from it at the new
    parallelism (and a regional checkpoint at the new parallelism may fall back to one taken
    at the old)."""
    return scope("pipeline-and-side", records_per_split=1, max_checkpoints=2, max_failures=0, max_declines=1,
                 max_timeouts=0, max_lost_notifications=0, rescale=(("sink", 2),), max_rescales=1)
