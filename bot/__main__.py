"""``python -m bot``: run the bot (long polling, or a webhook with WEBHOOK_URL) until interrupted."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

from aiogram.exceptions import TelegramUnauthorizedError

from bot.app import App
from bot.config import ConfigError, load_settings
from bot.loop import loop_factory
from bot.polling import AnotherPoller
from bot.storage import DatabaseInUseError


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

    async def run() -> None:
        app = App(settings)
        task = asyncio.create_task(app.run())
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, task.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await task

    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(run())
    except TelegramUnauthorizedError:
        print(
            "error: Telegram refused BOT_TOKEN (Unauthorized); "
            "copy the token again from @BotFather",
            file=sys.stderr,
        )
        return 2
    except AnotherPoller:
        print(
            "error: another process is taking updates with this BOT_TOKEN "
            "(Telegram answered 409 Conflict); stop it first: one token, one bot",
            file=sys.stderr,
        )
        return 2
    except DatabaseInUseError as e:
        # One process per database: a second one would answer every update again.
        who = f"process {e.holder}" if e.holder else "another process"
        print(
            f"error: DATABASE_PATH {settings.database_path} is in use by another bot ({who}); "
            "stop it first or give this bot a database of its own",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
