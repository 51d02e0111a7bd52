"""Bad input: one clear line naming the file, the field and what was expected."""

from __future__ import annotations

import tomllib
from pathlib import Path


class InputError(ValueError):
    def __init__(self, source: str, field: str, expected: str):
        self.source = source
        self.field = field
        self.expected = expected
        super().__init__(f"{source}: {field}: {expected}")


def read_toml(spec: str, what: str, known: str) -> tuple[str, dict]:
    """Parse the TOML file ``spec`` -> (file stem, table); ``known`` lists the named
    alternatives for the message when no such file exists."""
    p = Path(spec)
    if not p.is_file():
        raise InputError(spec, what, f"not {known} and no such file")
    try:
        return p.stem, tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise InputError(spec, "toml", f"not valid TOML ({e})") from None
