"""Quick answers that change nothing: score, turn, table, info, sheet,
history, stats, rules. Each works in any phase, also after the game ended."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial

from bot.i18n import esc
from bot.model import LiveTable, Place, TableStatus
from bot.outbox import enqueue_send
from bot.services.live import Registry
from bot.storage import repo
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
from engine.rules import CLASSIC

KINDS = ("score", "turn", "table", "info", "sheet")


class LookupService:
    def __init__(self, reg: Registry) -> None:
        self.reg = reg
        self.ctx = reg.ctx

    def _tr(self, locale: str) -> Tr:
        return partial(self.ctx.texts, locale)

    # ------------------------------------------------------------ entry
    async def in_chat(self, kind: str, place: Place, locale: str) -> str:
        """A command in a group: about the table of this group's topic."""
        tr = self._tr(locale)
        live = await self.reg.latest_in(place.chat_id, place.thread_id)
        if live is None:
            return tr("lookup-no-table")
        return self.render(kind, tr, live)

    async def in_private(self, kind: str, user_id: int, locale: str) -> str:
        """A command in the private chat: about every running game of the user."""
        tr = self._tr(locale)
        rows = await repo.live_tables_of_user(self.ctx.db, user_id)
        parts = []
        for row in rows:
            live = await self.reg.get(row.table_id)
            if live is None:
                continue
            parts.append(tr("lookup-table-head", group=esc(live.chat_title)))
            parts.append(self.render(kind, tr, live))
        return "\n\n".join(parts) if parts else tr("lookup-no-games")

    async def sheet_charts(
        self, place: Place, user_id: int, private: bool
    ) -> list[tuple[int, str]]:
        """The tables a /sheet answer offers the chart of: (table, group title)
        for games with at least one hand played."""
        if private:
            rows = await repo.live_tables_of_user(self.ctx.db, user_id)
            found = [await self.reg.get(row.table_id) for row in rows]
        else:
            found = [await self.reg.latest_in(place.chat_id, place.thread_id)]
        return [
            (live.table_id, live.chat_title)
            for live in found
            if live is not None and live.game is not None and public(live).sheet
        ]

    async def button(
        self, table_id: int, kind: str, user_id: int, chat_id: int, locale: str
    ) -> tuple[str, str | None]:
        """(pop-up text, None), or (_, toast) when the answer went to the private chat.

        ``chat_id`` is where the button was pressed. Table ids are small
        sequential numbers, so anyone can forge one: a table is described only
        to its own group (Telegram lets only members press there) or to the
        people seated at it."""
        tr = self._tr(locale)
        live = await self.reg.get(table_id)
        if live is None or kind not in KINDS:
            return tr("err-stale"), None
        if chat_id != live.chat_id and live.seat_of(user_id) is None:
            return tr("err-stale"), None
        text = self.render(kind, tr, live)
        if kind != "sheet":
            return text, None
        user = await repo.get_user(self.ctx.db, user_id)
        if user is None or not user.started or user.blocked:
            return tr("lookup-start-first", bot=self.ctx.bot_username), None
        async with self.ctx.db.tx() as conn:
            await enqueue_send(
                conn, user_id, tr("lookup-table-head", group=esc(live.chat_title)) + "\n" + text
            )
        self.ctx.outbox.wake()
        return "", tr("lookup-sent-private")

    def render(self, kind: str, tr: Tr, live: LiveTable) -> str:
        renderer: Callable[[Tr, LiveTable], str] = getattr(self, f"_{kind}")
        return renderer(tr, live)

    # ------------------------------------------------------------ kinds
    def _score(self, tr: Tr, live: LiveTable) -> str:
        if live.game is None:
            return tr("lookup-not-started", target=str(live.rules.target))
        v = public(live)
        lines = [tr("score-title", target=str(live.rules.target), hands=len(v.sheet))]
        lines += score_lines(tr, live, v)
        if v.phase == OVER and v.winner is not None:
            lines.append(game_over_line(tr, live, v))
        return "\n".join(lines)

    def _turn(self, tr: Tr, live: LiveTable) -> str:
        if live.game is None:
            return tr("lookup-not-started", target=str(live.rules.target))
        v = public(live)
        if v.phase == OVER:
            return game_over_line(tr, live, v)
        if live.status == TableStatus.CANCELLED:
            return tr("table-cancelled")
        return turn_line(tr, live, v, self.ctx.clock.now(), self.ctx.settings.zone)

    def _table(self, tr: Tr, live: LiveTable) -> str:
        if live.game is None:
            return tr("lookup-not-started", target=str(live.rules.target))
        v = public(live)
        if v.phase == OVER:
            return self._turn(tr, live)
        lines = [status_line(tr, v, "lookup-status")]
        if v.phase == PLAY:
            if v.lead_suit is not None:
                lines.append(tr("table-trick", cards=trick_text(tr, live, v.trick)))
                lines.append(tr("lookup-lead", suit=SUIT_SYMBOLS[v.lead_suit]))
            else:
                lines.append(tr("lookup-lead-next", name=player_name(tr, live, v.to_move)))
            last = last_trick_line(tr, live, v)
            if last is not None:
                lines.append(last)
        return "\n".join(lines)

    def _info(self, tr: Tr, live: LiveTable) -> str:
        if live.game is None:
            return tr("lookup-not-started", target=str(live.rules.target))
        v = public(live)
        lines = [] if v.phase == OVER else [status_line(tr, v, "lookup-status")]
        return "\n".join(lines + standing_lines(tr, live, v))

    def _sheet(self, tr: Tr, live: LiveTable) -> str:
        if live.game is None:
            return tr("lookup-no-sheet")
        v = public(live)
        if not v.sheet:
            return tr("lookup-no-sheet")
        return sheet_block(tr, live, v)

    # --------------------------------------------------- group / user
    async def history(self, place: Place, locale: str) -> str:
        tr = self._tr(locale)
        rows = await repo.finished_games(self.ctx.db, place.chat_id, place.thread_id, limit=5)
        if not rows:
            return tr("history-empty")
        lines = [tr("history-title")]
        for row in rows:
            live = await self.reg.get(row["table_id"])
            if live is None or live.game is None:
                continue
            totals = json.loads(row["totals_json"] or "[]")
            day = datetime.fromtimestamp(row["finished_at"] or 0, tz=UTC).strftime("%d.%m")
            lines.append(
                tr(
                    "history-line",
                    day=day,
                    winner=side_name(tr, live, row["winner"]),
                    totals=" : ".join(str(t) for t in totals),
                    hands=len(live.game.sheet),
                )
            )
        return "\n".join(lines)

    async def stats(self, user_id: int, name: str, locale: str) -> str:
        tr = self._tr(locale)
        row = await repo.user_stats(self.ctx.db, user_id)
        if row is None or not row["games"]:
            return tr("stats-empty", name=esc(name))
        text = tr(
            "stats",
            name=esc(name),
            games=row["games"],
            wins=row["wins"],
            contracts_bid=row["contracts_bid"],
            contracts_made=row["contracts_made"],
        )
        if row["nils_bid"]:
            text += tr("stats-nils", nils_bid=row["nils_bid"], nils_made=row["nils_made"])
        return text + "."

    async def rules_in_chat(self, place: Place, locale: str) -> str:
        tr = self._tr(locale)
        live = await self.reg.live_in(place.chat_id, place.thread_id)
        rules = live.rules if live is not None else CLASSIC
        lines = [tr("rules-title", rules=preset_label(tr, rules))]
        lines += rules_lines(tr, rules)
        if live is not None and live.hints:
            lines.append(hints_line(tr, True))
        lines.append("")
        lines.append(tr("rules-summary"))
        return "\n".join(lines)
