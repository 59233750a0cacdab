"""Inline keyboards built as the Bot API's own JSON.

aiogram's ``InlineKeyboardButton``/``InlineKeyboardMarkup`` models validate
every field, and the outbox dumps them back to JSON to store them: for a hand
of thirteen cards that was about half a millisecond of each move's render.
The outbox stores and sends JSON, so the views write that JSON directly, in
the shape the Bot API documents for ``InlineKeyboardMarkup``.
"""

from __future__ import annotations

from typing import Any

Button = dict[str, Any]
Keyboard = dict[str, list[list[Button]]]


def button(text: str, data: str) -> Button:
    """A button whose press comes back as a callback query with ``data``."""
    return {"text": text, "callback_data": data}


def link(text: str, url: str) -> Button:
    """A button that opens ``url``."""
    return {"text": text, "url": url}


def web_app(text: str, url: str) -> Button:
    """A button that opens the Mini App at ``url`` (private chats only)."""
    return {"text": text, "web_app": {"url": url}}


def keyboard(rows: list[list[Button]]) -> Keyboard:
    """The ``reply_markup`` of a message with these rows of buttons."""
    return {"inline_keyboard": rows}


def rows_by(buttons: list[Button], width: int) -> list[list[Button]]:
    """``buttons`` in rows of ``width`` (the last one shorter), in order."""
    return [buttons[i : i + width] for i in range(0, len(buttons), width)]


def rows_of(markup: Keyboard | None) -> list[list[Button]]:
    """The rows of ``markup`` (none for no keyboard), to add one to them."""
    return [] if markup is None else markup["inline_keyboard"]
