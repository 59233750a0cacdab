"""The collector's policy: full collections freeze their survivors, and the
regular thaw frees what became garbage while frozen."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from bot import collector


class Node:
    """An object in a reference cycle: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def policy() -> Iterator[None]:
    collector.install()
    try:
        yield
    finally:
        collector.uninstall()
        gc.unfreeze()


def test_a_full_collection_freezes_its_survivors(policy: None) -> None:
    gc.unfreeze()
    survivor = Node()
    gc.collect()
    assert gc.get_freeze_count() > 0
    # Frozen objects are out of the collector's sight: a new full collection
    # walks only what came after.
    assert not any(o is survivor for o in gc.get_objects(generation=2))
    collector.install()  # twice is once
    assert gc.callbacks.count(collector.freeze_survivors) == 1


def test_garbage_made_while_frozen_waits_for_the_thaw(policy: None) -> None:
    node = Node()
    alive = weakref.ref(node)
    gc.collect()  # node survives it, so it is frozen
    del node  # now a garbage cycle, but frozen
    gc.collect()
    assert alive() is not None
    assert collector.thaw_and_collect() >= 1
    assert alive() is None
    assert gc.get_freeze_count() > 0  # frozen again after the thaw


async def test_thaw_regularly_thaws_on_its_period(policy: None) -> None:
    node = Node()
    alive = weakref.ref(node)
    gc.collect()
    del node
    task = asyncio.create_task(collector.thaw_regularly(every=0.01))
    try:
        for _ in range(200):
            if alive() is None:
                break
            await asyncio.sleep(0.01)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert alive() is None
