"""Ending background tasks: a stop that lands meanwhile is not lost."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from bot.tasks import cancel_and_wait


async def slow_to_end() -> None:
    """Cleans up for a moment after its cancellation, like a task closing a file."""
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        await asyncio.sleep(0.05)
        raise


async def old_way(tasks: list[asyncio.Task[None]]) -> None:
    for t in tasks:
        t.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await t


@pytest.mark.parametrize("end", [cancel_and_wait, old_way])
async def test_a_cancel_of_the_caller_while_tasks_end_reaches_the_caller(end) -> None:
    async def loop_that_ends_its_helper() -> str:
        helper = asyncio.create_task(slow_to_end())
        await asyncio.sleep(0)
        await end([helper])
        return "ran on"

    caller = asyncio.create_task(loop_that_ends_its_helper())
    await asyncio.sleep(0.01)  # the caller is waiting for its helper to end
    caller.cancel()
    await asyncio.wait([caller])
    if end is old_way:  # the pattern this replaced: the stop is swallowed
        assert caller.result() == "ran on"
    else:
        assert caller.cancelled()
    await asyncio.sleep(0.1)  # the helper finishes its clean-up


async def test_errors_of_the_tasks_stay_theirs() -> None:
    async def fails() -> None:
        raise ValueError("its own trouble")

    task = asyncio.create_task(fails())
    await asyncio.sleep(0)
    await cancel_and_wait([task])  # no exception here
    assert isinstance(task.exception(), ValueError)
    await cancel_and_wait([])
