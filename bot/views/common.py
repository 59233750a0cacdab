"""Pieces shared by the table, hand and result views.

Views read the game only through the engine's views: ``public`` (what the
group may see, no card of any hand) for group messages and lookups, and
``engine.view.view`` for one seat's private hand message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.i18n import esc
from bot.model import LiveTable, preset_name
from engine.cards import SUIT_SYMBOLS, card_label, sort_for_display
from engine.rules import Rules
from engine.scoring import sides
from engine.view import PublicView, public_view

Tr = Callable[..., str]


def public(table: LiveTable) -> PublicView:
    """The table's game as its group sees it."""
    assert table.game is not None
    return public_view(table.game)


def seat_name(tr: Tr, players: int, seat: int) -> str:
    return tr("seat", players=players, seat=seat, num=seat + 1)


def player_name(tr: Tr, table: LiveTable, seat: int) -> str:
    """HTML-safe display name of whoever sits at ``seat``; a computer seat is
    named by its place so that two of them can be told apart."""
    uid = table.seats[seat]
    if uid is None:
        return tr("computer", seat=seat_name(tr, table.players, seat))
    return esc(table.names.get(uid) or str(uid))


def side_name(tr: Tr, table: LiveTable, side: int) -> str:
    members = sides(table.players)[side]
    return (
        tr("join-names", a=player_name(tr, table, members[0]), b=player_name(tr, table, members[1]))
        if len(members) == 2
        else player_name(tr, table, members[0])
    )


def preset_label(tr: Tr, rules: Rules) -> str:
    name = preset_name(rules)
    if name is None:
        base = rules.diff_from_preset()["preset"]
        return tr("preset-custom", base=tr(f"preset-{base}"))
    return tr(f"preset-{name}")


def cards_line(cards: list[int] | tuple[int, ...]) -> str:
    """``♠ A K 5  ♥ Q 9`` — a hand grouped by suit, spades first."""
    groups: dict[int, list[str]] = {}
    for c in sort_for_display(list(cards)):
        groups.setdefault(c // 13, []).append(card_label(c)[:-1])
    return "  ".join(f"{SUIT_SYMBOLS[s]} {' '.join(r)}" for s, r in groups.items())


def card(c: int) -> str:
    return card_label(c)


def bid_text(tr: Tr, bid: int | None, blind: bool) -> str:
    if bid is None:
        return tr("bid-none")
    if blind:
        return tr("bid-blind")
    if bid == 0:
        return tr("bid-nil")
    return tr("bid-n", n=bid)


def trick_text(tr: Tr, table: LiveTable, pairs: Sequence[tuple[int, int]]) -> str:
    return ", ".join(
        tr("trick-card", name=player_name(tr, table, s), card=card(c)) for s, c in pairs
    )


def trick_line(tr: Tr, table: LiveTable, v: PublicView) -> str | None:
    """The trick on the table; between tricks the one just taken, and by whom
    (until the next card is led), so nobody misses how a trick ended."""
    if v.trick:
        return tr("table-trick", cards=trick_text(tr, table, v.trick))
    last = v.last_trick
    if last is None:
        return None
    pairs, winner = last
    return tr(
        "table-last-trick",
        cards=trick_text(tr, table, pairs),
        winner=player_name(tr, table, winner),
    )


def duration(tr: Tr, seconds: float) -> str:
    """``23 ч 5 мин``, ``4 мин``, ``40 с`` — remaining time at a glance."""
    s = max(0, round(seconds))
    if s < 60:
        return tr("dur-s", s=s)
    minutes = round(s / 60)
    if minutes < 60:
        return tr("dur-m", m=minutes)
    h, m = divmod(minutes, 60)
    return tr("dur-hm", h=h, m=m) if m else tr("dur-h", h=h)
