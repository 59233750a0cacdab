"""Where and how long the club player thinks.

A search holds the GIL for tens of milliseconds; in a thread of the bot it
would stall every table while it ran. In a process of its own it uses another
core. The workers watch their parent: a bot killed with ``kill -9`` cannot
shut its pool down, and orphans would otherwise live on forever.

The workers are a fixed amount of CPU shared by every table. When many
computer seats are to move at once, each search gets less of it
(:func:`search_budget`), so a computer seat keeps its pace at a busy hour
instead of making its table wait behind the whole queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from bot.heap import set_aside

log = logging.getLogger(__name__)
R = TypeVar("R")


def _worker_init(parent: int) -> None:
    # Answering a press is what people feel; a search can take a few
    # milliseconds longer. On a busy machine the bot's own process goes first.
    with contextlib.suppress(OSError, AttributeError):
        os.nice(5)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    # Spawn imported the bot's main module again (aiogram, pydantic: some
    # 250,000 objects). A full collection of them takes ~150 ms and would
    # land inside a search, counted against its CPU cap (engine/ai/clock.py),
    # cutting the search short: set them aside as the bot does its own.
    set_aside()


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """Processes started fresh (spawn: forking a process with running threads is unsafe)."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_worker_init,
        initargs=(os.getpid(),),
    )


# Searches a worker may have queued before each new one thinks less.
QUEUE_PER_WORKER = 4
# Below this budget the search plays worse than the rule player it is built
# on (`bench.arena master rules --budget-ms N`, docs/benchmarks.md).
MIN_SEARCH_MS = 30
RULE_PLAYER = "amateur"


def search_budget(full_ms: int, ahead: int, workers: int) -> int:
    """The budget for a search with ``ahead`` others already asked of ``workers``
    (running or queued); 0: the rule player decides instead.

    The full budget while the queue is short; past ``QUEUE_PER_WORKER`` a
    worker it is shared out, so that the queue's total work stays about that
    of a short queue. Where the share would fall below ``MIN_SEARCH_MS`` the
    rule player (a fraction of a millisecond) moves instead: a loaded bot
    plays a little weaker and keeps its pace.
    """
    room = QUEUE_PER_WORKER * max(1, workers)
    if full_ms <= 0 or ahead < room:
        return full_ms
    share = full_ms * room // (ahead + 1)
    return share if share >= min(MIN_SEARCH_MS, full_ms) else 0


class Thinkers:
    """The club player's worker processes, shared by every table: the pool
    (started on first use), how many searches are asked of it (each new one
    gets a budget that shares the pool out), and a fresh pool when one
    breaks. With no workers, everything runs in a thread of the bot."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.searching = 0  # asked for and not yet done
        self._pool: ProcessPoolExecutor | None = None

    def budget(self, full_ms: int) -> int:
        """The search budget a new search gets now (0: the rule player decides)."""
        return search_budget(full_ms, self.searching, self.workers)

    async def run(self, fn: Callable[..., R], *args: Any) -> R:
        """``fn(*args)`` in a worker (``fn`` and ``args`` must pickle), counted
        among the searches. A pool that broke (a worker killed, out of
        memory) is replaced; this one call then runs in a thread."""
        self.searching += 1
        try:
            pool = self._started()
            if pool is not None:
                try:
                    return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
                except BrokenProcessPool:
                    log.error("the computer player's process pool broke; starting a new one")
                    pool.shutdown(wait=False, cancel_futures=True)
                    self._pool = None
            return await asyncio.to_thread(fn, *args)
        finally:
            self.searching -= 1

    def warm(self) -> None:
        """Start the workers now, not at the first computer move."""
        pool = self._started()
        if pool is not None:
            pool.submit(os.getpid)

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _started(self) -> ProcessPoolExecutor | None:
        if self.workers > 0 and self._pool is None:
            self._pool = worker_pool(self.workers)
        return self._pool
