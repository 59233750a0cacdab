"""What a finished game leaves in each player's record."""

from __future__ import annotations

from bot.model import LiveTable
from engine.scoring import side_of


def game_results(
    live: LiveTable,
) -> list[tuple[int, int | None, bool, int, int, int, int, int]]:
    """Per seat: (seat, user, won, hands, contracts bid, made, nils bid, made).

    A contract counts for a player who bid a number and whose side made its
    contract; a nil (blind too) counts for the player who bid it.
    """
    g = live.game
    assert g is not None
    rows = []
    for seat in range(g.n):
        side = side_of(g.n, seat)
        cb = cm = nb = nm = 0
        for line in g.sheet:
            bid = line["bids"][seat]
            s = line["sides"][side]
            if bid == 0:
                nb += 1
                nm += line["tricks"][seat] == 0
            else:
                cb += 1
                cm += s["taken"] >= s["contract"]
        rows.append((seat, live.seats[seat], g.winner == side, len(g.sheet), cb, cm, nb, nm))
    return rows
