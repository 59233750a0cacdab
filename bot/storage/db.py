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

Throughput: every ``await`` on aiosqlite is a round trip to its thread, and a
transaction holds the lock across all of its round trips, so under load the
time spent inside the lock is what limits moves per second. So a transaction
(:class:`Tx`) takes the lock only at its first trip: writes whose result
nobody reads (:func:`defer`) are kept until then, and a move, which only
writes, becomes one trip (``BEGIN IMMEDIATE``, its rows, ``COMMIT``) after
all of its rendering is done. Reads outside transactions use a second
connection of their own, which in WAL mode sees every committed transaction
and needs no lock.
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


class _FailedInTx(Exception):
    """An error raised after ``BEGIN`` succeeded: the transaction is open, no retry."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(exc)
        self.exc = exc


Pending = list[tuple[str, Args]]


def _run_pending(raw: sqlite3.Connection, pending: Pending) -> None:
    for sql, args in pending:
        raw.execute(sql, args).close()


def _after_pending(
    raw: sqlite3.Connection,
    pending: Pending,
    fn: Callable[..., T],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> T:
    _run_pending(raw, pending)
    return fn(*args, **kwargs)


def _begin_then(
    raw: sqlite3.Connection,
    pending: Pending,
    fn: Callable[..., T],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> T:
    """``BEGIN IMMEDIATE`` (a busy database raises here, before anything is
    done, so it can be retried), the deferred writes, then ``fn``."""
    raw.execute("BEGIN IMMEDIATE")
    try:
        return _after_pending(raw, pending, fn, args, kwargs)
    except BaseException as exc:
        raise _FailedInTx(exc) from None


def _commit(raw: sqlite3.Connection) -> bool:
    try:
        raw.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        if _is_busy(exc):
            return False
        raise
    return True


def _flush_and_commit(raw: sqlite3.Connection, pending: Pending) -> bool:
    """The deferred writes, then COMMIT; False if only the COMMIT found the database busy."""
    _run_pending(raw, pending)
    return _commit(raw)


class Tx(aiosqlite.Connection):
    """One transaction's handle on the writing connection (what ``db.tx()`` yields).

    It starts for real at its first trip to the database thread: the lock is
    taken and ``BEGIN IMMEDIATE`` goes out together with the deferred writes
    and the first statement. Up to then nothing of it is in the database, so
    its isolation is that of a transaction begun at that first trip.
    """

    def __init__(self, db: Database) -> None:  # noqa: D107 - no thread of its own
        self._db = db
        self._connection = None  # aiosqlite's __del__ looks at it
        self._iter_chunk_size = 64  # its cursors too
        self.deferred: Pending = []
        self.locked = False  # holds the database lock (and maybe an open transaction)
        self.begun = False  # BEGIN certainly went through

    @property
    def _conn(self) -> sqlite3.Connection:
        return self._db._conn._conn

    async def _execute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        writer = self._db._conn
        pending, self.deferred = self.deferred, []
        if self.begun:
            return await writer._execute(_after_pending, self._conn, pending, fn, args, kwargs)
        await self._db._acquire(self)
        try:
            result = await self._db._retry_busy(
                lambda: writer._execute(_begin_then, self._conn, pending, fn, args, kwargs)
            )
        except _FailedInTx as failed:
            self.begun = True
            raise failed.exc from None
        self.begun = True
        return result

    async def _finish(self) -> None:
        """Commit. A transaction that only wrote is one trip and needs no lock."""
        pending, self.deferred = self.deferred, []
        if not self.begun:
            if pending:
                await self._db._trip(_run_pending, pending)
            return
        if not await self._db._conn._execute(_flush_and_commit, self._conn, pending):
            await self._db._retry_busy(lambda: self._db._exec("COMMIT"))

    def __del__(self) -> None:  # no thread to stop
        pass


async def defer(conn: aiosqlite.Connection, sql: str, args: Args = ()) -> None:
    """A write of the caller's transaction whose outcome nobody reads: sent with
    the transaction's next trip to the database thread instead of one of its own."""
    if isinstance(conn, Tx):
        conn.deferred.append((sql, args))
    else:
        await statement(conn, sql, args)


def _run_statement(raw: sqlite3.Connection, sql: str, args: Args) -> tuple[int, int]:
    cur = raw.execute(sql, args)
    try:
        return cur.lastrowid or 0, cur.rowcount
    finally:
        cur.close()


async def statement(conn: aiosqlite.Connection, sql: str, args: Args = ()) -> tuple[int, int]:
    """One statement in one hop: ``(lastrowid or 0, rowcount)``."""
    return await on_thread(conn, _run_statement, sql, args)


_Item = tuple[Callable[..., Any], tuple[Any, ...], "asyncio.Future[Any]"]


def _in_group(
    raw: sqlite3.Connection, items: list[tuple[Callable[..., Any], tuple[Any, ...]]]
) -> list[tuple[bool, Any]]:
    """Several transactions in one: each in its own savepoint, one COMMIT.

    A busy ``BEGIN`` or ``COMMIT`` raises (with everything undone), so the
    whole group can be retried.
    """
    raw.execute("BEGIN IMMEDIATE")
    outcomes: list[tuple[bool, Any]] = []
    try:
        for fn, args in items:
            raw.execute("SAVEPOINT one")
            try:
                outcomes.append((True, fn(raw, *args)))
            except Exception as exc:
                raw.execute("ROLLBACK TO one")
                outcomes.append((False, exc))
            raw.execute("RELEASE one")
        raw.execute("COMMIT")
    except BaseException:
        if raw.in_transaction:
            raw.execute("ROLLBACK")
        raise
    return outcomes


def _in_read_tx(raw: sqlite3.Connection, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    """Several reads from one snapshot (a deferred read transaction)."""
    raw.execute("BEGIN")
    try:
        return fn(raw, *args)
    finally:
        raw.execute("COMMIT")


def _fetchall(raw: sqlite3.Connection, sql: str, args: Args) -> list[sqlite3.Row]:
    cur = raw.execute(sql, args)
    try:
        return cur.fetchall()
    finally:
        cur.close()


def _connector(path: str, timeout: float) -> Callable[[], sqlite3.Connection]:
    def connect() -> sqlite3.Connection:
        raw = sqlite3.connect(path, isolation_level=None, timeout=timeout, check_same_thread=False)
        raw.row_factory = sqlite3.Row
        return raw

    return connect


class Database:
    """A serialised, retrying wrapper around one writing connection (and a reading one)."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        path: str,
        *,
        lock_wait: float = 30.0,
        reader: aiosqlite.Connection | None = None,
    ) -> None:
        """Wrap open connections; use :meth:`open` instead, it also sets pragmas and migrates."""
        self._conn = conn
        # Without a reader (an in-memory database) reads share the writer and its lock.
        self._reader = reader
        self.path = path
        self.lock_wait = lock_wait
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._in_tx: set[asyncio.Task[Any] | None] = set()  # tasks inside db.tx()
        self._batch: list[_Item] = []  # one-trip transactions waiting for the next trip
        # One future per trip, done when it is: what reads wait for.
        self._batch_done: asyncio.Future[None] | None = None
        self._inflight_done: asyncio.Future[None] | None = None
        self._flusher: asyncio.Task[None] | None = None
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
        connect = _connector(path, busy_timeout_ms / 1000)
        conn = await aiosqlite.Connection(connect, 64)
        db = cls(conn, path, lock_wait=lock_wait)
        try:
            await db._exec(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            mode = await db._retry_busy(lambda: db._pragma("PRAGMA journal_mode=WAL"))
            if str(mode).lower() != "wal":
                log.warning("SQLite journal_mode is %s, not WAL (database %s)", mode, path)
            per_connection = (f"PRAGMA synchronous={synchronous.upper()}", "PRAGMA foreign_keys=ON")
            for pragma in per_connection:
                await db._exec(pragma)
            if migrate:
                from bot.storage.migrations import apply_migrations

                await apply_migrations(db)
            if path != ":memory:" and "mode=memory" not in path:
                db._reader = await aiosqlite.Connection(connect, 64)
                for pragma in (f"PRAGMA busy_timeout={int(busy_timeout_ms)}", *per_connection):
                    await statement(db._reader, pragma)
                await statement(db._reader, "PRAGMA query_only=1")
        except BaseException:
            await conn.close()
            if db._reader is not None:
                await db._reader.close()
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

    def _check_reentry(self) -> asyncio.Task[Any] | None:
        task = asyncio.current_task()
        if task is not None and (self._owner is task or task in self._in_tx):
            raise RuntimeError(
                "Database used re-entrantly: inside db.tx() use the conn it yields, "
                "not db.tx()/db.fetch*()/db.execute()"
            )
        return task

    @asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        task = self._check_reentry()
        async with self._lock:
            self._owner = task
            try:
                yield
            finally:
                self._owner = None

    async def _acquire(self, tx: Tx) -> None:
        """A transaction's first trip: the lock, held until :meth:`tx` ends."""
        await self._lock.acquire()
        tx.locked = True
        self._owner = asyncio.current_task()

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
        """A transaction: ``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back (and the
        exception re-raised) if the body raises.

        IMMEDIATE takes the write lock up front, so a transaction never fails
        half-way because another process started writing. See :class:`Tx`
        for when it actually begins.
        """
        task = self._check_reentry()
        tx = Tx(self)
        self._in_tx.add(task)
        try:
            yield tx
            await tx._finish()
        except BaseException:
            tx.deferred = []
            if tx.locked:
                # Also when unsure whether BEGIN went through (cancelled mid-trip).
                await self._rollback()
            raise
        finally:
            self._in_tx.discard(task)
            if tx.locked:
                self._owner = None
                self._lock.release()

    async def execute(self, sql: str, args: Args = ()) -> int:
        """Run one write statement in its own transaction; returns the affected row count."""
        return await self.run_tx(lambda raw: _run_statement(raw, sql, args)[1])

    async def run_tx(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(raw_sqlite3_connection, *args)`` inside ``BEGIN IMMEDIATE … COMMIT``,
        all on the database thread in one trip (rolled back if ``fn`` raises).

        For short bookkeeping transactions with no ``await`` inside (the
        outbox's); waits out another process's lock like :meth:`tx`.
        """
        self._check_reentry()
        return await self._trip(fn, *args)

    async def _trip(self, fn: Callable[..., T], *args: Any) -> T:
        """A whole transaction in one trip to the database thread (group commit).

        The thread runs trips one after the other, so such a transaction
        needs no lock of its own; it only waits while a transaction of several
        trips (which holds the lock) is open on the connection. Transactions
        that come while a trip is under way go together in the next one, each
        in a savepoint of its own: one that fails is undone alone, and the
        rest share a single ``COMMIT``.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if self._batch_done is None:
            self._batch_done = loop.create_future()
        self._batch.append((fn, args, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_batches())
        return await future

    async def _flush_batches(self) -> None:
        try:
            while self._batch:
                batch, self._batch = self._batch, []
                done, self._batch_done = self._batch_done, None
                self._inflight_done = done
                try:
                    await self._flush(batch)
                finally:
                    self._inflight_done = None
                    _settle(done)
        finally:
            # Cancelled (the loop is ending) or failed: nobody runs what is
            # still queued, and a read must not wait for it forever.
            left, self._batch = self._batch, []
            for _, _, future in left:
                future.cancel()
            done, self._batch_done = self._batch_done, None
            _settle(done)

    async def _flush(self, batch: list[_Item]) -> None:
        """One group-commit trip; each caller learns its own outcome."""
        batch = [item for item in batch if not item[2].done()]  # callers cancelled
        if not batch:
            return

        async def attempt(batch: list[_Item] = batch) -> list[tuple[bool, Any]]:
            await self._unlocked()
            return await on_thread(self._conn, _in_group, [(f, a) for f, a, _ in batch])

        try:
            outcomes = await self._retry_busy(attempt)
        except BaseException as exc:
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        for (_, _, future), (ok, value) in zip(batch, outcomes, strict=True):
            if future.done():
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(raw_sqlite3_connection, *args)`` outside any transaction, in one hop
        (several reads at once)."""
        return await self._read(_in_read_tx, fn, args)

    async def fetchone(self, sql: str, args: Args = ()) -> sqlite3.Row | None:
        """Run one query outside any transaction and return its first row."""
        rows = await self._read(_fetchall, sql, args)
        return rows[0] if rows else None

    async def fetchall(self, sql: str, args: Args = ()) -> list[sqlite3.Row]:
        """Run one query outside any transaction and return all rows."""
        return await self._read(_fetchall, sql, args)

    async def _read(self, fn: Callable[..., T], *args: Any) -> T:
        if self._reader is None:
            async with self._locked():
                return await on_thread(self._conn, fn, *args)
        self._check_reentry()
        await self._writes_settled()
        reader = self._reader
        return await self._retry_busy(lambda: on_thread(reader, fn, *args))

    async def _writes_settled(self) -> None:
        """Wait for the transactions that were committing when this read was
        asked for: a read sees whatever was written before it. (A transaction
        still in its body has written nothing yet; one of several trips holds
        the lock, and the read waits for that too.)"""
        waits = [f for f in (self._inflight_done, self._batch_done) if f is not None]
        if waits:
            await asyncio.wait(waits)
        await self._unlocked()

    async def _unlocked(self) -> None:
        """Wait until no transaction of several trips holds the connection."""
        while self._lock.locked():
            async with self._lock:
                pass

    async def close(self) -> None:
        """Wait for the running transactions, checkpoint the WAL and close the connections."""
        flusher = self._flusher
        if flusher is not None and not flusher.done():
            await asyncio.wait([flusher])
        async with self._locked():
            if self._closed:
                return
            self._closed = True
            try:
                await self._exec("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                log.warning("WAL checkpoint on close failed", exc_info=True)
            await self._conn.close()
            if self._reader is not None:
                await self._reader.close()


def _settle(done: asyncio.Future[None] | None) -> None:
    """Wake the reads waiting for a group-commit trip (ended or never to run)."""
    if done is not None and not done.done():
        done.set_result(None)
