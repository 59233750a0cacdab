"""Statements on one aiosqlite connection, each awaited (``Statements``): what
the functions given to ``Database.run``/``run_tx``/``between_writes`` use,
and what the database itself sends through its connections."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, TypeVar

import aiosqlite

Args = Sequence[Any] | Mapping[str, Any]
T = TypeVar("T")


class Statements:
    """Statements on one aiosqlite connection, each awaited: what a function
    given to :meth:`Database.run_tx` (inside the writing connection's
    transaction), :meth:`Database.run` (a snapshot of a reading connection) or
    :meth:`Database.between_writes` may do.

    Rows are ``sqlite3.Row``. Every statement is one trip to the connection's
    thread, but several asked for at once (:meth:`burst`, :meth:`ahead`) share
    one wait; a cursor never outlives its trip, except the writing
    connection's own, which only the holder of the database lock uses.
    """

    __slots__ = ("_conn", "_cursor", "_ahead")

    def __init__(self, conn: aiosqlite.Connection, cursor: aiosqlite.Cursor | None = None) -> None:
        self._conn = conn
        self._cursor = cursor
        self._ahead: str | None = None

    def ahead(self, sql: str | None) -> None:
        """Send ``sql`` (no arguments, no rows: a ``BEGIN``) together with the
        next statement, which waits for both (None: nothing is sent)."""
        self._ahead = sql

    async def _first(self, request: Awaitable[T]) -> T:
        """``request``, an aiosqlite call not yet under way, after the
        statement set :meth:`ahead` of it (which, failing, is raised)."""
        sql, self._ahead = self._ahead, None
        if sql is None:
            return await request
        # gather starts its tasks in order, and each asks for its statement at
        # its first step: ``sql`` goes first, nothing in between (the caller
        # holds the connection).
        before, result = await asyncio.gather(
            self._conn.execute_fetchall(sql), request, return_exceptions=True
        )
        if isinstance(before, BaseException):
            raise before
        if isinstance(result, BaseException):
            raise result
        return result

    async def plain(self, sql: str) -> None:
        """One statement with no arguments and no rows (``COMMIT``, say)."""
        await self._first(self._conn.execute_fetchall(sql))

    async def statement(self, sql: str, args: Args = ()) -> tuple[int, int]:
        """Run one statement: ``(lastrowid or 0, rowcount)``."""
        cur = self._cursor
        if cur is None:
            own = await self._first(self._conn.execute(sql, args))
            try:
                return own.lastrowid or 0, own.rowcount
            finally:
                await own.close()
        await self._first(cur.execute(sql, args))
        done = (cur.lastrowid or 0, cur.rowcount)
        if cur.description is not None:
            # It returned rows (a pragma): read them, so that it holds nothing open.
            await cur.fetchall()
        return done

    async def execute(self, sql: str, args: Args = ()) -> int:
        """Run one statement; the rows it changed."""
        return (await self.statement(sql, args))[1]

    async def executemany(self, sql: str, rows: Sequence[Args]) -> int:
        """Run one statement for each of ``rows``; the rows they changed."""
        cur = self._cursor
        if cur is None:
            own = await self._first(self._conn.executemany(sql, rows))
            try:
                return own.rowcount
            finally:
                await own.close()
        await self._first(cur.executemany(sql, rows))
        return cur.rowcount

    async def writes(self, pending: Sequence[tuple[str, Args]]) -> None:
        """Writes nobody reads, all asked for at once (:meth:`burst`); the
        first that failed is raised once all have run (the caller's
        transaction fails with it: it is rolled back)."""
        for outcome in await self.burst(pending):
            if isinstance(outcome, BaseException):
                raise outcome

    async def burst(
        self, pending: Sequence[tuple[str, Args]]
    ) -> list[list[sqlite3.Row] | BaseException]:
        """Statements asked for all at once: the connection's thread runs them
        in order, back to back, with one wait for the lot. All of them run
        (nothing is stopped by one that fails); the outcome of each: its rows,
        or what it raised."""
        if len(pending) == 1:
            try:
                return [list(await self._first(self._conn.execute_fetchall(*pending[0])))]
            except Exception as exc:
                return [exc]
        sql, self._ahead = self._ahead, None
        requests = [self._conn.execute_fetchall(sql, args) for sql, args in pending]
        if sql is not None:
            requests.insert(0, self._conn.execute_fetchall(sql))
        # In order, nothing in between: see _first.
        done = await asyncio.gather(*requests, return_exceptions=True)
        if sql is not None:
            before, *done = done
            if isinstance(before, BaseException):
                raise before
        return [o if isinstance(o, BaseException) else list(o) for o in done]

    async def fetchall(self, sql: str, args: Args = ()) -> list[sqlite3.Row]:
        """Every row of a query."""
        return list(await self._first(self._conn.execute_fetchall(sql, args)))

    async def fetchone(self, sql: str, args: Args = ()) -> sqlite3.Row | None:
        """The first row of a query (None: no row)."""
        for row in await self._first(self._conn.execute_fetchall(sql, args)):
            return row
        return None

    async def end(self, sql: str = "ROLLBACK") -> None:
        """``ROLLBACK`` (or ``COMMIT``) of whatever transaction is open; none
        being open (the failed statement ended it, or never began it) is fine.
        A statement set :meth:`ahead` and not sent is dropped."""
        self._ahead = None
        try:
            await self._conn.execute_fetchall(sql)
        except sqlite3.OperationalError as exc:
            if "no transaction is active" not in str(exc):
                raise
