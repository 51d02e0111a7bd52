"""The model's types: mypy follows the wiring (``Component``'s typed peers, the step table), and
its error count on ``model/`` may only go down.  The ceiling is today's count; lower it when a
change removes errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CEILING = 27  # mypy 2.4.1 on model/ (385 before the peers were typed)


def _mypy(*args: str) -> tuple[int, str]:
    api = pytest.importorskip("mypy.api")
    out, err, _ = api.run([*args, "--config-file", str(ROOT / "pyproject.toml"), "--no-incremental"])
    found = re.search(r"Found (\d+) errors?", out)
    return (int(found.group(1)) if found else 0), out + err


def test_mypy_finds_no_more_errors_in_the_model_than_the_ceiling():
    n, out = _mypy(str(ROOT / "model"))
    assert n <= CEILING, f"mypy finds {n} errors in model/ (ceiling {CEILING}):\n{out[-3000:]}"


def test_mypy_follows_a_peer_to_its_class(tmp_path, monkeypatch):
    """A call through a peer reaches the peer's class: a wrong argument is an error (with the
    peers untyped, mypy saw ``Any`` and said nothing)."""
    bad = tmp_path / "bad_variant.py"
    monkeypatch.setenv("MYPYPATH", str(ROOT))  # the repository's model/ package, as ``mypy model`` reads it
    bad.write_text("from model.coordinator import CheckpointCoordinator\n\n\n"
                   "class Wrong(CheckpointCoordinator):\n"
                   "    def on_timeout(self, tx, cp: int) -> None:\n"
                   "        self.regional.on_decline(tx, 'not a subtask', cp)\n", encoding="utf-8")
    n, out = _mypy(str(bad), "--follow-imports", "silent")
    assert n == 1 and "on_decline" in out, out


def test_every_component_is_a_declared_peer_of_its_class():
    """``Peers`` declares one typed attribute per design component, of the component's class: a
    component added to ``COMPONENTS`` without its peer would leave mypy at ``Any`` there."""
    from ckptcheck.model.component import Peers
    from ckptcheck.model.design import COMPONENTS

    declared = Peers.__annotations__
    assert list(declared) == list(COMPONENTS)
    assert {name: declared[name].strip("'\"") for name in COMPONENTS} == {n: c.__name__ for n, c in COMPONENTS.items()}
