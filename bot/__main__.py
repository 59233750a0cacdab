"""``python -m bot``: run the bot with long polling until interrupted."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

from bot.app import App
from bot.config import ConfigError, load_settings


def main() -> int:
    try:
        settings = load_settings()
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )

    sys.setswitchinterval(0.0005)

    async def run() -> None:
        app = App(settings)
        task = asyncio.create_task(app.run())
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, task.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
