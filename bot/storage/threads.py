"""Each sqlite3 connection on a thread of its own (why not aiosqlite:
docs/architecture.md)."""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_Job = tuple[Callable[..., Any], tuple[Any, ...], "asyncio.Future[Any]"]


def _deliver(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    """On the event loop: a job's outcome to whoever still waits for it."""
    if future.done():  # the caller was cancelled; the job ran all the same
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


class Worker:
    """One sqlite3 connection and the one thread that ever uses it.

    :meth:`run` queues ``fn(connection, *args)`` at once (not at the first
    ``await``), and the thread runs jobs strictly in that order; a caller that
    stops waiting (cancelled) does not take its job back. So a ``ROLLBACK``
    sent after a statement whose caller was cancelled still runs after it.
    """

    def __init__(self, name: str, connect: Callable[[], sqlite3.Connection]) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._stopped = False
        # A daemon: a process that ends without close() must not hang on it;
        # every commit is in the WAL by the time its caller hears of it.
        self._thread = threading.Thread(target=self._serve, args=(connect,), name=name, daemon=True)
        self._thread.start()

    @classmethod
    async def start(cls, name: str, connect: Callable[[], sqlite3.Connection]) -> Worker:
        """A worker whose connection is open (an error opening it is raised here)."""
        worker = cls(name, connect)
        try:
            await worker.run(nothing)
        except BaseException:
            worker.stop()
            raise
        return worker

    def run(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """``fn(connection, *args)`` on the thread; await the result."""
        if self._stopped:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._jobs.put((fn, args, future))
        return future

    async def close(self) -> None:
        """Close the connection after the jobs already queued, and end the thread."""
        try:
            await self.run(close_connection)
        finally:
            self.stop()

    def stop(self) -> None:
        """End the thread after the jobs already queued (it closes the connection)."""
        if not self._stopped:
            self._stopped = True
            self._jobs.put(None)

    def _serve(self, connect: Callable[[], sqlite3.Connection]) -> None:
        raw: sqlite3.Connection | None = None
        failure: BaseException | None = None
        try:
            raw = connect()
        except BaseException as exc:
            failure = exc  # every job learns it
        try:
            while (job := self._jobs.get()) is not None:
                fn, args, future = job
                ok = False
                value: Any = failure
                if raw is not None:
                    try:
                        value = fn(raw, *args)
                        ok = True
                    except BaseException as exc:
                        value = exc
                # RuntimeError: the event loop is closed, nobody is waiting.
                with contextlib.suppress(RuntimeError):
                    future.get_loop().call_soon_threadsafe(_deliver, future, ok, value)
                del job, fn, args, future, value  # hold nothing while idle
        finally:
            if raw is not None:
                raw.close()


def nothing(raw: sqlite3.Connection) -> None:
    pass


def close_connection(raw: sqlite3.Connection) -> None:
    raw.close()


def connector(path: str, timeout: float) -> Callable[[], sqlite3.Connection]:
    def connect() -> sqlite3.Connection:
        raw = sqlite3.connect(path, isolation_level=None, timeout=timeout)
        raw.row_factory = sqlite3.Row
        return raw

    return connect
