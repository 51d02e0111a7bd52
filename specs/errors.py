"""Bad input: one clear line naming the file, the field and what was expected."""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path


class InputError(ValueError):
    def __init__(self, source: str, field: str, expected: str):
        self.source = source
        self.field = field
        self.expected = expected
        super().__init__(f"{source}: {field}: {expected}")


def did_you_mean(word: str, known) -> str:
    """`` (did you mean 'x'?)`` for the closest known name, or an empty string."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def read_toml(spec: str, what: str, known: str, names=()) -> tuple[str, dict]:
    """Parse the TOML file ``spec`` -> (file stem, table).  ``known`` says what else ``spec``
    could have named, and ``names`` lists those names for a "did you mean"."""
    p = Path(spec)
    if not spec.strip():
        raise InputError(repr(spec), what, f"is empty; expected {known}")
    if p.is_dir():
        raise InputError(spec, what, f"is a folder; expected {known}")
    if not p.is_file():
        raise InputError(spec, what, f"no such {what} or file{did_you_mean(spec, names)}; expected {known}")
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise InputError(spec, "file", f"cannot be read ({e.strerror})") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raise InputError(spec, "toml", "starts with a UTF-8 byte-order mark; save the file as UTF-8 without BOM")
    try:
        return p.stem, tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise InputError(spec, "toml", f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(spec, "toml", f"not valid TOML ({e})") from None
