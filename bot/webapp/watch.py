"""Watching a table and stepping through its hands' records in the Mini App.

A member of the table's group who is not seated opens the group's link and
watches: the public part of the table (``public_state``: no card of any
hand) with a spectator's part that holds no card and offers no move. Who is
a member is asked through the bot's one membership check
(:mod:`bot.services.membership`: remembered for a minute, failures never,
a quota of groups per person). A watcher's open stream asks again every
``MEMBER_RECHECK`` seconds (:mod:`bot.webapp.hub`). A record shows a finished
hand whole, so only finished hands are sent (``engine.record`` refuses any
other), to the table's players and its group's members.
"""

from __future__ import annotations

from typing import Any

from bot.model import LiveTable
from bot.services.membership import MEMBER_TTL
from bot.views.common import Tr, bid_text, player_name, seat_name
from bot.views.record import claim_line
from bot.views.results import side_result
from bot.webapp.state import plain
from engine.cards import sort_for_display
from engine.record import HandRecord
from engine.scoring import sides

#: Seconds between the checks that a watcher's open stream is still a
#: member's: no longer than an answer is trusted, so each check is fresh.
MEMBER_RECHECK = MEMBER_TTL


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
