"""What a finished game leaves in each player's record."""

from __future__ import annotations

from bot.model import LiveTable, SeatResult
from engine.scoring import bid_made, side_of
from engine.view import public_view


def game_results(live: LiveTable) -> list[SeatResult]:
    """Per seat, in seat order.

    A contract counts for a player who bid a number and whose side made its
    contract; a nil (blind too) counts for the player who bid it.
    """
    assert live.game is not None
    v = public_view(live.game)
    n = v.players
    rows = []
    for seat in range(n):
        cb = cm = nb = nm = 0
        for line in v.sheet:
            made = bid_made(n, line, seat)
            if line["bids"][seat] == 0:
                nb += 1
                nm += made
            else:
                cb += 1
                cm += made
        won = v.winner == side_of(n, seat)
        rows.append(SeatResult(seat, live.seats[seat], won, len(v.sheet), cb, cm, nb, nm))
    return rows
