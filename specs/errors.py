"""Bad input: one clear line naming the file, the field and what was expected."""

from __future__ import annotations


class InputError(ValueError):
    def __init__(self, source: str, field: str, expected: str):
        self.source = source
        self.field = field
        self.expected = expected
        super().__init__(f"{source}: {field}: {expected}")
