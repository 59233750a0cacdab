"""Refusals the user is told about: a locale key and its arguments.

Raised by services before anything is written, so a refusal never changes
state; handlers turn it into a short alert or reply in the user's language.
"""

from __future__ import annotations

from typing import Any


class UserError(Exception):
    def __init__(self, key: str, **args: Any) -> None:
        super().__init__(key)
        self.key = key
        self.args_ = args
