"""The memo engine's compiled loop is optional: ``pip install`` builds it where a C compiler is at
hand, and installs without it (the Python loop then runs) where none is."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ckptcheck.checks.engine import memo_core

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="no C compiler on this machine")
@pytest.mark.skipif(bool(os.environ.get("CKPTCHECK_NO_COMPILE")), reason="installed without the loop on purpose (CKPTCHECK_NO_COMPILE)")
def test_the_install_built_the_compiled_loop_where_a_compiler_exists():
    assert memo_core.available(), "a C compiler is here, yet `pip install` left the memo engine without its compiled loop"


@pytest.mark.claims
def test_without_a_compiler_the_package_still_builds_and_leaves_the_loop_out(tmp_path):
    """``CC=/bin/false``: the wheel builds, holds no extension, and its memo engine runs the
    Python loop (the import falls back)."""
    env = dict(os.environ, CC="/bin/false", CXX="/bin/false")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    wheel = next(tmp_path.glob("ckptcheck-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "ckptcheck/checks/engine/memo_core.py" in names
    assert not [n for n in names if n.endswith((".so", ".pyd"))], names
