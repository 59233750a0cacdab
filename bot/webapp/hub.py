"""Who has the app open at which table, and waking them when the table changes.

``PlayService.on_change`` is called after every committed change, without
saying which table changed; the hub then compares each watched table's mark
(the game object, which every move replaces, and the few fields that change
what a seat sees) with the one last seen, and wakes the streams of the
tables that differ. Changes that come close together are looked at once
(``SCAN_DELAY``), so a busy bot does one pass per batch, not one per move.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.model import LiveTable
from bot.services.live import Registry

# Seconds between a change and the pass that wakes the streams: moves made
# within it reach the page together, well inside the second people expect
# (a tenth of a second: under load the computer's quick moves go as one event).
SCAN_DELAY = 0.1


def mark(live: LiveTable) -> tuple[Any, ...]:
    """What must differ for any seat's picture of the table to differ. The
    game is compared by identity: the services replace it, never change it."""
    return (
        live.game,
        live.status,
        live.due_at,
        live.paused,
        len(live.looked),
        len(live.away),
        len(live.blocked),
        tuple(live.seats),
    )


@dataclass(eq=False, slots=True)
class Watcher:
    """One open stream: a person at a seat, woken when the table changes."""

    user_id: int
    wake: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass(eq=False, slots=True)
class Watched:
    """A table somebody watches. ``live`` is kept: a finished game is dropped
    from the registry, and its last state must still reach the page."""

    live: LiveTable
    seen: tuple[Any, ...]
    watchers: set[Watcher] = field(default_factory=set)
    # The public part of the state as JSON, per language, for the mark it was
    # built at: the table's seats share it (built once per change, not per seat).
    built_at: tuple[Any, ...] | None = None
    public_json: dict[str, str] = field(default_factory=dict)

    def public(self, lang: str, build: Callable[[], str]) -> str:
        now = mark(self.live)
        if now != self.built_at:
            self.built_at = now
            self.public_json = {}
        text = self.public_json.get(lang)
        if text is None:
            text = self.public_json[lang] = build()
        return text


class Hub:
    def __init__(self, reg: Registry) -> None:
        self.reg = reg
        self._tables: dict[int, Watched] = {}
        self._scan: asyncio.TimerHandle | None = None
        self.closing = False

    def __len__(self) -> int:
        return sum(len(w.watchers) for w in self._tables.values())

    def watch(self, live: LiveTable, user_id: int) -> tuple[Watched, Watcher]:
        watched = self._tables.get(live.table_id)
        if watched is None:
            watched = self._tables[live.table_id] = Watched(live, mark(live))
        elif watched.live is not live and self.reg.cached(live.table_id) is live:
            watched.live = live  # the registry built it anew (after a finish, a reload)
        watcher = Watcher(user_id)
        watched.watchers.add(watcher)
        return watched, watcher

    def unwatch(self, table_id: int, watcher: Watcher) -> None:
        watched = self._tables.get(table_id)
        if watched is None:
            return
        watched.watchers.discard(watcher)
        if not watched.watchers:
            del self._tables[table_id]

    def changed(self) -> None:
        """The hook chained to ``PlayService.on_change``: a pass soon."""
        if self._scan is None and self._tables:
            self._scan = asyncio.get_running_loop().call_later(SCAN_DELAY, self._pass)

    def _pass(self) -> None:
        self._scan = None
        for table_id, watched in self._tables.items():
            current = self.reg.cached(table_id)
            if current is not None and current is not watched.live:
                watched.live = current
            now = mark(watched.live)
            if now != watched.seen:
                watched.seen = now
                for watcher in watched.watchers:
                    watcher.wake.set()

    def close(self) -> None:
        """The server stops: every stream ends."""
        self.closing = True
        if self._scan is not None:
            self._scan.cancel()
            self._scan = None
        for watched in self._tables.values():
            for watcher in watched.watchers:
                watcher.wake.set()
