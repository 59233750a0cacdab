"""Inline mode in words: the results «@бот» lists in any chat, each a title
and a description only the person sees, and the card that goes into the
chat when they pick it.

A card is sent by the person into a chat we know nothing of, so it holds only
what the table's group sees: the public view's score, hand and whose move,
never a card of any hand (not even during bidding or a claim's vote), and
only the names of the people who sat at that table.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any

from aiogram.types import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
)

from bot.i18n import esc
from bot.model import LiveTable, Pause
from bot.views.club import record_counts
from bot.views.common import Tr, members_name, num, public
from bot.views.links import group_link
from bot.views.sides import standing_of
from bot.views.table import deadline_text, score_lines, status_line, turn_line

#: The start parameter of the button shown when a person has no game
#: (``/start inline``: the private chat's greeting says how to start one).
START_PARAMETER = "inline"
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True, slots=True)
class Link:
    """Where a game's card leads: the table's group message, or the Mini App."""

    url: str
    app: bool


def plain(text: str) -> str:
    """A title or description is plain text: our HTML without its tags
    (names are escaped in it, so every ``<`` left is ours)."""
    return html.unescape(_TAG.sub("", text))


def table_link(
    table: LiveTable, message_id: int | None, bot_username: str, app_name: str
) -> Link | None:
    """The Mini App when it is registered (``app_name``: works from any chat),
    else the table's message in its supergroup (``t.me/c/…``: opens for its
    members only), else none: a basic group's messages have no links."""
    if app_name:
        return Link(group_link(bot_username, app_name, table.table_id), True)
    digits = str(table.chat_id)
    if message_id is None or not digits.startswith("-100"):
        return None
    base = f"https://t.me/c/{digits[4:]}"
    thread = f"/{table.thread_id}" if table.thread_id else ""
    return Link(f"{base}{thread}/{message_id}", False)


def my_move(table: LiveTable, seat: int) -> bool:
    """Whether the table waits for this seat's move now."""
    v = public(table)
    return v.to_move == seat and table.claim_vote is None and table.paused == Pause.NONE


def _waiting_line(tr: Tr, table: LiveTable, seat: int | None, now: float, zone: tzinfo) -> str:
    """What the game waits for: a claim's vote, a pause, the person's own
    move (``seat``; None on the shared card) or someone's."""
    v = public(table)
    if table.claim_vote is not None:
        return tr("inline-claim-vote")
    if table.paused != Pause.NONE:
        return tr("inline-paused")
    if seat is not None and my_move(table, seat):
        deadline = deadline_text(tr, table, now, zone)
        return tr("inline-your-move", deadline=f" · {deadline}" if deadline else "")
    return turn_line(tr, table, v, now, zone)


def game_result(
    tr: Tr, table: LiveTable, seat: int, now: float, zone: tzinfo, link: Link | None
) -> InlineQueryResultArticle:
    """One running game: the group, what it waits for, the score, the hand
    and trick; picked, the card with the button to the table."""
    v = public(table)
    group = esc(table.chat_title)
    score = " · ".join(
        f"{members_name(tr, table, side.members)} {num(side.total)}" for side in standing_of(v)
    )
    hand = status_line(tr, v, "lookup-status")
    description = (
        plain(_waiting_line(tr, table, seat, now, zone))
        + "\n"
        + plain(tr("inline-status", hand=hand, score=score))
    )
    card = "\n".join(
        [
            tr("inline-card-head", group=group),
            *score_lines(tr, table, v),
            hand,
            _waiting_line(tr, table, None, now, zone),
        ]
    )
    markup = None
    if link is not None:
        label = tr("inline-open-app" if link.app else "inline-open-table")
        markup = InlineKeyboardMarkup(
            inline_keyboard=[[InlineKeyboardButton(text=label, url=link.url)]]
        )
    return InlineQueryResultArticle(
        id=f"g{table.table_id}",
        title=plain(tr("inline-where", group=group)),
        description=description,
        input_message_content=InputTextMessageContent(message_text=card, parse_mode="HTML"),
        reply_markup=markup,
    )


def stats_result(
    tr: Tr, name: str, authority: int, stats: Mapping[str, Any] | None
) -> InlineQueryResultArticle:
    """The person's own record: games, wins, contracts and nils made, Authority."""

    counts = record_counts(stats)
    card = tr("inline-stats-card", name=esc(name), authority=authority, **counts)
    return InlineQueryResultArticle(
        id="stats",
        title=plain(tr("inline-stats-title")),
        description=plain(
            tr("inline-stats-text", games=counts["games"], wins=counts["wins"], authority=authority)
        ),
        input_message_content=InputTextMessageContent(message_text=card, parse_mode="HTML"),
    )


def no_games_result(tr: Tr, bot_username: str) -> InlineQueryResultArticle:
    """No running game: picked, an invitation to play into the chat."""
    return InlineQueryResultArticle(
        id="start",
        title=plain(tr("inline-no-games-title")),
        description=plain(tr("inline-no-games-text")),
        input_message_content=InputTextMessageContent(
            message_text=tr("inline-no-games-card", bot=esc(bot_username)), parse_mode="HTML"
        ),
    )


def start_button(tr: Tr) -> InlineQueryResultsButton:
    """Above the results: to the private chat, whose greeting says how to start."""
    return InlineQueryResultsButton(
        text=plain(tr("inline-start-button")), start_parameter=START_PARAMETER
    )
