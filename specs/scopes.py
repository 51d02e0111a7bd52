"""Named scopes: the model configurations each design is checked in (recorded in every result).

Each feature keeps its scopes in its folder (``baseline``, ``flip147``, ``flip600``, ``unaligned``,
``nullstate``); this module names them all and picks a design's default scopes."""

from __future__ import annotations

from ckptcheck.model.scope import Scope

from .baseline.scopes import (default_scope, enumerator_default_scope, incremental_concurrent_scope,  # noqa: F401
                              jobmanager_view_scope, scope)
from .flip147.scopes import flip147_concurrent_scope, flip147_default_scope, flip147_union_scope  # noqa: F401
from .flip600.scopes import (end_of_input_scope, four_region_scope, regional_chain_scope,  # noqa: F401
                             regional_coordinator_scope, regional_default_scope, regional_enumerator_scope,
                             regional_rescale_scope, regional_scope, regional_union_scope)
from .nullstate.scopes import null_state_scope, null_state_unaligned_default_scope  # noqa: F401
from .unaligned.scopes import (announcement_scope, pointwise_fan_in_scope, pointwise_keyed_order_scope,  # noqa: F401
                               pointwise_pattern_change_scope, pointwise_scope, recovery_scope, rescaled_recovery_scope,
                               restart_aligned_scope, spanning_records_scope, unaligned_rescale_scope, unaligned_scope)


def default_scopes_for(design) -> tuple[Scope, ...]:
    """Every scope a design is checked in when the user names none (``checks.run.suite``): the
    first is ``default_scope_for``'s; a design whose mechanisms one affordable scope does not
    reach together has more.  Unaligned checkpoints (not on pointwise edges, not FLINK-4120's)
    add ``unaligned_rescale_scope``: a rescale under backpressure with a failure and a decline,
    which the two-input default cannot afford (docs/pages/model.md, "Not modelled yet"), while the one-input
    rescale scope cannot reach FLIP-147's partial finishing or input channel state; and
    ``spanning_records_scope``: records split across a checkpoint and restored across a custom
    partitioner (the first two keep records whole); with an alignment timeout also
    ``announcement_scope``: a barrier announced in a remote input channel, which the others'
    local channels never announce.  ``flip147``
    adds ``flip147_union_scope``: the union-state abort, which the first scope's job cannot
    reach (its only vertex of parallelism 2, the sources', cannot both hold union state and
    finish partly in a completed checkpoint), and which the union job cannot afford with a
    failure; one with incremental checkpoints too adds ``incremental_concurrent_scope``: a snapshot
    taken while the one before it still uploads.  ``flip600-pr`` (a failure ratio below 50 %) adds ``end_of_input_scope``: the
    PR's end-of-input rules, which its unbounded first scope never reaches.  A regional design
    with FLIP-147 adds ``regional_union_scope``: FLIP-147's union-state check on a regional
    checkpoint's content, which needs a union vertex spread over regions; one whose regional
    completion waits for the coordinators' fallback adds ``regional_coordinator_scope``: a late
    acknowledgement in that window needs a split enumerator and a timeout.  A regional design
    whose failure ratio lets one of two regions fail adds ``regional_enumerator_scope``: a split
    enumerator whose state falls back with its failed region (catalog K3), and
    ``regional_chain_scope``: chains of two ``refCheckpointId`` hops and more (K5, F3), which one
    decline never forms.  The baseline's
    first scope adds ``enumerator_default_scope``: a split enumerator, its operator-event gateway
    and its add-back on a failover, which keyed-2x2 has none of.  Unaligned checkpoints on
    POINTWISE edges add ``pointwise_fan_in_scope`` (two upstream subtasks on a POINTWISE edge:
    the primary-producer rule and the recovery filter), ``pointwise_keyed_order_scope`` (per-key
    order behind recovered output) and ``pointwise_pattern_change_scope`` (an ALL_TO_ALL edge
    restored as POINTWISE), each a mechanism the first scope's single source never reaches.
    The scope options of Flink's runtime (``rpcs_overtake``, ``late_finish_reports``,
    ``rescaled_tasks_decline``, ``suspend_on_failure``) are on in scopes of their own, small
    enough to search them whole: the baseline's and ``flip147``'s ``jobmanager_view_scope``,
    the unaligned presets' ``recovery_scope`` and ``rescaled_recovery_scope``, the pointwise
    preset's ``recovery_scope``; checkpoints during recovery (not on pointwise edges) add
    ``restart_aligned_scope``: a restart with unaligned checkpoints off (FLINK-40518); the larger scopes keep them
    off (each moves their figures, and ``suspend_on_failure`` off is a superset of Flink 2.3's
    runs)."""
    from ckptcheck.model.protocol import fitted

    return tuple(fitted(design, sc) for sc in _default_scopes_for(design))


def _default_scopes_for(design) -> tuple[Scope, ...]:
    first = _default_scope_for(design)
    if first == pointwise_scope():
        return (first, pointwise_fan_in_scope(), pointwise_keyed_order_scope(), pointwise_pattern_change_scope(),
                recovery_scope())
    if first == default_scope():
        return (first, enumerator_default_scope(), jobmanager_view_scope())
    if first == unaligned_scope():
        timeout = (announcement_scope(),) if design.checkpoint_mode == "aligned-timeout" else ()
        restart = (restart_aligned_scope(),) if design.checkpointing_during_recovery else ()
        return (first, unaligned_rescale_scope(), spanning_records_scope()) + timeout \
            + (recovery_scope(), rescaled_recovery_scope()) + restart
    if first == flip147_concurrent_scope():
        late = (incremental_concurrent_scope(),) if design.incremental_checkpoints else ()
        return (first, flip147_union_scope(), jobmanager_view_scope()) + late
    union = (regional_union_scope(),) if design.regional_checkpoints and design.checkpoints_after_tasks_finish else ()
    if design.regional_checkpoints and design.regional_completion != "atomic":
        union += (regional_coordinator_scope(),)
    if first == four_region_scope():
        return (first, end_of_input_scope()) + union
    if first == regional_default_scope():
        union += (regional_enumerator_scope(), regional_chain_scope())
    return (first,) + union


def default_scope_for(design) -> Scope:
    """The scope a design is checked in when the user names none.  An aligned design with
    concurrent checkpoints gets ``flip147_concurrent_scope``, one with FLINK-4120's recovery
    ``null_state_scope``; a scope whose instant acks do not fit the design goes without them
    (``model.protocol.fitted``: incremental checkpoints register at an acknowledgement's arrival)."""
    from ckptcheck.model.protocol import fitted

    return fitted(design, _default_scope_for(design))


def _default_scope_for(design) -> Scope:
    if design.recovery == "null-state":
        return null_state_scope() if design.checkpoint_mode == "aligned" else null_state_unaligned_default_scope()
    if design.regional_checkpoints:
        # one failed region of two must be within the ratio, or forward-2x2 never completes regionally
        return regional_default_scope() if design.max_failed_region_percent >= 50 else four_region_scope()
    if design.max_concurrent_checkpoints > 1 and design.checkpoint_mode == "aligned":
        return flip147_concurrent_scope()
    if design.unaligned_pointwise:
        return pointwise_scope()
    return unaligned_scope() if design.checkpoint_mode != "aligned" else default_scope()


def expected_seconds(design, scope: Scope, symmetry: bool = False) -> float | None:
    """What an exhaustive search of ``scope`` is known to take with 2 workers on 2 cores (measured once,
    ``specs.figures``), or None where it was not measured."""
    from .figures import measured

    known = measured(design.name, scope, symmetry)
    return None if known is None or known.states is None else known.seconds


def known_figures(design, scope: Scope, symmetry: bool = False) -> str | None:
    """What an exhaustive search of ``scope`` is known to cost, for designs that run a scope
    measured before (the same design, or one whose default scope is the FLIP-600 one)."""
    from .figures import measured

    known = measured(design.name, scope, symmetry)
    if known is not None and known.states is not None:
        return f"{known.design} in this scope: {known.states:,} {'symmetry classes' if known.symmetry else 'states'}, {known.cost}"
    if design.regional_checkpoints and scope in (regional_scope(), regional_default_scope()):
        # another regional design on flip600-regional's scopes: its figure is the nearest known
        ref = measured("flip600-regional", scope, True)
        if not symmetry:
            return (f"not measured without symmetry reduction; flip600-regional has {ref.states:,} symmetry classes "
                    "in this scope, and about twice as many states are expected")
        return f"the FLIP-600 scope: flip600-regional has {ref.states:,} symmetry classes here ({ref.cost})"
    return None
