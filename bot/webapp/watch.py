"""Watching a table and stepping through its hands' records in the Mini App.

A member of the table's group who is not seated opens the group's link and
watches: the public part of the table (``public_state``: no card of any
hand) with a spectator's part that holds no card and offers no move. Who is
a member is asked of Telegram (``getChatMember``) and remembered for a
minute, so a page's reconnects do not ask again; a question Telegram did
not answer (the network, an error) is remembered as nothing, and asked
again next time. A watcher's open stream asks again every
``MEMBER_RECHECK`` seconds (:mod:`bot.webapp.hub`). A record shows a finished
hand whole, so only finished hands are sent (``engine.record`` refuses any
other), to the table's players and its group's members.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import ChatMemberRestricted

from bot.model import LiveTable
from bot.views.common import Tr, bid_text, player_name, seat_name
from bot.views.record import claim_line
from bot.views.results import side_result
from bot.webapp.state import plain
from engine.cards import sort_for_display
from engine.record import HandRecord
from engine.scoring import sides

log = logging.getLogger(__name__)

#: Seconds a group member's answer from Telegram is trusted.
MEMBER_TTL = 60.0
#: Seconds between the checks that a watcher's open stream is still a
#: member's: no longer than an answer is trusted, so each check is fresh.
MEMBER_RECHECK = MEMBER_TTL
#: Answers remembered at most (the oldest go first).
MEMBER_CACHE = 10_000

#: Whether a person is in a group: True, False, or None when Telegram did
#: not answer (not known: not remembered, asked again next time).
Ask = Callable[[int, int], Awaitable[bool | None]]


async def ask_telegram(bot: Bot, chat_id: int, user_id: int) -> bool | None:
    """Whether ``user_id`` is in the group now (a restricted member still
    is); None when there is no answer (the network failed, Telegram refused)."""
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except TelegramAPIError as e:  # the network's errors are Telegram's here too
        log.info("getChatMember in %s failed: %s", chat_id, type(e).__name__)
        return None
    if member.status in ("creator", "administrator", "member"):
        return True
    return isinstance(member, ChatMemberRestricted) and member.is_member


class Members:
    """Group membership, asked of Telegram and remembered briefly: only
    Telegram's answers are remembered, never a failure to get one."""

    def __init__(self, ask: Ask, now: Callable[[], float]) -> None:
        self._ask = ask
        self._now = now
        self._known: dict[tuple[int, int], tuple[bool, float]] = {}

    async def __call__(self, chat_id: int, user_id: int) -> bool | None:
        """True or False as Telegram said (lately); None: not known now."""
        key = (chat_id, user_id)
        now = self._now()
        known = self._known.get(key)
        if known is not None and 0 <= now - known[1] < MEMBER_TTL:
            return known[0]
        member = await self._ask(chat_id, user_id)
        if member is None:
            return None
        self._known.pop(key, None)
        self._known[key] = (member, now)
        while len(self._known) > MEMBER_CACHE:
            del self._known[next(iter(self._known))]
        return member


def spectator_part(tr: Tr, live: LiveTable, now: float) -> dict[str, Any]:
    """A spectator's own part of the state: the fields of a seat's part,
    with no card and no move in them."""
    return {
        "seat": -1,
        "partner": -1,
        "my_turn": False,
        "hand": [],
        "hidden": 0,
        "playable": [],
        "bids": [],
        "blind": None,
        "look": None,
        "claim": None,
        "exchange": None,
        "prompt": plain(tr("webapp-spectator")),
        "now": now,
        "spectator": True,
    }


def record_state(tr: Tr, live: LiveTable, rec: HandRecord, done: int) -> dict[str, Any]:
    """A finished hand for the page to step through: the deal, the hands as
    play began (after any blind-nil passes), the bids, each trick, the score
    lines. ``done``: how many hands of the game are over."""
    n = rec.players
    names = [plain(player_name(tr, live, s)) for s in range(n)]
    start = [set(h) for h in rec.dealt]
    for giver, taker, cards in rec.exchanges:
        start[giver] -= set(cards)
        start[taker] |= set(cards)
    bids = {s: b for s, b in rec.bids}
    score: list[str] = []
    if rec.claim is not None:
        score.append(plain(claim_line(tr, names[rec.claim[0]], rec.claim[1])))
    for i in range(len(sides(n))):
        score += [plain(line) for line in side_result(tr, live, rec.line, i)]
    return {
        "table": live.table_id,
        "hand": rec.hand_no + 1,
        "hands_done": done,
        "players": n,
        "dealer": rec.dealer,
        "title": plain(tr("table-hand", hand=rec.hand_no + 1, dealer=names[rec.dealer])),
        "seats": [
            {
                "name": names[s],
                "place": plain(seat_name(tr, n, s)),
                "bid": bids.get(s),
                "bid_text": _bid(tr, bids.get(s), rec.blind[s]),
                "dealt": sort_for_display(list(rec.dealt[s])),
                "start": sort_for_display(list(start[s])),
            }
            for s in range(n)
        ],
        "tricks": [
            {
                "leader": t.leader,
                "cards": [[s, c] for s, c in t.cards],
                "winner": t.winner,
                "text": plain(
                    tr("webapp-taken-by", name=names[t.winner])
                    if t.winner is not None
                    else tr("webapp-cut-by-claim")
                ),
                "step": plain(tr("webapp-record-trick", n=k + 1, total=len(rec.tricks))),
            }
            for k, t in enumerate(rec.tricks)
        ],
        "score": score,
    }


def _bid(tr: Tr, bid: int | None, blind: bool) -> str:
    return "" if bid is None else plain(bid_text(tr, bid, blind))
