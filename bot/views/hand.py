"""A player's private hand message: own cards, the table, and the buttons
for exactly the actions that player may take now."""

from __future__ import annotations

from collections.abc import Callable

from bot.callbacks import HintCb, LookCb, MoveCb, WhyCb
from bot.i18n import esc
from bot.model import LiveTable
from bot.views.claim import claim_part
from bot.views.common import (
    Tr,
    card,
    cards_line,
    player_name,
    seat_name,
    trick_line,
)
from bot.views.keyboard import Button, Keyboard, button, keyboard, rows_by, rows_of, web_app
from bot.views.links import table_url
from bot.views.sides import Standing, standing_lines
from bot.views.table import status_line
from engine.cards import SPADES, SUIT_SYMBOLS, sort_for_display
from engine.game import BID, BIDDING, BLIND, EXCHANGE, OVER, PLAY
from engine.scoring import partner
from engine.view import View


def blind_pending(table: LiveTable, seat: int) -> bool:
    """Cards stay face down while this seat may still declare blind nil and
    has not opened them."""
    g = table.game
    return g is not None and seat not in table.looked and g.blind_possible(seat)


def hand_message(
    tr: Tr,
    table: LiveTable,
    v: View,
    webapp: str | None = None,
    standing: Standing | None = None,
) -> tuple[str, Keyboard | None]:
    """The seat's private message, from its view ``v`` of the game: where the
    hand stands, each side's contract against its tricks (the player is «вы»),
    the trick on the table, the cards, and on the player's turn what to do.
    With ``webapp`` (WEBAPP_URL), a button opening the table drawn;
    ``standing``: the sides as the render pass worked them out."""
    seat = v.seat
    n = v.players
    lines = [tr("hand-title", group=esc(table.chat_title)), status_line(tr, v)]
    mate = partner(n, seat)
    # Who sits where matters while bids are made; after that the lines
    # below («вы + Вика») say it, and the line would only push the cards down.
    if v.phase == BIDDING and mate is not None:
        lines.append(
            tr(
                "hand-you-partner",
                seat=seat_name(tr, n, seat),
                partner=player_name(tr, table, mate),
            )
        )
    elif v.phase == BIDDING:
        lines.append(tr("hand-you", seat=seat_name(tr, n, seat)))
    lines.append("")
    lines.extend(standing_lines(tr, table, v, me=seat, standing=standing))
    lines.append("")
    if v.phase == PLAY:
        trick = trick_line(tr, table, v)
        if trick is not None:
            lines.append(trick)
    hidden = seat not in table.looked and v.blind_possible
    if hidden:
        lines.append(tr("hand-closed", count=len(v.hand)))
    elif v.hand:
        lines.append(tr("hand-cards", cards=cards_line(v.hand)))
    for ex in v.exchanges:
        if ex["from"] == seat:
            lines.append(tr("hand-passed", cards=" ".join(card(c) for c in ex["cards"])))
        elif ex["to"] == seat:
            lines.append(tr("hand-received", cards=" ".join(card(c) for c in ex["cards"])))
    lines.append("")
    markup: Keyboard | None = None
    if v.phase == OVER:
        lines.append(tr("hand-game-over"))
    elif v.to_move != seat:
        lines.append(tr("hand-wait", name=player_name(tr, table, v.to_move)))
        if hidden:
            lines.append(tr("hand-blind-later"))
            markup = _look_only(tr, table, seat)
    elif v.phase == BIDDING:
        if hidden:
            lines.append(tr("hand-blind-offer"))
            markup = _blind_keyboard(tr, table, seat)
        else:
            lines.append(tr("hand-your-bid"))
            markup = _bid_keyboard(tr, table, v)
    elif v.phase == EXCHANGE:
        mate_name = player_name(tr, table, v.pass_to)
        if v.picking:
            lines.append(tr("hand-exchange-second", card=card(v.picking[0]), partner=mate_name))
        else:
            lines.append(tr("hand-exchange", partner=mate_name))
        markup = _card_keyboard(table, v)
    else:
        lines.append(your_play(tr, v))
        markup = _card_keyboard(table, v)
        claim_line, markup = claim_part(tr, table, v, markup)
        if claim_line is not None:
            lines.append(claim_line)
    if table.hints and markup is not None and v.to_move == seat:
        markup = keyboard([*rows_of(markup), [_hint_button(tr, table)]])
    if webapp is not None and v.phase != OVER:
        markup = keyboard([*rows_of(markup), [_table_button(tr, table, webapp)]])
    return "\n".join(lines), markup


def your_play(tr: Tr, v: View) -> str:
    """What the player must do with a card now: follow the suit led, or
    (without it) play any card; leading, whether spades may be led."""
    lead = v.lead_suit
    if lead is None:
        return tr(
            "hand-your-lead", broken=int(v.spades_broken or all(c // 13 == SPADES for c in v.hand))
        )
    suit = SUIT_SYMBOLS[lead]
    if any(c // 13 == lead for c in v.hand):
        return tr("hand-your-follow", suit=suit)
    return tr("hand-your-any", suit=suit)


def _table_button(tr: Tr, table: LiveTable, webapp: str) -> Button:
    """«🃏 Стол»: the Mini App with this table (private chats take ``web_app`` buttons)."""
    return web_app(tr("btn-webapp"), table_url(webapp, table.table_id))


def _hint_button(tr: Tr, table: LiveTable) -> Button:
    """The 💡 (table option «Подсказки»): the master's choice for this move."""
    return button(tr("btn-hint"), HintCb.packed(t=table.table_id, s=table.seq))


def _look_only(tr: Tr, table: LiveTable, seat: int) -> Keyboard:
    return keyboard([[button(tr("btn-look"), LookCb.packed(t=table.table_id, s=table.seq))]])


def _blind_keyboard(tr: Tr, table: LiveTable, seat: int) -> Keyboard:
    t, s = table.table_id, table.seq
    return keyboard(
        [
            [
                button(tr("btn-blind"), MoveCb.packed(t=t, s=s, a=BLIND)),
                button(tr("btn-look"), LookCb.packed(t=t, s=s)),
            ]
        ]
    )


def _bid_keyboard(tr: Tr, table: LiveTable, v: View) -> Keyboard:
    t, s = table.table_id, table.seq
    bids = [
        button(tr("btn-nil") if b == 0 else str(b), MoveCb.packed(t=t, s=s, a=BID + b))
        for b in v.bids_allowed
    ]
    return keyboard(rows_by(bids, 5))


# At most this many cards a row: «10♣» is never cut on a phone.
CARDS_PER_ROW = 5
# The mark of a card that may not be played now (pressed, it says why): a
# bracket a phone shows plainly, where a dot beside the suit was lost.
UNPLAYABLE = "({})"


def _card_keyboard(table: LiveTable, v: View) -> Keyboard:
    t, s = table.table_id, table.seq
    return card_keyboard(
        v,
        lambda c: MoveCb.packed(t=t, s=s, a=c),
        lambda c: WhyCb.packed(t=t, s=s, a=c),
    )


def card_keyboard(v: View, play: Callable[[int], str], why: Callable[[int], str]) -> Keyboard:
    """The whole hand as buttons, by suit; cards that may not be played (or
    passed) now are marked and only explain why when pressed. ``play`` and
    ``why`` give a card's callback data (a table's hand, the deal of the day)."""
    allowed = set(v.cards_allowed)
    rows: list[list[Button]] = []
    current_suit = -1
    row: list[Button] = []
    for c in sort_for_display(list(v.hand)):
        if c // 13 != current_suit or len(row) == CARDS_PER_ROW:
            if row:
                rows.append(row)
            row = []
            current_suit = c // 13
        if c in allowed:
            row.append(button(card(c), play(c)))
        else:
            row.append(button(UNPLAYABLE.format(card(c)), why(c)))
    if row:
        rows.append(row)
    return keyboard(rows)
