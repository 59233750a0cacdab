"""Playing a game: starting it, one move at a time, and the computer's seats.

Every accepted move is one transaction: the action row (its (game, seq) key
makes a double press lose cleanly), the table's new look and the private
hands queued in the outbox, and the end of the hand or game if it came.
Only after the commit is the in-memory game replaced and the press answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import sqlite3
from collections.abc import Callable

from bot.i18n import esc
from bot.model import LiveTable, rules_to_json
from bot.services import render
from bot.services.errors import UserError
from bot.services.live import Registry
from bot.storage import repo
from bot.views.hand import blind_pending
from bot.views.results import game_over, hand_result
from engine import BLIND, EngineError, Game, apply, view

log = logging.getLogger(__name__)

Chooser = Callable[..., int]


def _default_chooser() -> Chooser:
    from engine.ai import choose_action

    return choose_action


class PlayService:
    def __init__(self, reg: Registry, chooser: Chooser | None = None) -> None:
        self.reg = reg
        self.ctx = reg.ctx
        self._chooser = chooser
        self._runners: dict[int, asyncio.Task[None]] = {}

    @property
    def chooser(self) -> Chooser:
        if self._chooser is None:
            self._chooser = _default_chooser()
        return self._chooser

    # ------------------------------------------------------------- start
    async def start_game(self, live: LiveTable) -> None:
        """Called under the table lock by the set-up service."""
        seed = secrets.randbits(62)
        game = Game(live.rules, seed)
        async with self.ctx.db.tx() as conn:
            game_id = await repo.create_game(
                conn, live.table_id, seed, rules_to_json(live.rules), game.first_dealer
            )
            await repo.update_table(conn, live.table_id, status="playing")
            live.status = "playing"
            live.game_id = game_id
            live.game = game
            live.looked = set()
            await render.table_message(conn, self.reg, live)
            await render.hands(conn, self.reg, live, new_hand=True)
        self.ctx.outbox.wake()
        self.kick(live.table_id)

    # ------------------------------------------------------------- moves
    async def human_move(self, table_id: int, user_id: int, seq: int, action: int) -> None:
        async with self.reg.lock(table_id):
            live = await self._playing(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("err-not-at-table")
            if seq != live.seq:
                raise UserError("err-stale")
            g = live.game
            assert g is not None
            if g.to_move != seat:
                raise UserError("err-not_your_turn")
            if action == BLIND and seat in live.looked:
                raise UserError("err-looked")
            await self._commit(live, seat, action, user_id)
        self.ctx.outbox.wake()
        self.kick(table_id)

    async def look(self, table_id: int, user_id: int) -> None:
        """Open one's cards: blind nil is given up for this hand."""
        async with self.reg.lock(table_id):
            live = await self._playing(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("err-not-at-table")
            if seat in live.looked or not blind_pending(live, seat):
                return
            assert live.game is not None and live.game_id is not None
            async with self.ctx.db.tx() as conn:
                await repo.add_look(conn, live.game_id, live.game.hand_no, seat)
                live.looked.add(seat)
                await render.hands(conn, self.reg, live, only={seat})
        self.ctx.outbox.wake()

    async def why(self, table_id: int, user_id: int, seq: int, action: int) -> str:
        """Why a marked card cannot be played: the engine's own refusal, as a locale key."""
        live = await self._playing(table_id)
        seat = live.seat_of(user_id)
        if seat is None:
            return "err-not-at-table"
        if seq != live.seq or live.game is None:
            return "err-stale"
        try:
            apply(live.game, action, seat)
        except EngineError as e:
            return f"err-{e.code}"
        return "err-stale"

    async def user_returned(self, user_id: int) -> None:
        """The user pressed Start again (e.g. after blocking the bot): resend their hands."""
        for row in await repo.live_tables_of_user(self.ctx.db, user_id):
            if row.status != "playing":
                continue
            async with self.reg.lock(row.table_id):
                live = await self.reg.get(row.table_id)
                if live is None or live.game is None:
                    continue
                seat = live.seat_of(user_id)
                if seat is None:
                    continue
                live.blocked.discard(seat)
                async with self.ctx.db.tx() as conn:
                    await render.table_message(conn, self.reg, live)
                    await render.hands(conn, self.reg, live, only={seat})
        self.ctx.outbox.wake()

    async def on_forbidden(self, chat_id: int, description: str) -> None:
        """Telegram refused a message (403): a player blocked the bot or never
        started it, or the bot left a group. The game waits; the group is told."""
        if chat_id < 0:
            log.warning("group %s refused messages: %s", chat_id, description)
            return
        rows = await repo.live_tables_of_user(self.ctx.db, chat_id)
        async with self.ctx.db.tx() as conn:
            await repo.set_blocked(conn, chat_id)
        for row in rows:
            if row.status != "playing":
                continue
            async with self.reg.lock(row.table_id):
                live = await self.reg.get(row.table_id)
                if live is None:
                    continue
                seat = live.seat_of(chat_id)
                if seat is None or seat in live.blocked:
                    continue
                live.blocked.add(seat)
                tr = self.reg.tr_group(live)
                async with self.ctx.db.tx() as conn:
                    await render.group_note(
                        conn,
                        live,
                        tr(
                            "blocked-note",
                            name=esc(live.names.get(chat_id, "")),
                            bot=self.ctx.bot_username,
                        ),
                    )
                    await render.table_message(conn, self.reg, live)
        self.ctx.outbox.wake()

    async def _playing(self, table_id: int) -> LiveTable:
        live = await self.reg.get(table_id)
        if live is None or live.status != "playing" or live.game is None:
            raise UserError("err-stale")
        if live.game.finished:
            raise UserError("err-game_over")
        return live

    async def _commit(self, live: LiveTable, seat: int, action: int, user_id: int | None) -> None:
        """Validate against the engine, then write the move and its messages atomically."""
        g = live.game
        assert g is not None and live.game_id is not None
        try:
            after = apply(g, action, seat)
        except EngineError as e:
            raise UserError(f"err-{e.code}") from None
        hands_before = len(g.sheet)
        try:
            async with self.ctx.db.tx() as conn:
                await repo.append_action(conn, live.game_id, len(g.actions), seat, action, user_id)
                live.game = after
                new_hand = len(after.sheet) > hands_before
                if new_hand:
                    live.looked = set()
                    line = after.sheet[-1]
                    await render.group_note(
                        conn, live, hand_result(self.reg.tr_group(live), live, line)
                    )
                if after.finished:
                    await repo.end_game(conn, live.game_id, "finished", after.winner)
                    await repo.update_table(conn, live.table_id, status="finished")
                    live.status = "finished"
                    await render.group_note(conn, live, game_over(self.reg.tr_group(live), live))
                if new_hand:
                    await render.closed_hands(conn, self.reg, live, g.hand_no, after.sheet[-1])
                await render.table_message(conn, self.reg, live)
                if not after.finished:
                    await render.hands(conn, self.reg, live, new_hand=new_hand)
        except sqlite3.IntegrityError:
            live.game = g
            raise UserError("err-stale") from None
        except BaseException:
            live.game = g
            raise
        if live.status == "finished":
            self.reg.forget(live.table_id)

    # ---------------------------------------------------------- computer
    def kick(self, table_id: int) -> None:
        """Make sure the computer seats of this table get to move."""
        task = self._runners.get(table_id)
        if task is None or task.done():
            self._runners[table_id] = asyncio.create_task(self._run(table_id))

    async def _run(self, table_id: int) -> None:
        delay = self.ctx.settings.ai_move_delay
        while True:
            live = self.reg.cached(table_id) or await self.reg.get(table_id)
            if not self._computer_to_move(live):
                return
            if delay > 0:
                await asyncio.sleep(delay)
            async with self.reg.lock(table_id):
                live = await self.reg.get(table_id)
                if not self._computer_to_move(live):
                    return
                assert live is not None and live.game is not None
                g = live.game
                seat = g.to_move
                decision_seed = (g.seed or 0) ^ (len(g.actions) * 0x9E3779B1)
                try:
                    action = await asyncio.to_thread(
                        self.chooser, view(g, seat), self.ctx.settings.ai_level, decision_seed
                    )
                    await self._commit(live, seat, action, None)
                except Exception:
                    log.exception("computer move failed at table %s", table_id)
                    return
            self.ctx.outbox.wake()

    @staticmethod
    def _computer_to_move(live: LiveTable | None) -> bool:
        if live is None or live.status != "playing" or live.game is None:
            return False
        g = live.game
        return not g.finished and g.to_move >= 0 and live.is_computer(g.to_move)

    async def resume_all(self) -> None:
        """After a restart: bring every running table's messages up to date and
        let the computer seats continue."""
        for row in await repo.tables_with_status(self.ctx.db, "playing"):
            live = await self.reg.get(row.table_id)
            if live is None or live.game is None:
                continue
            async with self.ctx.db.tx() as conn:
                await render.table_message(conn, self.reg, live)
                await render.hands(conn, self.reg, live)
            self.kick(row.table_id)
        self.ctx.outbox.wake()

    async def stop(self) -> None:
        for task in self._runners.values():
            task.cancel()
        for task in self._runners.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._runners.clear()
