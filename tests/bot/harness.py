"""Run the real bot against the fake Bot API and play as people would.

Two ways to run it: in this process (``InProcessBot``: the real ``App`` with
polling as a task; conftest's ``make_bot`` starts and stops it) and as a
separate ``python -m bot`` process (``BotProcess``), which a test can kill
with SIGKILL mid-game (conftest's ``bot_process``: ``BotProcesses``).

Then the people: a table opened (``open_table``), moves pressed until a
point (``play_moves``), the end told (``game_over_in``), ``/forget_me``
done (``forget_me``); the longer stories built on them are in scenarios.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import select
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import weakref
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


#: conftest's ``make_bot``: ``await make_bot(**changes)`` starts a bot, stopped at teardown.
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


class BotProcess:
    """``python -m bot`` in a process of its own: what a deployment runs.

    The process is forked from the ``Zygote`` (tests/bot/zygote.py), which
    has made the bot's imports once, so a test may kill and start the bot
    again and again without paying for them each time; from ``bot/__main__.py``
    on it is ``python -m bot``. Where the kernel has no pidfd (before Linux
    5.3) it is a fresh ``python -m bot``.
    """

    def __init__(self, fake: FakeTelegram, db_path: Path, **extra: Any) -> None:
        self.db_path, self.extra = db_path, extra
        self.env = {**os.environ, **bot_env(fake, db_path, **extra)}
        self.proc: Forked | subprocess.Popen[bytes] | None = None
        # Its stderr, read at the stop: a file, as a pipe nobody reads meanwhile could fill up.
        fd, name = tempfile.mkstemp(prefix="bot-", suffix=".err")
        os.close(fd)
        self.err = Path(name)
        weakref.finalize(self, self.err.unlink, missing_ok=True)

    async def start(self, fake: FakeTelegram) -> None:
        after = len(fake.calls)
        if hasattr(os, "pidfd_open"):
            self.proc = Zygote.get().fork(self.env, ROOT, self.err)
        else:
            with self.err.open("ab") as err:
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", "bot"], cwd=ROOT, env=self.env, stderr=err
                )
        try:
            await polling_started(fake, after, timeout=30)
        except BaseException:
            self.stop()  # no bot may outlive its test, not even one that never came up
            raise

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly like a crash."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> str:
        """Ends the process (SIGTERM, then SIGKILL) if it still runs; what it wrote to stderr."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.err.read_bytes().decode(errors="replace")


class BotProcesses:
    """The ``python -m bot`` processes of one test: conftest's ``bot_process``.

    ``await bot_process(**changes)`` starts one with the tests' settings
    (``bot_env``, ``changes`` applied) on the test's database (or ``db=``)
    and returns once it polls; ``await bot_process.again(proc)`` starts the
    next on ``proc``'s settings once ``proc`` is over (a ``kill()``, a
    ``stop()``); ``spawn`` starts one plainly, for a bot meant to refuse to
    start. Whatever still runs at the test's end is stopped, and a failed
    test's report shows what each process wrote to stderr."""

    def __init__(self, fake: FakeTelegram, db_path: Path) -> None:
        self.fake, self.db_path = fake, db_path
        self.started: list[BotProcess] = []
        self.spawned: list[tuple[asyncio.subprocess.Process, Path]] = []
        self.reported = False  # their stderr is in a failed test's report

    async def __call__(self, db: Path | None = None, **extra: Any) -> BotProcess:
        proc = BotProcess(self.fake, self.db_path if db is None else db, **extra)
        self.started.append(proc)
        await proc.start(self.fake)
        return proc

    async def again(self, proc: BotProcess) -> BotProcess:
        """The next process on ``proc``'s database and settings (``proc`` has ended)."""
        assert proc.proc is not None and proc.proc.poll() is not None, "the last one still runs"
        return await self(proc.db_path, **proc.extra)

    async def spawn(self, db: Path, err: Path, **extra: Any) -> asyncio.subprocess.Process:
        """``python -m bot`` with the tests' settings on ``db``, not waited for,
        its stderr into the file ``err`` (a pipe nobody reads could fill and stop it)."""
        env = {**os.environ, **bot_env(self.fake, db, **extra)}
        with err.open("wb") as sink:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=ROOT, env=env, stderr=sink
            )
        self.spawned.append((proc, err))
        return proc

    def stderr(self) -> list[tuple[str, str]]:
        """Each process's name and what it has written to stderr so far."""
        out = [
            (f"stderr of bot process {i} ({p.db_path.name})", p.err.read_text(errors="replace"))
            for i, p in enumerate(self.started, 1)
            if p.err.exists()
        ]
        out += [
            (f"stderr of spawned bot {i} ({err.name})", err.read_text(errors="replace"))
            for i, (_, err) in enumerate(self.spawned, 1)
            if err.exists()
        ]
        return out

    async def stop_all(self) -> None:
        """End every process still running: SIGTERM, then SIGKILL."""
        for proc in self.started:
            if proc.proc is not None:
                proc.stop()
        for spawned, _ in self.spawned:
            if spawned.returncode is None:
                spawned.terminate()
                try:
                    await asyncio.wait_for(spawned.wait(), 10)
                except TimeoutError:
                    spawned.kill()
                    await spawned.wait()


async def exit_of(proc: asyncio.subprocess.Process, timeout: float = 90) -> int:
    """The code a bot process exits with; killed if it does not exit in ``timeout``."""
    try:
        async with asyncio.timeout(timeout):
            return await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


class Zygote:
    """The fork server of tests/bot/zygote.py, one per test process (started
    at its first use, ended with the test process)."""

    _running: Zygote | None = None

    @classmethod
    def get(cls) -> Zygote:
        if cls._running is None or cls._running.proc.poll() is not None:
            cls._running = cls()
        return cls._running

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("zygote.py"))],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.requests, self.answers = self.proc.stdin, self.proc.stdout
        self.exits: dict[int, int] = {}
        if self.answers.readline() != b"ready\n":
            raise AssertionError(f"the zygote did not start (exit {self.proc.wait()})")
        weakref.finalize(self, self.requests.close)  # end of input: it exits

    def fork(self, env: dict[str, str], cwd: Path, stderr: Path, module: str = "bot") -> Forked:
        """``python -m module`` (the bot by default) with ``env``, in ``cwd``."""
        request = {"env": env, "cwd": str(cwd), "stderr": str(stderr), "module": module}
        self.requests.write(json.dumps(request).encode() + b"\n")
        self.requests.flush()
        while True:
            kind, pid, *code = self.answer()
            if kind == b"pid":
                return Forked(self, int(pid))
            self.exits[int(pid)] = int(code[0])

    def answer(self) -> list[bytes]:
        line = self.answers.readline()
        if not line:
            raise AssertionError(f"the zygote is gone (exit {self.proc.wait()})")
        return line.split()

    def exit_code(self, pid: int, timeout: float) -> int:
        """What the (ended) child ``pid`` exited with, once the zygote has reaped it."""
        deadline = time.monotonic() + timeout
        while pid not in self.exits:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.answers], [], [], left)[0]:
                raise AssertionError(f"the zygote did not report the end of process {pid}")
            kind, other, *code = self.answer()
            if kind == b"exit":
                self.exits[int(other)] = int(code[0])
        return self.exits[pid]


class Forked:
    """A bot process forked by the zygote: what of ``subprocess.Popen`` the tests use.
    Not our child, so it is watched through a pidfd (which no reused pid can fool)."""

    def __init__(self, zygote: Zygote, pid: int) -> None:
        self.zygote, self.pid = zygote, pid
        self.returncode: int | None = None
        try:
            self.pidfd = os.pidfd_open(pid)
        except ProcessLookupError:  # over and reaped already
            self.pidfd = -1
            self.returncode = zygote.exit_code(pid, 10)
        else:
            weakref.finalize(self, os.close, self.pidfd)

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self.pidfd], [], [], 0)[0]:
            self.returncode = self.zygote.exit_code(self.pid, 10)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not select.select([self.pidfd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"bot process {self.pid}", timeout or 0)
            self.returncode = self.zygote.exit_code(self.pid, 10)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self.pidfd, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


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
