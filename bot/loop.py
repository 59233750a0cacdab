"""Which event loop the bot's processes run on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop where it installs: under load it answers presses sooner than
    asyncio's loop for the same CPU (docs/architecture.md). None: asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop
