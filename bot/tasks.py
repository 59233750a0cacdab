"""Ending background tasks without losing a cancellation of one's own."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any]], timeout: float | None = None) -> None:
    """Cancel the tasks and wait until every one has ended (or ``timeout`` is up).

    Not ``await task`` under ``suppress(CancelledError)``: a cancellation of the
    caller landing meanwhile is taken for the task's own and swallowed, and the
    caller runs on (it hung a shutdown). ``asyncio.wait`` raises only for the
    caller. The tasks' own errors were theirs to log; they are only collected.
    """
    ending = list(tasks)
    assert asyncio.current_task() not in ending, "a task cannot wait for its own end"
    for task in ending:
        task.cancel()
    if not ending:
        return
    await asyncio.wait(ending, timeout=timeout)
    for task in ending:
        if task.done() and not task.cancelled():
            task.exception()  # collected: no "exception was never retrieved"
