"""Score charts: at the end of a game in the group, on request in private.

Drawing a chart is a fraction of a second of pure CPU: it happens in a
worker process (in a thread when ``AI_WORKERS=0``), never on the event loop.
A finished game leaves a job row in the same transaction that ends it; the
job is drawn and its photo queued in one more transaction, so after a crash
the chart is still sent, and sent once.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ProcessPoolExecutor

from bot.chart import ChartData, render
from bot.model import LiveTable, TableStatus
from bot.outbox import enqueue_send
from bot.services.errors import UserError
from bot.services.live import Registry
from bot.services.thinking import worker_pool
from bot.storage import repo_charts, repo_games, repo_users
from bot.storage.db import Conn
from bot.tasks import cancel_and_wait
from bot.views.chart import chart_caption, chart_data

log = logging.getLogger(__name__)


class ChartService:
    def __init__(self, reg: Registry) -> None:
        self.reg = reg
        self.ctx = reg.ctx
        self._pool: ProcessPoolExecutor | None = None
        self._runner: asyncio.Task[None] | None = None
        self._due = True  # jobs may be waiting (left from the last run)

    async def game_over(self, conn: Conn, live: LiveTable) -> None:
        """A finish hook of ``PlayService``: the chart is owed to the group."""
        assert live.game_id is not None
        await repo_charts.add_chart_job(conn, live.game_id, live.chat_id)
        self._due = True

    def wake(self) -> None:
        """After a commit: draw the charts owed, in the background."""
        if self._due and (self._runner is None or self._runner.done()):
            self._due = False
            self._runner = asyncio.create_task(self._run())

    async def _run(self) -> None:
        for game_id, chat_id in await repo_charts.chart_jobs(self.ctx.db):
            try:
                await self._send_job(game_id, chat_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the chart of game %s failed", game_id)

    async def _send_job(self, game_id: int, chat_id: int) -> None:
        table_id = await repo_games.game_table(self.ctx.db, game_id)
        live = await self.reg.get(table_id) if table_id is not None else None
        photo: tuple[str, bytes] | None = None
        thread = 0
        if live is not None and live.game_id == game_id and live.game is not None:
            tr = self.reg.tr_group(live)
            photo = chart_caption(tr, live), await self.draw(chart_data(tr, live))
            thread = live.thread_id if live.chat_id == chat_id else 0
        async with self.ctx.db.tx() as conn:
            if photo is not None:
                caption, png = photo
                await enqueue_send(
                    conn, chat_id, caption, photo=png, disable_notification=True, thread=thread
                )
            await repo_charts.drop_chart_job(conn, game_id)
        self.ctx.outbox.wake()

    async def for_person(self, table_id: int, user_id: int, chat_id: int, locale: str) -> str:
        """The 📈 button: the chart of that table's game so far, sent to the
        person's private chat; the toast key. Like the lookups, only for the
        table's group or its players."""
        live = await self.reg.get(table_id)
        if live is None or live.game is None or live.status == TableStatus.OPEN:
            raise UserError("err-stale")
        if chat_id != live.chat_id and live.seat_of(user_id) is None:
            raise UserError("err-stale")
        user = await repo_users.get_user(self.ctx.db, user_id)
        if user is None or not user.started or user.blocked:
            raise UserError("lookup-start-first", bot=self.ctx.bot_username)
        tr = self.reg.tr_user(user_id, locale)
        data = chart_data(tr, live)
        if not data.totals[0]:
            raise UserError("lookup-no-sheet")
        png = await self.draw(data)
        async with self.ctx.db.tx() as conn:
            await enqueue_send(conn, user_id, chart_caption(tr, live), photo=png)
        self.ctx.outbox.wake()
        return "lookup-sent-private"

    async def draw(self, data: ChartData) -> bytes:
        if self.ctx.settings.ai_workers <= 0:
            return await asyncio.to_thread(render, data)
        if self._pool is None:
            self._pool = worker_pool(1)
        return await asyncio.get_running_loop().run_in_executor(self._pool, render, data)

    async def stop(self) -> None:
        if self._runner is not None:
            await cancel_and_wait([self._runner])
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
