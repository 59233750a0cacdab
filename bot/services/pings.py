""" "Your turn" pings in real-time games.

The private hand message is only edited as the game goes on, and Telegram
never notifies about an edit: a player who switched to another chat would
learn of their turn when the timer ran out. So a turn that has waited
``TURN_PING_AFTER`` seconds (and again with a third of the time left) gets a
short message that does notify; it is deleted as soon as that seat moves,
so the private chat does not fill with pings. Daily games send the hand
itself anew at each turn, which notifies already.
"""

from __future__ import annotations

from bot.callbacks import HandCb
from bot.i18n import esc
from bot.model import LiveTable
from bot.outbox import enqueue_delete, enqueue_send
from bot.services.live import Registry
from bot.storage.db import Conn
from bot.views.keyboard import button, keyboard


def ping_key(game_id: int, seat: int) -> str:
    return f"ping:{game_id}:{seat}"


async def send(conn: Conn, reg: Registry, live: LiveTable, seat: int, left: str) -> None:
    """The ping for ``seat`` (a newer one replaces the older: a new message
    notifies, an edit would not)."""
    uid = live.seats[seat]
    assert uid is not None and live.game_id is not None
    tr = reg.tr_user(uid, live.lang)
    key = ping_key(live.game_id, seat)
    markup = keyboard([[button(tr("btn-to-hand"), HandCb.packed(t=live.table_id))]])
    await enqueue_delete(conn, uid, key)
    await enqueue_send(
        conn, uid, tr("turn-ping", group=esc(live.chat_title), left=left), markup, key=key
    )
    live.pinged = seat


async def clear(conn: Conn, live: LiveTable) -> None:
    """The pinged seat moved (or the turn ended otherwise): its ping goes."""
    seat, live.pinged = live.pinged, None
    if seat is None or live.game_id is None:
        return
    uid = live.seats[seat]
    if uid is not None:
        await enqueue_delete(conn, uid, ping_key(live.game_id, seat))
