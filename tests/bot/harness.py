"""Run the real bot against the fake Bot API and play as people would.

Two ways to run it: in this process (``InProcessBot``: the real ``App`` with
polling as a task; the ``make_bot`` fixture starts and stops it) and as a
separate ``python -m bot`` process, which a test can kill with SIGKILL
mid-game (the ``bot_process`` fixture: bot_processes.py).

Then the people: a table opened (``open_table``), moves pressed until a
point (``play_moves``), the end told (``game_over_in``), ``/forget_me``
done (``forget_me``); the longer stories built on them are in scenarios.py.
"""

from __future__ import annotations

import asyncio
import io
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_telegram import FakeMessage, FakeTelegram, FakeUser

from bot.app import App
from bot.clock import Clock
from bot.config import Settings, load_settings
from engine import BID, BLIND

ROOT = Path(__file__).resolve().parents[2]
#: What the table message says of the pace of 24 hours a move.
DAILY = "По дням: 24 ч на ход"


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


def rows(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Every row ``sql`` reads from the database file."""
    con = sqlite3.connect(db, timeout=10)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


async def forget_me(fake: FakeTelegram, user: FakeUser) -> None:
    """``/forget_me`` and «Да», as the person does it, until the bot says it is done."""
    await fake.send_text(user, user.id, "/forget_me")
    confirm = await fake.wait_for(
        lambda: next(
            (m for m in fake.chat_messages(user.id) if m.buttons() and "Удалить" in m.text), None
        )
    )
    await (await fake.press_button(user, confirm, text_contains="Да")).answer()
    await fake.wait_for(lambda: "данные удалены" in fake.message(user.id, confirm.message_id).text)


class InProcessBot:
    def __init__(
        self,
        settings: Settings,
        clock: Clock | None = None,
    ) -> None:
        self.app = App(settings, clock=clock)
        self.task: asyncio.Task[None] | None = None
        self.stopped = False

    async def start(self, fake: FakeTelegram) -> None:
        after = len(fake.calls)
        self.task = asyncio.create_task(self.app.run())
        ready = asyncio.create_task(polling_started(fake, after))
        await asyncio.wait([self.task, ready], return_when=asyncio.FIRST_COMPLETED)
        if self.task.done():
            ready.cancel()
            self.stopped = True  # nothing left to stop
            self.task.result()  # the bot died while starting: show why
            raise AssertionError("the bot stopped while starting")
        await ready

    async def stop(self, timeout: float = 60) -> None:
        """Cancel the bot as a SIGTERM would; a stop that hangs fails with every
        task's stack (a pytest-timeout shows only the threads, all idle)."""
        if self.task is None or self.stopped:
            return
        self.stopped = True
        self.task.cancel()
        done, _ = await asyncio.wait([self.task], timeout=timeout)
        if not done:
            raise AssertionError(f"the bot did not stop within {timeout}s\n{task_stacks()}")
        if not self.task.cancelled():
            self.task.result()  # the bot failed: show why
            raise AssertionError("the bot's run returned: a cancellation was swallowed")


#: The ``make_bot`` fixture (tests/shared_fixtures.py): ``await make_bot(**changes)`` starts a bot, stopped at teardown.
MakeBot = Callable[..., Awaitable[InProcessBot]]


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

    def game_over(self) -> bool:
        """The table message shows the final result."""
        return "Победа" in self.table_message().text

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


def game_over_in(fake: FakeTelegram, chat_id: int, thread: int | None = None) -> Callable[[], bool]:
    """A check for ``wait_for``/``play_moves``: the group (or its topic
    ``thread``) has been told the game is over («Игра окончена»)."""
    return lambda: any("Игра окончена" in t for t in fake.sent_texts(chat_id, thread=thread))


async def open_table(
    fake: FakeTelegram,
    group: int,
    users: Sequence[FakeUser],
    *,
    seats: Sequence[str] = (),
    club: bool = False,
    daily: bool = False,
    start: bool = True,
    others: Sequence[FakeUser] = (),
    title: str = "Пики",
    supergroup: bool = False,
    timeout: float = 30,
) -> Table:
    """``users[0]`` opens a table in ``group`` with /newgame and the others sit
    down, each pressing the seat of ``seats`` in turn («Юг» past its end).
    ``club`` picks the club's rules (the game ends at −200: a short one),
    ``daily`` the pace of 24 hours a move, and ``start`` starts the game and
    waits until somebody can move.

    A group the fake does not know yet is made with ``users`` and ``others``
    (members who do not sit down) in it, the first user its admin. Whoever of
    them has not pressed Start in the private chat yet does so first.
    """
    if group not in fake.chats:
        fake.add_group(
            group, title, members=[*users, *others], admins=users[:1], supergroup=supergroup
        )
    for user in (*users, *others):
        if not user.started_bot:
            await fake.start_bot(user)
    table = Table(fake, group, list(users))
    sent = len(fake.sent_texts(group))
    await fake.send_text(users[0], group, "/newgame")
    await fake.wait_for(
        lambda: (
            (m := table.find_table_message()) is not None
            and bool(m.buttons())
            and len(fake.sent_texts(group)) > sent
        ),
        timeout=timeout,
        message="the new table's message",
    )
    for i, user in enumerate(users[1:]):
        label = seats[i] if i < len(seats) else "Юг"
        await press_label(fake, user, table.table_message(), label)
        await fake.wait_for(
            lambda user=user: user.first_name in table.table_message().text,
            timeout=timeout,
            message=f"{user.first_name} seated",
        )
    if club:
        await press_label(fake, users[0], table.table_message(), "Правила")
        await fake.wait_for(
            lambda: "«Клуб»" in table.table_message().text,
            timeout=timeout,
            message="the club's rules",
        )
    if daily:
        for _ in range(8):  # «Темп» in turn, each press the next pace, until 24 hours
            shown = table.table_message().text
            if DAILY in shown:
                break
            await press_label(fake, users[0], table.table_message(), "Темп")
            await fake.wait_for(
                lambda shown=shown: table.table_message().text != shown,
                timeout=timeout,
                message="the next pace",
            )
        assert DAILY in table.table_message().text
    if start:
        await press_label(fake, users[0], table.table_message(), "Начать")
        await fake.wait_for(table.actionable, timeout=timeout, message="the first move")
    return table


async def press_label(fake: FakeTelegram, user: FakeUser, message: FakeMessage, label: str) -> Any:
    """``user`` presses the button whose text has ``label``; the answer it got."""
    return await (await fake.press_button(user, message, text_contains=label)).answer()


def choose(buttons: FakeMessage | Sequence[str], bid: int | None = None) -> str | None:
    """A plain player's press among a message's move buttons (or their data):
    open the cards rather than bid blind, bid ``bid`` (the nearest offered)
    or else the highest number, play the lowest card allowed. None when the
    message offers no move.
    """
    if isinstance(buttons, FakeMessage):
        values = [b.value or "" for b in buttons.buttons()]
    else:
        values = list(buttons)
    moves = [v for v in values if v.startswith("m:")]
    looks = [v for v in values if v.startswith("l:")]
    if not moves:
        return None
    if looks and any(action_of(m) == BLIND for m in moves):
        return looks[0]
    bids = [m for m in moves if BID <= action_of(m) < BLIND]
    if bids:
        if bid is None:
            return max(bids, key=action_of)
        return min(bids, key=lambda m: abs(action_of(m) - BID - bid))
    return min(moves, key=action_of)


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
