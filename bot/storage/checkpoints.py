"""The WAL copied into the database file beside the writer, not in its way.

SQLite's default is that the connection whose commit takes the WAL past
1,000 pages copies them into the database file there and then, with an
``fsync`` of each file, and every transaction queued behind it waits (under
load a group commit of a dozen moves). So the writer does not checkpoint
(``wal_autocheckpoint=0``); :class:`Checkpoints` does, every ``every``
seconds, on an aiosqlite connection (and so a thread) of its own. A PASSIVE
checkpoint takes no lock a writer needs: the writer goes on appending
meanwhile.

The WAL starts over from its beginning only when a transaction begins with
every page of it already copied. With writes arriving all the time a
checkpoint beside them almost never ends in such a gap, and the file would
grow for ever; so once the WAL holds ``restart_pages``, right after a pass
(so that little is left), the rest is copied on the writing connection
between two transactions (:meth:`Database.between_writes`): one short pause
in place of a long one every 1,000 pages.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from typing import NamedTuple

import aiosqlite

from bot.storage.statements import Statements

log = logging.getLogger(__name__)


class Pass(NamedTuple):
    """What ``PRAGMA wal_checkpoint`` reports (pages of the WAL; -1 if not in WAL mode)."""

    busy: int
    pages: int  # in the WAL
    copied: int  # of those, in the database file now


async def checkpoint(st: Statements) -> Pass:
    """One PASSIVE checkpoint: copies what no reader still needs, waits for nobody."""
    row = await st.fetchone("PRAGMA wal_checkpoint(PASSIVE)")
    assert row is not None
    return Pass(int(row[0]), int(row[1]), int(row[2]))


class Checkpoints:
    """The checkpointing connection and its loop; see the module's docstring."""

    def __init__(
        self,
        connection: aiosqlite.Connection,
        between_writes: Callable[[Callable[[Statements], Awaitable[Pass]]], Awaitable[Pass]],
        *,
        every: float = 0.5,
        restart_pages: int = 4096,
    ) -> None:
        self._connection = connection
        self._st = Statements(connection)
        self._between_writes = between_writes
        self.every = every
        self.restart_pages = restart_pages
        self._loop: asyncio.Task[None] | None = None

    async def once(self) -> Pass:
        """A pass beside the writer, then the rest between its transactions if
        the WAL is long enough to start over."""
        done = await checkpoint(self._st)
        if done.pages >= self.restart_pages:
            done = await self._between_writes(checkpoint)
        return done

    def start(self) -> None:
        """The loop, on the running event loop, until :meth:`close`."""
        self._loop = asyncio.create_task(self._run())

    async def _run(self) -> None:
        """A failed pass is logged and the next one tries again."""
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.once()
            except sqlite3.Error as exc:
                # Another process's checkpoint, or a backup holding the file: later.
                log.warning("WAL checkpoint failed: %s", exc)

    async def close(self) -> None:
        """End the loop, then the connection and its thread (once; again: nothing)."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        loop.cancel()
        try:
            await asyncio.wait([loop])
        finally:
            await self._connection.close()
