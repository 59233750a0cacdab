"""The club in words: the afterword, the profile, the partners, Authority.

The afterword is the group's message (what was said) and each player's own
picker in private (whom to thank, then how).

A keyboard in a group is the same for everyone, so it cannot leave out the
person looking at it; the choice is made in private, where it can: a row per
other player, the gesture after the name, and only the gestures that fit
(«отличный партнёр» to one's partner, «красивый ноль» to someone who made a
nil in this game).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.callbacks import GestureCb
from bot.i18n import clean_name, esc, isolated
from bot.model import LiveTable
from bot.views.common import Tr, public
from bot.views.keyboard import Button, Keyboard, button, keyboard, link
from engine.scoring import partner

# Gesture kinds in button order, with their emoji (the words live in locales).
GESTURES = {"thanks": "🙏", "partner": "🤝", "nil": "🎯", "played": "👏"}
KINDS = tuple(GESTURES)
# GestureCb's "no choice yet": s=NAMES shows the names, k=MENU a player's gestures.
NAMES = MENU = -1
# A name on a button is cut to this many characters.
BUTTON_NAME = 12


def fitting(live: LiveTable, me: int, to: int) -> tuple[str, ...]:
    """The gestures ``me`` may send ``to`` (seats): a partner is thanked as
    one only by their partner, a nil praised only if ``to`` made one."""
    v = public(live)
    made_nil = any(line["bids"][to] == 0 and line["tricks"][to] == 0 for line in v.sheet)
    return tuple(
        k
        for k in KINDS
        if (k != "partner" or partner(v.players, me) == to) and (k != "nil" or made_nil)
    )


def someone(tr: Tr) -> str:
    """Who a person is once forgotten, or when their name is not known."""
    return tr("afterword-someone")


def _name(tr: Tr, live: LiveTable, uid: int | None) -> str:
    if uid is None or uid not in live.names:
        return someone(tr)
    return esc(live.names[uid])


def _gesture(tr: Tr, kind: str) -> str:
    return f"{GESTURES.get(kind, '')} {tr(f'gesture-{kind}')}"


def afterword_message(
    tr: Tr, live: LiveTable, sent: Sequence[Any], open_: bool, bot_username: str
) -> tuple[str, Keyboard | None]:
    """The group's message: the gestures so far; closed, a last line saying
    who thanked whom."""
    lines = [tr("afterword-title"), ""]
    for row in sent:
        lines.append(
            tr(
                "afterword-line",
                sender=_name(tr, live, row["from_user"]),
                receiver=_name(tr, live, row["to_user"]),
                gesture=_gesture(tr, row["kind"]),
            )
        )
    if not sent:
        lines.append(tr("afterword-empty" if open_ else "afterword-quiet"))
    if open_:
        to_bot = link(tr("btn-afterword"), f"https://t.me/{bot_username}")
        return "\n".join(lines), keyboard([[to_bot]])
    lines.append("")
    lines.append(_summary(tr, live, sent))
    return "\n".join(lines), None


def _summary(tr: Tr, live: LiveTable, sent: Sequence[Any]) -> str:
    """Who thanked whom, one pair each: «Анна → Борис 🙏🤝; Борис → Анна 👏»."""
    pairs: dict[tuple[int | None, int | None], list[str]] = {}
    for row in sent:
        pairs.setdefault((row["from_user"], row["to_user"]), []).append(
            GESTURES.get(row["kind"], "")
        )
    if not pairs:
        return tr("afterword-closed-quiet")
    said = "; ".join(
        tr(
            "afterword-pair",
            sender=_name(tr, live, a),
            receiver=_name(tr, live, b),
            gestures="".join(g),
        )
        for (a, b), g in pairs.items()
    )
    return tr("afterword-closed", said=said)


def afterword_picker(
    tr: Tr,
    live: LiveTable,
    me: int,
    sent: Sequence[Any],
    choosing: int,
    open_: bool,
) -> tuple[str, Keyboard | None]:
    """Seat ``me``'s private picker: the other players (``choosing`` is
    NAMES), or the gestures for the player at seat ``choosing``."""
    uid = live.seats[me]
    mine = {(row["to_user"], row["kind"]) for row in sent if row["from_user"] == uid}
    lines = [tr("afterword-private-title", group=esc(live.chat_title))]
    for to_user, kind in sorted(mine, key=lambda p: (str(p[0]), p[1])):
        lines.append(
            tr("afterword-mine", receiver=_name(tr, live, to_user), gesture=_gesture(tr, kind))
        )
    if not open_:
        lines.append(tr("afterword-private-closed"))
        return "\n".join(lines), None
    g = live.game_id or 0
    rows: list[list[Button]] = []
    if choosing == NAMES:
        lines.append(tr("afterword-whom"))
        for seat, other in enumerate(live.seats):
            if other is None or seat == me:
                continue
            done = any(to == other for to, _ in mine)
            name = isolated(clean_name(live.names.get(other))[:BUTTON_NAME])
            label = name + (" ✓" if done else "")
            rows.append([button(label, GestureCb.packed(g=g, s=seat, k=MENU))])
    else:
        other = live.seats[choosing]
        lines.append(tr("afterword-what", name=_name(tr, live, other)))
        for kind in fitting(live, me, choosing):
            done = (other, kind) in mine
            rows.append(
                [
                    button(
                        ("✓ " if done else "") + _gesture(tr, kind),
                        GestureCb.packed(g=g, s=choosing, k=KINDS.index(kind)),
                    )
                ]
            )
        rows.append([button(tr("btn-afterword-back"), GestureCb.packed(g=g, s=NAMES, k=MENU))])
    return "\n".join(lines), keyboard(rows)


# ------------------------------------------------------------- the club


@dataclass(frozen=True, slots=True)
class Profile:
    """A person's /profile: Authority, the games' record (None: no game
    finished yet) and how many permanent partners they have."""

    authority: int
    stats: Mapping[str, Any] | None
    partners: int


@dataclass(frozen=True, slots=True)
class Partner:
    """A permanent partner in /partners: the name and their games together."""

    name: str
    games: int
    wins: int


RECORD = ("games", "wins", "contracts_bid", "contracts_made", "nils_bid", "nils_made")


def record_counts(stats: Mapping[str, Any] | None) -> dict[str, int]:
    """A person's record as the texts' arguments (all 0 before a first game)."""
    return {field: int(stats[field]) if stats else 0 for field in RECORD}


def profile_text(tr: Tr, name: str, profile: Profile) -> str:
    """/profile: Authority first; the record as plain counts."""
    return tr(
        "profile",
        name=esc(name),
        authority=profile.authority,
        partners=profile.partners,
        **record_counts(profile.stats),
    )


def partners_text(tr: Tr, partners: Sequence[Partner], need: int) -> str:
    """/partners: each permanent partner, or how many games make one."""
    if not partners:
        return tr("partners-none", need=need)
    lines = [tr("partners-title")]
    for p in partners:
        lines.append(tr("partners-line", name=esc(p.name), games=p.games, wins=p.wins))
    return "\n".join(lines)


def authority_text(tr: Tr, members: Sequence[tuple[str, int]]) -> str:
    """/authority: who sat at the group's tables, by Authority (name, ★)."""
    if not members:
        return tr("authority-empty")
    lines = [tr("authority-title")]
    for i, (name, authority) in enumerate(members, 1):
        lines.append(tr("authority-line", n=i, name=esc(name), authority=authority))
    return "\n".join(lines)


def partners_note(tr: Tr, live: LiveTable, a: int, b: int) -> str:
    """The group's news: the two people ``a`` and ``b`` are partners now."""
    return tr("partners-new", a=esc(live.names.get(a, "")), b=esc(live.names.get(b, "")))


def partners_private(tr: Tr, live: LiveTable, other: int) -> str:
    """The same news in one partner's private chat, naming ``other``."""
    return tr("partners-new-private", name=esc(live.names.get(other, "")))
