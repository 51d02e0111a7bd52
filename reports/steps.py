"""What a narrated step is: the data a report draws (``checks.run.narrate`` makes it from a run of
the model): the step's words and its events, each an arrow between two lanes or a mark on one."""

from __future__ import annotations

from dataclasses import dataclass, field

COORDINATOR = "coordinator"


@dataclass
class Event:
    src: str
    dst: str | None  # None: a mark on ``src``'s lane
    label: str
    tone: str  # data, barrier, control, fault, commit, restore, complete, regional
    text: str = ""  # the same, in words, for the step table (empty: the step's own text says it)


@dataclass
class Step:
    n: int
    action: str
    text: str
    events: list[Event] = field(default_factory=list)
