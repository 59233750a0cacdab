"""Hand results and the score sheet: what seed 000 asks to be written down."""

from __future__ import annotations

import html
from typing import Any

from bot.i18n import esc
from bot.model import LiveTable, SeatResult
from bot.views.common import Tr, bid_text, player_name, public, side_name
from engine.scoring import sides
from engine.view import PublicView


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)  # one minus sign everywhere: ASCII, as totals print


def hints_used(tr: Tr, table: LiveTable) -> list[str]:
    """Who was shown the master's hints in this game and how often: shown in
    every result, so that nobody hides it. Nothing when nobody asked."""
    used = [
        tr("hints-used-of", name=player_name(tr, table, seat), n=n)
        for seat, n in sorted(table.hint_counts.items())
        if n > 0 and seat < table.players
    ]
    return [tr("hints-used", players=", ".join(used))] if used else []


def hand_result(tr: Tr, table: LiveTable, line: dict[str, Any]) -> str:
    """One short group message when a hand ends: the score-sheet line."""
    n = table.players
    out = [tr("result-title", hand=line["hand"] + 1)]
    for i, members in enumerate(sides(n)):
        side = line["sides"][i]
        players = ", ".join(
            tr(
                "result-player",
                name=player_name(tr, table, s),
                bid=bid_text(tr, line["bids"][s], line["blind"][s]),
                tricks=line["tricks"][s],
            )
            for s in members
        )
        parts = []
        if side["contract"]:
            parts.append(tr("part-contract", points=_signed(side["contract_points"])))
        if side["overtricks"]:
            parts.append(tr("part-bags", points=_signed(side["overtricks"])))
        if side["nil"]:
            parts.append(tr("part-nil", points=_signed(side["nil"])))
        if side["bonus"]:
            parts.append(tr("part-bonus", points=_signed(side["bonus"])))
        if side["bag_penalty"]:
            parts.append(tr("part-penalty", points=_signed(side["bag_penalty"])))
        out.append(
            tr(
                "result-side",
                side=side_name(tr, table, i),
                players=players,
                score=_signed(side["score"]),
                parts=", ".join(parts) or "0",
                total=side["total"],
                bags=side["bags"],
            )
        )
    out += hints_used(tr, table)
    return "\n".join(out)


def sheet_block(tr: Tr, table: LiveTable, v: PublicView) -> str:
    """The whole score sheet as a monospace block."""
    n = v.players
    side_list = sides(n)
    header = [tr("sheet-hand")]
    header += [tr("sheet-bids"), tr("sheet-tricks")]
    for i in range(len(side_list)):
        header.append(_short(side_name(tr, table, i)))
    rows = [header]
    blind_mark = tr("sheet-blind-mark")
    for line in v.sheet:
        row = [str(line["hand"] + 1)]
        row.append(
            " ".join(
                (blind_mark if line["blind"][s] else "0")
                if line["bids"][s] == 0
                else str(line["bids"][s])
                for s in range(n)
            )
        )
        row.append(" ".join(str(t) for t in line["tricks"]))
        for side in line["sides"]:
            row.append(f"{_signed(side['score'])}={side['total']}/{side['bags']}")
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    text = "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)
    # Names in it are isolated already (side_name); the block is only escaped.
    return tr("sheet-block", sheet=html.escape(text, quote=False), legend=tr("sheet-legend"))


def _short(name: str, limit: int = 14) -> str:
    raw = html.unescape(name)
    return raw if len(raw) <= limit else raw[: limit - 1] + "…"


def game_over(tr: Tr, table: LiveTable) -> str:
    v = public(table)
    assert v.winner is not None
    totals = " : ".join(str(t) for t in v.totals)
    return "\n".join(
        [
            tr("over-title", winner=side_name(tr, table, v.winner), totals=totals),
            *hints_used(tr, table),
            "",
            sheet_block(tr, table, v),
        ]
    )


def private_result(tr: Tr, table: LiveTable, record: SeatResult) -> str:
    """The end of the game in a player's private chat: who won, the totals,
    this player's own record in the game, and how to play again."""
    v = public(table)
    assert v.winner is not None
    totals = " : ".join(str(t) for t in v.totals)
    lines = [
        tr("over-private-title", group=esc(table.chat_title)),
        tr("over-private-winner", winner=side_name(tr, table, v.winner), totals=totals),
        tr("over-private-won" if record.won else "over-private-lost"),
        tr(
            "over-private-record",
            hands=record.hands,
            contracts_bid=record.contracts_bid,
            contracts_made=record.contracts_made,
            nils_bid=record.nils_bid,
            nils_made=record.nils_made,
        ),
        *hints_used(tr, table),
        "",
        tr("over-private-next", group=esc(table.chat_title)),
    ]
    return "\n".join(lines)
