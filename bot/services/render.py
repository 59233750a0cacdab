"""Queue what people should see after a change, inside the change's transaction.

Keys name logical messages: the group's table message is edited in place;
each hand gets one private message per player, edited as the hand goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.callbacks import BackCb
from bot.model import LiveTable, TableStatus
from bot.outbox import Markup, enqueue_delete, enqueue_put, enqueue_repost, enqueue_send
from bot.pace import is_daily
from bot.services.live import Registry
from bot.storage import repo_tail
from bot.storage.db import Conn
from bot.views.common import Tr, public
from bot.views.hand import hand_message
from bot.views.keyboard import Keyboard, button, keyboard
from bot.views.links import group_link
from bot.views.results import LastTrick, private_hand_result
from bot.views.table import game_table, open_table, options_screen
from engine.view import views


def app_link(reg: Registry, live: LiveTable) -> str | None:
    """The Mini App's link for the group (WEBAPP_URL and WEBAPP_SHORT_NAME set)."""
    s = reg.ctx.settings
    if s.webapp_url is None or s.webapp_short_name is None or not reg.ctx.bot_username:
        return None
    return group_link(reg.ctx.bot_username, s.webapp_short_name, live.table_id)


def table_key(table_id: int) -> str:
    return f"table:{table_id}"


def hand_key(live: LiveTable, seat: int) -> str:
    """The seat's private message for the hand being played."""
    return _hand_key(live.game_id, public(live).hand_no, seat)


def _hand_key(game_id: int | None, hand_no: int, seat: int) -> str:
    return f"hand:{game_id}:{hand_no}:{seat}"


async def table_message(
    conn: Conn,
    reg: Registry,
    live: LiveTable,
    options: bool = False,
    *,
    repost: Repost | None = None,
) -> None:
    """The group's table message as it stands; with ``repost``, posted anew
    at the bottom of the chat and the old one deleted."""
    tr = reg.tr_group(live)
    if live.game is not None and live.status != TableStatus.OPEN:
        text, markup = game_table(
            tr, live, public(live), reg.ctx.clock.now(), reg.ctx.settings.zone, app_link(reg, live)
        )
    elif options:
        text, markup = options_screen(tr, live)
    else:
        text, markup = open_table(tr, live)
    key = table_key(live.table_id)
    if repost is None:
        await enqueue_put(conn, live.chat_id, key, text, markup, thread=live.thread_id)
    else:
        await enqueue_repost(
            conn, live.chat_id, key, text, markup, old_message_id=repost.old, thread=live.thread_id
        )


@dataclass(frozen=True, slots=True)
class Repost:
    """Post the table message anew; ``old`` is the one to delete (if known)."""

    old: int | None


# The table message stays among the newest messages of the group: with this
# many of the bot's messages already under it, a new hand posts it anew.
BURIED_UNDER = 2


async def buried(reg: Registry, live: LiveTable) -> Repost | None:
    """Whether the table message has sunk out of view (read before a change's
    transaction: a read, which the transaction need not hold the connection for)."""
    old = await repo_tail.message_of(reg.ctx.db, table_key(live.table_id))
    tail = await repo_tail.group_tail(reg.ctx.db, live.chat_id)
    if old is None or tail is None or tail - old < BURIED_UNDER:
        return None
    return Repost(old)


async def hands(
    conn: Conn,
    reg: Registry,
    live: LiveTable,
    new_hand: bool = False,
    only: set[int] | None = None,
    turn: int | None = None,
    fresh: bool = False,
) -> None:
    """Each seated human's private hand message. A new hand is a new message
    (so it notifies), later changes edit it. In a daily game the player whose
    ``turn`` it now is gets the hand again as a new message at the bottom of
    the chat: an edit would not notify, and the move may be a day away."""
    assert live.game is not None
    people = [
        (seat, uid)
        for seat, uid in live.humans()
        if seat not in live.blocked and (only is None or seat in only)
    ]
    seat_views = views(live.game, [seat for seat, _ in people])
    for (seat, uid), v in zip(people, seat_views, strict=True):
        tr = reg.tr_user(uid, live.lang)
        text, markup = hand_message(tr, live, v, reg.ctx.settings.webapp_url)
        key = _hand_key(live.game_id, v.hand_no, seat)
        if new_hand:
            await enqueue_send(conn, uid, text, markup, key=key)
        elif fresh or (turn == seat and is_daily(live.pace)):
            await enqueue_delete(conn, uid, key)
            await enqueue_send(conn, uid, text, markup, key=key)
        else:
            await enqueue_put(conn, uid, key, text, markup)


def back_keyboard(tr: Tr, live: LiveTable) -> Keyboard:
    return keyboard([[button(tr("btn-back"), BackCb.packed(t=live.table_id))]])


async def closed_hands(
    conn: Conn,
    reg: Registry,
    live: LiveTable,
    hand_no: int,
    line: dict[str, Any],
    last: LastTrick | None,
) -> None:
    """The finished hand's private messages keep its last trick and the
    player's side's result, without buttons."""
    for seat, uid in live.humans():
        if seat in live.blocked:
            continue
        tr = reg.tr_user(uid, live.lang)
        key = _hand_key(live.game_id, hand_no, seat)
        await enqueue_put(conn, uid, key, private_hand_result(tr, live, line, seat, last))


async def group_note(conn: Conn, live: LiveTable, text: str, markup: Markup = None) -> None:
    """A new line in the table's group, in its topic (``markup``: its buttons)."""
    await enqueue_send(
        conn, live.chat_id, text, markup, disable_notification=True, thread=live.thread_id
    )
