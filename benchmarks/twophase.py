"""The generic explorer against a hand-written BFS of the same TwoPhase spec, in one run.

Both check TCConsistent on every state.  Published yardsticks for 7 resource managers:
TLC about 3 s, Stateright about 0.3 s.  Last line: the figure.
"""

from __future__ import annotations

import sys
import time
from collections import deque

from ckptcheck.checks.engine.explore import explore
from ckptcheck.specs.twophase import (
    ABORTED,
    COMMITTED,
    INIT,
    PREPARED,
    TM_ABORTED,
    TM_COMMITTED,
    WORKING,
    TwoPhase,
)


def hand_written_bfs(n: int) -> int:
    """TwoPhase BFS with everything inlined: no model object, no action values."""
    full = (1 << n) - 1
    init = ((WORKING,) * n, INIT, 0, 0, False, False)
    seen = {init}
    queue = deque([init])
    push = queue.append
    add = seen.add
    while queue:
        s = queue.popleft()
        rms, tm, tm_prep, msgs, commit, abort = s
        if COMMITTED in rms and ABORTED in rms:
            raise AssertionError("TCConsistent violated")
        succ = []
        if tm == INIT:
            for rm in range(n):
                if msgs >> rm & 1 and not tm_prep >> rm & 1:
                    succ.append((rms, tm, tm_prep | 1 << rm, msgs, commit, abort))
            if tm_prep == full:
                succ.append((rms, TM_COMMITTED, tm_prep, msgs, True, abort))
            succ.append((rms, TM_ABORTED, tm_prep, msgs, commit, True))
        for rm in range(n):
            st = rms[rm]
            if st == WORKING:
                succ.append((rms[:rm] + (PREPARED,) + rms[rm + 1 :], tm, tm_prep, msgs | 1 << rm, commit, abort))
                succ.append((rms[:rm] + (ABORTED,) + rms[rm + 1 :], tm, tm_prep, msgs, commit, abort))
            if commit:
                succ.append((rms[:rm] + (COMMITTED,) + rms[rm + 1 :], tm, tm_prep, msgs, commit, abort))
            if abort:
                succ.append((rms[:rm] + (ABORTED,) + rms[rm + 1 :], tm, tm_prep, msgs, commit, abort))
        for t in succ:
            if t not in seen:
                add(t)
                push(t)
    return len(seen)


def main(argv: list[str]) -> None:
    sizes = [int(x) for x in argv] or [3, 5, 7]
    figure = ""
    for n in sizes:
        generic = manual = float("inf")
        for _ in range(3):  # alternated, best of three each: this machine is noisy
            t0 = time.perf_counter()
            out = explore(TwoPhase(n), store="fingerprint")
            generic = min(generic, time.perf_counter() - t0)
            t0 = time.perf_counter()
            hand = hand_written_bfs(n)
            manual = min(manual, time.perf_counter() - t0)
        assert out.states == hand, (out.states, hand)
        assert not out.discoveries, out.discoveries
        ratio = generic / manual if manual else float("inf")
        print(f"TwoPhase n={n}: {out.states:,} states; generic explorer {generic:.2f}s, hand-written BFS {manual:.2f}s, ratio {ratio:.2f}x")
        figure = f"twophase n={n}: {out.states} states, generic {generic:.2f}s vs hand-written {manual:.2f}s = {ratio:.2f}x"
    print(figure)


if __name__ == "__main__":
    main(sys.argv[1:])
