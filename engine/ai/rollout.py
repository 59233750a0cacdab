"""Playing an imagined hand to its end on the engine's fast path.

The searches try each candidate on each imagined deal and let the rule player
finish the hand for every seat (``play_out``); a hand's last card is scored
here rather than by the engine, whose hand end also writes the score sheet
and deals the next hand.
"""

from __future__ import annotations

from engine.ai import policy
from engine.ai.knowledge import Knowledge
from engine.game import BIDDING, EXCHANGE, PLAY, Game
from engine.view import View


def play_out(g: Game) -> list[int]:
    """Finish the hand (bids, exchange and cards) with the rule player; tricks per seat."""
    last_trick = g.hand_size - 1
    n1 = g.n - 1
    choose_card = policy.choose_card
    while True:
        p = g.phase
        if p == PLAY:
            if len(g.trick) == n1 and len(g.tricks) == last_trick:
                seat = g.to_move
                c = g.hands[seat].bit_length() - 1
                w, ws = g.win_card, g.win_seat
                if (c // 13 == w // 13 and c > w) or (c // 13 == 3 and w // 13 != 3):
                    ws = seat
                tw = list(g.tricks_won)
                tw[ws] += 1
                return tw
            g.play_unchecked(choose_card(g, g.to_move))
        elif p == BIDDING:
            g.apply_action(policy.choose_bid(g, g.to_move))
        elif p == EXCHANGE:
            g.apply_action(policy.choose_exchange(g, g.to_move))
        else:
            return list(g.tricks_won)


def candidate_cards(v: View, k: Knowledge) -> list[int]:
    """Legal cards, one per run of equivalent cards (nothing unplayed between them
    that another seat could hold): playing any of a run comes to the same."""
    out: list[int] = []
    prev = -1
    known = k.hand | k.played
    for c in sorted(v.legal):
        if prev >= 0 and prev // 13 == c // 13:
            between = ((1 << c) - 1) & ~((2 << prev) - 1)
            if not between & ~known:
                prev = c
                continue
        out.append(c)
        prev = c
    return out


__all__ = ["candidate_cards", "play_out"]
