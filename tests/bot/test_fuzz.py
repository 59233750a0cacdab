"""Abuse: over ten thousand random and mutated updates against running games.

A seeded generator mixes: callback data of every shape (real data mutated,
made-up payloads, odd numbers and Unicode), other people's buttons, replays of
old presses, presses on messages that do not exist or from chats the bot never
saw, huge and odd Unicode text, commands with junk arguments, users and chats
unknown to the bot, callback queries without a message. Now and then the
seated players make their real move, so the games go on meanwhile.

Afterwards: no exception reached aiogram's error handler unhandled (nor any
other ERROR of the bot's loggers), every game's actions replay through the
engine move by move from the seat that had the turn, people's moves were made
by their owners, the games in memory equal their replay, seats and table
states did not change, every queued message went out, and the bot still
answers a normal command.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fake_telegram import FakeMessage, FakeTelegram, FakeUser
from fake_telegram.models import PendingCallback
from harness import MakeBot, Table, choose, open_table

from bot.clock import FakeClock
from bot.commands import menu_commands, scopes_by_name
from bot.handlers import routers
from engine import Game
from engine.rules import Rules

SEED = 0xF00D
UPDATES = int(os.environ.get("FUZZ_UPDATES", "10000"))  # fewer for a quick local look
BATCH = 250

ODD = [
    "\u202e",  # right-to-left override
    "\u200b\u200c\u200d",  # zero-width characters
    "\ufeff",
    "e\u0301\u0301\u0301",  # stacked combining marks
    "👨‍👩‍👧‍👦",
    "🏳️‍🌈",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "<b>",
    "</i>",
    "&amp;",
    "&",
    "<a href='x'>",
    "\\",
    "\n\n",
    "\t",
    "ﷺ",
    "\u0000",
    "\U0010fffd",
    "Пики",
    "/start",
    "@piki_test_bot",
    "${x}",
    "{ $name }",
    "%s%n",
    "' OR 1=1 --",
]
NUMBERS = [
    "0",
    "-1",
    "1",
    "3",
    "52",
    "69",
    "70",
    "71",
    "99",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "1" * 40,
    "1.5",
    "1e3",
    "",
    " 1",
    "+1",
    "0x1",
    "١",
    "１",
    "NaN",
    "None",
    "true",
    "00000001",
]
PREFIXES = ["m", "l", "w", "b", "q", "t", "g", "f", "x", "", "M", "mm", "m ", "🃏"]
OPS = ["sit", "up", "pre", "opt", "o", "ok", "go", "pace", "cy", "cn", "zz", ""]
KINDS = ["score", "turn", "table", "info", "sheet", "rules", "history", "x", "🃏", ""]
#: The bot's commands but the two that change a game for good (/leave hands the
#: seat to the computer, /cancel ends the game: what the checks forbid), and two
#: it does not have.
COMMANDS = [
    *(c for c in scopes_by_name(menu_commands(routers())) if c not in ("leave", "cancel")),
    "nosuch",
    "Score",
]


def odd_text(rng: random.Random, size: int) -> str:
    parts: list[str] = []
    length = 0  # of the parts so far (summed anew each round, a 3000-long text cost seconds)
    while length < size:
        r = rng.random()
        if r < 0.4:
            part = rng.choice(ODD)
        elif r < 0.7:
            part = chr(rng.choice([rng.randrange(32, 0xD7FF), rng.randrange(0xE000, 0x10FFFF)]))
        else:
            part = rng.choice(NUMBERS)
        parts.append(part)
        length += len(part)
    return "".join(parts)[:size] or "x"


def mutate(rng: random.Random, data: str) -> str:
    parts = data.split(":")
    r = rng.randrange(10)
    if r == 0 and len(parts) > 1:
        parts[rng.randrange(1, len(parts))] = rng.choice(NUMBERS)
    elif r == 1 and len(parts) > 1:
        i = rng.randrange(1, len(parts))
        if parts[i].lstrip("-").isdigit():
            parts[i] = str(int(parts[i]) + rng.choice([-2, -1, 1, 2, 13, 52]))
    elif r == 2:
        parts[0] = rng.choice(PREFIXES)
    elif r == 3:
        parts = parts[: rng.randrange(len(parts) + 1)]
    elif r == 4:
        parts.append(rng.choice(NUMBERS + OPS))
    elif r == 5:
        return data[: rng.randrange(len(data) + 1)]
    elif r == 6:
        return data + odd_text(rng, rng.randrange(1, 20))
    elif r == 7:
        return data.replace(":", rng.choice([";", "::", " : ", "", "\u0000"]), 1)
    elif r == 8 and parts[0] == "t" and len(parts) > 2:
        parts[2] = rng.choice(OPS)
    else:
        rng.shuffle(parts)
    return ":".join(parts)


def made_up(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.7:
        fields = [rng.choice(PREFIXES)] + [
            rng.choice(NUMBERS + OPS + KINDS) for _ in range(rng.randrange(0, 5))
        ]
        return ":".join(fields)
    if r < 0.9:
        return odd_text(rng, rng.randrange(1, 64))
    return odd_text(rng, rng.randrange(64, 300))  # longer than Telegram would allow


def dangerous(data: str) -> bool:
    """The "forget me" answer (``f:``) is kept out of the mix: pressed by a seated
    person it legitimately takes them out of their game, which this test forbids."""
    return data.split(":")[0] == "f"


@dataclass
class Fuzz:
    fake: FakeTelegram
    rng: random.Random
    tables: list[Table]
    seated: list[FakeUser]
    outsiders: list[FakeUser]
    strangers: list[FakeUser]  # never wrote to the bot
    lone_group: int  # a group with the bot and no table
    open_group: int  # a group with an open (not started) table
    sent: int = 0
    history: list[tuple[FakeUser, int, int, str]] = field(default_factory=list)

    @property
    def everyone(self) -> list[FakeUser]:
        return self.seated + self.outsiders + self.strangers

    def groups(self) -> list[int]:
        return [t.group for t in self.tables] + [self.lone_group, self.open_group]

    def bot_messages(self) -> list[FakeMessage]:
        chats = self.groups() + [u.id for u in self.everyone]
        out: list[FakeMessage] = []
        for c in chats:
            out.extend(m for m in self.fake.chat_messages(c) if m.buttons())
        return out

    async def press(self, user: FakeUser, chat_id: int, message_id: int, data: str) -> None:
        if dangerous(data):
            data = "x" + data
        self.sent += 1
        self.history.append((user, chat_id, message_id, data))
        await self.fake.press_raw(user, chat_id, message_id, data)

    async def one(self, messages: list[FakeMessage]) -> None:
        rng = self.rng
        r = rng.random()
        who = rng.choice(self.everyone)
        if r < 0.35 and messages:
            # Real data mutated, pressed by anybody, on its message or elsewhere.
            msg = rng.choice(messages)
            data = mutate(rng, rng.choice([b.value or "" for b in msg.buttons()] or ["m:1:0:0"]))
            chat, mid = (msg.chat_id, msg.message_id) if rng.random() < 0.7 else (who.id, 10**6)
            await self.press(who, chat, mid, data)
        elif r < 0.5 and messages:
            # Somebody else's live button, unchanged.
            msg = rng.choice(messages)
            data = rng.choice([b.value or "" for b in msg.buttons()] or ["q:1:score"])
            await self.press(who, msg.chat_id, msg.message_id, data)
        elif r < 0.6 and self.history:
            # A replay of an older press, by the same person.
            user, chat, mid, data = rng.choice(self.history[-2000:])
            await self.press(user, chat, mid, data)
        elif r < 0.72:
            await self.press(
                who, rng.choice([who.id, *self.groups()]), rng.randrange(0, 50), made_up(rng)
            )
        elif r < 0.8:
            await self.raw_callback(who, made_up(rng) if rng.random() < 0.5 else "m:1:0:52")
        elif r < 0.92:
            await self.command(who)
        else:
            await self.text(who)

    async def raw_callback(self, user: FakeUser, data: str) -> None:
        """A press on an inline-mode message (no ``message``) or from an unknown chat."""
        world = self.fake.world
        query_id = str(world.next_callback_id)
        world.next_callback_id += 1
        world.callbacks[query_id] = PendingCallback(
            query_id=query_id,
            created=self.fake.now(),
            answer=asyncio.get_running_loop().create_future(),
        )
        payload: dict[str, Any] = {
            "id": query_id,
            "from": user.to_api(),
            "chat_instance": str(self.rng.randrange(10**12)),
            "data": data,
        }
        if self.rng.random() < 0.5:
            payload["inline_message_id"] = "AAAA" + str(self.rng.randrange(10**9))
        else:
            chat = {
                "id": -1001999000000 - self.rng.randrange(1000),
                "type": "supergroup",
                "title": "?",
            }
            payload["message"] = {"message_id": self.rng.randrange(1, 99), "date": 0, "chat": chat}
        if dangerous(data):
            payload["data"] = "x" + data
        world.enqueue("callback_query", payload)
        self.sent += 1

    async def command(self, who: FakeUser) -> None:
        rng = self.rng
        name = rng.choice(COMMANDS)
        if rng.random() < 0.2:
            name += rng.choice(["@piki_test_bot", "@other_bot", "@", "@PIKI_TEST_BOT"])
        args = "" if rng.random() < 0.3 else " " + odd_text(rng, rng.choice([3, 20, 300, 3000]))
        if name.startswith("start") and rng.random() < 0.5:
            t = rng.choice(["1", "2", "3", "4", "5", "999", "0", "9" * 13, "-1"])
            args = f" join_{t}_{rng.choice(['0', '3', '9', 'x'])}"
        where = rng.choice([who.id, who.id, *self.groups()])
        if where < 0 and who not in self.fake.chats[where].members:
            where = who.id
        if name.lower().startswith("newgame") and where in [t.group for t in self.tables]:
            name = "newgame"  # brings the table message down: fine, but not a new table
        await self.fake.send_text(who, where, f"/{name}{args}")
        self.sent += 1

    async def text(self, who: FakeUser) -> None:
        size = self.rng.choice([1, 50, 1000, 4096])
        where = who.id
        reply_to = None
        if self.rng.random() < 0.3:
            # A reply to one of the bot's messages in a group reaches the bot.
            group = self.rng.choice([t.group for t in self.tables])
            if who.id in self.fake.chats[group].members:
                mine = self.fake.chat_messages(group)
                if mine:
                    where, reply_to = group, self.rng.choice(mine).message_id
        await self.fake.send_text(who, where, odd_text(self.rng, size), reply_to=reply_to)
        self.sent += 1


async def real_moves(fake: FakeTelegram, tables: list[Table]) -> int:
    """Each seated person whose newest message offers a move makes it."""
    made = 0
    for table in tables:
        for user, msg in table.actionable():
            data = choose(msg, 4)
            if data is not None:
                await fake.press_raw(user, user.id, msg.message_id, data)
                made += 1
    return made


def club(title: str) -> dict[str, Any]:
    """A supergroup with this title, its table on the club's rules and started."""
    return {"title": title, "supergroup": True, "club": True}


def snapshot(db: Path) -> dict[str, Any]:
    con = sqlite3.connect(db)
    try:
        return {
            "tables": con.execute(
                "SELECT table_id, chat_id, status, creator_id FROM tables ORDER BY table_id"
            ).fetchall(),
            "seats": con.execute(
                "SELECT table_id, seat, user_id, away FROM seats ORDER BY table_id, seat"
            ).fetchall(),
        }
    finally:
        con.close()


def replay_all(db: Path) -> dict[int, Game]:
    """Every game, move by move, each from the seat that had the turn."""
    con = sqlite3.connect(db)
    games: dict[int, Game] = {}
    try:
        for game_id, table_id, seed, rules_json, dealer in con.execute(
            "SELECT game_id, table_id, seed, rules_json, first_dealer FROM games"
        ).fetchall():
            seats = [
                uid
                for (uid,) in con.execute(
                    "SELECT user_id FROM seats WHERE table_id=? ORDER BY seat", (table_id,)
                )
            ]
            g = Game(Rules.from_json(json.loads(rules_json)), seed, dealer)
            rows = con.execute(
                "SELECT seq, seat, action, by_user FROM actions WHERE game_id=? ORDER BY seq",
                (game_id,),
            ).fetchall()
            for i, (seq, seat, action, by_user) in enumerate(rows):
                assert seq == i
                assert seat == g.to_move, f"game {game_id} move {seq}: not that seat's turn"
                # Raises on an illegal move; a recorded claim was proved or
                # accepted when made (the fuzz presses the claim button too).
                g.replay_action(action)
                assert by_user == seats[seat], f"game {game_id} move {seq} by {by_user}"
            games[table_id] = g
    finally:
        con.close()
    return games


@pytest.mark.slow
async def test_ten_thousand_bad_updates_change_nothing_but_legal_moves(
    fake: FakeTelegram, db_path: Path, caplog: pytest.LogCaptureFixture, make_bot: MakeBot
) -> None:
    caplog.set_level(logging.WARNING)
    rng = random.Random(SEED)
    db = db_path
    # The bot's time stands still: a turn left waiting (a table some press
    # started, a slow run) never times out into the computer's move at a
    # person's seat, which the checks below rightly refuse.
    bot = await make_bot(clock=FakeClock())
    people = [
        fake.add_user(601 + i, n) for i, n in enumerate(["Анна", "Борис", "Вера", "Гоша", "Дина"])
    ]
    odd_names = [fake.add_user(701 + i, odd_text(rng, rng.choice([1, 8, 64]))) for i in range(4)]
    strangers = [fake.add_user(801 + i, odd_text(rng, 12)) for i in range(4)]
    for u in people + odd_names:
        await fake.start_bot(u)
    anna, boris, vera, gosha, dina = people
    tables = [
        await open_table(fake, -1001000000001, [anna], **club("Один против трёх")),
        await open_table(fake, -1001000000002, [boris, vera], **club("Двое")),
        await open_table(fake, -1001000000003, [gosha, dina], **club("Ещё двое")),
    ]
    lone, open_group = -1001000000004, -1001000000005
    fake.add_group(
        lone,
        "Без стола",
        members=people + odd_names + strangers,
        admins=[anna],
        supergroup=True,
    )
    await open_table(
        fake, open_group, [odd_names[0]], title=odd_text(rng, 30), supergroup=True, start=False
    )
    for t in tables:  # everybody can write in every group
        fake.chats[t.group].members.update({u.id: "member" for u in odd_names + strangers})
    fake.chats[open_group].members.update({u.id: "member" for u in people + strangers})
    await fake.wait_idle(quiet=0.1)
    before = snapshot(db)

    fuzz = Fuzz(fake, rng, tables, people, odd_names, strangers, lone, open_group)
    moves = 0
    while fuzz.sent < UPDATES:
        messages = fuzz.bot_messages()
        for _ in range(BATCH):
            await fuzz.one(messages)
        moves += await real_moves(fake, tables)
        await fake.wait_idle(quiet=0.05, timeout=60)
    await fake.wait_idle(quiet=0.3, timeout=60)
    live = {t: bot.app.services.registry.cached(t) for t in range(1, 10)}

    # The bot still answers a plain command.
    said = len(fake.sent_texts(tables[1].group))
    await fake.send_text(boris, tables[1].group, "/score")
    await fake.wait_for(lambda: len(fake.sent_texts(tables[1].group)) > said, timeout=15)
    await bot.stop()
    errors = [
        f"{r.name}: {r.getMessage()}"
        for r in caplog.records
        if r.levelno >= logging.ERROR and r.name.startswith("bot")
    ]
    assert not errors, "\n".join(errors[:20])
    assert fuzz.sent >= UPDATES and moves > 10

    games = replay_all(db)
    for table_id, current in live.items():
        if current is not None and current.game is not None:
            # What the bot holds in memory is exactly the replay of what it stored.
            assert current.game.to_dict() == games[table_id].to_dict(), table_id
    print(
        f"{fuzz.sent} updates, {moves} real moves, games: {[len(g.actions) for g in games.values()]}"
    )
    after = snapshot(db)
    # Seats of the three games are as they were; their tables are playing or
    # finished by their own moves; new tables are open ones from /newgame, or
    # playing a game a fuzzed «Начать» started (the game against three
    # computers can end, and a new table opens in its group): its moves
    # replayed above, the game going on.
    for row in before["seats"]:
        if row[0] <= 3:
            assert row in after["seats"], row
    for row in after["tables"]:
        table_id, chat_id, status, _creator = row
        if table_id <= 3:
            assert status == ("finished" if games[table_id].finished else "playing"), row
        elif table_id > len(before["tables"]):
            started = status == "playing" and table_id in games and not games[table_id].finished
            assert status == "open" or started, row
    con = sqlite3.connect(db)
    try:
        undelivered = con.execute(
            "SELECT chat_id, status, error FROM outbox WHERE status IN ('pending','failed')"
        ).fetchall()
    finally:
        con.close()
    known = {u.id for u in fake.users.values() if u.started_bot} | set(fuzz.groups())
    assert all(chat not in known for chat, _, _ in undelivered), undelivered


# ------------------------------------------------------- focused abuse cases
GROUP = -1001000000777


async def started_table(fake: FakeTelegram, make_bot: MakeBot, **settings: Any) -> Table:
    """Анна (North) and Борис (South) at a club table, started, on a bot with ``settings``."""
    await make_bot(**settings)
    anna, boris = fake.add_user(901, "Анна"), fake.add_user(902, "Борис")
    return await open_table(fake, GROUP, [anna, boris], **club("Группа"))


def table_id_of(msg: FakeMessage) -> int:
    data = next(b.value or "" for b in msg.buttons() if (b.value or "").startswith(("t:", "q:")))
    return int(data.split(":")[1])


async def test_mashing_is_throttled_for_the_masher_only(
    fake: FakeTelegram, db_path: Path, make_bot: MakeBot
) -> None:
    """Production limits (8 presses per 3 s): one person mashing their move
    gets "не так быстро", the move counts once, the other player is not slowed."""
    table = await started_table(fake, make_bot, press_limit=8, press_window=3.0)
    await fake.wait_idle(quiet=0.1)
    (masher, msg), *_ = table.actionable()
    calm = next(u for u in table.users if u.id != masher.id)
    data = choose(msg, 4)
    assert data is not None
    before = len(replay_all(db_path)[1].actions)
    mash = [await fake.press_raw(masher, masher.id, msg.message_id, data) for _ in range(30)]
    lookup = next(
        b.value for b in table.table_message().buttons() if (b.value or "").startswith("q:")
    )
    calm_presses = [
        await fake.press_raw(calm, GROUP, table.table_message().message_id, lookup)
        for _ in range(3)
    ]
    mashed = [(await p.answer())["text"] or "" for p in mash]
    calm_answers = [(await p.answer())["text"] or "" for p in calm_presses]
    await fake.wait_idle(quiet=0.1)
    game = replay_all(db_path)[1]
    assert sum("быстро" in t for t in mashed) >= 30 - 8
    assert not any("быстро" in t for t in calm_answers)
    con = sqlite3.connect(db_path)
    try:
        mine = con.execute(
            "SELECT COUNT(*) FROM actions WHERE by_user=? AND seq>=?", (masher.id, before)
        ).fetchone()[0]
    finally:
        con.close()
    assert mine == 1 and len(game.actions) > before


async def test_forged_cancel_answer_does_not_overwrite_the_table_message(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    table = await started_table(fake, make_bot)
    await fake.wait_idle(quiet=0.1)
    msg = table.table_message()
    before = (msg.text, msg.buttons())
    boris = table.users[1]
    await (
        await fake.press_raw(boris, GROUP, msg.message_id, f"t:{table_id_of(msg)}:cn:0")
    ).answer()
    await fake.wait_idle(quiet=0.1)
    after = fake.message(GROUP, msg.message_id)
    assert (after.text, after.buttons()) == before


async def test_forget_me_does_not_drop_other_peoples_messages(
    fake: FakeTelegram, db_path: Path, make_bot: MakeBot
) -> None:
    table = await started_table(fake, make_bot)
    stranger = fake.add_user(903, "Пики")
    await fake.start_bot(stranger)
    await fake.wait_idle(quiet=0.1)
    # Telegram is slow for the group: its table updates wait in the outbox.
    fake.inject("502", method="editMessageText", chat_id=GROUP, count=None)
    (user, msg), *_ = table.actionable()
    data = choose(msg, 4)
    assert data is not None
    await (await fake.press_raw(user, user.id, msg.message_id, data)).answer()

    def waiting() -> list[int]:
        con = sqlite3.connect(db_path)
        try:
            return [
                i
                for (i,) in con.execute(
                    "SELECT id FROM outbox WHERE chat_id=? AND status='pending'", (GROUP,)
                )
            ]
        finally:
            con.close()

    await fake.wait_for(waiting, timeout=10)
    queued = waiting()
    await fake.send_text(stranger, stranger.id, "/forget_me")
    prompt = await fake.wait_for(
        lambda: next((m for m in fake.chat_messages(stranger.id) if m.buttons()), None)
    )
    await (await fake.press_button(stranger, prompt, data_startswith="f:1")).answer()
    await fake.wait_idle(quiet=0.1)
    con = sqlite3.connect(db_path)
    try:
        kept = {i for (i,) in con.execute("SELECT id FROM outbox")}
    finally:
        con.close()
    fake.clear_faults()
    assert set(queued) <= kept, "queued group messages were deleted"


async def test_forged_table_ids_do_not_grow_memory(fake: FakeTelegram, make_bot: MakeBot) -> None:
    bot = await make_bot()
    user = fake.add_user(904, "Гоша")
    await fake.start_bot(user)
    for i in range(300):
        await fake.press_raw(user, user.id, 1, f"m:{1_000_000 + i}:0:52")
    await fake.wait_idle(quiet=0.1, timeout=30)
    locks = len(bot.app.services.registry._locks)
    assert locks < 10, f"{locks} locks kept for tables that do not exist"
