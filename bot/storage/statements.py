"""Statements on the database's one aiosqlite connection, each awaited
(``Statements``): what the functions given to ``Database.run``/``run_tx`` use,
and what a transaction of ``Database.tx`` is made of (``Conn``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

import aiosqlite

Args = Sequence[Any] | Mapping[str, Any]


class Statements:
    """Statements on the database's connection, each one trip to its thread;
    rows are ``sqlite3.Row``. Only the holder of the database lock has one
    (inside :meth:`Database.run_tx`, :meth:`Database.run` or ``tx()``), so
    they never interleave with another coroutine's."""

    __slots__ = ("_conn",)

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def statement(self, sql: str, args: Args = ()) -> tuple[int, int]:
        """Run one statement: ``(lastrowid or 0, rowcount)``."""
        cur = await self._conn.execute(sql, args)
        try:
            return cur.lastrowid or 0, cur.rowcount
        finally:
            await cur.close()

    async def execute(self, sql: str, args: Args = ()) -> int:
        """Run one statement; the rows it changed."""
        return (await self.statement(sql, args))[1]

    async def executemany(self, sql: str, rows: Sequence[Args]) -> int:
        """Run one statement for each of ``rows``; the rows they changed."""
        cur = await self._conn.executemany(sql, rows)
        try:
            return cur.rowcount
        finally:
            await cur.close()

    async def fetchall(self, sql: str, args: Args = ()) -> list[sqlite3.Row]:
        """Every row of a query."""
        return list(await self._conn.execute_fetchall(sql, args))

    async def fetchone(self, sql: str, args: Args = ()) -> sqlite3.Row | None:
        """The first row of a query (None: no row)."""
        for row in await self._conn.execute_fetchall(sql, args):
            return row
        return None
