"""Refusals the user is told about: a locale key and its arguments.

Raised by services before anything is written, so a refusal never changes
state; handlers turn it into a short alert or reply in the user's language.
"""

from __future__ import annotations

from typing import Any

from bot.i18n import esc
from bot.model import LiveTable, paused_key


class UserError(Exception):
    def __init__(self, key: str, **args: Any) -> None:
        super().__init__(key)
        self.key = key
        self.args_ = args


def paused_error(live: LiveTable) -> UserError:
    """The refusal of a move while the game waits."""
    return UserError(paused_key(live), group=esc(live.chat_title))
