"""SQLite for the whole bot: one writing connection and one reading connection,
each on a thread of its own (``threads.py``), with serialised transactions and
group commit; a third copies the WAL into the database file (``checkpoints.py``).

Durability: WAL mode with ``synchronous=NORMAL``. A ``COMMIT`` returns once
the transaction is in the WAL file (the operating system's page cache), so
killing the process, even with ``kill -9``, loses nothing; only a power cut
can lose the last few commits. ``synchronous="FULL"`` (:meth:`Database.open`)
trades speed for that too.

Concurrency: coroutines share one writing connection. A transaction of
several trips (:meth:`Database.tx` whose body reads) holds an
``asyncio.Lock``, taken only at its first trip (writes nobody reads,
:func:`defer`, go with that trip); a transaction that only writes needs no
lock and goes as one trip of the group commit (:meth:`Database._group`).
Reads outside transactions use the reading connection. Another *process*
holding the write lock is waited out for up to ``lock_wait`` seconds, and
:meth:`Database.open` takes the one-process-per-database lock
(``process_lock.py``). Why it is built so: docs/architecture.md.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from bot.storage.checkpoints import Checkpoints
from bot.storage.migrations import apply_migrations
from bot.storage.process_lock import ProcessLock, database_file
from bot.storage.threads import Worker, connector

log = logging.getLogger(__name__)

Args = Sequence[Any] | Mapping[str, Any]
T = TypeVar("T")

_BUSY_CODES = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class DatabaseBusyError(sqlite3.OperationalError):
    """Another process kept the database locked for longer than we are willing to wait."""


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    return "locked" in str(exc) or "busy" in str(exc)


# --------------------------------------------- run on the writer's thread
class _FailedInTx(Exception):
    """An error raised after ``BEGIN`` succeeded: the transaction is open, no retry."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(exc)
        self.exc = exc


Pending = list[tuple[str, Args]]


def _execute(raw: sqlite3.Connection, sql: str, args: Args = ()) -> None:
    raw.execute(sql, args).close()


def _run_pending(raw: sqlite3.Connection, pending: Pending) -> None:
    for sql, args in pending:
        raw.execute(sql, args).close()


def _after_pending(
    raw: sqlite3.Connection, pending: Pending, fn: Callable[..., T], args: tuple[Any, ...]
) -> T:
    _run_pending(raw, pending)
    return fn(raw, *args)


def _begin_then(
    raw: sqlite3.Connection, pending: Pending, fn: Callable[..., T], args: tuple[Any, ...]
) -> T:
    """``BEGIN IMMEDIATE`` (a busy database raises here, before anything is
    done, so it can be retried), the deferred writes, then ``fn``."""
    raw.execute("BEGIN IMMEDIATE")
    try:
        return _after_pending(raw, pending, fn, args)
    except BaseException as exc:
        raise _FailedInTx(exc) from None


def _flush_and_commit(raw: sqlite3.Connection, pending: Pending) -> bool:
    """The deferred writes, then COMMIT; False if only the COMMIT found the database busy."""
    _run_pending(raw, pending)
    try:
        raw.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        if _is_busy(exc):
            return False
        raise
    return True


def _rollback(raw: sqlite3.Connection) -> None:
    # The statement may already have ended the transaction (or the commit went
    # through before its caller was cancelled): then there is nothing to undo.
    if raw.in_transaction:
        raw.execute("ROLLBACK")


def _run_statement(raw: sqlite3.Connection, sql: str, args: Args) -> tuple[int, int]:
    cur = raw.execute(sql, args)
    try:
        return cur.lastrowid or 0, cur.rowcount
    finally:
        cur.close()


def _fetchall(raw: sqlite3.Connection, sql: str, args: Args) -> list[sqlite3.Row]:
    cur = raw.execute(sql, args)
    try:
        rows: list[sqlite3.Row] = cur.fetchall()
        return rows
    finally:
        cur.close()


def _fetchone(raw: sqlite3.Connection, sql: str, args: Args) -> sqlite3.Row | None:
    cur = raw.execute(sql, args)
    try:
        row: sqlite3.Row | None = cur.fetchone()
        return row
    finally:
        cur.close()


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


# ------------------------------------------------------- the transaction
class Conn:
    """One transaction of :meth:`Database.tx`: what its body may do.

    It starts for real at its first trip to the database thread (a statement
    whose result is awaited): the lock is taken and ``BEGIN IMMEDIATE`` goes
    out together with the deferred writes and that statement. Up to then
    nothing of it is in the database, so its isolation is that of a
    transaction begun at that first trip. A transaction that only defers
    writes never takes the lock: its writes go through the group commit.
    """

    __slots__ = ("_db", "_deferred", "_locked", "_begun", "_ended")

    def __init__(self, db: Database) -> None:
        self._db = db
        self._deferred: Pending = []
        self._locked = False  # holds the database lock (and maybe an open transaction)
        self._begun = False  # BEGIN certainly went through
        self._ended = False

    async def execute(self, sql: str, args: Args = ()) -> int:
        """Run one statement now (after the deferred writes); the rows it changed."""
        return (await self._run(_run_statement, sql, args))[1]

    async def fetchone(self, sql: str, args: Args = ()) -> sqlite3.Row | None:
        """The first row of a query; it sees this transaction's own writes."""
        return await self._run(_fetchone, sql, args)

    def _defer(self, sql: str, args: Args) -> None:
        self._check_open()
        self._deferred.append((sql, args))

    def _check_open(self) -> None:
        if self._ended:
            raise RuntimeError("this transaction has ended: use the conn of a new db.tx()")

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(raw_connection, *args)`` on the writer's thread after the
        deferred writes; the first such trip takes the lock and begins."""
        self._check_open()
        pending, self._deferred = self._deferred, []
        db = self._db
        if self._begun:
            return await db._writer.run(_after_pending, pending, fn, args)
        await db._lock.acquire()
        self._locked = True
        db._owner = asyncio.current_task()
        try:
            result: T = await db._retry_busy(lambda: db._writer.run(_begin_then, pending, fn, args))
        except _FailedInTx as failed:
            self._begun = True
            raise failed.exc from None
        self._begun = True
        return result

    async def _commit(self) -> None:
        """A transaction that only wrote is one trip of the group commit and needs no lock."""
        pending, self._deferred = self._deferred, []
        self._ended = True
        db = self._db
        if not self._begun:
            if pending:
                await db._group(_run_pending, pending)
            return
        if not await db._writer.run(_flush_and_commit, pending):
            await db._retry_busy(lambda: db._writer.run(_execute, "COMMIT"))

    async def _abandon(self) -> None:
        """The body (or the commit) failed: undo whatever reached the database."""
        self._deferred = []
        self._ended = True
        if self._locked:
            # Also when unsure whether BEGIN went through (cancelled mid-trip).
            try:
                await self._db._writer.run(_rollback)
            except sqlite3.Error:
                log.exception("ROLLBACK failed")


async def defer(conn: Conn, sql: str, args: Args = ()) -> None:
    """A write of the caller's transaction whose outcome nobody reads: sent with
    the transaction's next trip to the database thread instead of one of its own."""
    conn._defer(sql, args)


async def statement(conn: Conn, sql: str, args: Args = ()) -> tuple[int, int]:
    """One statement of the caller's transaction, now: ``(lastrowid or 0, rowcount)``."""
    return await conn._run(_run_statement, sql, args)


# ------------------------------------------------------------ the database
_Item = tuple[Callable[..., Any], tuple[Any, ...], "asyncio.Future[Any]"]


class Database:
    """A serialised, retrying front to one writing connection (and a reading one)."""

    def __init__(
        self,
        writer: Worker,
        path: str,
        *,
        lock_wait: float = 30.0,
        reader: Worker | None = None,
        process_lock: ProcessLock | None = None,
    ) -> None:
        """Wrap open connections; use :meth:`open` instead, it also locks, sets pragmas and migrates."""
        self._writer = writer
        # Without a reader (an in-memory database) reads share the writer and its lock.
        self._reader = reader
        self._process_lock = process_lock
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
        # A file's WAL is copied into it off the writer's thread (checkpoints.py).
        self.checkpoints: Checkpoints | None = None
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
        checkpoint_every: float = 0.5,
    ) -> Database:
        """Lock (:class:`DatabaseInUseError` if another process has it), open
        (creating if needed) the database file, set pragmas and apply migrations."""
        path = str(path)
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        file = database_file(path)
        if file is not None and not path.startswith("file:"):
            file.parent.mkdir(parents=True, exist_ok=True)
        process_lock = ProcessLock.take(file, path) if file is not None else None
        connect = connector(path, busy_timeout_ms / 1000)
        workers: list[Worker] = []
        try:
            writer = await Worker.start("sqlite-writer", connect)
            workers.append(writer)
            db = cls(writer, path, lock_wait=lock_wait, process_lock=process_lock)
            await writer.run(_execute, f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            mode = await db._retry_busy(
                lambda: writer.run(_fetchone, "PRAGMA journal_mode=WAL", ())
            )
            if mode is None or str(mode[0]).lower() != "wal":
                log.warning(
                    "SQLite journal_mode is %s, not WAL (database %s)", mode and mode[0], path
                )
            per_connection = (f"PRAGMA synchronous={synchronous.upper()}", "PRAGMA foreign_keys=ON")
            for pragma in per_connection:
                await writer.run(_execute, pragma)
            if migrate:
                await apply_migrations(db)
            if file is not None:
                reader = await Worker.start("sqlite-reader", connect)
                workers.append(reader)
                for pragma in (
                    f"PRAGMA busy_timeout={int(busy_timeout_ms)}",
                    *per_connection,
                    "PRAGMA query_only=1",
                ):
                    await reader.run(_execute, pragma)
                db._reader = reader
                checkpointer = await Worker.start("sqlite-checkpointer", connect)
                workers.append(checkpointer)
                for pragma in (f"PRAGMA busy_timeout={int(busy_timeout_ms)}", *per_connection):
                    await checkpointer.run(_execute, pragma)
                await writer.run(_execute, "PRAGMA wal_autocheckpoint=0")
                db.checkpoints = Checkpoints(
                    checkpointer, db.between_writes, every=checkpoint_every
                )
                db.checkpoints.start()
        except BaseException:
            for worker in workers:
                worker.stop()
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

    @asynccontextmanager
    async def tx(self) -> AsyncIterator[Conn]:
        """A transaction: ``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back (and the
        exception re-raised) if the body raises.

        IMMEDIATE takes the write lock up front, so a transaction never fails
        half-way because another process started writing. See :class:`Conn`
        for when it actually begins.
        """
        task = self._check_reentry()
        conn = Conn(self)
        self._in_tx.add(task)
        try:
            yield conn
            await conn._commit()
        except BaseException:
            await conn._abandon()
            raise
        finally:
            self._in_tx.discard(task)
            if conn._locked:
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
        return await self._group(fn, *args)

    async def _group(self, fn: Callable[..., T], *args: Any) -> T:
        """A whole transaction in one trip to the database thread (group commit).

        The thread runs trips one after the other, so such a transaction
        needs no lock of its own; it only waits while a transaction of several
        trips (which holds the lock) is open on the connection. Transactions
        that come while a trip is under way go together in the next one, each
        in a savepoint of its own: one that fails is undone alone, and the
        rest share a single ``COMMIT``.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
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
        items = [(fn, args) for fn, args, _ in batch]

        async def attempt() -> list[tuple[bool, Any]]:
            await self._unlocked()
            return await self._writer.run(_in_group, items)

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
        return await self._read(_fetchone, sql, args)

    async def fetchall(self, sql: str, args: Args = ()) -> list[sqlite3.Row]:
        """Run one query outside any transaction and return all rows."""
        return await self._read(_fetchall, sql, args)

    async def _read(self, fn: Callable[..., T], *args: Any) -> T:
        if self._reader is None:
            async with self._locked():
                return await self._writer.run(fn, *args)
        self._check_reentry()
        await self._writes_settled()
        reader = self._reader
        return await self._retry_busy(lambda: reader.run(fn, *args))

    async def between_writes(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(the writing connection)`` with no transaction open on it: after
        the trips already sent and before any other (checkpoints.py copies the
        WAL's last pages so, where no write can come in between)."""
        async with self._locked():
            return await self._writer.run(fn)

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
        """Wait for the running transactions, checkpoint the WAL, close the
        connections and let another process have the database."""
        flusher = self._flusher
        if flusher is not None and not flusher.done():
            await asyncio.wait([flusher])
        if self.checkpoints is not None:
            await self.checkpoints.close()
        async with self._locked():
            if self._closed:
                return
            self._closed = True
            try:
                try:
                    await self._writer.run(_execute, "PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.Error:
                    log.warning("WAL checkpoint on close failed", exc_info=True)
                await self._writer.close()
                if self._reader is not None:
                    await self._reader.close()
            finally:
                self._writer.stop()
                if self._reader is not None:
                    self._reader.stop()
                if self._process_lock is not None:
                    self._process_lock.release()


def _settle(done: asyncio.Future[None] | None) -> None:
    """Wake the reads waiting for a group-commit trip (ended or never to run)."""
    if done is not None and not done.done():
        done.set_result(None)
