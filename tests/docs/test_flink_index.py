"""The rules' Flink tags (``model.component.follows``): each tag of Flink 2.3.0 names a class and
a method that Flink's jars have, and the "Flink method -> model rule" page lists every tag
(``tests/docs/test_docs.py`` checks that the page is what the tags generate)."""

from __future__ import annotations

import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from ckptcheck.checks.flinkjvm import FlinkUnavailable, _tool, default_dist_jar
from ckptcheck.model.component import flink_tags
from ckptcheck.model.design import COMPONENTS


def release_tags() -> set[str]:
    """Every tag of the model's rules that names Flink 2.3.0's code (not a pull request's)."""
    return {t for cls in COMPONENTS.values() for tags in flink_tags(cls).values() for t in tags if not t.startswith("#")}


def _classes(jars: list[Path]) -> dict[str, list[tuple[Path, str]]]:
    """Simple class name (``Outer.Inner`` for a nested class) -> (jar, binary name) of every
    Flink class in ``jars``."""
    out: dict[str, list[tuple[Path, str]]] = {}
    for jar in jars:
        with zipfile.ZipFile(jar) as z:
            for name in z.namelist():
                if name.startswith("org/apache/flink/") and name.endswith(".class") and "shaded" not in name:
                    binary = name[:-6].replace("/", ".")
                    simple = binary.rsplit(".", 1)[1].replace("$", ".")
                    out.setdefault(simple, []).append((jar, binary))
    return out


def missing(tags: set[str], jars: list[Path]) -> list[str]:
    """The tags whose class or method is not in ``jars`` (``javap -p``)."""
    classes = _classes(jars)
    wanted = {}
    for tag in tags:
        cls, _, method = tag.rpartition(".")
        wanted[tag] = (classes.get(cls, []), method)
    binaries = sorted({b for found, _ in wanted.values() for b in found})
    methods: dict[str, set[str]] = {}
    javap = _tool("javap")
    for jar in sorted({j for j, _ in binaries}):
        names = [b for j, b in binaries if j == jar]
        text = subprocess.run([javap, "-p", "-cp", str(jar), *names], capture_output=True, text=True, timeout=300).stdout
        for block in re.split(r"^(?=Compiled from)", text, flags=re.M):
            m = re.search(r"(?:class|interface|enum)\s+([\w.$]+)", block)
            if m:
                methods[m.group(1)] = set(re.findall(r"\s([\w$]+)\(", block))
    return sorted(tag for tag, (found, method) in wanted.items()
                  if not any(method in methods.get(b, ()) for _, b in found))


def _jars() -> list[Path]:
    dist = default_dist_jar()
    if dist is None:
        pytest.skip("no Flink distribution (pip install -e '.[flink]')")
    try:
        _tool("javap")
    except FlinkUnavailable as e:
        pytest.skip(str(e))
    return sorted(dist.parent.glob("*.jar"))


def test_every_release_tag_names_a_method_of_flinks_jar():
    tags = release_tags()
    assert len(tags) > 100, "the rules are tagged"
    assert missing(tags, _jars()) == []


def test_a_tag_naming_no_method_is_caught():
    assert missing({"CheckpointCoordinator.noSuchMethod", "NoSuchFlinkClass.run", "CheckpointCoordinator.receiveDeclineMessage"},
                   _jars()) == ["CheckpointCoordinator.noSuchMethod", "NoSuchFlinkClass.run"]
