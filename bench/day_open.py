"""«Сдача дня» at scale: ``python -m bench.day_open`` from the checkout's root.

``--groups`` groups (500) turn the day on for the same minute; beside them
run ``--tables`` real-time tables of the realistic load's people
(:mod:`bench.people`, thinking 3–15 s, the computer at «мастер»), and at
the opening ``--players`` of the groups' members (one a group) open their
link within ``--arrive`` seconds and play their hand, thinking ``--think``
seconds a move. The bot is ``python -m bot`` with Telegram's real pacing
(20 a minute a group, 1 a second a private chat, 30 a second in all).

It prints: how long after the opening minute each group's message went out
(the spread Telegram's 30 a second makes), the presses of the live tables
during the opening and the days' play (p50, p99: the 100 ms target), the
day's own presses, how many hands were finished, and the computer's
decisions for the days (each searched once, at the level's full budget).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from fake_telegram import FakeMessage, FakeTelegram, FakeUser

from bench.machine import end_bot
from bench.people import People, open_table, until
from bench.stats import percentile

ROOT = Path(__file__).resolve().parent.parent
FIRST_DAY_GROUP = -1001700000000
FIRST_DAY_USER = 5_000_000


class DayPlayers:
    """The groups' members who play their day: a press whenever their hand
    offers one (the first allowed card, a bid nearest 3), each timed."""

    def __init__(self, fake: FakeTelegram, rng: random.Random, think: tuple[float, float]) -> None:
        self.fake, self.rng, self.think = fake, rng, think
        self.users: dict[int, FakeUser] = {}
        self.busy: set[int] = set()
        self.latencies: list[float] = []
        self.refused = 0

    def hook(self) -> None:
        api = self.fake.api
        real_call = api.call
        loop = asyncio.get_running_loop()

        async def call(method: str, params: dict[str, Any]) -> Any:
            result = await real_call(method, params)
            chat = params.get("chat_id")
            if (
                method in ("sendMessage", "editMessageText")
                and chat in self.users
                and isinstance(result, dict)
            ):
                loop.call_soon(self.consider, chat, result["message_id"])
            return result

        api.call = call  # type: ignore[method-assign]

    def consider(self, user_id: int, message_id: int) -> None:
        msg = self.fake.chats[user_id].messages.get(message_id)
        if msg is None or user_id in self.busy:
            return
        moves = [b.value for b in msg.buttons() if (b.value or "").startswith("dm:")]
        if not moves:
            return
        acts = {m: int(m.split(":")[3]) for m in moves if m}
        bids = [m for m, a in acts.items() if a >= 52]
        data = min(bids, key=lambda m: abs(acts[m] - 55)) if bids else self.rng.choice(list(acts))
        self.busy.add(user_id)
        asyncio.get_running_loop().create_task(self.press(user_id, msg, data))

    async def press(self, user_id: int, msg: FakeMessage, data: str) -> None:
        try:
            await asyncio.sleep(self.rng.uniform(*self.think))
            loop = asyncio.get_running_loop()
            start = loop.time()
            press = await self.fake.press_raw(self.users[user_id], user_id, msg.message_id, data)
            answer = await press.answer(timeout=60)
            self.latencies.append(loop.time() - start)
            if answer.get("text"):
                self.refused += 1
        finally:
            self.busy.discard(user_id)

    async def sweep(self) -> None:
        """Now and then, anybody whose newest message offers a press presses."""
        while True:
            await asyncio.sleep(2.0)
            for uid in self.users:
                msgs = self.fake.chat_messages(uid)
                if msgs and uid not in self.busy:
                    self.consider(uid, msgs[-1].message_id)


def bot_env(fake: FakeTelegram, db: Path, args: argparse.Namespace) -> dict[str, str]:
    return {
        **os.environ,
        "BOT_TOKEN": fake.token,
        "BOT_API_URL": fake.base_url,
        "DATABASE_PATH": str(db),
        "AI_MOVE_DELAY": "1.0",
        "AI_LEVEL": args.ai_level,
        "GROUP_MESSAGES_PER_MINUTE": "20",
        "PRIVATE_MESSAGES_PER_SECOND": "1",
        "GLOBAL_MESSAGES_PER_SECOND": "30",
        "LOG_LEVEL": "WARNING",
        "PRESS_LIMIT": "8",
        "TIME_ZONE": "Europe/Moscow",
    }


def opening_minute(lead: float) -> tuple[str, float]:
    """``HH:MM`` at least ``lead`` seconds from now (Moscow), and its moment."""
    zone = ZoneInfo("Europe/Moscow")
    at = (datetime.now(zone) + timedelta(seconds=lead + 60)).replace(second=0, microsecond=0)
    return at.strftime("%H:%M"), at.timestamp()


async def run(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    db = Path(tempfile.mkdtemp(prefix="piki-day-")) / "spades.db"
    async with FakeTelegram(bot_username="piki_load_bot") as fake:
        people = People(fake, rng, think=(3.0, 15.0))
        people.hook()
        days = DayPlayers(fake, rng, tuple(args.think))
        days.hook()
        log = open(db.parent / "bot.log", "wb")  # noqa: SIM115 (closed below)
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot"], cwd=ROOT, env=bot_env(fake, db, args), stderr=log
        )
        try:
            await until(lambda: any(c.method == "getUpdates" for c in fake.calls), 60, "polling")
            sem = asyncio.Semaphore(8)
            await asyncio.gather(*(open_table(people, i, sem) for i in range(args.tables)))
            sweepers = [asyncio.create_task(people.sweep()), asyncio.create_task(days.sweep())]
            hour, moment = opening_minute(args.groups / 20 + 30)
            admins = []
            for i in range(args.groups):
                user = fake.add_user(FIRST_DAY_USER + i, f"Игрок дня {i}")
                fake.add_group(FIRST_DAY_GROUP - i, f"Клуб {i}", [user], [user], supergroup=True)
                admins.append(user)
            for i, user in enumerate(admins):
                await fake.start_bot(user)
                await fake.send_text(user, FIRST_DAY_GROUP - i, f"/day on {hour}")
            print(f"{args.groups} groups open their day at {hour}; waiting…", flush=True)
            await asyncio.sleep(max(0.0, moment - time.time()))
            people.measuring = True
            t0_fake = fake.now()
            arrivals = [
                asyncio.create_task(arrive(fake, days, admins[i], FIRST_DAY_GROUP - i, rng, args))
                for i in range(min(args.players, args.groups))
            ]
            await asyncio.wait(arrivals, timeout=args.seconds)
            await asyncio.sleep(max(0.0, moment + args.seconds - time.time()))
            people.measuring = False
            for task in [*sweepers, *arrivals]:
                task.cancel()
            report(args, fake, people, days, db, t0_fake)
        finally:
            end_bot(proc)
            log.close()


async def arrive(
    fake: FakeTelegram,
    days: DayPlayers,
    user: FakeUser,
    group: int,
    rng: random.Random,
    args: argparse.Namespace,
) -> None:
    """A member sees the group's opening, and within ``--arrive`` seconds opens its link."""

    def link() -> str | None:
        for m in fake.chat_messages(group):
            for b in m.buttons():
                if b.value and "start=day_" in b.value:
                    return b.value.split("start=", 1)[1]
        return None

    await until(lambda: link() is not None, args.seconds, "the opening")
    await asyncio.sleep(rng.uniform(0, args.arrive))
    days.users[user.id] = user
    await fake.start_bot(user, link())


def report(
    args: argparse.Namespace,
    fake: FakeTelegram,
    people: People,
    days: DayPlayers,
    db: Path,
    t0: float,
) -> None:
    sent = [
        c.time - t0
        for c in fake.calls
        if c.method == "sendMessage"
        and (c.chat_id or 0) <= FIRST_DAY_GROUP
        and "до завтра" in str(c.params.get("text", ""))
    ]
    con = sqlite3.connect(db)
    try:
        finished = con.execute("SELECT COUNT(*) FROM day_plays WHERE finished_at IS NOT NULL")
        done = int(finished.fetchone()[0])
        decisions = int(con.execute("SELECT COUNT(*) FROM day_decisions").fetchone()[0])
    finally:
        con.close()

    def ms(values: list[float], q: float) -> str:
        return f"{percentile(values, q) * 1000:.0f} ms"

    print(f"openings sent: {len(sent)} of {args.groups}", end="")
    if sent:
        print(f", the last {max(sent):.1f} s after the minute (p50 {percentile(sent, 0.5):.1f} s)")
    else:
        print()
    print(
        f"live tables' presses: {len(people.latencies)}, p50 {ms(people.latencies, 0.5)},"
        f" p99 {ms(people.latencies, 0.99)}"
    )
    print(
        f"day presses: {len(days.latencies)}, p50 {ms(days.latencies, 0.5)},"
        f" p99 {ms(days.latencies, 0.99)}, refused {days.refused}"
    )
    print(f"days finished: {done} of {len(days.users)} started; computer decisions: {decisions}")


def options() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.day_open", description=__doc__)
    p.add_argument("--groups", type=int, default=500)
    p.add_argument("--players", type=int, default=500, help="members who play their day")
    p.add_argument("--tables", type=int, default=40, help="real-time tables beside them")
    p.add_argument("--arrive", type=float, default=60.0, help="seconds over which they come")
    p.add_argument("--think", type=float, nargs=2, default=(1.0, 4.0), metavar=("MIN", "MAX"))
    p.add_argument("--seconds", type=float, default=300.0, help="the window after the opening")
    p.add_argument("--ai-level", default="master")
    p.add_argument("--seed", type=int, default=1)
    return p


def main() -> None:
    args = options().parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
