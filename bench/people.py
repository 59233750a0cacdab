"""The simulated people of ``python -m bench.load``: they open the tables and
press the moves their private messages offer, each press timed until the
bot answers it.

When a message offers a move, a person thinks (uniformly within their
``think`` range, in seconds; 0: at once) and presses: open the cards rather
than bid blind, bid the number nearest 3, play a random allowed card.
Tables cycle through four people, two people and two computer seats, one
person and three computer seats; a table played by the day has one person.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from fake_telegram import FakeMessage, FakeTelegram, FakeUser

from engine import BID, BLIND

KINDS = (4, 2, 1)  # people per table, cycling
SEATS = ("Север", "Восток", "Юг", "Запад")
FIRST_GROUP = -1001500000000


@dataclass
class Person:
    user: FakeUser
    think: tuple[float, float] = (0.0, 0.0)  # seconds before a press, uniformly within
    last_key: str | None = None  # "m:table:seq" (or "l:…") of the last press
    busy: bool = False


@dataclass
class People:
    """Everybody at the tables, and what their presses met."""

    fake: FakeTelegram
    rng: random.Random
    by_id: dict[int, Person] = field(default_factory=dict)  # by user id
    latencies: list[float] = field(default_factory=list)
    answers: Counter[str] = field(default_factory=Counter)
    think: tuple[float, float] = (0.0, 0.0)  # seconds a person takes, uniformly within
    measuring: bool = False
    presses: int = 0
    # --app-phases: which phase is being measured now (its index; None while
    # the streams settle), and the latencies of the presses made wholly
    # within each.
    phase: int | None = None
    by_phase: dict[int, list[float]] = field(default_factory=dict)

    def hook(self) -> None:
        """React to every message the bot sends or edits in a private chat."""
        api = self.fake.api
        real_call = api.call
        loop = asyncio.get_running_loop()

        async def call(method: str, params: dict[str, Any]) -> Any:
            result = await real_call(method, params)
            chat = params.get("chat_id")
            if (
                method in ("sendMessage", "editMessageText")
                and isinstance(chat, int)
                and chat in self.by_id
                and isinstance(result, dict)
            ):
                loop.call_soon(self.consider, chat, result["message_id"])
            return result

        api.call = call  # type: ignore[method-assign]

    def consider(self, user_id: int, message_id: int) -> None:
        person = self.by_id[user_id]
        msg = self.fake.chats[user_id].messages.get(message_id)
        if msg is None or person.busy:
            return
        data = self.choose(msg)
        if data is None:
            return
        key = ":".join(data.split(":")[:3])  # one press per offer, whatever the card
        if key == person.last_key:
            return
        person.last_key = key
        person.busy = True
        loop = asyncio.get_running_loop()
        think = self.rng.uniform(*person.think)
        loop.call_later(think, lambda: loop.create_task(self.press(person, msg, data)))

    def choose(self, msg: FakeMessage) -> str | None:
        values = [b.value or "" for b in msg.buttons()]
        moves = [v for v in values if v.startswith("m:")]
        if not moves:
            return None
        acts = {m: int(m.split(":")[3]) for m in moves}
        if BLIND in acts.values():
            return next(v for v in values if v.startswith("l:"))
        bids = [m for m in moves if BID <= acts[m] < BLIND]
        if bids:
            return min(bids, key=lambda m: abs(acts[m] - BID - 3))
        return self.rng.choice(moves)

    async def press(self, person: Person, msg: FakeMessage, data: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            start, phase = loop.time(), self.phase
            press = await self.fake.press_raw(person.user, person.user.id, msg.message_id, data)
            self.presses += 1
            try:
                answer = await press.answer(timeout=30)
            except AssertionError:
                self.answers["no answer"] += 1
                person.last_key = None
                return
            took = loop.time() - start
            text = answer.get("text")
            self.answers["ok" if text is None else text[:30]] += 1
            if self.measuring:
                self.latencies.append(took)
                if phase is not None and phase == self.phase:
                    self.by_phase.setdefault(phase, []).append(took)
            if text is not None:
                person.last_key = None  # refused (stale, too fast…): look again later
        finally:
            person.busy = False

    async def sweep(self) -> None:
        """Every second, anybody whose newest message offers a move they have
        not pressed yet presses it (after a refusal or a missed update)."""
        while True:
            await asyncio.sleep(1.0)
            for uid, person in self.by_id.items():
                if person.busy:
                    continue
                for m in reversed(self.fake.chat_messages(uid)):
                    if any((b.value or "").startswith(("m:", "l:")) for b in m.buttons()):
                        self.consider(uid, m.message_id)
                        break


async def until(predicate: Any, timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise RuntimeError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def table_message(fake: FakeTelegram, group: int) -> FakeMessage | None:
    for m in reversed(fake.chat_messages(group)):
        if any((b.value or "").startswith("t:") for b in m.buttons()):
            return m
    return None


# The pace button's presses from the default (a minute a move) to a day a move.
TO_DAILY = 4


async def open_table(
    people: People,
    index: int,
    sem: asyncio.Semaphore,
    *,
    daily: bool = False,
    think: tuple[float, float] | None = None,
) -> None:
    """Table ``index``: its group and people, seated, and the game started;
    ``daily``: one person, a day a move. ``think``: the people's range
    (default: the crowd's)."""
    fake = people.fake
    humans = 1 if daily else KINDS[index % len(KINDS)]
    group = FIRST_GROUP - index
    users = [fake.add_user(10_000 + index * 4 + s, f"Игрок {index}.{s}") for s in range(humans)]
    fake.add_group(group, f"Стол {index}", members=users, admins=users[:1], supergroup=True)
    async with sem:
        for u in users:
            await fake.start_bot(u)
        await until(lambda: all(fake.chat_messages(u.id) for u in users), 60, "welcome")
        await fake.send_text(users[0], group, "/newgame")
        await until(lambda: table_message(fake, group) is not None, 60, "table message")
        for seat, u in enumerate(users[1:], start=1):
            msg = table_message(fake, group)
            assert msg is not None
            button = fake.find_button(msg, text_contains=SEATS[seat])
            await (await fake.press(u, group, msg.message_id, button.value or "")).answer(30)
            await until(
                lambda u=u: (
                    (m := table_message(fake, group)) is not None and u.first_name in m.text
                ),
                60,
                "seat",
            )
        for _ in range(TO_DAILY if daily else 0):
            msg = table_message(fake, group)
            assert msg is not None
            pace = fake.find_button(msg, text_contains="Темп")
            before = msg.text
            await (await fake.press(users[0], group, msg.message_id, pace.value or "")).answer(30)
            await until(
                lambda before=before: (
                    (m := table_message(fake, group)) is not None and m.text != before
                ),
                60,
                "pace",
            )
        msg = table_message(fake, group)
        assert msg is not None
        for u in users:
            people.by_id[u.id] = Person(u, think or people.think)
        start = fake.find_button(msg, text_contains="Начать")
        await (await fake.press(users[0], group, msg.message_id, start.value or "")).answer(30)
