"""One aiosqlite connection shared by the whole bot, with serialised transactions.

Durability: the database runs in WAL mode with ``synchronous=NORMAL``. A
``COMMIT`` then returns only after the transaction has been written into the
WAL file with ``write()``; the data is in the operating system's page cache,
so killing the process (even with ``kill -9``) right after a commit loses
nothing. Only a power cut or kernel crash before the next checkpoint's
``fsync`` can roll back the last few commits. Surviving a killed process is
our requirement, so NORMAL is enough and avoids an ``fsync`` per move; pass
``synchronous="FULL"`` to :meth:`Database.open` to also survive power loss.

Concurrency: coroutines share one connection, so two of them must never be
inside a transaction at the same time. An ``asyncio.Lock`` serialises
:meth:`Database.tx` and the single-statement helpers. Another *process*
holding the write lock is waited out: SQLite's ``busy_timeout`` first, then
retries with backoff for up to ``lock_wait`` seconds, so a few seconds of
external locking (a backup, ``sqlite3`` in a shell) never loses a move.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

log = logging.getLogger(__name__)

# aiosqlite logs every statement *with its parameters* at DEBUG, and outbox
# payloads hold players' hidden cards: keep it quiet even when LOG_LEVEL=DEBUG.
_aiosqlite_log = logging.getLogger("aiosqlite")
if _aiosqlite_log.level == logging.NOTSET:
    _aiosqlite_log.setLevel(logging.INFO)

Args = Iterable[Any] | dict[str, Any]
T = TypeVar("T")

_BUSY_CODES = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class DatabaseBusyError(sqlite3.OperationalError):
    """Another process kept the database locked for longer than we are willing to wait."""


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    return "locked" in str(exc) or "busy" in str(exc)


async def on_thread(conn: aiosqlite.Connection, fn: Callable[..., T], *args: Any) -> T:
    """Run ``fn(raw_sqlite3_connection, *args)`` on the connection's own thread.

    Every ``await`` on aiosqlite is a round trip to its worker thread (and
    ``async with conn.execute(...)`` costs two: the statement and closing the
    cursor). Under load those hand-offs, each waiting for the GIL, were most of
    a move's database time; doing a few statements in one function makes them
    one hop. ``aiosqlite.Connection._execute`` is the library's own queueing
    primitive (aiosqlite is pinned in pyproject.toml).
    """
    return await conn._execute(fn, conn._conn, *args)


def _run_statement(raw: sqlite3.Connection, sql: str, args: Args) -> tuple[int, int]:
    cur = raw.execute(sql, args)
    try:
        return cur.lastrowid or 0, cur.rowcount
    finally:
        cur.close()


async def statement(conn: aiosqlite.Connection, sql: str, args: Args = ()) -> tuple[int, int]:
    """One statement in one hop: ``(lastrowid or 0, rowcount)``."""
    return await on_thread(conn, _run_statement, sql, args)


def _in_transaction(raw: sqlite3.Connection, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    raw.execute("BEGIN IMMEDIATE")
    try:
        result = fn(raw, *args)
        raw.execute("COMMIT")
    except BaseException:
        if raw.in_transaction:
            raw.execute("ROLLBACK")
        raise
    return result


class Database:
    """A serialised, retrying wrapper around one :class:`aiosqlite.Connection`."""

    def __init__(self, conn: aiosqlite.Connection, path: str, *, lock_wait: float = 30.0) -> None:
        """Wrap an open connection; use :meth:`open` instead, it also sets pragmas and migrates."""
        self._conn = conn
        self.path = path
        self.lock_wait = lock_wait
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._closed = False

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        busy_timeout_ms: int = 5000,
        lock_wait: float = 30.0,
        synchronous: str = "NORMAL",
        migrate: bool = True,
    ) -> Database:
        """Open (creating if needed) the database file, set pragmas and apply migrations."""
        path = str(path)
        if path != ":memory:" and not path.startswith("file:"):
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        conn = await aiosqlite.connect(path, isolation_level=None, timeout=busy_timeout_ms / 1000)
        db = cls(conn, path, lock_wait=lock_wait)
        try:
            conn.row_factory = aiosqlite.Row
            await db._exec(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            mode = await db._retry_busy(lambda: db._pragma("PRAGMA journal_mode=WAL"))
            if str(mode).lower() != "wal":
                log.warning("SQLite journal_mode is %s, not WAL (database %s)", mode, path)
            await db._exec(f"PRAGMA synchronous={synchronous.upper()}")
            await db._exec("PRAGMA foreign_keys=ON")
            if migrate:
                from bot.storage.migrations import apply_migrations

                await apply_migrations(db)
        except BaseException:
            await conn.close()
            raise
        return db

    async def _exec(self, sql: str) -> None:
        await statement(self._conn, sql)

    async def _pragma(self, sql: str) -> Any:
        rows = list(await self._conn.execute_fetchall(sql))
        return rows[0][0] if rows else None

    async def _retry_busy(self, op: Any) -> Any:
        """Run ``op()`` until it stops failing with SQLITE_BUSY or ``lock_wait`` runs out."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.lock_wait
        delay = 0.05
        while True:
            try:
                return await op()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc):
                    raise
                if loop.time() >= deadline:
                    raise DatabaseBusyError(
                        f"database {self.path} stayed locked by another process "
                        f"for more than {self.lock_wait:.0f} s"
                    ) from exc
                log.warning("database is locked by another process; retrying in %.2f s", delay)
                await asyncio.sleep(min(delay, max(0.0, deadline - loop.time())))
                delay = min(delay * 2, 1.0)

    @asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        task = asyncio.current_task()
        if task is not None and self._owner is task:
            raise RuntimeError(
                "Database used re-entrantly: inside db.tx() use the conn it yields, "
                "not db.tx()/db.fetch*()/db.execute()"
            )
        async with self._lock:
            self._owner = task
            try:
                yield
            finally:
                self._owner = None

    async def _rollback(self) -> None:
        # The statement may already have ended the transaction (or the commit
        # went through before we were cancelled): then there is nothing to undo.
        try:
            await self._exec("ROLLBACK")
        except sqlite3.OperationalError as exc:
            if "no transaction is active" not in str(exc):
                log.exception("ROLLBACK failed")

    @asynccontextmanager
    async def tx(self) -> AsyncIterator[aiosqlite.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``; rolls back and re-raises on any exception.

        IMMEDIATE takes the write lock up front, so a transaction never fails
        half-way because another process started writing.
        """
        async with self._locked():
            try:
                await self._retry_busy(lambda: self._exec("BEGIN IMMEDIATE"))
            except BaseException:
                await self._rollback()
                raise
            try:
                yield self._conn
                await self._retry_busy(lambda: self._exec("COMMIT"))
            except BaseException:
                await self._rollback()
                raise

    async def execute(self, sql: str, args: Args = ()) -> int:
        """Run one write statement in its own transaction; returns the affected row count."""
        return await self.run_tx(lambda raw: _run_statement(raw, sql, args)[1])

    async def run_tx(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(raw_sqlite3_connection, *args)`` inside ``BEGIN IMMEDIATE … COMMIT``,
        all on the database thread in one hop (rolled back if ``fn`` raises).

        For short bookkeeping transactions with no ``await`` inside (the
        outbox's); waits out another process's lock like :meth:`tx`.
        """
        async with self._locked():
            return await self._retry_busy(lambda: on_thread(self._conn, _in_transaction, fn, args))

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(raw_sqlite3_connection, *args)`` outside any transaction, in one hop
        (several reads at once)."""
        async with self._locked():
            return await on_thread(self._conn, fn, *args)

    async def fetchone(self, sql: str, args: Args = ()) -> aiosqlite.Row | None:
        """Run one query outside any transaction and return its first row."""
        async with self._locked():
            rows = await self._conn.execute_fetchall(sql, args)
        for row in rows:
            return row
        return None

    async def fetchall(self, sql: str, args: Args = ()) -> list[aiosqlite.Row]:
        """Run one query outside any transaction and return all rows."""
        async with self._locked():
            return list(await self._conn.execute_fetchall(sql, args))

    async def close(self) -> None:
        """Wait for the running transaction, checkpoint the WAL and close the connection."""
        async with self._locked():
            if self._closed:
                return
            self._closed = True
            try:
                await self._exec("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                log.warning("WAL checkpoint on close failed", exc_info=True)
            await self._conn.close()
