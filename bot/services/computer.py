"""The computer's seats: whose move it makes, how it decides, and picking up
every running game after a restart.

A table whose next mover is a computer gets a runner task (:meth:`Computer.kick`):
it decides from that seat's view only, at the table's level, off the event
loop (:mod:`bot.services.thinking`: worker processes for the searching
level), then writes the move under the table's lock like any other.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bot.model import LiveTable
from bot.services.live import Registry
from bot.services.render import publish
from bot.services.thinking import RULE_PLAYER, Thinkers
from bot.storage import repo_tables
from bot.tasks import cancel_and_wait
from bot.views.outcome import Change, Hands
from engine import Game, view
from engine.ai import DEFAULT_BUDGET_MS
from engine.game import EXCHANGE

log = logging.getLogger(__name__)

Chooser = Callable[..., int]
R = TypeVar("R")

#: How a decided move is written (``Moves.commit``): table, seat, action, no person.
Commit = Callable[[LiveTable, int, int, None], Awaitable[None]]


def _default_chooser() -> Chooser:
    from engine.ai import choose_action

    return choose_action


class Computer:
    def __init__(self, reg: Registry, commit: Commit, chooser: Chooser | None = None) -> None:
        """``commit``: how a decided move is written; ``chooser``: the decision
        (tests inject one, which may not pickle: it runs in a thread)."""
        self.reg = reg
        self.ctx = reg.ctx
        self._commit = commit
        self._chooser = chooser
        settings = self.ctx.settings
        # The club player's searches run in other processes: in a thread they
        # would hold the GIL, and every table would wait while one thinks.
        # The quick levels do not search: sending them to a process costs more
        # than their decision. A table may pick a searching level whatever the
        # bot's own is: the pool is there for it, started at its first search.
        self._searches = DEFAULT_BUDGET_MS.get(settings.ai_level, 0) > 0
        self.thinkers = Thinkers(settings.ai_workers if chooser is None else 0)
        # How the searching level decided: its full budget, a share, the rule player.
        self.decisions: Counter[str] = Counter()
        self._warned_at: float | None = None
        self._runners: dict[int, asyncio.Task[None]] = {}
        self._stopped = False  # set by stop(): no new computer turns from then on

    @property
    def chooser(self) -> Chooser:
        if self._chooser is None:
            self._chooser = _default_chooser()
        return self._chooser

    def kick(self, table_id: int) -> None:
        """Make sure the computer seats of this table get to move."""
        if self._stopped:
            return  # shutting down: the next start resumes every table
        task = self._runners.get(table_id)
        if task is None or task.done():
            self._runners[table_id] = asyncio.create_task(self._run(table_id))

    async def _run(self, table_id: int) -> None:
        delay = self.ctx.settings.ai_move_delay
        while True:
            live = self.reg.cached(table_id) or await self.reg.get(table_id)
            if live is None or not live.computer_turn:
                return
            if delay > 0:
                await asyncio.sleep(delay)
            async with self.reg.lock(table_id):
                live = await self.reg.get(table_id)
                if live is None or not live.computer_turn:
                    return
                assert live is not None and live.game is not None
                g = live.game
                seat = g.to_move
                try:
                    action = await self.decide(g, seat, live.ai_level)
                    await self._commit(live, seat, action, None)
                except Exception:
                    log.exception("computer move failed at table %s", table_id)
                    return

    async def decide(self, g: Game, seat: int, table_level: str = "") -> int:
        """The club player's move for ``seat``, from that seat's view only, at
        the table's level (``''``: the bot's); off the event loop so that
        other tables keep moving while it thinks."""
        level = table_level if table_level in DEFAULT_BUDGET_MS else self.ctx.settings.ai_level
        decision_seed = (g.seed or 0) ^ (len(g.actions) * 0x9E3779B1)
        # Card exchanges are rule-based at every level: nothing to search.
        full = DEFAULT_BUDGET_MS[level] if g.phase != EXCHANGE else 0
        budget = self.thinkers.budget(full)
        if full > 0:
            self.decisions["full" if budget == full else "shared" if budget else "rules"] += 1
            if budget != full:
                self._warn_short_of_cores()
        if budget <= 0:  # no search here, or too many searches queued
            quick: str = RULE_PLAYER if full > 0 else level
            return await asyncio.to_thread(self.chooser, view(g, seat), quick, decision_seed)
        return await self.thinkers.run(self.chooser, view(g, seat), level, decision_seed, budget)

    def _warn_short_of_cores(self) -> None:
        """At most once an hour: searches are being cut short, AI_WORKERS is too low."""
        now = asyncio.get_running_loop().time()
        if self._warned_at is not None and now - self._warned_at < 3600:
            return
        self._warned_at = now
        log.warning(
            "the computer player is short of cores: %d searches queued for %d worker(s); so far %s",
            self.thinkers.searching,
            self.thinkers.workers,
            self._decisions_summary(),
        )

    def _decisions_summary(self) -> str:
        d = self.decisions
        return (
            f"{d['full']} with the full search, {d['shared']} with a shared budget,"
            f" {d['rules']} by the rule player (too many searches queued)"
        )

    async def think(self, fn: Callable[..., R], *args: Any) -> R:
        """``fn(*args)`` where the computer player thinks (its worker processes,
        else a thread), counted among its searches so a busy pool shares out
        its time: teaching's hints and reviews, a claim's check. ``fn`` and
        ``args`` must pickle."""
        return await self.thinkers.run(fn, *args)

    async def resume_all(self) -> None:
        """After a restart: bring every running table's messages up to date and
        let the computer seats continue."""
        if self._searches:
            self.thinkers.warm()
        for row in await repo_tables.tables_with_status(self.ctx.db, "playing"):
            live = await self.reg.get(row.table_id)
            if live is None or live.game is None:
                continue
            async with self.ctx.db.tx() as conn:
                await publish(conn, self.reg, live, Change(table=True, hands=Hands()))
            self.kick(row.table_id)
        self.ctx.changed()

    async def stop(self) -> None:
        if self.decisions:
            d = self.decisions
            # Searches cut short mean the machine was short of cores for its tables.
            level = logging.WARNING if d["shared"] or d["rules"] else logging.INFO
            log.log(level, "computer decisions: %s", self._decisions_summary())
        self._stopped = True
        await cancel_and_wait(self._runners.values())  # none is added now: _stopped
        self._runners.clear()
        self.thinkers.shutdown()
