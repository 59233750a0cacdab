"""What a finished game leaves in each player's record."""

from __future__ import annotations

from bot.model import LiveTable
from engine.scoring import bid_made, side_of
from engine.view import public_view


def game_results(
    live: LiveTable,
) -> list[tuple[int, int | None, bool, int, int, int, int, int]]:
    """Per seat: (seat, user, won, hands, contracts bid, made, nils bid, made).

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
        rows.append((seat, live.seats[seat], won, len(v.sheet), cb, cm, nb, nm))
    return rows
