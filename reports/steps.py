"""What a narrated step is: the data a report draws (``checks.run.narrate`` makes it from a run of
the model): the step's words and its events, each an arrow between two lanes or a mark on one."""

from __future__ import annotations

from dataclasses import dataclass, field

from ckptcheck.model.actions.words import COORDINATOR, Event  # noqa: F401  (the events a step holds)


@dataclass
class Step:
    n: int
    action: str
    text: str
    events: list[Event] = field(default_factory=list)
