"""Run the real bot against the fake Bot API and play as people would.

Two ways to run it: in this process (``InProcessBot``: the real ``App`` with
polling as a task) and as a separate ``python -m bot`` process
(``BotProcess``), which a test can kill with SIGKILL mid-game.
"""

from __future__ import annotations

import asyncio
import io
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_telegram import FakeMessage, FakeTelegram, FakeUser

from bot.app import App
from bot.clock import Clock
from bot.config import Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]


def bot_env(fake: FakeTelegram, db_path: Path, **extra: Any) -> dict[str, str]:
    env = {
        "BOT_TOKEN": fake.token,
        "BOT_API_URL": fake.base_url,
        "DATABASE_PATH": str(db_path),
        "AI_MOVE_DELAY": "0",
        "AI_LEVEL": "novice",
        "GROUP_MESSAGES_PER_MINUTE": "0",
        "PRIVATE_MESSAGES_PER_SECOND": "0",
        "GLOBAL_MESSAGES_PER_SECOND": "0",
        "LOG_LEVEL": "WARNING",
        # Scripted players press far faster than people; tests of throttling turn it on.
        "PRESS_LIMIT": "0",
        "COMMAND_LIMIT": "0",
        # The computer thinks in a thread: no process to start per test. The
        # tests that kill the bot and one full game use worker processes.
        "AI_WORKERS": "0",
    }
    env.update({k.upper(): str(v) for k, v in extra.items()})
    return env


def settings_for(fake: FakeTelegram, db_path: Path, **extra: Any) -> Settings:
    env = bot_env(fake, db_path, **extra)
    return load_settings(env_file=None, **{k.lower(): v for k, v in env.items()})


async def polling_started(fake: FakeTelegram, after: int, timeout: float = 15) -> None:
    """The bot is ready once its first long poll has reached the fake (in
    webhook mode: once its setWebhook is answered)."""
    await fake.wait_for(
        lambda: any(
            c.method == "getUpdates" or (c.method == "setWebhook" and c.done and c.ok)
            for c in fake.calls[after:]
        ),
        timeout=timeout,
    )


def count(db: Path, sql: str, *params: Any) -> int:
    """The single number ``sql`` (a ``SELECT COUNT(*) …``) reads from the database file."""
    con = sqlite3.connect(db, timeout=10)
    try:
        return int(con.execute(sql, params).fetchone()[0])
    finally:
        con.close()


class InProcessBot:
    def __init__(
        self,
        settings: Settings,
        clock: Clock | None = None,
        built: Callable[[], None] | None = None,
    ) -> None:
        self.app = App(settings, clock=clock)
        self.built = built  # App.run's
        self.task: asyncio.Task[None] | None = None

    async def start(self, fake: FakeTelegram) -> None:
        after = len(fake.calls)
        self.task = asyncio.create_task(self.app.run(built=self.built))
        ready = asyncio.create_task(polling_started(fake, after))
        await asyncio.wait([self.task, ready], return_when=asyncio.FIRST_COMPLETED)
        if self.task.done():
            ready.cancel()
            self.task.result()  # the bot died while starting: show why
            raise AssertionError("the bot stopped while starting")
        await ready

    async def stop(self, timeout: float = 60) -> None:
        """Cancel the bot as a SIGTERM would; a stop that hangs fails with every
        task's stack (a pytest-timeout shows only the threads, all idle)."""
        if self.task is None:
            return
        self.task.cancel()
        done, _ = await asyncio.wait([self.task], timeout=timeout)
        if not done:
            raise AssertionError(f"the bot did not stop within {timeout}s\n{task_stacks()}")
        if not self.task.cancelled():
            self.task.result()  # the bot failed: show why
            raise AssertionError("the bot's run returned: a cancellation was swallowed")


def task_stacks() -> str:
    """Where each asyncio task of this loop is waiting, down the whole chain of
    awaited coroutines (``Task.print_stack`` shows only the outermost)."""
    out = io.StringIO()
    for task in asyncio.all_tasks():
        print(f"{task!r}", file=out)
        coro: Any = task.get_coro()
        while coro is not None:
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
            if frame is not None:
                print(
                    f"  {frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}",
                    file=out,
                )
            coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
            if coro is not None and not hasattr(coro, "cr_frame") and not hasattr(coro, "gi_frame"):
                print(f"  awaiting {coro!r}"[:300], file=out)
                break
    return out.getvalue()


class BotProcess:
    """``python -m bot`` in a child process: what a deployment runs."""

    def __init__(self, fake: FakeTelegram, db_path: Path, **extra: Any) -> None:
        self.env = {**os.environ, **bot_env(fake, db_path, **extra)}
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self, fake: FakeTelegram) -> None:
        after = len(fake.calls)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot"], cwd=ROOT, env=self.env, stderr=subprocess.PIPE
        )
        await polling_started(fake, after, timeout=30)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly like a crash."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> str:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        err = self.proc.stderr.read().decode() if self.proc.stderr else ""
        return err


@dataclass
class Table:
    fake: FakeTelegram
    group: int
    users: list[FakeUser]
    thread: int | None = None  # the forum topic the table lives in (None: the whole chat)

    def table_message(self) -> FakeMessage:
        found = self.find_table_message()
        if found is None:
            raise AssertionError("no table message in the group")
        return found

    def find_table_message(self) -> FakeMessage | None:
        for m in reversed(self.fake.chat_messages(self.group, thread=self.thread)):
            if any((b.value or "").startswith("t:") for b in m.buttons()) or "🃏" in m.text:
                return m
        return None

    def actionable(self) -> list[tuple[FakeUser, FakeMessage]]:
        """Private messages that currently offer a move (bid, card, blind, look)."""
        out = []
        for u in self.users:
            for m in reversed(self.fake.chat_messages(u.id)):
                if any((b.value or "").startswith(("m:", "l:")) for b in m.buttons()):
                    out.append((u, m))
                    break
        return out


def move_buttons(message: FakeMessage) -> list[str]:
    return [b.value for b in message.buttons() if b.value and b.value.startswith("m:")]


async def play_moves(
    table: Table,
    until: Any,
    max_presses: int = 5000,
    choose: Any = None,
) -> int:
    """Press buttons as the players would until ``until()`` holds. Returns presses made.

    By default: open cards rather than bid blind, bid the highest number
    offered, play the first playable card.
    """
    fake = table.fake
    presses = 0
    while not until():
        await fake.wait_idle(quiet=0.03, timeout=30)
        if until():
            break
        acted = False
        for user, msg in table.actionable():
            moves = move_buttons(msg)
            looks = [b.value for b in msg.buttons() if b.value and b.value.startswith("l:")]
            if choose is not None:
                data = choose(user, msg, moves, looks)
                if data is None:
                    continue
            elif looks:
                data = looks[0]
            elif moves:
                data = _default_choice(msg, moves)
            else:
                continue
            press = await fake.press(user, user.id, msg.message_id, data)
            await press.answer(timeout=10)
            presses += 1
            acted = True
            break
        if not acted:
            # The computer may be thinking (no Telegram call meanwhile): wait
            # for someone to be able to move, or for the end.
            await fake.wait_for(
                lambda: until() or table.actionable(),
                timeout=30,
                message="someone able to move, or the end of the game",
            )
        if presses >= max_presses:
            raise AssertionError("too many presses")
    return presses


def action_of(data: str) -> int:
    return int(data.split(":")[3])


def _default_choice(msg: FakeMessage, moves: list[str]) -> str:
    bids = [m for m in moves if 52 <= action_of(m) < 70]
    if bids:
        return bids[-1]
    return moves[0]
