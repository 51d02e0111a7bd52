"""The families of ``ckptcheck conform``, in the order they run and print."""

from __future__ import annotations

from .graph import REGIONS, WIRING
from .keys import HASHMAP, KEY_GROUPS
from .op import Family, Op  # noqa: F401  (Op re-exported)
from .plan import CHANNEL_STATE, TRIGGER_PLAN
from .state import KEYED, OPERATOR_STATE, RETENTION, STATE_MAPPERS

FAMILIES: tuple[Family, ...] = (KEY_GROUPS, HASHMAP, STATE_MAPPERS, KEYED, OPERATOR_STATE, CHANNEL_STATE, WIRING, REGIONS,
                                TRIGGER_PLAN, RETENTION)


def family(name: str) -> Family:
    for f in FAMILIES:
        if f.name == name:
            return f
    raise KeyError(name)
