"""Named design presets and the TOML design format.

A design file sets knobs on a preset::

    based_on = "flink-baseline"      # optional, the default
    name = "keep-two"                # optional, defaults to the file name
    num_retained = 2
    tolerable_failed_checkpoints = 1

Knobs are data only; a rule is changed from Python by replacing a component::

    from ckptcheck.model.store import CompletedCheckpointStore
    from ckptcheck.specs.designs import BASELINE

    class KeepTwo(CompletedCheckpointStore):
        def retained_ids(self, completed, num_retained):
            return completed[-2:]

    KEEP_TWO = BASELINE.with_(name="keep-two", store=KeepTwo)

and named on the command line as ``module:KEEP_TWO``.
"""

from __future__ import annotations

import inspect
import json

import importlib
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable

from ckptcheck.model.assignment_pointwise import PointwiseStateAssignment
from ckptcheck.model.design import KNOB_BY_NAME, Design, knob_conflict

from .errors import InputError, did_you_mean, read_toml

BASELINE = Design(
    name="flink-baseline",
    description=(
        "Flink's checkpointing today: aligned barriers, 2PC sinks committing on "
        "notifyCheckpointComplete, num-retained = 1, tolerable failed checkpoints = 0, region "
        "failover, checkpoints after tasks finish (FLIP-147)."
    ),
    origin="mechanics notes 5-6 (Flink 2.0 CheckpointCoordinator)",
)

FLIP600_PROPOSED = BASELINE.with_(
    name="flip600-proposed",
    description=(
        "FLIP-600 regional checkpoints as the design thread (the FLIP-600 thread) describes them: a checkpoint "
        "declined in some pipelined regions completes with their last completed state "
        "(refCheckpointId), at most max_consecutive_regional = 2 in a row (tier 1 forces a global "
        "one; tier 2 aborts a failed forced one and resets the counter), a global checkpoint once "
        "the sources are exhausted, failed-region tasks notified with the fallback id, abort "
        "notices carrying the latest completed id, retention of referenced checkpoints, disabled "
        "across BLOCKING/HYBRID edges, a failure ratio of 50 %.  Expected to FAIL: catalog entries F1-F3 (and F4 across a JobManager failover).  The "
        "pull requests differ in several rules: that is flip600-pr."
    ),
    origin="the FLIP-600 thread (FLIP-600 thread, May-July 2026); mechanics note 8.1 (an early reading of PR #28963)",
    regional_checkpoints=True,
    max_failed_region_percent=50,
)

FLIP600_PR = FLIP600_PROPOSED.with_(
    name="flip600-pr",
    description=(
        "FLIP-600 as pull requests #28963 (core) and #28964 (per-region timeout, bounded sources) implement "
        "it, as reviewed up to 15 Sep 2026: declines of every reason and timeouts buffered until every task "
        "responded; regions counted over the running tasks; failure ratio 0.3 and at most 2 consecutive "
        "regional checkpoints; one force flag for tier 1, tier 2 and end of input (every source FINISHED), "
        "checked after the ratio; healthy tasks get a plain completion, failed-region tasks a fallback "
        "notice their operators ignore (what the task itself does with it is one of four readings, each "
        "searched by ckptcheck findings); the enumerator takes a failed reader's later splits back while that "
        "reader reads on, and the completion waits for it, taking a late acknowledgement meanwhile; FLIP-147's "
        "union-state check after that fallback, its failure counted; a coordinator with a reader in a failed "
        "region is told of the fallback only, which leaves that reader's event gateway closed.  Each knob's text in ckptcheck designs "
        "cites the PR method or row it follows.  "
        "The FLIP-306 (file merging) integration is left out: the FLIP deferred it on 7 Jul 2026, so with file "
        "merging on nothing keeps the fallback's segments alive (findings scope file-merging)."
    ),
    origin="apache/flink PR #28963 and #28964 (RegionalCheckpointHandler, CheckpointCoordinator."
    "receiveDeclineMessage, CheckpointCanceller, SourceCoordinator.checkpointCoordinatorForRegionFallback); "
    "the rows B1-B18 and PR1-PR4 of the sources page",
    max_failed_region_percent=30,  # B4: region.max-failure-ratio 0.3 (RegionalCheckpointConfigTest)
    max_consecutive_regional=2,  # B4: region.max-consecutive-failures 2
    regions_of_running_tasks=True,  # B3
    forced_checkpoint_waits=True,  # B1, B5, B6
    end_of_input_rule="finished-forces-at-trigger",  # B6, B8, N2
    fallback_state_rule="by-index-stuck",  # N1; PR2: the throw past the fallback's parallelism is caught nowhere
    regional_finished_check="after-fallback-counted",  # N3
    regional_completion="futures-late-ack-overwrites",  # N5
    timeouts_complete_regionally=True,  # B9
    fallback_notice_reaches_operators=False,  # B13
    fallback_notice_at_task="none",  # N4, PR3: one reading of four; the findings report searches each
    coordinator_region_fallback="add-back-live",  # B12
    regional_gateway_on_fallback="left-closed",  # N6: OperatorCoordinatorHolder.notifyRegionalCheckpointFallback at 4e12013
    file_merging_keeps_fallback_alive=False,  # PR4: nothing in the PR keeps the fallback's merged segments alive
    local_recovery_rule="fallback-drops-copy",  # PR #28966's documentation (the task-side code is not indexed)
)

FLIP600 = FLIP600_PROPOSED.with_(
    name="flip600-regional",
    description=(
        "FLIP-600 regional checkpoints as proposed, with the six corrections this model "
        "found necessary (catalog F1-F6): a task's final checkpoint must hold its own state (a "
        "fallback notice does not finish it); a task commits only up to the checkpoint that holds "
        "its own state (fallback and abort notices follow refCheckpointId); a forced global "
        "checkpoint that fails keeps the next one forced; the coordinator of a new JobManager reads "
        "the consecutive count back from the recovered store; with concurrent checkpoints, every "
        "checkpoint judged while the count is at the maximum is forced global; with local recovery, a "
        "grafted subtask restores the local copy of the checkpoint its state comes from."
    ),
    origin="the FLIP-600 thread and PR #28963, corrected: Roman (19 Jun 2026) 'the final checkpoint must always "
    "be acked by all subtasks/regions' and 'we would not allow this particular failed region to fail "
    "the checkpoint again'; the commit bound is this model's finding",
    fallback_notice_at_task="none",
    own_state_commit_bound=True,
    forced_global_failure_resets_counter=False,
    regional_counter_on_recovery="from-store",
    regional_limit_checked_at="evaluation",
    local_recovery_rule="restore-by-ref",
)

FLIP600_FILE_MERGING = FLIP600.with_(
    name="flip600-regional-file-merging",
    description="flip600-regional on a job with FLIP-306 file merging at task-manager level "
    "(one physical file per task manager and checkpoint); regional checkpoints keep their "
    "fallback segments alive.  The FLIP deferred its FLIP-306 integration (wiki page, 7 Jul 2026), so "
    "this models a design the FLIP does not contain.",
    origin="the FLIP-600 thread, Zakelly (23 Jun 2026): TM-level merging, 'keep previous checkpoint files alive "
    "when a region checkpoint occurs'; mechanics note 8.2",
    file_merging=True,
)

FLIP600_NO_CLAIM = FLIP600.with_(
    name="flip600-regional-no-claim",
    description="flip600-regional on a job started from a snapshot in NO_CLAIM mode; the user "
    "deletes the snapshot only once the latest checkpoint no longer refers to it.",
    origin="the FLIP-600 thread, limitations: 'NO_CLAIM restore mode -> Warn (require global checkpoint before "
    "snapshot deletion)'; mechanics note 8.3",
    no_claim_restore=True,
    no_claim_delete_after="independent-checkpoint",
)

FLIP600_INCREMENTAL = FLIP600.with_(
    name="flip600-regional-incremental",
    description="flip600-regional with incremental checkpoints (RocksDB): a regional checkpoint registers "
    "the failed subtasks' grafted fallback files under its own id, and a failed-region subtask's backend "
    "confirms only the fallback checkpoint, whose state it has.",
    origin="the FLIP-600 thread (Zakelly, 23 Jun 2026: keep the fallback's files alive); PR #28963 "
    "registerSharedStates(..., checkpointId); (rows A20, B10, B17)",
    incremental_checkpoints=True,
)

INCREMENTAL = BASELINE.with_(
    name="flink-incremental",
    description="Flink with incremental checkpoints (RocksDB, execution.checkpointing.incremental: true): "
    "a snapshot adds one shared file and refers to the backend's earlier ones, sending those of the last "
    "checkpoint it saw confirmed as placeholders; the SharedStateRegistry registers them at each acknowledgement "
    "and deletes a shared file once no retained checkpoint can use it; a confirmed upload's files that a newer "
    "snapshot sent again are not placeholders (Flink 2.3's PreviousSnapshot prune).",
    origin="RocksIncrementalSnapshotStrategy (uploadedSstFiles, lastCompletedCheckpointId), "
    "RocksDBSnapshotStrategyBase.PreviousSnapshot (pruneFirstCheckpointSstFiles), "
    "SharedStateRegistryImpl (registerReference, unregisterUnusedState), CheckpointCoordinator.receiveAcknowledgeMessage",
    incremental_checkpoints=True,
)

UNALIGNED = BASELINE.with_(
    name="flink-unaligned",
    description=(
        "Flink with unaligned checkpoints (FLIP-76), aligned-checkpoint-timeout 0: every barrier "
        "overtakes the records queued in front of it, which become channel state (the producer's "
        "output, the consumer's input); channel state is restored before new data."
    ),
    origin="the FLIP-76 thread; UC notes A.1-A.10, B.1 (SingleCheckpointBarrierHandler, "
    "SubtaskCheckpointCoordinatorImpl, PipelinedSubpartition, StreamTask.restoreInternal)",
    checkpoint_mode="unaligned",
)

UNALIGNED_TIMEOUT = UNALIGNED.with_(
    name="flink-unaligned-timeout",
    description=(
        "Flink with unaligned checkpoints and aligned-checkpoint-timeout > 0: every checkpoint "
        "starts aligned; a subtask whose alignment times out, or that receives an unaligned "
        "barrier from an upstream that switched, continues it unaligned."
    ),
    origin="UC notes A.4, A.7 (AlternatingWaitingForFirstBarrier, AlternatingCollectingBarriers)",
    checkpoint_mode="aligned-timeout",
)

UNALIGNED_POINTWISE = UNALIGNED.with_(
    name="flink-unaligned-pointwise",
    description=(
        "Unaligned checkpoints on POINTWISE (forward/rescale) edges as the pointwise-UC thread proposes and the open PR "
        "apache/flink#28523 implements: consumers of a pointwise edge take unaligned barriers (FORCE_UNALIGNED), "
        "each checkpoint records every edge's pattern, and a restore at another parallelism or pattern "
        "redistributes the edge's channel state by its topology (upstream tracing, recovery filter, "
        "primary-producer rule)."
    ),
    origin="the pointwise-UC thread; apache/flink#28523 (PointwiseChannelMappingUtils, TaskStateAssignment, "
    "EdgeDistributionPatternHook); UC notes C.1-C.5",
    unaligned_pointwise=True,
    assignment=PointwiseStateAssignment,
)

FLIP147 = BASELINE.with_(
    name="flip147",
    description=(
        "Flink's checkpointing today (flink-baseline: FLIP-147's checkpoints after tasks finish, Sink V2 "
        "where the job has one) with max-concurrent-checkpoints 2: a checkpoint may be triggered while "
        "another is pending, a later one may complete first and subsume it, and a finished task ends on "
        "the first completion of any checkpoint triggered after its finish()."
    ),
    origin="FLIP-147 (the 42/43/44 scenario); UC notes D; CheckpointRequestDecider, "
    "CheckpointCoordinator.completePendingCheckpoint (CHECKPOINT_SUBSUMED)",
    max_concurrent_checkpoints=2,
)

NULL_STATE = BASELINE.with_(
    name="flink-null-state",
    description=(
        "FLINK-4120's null-state recovery, which Flink never built: a recomputable operator's "
        "state is not persisted; it reports its null-state watermark with each acknowledgement, the "
        "coordinator computes each checkpoint's null-state checkpoint and the store keeps it; a restart "
        "resumes the sources there, re-inserts the latest checkpoint's barrier at its original positions "
        "and the sinks discard every record until it reaches them. The whole job restarts."
    ),
    origin="FLINK-4120; UC note E (no later design or code)",
    recovery="null-state",
    failover_strategy="full",
)

NULL_STATE_UNALIGNED = NULL_STATE.with_(
    name="flink-null-state-unaligned",
    description=(
        "flink-null-state with unaligned checkpoints, where barriers overtake records and the seed's assumption "
        "('the pipeline preserves the relative order of barriers and watermarks') does not hold; with two rules "
        "the seed does not have: a recomputable operator's null-state watermark reaches back to the records in "
        "flight to it, and a sink takes the replayed records the barrier overtook on their way to it."
    ),
    origin="FLINK-4120 with the FLIP-76 thread; model.nullstate",
    checkpoint_mode="unaligned",
)

PRESETS: dict[str, Design] = {
    d.name: d for d in (BASELINE, INCREMENTAL, FLIP600, FLIP600_PROPOSED, FLIP600_PR, FLIP600_FILE_MERGING,
                        FLIP600_NO_CLAIM, FLIP600_INCREMENTAL, UNALIGNED, UNALIGNED_TIMEOUT, UNALIGNED_POINTWISE, FLIP147, NULL_STATE,
                        NULL_STATE_UNALIGNED)
}


def preset(name: str) -> Design:
    return PRESETS[name]


def shown(value: Any) -> str:
    """A value from a user's file as the file wrote it (TOML's dates and tables, not Python's repr)."""
    import datetime

    if isinstance(value, (datetime.date, datetime.time)):  # datetime.datetime is a date
        return f"the {'date' if isinstance(value, datetime.date) else 'time'} {value.isoformat()}"
    if isinstance(value, dict):
        return "a table {" + ", ".join(f"{k} = {shown(v)}" for k, v in value.items()) + "}"
    return repr(value)


def check_knob(name: str, value: Any, source: str) -> Any:
    """Validate one knob value; raises :class:`InputError` naming file, knob and expectation."""
    knob = KNOB_BY_NAME.get(name)
    if knob is None:
        where = " (knobs go at the top level of a design file, not in a table of their own)" if isinstance(value, dict) else ""
        raise InputError(source, name, f"unknown knob{did_you_mean(name, KNOB_BY_NAME)}{where} (ckptcheck designs lists them)")
    if knob.type is bool:
        if not isinstance(value, bool):
            raise InputError(source, name, f"expected true or false, got {shown(value)}")
    elif knob.type is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(source, name, f"expected an integer, got {shown(value)}")
        if knob.minimum is not None and value < knob.minimum:
            raise InputError(source, name, f"expected an integer >= {knob.minimum}, got {shown(value)}")
        if knob.maximum is not None and value > knob.maximum:
            raise InputError(source, name, f"expected an integer <= {knob.maximum}, got {shown(value)}")
    elif knob.type is str:
        if not isinstance(value, str):
            raise InputError(source, name, f"expected a string, got {shown(value)}")
    if knob.choices and value not in knob.choices:
        raise InputError(source, name, f"expected one of {', '.join(repr(c) for c in knob.choices)}, got {shown(value)}")
    return value


def design_from_dict(data: dict, source: str, default_name: str, bases: dict[str, Design] | None = None,
                     warn: Callable[[str], None] | None = None) -> Design:
    bases = bases if bases is not None else PRESETS
    if not isinstance(data, dict):
        raise InputError(source, "design", "expected a table of knobs")
    base_name = data.get("based_on", BASELINE.name)
    if not isinstance(base_name, str) or base_name not in bases:
        hint = did_you_mean(base_name, bases) if isinstance(base_name, str) else ""
        raise InputError(source, "based_on", f"expected a preset ({', '.join(PRESETS)}) or a catalog entry, got"
                         f" {base_name!r}{hint}")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise InputError(source, "name", f"expected a non-empty string, got {name!r}")
    changed = ", ".join(f"{k} = {json.dumps(v) if isinstance(v, (str, bool)) else v}" for k, v in data.items() if k in KNOB_BY_NAME)
    description = data.get("description", f"{base_name} with {changed or 'no changes'}")
    if not isinstance(description, str):
        raise InputError(source, "description", f"expected a string, got {description!r}")
    knobs = {}
    for key, value in data.items():
        if key in ("based_on", "name", "description"):
            continue
        knobs[key] = check_knob(key, value, source)
    problem = knob_conflict({**bases[base_name].knobs(), **knobs})
    if problem:
        named = [k for k in KNOB_BY_NAME if re.search(rf"\b{k}\b", problem)]
        first = min(named, key=problem.index) if named else "knobs"
        raise InputError(source, first, problem)
    unchanged = [k for k, v in knobs.items() if getattr(bases[base_name], k) == v]
    if warn is not None and len(unchanged) == len(knobs):
        what = f"sets {', '.join(unchanged)} to {base_name}'s own value" if unchanged else "sets no knob"
        warn(f"{source}: {what}: it is {base_name} under the name {name!r}")
    return bases[base_name].with_(name=name, description=description, origin=f"design file {source}", **knobs)


LOADED_AS: dict[str, str] = {}  # a Python variant's design name -> the module:NAME it was loaded by, in this process


PYTHON_DESIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")


def python_design(spec: str) -> Design:
    """A design defined in Python, named ``module:NAME`` on the user's own command line (the
    module is imported from the current folder or the installed packages, as ``python -m``
    would).  Only for names the user types: a trace or design file never makes this import."""
    module_name, attr = spec.split(":")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise InputError(spec, "module", f"cannot import {module_name!r} ({e})") from None
    except Exception as e:  # the user's module failed while importing: one line, not a traceback
        raise InputError(spec, "module", f"importing {module_name!r} raised {type(e).__name__}: {e}") from None
    except SystemExit as e:  # the module ended the program while it was imported (sys.exit at its top level)
        raise InputError(spec, "module", f"importing {module_name!r} called sys.exit({e.code!r}): a variant module must"
                         " define its Design and not end the program") from None
    finally:
        sys.path.remove(os.getcwd())
    if not hasattr(module, attr):
        raise InputError(spec, attr, f"no name {attr!r} in {module_name}: expected a Design (e.g. BASELINE.with_(...))")
    value = getattr(module, attr)
    if isinstance(value, type):
        raise InputError(spec, attr, f"{attr} is a class: name the Design built with it, e.g. MY_VARIANT ="
                         f" BASELINE.with_(name=\"my-variant\", coordinator={attr}) in {module_name}")
    if not isinstance(value, Design):
        raise InputError(spec, attr, f"expected a Design (e.g. BASELINE.with_(...)) in {module_name}, got {type(value).__name__}")
    LOADED_AS[value.name] = spec  # a report names it in its replay command
    return described(value)


def described(d: Design) -> Design:
    """A Python variant that kept its preset's description (``BASELINE.with_(name=...,
    coordinator=Mine)``) says what it changes instead: each replaced component with the first
    paragraph of its class's docstring, and each knob with its value, so that the header and
    the reports name the variant's own rule, not the baseline's."""
    base = next((p for p in PRESETS.values() if p.description == d.description), None)
    if base is None or d.name == base.name:
        return d
    parts = []
    for field_name in d.replaced():
        cls = getattr(d, field_name)
        doc = " ".join((inspect.getdoc(cls) or "").split("\n\n")[0].split())
        parts.append(f"{field_name} = {cls.__name__}" + (f" ({doc})" if doc else ""))
    mine, theirs = d.knobs(), base.knobs()
    parts += [f"{k} = {json.dumps(v) if isinstance(v, (str, bool)) else v}" for k, v in mine.items() if v != theirs[k]]
    return d.with_(description=f"{base.name} with {'; '.join(parts) or 'no changes'}")


def load_design(spec: str, bases: dict[str, Design] | None = None, warn: Callable[[str], None] | None = None) -> Design:
    """A design by preset (or catalog) name, from a TOML file of knobs, or ``module:NAME`` for a
    Python variant."""
    bases = bases if bases is not None else PRESETS
    if spec in bases:
        return bases[spec]
    if PYTHON_DESIGN.match(spec) and not Path(spec).exists():
        return python_design(spec)
    stem, data = read_toml(spec, "design", "a preset or catalog entry (ckptcheck designs lists them), a TOML file,"
                           " or module:NAME for a Python variant", bases)
    return design_from_dict(data, spec, stem, bases, warn)
