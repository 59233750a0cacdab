"""Calls to the next game, the rematch button and the computer's strength:
their texts and buttons (every word from locales/*/social.ftl)."""

from __future__ import annotations

from bot.callbacks import AI, CALL_OFF, CALL_SIT, CALL_TOGGLE, CallCb, RematchCb, TableCb
from bot.i18n import SUPPORTED, Texts, esc
from bot.model import LiveTable
from bot.views.common import Tr
from bot.views.keyboard import Button, Keyboard, button, keyboard


def call_word(texts: Texts, word: str) -> bool | None:
    """What ``/call_me <word>`` asks for: True calls on, False off, None a
    word we do not know. A word of any of our languages counts (people write
    in the language they like, not the one their Telegram is set to)."""
    for on, key in ((True, "call-words-on"), (False, "call-words-off")):
        if any(word in texts(lang, key).split() for lang in SUPPORTED):
            return on
    return None


def level_name(tr: Tr, level: str) -> str:
    """``новичок``, ``клуб``, ``мастер``: an engine level as people call it."""
    names = {
        "novice": tr("ai-level-novice"),
        "amateur": tr("ai-level-amateur"),
        "master": tr("ai-level-master"),
    }
    return names.get(level, names["master"])


def ai_level_button(tr: Tr, table: LiveTable) -> Button:
    """The settings screen's row for the computer's strength at this table."""
    return button(
        tr("btn-option", name=tr("opt-ai"), value=level_name(tr, table.ai_level)),
        TableCb.packed(t=table.table_id, op=AI),
    )


def over_keyboard(tr: Tr, table: LiveTable) -> Keyboard:
    """Under the game's final result: the same table again, and the calls."""
    return keyboard(
        [
            [button(tr("btn-rematch"), RematchCb.packed(t=table.table_id))],
            [button(tr("btn-call-me"), CallCb.packed(op=CALL_TOGGLE, c=table.chat_id))],
        ]
    )


def rematch_keyboard(tr: Tr, table: LiveTable) -> Keyboard:
    """Under the game's end in a player's own chat: the group's rematch."""
    return keyboard([[button(tr("btn-rematch"), RematchCb.packed(t=table.table_id))]])


def call_message(tr: Tr, table: LiveTable) -> tuple[str, Keyboard]:
    """The private call when a table opens in a group the person asked about:
    a seat in one tap, and an end to the calls in one tap."""
    free = sum(1 for uid in table.seats if uid is None)
    text = tr("call-new-table", group=esc(table.chat_title), free=free)
    return text, keyboard(
        [
            [
                button(
                    tr("btn-call-sit"),
                    CallCb.packed(op=CALL_SIT, c=table.chat_id, t=table.table_id),
                )
            ],
            [button(tr("btn-call-off"), CallCb.packed(op=CALL_OFF, c=table.chat_id))],
        ]
    )


def call_off_keyboard(tr: Tr, chat_id: int) -> Keyboard:
    """What stays of a call once its person sat down: the way to stop the calls."""
    return keyboard([[button(tr("btn-call-off"), CallCb.packed(op=CALL_OFF, c=chat_id))]])


def call_toggled(tr: Tr, on: bool, reachable: bool, group: str, bot: str) -> str:
    """The answer to ``/call_me`` or its button; ``reachable``: the bot can
    write to the person (else they are told to press Start first)."""
    if not on:
        return tr("call-off", group=esc(group))
    text = tr("call-on", group=esc(group))
    if not reachable:
        text += "\n" + tr("call-on-start", bot=bot)
    return text
