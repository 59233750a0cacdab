"""Teaching in words: the 💡 pop-up and the ``/review`` message.

Both speak only of the asking seat's own cards and of what the table saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.i18n import esc
from bot.model import HintAnswer, LiveTable
from bot.views.common import Tr, bid_text, card, cards_line, player_name, trick_text
from engine.ai.teach import MIN_GAIN, Mistake
from engine.game import BID, BIDDING, BLIND, EXCHANGE, Game


@dataclass(frozen=True, slots=True)
class Review:
    """What ``/review`` found: the table, its game replayed from the stored
    moves, the hand (0-based) and the person's costly decisions in it (none:
    a clean hand)."""

    table: LiveTable
    replay: Game
    hand: int
    mistakes: Sequence[Mistake]


def reason(tr: Tr, key: str) -> str:
    """One short reason for a key of ``engine.ai.REASONS``."""
    return tr(f"teach-reason-{key}")


def _bid(tr: Tr, action: int) -> str:
    if action == BLIND:
        return tr("bid-blind")
    return tr("teach-bid", n=action - BID)


def hint_text(tr: Tr, answer: HintAnswer) -> str:
    """The 💡 pop-up: the master's choice and why (plain text once popped up)."""
    why = reason(tr, answer.reason)
    if answer.blind_call:
        if answer.action == BLIND:
            return tr("hint-blind", reason=why)
        return tr("hint-look")
    if answer.phase == BIDDING:
        return tr("hint-bid", bid=_bid(tr, answer.action), reason=why)
    if answer.phase == EXCHANGE:
        return tr("hint-exchange", card=card(answer.action), reason=why)
    return tr("hint-play", card=card(answer.action), reason=why)


def _position(tr: Tr, table: LiveTable, game: Game, hand: int, m: Mistake) -> str:
    if m.phase == "bid":
        blind = game.sheet[hand]["blind"] if hand < len(game.sheet) else []
        before = [
            tr(
                "hand-bid-of",
                name=player_name(tr, table, s),
                bid=bid_text(tr, b, bool(blind[s]) if s < len(blind) else False),
            )
            for s, b in enumerate(m.bids)
            if b is not None
        ]
        return tr("review-bids", bids=", ".join(before)) if before else tr("review-first-bid")
    if m.phase == "exchange":
        return ""
    if m.table:
        return tr("review-table", cards=trick_text(tr, table, m.table))
    return tr("review-lead")


def _item(tr: Tr, table: LiveTable, game: Game, hand: int, n: int, m: Mistake) -> str:
    if m.phase == "bid":
        played, better, key = _bid(tr, m.played), _bid(tr, m.better), "review-bid"
    else:
        played, better = card(m.played), card(m.better)
        key = "review-exchange" if m.phase == "exchange" else "review-play"
    return tr(
        key,
        n=n,
        trick=m.trick or 0,
        position=_position(tr, table, game, hand, m),
        cards=cards_line(m.hand_cards),
        played=played,
        better=better,
        reason=reason(tr, m.reason),
        gain=max(1, round(m.gain)),
    )


def review_text(tr: Tr, review: Review) -> str:
    """``/review``'s answer: the hand, then each costly decision in words."""
    table, game, hand = review.table, review.replay, review.hand
    group = esc(table.chat_title)
    if not review.mistakes:
        return tr("review-clean", group=group, hand=hand + 1, min=round(MIN_GAIN))
    lines = [tr("review-title", group=group, hand=hand + 1)]
    for n, m in enumerate(review.mistakes, start=1):
        lines.append("")
        lines.append(_item(tr, table, game, hand, n, m))
    lines.append("")
    lines.append(tr("review-note"))
    return "\n".join(lines)
