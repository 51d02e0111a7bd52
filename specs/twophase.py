"""Gray and Lamport's TwoPhase commit (the TLA+ Examples spec), the explorer's yardstick.

Not Flink: a second, unrelated model behind the same engine surface, to show the engine is
generic and to compare its speed with published figures (distinct states: 288 for 3
resource managers, 8,832 for 5, 296,448 for 7).

State: (rm_state per RM, tm_state, tm_prepared bitmask, prepared-message bitmask,
commit message sent, abort message sent).  RM states: 0 working, 1 prepared, 2 committed,
3 aborted; TM states: 0 init, 1 committed, 2 aborted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from .properties import ALWAYS, Property

WORKING, PREPARED, COMMITTED, ABORTED = range(4)
INIT, TM_COMMITTED, TM_ABORTED = range(3)

# actions: (kind, rm)
TM_RCV_PREPARED, TM_COMMIT, TM_ABORT, RM_PREPARE, RM_CHOOSE_ABORT, RM_RCV_COMMIT, RM_RCV_ABORT = range(7)
ACTION_NAMES = ("TMRcvPrepared", "TMCommit", "TMAbort", "RMPrepare", "RMChooseToAbort", "RMRcvCommitMsg", "RMRcvAbortMsg")


def consistent(s) -> str | None:
    """TCConsistent: no RM has committed while another aborted."""
    rms = s[0]
    if COMMITTED in rms and ABORTED in rms:
        return f"RM {rms.index(COMMITTED)} committed while RM {rms.index(ABORTED)} aborted"
    return None


@dataclass(frozen=True, eq=False)
class TwoPhase:
    n: int
    canonical = None
    eventually: tuple = ()
    sometimes: tuple = ()
    always: tuple = field(default=((Property("TCConsistent", ALWAYS, "no RM commits while another aborts", None), consistent),))

    @cached_property
    def _all(self) -> int:
        return (1 << self.n) - 1

    def initial_states(self):
        return [((WORKING,) * self.n, INIT, 0, 0, False, False)]

    @staticmethod
    def is_progress(a) -> bool:
        return True

    def actions(self, s):
        rms, tm, tm_prep, msgs, commit, abort = s
        out = []
        if tm == INIT:
            for rm in range(self.n):
                if msgs >> rm & 1 and not tm_prep >> rm & 1:
                    out.append((TM_RCV_PREPARED, rm))
            if tm_prep == self._all:
                out.append((TM_COMMIT, -1))
            out.append((TM_ABORT, -1))
        for rm in range(self.n):
            st = rms[rm]
            if st == WORKING:
                out.append((RM_PREPARE, rm))
                out.append((RM_CHOOSE_ABORT, rm))
            if commit:
                out.append((RM_RCV_COMMIT, rm))
            if abort:
                out.append((RM_RCV_ABORT, rm))
        return out

    def successors(self, s) -> list:
        """``[(a, next_state(s, a)) for a in actions(s)]``, in that order, built in one pass:
        the engine's optional fused surface (``checks.engine.explore``)."""
        rms, tm, tm_prep, msgs, commit, abort = s
        out = []
        if tm == INIT:
            for rm in range(self.n):
                if msgs >> rm & 1 and not tm_prep >> rm & 1:
                    out.append(((TM_RCV_PREPARED, rm), (rms, tm, tm_prep | 1 << rm, msgs, commit, abort)))
            if tm_prep == self._all:
                out.append(((TM_COMMIT, -1), (rms, TM_COMMITTED, tm_prep, msgs, True, abort)))
            out.append(((TM_ABORT, -1), (rms, TM_ABORTED, tm_prep, msgs, commit, True)))
        for rm in range(self.n):
            st = rms[rm]
            head, tail = rms[:rm], rms[rm + 1:]
            if st == WORKING:
                out.append(((RM_PREPARE, rm), (head + (PREPARED,) + tail, tm, tm_prep, msgs | 1 << rm, commit, abort)))
                out.append(((RM_CHOOSE_ABORT, rm), (head + (ABORTED,) + tail, tm, tm_prep, msgs, commit, abort)))
            if commit:
                out.append(((RM_RCV_COMMIT, rm), (head + (COMMITTED,) + tail, tm, tm_prep, msgs, commit, abort)))
            if abort:
                out.append(((RM_RCV_ABORT, rm), (head + (ABORTED,) + tail, tm, tm_prep, msgs, commit, abort)))
        return out

    def next_state(self, s, a):
        rms, tm, tm_prep, msgs, commit, abort = s
        kind, rm = a
        if kind == TM_RCV_PREPARED:
            return (rms, tm, tm_prep | 1 << rm, msgs, commit, abort)
        if kind == TM_COMMIT:
            return (rms, TM_COMMITTED, tm_prep, msgs, True, abort)
        if kind == TM_ABORT:
            return (rms, TM_ABORTED, tm_prep, msgs, commit, True)
        new = list(rms)
        if kind == RM_PREPARE:
            new[rm] = PREPARED
            return (tuple(new), tm, tm_prep, msgs | 1 << rm, commit, abort)
        if kind == RM_CHOOSE_ABORT:
            new[rm] = ABORTED
        elif kind == RM_RCV_COMMIT:
            new[rm] = COMMITTED
        else:
            new[rm] = ABORTED
        return (tuple(new), tm, tm_prep, msgs, commit, abort)
