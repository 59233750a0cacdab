"""SQLite for the whole bot, through aiosqlite: one writing connection, with
serialised transactions and group commit; two reading connections; a fourth
copies the WAL into the database file (``checkpoints.py``). Each aiosqlite
connection runs its statements, in the order they are asked for, on a thread
of its own.

Durability: WAL mode with ``synchronous=NORMAL``. A ``COMMIT`` returns once
the transaction is in the WAL file (the operating system's page cache), so
killing the process, even with ``kill -9``, loses nothing; only a power cut
can lose the last few commits. ``synchronous="FULL"`` (:meth:`Database.open`)
trades speed for that too.

Concurrency: coroutines share the writing connection, and an ``asyncio.Lock``
keeps its transactions apart: a transaction is several awaited statements
between ``BEGIN IMMEDIATE`` and ``COMMIT``, and whoever holds the lock owns
the connection until the ``COMMIT``. :meth:`Database.tx` takes the lock only
at its first statement whose result it awaits (writes nobody reads,
:func:`defer`, wait until then); one that only writes never takes it in its
body: its writes go, at its end, into the next group commit
(:meth:`Database._group`): the transactions that come together share one
``BEGIN IMMEDIATE`` … ``COMMIT``, each still whole or not at all. Reads
outside transactions use a reading connection, which in WAL mode sees every
committed transaction and needs no lock; :meth:`Database.run` reads from one
snapshot on a reading connection of its own. Another *process* holding the
write lock is waited out for up to ``lock_wait`` seconds.

:meth:`Database.open` takes the one-process-per-database lock
(``process_lock.py``) and sets the pragmas; the schema is brought up to date
by the caller (``migrations.apply_migrations``, which the app runs at start).
Why it is built so: docs/architecture.md.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.storage.checkpoints import Checkpoints
from bot.storage.process_lock import ProcessLock, database_file
from bot.storage.statements import Args, Statements

__all__ = [
    "Args",
    "Conn",
    "Database",
    "DatabaseBusyError",
    "Statements",
    "defer",
    "statement",
]

log = logging.getLogger(__name__)
# aiosqlite logs every statement with its arguments at DEBUG: message texts
# and hands, which the bot never logs, whatever LOG_LEVEL says.
logging.getLogger("aiosqlite").setLevel(logging.INFO)

T = TypeVar("T")

_BUSY_CODES = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class DatabaseBusyError(sqlite3.OperationalError):
    """Another process kept the database locked for longer than we are willing to wait."""


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    return "locked" in str(exc) or "busy" in str(exc)


def _closed_error() -> sqlite3.ProgrammingError:
    return sqlite3.ProgrammingError("Cannot operate on a closed database.")


Pending = list[tuple[str, Args]]


async def _write_all(st: Statements, pending: Pending) -> None:
    """A write-only transaction's writes, in the group commit."""
    await st.writes(pending)


# ------------------------------------------------------- the transaction
class Conn:
    """One transaction of :meth:`Database.tx`: what its body may do.

    It starts for real at its first statement whose result is awaited: the
    database lock is taken, ``BEGIN IMMEDIATE`` goes out, then the deferred
    writes (all at once) and that statement. Up to then nothing of it is in
    the database, so its isolation is that of a transaction begun at that
    point. A transaction that only defers writes never takes the lock in its
    body: its writes go through the group commit. A deferred write that fails
    fails the transaction: it cannot commit any more.
    """

    __slots__ = ("_db", "_deferred", "_locked", "_begun", "_ended", "_failed")

    def __init__(self, db: Database) -> None:
        self._db = db
        self._deferred: Pending = []
        self._locked = False  # holds the database lock (and maybe an open transaction)
        self._begun = False  # BEGIN certainly went through
        self._ended = False
        self._failed = False  # a deferred write failed

    async def execute(self, sql: str, args: Args = ()) -> int:
        """Run one statement now (after the deferred writes); the rows it changed."""
        return await (await self._ready()).execute(sql, args)

    async def fetchone(self, sql: str, args: Args = ()) -> sqlite3.Row | None:
        """The first row of a query; it sees this transaction's own writes."""
        return await (await self._ready()).fetchone(sql, args)

    def _defer(self, sql: str, args: Args) -> None:
        self._check_open()
        self._deferred.append((sql, args))

    def _check_open(self) -> None:
        if self._ended:
            raise RuntimeError("this transaction has ended: use the conn of a new db.tx()")
        if self._failed:
            raise RuntimeError("a deferred write of this transaction failed: it can only roll back")

    async def _send_deferred(self, st: Statements) -> None:
        pending, self._deferred = self._deferred, []
        if pending:
            try:
                await st.writes(pending)
            except BaseException:
                self._failed = True
                raise

    async def _ready(self) -> Statements:
        """The writing connection with this transaction open on it and the
        deferred writes sent; the first call takes the lock and begins."""
        self._check_open()
        db = self._db
        if not self._locked:
            db._check_open()
            await db._lock.acquire()
            self._locked = True
            db._owner = asyncio.current_task()
            db._check_open()
        if not self._begun:
            await db._begin()
            self._begun = True
        await self._send_deferred(db._w)
        return db._w

    async def _commit(self) -> None:
        """A transaction that only wrote is a part of the group commit and needs no lock."""
        self._check_open()
        db = self._db
        if not self._locked:
            pending, self._deferred = self._deferred, []
            self._ended = True
            if pending:
                await db._group(_write_all, pending)
            return
        if not self._begun:  # the body went on past a failed BEGIN
            await db._begin()
            self._begun = True
        await self._send_deferred(db._w)
        self._ended = True
        await db._commit()

    async def _abandon(self) -> None:
        """The body (or the commit) failed: undo whatever reached the database."""
        self._deferred = []
        self._ended = True
        self._failed = False
        if self._locked:
            # Also when unsure whether BEGIN went through (cancelled on its way):
            # the ROLLBACK runs after it on the connection's thread.
            try:
                await self._db._w.end()
            except sqlite3.Error:
                log.exception("ROLLBACK failed")
            except ValueError:  # aiosqlite's connection is closed: nothing is open
                pass


async def defer(conn: Conn, sql: str, args: Args = ()) -> None:
    """A write of the caller's transaction whose outcome nobody reads: sent
    with the transaction's next statement (or at its end) instead of now."""
    conn._defer(sql, args)


async def statement(conn: Conn, sql: str, args: Args = ()) -> tuple[int, int]:
    """One statement of the caller's transaction, now: ``(lastrowid or 0, rowcount)``."""
    return await (await conn._ready()).statement(sql, args)


# ------------------------------------------------------------ the database
_Item = tuple[Callable[..., Awaitable[Any]], tuple[Any, ...], "asyncio.Future[Any]"]


async def _connect(path: str, busy_timeout_ms: int, pragmas: Sequence[str]) -> aiosqlite.Connection:
    """An aiosqlite connection (its thread started) in autocommit mode, rows as
    ``sqlite3.Row``, with ``pragmas`` set."""
    conn = await aiosqlite.connect(path, isolation_level=None, timeout=busy_timeout_ms / 1000)
    try:
        conn.row_factory = sqlite3.Row
        for pragma in (f"PRAGMA busy_timeout={int(busy_timeout_ms)}", *pragmas):
            await conn.execute_fetchall(pragma)
    except BaseException:
        conn.stop()
        raise
    return conn


class Database:
    """A serialised, retrying front to one writing connection (and reading ones)."""

    def __init__(
        self,
        writer: aiosqlite.Connection,
        cursor: aiosqlite.Cursor,
        path: str,
        *,
        lock_wait: float = 30.0,
        process_lock: ProcessLock | None = None,
    ) -> None:
        """Wrap an open writing connection and its cursor; use :meth:`open`
        instead, it also locks, sets pragmas and opens the other connections."""
        self._writer = writer
        self._cursor = cursor  # the writer's own, used by the holder of the lock
        self._w = Statements(writer, cursor)
        # Without readers (an in-memory database) reads share the writer and its lock.
        self._reader: aiosqlite.Connection | None = None
        self._r: Statements | None = None
        # Database.run's reads from one snapshot, one run at a time.
        self._snapshots: aiosqlite.Connection | None = None
        self._s: Statements | None = None
        self._snapshot_lock = asyncio.Lock()
        self._process_lock = process_lock
        self.path = path
        self.lock_wait = lock_wait
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._in_tx: set[asyncio.Task[Any] | None] = set()  # tasks inside db.tx()
        self._batch: list[_Item] = []  # one-piece transactions waiting for the next group
        # One future per group commit, done when it is: what reads wait for.
        self._batch_done: asyncio.Future[None] | None = None
        self._inflight_done: asyncio.Future[None] | None = None
        self._flusher: asyncio.Task[None] | None = None
        # A file's WAL is copied into it beside the writer (checkpoints.py).
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
        checkpoint_every: float = 0.5,
    ) -> Database:
        """Lock (:class:`DatabaseInUseError` if another process has it), open
        (creating if needed) the database file and set the pragmas. The schema
        is the caller's: ``await apply_migrations(db)`` (bot/storage/migrations.py)."""
        path = str(path)
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        file = database_file(path)
        if file is not None and not path.startswith("file:"):
            file.parent.mkdir(parents=True, exist_ok=True)
        process_lock = ProcessLock.take(file, path) if file is not None else None
        per_connection = (f"PRAGMA synchronous={synchronous.upper()}", "PRAGMA foreign_keys=ON")
        opened: list[aiosqlite.Connection] = []
        try:
            writer = await _connect(path, busy_timeout_ms, ())
            opened.append(writer)
            db = cls(
                writer, await writer.cursor(), path, lock_wait=lock_wait, process_lock=process_lock
            )
            mode = await db._retry_busy(lambda: db._w.fetchone("PRAGMA journal_mode=WAL"))
            if mode is None or str(mode[0]).lower() != "wal":
                log.warning(
                    "SQLite journal_mode is %s, not WAL (database %s)", mode and mode[0], path
                )
            for pragma in per_connection:
                await db._w.execute(pragma)
            if file is not None:
                reading = (*per_connection, "PRAGMA query_only=1")
                db._reader = await _connect(path, busy_timeout_ms, reading)
                opened.append(db._reader)
                db._r = Statements(db._reader)
                db._snapshots = await _connect(path, busy_timeout_ms, reading)
                opened.append(db._snapshots)
                db._s = Statements(db._snapshots)
                checkpointer = await _connect(path, busy_timeout_ms, per_connection)
                opened.append(checkpointer)
                await db._w.execute("PRAGMA wal_autocheckpoint=0")
                db.checkpoints = Checkpoints(
                    checkpointer, db.between_writes, every=checkpoint_every
                )
                db.checkpoints.start()
        except BaseException:
            for conn in opened:
                conn.stop()  # closes the connection and ends its thread
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

    async def _begin(self) -> None:
        """``BEGIN IMMEDIATE`` on the writer (the lock held): a busy database
        raises here, before anything is done, so it is waited out."""
        await self._retry_busy(lambda: self._w.plain("BEGIN IMMEDIATE"))

    async def _commit(self) -> None:
        """``COMMIT`` (the lock held); one that finds the database busy keeps
        the transaction open and is tried again."""
        await self._retry_busy(lambda: self._w.plain("COMMIT"))

    def _check_open(self) -> None:
        if self._closed:
            raise _closed_error()

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
        return await self.run_tx(_execute_one, sql, args)

    async def run_tx(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``await fn(statements, *args)`` inside ``BEGIN IMMEDIATE … COMMIT``
        on the writing connection (rolled back alone if ``fn`` raises).

        For short bookkeeping transactions (the outbox's, the inbox's): ``fn``
        issues its statements through :class:`Statements` and changes nothing
        but the database (it may run twice: :meth:`_in_group`). It goes in the
        group commit and waits out another process's lock like :meth:`tx`.
        """
        self._check_reentry()
        return await self._group(fn, *args)

    async def _group(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """A transaction of one piece, in the next group commit.

        Transactions that come while a group is under way go together in the
        next one: one ``BEGIN IMMEDIATE``, each in turn, one ``COMMIT``, all
        under the database lock; one that fails is undone alone
        (:meth:`_in_group`).
        """
        self._check_open()
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
        """One group commit; each caller learns its own outcome."""
        batch = [item for item in batch if not item[2].done()]  # callers cancelled
        if not batch:
            return
        try:
            async with self._locked():
                self._check_open()
                outcomes = await self._in_group(batch)
        except BaseException as exc:
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        for i, (ok, value) in outcomes.items():
            future = batch[i][2]
            if future.done():
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    async def _in_group(self, batch: list[_Item]) -> dict[int, tuple[bool, Any]]:
        """Several transactions in one (the lock held): ``BEGIN IMMEDIATE``,
        each in turn, one ``COMMIT``; the outcome of each, by its place.

        One that fails undoes the whole pass: it alone is told its error, and
        the others go again without it, in a new pass (so no savepoints: each
        would cost two more statements, and failures are rare). A function
        given to :meth:`run_tx` may so run more than once; it changes nothing
        but the database. An error outside the functions undoes them all.
        """
        w = self._w
        outcomes: dict[int, tuple[bool, Any]] = {}
        while True:
            # (Callers cancelled meanwhile are left out.)
            todo = [i for i, it in enumerate(batch) if i not in outcomes and not it[2].done()]
            if not todo:
                return outcomes
            done: list[tuple[int, Any]] = []
            failed: tuple[int, BaseException] | None = None
            try:
                # Inside the try: a BEGIN whose caller was cancelled still runs,
                # and the ROLLBACK below runs after it.
                await self._begin()
                at = 0
                while at < len(todo) and failed is None:
                    # Transactions that are only statements (write-only ones,
                    # db.execute's), one after another, go at once.
                    plain: list[tuple[int, _Plain]] = []
                    while at < len(todo) and (found := _plain(batch[todo[at]])) is not None:
                        plain.append((todo[at], found))
                        at += 1
                    if plain:
                        went, failed = await _burst_of(w, plain)
                        done += went
                        continue
                    i = todo[at]
                    at += 1
                    fn, args, _ = batch[i]
                    try:
                        done.append((i, await fn(w, *args)))
                    except Exception as exc:
                        failed = (i, exc)
                if failed is None:
                    await self._commit()
                else:
                    await w.end()
            except BaseException:
                try:
                    await w.end()
                except (sqlite3.Error, ValueError):
                    log.exception("ROLLBACK failed")
                raise
            if failed is None:
                outcomes.update((i, (True, value)) for i, value in done)
                return outcomes
            outcomes[failed[0]] = (False, failed[1])

    async def run(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``await fn(statements, *args)`` outside any transaction: several
        reads from one snapshot (a read transaction on a reading connection)."""
        if self._s is None:
            return await self._read(fn, *args)
        self._check_reentry()
        await self._writes_settled()
        return await self._retry_busy(lambda: self._snapshot(fn, args))

    async def _snapshot(self, fn: Callable[..., Awaitable[T]], args: tuple[Any, ...]) -> T:
        st = self._s
        assert st is not None
        async with self._snapshot_lock:
            self._check_open()
            # BEGIN goes with the first read: one wait for both.
            st.ahead("BEGIN")
            try:
                return await fn(st, *args)
            finally:
                await st.end("COMMIT")  # after the BEGIN, also when its caller was cancelled

    async def fetchone(self, sql: str, args: Args = ()) -> sqlite3.Row | None:
        """Run one query outside any transaction and return its first row."""
        return await self._read(Statements.fetchone, sql, args)

    async def fetchall(self, sql: str, args: Args = ()) -> list[sqlite3.Row]:
        """Run one query outside any transaction and return all rows."""
        return await self._read(Statements.fetchall, sql, args)

    async def _read(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        self._check_open()
        if self._r is None:
            async with self._locked():
                self._check_open()
                return await fn(self._w, *args)
        self._check_reentry()
        await self._writes_settled()
        self._check_open()
        reader = self._r
        return await self._retry_busy(lambda: fn(reader, *args))

    async def between_writes(self, fn: Callable[[Statements], Awaitable[T]]) -> T:
        """``await fn(the writing connection)`` with no transaction open on it:
        after the transactions already under way and before any other
        (checkpoints.py copies the WAL's last pages so, where no write can come
        in between)."""
        async with self._locked():
            self._check_open()
            return await fn(self._w)

    async def _writes_settled(self) -> None:
        """Wait for the transactions that were committing when this read was
        asked for: a read sees whatever was written before it. (A transaction
        still in its body has written nothing yet; one that holds the lock
        may have, and the read waits for it too.)"""
        waits = [f for f in (self._inflight_done, self._batch_done) if f is not None]
        if waits:
            await asyncio.wait(waits)
        await self._unlocked()

    async def _unlocked(self) -> None:
        """Wait until no transaction holds the writing connection."""
        while self._lock.locked():
            async with self._lock:
                pass

    async def close(self) -> None:
        """Wait for the running transactions, checkpoint the WAL, close the
        connections (their threads end) and let another process have the database."""
        flusher = self._flusher
        if flusher is not None and not flusher.done():
            await asyncio.wait([flusher])
        if self.checkpoints is not None:
            await self.checkpoints.close()
        async with self._locked(), self._snapshot_lock:
            if self._closed:
                return
            self._closed = True
            left = [c for c in (self._writer, self._reader, self._snapshots) if c is not None]
            try:
                try:
                    await self._w.fetchone("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.Error:
                    log.warning("WAL checkpoint on close failed", exc_info=True)
                await self._cursor.close()
                while left:
                    await left[0].close()  # after what was asked of it before
                    left.pop(0)
            finally:
                for conn in left:
                    conn.stop()  # closes it and ends its thread, without waiting
                if self._process_lock is not None:
                    self._process_lock.release()


# A transaction of the group commit that is only statements: them, and how
# its outcome is read from theirs (None, the rows changed, or -1).
_Plain = tuple[Pending, str]
_DML = ("INSERT", "UPDATE", "DELETE", "REPLACE")


async def _execute_one(st: Statements, sql: str, args: Args) -> int:
    return await st.execute(sql, args)


def _plain(item: _Item) -> _Plain | None:
    fn, args, _ = item
    if fn is _write_all:
        return args[0], "none"
    if fn is _execute_one:
        sql, params = args
        if _counts_rows(sql):  # its rowcount, as sqlite3 gives it, asked for with it
            return [(sql, params), ("SELECT changes()", ())], "changes"
        return [(sql, params)], "uncounted"
    return None


def _counts_rows(sql: str) -> bool:
    """Whether sqlite3 counts the rows ``sql`` changes (its rowcount, else -1):
    INSERT, UPDATE, DELETE or REPLACE first, after blanks and comments."""
    rest = sql.lstrip()
    while rest.startswith(("--", "/*")):
        rest = rest.partition("\n" if rest.startswith("--") else "*/")[2].lstrip()
    return rest[:7].upper().startswith(_DML)


async def _burst_of(
    st: Statements, items: list[tuple[int, _Plain]]
) -> tuple[list[tuple[int, int | None]], tuple[int, BaseException] | None]:
    """The statements of several transactions at once: the outcomes of those
    before the first that failed, and that one with its error."""
    outcomes = await st.burst([s for _, (pending, _) in items for s in pending])
    done: list[tuple[int, int | None]] = []
    at = 0
    for i, (pending, kind) in items:
        mine, at = outcomes[at : at + len(pending)], at + len(pending)
        rows: list[list[sqlite3.Row]] = []
        for outcome in mine:
            if isinstance(outcome, BaseException):
                return done, (i, outcome)
            rows.append(outcome)
        if kind == "none":
            done.append((i, None))
        else:
            done.append((i, int(rows[-1][0][0]) if kind == "changes" else -1))
    return done, None


def _settle(done: asyncio.Future[None] | None) -> None:
    """Wake the reads waiting for a group commit (ended or never to run)."""
    if done is not None and not done.done():
        done.set_result(None)
