"""The path of one card press: which files and functions of the project it runs.

Run from the checkout's root:
    python -m bench.press_path [--presses 3]

Issue #48 asks that a card press pass through fewer files. This measures it:
the bot (the real ``App``, polling) runs in this process against the fake
Telegram (``fake_telegram``); four people open a table and play until a
card is pressed mid-trick (the second card of a trick after the hand's
first trick), and that press is traced with ``sys.settrace``. Counted: the
call events of the project's own code (``bot/``, ``engine/``) in the
press's task while its handler (``handlers/buttons.on_move``) is on the
stack, from the handler's start to the press's answer: the files, the
functions, and the calls (a coroutine resumed after an await is not a new
call). The outbox's sending, the computer and the timers run in tasks of
their own and are not counted. ``--presses`` measures that many presses
(each at a later trick) and prints the first's files and every one's
counts: they should agree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any

from fake_telegram import FakeMessage, FakeTelegram, FakeUser

from bench import ROOT
from bot.app import App
from bot.config import load_settings
from bot.handlers import buttons
from engine import BID, BLIND, Game
from engine.game import PLAY
from engine.rules import Rules
from engine.view import public_view

GROUP = -1001600000000
SEATS = ("Восток", "Юг", "Запад")
PROJECT = tuple(str(ROOT / part) + "/" for part in ("bot", "engine"))
COMMAND = "python -m bench.press_path"


@dataclass
class PressPath:
    """What one traced press ran: calls per function ``(file, line, name)``."""

    calls: Counter[tuple[str, int, str]] = field(default_factory=Counter)

    @property
    def files(self) -> list[str]:
        return sorted({f for f, _, _ in self.calls})

    @property
    def functions(self) -> int:
        return len(self.calls)

    @property
    def total(self) -> int:
        return sum(self.calls.values())


class Tracer:
    """``sys.settrace``'s function while a press is traced: each new frame of
    the project's code that has ``on_move``'s frame among its callers."""

    def __init__(self) -> None:
        self.path = PressPath()
        self.seen: list[FrameType] = []  # kept alive: a resumed coroutine is the same frame
        self.seen_ids: set[int] = set()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return None
        name = frame.f_code.co_filename
        if not name.startswith(PROJECT) or id(frame) in self.seen_ids:
            return None
        f: FrameType | None = frame
        while f is not None and f.f_code is not buttons.on_move.__code__:
            f = f.f_back
        if f is None:
            return None
        self.seen.append(frame)
        self.seen_ids.add(id(frame))
        rel = str(Path(name).relative_to(ROOT))
        self.path.calls[(rel, frame.f_code.co_firstlineno, frame.f_code.co_qualname)] += 1
        return None


def latest_game(db: Path) -> Game:
    """The running game as the database holds it."""
    con = sqlite3.connect(db)
    try:
        seed, rules_json, dealer, game_id = con.execute(
            "SELECT seed, rules_json, first_dealer, game_id FROM games ORDER BY game_id DESC"
        ).fetchone()
        acts = [
            a
            for (a,) in con.execute(
                "SELECT action FROM actions WHERE game_id=? ORDER BY seq", (game_id,)
            )
        ]
    finally:
        con.close()
    return Game.replay(Rules.from_json(json.loads(rules_json)), seed, acts, dealer)


def offer(fake: FakeTelegram, users: list[FakeUser]) -> tuple[FakeUser, FakeMessage] | None:
    """The person whose newest private message offers a move, and that message."""
    for u in users:
        for m in reversed(fake.chat_messages(u.id)):
            if any((b.value or "").startswith(("m:", "l:")) for b in m.buttons()):
                return u, m
    return None


def choice(msg: FakeMessage) -> str:
    """Open the cards rather than bid blind, bid nearest 3, play the first card offered."""
    values = [b.value or "" for b in msg.buttons()]
    moves = [v for v in values if v.startswith("m:")]
    acts = {m: int(m.split(":")[3]) for m in moves}
    looks = [v for v in values if v.startswith("l:")]
    if looks and (not moves or BLIND in acts.values()):
        return looks[0]
    bids = [m for m in moves if BID <= acts[m] < BLIND]
    if bids:
        return min(bids, key=lambda m: abs(acts[m] - BID - 3))
    return moves[0]


def mid_trick(g: Game, after_trick: int) -> bool:
    """The second card of a trick is due, after the hand's first ``after_trick`` tricks."""
    v = public_view(g)
    return g.phase == PLAY and len(v.trick) == 1 and len(v.tricks) >= after_trick


async def open_table(fake: FakeTelegram, users: list[FakeUser]) -> None:
    """``users[0]`` opens a table with /newgame, the others sit, the game starts."""
    fake.add_group(GROUP, "Пики", members=users, admins=users[:1], supergroup=True)
    for u in users:
        await fake.start_bot(u)
    await fake.send_text(users[0], GROUP, "/newgame")
    for user, seat in zip(users[1:], SEATS, strict=True):
        msg = await fake.wait_for(lambda: table_message(fake), timeout=30, message="table")
        assert msg is not None
        await fake.press_button(user, msg, text_contains=seat)
        await fake.wait_for(partial(seated, fake, user.first_name), 30, message="seat")
    msg = table_message(fake)
    assert msg is not None
    await fake.press_button(users[0], msg, text_contains="Начать")
    await fake.wait_for(lambda: offer(fake, users), timeout=30, message="a first move")


def seated(fake: FakeTelegram, name: str) -> bool:
    """The table message names ``name`` at a seat."""
    msg = table_message(fake)
    return msg is not None and name in msg.text


def table_message(fake: FakeTelegram) -> FakeMessage | None:
    for m in reversed(fake.chat_messages(GROUP)):
        if any((b.value or "").startswith("t:") for b in m.buttons()):
            return m
    return None


async def measure(presses: int) -> list[PressPath]:
    """Play a game of four people and trace ``presses`` card presses mid-trick."""
    paths: list[PressPath] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "press.db"
        async with FakeTelegram() as fake:
            settings = load_settings(
                env_file=None,
                bot_token=fake.token,
                bot_api_url=fake.base_url,
                database_path=str(db),
                ai_workers=0,
                ai_move_delay=0,
                group_messages_per_minute=0,
                private_messages_per_second=0,
                global_messages_per_second=0,
                press_limit=0,
                command_limit=0,
                log_level="WARNING",
            )
            app = App(settings)
            task = asyncio.create_task(app.run())
            try:
                await fake.wait_for(
                    lambda: any(c.method == "getUpdates" for c in fake.calls),
                    timeout=30,
                    message="polling",
                )
                users = [fake.add_user(7001 + i, f"Игрок{i}") for i in range(4)]
                await open_table(fake, users)
                trick = 1
                while len(paths) < presses:
                    await fake.wait_idle(quiet=0.05, timeout=30)
                    found = offer(fake, users)
                    if found is None:
                        raise RuntimeError("nobody can move: the game ended before the presses")
                    user, msg = found
                    data = choice(msg)
                    traced = data.startswith("m:") and mid_trick(latest_game(db), trick)
                    tracer = Tracer()
                    if traced:
                        sys.settrace(tracer)
                    try:
                        press = await fake.press(user, user.id, msg.message_id, data)
                        await press.answer(timeout=30)
                        # The handler may still be returning once the press is answered.
                        await fake.wait_idle(quiet=0.05, timeout=30)
                    finally:
                        sys.settrace(None)
                    if traced:
                        paths.append(tracer.path)
                        trick += 1
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=3, help="card presses traced")
    parser.add_argument(
        "--functions", action="store_true", help="also list every function with its calls"
    )
    args = parser.parse_args()
    paths = asyncio.run(measure(args.presses))
    first = paths[0]
    print(f"$ {COMMAND} --presses {args.presses}")
    for i, p in enumerate(paths, start=1):
        print(f"press {i}: {len(p.files)} files, {p.functions} functions, {p.total} calls")
    print(f"\nfiles of press 1 ({len(first.files)}), calls in each:")
    per_file = Counter[str]()
    for (f, _, _), n in first.calls.items():
        per_file[f] += n
    for f in first.files:
        print(f"  {f:42} {per_file[f]:5}")
    if args.functions:
        print("\nfunctions of press 1:")
        for (f, line, name), n in sorted(first.calls.items()):
            print(f"  {f}:{line} {name} ×{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
