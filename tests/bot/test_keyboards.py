"""The views' own button JSON is what aiogram would build and parse.

``Cb.packed`` writes callback data without aiogram's models, and
``bot.views.keyboard`` writes the Bot API's JSON directly: after an aiogram
upgrade these tests say whether its format still is the one we write.
"""

from __future__ import annotations

from typing import Any

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from hypothesis import given
from hypothesis import strategies as st

from bot import callbacks
from bot.callbacks import Cb, MoveCb, TableCb
from bot.views.keyboard import button, keyboard, link, web_app

CLASSES = sorted(
    (
        c
        for c in vars(callbacks).values()
        if isinstance(c, type) and issubclass(c, Cb) and c is not Cb
    ),
    key=lambda c: c.tag,
)
WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6)


def test_every_button_payload_class_is_covered() -> None:
    tags = [c.tag for c in CLASSES]
    assert len(CLASSES) >= 11 and len(set(tags)) == len(tags)


@given(st.data())
def test_packed_is_aiograms_pack_and_unpacks_to_the_same_values(data: st.DataObject) -> None:
    for cls in CLASSES:
        values: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            values[name] = data.draw(
                WORDS if field.annotation in (str, "str") else st.integers(-(10**12), 10**12)
            )
        assert cls.packed(**values) == cls(**values).pack()
        assert cls.unpack(cls.packed(**values)) == cls(**values)


def test_packed_fills_defaults_like_the_model() -> None:
    assert TableCb.packed(t=7, op="go") == TableCb(t=7, op="go").pack() == "t:7:go:0"
    assert MoveCb.packed(a=3, t=1, s=2) == "m:1:2:3"  # keyword order does not matter


def test_keyboard_json_is_what_aiograms_models_dump() -> None:
    ours = keyboard(
        [
            [button("♠A", "m:1:2:3"), link("Бот", "https://t.me/piki_bot")],
            [web_app("🃏 Стол", "https://example.org/app?t=1")],
        ]
    )
    theirs = InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(text="♠A", callback_data="m:1:2:3"),
                InlineKeyboardButton(text="Бот", url="https://t.me/piki_bot"),
            ],
            [
                InlineKeyboardButton(
                    text="🃏 Стол", web_app=WebAppInfo(url="https://example.org/app?t=1")
                )
            ],
        ]
    )
    assert ours == theirs.model_dump(mode="json", exclude_none=True)
    assert InlineKeyboardMarkup.model_validate(ours) == theirs
