"""A finished hand's record as a private message: short lines a phone shows
whole and a forward keeps readable (suit symbols, no monospace block).

The message must fit Telegram's 4096 characters whatever the players are
called: each name appears some sixty times (the deal, the bids, four per
trick, the score), so in the record a name is cut to ``NAME_MAX``
characters. With four such names and the longest group title (128) the
record stays well within the limit.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from bot.callbacks import RecordCb
from bot.i18n import esc
from bot.model import LiveTable
from bot.views.common import Tr, cards_line, player_name, trick_text
from bot.views.keyboard import Keyboard, button, keyboard, web_app
from bot.views.links import table_url
from bot.views.results import side_result
from engine.cards import card_label
from engine.record import HandRecord
from engine.scoring import sides

#: Characters of a player's name in a record, «…» included: 64-character
#: names (Telegram allows as many) would take the record past 4096.
NAME_MAX = 16


def short_name(name: str) -> str:
    """A name as the record shows it: whole up to NAME_MAX, else cut with «…»."""
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1].rstrip() + "…"


def record_text(tr: Tr, table: LiveTable, rec: HandRecord) -> str:
    """The deal, the bids in their order, each trick (its leader's card
    first, then who took it), and the score as the result told it; the
    players' names cut to NAME_MAX (the table itself is left as it is)."""
    table = dataclasses.replace(table, names={u: short_name(n) for u, n in table.names.items()})
    name = [player_name(tr, table, s) for s in range(rec.players)]
    out = [
        tr(
            "record-title",
            hand=rec.hand_no + 1,
            dealer=name[rec.dealer],
            group=esc(table.chat_title),
        ),
        "",
        tr("record-dealt"),
    ]
    out += [
        tr("record-hand", name=name[s], cards=cards_line(rec.dealt[s])) for s in range(rec.players)
    ]
    out.append("")
    bids = " · ".join(
        tr("record-bid", name=name[s], bid=_bid(tr, b, rec.blind[s])) for s, b in rec.bids
    )
    out.append(tr("record-bids", bids=bids))
    for giver, taker, cards in rec.exchanges:
        out.append(
            tr(
                "record-pass",
                giver=name[giver],
                taker=name[taker],
                cards=" ".join(card_label(c) for c in cards),
            )
        )
    out.append("")
    out.append(tr("record-tricks"))
    for k, trick in enumerate(rec.tricks):
        played = trick_text(tr, table, trick.cards)
        if trick.winner is None:
            out.append(tr("record-trick-cut", n=k + 1, cards=played))
        else:
            out.append(tr("record-trick", n=k + 1, cards=played, winner=name[trick.winner]))
    if rec.claim is not None:
        out.append(claim_line(tr, name[rec.claim[0]], rec.claim[1]))
    out.append("")
    line: dict[str, Any] = rec.line
    for i in range(len(sides(rec.players))):
        out += side_result(tr, table, line, i)
    return "\n".join(out)


def claim_line(tr: Tr, name: str, tricks: int) -> str:
    """How a claim ended the hand: who claimed, how many tricks it took."""
    return tr("record-claim", name=name, tricks=tricks)


def _bid(tr: Tr, bid: int, blind: bool) -> str:
    if bid == 0:
        return tr("bid-blind" if blind else "bid-nil")
    return str(bid)


def record_button(tr: Tr, table_id: int, hand_no: int) -> Keyboard:
    """The «📜» under a hand's result in the group: the record, privately."""
    return keyboard([[button(tr("btn-record"), RecordCb.packed(t=table_id, n=hand_no + 1))]])


def record_app_button(
    tr: Tr, webapp_url: str | None, table_id: int, hand_no: int
) -> Keyboard | None:
    """Under the private record: the same hand drawn in the Mini App, trick by trick."""
    if webapp_url is None:
        return None
    url = f"{table_url(webapp_url, table_id)}&r={hand_no + 1}"
    return keyboard([[web_app(tr("btn-record-app"), url)]])
