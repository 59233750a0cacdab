"""Hand results and the score sheet: what seed 000 asks to be written down."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from bot.i18n import clean_name, esc
from bot.model import LiveTable, SeatResult
from bot.views.common import (
    Tr,
    members_name,
    num,
    player_name,
    public,
    seat_name,
    signed,
    trick_text,
)
from bot.views.sides import Standing
from bot.views.table import game_over_line
from engine.scoring import side_of, sides
from engine.view import PublicView


def hints_used(tr: Tr, table: LiveTable) -> list[str]:
    """Who was shown the master's hints in this game and how often: shown in
    every result, so that nobody hides it. Nothing when nobody asked."""
    used = [
        tr("hints-used-of", name=player_name(tr, table, seat), n=n)
        for seat, n in sorted(table.hint_counts.items())
        if n > 0 and seat < table.players
    ]
    return [tr("hints-used", players=", ".join(used))] if used else []


MINUS = "\u2212"

#: The hand's last trick: (seat, card) in the order played, and who took it.
LastTrick = tuple[Sequence[tuple[int, int]], int]


def _members(table: LiveTable, standing: Standing | None) -> list[tuple[int, ...]]:
    """Each side's seats: the render pass's, or worked out here."""
    if standing is not None:
        return [side.members for side in standing]
    return sides(table.players)


def hand_result(
    tr: Tr,
    table: LiveTable,
    line: Mapping[str, Any],
    last: LastTrick | None = None,
    standing: Standing | None = None,
) -> str:
    """One short group message when a hand ends: its last trick, then for
    each side whether it made its contract and what that scored, each nil
    on a line of its own."""
    out = [tr("result-title", hand=line["hand"] + 1)]
    if last is not None:
        out.append(last_trick_text(tr, table, last))
    for i, members in enumerate(_members(table, standing)):
        out += side_result(tr, table, line, i, members)
    out += hints_used(tr, table)
    return "\n".join(out)


def private_hand_result(
    tr: Tr,
    table: LiveTable,
    line: Mapping[str, Any],
    seat: int,
    last: LastTrick | None,
    standing: Standing | None = None,
) -> str:
    """What a player's own chat keeps of a finished hand: its last trick and
    that player's side's result."""
    out = [tr("result-title", hand=line["hand"] + 1)]
    if last is not None:
        out.append(last_trick_text(tr, table, last))
    i = side_of(table.players, seat)
    out += side_result(tr, table, line, i, _members(table, standing)[i])
    out += hints_used(tr, table)
    return "\n".join(out)


def last_trick_text(tr: Tr, table: LiveTable, last: LastTrick) -> str:
    pairs, winner = last
    return tr(
        "result-last-trick",
        cards=trick_text(tr, table, pairs),
        winner=player_name(tr, table, winner),
    )


def side_result(
    tr: Tr,
    table: LiveTable,
    line: Mapping[str, Any],
    i: int,
    members: Sequence[int] | None = None,
) -> list[str]:
    """``✅ Аня + Вика: заказ 6, взято 9 → +63 (60 + 3 мешка) · итого 63``,
    then a line for each nil of the side (``members``: its seats, if known)."""
    if members is None:
        members = sides(table.players)[i]
    side = line["sides"][i]
    name = members_name(tr, table, members)
    parts = _parts(tr, side)
    args = {
        "side": name,
        "score": signed(side["score"]),
        "parts": parts,
        "total": num(side["total"]),
    }
    if side["contract"]:
        made = side["taken"] >= side["contract"]
        # Made, yet below zero (a failed nil, the bag penalty): no ✅ beside a minus.
        key = (
            ("result-made" if side["score"] >= 0 else "result-made-below") if made else "result-set"
        )
        out = [tr(key, contract=side["contract"], taken=side["taken"], **args)]
    else:
        out = [tr("result-no-contract", **args)]
    rules = table.rules
    for s in members:
        if line["bids"][s] != 0:
            continue
        tricks = line["tricks"][s]
        value = 200 if line["blind"][s] else 100
        who = player_name(tr, table, s)
        blind = int(line["blind"][s])
        if tricks == 0:
            out.append(tr("result-nil-made", name=who, blind=blind, points=signed(value)))
            continue
        note = ""
        if len(members) == 2 and side["contract"]:
            note = tr(f"result-nil-tricks-{rules.failed_nil}")
        elif rules.failed_nil == "bags":
            note = tr("result-nil-tricks-bags")
        out.append(
            tr(
                "result-nil-failed",
                name=who,
                blind=blind,
                tricks=tricks,
                points=signed(-value),
                note=note,
            )
        )
    return out


def _parts(tr: Tr, side: dict[str, Any]) -> str:
    """``(60 + 3 мешка − 100 за ноль)``: what the hand's score is made of,
    when it is more than one thing."""
    terms = [
        (side["contract_points"], ""),
        (side["overtricks"], "overtricks"),
        (side["nil"], "nil"),
        (side["bonus"], "bonus"),
        (side["bag_penalty"], "penalty"),
    ]
    terms = [(value, kind) for value, kind in terms if value]
    if len(terms) < 2:
        return ""
    text = ""
    for k, (value, kind) in enumerate(terms):
        amount = abs(value)
        word = tr(f"part-{kind}", n=amount) if kind else str(amount)
        if k == 0:
            text = word if value > 0 else MINUS + word
        else:
            sign = "+" if value > 0 else MINUS
            text += f" {sign} {word}"
    return tr("result-parts", parts=text)


def sheet_block(tr: Tr, table: LiveTable, v: PublicView, standing: Standing | None = None) -> str:
    """The whole score sheet as a monospace block a phone shows whole: a
    column a side, headed by its players' short names; a cell is the bids
    (their order is the header's), contract/taken, the hand's score and the
    bags carried; the last row the totals."""
    side_list = _members(table, standing)
    header = [tr("sheet-hand")] + [
        "+".join(_short(sheet_name(tr, table, s)) for s in members) for members in side_list
    ]
    rows = [header]
    for line in v.sheet:
        row = [str(line["hand"] + 1)]
        for i, members in enumerate(side_list):
            side = line["sides"][i]
            bids = "+".join(_bid_mark(tr, line, s) for s in members)
            if len(members) == 1:
                cell = f"{bids}/{line['tricks'][members[0]]}"
            else:
                cell = f"{bids} {side['contract']}/{side['taken']}"
            row.append(f"{cell} {signed(side['score'])} ({side['bags']})")
        rows.append(row)
    rows.append(
        [tr("sheet-total")] + [f"{num(v.totals[i])} ({v.bags[i]})" for i in range(len(side_list))]
    )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    text = "\n".join(
        " ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )
    # Names in it are escaped here, once; the block is monospace text.
    return tr("sheet-block", sheet=html.escape(text, quote=False), legend=tr("sheet-legend"))


def sheet_name(tr: Tr, table: LiveTable, seat: int) -> str:
    """A seat's name in the sheet: the person's first name, or the seat's
    name for a computer (no emoji: it would break the columns)."""
    uid = table.seats[seat]
    if uid is None:
        return seat_name(tr, table.players, seat)
    return clean_name(table.names.get(uid)) or seat_name(tr, table.players, seat)


def _bid_mark(tr: Tr, line: Mapping[str, Any], seat: int) -> str:
    bid = line["bids"][seat]
    if bid == 0:
        return tr("sheet-blind-mark") if line["blind"][seat] else tr("sheet-nil-mark")
    return str(bid)


def _short(name: str, limit: int = 6) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def game_over(
    tr: Tr, table: LiveTable, v: PublicView | None = None, standing: Standing | None = None
) -> str:
    """The group's note at the end: the winner, the totals and the whole sheet
    (``v`` and ``standing``: the render pass's, else worked out here)."""
    if v is None:
        v = public(table)
    assert v.winner is not None
    return "\n".join(
        [
            tr("over-title"),
            game_over_line(tr, table, v, standing),
            *hints_used(tr, table),
            "",
            sheet_block(tr, table, v, standing),
        ]
    )


def private_result(
    tr: Tr,
    table: LiveTable,
    record: SeatResult,
    v: PublicView | None = None,
    standing: Standing | None = None,
) -> str:
    """The end of the game in a player's private chat: who won, the totals,
    this player's own record in the game, and the rematch (its button, the
    group's own, comes with the message)."""
    if v is None:
        v = public(table)
    assert v.winner is not None
    record_line = tr(
        "over-private-record",
        hands=record.hands,
        contracts_bid=record.contracts_bid,
        contracts_made=record.contracts_made,
    )
    if record.nils_bid:
        record_line += tr("over-private-nils", nils_bid=record.nils_bid, nils_made=record.nils_made)
    lines = [
        tr("over-private-title", group=esc(table.chat_title)),
        game_over_line(tr, table, v, standing),
        tr("over-private-won" if record.won else "over-private-lost"),
        record_line,
        *hints_used(tr, table),
        "",
        tr("over-private-next"),
    ]
    return "\n".join(lines)
