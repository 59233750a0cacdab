"""Pieces shared by the table, hand and result views.

Views read the game only through the engine's views: ``public`` (what the
group may see, no card of any hand) for group messages and lookups, and
``engine.view.view`` for one seat's private hand message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo

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


def player_name(tr: Tr, table: LiveTable, seat: int, me: int | None = None) -> str:
    """HTML-safe display name of whoever sits at ``seat``; a computer seat is
    named by its place so that two of them can be told apart. ``me``: the
    seat whose own chat this is: named «вы». A person whose name is not
    known (or was only direction controls) is named by the place too, never
    by their id."""
    if seat == me:
        return tr("you")
    uid = table.seats[seat]
    if uid is None:
        return tr("computer", seat=seat_name(tr, table.players, seat))
    return esc(table.names.get(uid)) or seat_name(tr, table.players, seat)


def side_name(tr: Tr, table: LiveTable, side: int, me: int | None = None) -> str:
    return members_name(tr, table, sides(table.players)[side], me)


def members_name(tr: Tr, table: LiveTable, members: Sequence[int], me: int | None = None) -> str:
    """``Аня + Вика``, or the one player of an individual game's side."""
    if len(members) == 2:
        return tr(
            "join-names",
            a=player_name(tr, table, members[0], me),
            b=player_name(tr, table, members[1], me),
        )
    return player_name(tr, table, members[0], me)


def capitalized(line: str) -> str:
    """A line that may start with «вы»: ``Вы + Вика: 63``."""
    return line[:1].upper() + line[1:]


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


def num(n: int) -> str:
    """A score with a true minus sign: ``−60``."""
    return str(n).replace("-", "\u2212")


def signed(n: int) -> str:
    """A change of score: ``+63``, ``−60``, ``0``."""
    return f"+{n}" if n > 0 else num(n)


def trick_text(tr: Tr, table: LiveTable, pairs: Sequence[tuple[int, int]]) -> str:
    """``Глеб 4♦ · Аня 10♦ · Борис 2♠`` in the order played."""
    return " · ".join(
        tr("trick-card", name=player_name(tr, table, s), card=card(c)) for s, c in pairs
    )


def last_trick_line(tr: Tr, table: LiveTable, v: PublicView) -> str | None:
    """The last trick taken, and by whom, in one line (None: none yet this hand)."""
    last = v.last_trick
    if last is None:
        return None
    pairs, winner = last
    return tr(
        "table-last-trick",
        cards=trick_text(tr, table, pairs),
        winner=player_name(tr, table, winner),
    )


def trick_line(tr: Tr, table: LiveTable, v: PublicView) -> str | None:
    """The trick on the table; between tricks the one just taken, and by whom
    (until the next card is led), so nobody misses how a trick ended."""
    if v.trick:
        return tr("table-trick", cards=trick_text(tr, table, v.trick))
    return last_trick_line(tr, table, v)


def clock_time(tr: Tr, at: float, now: float, zone: tzinfo) -> str:
    """``14:16`` today, ``завтра 09:30``, else ``6.12 09:30``, in ``zone``."""
    when = datetime.fromtimestamp(at, tz=zone)
    today = datetime.fromtimestamp(now, tz=zone).date()
    hm = when.strftime("%H:%M")
    days = (when.date() - today).days
    if days <= 0:
        return hm
    if days == 1:
        return tr("time-tomorrow", time=hm)
    return tr("time-date", time=hm, day=when.day, month=f"{when.month:02d}")


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
