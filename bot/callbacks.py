"""Inline-button payloads. Each stays far below Telegram's 64 bytes: a
one-letter prefix and small ints. Anything that does not parse as one of
these is a stale or forged button and gets a short alert."""

from __future__ import annotations

from typing import Any, ClassVar

from aiogram.filters.callback_data import CallbackData


class Cb(CallbackData, prefix="~"):
    """A button payload: aiogram parses it (``unpack``, ``filter()``); the views
    write it with :meth:`packed`, the same string as ``pack()`` without building
    and validating a model (thirteen of them in every hand render)."""

    tag: ClassVar[str] = "~"
    fields: ClassVar[tuple[str, ...]] = ()
    defaults: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        cls.tag = kwargs["prefix"]
        super().__init_subclass__(**kwargs)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.fields = tuple(cls.model_fields)
        cls.defaults = {n: f.default for n, f in cls.model_fields.items() if not f.is_required()}

    @classmethod
    def packed(cls, **values: int | str) -> str:
        """``cls(**values).pack()``, cheaply, in aiogram's format: the prefix and
        the values joined by ``:`` (a test holds it to ``pack()``). For ints and
        short fixed words: unlike ``pack()`` it neither turns a bool into ``1``
        nor refuses a ``:`` in a value or data over 64 bytes."""
        if cls.defaults:
            values = {**cls.defaults, **values}
        return ":".join([cls.tag, *[str(values[name]) for name in cls.fields]])


class MoveCb(Cb, prefix="m"):
    """A game action: table, the game's move number it was offered at, action."""

    t: int
    s: int
    a: int


class LookCb(Cb, prefix="l"):
    """Open one's cards (giving up blind nil for this hand)."""

    t: int
    s: int


class WhyCb(Cb, prefix="w"):
    """A card shown but not playable now: explains why, changes nothing."""

    t: int
    s: int
    a: int


class HintCb(Cb, prefix="i"):
    """The 💡 in a hand: the master's choice for move ``s`` of table ``t``."""

    t: int
    s: int


class HandCb(Cb, prefix="h"):
    """Bring one's hand for this table to the bottom of the private chat."""

    t: int


class ChartCb(Cb, prefix="c"):
    """The score chart of a table's game, sent to the presser's private chat."""

    t: int


class BackCb(Cb, prefix="b"):
    """Take one's seat back from the computer."""

    t: int


class LookupCb(Cb, prefix="q"):
    """A quick lookup under the table message: answered without a group message."""

    t: int
    k: str


class GestureCb(Cb, prefix="g"):
    """An afterword gesture: game, the receiver's seat, the gesture's index."""

    g: int
    s: int
    k: int


class ForgetCb(Cb, prefix="f"):
    """Confirm (1) or keep (0) the erasure of one's personal data."""

    yes: int


class TableCb(Cb, prefix="t"):
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
AI = "ai"  # the computer's strength at the table, cycled


class CallCb(Cb, prefix="cm"):
    """«Call me to the next game»: ``op`` on the calls of group ``c``; ``t``
    the table a call offers a seat at."""

    op: str
    c: int
    t: int = 0


# Call operations (CallCb.op). CALL_TOGGLE is the 🔔 under a final result:
# it turns the calls on (pressed again, they stay on).
CALL_TOGGLE, CALL_OFF, CALL_SIT = "tg", "off", "sit"


class CallOffCb(Cb, prefix="co"):
    """🔕 under the answer to ``/call_me`` in group ``c``: the calls of user
    ``u`` off; for ``u`` alone to press."""

    c: int
    u: int


class RematchCb(Cb, prefix="rm"):
    """«Ещё партию»: a new table like finished table ``t``, the same people seated."""

    t: int


class ClaimCb(Cb, prefix="cl"):
    """«Остальные мои»: claim every remaining trick, offered at move ``s`` as
    the presser's ``n``-th claim of the hand (a double press is stale)."""

    t: int
    s: int
    n: int


class ClaimVoteCb(Cb, prefix="cv"):
    """A vote on the claimer's ``n``-th claim of the hand, made at move ``s``:
    accept (1) or refuse (0)."""

    t: int
    s: int
    n: int
    v: int


class RecordCb(Cb, prefix="hr"):
    """A finished hand's record, sent to the presser's private chat: table,
    hand number (from 1)."""

    t: int
    n: int


class DayMoveCb(Cb, prefix="dm"):
    """«Сдача дня»: a bid or a card of the person's hand, for day ``d`` at move ``s``."""

    d: int
    s: int
    a: int


class DayWhyCb(Cb, prefix="dw"):
    """«Сдача дня»: a card shown but not playable now: explains why, changes nothing."""

    d: int
    s: int
    a: int


class DayRecordCb(Cb, prefix="dr"):
    """«Сдача дня»: the best line of day ``d``, sent to the presser's private chat."""

    d: int
