"""Quick answers that change nothing: score, turn, table, info, sheet,
history, stats, rules. Each works in any phase, also after the game ended.

The service finds what a lookup is about and hands it back as data; the
words are ``bot.views.lookups``'s."""

from __future__ import annotations

import json
from typing import Any

from bot.model import LiveTable, Place
from bot.outbox import enqueue_send
from bot.services.errors import UserError
from bot.services.live import Registry
from bot.storage import repo_games, repo_tables, repo_users
from bot.views.common import public
from bot.views.lookups import KINDS, Found, PastGame
from engine.rules import CLASSIC, Rules


class LookupService:
    def __init__(self, reg: Registry) -> None:
        self.reg = reg
        self.ctx = reg.ctx

    # ------------------------------------------------------------ entry
    async def asked(self, kind: str, place: Place, user_id: int, private: bool) -> Found:
        """A lookup command: in a group about the table of its topic, in the
        private chat about every running game of the user."""
        if private:
            rows = await repo_tables.live_tables_of_user(self.ctx.db, user_id)
            found = [await self.reg.get(row.table_id) for row in rows]
        else:
            found = [await self.reg.latest_in(place.chat_id, place.thread_id)]
        return self._found(kind, [live for live in found if live is not None], private)

    async def pressed(self, table_id: int, kind: str, user_id: int, chat_id: int) -> Found | None:
        """A lookup button: the table it is about; None when the press is
        stale or forged.

        ``chat_id`` is where the button was pressed. Table ids are small
        sequential numbers, so anyone can forge one: a table is described only
        to its own group (Telegram lets only members press there) or to the
        people seated at it."""
        live = await self.reg.get(table_id)
        if live is None or kind not in KINDS:
            return None
        if chat_id != live.chat_id and live.seat_of(user_id) is None:
            return None
        return self._found(kind, [live], False)

    async def send_private(self, user_id: int, text: str) -> None:
        """A lookup's answer too long for a pop-up, to the person's private
        chat; refused until they have started the bot."""
        user = await repo_users.get_user(self.ctx.db, user_id)
        if user is None or not user.started or user.blocked:
            raise UserError("lookup-start-first", bot=self.ctx.bot_username)
        async with self.ctx.db.tx() as conn:
            await enqueue_send(conn, user_id, text)
        self.ctx.outbox.wake()

    def _found(self, kind: str, tables: list[LiveTable], private: bool) -> Found:
        # A /sheet answer offers the chart of each game with a hand played.
        charts = [
            (live.table_id, live.chat_title)
            for live in tables
            if kind == "sheet" and live.game is not None and public(live).sheet
        ]
        now, zone = self.ctx.clock.now(), self.ctx.settings.zone
        return Found(kind, tables, private, now, zone, charts)

    # --------------------------------------------------- group / user
    async def history(self, place: Place) -> list[PastGame]:
        """The group's (its topic's) last five finished games."""
        rows = await repo_games.finished_games(self.ctx.db, place.chat_id, place.thread_id, limit=5)
        games = []
        for row in rows:
            live = await self.reg.get(row["table_id"])
            if live is None or live.game is None:
                continue
            totals = json.loads(row["totals_json"] or "[]")
            hands = len(live.game.sheet)
            games.append(PastGame(live, row["winner"], totals, row["finished_at"] or 0, hands))
        return games

    async def stats(self, user_id: int) -> dict[str, Any] | None:
        """The person's games, wins, contracts and nils (None: none stored)."""
        row = await repo_games.user_stats(self.ctx.db, user_id)
        return dict(row) if row is not None else None

    async def rules_in_chat(self, place: Place) -> tuple[Rules, bool]:
        """The rules of the topic's table (the classic ones when there is
        none) and whether its hints are on."""
        live = await self.reg.live_in(place.chat_id, place.thread_id)
        if live is None:
            return CLASSIC, False
        return live.rules, live.hints
