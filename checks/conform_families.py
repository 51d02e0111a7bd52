"""The families of ``ckptcheck conform``, in the order they run and print.

Families not covered yet (README, "Conformance"): the FLIP-147 trigger plan
(``DefaultCheckpointPlanCalculator``) and the channel-state assignment of a rescale per edge
(``TaskStateAssignment``, ``InflightDataRescalingDescriptor``, the FLINK-35351 rule): both need
an ``ExecutionGraph``, which the conform helper does not build yet.
"""

from __future__ import annotations

from .conform_graph import REGIONS, WIRING
from .conform_keys import HASHMAP, KEY_GROUPS
from .conform_op import Family, Op  # noqa: F401  (Op re-exported)
from .conform_state import KEYED, OPERATOR_STATE, RETENTION, STATE_MAPPERS

FAMILIES: tuple[Family, ...] = (KEY_GROUPS, HASHMAP, STATE_MAPPERS, KEYED, OPERATOR_STATE, WIRING, REGIONS, RETENTION)


def family(name: str) -> Family:
    for f in FAMILIES:
        if f.name == name:
            return f
    raise KeyError(name)
