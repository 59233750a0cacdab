"""Inline-button payloads. Each stays far below Telegram's 64 bytes: a
one-letter prefix and small ints. Anything that does not parse as one of
these is a stale or forged button and gets a short alert."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class MoveCb(CallbackData, prefix="m"):
    """A game action: table, the game's move number it was offered at, action."""

    t: int
    s: int
    a: int


class LookCb(CallbackData, prefix="l"):
    """Open one's cards (giving up blind nil for this hand)."""

    t: int
    s: int


class WhyCb(CallbackData, prefix="w"):
    """A card shown but not playable now: explains why, changes nothing."""

    t: int
    s: int
    a: int


class HintCb(CallbackData, prefix="i"):
    """The 💡 in a hand: the master's choice for move ``s`` of table ``t``."""

    t: int
    s: int


class HandCb(CallbackData, prefix="h"):
    """Bring one's hand for this table to the bottom of the private chat."""

    t: int


class ChartCb(CallbackData, prefix="c"):
    """The score chart of a table's game, sent to the presser's private chat."""

    t: int


class BackCb(CallbackData, prefix="b"):
    """Take one's seat back from the computer."""

    t: int


class LookupCb(CallbackData, prefix="q"):
    """A quick lookup under the table message: answered without a group message."""

    t: int
    k: str


class GestureCb(CallbackData, prefix="g"):
    """An afterword gesture: game, the receiver's seat, the gesture's index."""

    g: int
    s: int
    k: int


class ForgetCb(CallbackData, prefix="f"):
    """Confirm (1) or keep (0) the erasure of one's personal data."""

    yes: int


class TableCb(CallbackData, prefix="t"):
    """Table set-up and management: ``op`` names the operation."""

    t: int
    op: str
    v: int = 0


# Table operations (TableCb.op); short on purpose.
SIT, STAND, PRESET, OPTIONS, OPTION, CLOSE_OPTIONS, START = (
    "sit",
    "up",
    "pre",
    "opt",
    "o",
    "ok",
    "go",
)
CANCEL_YES, CANCEL_NO = "cy", "cn"
PACE = "pace"
HINTS = "hint"  # the table option «Подсказки», on and off
