"""Explorer throughput on the baseline's default scope.  Last line: the figure."""

from __future__ import annotations

from ckptcheck.checks.run.api import check
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.scopes import default_scope


def main() -> None:
    r = check(BASELINE, default_scope())
    s = r.stats
    assert r.ok and r.complete
    print(f"scope: {r.scope.describe()}")
    print(f"{s['states']:,} states, {s['transitions']:,} transitions, depth {s['depth']}, {s['seconds']:.1f}s")
    print(f"explore flink-baseline default scope: {s['states_per_second']} states/s ({s['states']} states in {s['seconds']:.1f}s)")


if __name__ == "__main__":
    main()
