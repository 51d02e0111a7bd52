"""Where results go: output paths checked before any work starts, and names made safe as file
names (a design named ``../escaped`` writes inside ``--out``, as ``escaped``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ckptcheck.specs.errors import InputError


def slug(name: str) -> str:
    """A file-name-safe form of a design, property or trace name: letters, digits, ``_.-``; no
    leading dots (so never ``..``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "unnamed"


def _nearest_existing(p: Path) -> Path:
    q = p
    while not q.exists() and q != q.parent:
        q = q.parent
    return q


def out_dir(path: str, option: str) -> Path:
    """``path`` can be (or become) a folder we may write into; else one line, before the work."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InputError(option, path, "exists and is not a folder; name a folder for the output")
    base = _nearest_existing(p)
    if not base.is_dir():
        raise InputError(option, path, f"{base} is a file, so no folder can be made there")
    if not os.access(base, os.W_OK | os.X_OK):
        raise InputError(option, path, f"cannot write into {base} (permission denied)")
    return p


def out_file(path: str, option: str) -> Path:
    """``path`` can be written as a file; else one line, before the work."""
    p = Path(path)
    if p.is_dir():
        raise InputError(option, path, "is a folder; name a file for the output")
    base = _nearest_existing(p.parent)
    if not base.is_dir():
        raise InputError(option, path, f"{base} is a file, so no folder can be made there")
    if not os.access(base, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise InputError(option, path, "cannot be written (permission denied)")
    return p
