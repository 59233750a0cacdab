"""The quick lookups in words: score, turn, table, info, sheet; the group's
history, a person's stats and the rules. ``LookupService`` finds the tables
and rows; these functions only say what it found, each from the group's
view of a game (``public``), never from a hand."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any

from bot.i18n import esc
from bot.model import LiveTable, TableStatus
from bot.views.common import (
    Tr,
    last_trick_line,
    player_name,
    preset_label,
    public,
    side_name,
    trick_text,
)
from bot.views.results import sheet_block
from bot.views.sides import standing_lines
from bot.views.table import (
    game_over_line,
    hints_line,
    rules_lines,
    score_lines,
    status_line,
    turn_line,
)
from engine.cards import SUIT_SYMBOLS
from engine.game import OVER, PLAY
from engine.rules import Rules


@dataclass(frozen=True, slots=True)
class Found:
    """What a lookup is about: ``kind`` (``score``, ``turn``, ``table``,
    ``info``, ``sheet``) of ``tables`` (in a group its one table or none; in
    private every running game of the person), asked at ``now`` (a deadline
    is told in ``zone``). ``charts``: (table, group title) of the games a
    /sheet answer offers the chart of."""

    kind: str
    tables: Sequence[LiveTable]
    private: bool
    now: float
    zone: tzinfo
    charts: Sequence[tuple[int, str]] = ()


@dataclass(frozen=True, slots=True)
class PastGame:
    """A finished game in /history: its table, the winning side, the totals,
    when it ended and how many hands it took."""

    table: LiveTable
    winner: int
    totals: Sequence[int]
    finished_at: float
    hands: int


def lookup_text(tr: Tr, found: Found) -> str:
    """A lookup's answer: about the group's table, or in private about each
    of the person's games under its group's name."""
    if not found.private:
        if not found.tables:
            return tr("lookup-no-table")
        return table_text(tr, found, found.tables[0])
    parts = []
    for table in found.tables:
        parts.append(tr("lookup-table-head", group=esc(table.chat_title)))
        parts.append(table_text(tr, found, table))
    return "\n\n".join(parts) if parts else tr("lookup-no-games")


def sent_privately(tr: Tr, found: Found) -> str:
    """A lookup button's answer sent to the presser's private chat: the
    table's group named first, since the chat holds every game's."""
    table = found.tables[0]
    head = tr("lookup-table-head", group=esc(table.chat_title))
    return head + "\n" + table_text(tr, found, table)


def table_text(tr: Tr, found: Found, table: LiveTable) -> str:
    """One table's answer to the lookup ``found.kind``."""
    return _KINDS[found.kind](tr, found, table)


def _not_started(tr: Tr, table: LiveTable) -> str:
    return tr("lookup-not-started", target=str(table.rules.target))


def _score(tr: Tr, found: Found, table: LiveTable) -> str:
    if table.game is None:
        return _not_started(tr, table)
    v = public(table)
    lines = [tr("score-title", target=str(table.rules.target), hands=len(v.sheet))]
    lines += score_lines(tr, table, v)
    if v.phase == OVER and v.winner is not None:
        lines.append(game_over_line(tr, table, v))
    return "\n".join(lines)


def _turn(tr: Tr, found: Found, table: LiveTable) -> str:
    if table.game is None:
        return _not_started(tr, table)
    v = public(table)
    if v.phase == OVER:
        return game_over_line(tr, table, v)
    if table.status == TableStatus.CANCELLED:
        return tr("table-cancelled")
    return turn_line(tr, table, v, found.now, found.zone)


def _table(tr: Tr, found: Found, table: LiveTable) -> str:
    if table.game is None:
        return _not_started(tr, table)
    v = public(table)
    if v.phase == OVER:
        return _turn(tr, found, table)
    lines = [status_line(tr, v, "lookup-status")]
    if v.phase == PLAY:
        if v.lead_suit is not None:
            lines.append(tr("table-trick", cards=trick_text(tr, table, v.trick)))
            lines.append(tr("lookup-lead", suit=SUIT_SYMBOLS[v.lead_suit]))
        else:
            lines.append(tr("lookup-lead-next", name=player_name(tr, table, v.to_move)))
        last = last_trick_line(tr, table, v)
        if last is not None:
            lines.append(last)
    return "\n".join(lines)


def _info(tr: Tr, found: Found, table: LiveTable) -> str:
    if table.game is None:
        return _not_started(tr, table)
    v = public(table)
    lines = [] if v.phase == OVER else [status_line(tr, v, "lookup-status")]
    return "\n".join(lines + standing_lines(tr, table, v))


def _sheet(tr: Tr, found: Found, table: LiveTable) -> str:
    if table.game is None:
        return tr("lookup-no-sheet")
    v = public(table)
    if not v.sheet:
        return tr("lookup-no-sheet")
    return sheet_block(tr, table, v)


_KINDS: dict[str, Callable[[Tr, Found, LiveTable], str]] = {
    "score": _score,
    "turn": _turn,
    "table": _table,
    "info": _info,
    "sheet": _sheet,
}
#: The lookups there are, as their commands and buttons name them.
KINDS = tuple(_KINDS)


def history_text(tr: Tr, games: Sequence[PastGame]) -> str:
    """/history: the group's last finished games, newest first."""
    if not games:
        return tr("history-empty")
    lines = [tr("history-title")]
    for game in games:
        day = datetime.fromtimestamp(game.finished_at, tz=UTC).strftime("%d.%m")
        lines.append(
            tr(
                "history-line",
                day=day,
                winner=side_name(tr, game.table, game.winner),
                totals=" : ".join(str(t) for t in game.totals),
                hands=game.hands,
            )
        )
    return "\n".join(lines)


def stats_text(tr: Tr, name: str, stats: Mapping[str, Any] | None) -> str:
    """/stats about a person: their games, wins, contracts and nils."""
    if stats is None or not stats["games"]:
        return tr("stats-empty", name=esc(name))
    text = tr(
        "stats",
        name=esc(name),
        games=stats["games"],
        wins=stats["wins"],
        contracts_bid=stats["contracts_bid"],
        contracts_made=stats["contracts_made"],
    )
    if stats["nils_bid"]:
        text += tr("stats-nils", nils_bid=stats["nils_bid"], nils_made=stats["nils_made"])
    return text + "."


def rules_text(tr: Tr, rules: Rules, hints: bool) -> str:
    """/rules: the table's rules (the classic ones without a table), the
    option «Подсказки» when it is on, and the short summary."""
    lines = [tr("rules-title", rules=preset_label(tr, rules))]
    lines += rules_lines(tr, rules)
    if hints:
        lines.append(hints_line(tr, True))
    lines.append("")
    lines.append(tr("rules-summary"))
    return "\n".join(lines)
