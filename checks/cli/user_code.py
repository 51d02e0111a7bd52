"""An exception raised in a user's own variant code, said in one line (exit 2): the module, the
class and method, the exception and the line, instead of a traceback through the engine.  An
exception raised inside ckptcheck, or that no frame of the user's code is on, is ckptcheck's own,
and keeps its traceback."""

from __future__ import annotations

import re
import sys
import sysconfig
from pathlib import Path

import ckptcheck.checks

_ROOT = Path(ckptcheck.checks.__file__).resolve().parents[1]  # the folder that holds model/, specs/, checks/, reports/
_OURS = tuple(_ROOT / name for name in ("model", "specs", "checks", "reports"))
_LIBRARIES = {Path(p).resolve() for p in (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
                                           sysconfig.get_paths()["platlib"], sys.prefix, sys.base_prefix) if p}
# a worker process's traceback, as text: its frames and the exception on its last line
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def _is_ours(path: str) -> bool:
    return not path.startswith("<") and any(Path(path).resolve().is_relative_to(d) for d in _OURS)


def _is_user_file(path: str) -> bool:
    """A file of the user's own code: not ckptcheck's, not Python's library, not an installed package."""
    if path.startswith("<"):
        return False
    p = Path(path).resolve()
    return not any(p.is_relative_to(d) for d in (*_OURS, *_LIBRARIES))


def user_code_error(e: BaseException) -> str | None:
    """One line for ``e`` if a frame of the user's own code raised it (the innermost such frame), else None."""
    tb = e.__traceback__
    inner = last = None
    while tb is not None:
        if _is_user_file(tb.tb_frame.f_code.co_filename):
            inner = tb
        last, tb = tb, tb.tb_next
    if inner is not None:
        if _is_ours(last.tb_frame.f_code.co_filename):
            return None  # raised inside ckptcheck itself, though a variant called it: ckptcheck's own error, with its traceback
        frame = inner.tb_frame
        owner = frame.f_locals.get("self")
        where = f"{type(owner).__name__}.{frame.f_code.co_name}" if owner is not None else frame.f_code.co_name
        module = frame.f_globals.get("__name__", Path(frame.f_code.co_filename).stem)
        return _words(module, where, f"{type(e).__name__}: {e}", frame.f_code.co_filename, inner.tb_lineno)
    text = str(e)  # a search worker's failure carries its traceback as text (checks.engine.parallel.WorkerError)
    every = list(_FRAME.finditer(text))
    frames = [m for m in every if _is_user_file(m.group(1))]
    if not frames or "Traceback" not in text or _is_ours(every[-1].group(1)):
        return None
    path, line, func = frames[-1].groups()
    last = text.strip().splitlines()[-1].strip()
    return _words(Path(path).stem, func, last, path, int(line))


def _words(module: str, where: str, exception: str, path: str, line: int) -> str:
    return (f"{module}: {where} raised {exception} ({path}:{line}): an error in the variant's own code, not a verdict"
            " on the design; fix it and run again")

