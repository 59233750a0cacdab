"""The garbage collector's policy for the long-running bot.

A full collection walks every object that has lived long: with a couple of
hundred tables that is every table's game, and each one was a pause every
press waited behind (``bench/ab.py --tables 150`` with the Mini App open:
p99 −29 %, p50 −18 % with this policy). So after each full collection its
survivors are frozen (``gc.freeze``): the next ones walk only what is newer.

The price: a frozen object that later becomes part of a garbage cycle is not
freed until it is thawed. So every ``THAW_EVERY`` seconds everything is
thawed, collected once for real (one longer pause an hour, not one every
few seconds) and frozen again.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

THAW_EVERY = 3600.0


def freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    """A ``gc.callbacks`` entry: after a full collection, freeze what is left."""
    if phase == "stop" and info.get("generation") == 2:
        gc.freeze()


def thaw_and_collect() -> int:
    """Everything thawed and collected for real, then frozen again; how many
    objects were unreachable."""
    gc.unfreeze()
    found = gc.collect()  # its own callback freezes the survivors
    gc.freeze()  # (in case the callback is not installed)
    return found


def install() -> None:
    if freeze_survivors not in gc.callbacks:
        gc.callbacks.append(freeze_survivors)


def uninstall() -> None:
    if freeze_survivors in gc.callbacks:
        gc.callbacks.remove(freeze_survivors)


async def thaw_regularly(every: float = THAW_EVERY) -> None:
    """Until cancelled: :func:`thaw_and_collect` every ``every`` seconds."""
    while True:
        await asyncio.sleep(every)
        thaw_and_collect()
