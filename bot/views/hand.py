"""A player's private hand message: own cards, the table, and the buttons
for exactly the actions that player may take now."""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import LookCb, MoveCb, WhyCb
from bot.i18n import esc
from bot.model import LiveTable
from bot.views.common import Tr, bid_text, card, cards_line, player_name, seat_name, trick_text
from engine.cards import cards_of, sort_for_display
from engine.game import BID, BIDDING, BLIND, EXCHANGE, OVER, PLAY, Game


def blind_pending(table: LiveTable, seat: int) -> bool:
    """Cards stay face down while blind nil may still be declared by this seat."""
    g = table.game
    if g is None or g.phase != BIDDING or seat in table.looked or g.bids[seat] is not None:
        return False
    r = g.rules
    if r.blind_nil == "off":
        return False
    if g.to_move == seat:
        return g.blind_allowed(seat)
    if r.blind_nil == "club":
        team = seat % 2
        if g.totals[team] > g.totals[1 - team] - 100 or g.blind[(seat + 2) % 4]:
            return False
    return True


def hand_message(tr: Tr, table: LiveTable, seat: int) -> tuple[str, InlineKeyboardMarkup | None]:
    g = table.game
    assert g is not None
    n = table.players
    lines = [tr("hand-title", group=esc(table.chat_title), hand=g.hand_no + 1)]
    if n == 4:
        lines.append(
            tr(
                "hand-you-partner",
                seat=seat_name(tr, n, seat),
                partner=player_name(tr, table, (seat + 2) % 4),
            )
        )
    else:
        lines.append(tr("hand-you", seat=seat_name(tr, n, seat)))
    hidden = blind_pending(table, seat)
    hand = cards_of(g.hands[seat])
    if hidden:
        lines.append(tr("hand-closed", count=len(hand)))
    elif hand:
        lines.append(tr("hand-cards", cards=cards_line(hand)))
    for ex in g.exchanges:
        if ex["from"] == seat:
            lines.append(tr("hand-passed", cards=" ".join(card(c) for c in ex["cards"])))
        elif ex["to"] == seat:
            lines.append(tr("hand-received", cards=" ".join(card(c) for c in ex["cards"])))
    bids = [
        tr("hand-bid-of", name=player_name(tr, table, s), bid=bid_text(tr, g.bids[s], g.blind[s]))
        for s in range(n)
    ]
    lines.append(tr("hand-bids", bids=", ".join(bids)))
    if g.phase == PLAY:
        tricks = ", ".join(
            tr("hand-tricks-of", name=player_name(tr, table, s), n=g.tricks_won[s])
            for s in range(n)
        )
        lines.append(tr("hand-tricks", tricks=tricks))
        if g.trick:
            pairs = [((g.trick_leader + i) % n, c) for i, c in enumerate(g.trick)]
            lines.append(tr("table-trick", cards=trick_text(tr, table, pairs)))
        lines.append(tr("spades-broken" if g.spades_broken else "spades-unbroken"))
    lines.append("")
    markup = None
    if g.phase == OVER:
        lines.append(tr("hand-game-over"))
    elif g.to_move != seat:
        lines.append(tr("hand-wait", name=player_name(tr, table, g.to_move)))
        if hidden:
            lines.append(tr("hand-blind-later"))
            markup = _look_only(tr, table, seat)
    elif g.phase == BIDDING:
        if hidden:
            lines.append(tr("hand-blind-offer"))
            markup = _blind_keyboard(tr, table, seat)
        else:
            lines.append(tr("hand-your-bid"))
            markup = _bid_keyboard(tr, table, g)
    elif g.phase == EXCHANGE:
        picked = g.exchange_pick
        partner = player_name(tr, table, g.exchange_queue[0][1])
        if picked:
            lines.append(tr("hand-exchange-second", card=card(picked[0]), partner=partner))
        else:
            lines.append(tr("hand-exchange", partner=partner))
        markup = _card_keyboard(table, g, seat, {c for c in hand if c not in picked})
    else:
        lines.append(tr("hand-your-play"))
        markup = _card_keyboard(table, g, seat, set(cards_of(g.legal_play_mask())))
    return "\n".join(lines), markup


def _look_only(tr: Tr, table: LiveTable, seat: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=tr("btn-look"),
                    callback_data=LookCb(t=table.table_id, s=table.seq).pack(),
                )
            ]
        ]
    )


def _blind_keyboard(tr: Tr, table: LiveTable, seat: int) -> InlineKeyboardMarkup:
    t, s = table.table_id, table.seq
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=tr("btn-blind"), callback_data=MoveCb(t=t, s=s, a=BLIND).pack()
                ),
                InlineKeyboardButton(text=tr("btn-look"), callback_data=LookCb(t=t, s=s).pack()),
            ]
        ]
    )


def _bid_keyboard(tr: Tr, table: LiveTable, g: Game) -> InlineKeyboardMarkup:
    t, s = table.table_id, table.seq
    rows: list[list[InlineKeyboardButton]] = []
    row: list[InlineKeyboardButton] = []
    for b in g.allowed_bids(g.to_move):
        text = tr("btn-nil") if b == 0 else str(b)
        row.append(
            InlineKeyboardButton(text=text, callback_data=MoveCb(t=t, s=s, a=BID + b).pack())
        )
        if len(row) == 5:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    return InlineKeyboardMarkup(inline_keyboard=rows)


def _card_keyboard(
    table: LiveTable, g: Game, seat: int, playable: set[int]
) -> InlineKeyboardMarkup:
    """The whole hand as buttons, by suit; cards that may not be played now
    are marked and only explain why when pressed."""
    t, s = table.table_id, table.seq
    rows: list[list[InlineKeyboardButton]] = []
    current_suit = -1
    row: list[InlineKeyboardButton] = []
    for c in sort_for_display(cards_of(g.hands[seat])):
        if c // 13 != current_suit or len(row) == 7:
            if row:
                rows.append(row)
            row = []
            current_suit = c // 13
        if c in playable:
            row.append(
                InlineKeyboardButton(text=card(c), callback_data=MoveCb(t=t, s=s, a=c).pack())
            )
        else:
            row.append(
                InlineKeyboardButton(
                    text=f"· {card(c)} ·", callback_data=WhyCb(t=t, s=s, a=c).pack()
                )
            )
    if row:
        rows.append(row)
    return InlineKeyboardMarkup(inline_keyboard=rows)
