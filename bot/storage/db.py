"""SQLite for the whole bot: one aiosqlite connection (one thread), used by
one coroutine at a time.

Durability: WAL mode with ``synchronous=NORMAL``. A ``COMMIT`` returns once
the transaction is in the WAL file (the operating system's page cache), so
killing the process, even with ``kill -9``, loses nothing; only a power cut
can lose the last few commits. ``synchronous="FULL"`` (:meth:`Database.open`)
trades speed for that too. SQLite copies the WAL into the database file
itself (its autocheckpoint, every 1,000 pages).

Concurrency: an ``asyncio.Lock`` gives the connection to one coroutine at a
time: a transaction (:meth:`Database.tx`, :meth:`Database.run_tx`: ``BEGIN
IMMEDIATE`` … ``COMMIT``) holds it from its ``BEGIN`` to its end, a read
outside one (:meth:`Database.fetchone`, :meth:`Database.run`) for its
statements. So a read never sees another coroutine's uncommitted writes,
and two transactions never interleave. Another *process* holding the write
lock (a backup, ``sqlite3`` in a shell) is waited out for up to
``lock_wait`` seconds.

:meth:`Database.open` takes the one-process-per-database lock
(``process_lock.py``) and sets the pragmas; the schema is brought up to date
by the caller (``migrations.apply_migrations``, which the app runs at start).

Statements: :class:`Statements` are those of the connection, each awaited
(what the functions given to :meth:`Database.run`/:meth:`Database.run_tx`
use); :class:`Conn` those of one transaction of :meth:`Database.tx`, which
the queries (``repo_*.py``) write through (:func:`defer`, :func:`statement`);
:func:`storable` says whether a number can be a row's id at all.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.storage.process_lock import ProcessLock, database_file

__all__ = [
    "Args",
    "Conn",
    "Database",
    "DatabaseBusyError",
    "Statements",
    "defer",
    "statement",
    "storable",
]

log = logging.getLogger(__name__)
# aiosqlite logs every statement with its arguments at DEBUG: message texts
# and hands, which the bot never logs, whatever LOG_LEVEL says.
logging.getLogger("aiosqlite").setLevel(logging.INFO)

T = TypeVar("T")

_BUSY_CODES = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)

Args = Sequence[Any] | Mapping[str, Any]

# SQLite integers are 64-bit; an id from a button or command beyond that range
# cannot name a row (and would make sqlite3 raise OverflowError).
_MIN_ID, _MAX_ID = -(2**63), 2**63 - 1


def storable(n: int) -> bool:
    """Whether ``n`` fits an SQLite INTEGER, i.e. could be the id of a row."""
    return _MIN_ID <= n <= _MAX_ID


class DatabaseBusyError(sqlite3.OperationalError):
    """Another process kept the database locked for longer than we are willing to wait."""


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    return "locked" in str(exc) or "busy" in str(exc)


def _closed_error() -> sqlite3.ProgrammingError:
    return sqlite3.ProgrammingError("Cannot operate on a closed database.")


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


class Conn(Statements):
    """One transaction of :meth:`Database.tx`: its statements, refused once it
    has ended (a ``conn`` kept past its ``async with`` would write outside
    any transaction)."""

    __slots__ = ("_ended",)

    def __init__(self, conn: aiosqlite.Connection) -> None:
        super().__init__(conn)
        self._ended = False

    def _check_open(self) -> None:
        if self._ended:
            raise RuntimeError("this transaction has ended: use the conn of a new db.tx()")

    async def statement(self, sql: str, args: Args = ()) -> tuple[int, int]:
        self._check_open()
        return await super().statement(sql, args)

    async def executemany(self, sql: str, rows: Any) -> int:
        self._check_open()
        return await super().executemany(sql, rows)

    async def fetchall(self, sql: str, args: Args = ()) -> list[sqlite3.Row]:
        self._check_open()
        return await super().fetchall(sql, args)

    async def fetchone(self, sql: str, args: Args = ()) -> sqlite3.Row | None:
        self._check_open()
        return await super().fetchone(sql, args)


async def defer(conn: Conn, sql: str, args: Args = ()) -> None:
    """A write of the caller's transaction whose outcome nobody reads (the
    queries' name for it; it runs now, like any other statement)."""
    await conn.execute(sql, args)


async def statement(conn: Conn, sql: str, args: Args = ()) -> tuple[int, int]:
    """One statement of the caller's transaction: ``(lastrowid or 0, rowcount)``."""
    return await conn.statement(sql, args)


class Database:
    """The one connection, a lock that serialises its users, and the waits
    for another process's write lock."""

    def __init__(
        self,
        connection: aiosqlite.Connection,
        path: str,
        *,
        lock_wait: float = 30.0,
        process_lock: ProcessLock | None = None,
    ) -> None:
        """Wrap an open connection; use :meth:`open` instead, it also locks
        the file and sets the pragmas."""
        self._connection = connection
        self._st = Statements(connection)
        self._process_lock = process_lock
        self.path = path
        self.lock_wait = lock_wait
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None  # the task holding the lock
        self._closed = False

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        busy_timeout_ms: int = 5000,
        lock_wait: float = 30.0,
        synchronous: str = "NORMAL",
    ) -> Database:
        """Lock (:class:`DatabaseInUseError` if another process has it), open
        (creating if needed) the database file and set the pragmas. The schema
        is the caller's: ``await apply_migrations(db)`` (bot/storage/migrations/)."""
        path = str(path)
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        file = database_file(path)
        if file is not None and not path.startswith("file:"):
            file.parent.mkdir(parents=True, exist_ok=True)
        process_lock = ProcessLock.take(file, path) if file is not None else None
        connection: aiosqlite.Connection | None = None
        try:
            # Autocommit: the transactions are our own BEGIN … COMMIT.
            connection = await aiosqlite.connect(
                path, isolation_level=None, timeout=busy_timeout_ms / 1000
            )
            connection.row_factory = sqlite3.Row
            db = cls(connection, path, lock_wait=lock_wait, process_lock=process_lock)
            await db._st.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            mode = await db._retry_busy(lambda: db._st.fetchone("PRAGMA journal_mode=WAL"))
            if mode is None or str(mode[0]).lower() != "wal":
                log.warning(
                    "SQLite journal_mode is %s, not WAL (database %s)", mode and mode[0], path
                )
            for pragma in (f"PRAGMA synchronous={synchronous.upper()}", "PRAGMA foreign_keys=ON"):
                await db._st.execute(pragma)
        except BaseException:
            if connection is not None:
                connection.stop()  # closes the connection and ends its thread
            if process_lock is not None:
                process_lock.release()
            raise
        return db

    async def _retry_busy(self, op: Callable[[], Awaitable[T]]) -> T:
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

    @contextmanager
    def _reentry_guard(self) -> Iterator[None]:
        """The connection is the caller's alone until it leaves; using the
        database again from inside (instead of the ``conn`` given) would wait
        for itself for ever, so it is an error."""
        task = asyncio.current_task()
        if task is not None and self._owner is task:
            raise RuntimeError(
                "Database used re-entrantly: inside db.tx() use the conn it yields, "
                "not db.tx()/db.fetch*()/db.execute()"
            )
        yield

    @asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        """The connection, once every earlier user of it is done."""
        with self._reentry_guard():
            self._check_open()
            async with self._lock:
                self._check_open()
                self._owner = asyncio.current_task()
                try:
                    yield
                finally:
                    self._owner = None

    def _check_open(self) -> None:
        if self._closed:
            raise _closed_error()

    async def _rollback(self) -> None:
        """End whatever transaction is open (none being open is fine). Asked
        for after a BEGIN or COMMIT that was cancelled on its way, it runs
        after that statement on the connection's thread."""
        try:
            await self._connection.execute_fetchall("ROLLBACK")
        except sqlite3.OperationalError as exc:
            if "no transaction is active" not in str(exc):
                log.exception("ROLLBACK failed")
        except sqlite3.Error:
            log.exception("ROLLBACK failed")
        except ValueError:  # aiosqlite's connection is closed: nothing is open
            pass

    @asynccontextmanager
    async def tx(self) -> AsyncIterator[Conn]:
        """A transaction: ``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back (and the
        exception re-raised) if the body raises or is cancelled.

        IMMEDIATE takes SQLite's write lock up front, so a transaction never
        fails half-way because another process started writing; one that
        holds it is waited out here, before anything is done.
        """
        async with self._locked():
            conn = Conn(self._connection)
            try:
                await self._retry_busy(lambda: self._st.execute("BEGIN IMMEDIATE"))
                yield conn
                conn._ended = True
                await self._retry_busy(lambda: self._st.execute("COMMIT"))
            except BaseException:
                conn._ended = True
                await self._rollback()
                raise

    async def execute(self, sql: str, args: Args = ()) -> int:
        """Run one write statement in its own transaction; the rows it changed."""
        async with self.tx() as conn:
            return await conn.execute(sql, args)

    async def run_tx(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``await fn(statements, *args)`` in a transaction of its own (the
        outbox's and the inbox's bookkeeping: functions of ``Statements``)."""
        async with self.tx() as conn:
            return await fn(conn, *args)

    async def run(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``await fn(statements, *args)`` outside any transaction of ours:
        several reads from one snapshot (a read transaction)."""
        async with self._locked():
            st = self._st
            try:
                await st.execute("BEGIN")
                return await fn(st, *args)
            finally:
                await self._rollback()  # a read transaction: nothing to keep

    async def fetchone(self, sql: str, args: Args = ()) -> sqlite3.Row | None:
        """Run one query outside any transaction and return its first row."""
        async with self._locked():
            return await self._retry_busy(lambda: self._st.fetchone(sql, args))

    async def fetchall(self, sql: str, args: Args = ()) -> list[sqlite3.Row]:
        """Run one query outside any transaction and return all rows."""
        async with self._locked():
            return await self._retry_busy(lambda: self._st.fetchall(sql, args))

    async def close(self) -> None:
        """Wait for the running transaction, checkpoint the WAL, close the
        connection (its thread ends) and let another process have the
        database; once (again: nothing)."""
        with self._reentry_guard():
            async with self._lock:
                if self._closed:
                    return
                self._closed = True
                try:
                    try:
                        await self._st.fetchone("PRAGMA wal_checkpoint(TRUNCATE)")
                    except sqlite3.Error:
                        log.warning("WAL checkpoint on close failed", exc_info=True)
                    try:
                        await self._connection.close()  # after what was asked of it before
                    except BaseException:
                        self._connection.stop()  # closes it and ends its thread, at once
                        raise
                finally:
                    if self._process_lock is not None:
                        self._process_lock.release()
