"""Where the club player thinks: worker processes that die with the bot.

A search holds the GIL for tens of milliseconds; in a thread of the bot it
would stall every table while it ran. In a process of its own it uses another
core. The workers watch their parent: a bot killed with ``kill -9`` cannot
shut its pool down, and orphans would otherwise live on forever.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor


def _exit_with_parent(parent: int) -> None:
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """Processes started fresh (spawn: forking a process with running threads is unsafe)."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_exit_with_parent,
        initargs=(os.getpid(),),
    )
