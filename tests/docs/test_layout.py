"""The code's floor plan: no top-level folder imports another in a circle, and the rooms of
checks/ import one way (cli uses the others, run uses engine, engine uses no other room, and
reports/ uses nothing of checks/).  Every import counts, at module level and inside functions;
only those under ``if TYPE_CHECKING:`` are left out, since they never run."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("model", "specs", "checks", "reports")
ROOMS = ("engine", "run", "cli", "conform", "proofs", "validate")


def _module(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(tree: ast.AST) -> set[int]:
    """Line numbers of the imports under ``if TYPE_CHECKING:``."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                for n in ast.walk(inner):
                    if isinstance(n, (ast.Import, ast.ImportFrom)):
                        skip.add(n.lineno)
    return skip


def imports(root: Path, folders=FOLDERS) -> dict[str, set[str]]:
    """Every module of ``folders`` under ``root`` and the project modules it imports (names
    relative to the ``ckptcheck`` package), module-level and function-level alike."""
    out: dict[str, set[str]] = {}
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            mod = _module(root, path)
            package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
            tree = ast.parse(path.read_text(encoding="utf-8"))
            skip = _type_checking_only(tree)
            targets = out.setdefault(mod, set())
            for node in ast.walk(tree):
                if getattr(node, "lineno", None) in skip:
                    continue
                if isinstance(node, ast.ImportFrom):
                    if node.level:
                        base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                        targets.add(".".join(base + ([node.module] if node.module else [])))
                    elif (node.module or "").startswith("ckptcheck."):
                        targets.add(node.module.removeprefix("ckptcheck."))
                elif isinstance(node, ast.Import):
                    targets.update(a.name.removeprefix("ckptcheck.") for a in node.names if a.name.startswith("ckptcheck."))
    return out


def graph(edges: dict[str, set[str]], depth: int, within: str = "") -> nx.DiGraph:
    """The import graph folded to the first ``depth`` parts of each name (1: top-level folders;
    2 with ``within="checks"``: the rooms of checks/)."""
    g = nx.DiGraph()
    for mod, targets in edges.items():
        for t in targets:
            if within and not (mod.startswith(within + ".") and t.startswith(within + ".")):
                continue
            a, b = ".".join(mod.split(".")[:depth]), ".".join(t.split(".")[:depth])
            if a != b:
                g.add_edge(a, b)
    return g


def circles(g: nx.DiGraph) -> list[list[str]]:
    return sorted(sorted(c) for c in nx.simple_cycles(g))


def test_no_top_level_folder_imports_another_in_a_circle():
    g = graph(imports(ROOT), 1)
    assert not circles(g), circles(g)
    assert set(g.successors("reports")) <= {"model", "specs"}, "reports/ is a function of results: it imports no engine"
    assert "checks" not in set(g.successors("specs")) | set(g.successors("model"))


def test_the_rooms_of_checks_import_one_way():
    rooms = graph(imports(ROOT), 2, within="checks")
    assert not circles(rooms), circles(rooms)

    def uses(room: str) -> set[str]:
        return set(rooms.successors(room)) if room in rooms else set()

    assert uses("checks.engine") == set(), "an engine knows only the search surface"
    assert uses("checks.run") == {"checks.engine"}
    assert not [a for a, b in rooms.edges if b == "checks.cli"]
    for room in ("checks.conform", "checks.proofs", "checks.validate"):
        assert uses(room) <= {"checks.flinkjvm"}, (room, uses(room))


def test_checks_has_about_ten_entries_at_its_top():
    top = sorted(p.name for p in (ROOT / "checks").iterdir() if p.name != "__pycache__")
    assert len(top) <= 10, top
    assert {f"{r}" for r in ROOMS} <= set(top)


def test_the_scan_finds_a_circle_through_a_function_level_import(tmp_path):
    """The scan itself can fail: a circle closed by an import inside a function is found, and
    one under ``if TYPE_CHECKING:`` is not."""
    for folder, text in {
        "model": "from ckptcheck.specs import x\n",
        "specs": "def f():\n    from ckptcheck.model import y\n",
        "checks": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ckptcheck.reports import z\n",
        "reports": "import ckptcheck.checks.run\n",
    }.items():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text(text)
    g = graph(imports(tmp_path), 1)
    assert circles(g) == [["model", "specs"]]
