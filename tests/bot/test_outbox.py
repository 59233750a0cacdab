"""The durable outbox against the fake Telegram server and a real SQLite file."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiogram import Bot
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramConflictError,
    TelegramEntityTooLarge,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramUnauthorizedError,
)
from aiogram.methods import SendMessage
from fake_telegram import FakeTelegram, errors

import bot.outbox.pruning as outbox_pruning
from bot.config import Settings
from bot.outbox import (
    Outbox,
    Pacer,
    enqueue_delete,
    enqueue_put,
    enqueue_send,
    forget_key,
)
from bot.outbox.errors import (
    is_delete_target_gone,
    is_edit_target_gone,
    is_not_modified,
    is_unreachable,
)
from bot.storage import Database
from bot.storage.migrations import apply_migrations
from bot.views.keyboard import button
from bot.views.keyboard import keyboard as build_keyboard

GROUP = -4001
OTHER_GROUP = -4002
ALICE = 1001
BOB = 1002


class FakeTime:
    """A clock that only moves when someone sleeps: pacing tests run in (almost) no real time.

    ``scale`` > 0 makes each sleep also take that fraction of its length in real time.
    """

    def __init__(self) -> None:
        self.now = time.time()
        self.scale = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)
        await asyncio.sleep(max(0.0, seconds) * self.scale)


def make_settings(**limits: Any) -> Settings:
    values: dict[str, Any] = {
        "group_messages_per_minute": 0,
        "private_messages_per_second": 0,
        "global_messages_per_second": 0,
        **limits,
    }
    return Settings(_env_file=None, bot_token="1:test", **values)  # type: ignore[call-arg]


@pytest.fixture
def fake(fake: FakeTelegram) -> FakeTelegram:
    """The shared fake with Alice (who has started the bot) and Bob in two groups."""
    alice = fake.add_user(ALICE, "Алиса")
    bob = fake.add_user(BOB, "Боб")
    alice.started_bot = True
    fake.add_group(GROUP, "Стол", members=[alice, bob])
    fake.add_group(OTHER_GROUP, "Другой стол", members=[alice, bob])
    return fake


@pytest.fixture
def ftime(fake: FakeTelegram) -> FakeTime:
    clock = FakeTime()
    fake.clock = clock
    return clock


def make_outbox(db: Database, bot: Bot, ftime: FakeTime, **kwargs: Any) -> Outbox:
    settings = kwargs.pop("settings", None) or make_settings()
    return Outbox(db, bot, settings, clock=ftime, sleep=ftime.sleep, **kwargs)


@asynccontextmanager
async def running(outbox: Outbox) -> AsyncIterator[Outbox]:
    task = asyncio.create_task(outbox.run())
    try:
        yield outbox
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def statuses(db: Database) -> dict[str, int]:
    rows = await db.fetchall("SELECT status, count(*) AS n FROM outbox GROUP BY status")
    return {row["status"]: row["n"] for row in rows}


async def remembered(db: Database, key: str) -> tuple[int, int] | None:
    row = await db.fetchone("SELECT chat_id, message_id FROM messages WHERE key = ?", (key,))
    return None if row is None else (row["chat_id"], row["message_id"])


# ---------------------------------------------------------------- coalescing


async def test_put_burst_becomes_one_send_then_one_edit(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    outbox = make_outbox(db, bot, ftime)
    async with db.tx() as conn:
        for n in (1, 2, 3):
            await enqueue_put(conn, GROUP, "table:1", f"<b>move {n}</b>")
    async with running(outbox):
        await outbox.drain()
        messages = fake.chat_messages(GROUP)
        assert [m.text for m in messages] == ["move 3"]
        assert await remembered(db, "table:1") == (GROUP, messages[0].message_id)

        async with db.tx() as conn:
            for n in (4, 5, 6):
                await enqueue_put(conn, GROUP, "table:1", f"<b>move {n}</b>")
        outbox.wake()
        await outbox.drain()

    messages = fake.chat_messages(GROUP)
    assert [m.text for m in messages] == ["move 6"]
    assert messages[0].edits == 1
    assert len(fake.calls_to("sendMessage")) == 1
    assert len(fake.calls_to("editMessageText")) == 1
    stats = outbox.stats()
    assert (stats.sends, stats.edits, stats.coalesced, stats.api_calls) == (1, 1, 4, 2)
    assert await statuses(db) == {"sent": 2, "superseded": 4}


async def test_puts_arriving_while_paced_are_folded(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    """Moves made while the chat waits for its rate limit cost one edit, not one each."""
    ftime.scale = 0.02  # 3 s between group messages take 60 ms of real time
    outbox = make_outbox(db, bot, ftime, settings=make_settings(group_messages_per_minute=20))
    async with running(outbox):
        for n in range(1, 31):
            async with db.tx() as conn:
                await enqueue_put(conn, GROUP, "table:1", f"state {n}")
            outbox.wake()
            await asyncio.sleep(0.01)
        await outbox.drain()
    (message,) = fake.chat_messages(GROUP)
    assert message.text == "state 30"
    assert outbox.stats().api_calls <= 15
    assert outbox.stats().coalesced >= 15
    assert fake.limit_violations() == []


async def test_put_keeps_its_place_before_later_messages(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    """A put whose message does not exist yet is not folded past another message."""
    outbox = make_outbox(db, bot, ftime)
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "hello")
        await enqueue_put(conn, GROUP, "table:1", "table v1")
        await enqueue_send(conn, GROUP, "news")
        await enqueue_put(conn, GROUP, "table:1", "table v2")
    async with running(outbox):
        await outbox.drain()
    texts = [m.text for m in fake.chat_messages(GROUP)]
    assert texts == ["hello", "table v2", "news"]
    # The table was sent as v1, then edited: its position is kept, its content is the latest.
    assert fake.sent_texts(GROUP) == ["hello", "table v1", "news"]


async def test_known_message_edit_folds_past_other_rows(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    outbox = make_outbox(db, bot, ftime)
    async with running(outbox):
        async with db.tx() as conn:
            await enqueue_put(conn, GROUP, "table:1", "v1")
        outbox.wake()
        await outbox.drain()
        async with db.tx() as conn:
            await enqueue_put(conn, GROUP, "table:1", "v2")
            await enqueue_send(conn, GROUP, "trick won")
            await enqueue_put(conn, GROUP, "table:1", "v3")
        outbox.wake()
        await outbox.drain()
    texts = [m.text for m in fake.chat_messages(GROUP)]
    assert texts == ["v3", "trick won"]
    assert len(fake.calls_to("editMessageText")) == 1


# ------------------------------------------------------------------- ordering


async def test_order_kept_per_chat_with_chats_in_parallel(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    outbox = make_outbox(db, bot, ftime)
    fake.inject("500", method="sendMessage", chat_id=GROUP, count=2)
    fake.inject("429", method="sendMessage", chat_id=OTHER_GROUP, count=1, retry_after=2)
    async with db.tx() as conn:
        for n in range(10):
            await enqueue_send(conn, GROUP, f"g{n}")
            await enqueue_send(conn, OTHER_GROUP, f"o{n}")
            await enqueue_send(conn, ALICE, f"a{n}")
    async with running(outbox):
        await outbox.drain()
    assert fake.sent_texts(GROUP) == [f"g{n}" for n in range(10)]
    assert fake.sent_texts(OTHER_GROUP) == [f"o{n}" for n in range(10)]
    assert fake.sent_texts(ALICE) == [f"a{n}" for n in range(10)]
    assert await statuses(db) == {"sent": 30}


# ------------------------------------------------------------ transient errors


async def test_429_is_waited_out_and_retried(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    outbox = make_outbox(db, bot, ftime)
    fake.inject("429", method="sendMessage", chat_id=GROUP, retry_after=7)
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "after the flood")
    async with running(outbox):
        await outbox.drain()
    first, second = fake.calls_to("sendMessage", GROUP)
    assert first.fault == "429" and second.ok
    assert second.time - first.time >= 7
    assert fake.sent_texts(GROUP) == ["after the flood"]
    assert outbox.stats().flood_waits == 1


async def test_429_in_several_chats_pauses_everyone(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    outbox = make_outbox(db, bot, ftime)
    fake.inject("429", method="sendMessage", chat_id=GROUP, retry_after=5)
    fake.inject("429", method="sendMessage", chat_id=OTHER_GROUP, retry_after=5)
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "g")
        await enqueue_send(conn, OTHER_GROUP, "o")
    async with running(outbox):
        await outbox.drain()
    floods = [c for c in fake.calls if c.fault == "429"]
    oks = [c for c in fake.calls if c.ok]
    assert len(floods) == 2 and len(oks) == 2
    first, last = sorted(c.time for c in floods)
    if last - first < 1.0:
        # Floods in two chats at once: the limit is global, nobody is written to.
        assert min(c.time for c in oks) >= last + 5 - 0.01
    else:
        # A busy machine tried the second chat only after the first one's pause
        # (the fake clock jumps on sleep): each chat then waits out its own.
        for flood in floods:
            ok = next(c for c in oks if c.chat_id == flood.chat_id)
            assert ok.time >= flood.time + 5 - 0.01


@pytest.mark.parametrize("kind", ["500", "502", "502_html", "drop"])
async def test_server_and_network_errors_are_retried(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime, kind: str
) -> None:
    outbox = make_outbox(db, bot, ftime)
    fake.inject(kind, method="sendMessage", count=3)  # type: ignore[arg-type]
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "eventually")
    async with running(outbox):
        await outbox.drain()
    assert fake.sent_texts(GROUP) == ["eventually"]
    assert outbox.stats().retries == 3
    row = await db.fetchone("SELECT status, attempts FROM outbox")
    assert row is not None and (row["status"], row["attempts"]) == ("sent", 4)
    # Backoff grows: 1, 2, 4 fake seconds between the attempts.
    times = [c.time for c in fake.calls_to("sendMessage")]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert gaps[0] >= 1 and gaps[1] >= 2 and gaps[2] >= 4


async def test_timeout_is_retried(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    outbox = make_outbox(db, bot, ftime, request_timeout=1)
    fake.inject("timeout", method="sendMessage")
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "slow network")
    async with running(outbox):
        await outbox.drain(timeout=15)
    assert fake.sent_texts(GROUP) == ["slow network"]


# Failures the fake Telegram does not make, raised as aiogram raises them, by
# a request middleware of the bot's session (aiogram's public hook).
class Failing:
    """Fails the next ``left`` sendMessage calls with ``error``; ``seen``: every text tried."""

    def __init__(self, bot: Bot, error: Exception, left: int) -> None:
        self.error, self.left = error, left
        self.seen: list[str] = []
        bot.session.middleware(self)

    async def __call__(self, make_request: Any, bot: Bot, method: Any) -> Any:
        if isinstance(method, SendMessage):
            self.seen.append(method.text)
            if self.left > 0:
                self.left -= 1
                raise self.error
        return await make_request(bot, method)


def other_failures(token: str) -> list[Exception]:
    """aiogram's exceptions the outbox tries again after, as the fake cannot answer them."""
    method = SendMessage(chat_id=GROUP, text="x")
    return [
        TelegramNotFound(method, "Not Found"),  # a wrong API URL
        TelegramConflictError(method, "Conflict"),
        # A 429 without retry_after (a proxy's own limit): back off, no flood pause.
        TelegramAPIError(method, "Too Many Requests"),
        # An answer that is not Telegram's; its text (an echo of ours) stays out.
        ClientDecodeError("Failed to decode object", ValueError(), "secret ♠Q"),
        # aiohttp's words may name the URL, token and all.
        TelegramNetworkError(method, f"ClientOSError: /bot{token}/sendMessage"),
    ]


NOTED = [
    "Not Found",
    "Conflict",
    "Too Many Requests",
    "the answer is not Telegram's",
    "ClientOSError: /bot<token>/sendMessage",
]


@pytest.mark.parametrize("case", range(len(NOTED)))
async def test_other_failures_are_retried_and_noted_without_text_or_token(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime, case: int
) -> None:
    """The row waits with Telegram's words (or the network's, the token
    blanked out) as its error, then goes out."""
    failing = Failing(bot, other_failures(bot.token)[case], 1_000_000)
    outbox = make_outbox(db, bot, ftime)
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "secret ♠Q")
    async with running(outbox):
        await fake.wait_for(lambda: outbox.stats().retries >= 2, timeout=10)
        row = await db.fetchone("SELECT status, error FROM outbox")
        assert row is not None and (row["status"], row["error"]) == ("pending", NOTED[case])
        failing.left = 0
        await outbox.drain()
    tries = len(failing.seen)
    assert tries >= 3 and failing.seen == ["secret ♠Q"] * tries
    assert outbox.stats().retries == tries - 1 and outbox.stats().failed == 0
    assert await statuses(db) == {"sent": 1}
    assert fake.sent_texts(GROUP) == ["secret ♠Q"]


async def test_a_refused_token_keeps_every_row_pending(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    """401: nothing goes out, nothing fails, until someone fixes the token."""
    Failing(bot, TelegramUnauthorizedError(SendMessage(chat_id=GROUP, text="x"), "Unauthorized"), 3)
    outbox = make_outbox(db, bot, ftime)
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "once the token is right")
    async with running(outbox):
        await outbox.drain()
    assert outbox.stats().retries == 3 and outbox.stats().failed == 0
    row = await db.fetchone("SELECT status, attempts FROM outbox")
    assert row is not None and (row["status"], row["attempts"]) == ("sent", 4)


async def test_a_call_too_large_fails_its_row_and_the_chat_goes_on(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    """413: that row can never go; the next one does."""
    Failing(bot, TelegramEntityTooLarge(SendMessage(chat_id=GROUP, text="x"), "Too Large"), 1)
    outbox = make_outbox(db, bot, ftime)
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "too large")
        await enqueue_send(conn, GROUP, "fine")
    async with running(outbox):
        await outbox.drain()
    assert fake.sent_texts(GROUP) == ["fine"]
    assert await statuses(db) == {"failed": 1, "sent": 1}


@pytest.mark.parametrize(
    ("description", "not_modified", "edit_gone", "delete_gone", "unreachable"),
    [
        (errors.NOT_MODIFIED, True, False, False, False),
        (errors.EDIT_NOT_FOUND, False, True, False, False),
        (errors.CANT_EDIT, False, True, False, False),
        ("Bad Request: MESSAGE_ID_INVALID", False, True, True, False),
        (errors.DELETE_NOT_FOUND, False, False, True, False),
        (errors.CANT_DELETE, False, False, True, False),
        (errors.CHAT_NOT_FOUND, False, False, False, True),
        ("Bad Request: not enough rights to send text messages to the chat", *[False] * 3, True),
        ("Bad Request: have no rights to send a message", False, False, False, True),
        ("Bad Request: PEER_ID_INVALID", False, False, False, True),
        (errors.PARSE_ENTITIES + "unclosed tag", False, False, False, False),
        (errors.TEXT_TOO_LONG, False, False, False, False),
        (errors.BUTTON_DATA_INVALID, False, False, False, False),
    ],
)
def test_400_descriptions(
    description: str, not_modified: bool, edit_gone: bool, delete_gone: bool, unreachable: bool
) -> None:
    """Which wrong a 400 names, as Telegram words it."""
    assert is_not_modified(description) is not_modified
    assert is_edit_target_gone(description) is edit_gone
    assert is_delete_target_gone(description) is delete_gone
    assert is_unreachable(description) is unreachable


# -------------------------------------------------------------- edit outcomes


async def test_not_modified_counts_as_success(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    outbox = make_outbox(db, bot, ftime)
    async with running(outbox):
        for _ in range(2):
            async with db.tx() as conn:
                await enqueue_put(conn, GROUP, "table:1", "same")
            outbox.wake()
            await outbox.drain()
    assert [m.text for m in fake.chat_messages(GROUP)] == ["same"]
    assert outbox.stats().not_modified == 1
    assert await statuses(db) == {"sent": 2}


@pytest.mark.parametrize("gone", ["unknown id", "user message"])
async def test_edit_of_a_lost_message_sends_a_new_one(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime, gone: str
) -> None:
    if gone == "unknown id":
        message_id = 999  # "message to edit not found"
    else:  # "message can't be edited"
        message_id = (await fake.send_text(fake.users[ALICE], GROUP, "hi"))["message_id"]
    await db.execute(
        "INSERT INTO messages(key, chat_id, message_id) VALUES ('table:1', ?, ?)",
        (GROUP, message_id),
    )
    outbox = make_outbox(db, bot, ftime)
    async with db.tx() as conn:
        await enqueue_put(conn, GROUP, "table:1", "fresh table")
    async with running(outbox):
        await outbox.drain()
    (message,) = fake.chat_messages(GROUP)
    assert message.text == "fresh table"
    assert await remembered(db, "table:1") == (GROUP, message.message_id)
    assert outbox.stats().resent == 1
    assert await statuses(db) == {"sent": 1}


async def test_send_with_key_then_put_edits_it_and_delete_removes_it(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    keyboard = build_keyboard([[button("Сесть", "sit:1")]])
    outbox = make_outbox(db, bot, ftime)
    async with running(outbox):
        async with db.tx() as conn:
            await enqueue_send(conn, GROUP, "lobby", reply_markup=keyboard, key="lobby:1")
            await enqueue_put(
                conn,
                GROUP,
                "lobby:1",
                "lobby, 1 seated",
                reply_markup={"inline_keyboard": [[{"text": "Встать", "callback_data": "up:1"}]]},
            )
        outbox.wake()
        await outbox.drain()
        (message,) = fake.chat_messages(GROUP)
        assert message.text == "lobby, 1 seated"
        assert [b.value for b in message.buttons()] == ["up:1"]

        async with db.tx() as conn:
            await enqueue_delete(conn, GROUP, "lobby:1")
            await enqueue_delete(conn, GROUP, "never-sent")  # nothing to delete: no call
        outbox.wake()
        await outbox.drain()
    assert fake.chat_messages(GROUP) == []
    assert fake.message(GROUP, message.message_id).deleted
    assert await remembered(db, "lobby:1") is None
    assert len(fake.calls_to("deleteMessage")) == 1
    assert await statuses(db) == {"sent": 4}


async def test_forget_key_makes_next_put_send_anew(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    outbox = make_outbox(db, bot, ftime)
    async with running(outbox):
        async with db.tx() as conn:
            await enqueue_put(conn, GROUP, "table:1", "game 1")
        outbox.wake()
        await outbox.drain()
        async with db.tx() as conn:
            await forget_key(conn, "table:1")
            await enqueue_put(conn, GROUP, "table:1", "game 2")
        outbox.wake()
        await outbox.drain()
    assert [m.text for m in fake.chat_messages(GROUP)] == ["game 1", "game 2"]


async def test_delete_of_a_vanished_message_is_success(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    await db.execute(
        "INSERT INTO messages(key, chat_id, message_id) VALUES ('hand:1', ?, 999)", (GROUP,)
    )
    outbox = make_outbox(db, bot, ftime)
    async with db.tx() as conn:
        await enqueue_delete(conn, GROUP, "hand:1")
        await enqueue_send(conn, GROUP, "next")
    async with running(outbox):
        await outbox.drain()
    assert await remembered(db, "hand:1") is None
    assert fake.sent_texts(GROUP) == ["next"]
    assert await statuses(db) == {"sent": 2}


async def test_not_before_delays_the_row_and_the_chat_behind_it(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    start = ftime.now
    outbox = make_outbox(db, bot, ftime)
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "later", not_before=time.time() + 100)
        await enqueue_send(conn, GROUP, "after that")
        await enqueue_send(conn, OTHER_GROUP, "elsewhere, now")
    async with running(outbox):
        await outbox.drain()
    assert fake.sent_texts(GROUP) == ["later", "after that"]
    # The other chat's row did not wait for it (it went out at once; the fake
    # clock jumps as soon as every worker sleeps, so only its presence and the
    # held chat's delay are certain, not which came first in real time).
    assert fake.sent_texts(OTHER_GROUP) == ["elsewhere, now"]
    assert fake.calls_to("sendMessage", GROUP)[0].time - start >= 99


# ------------------------------------------------------------ permanent errors


async def test_forbidden_fails_the_chat_calls_back_and_goes_on(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    calls: list[tuple[int, str]] = []

    async def on_forbidden(chat_id: int, description: str, sent_at: float) -> None:
        calls.append((chat_id, description))

    fake.block_bot(fake.users[ALICE])
    outbox = make_outbox(db, bot, ftime, on_forbidden=on_forbidden)
    async with db.tx() as conn:
        await enqueue_send(conn, ALICE, "your hand: ♠A ♠K")
        await enqueue_send(conn, ALICE, "your turn")
        await enqueue_send(conn, BOB, "never started")  # 403 can't initiate
        await enqueue_send(conn, 5555, "nobody")  # 400 chat not found: unreachable too
        await enqueue_send(conn, GROUP, "table")
    async with running(outbox):
        await outbox.drain()
    assert sorted(calls) == [
        (ALICE, "Forbidden: bot was blocked by the user"),
        (BOB, "Forbidden: bot can't initiate conversation with a user"),
        (5555, "Bad Request: chat not found"),
    ]
    assert fake.sent_texts(GROUP) == ["table"]
    assert await statuses(db) == {"failed": 4, "sent": 1}
    assert len(fake.calls_to("sendMessage", ALICE)) == 1  # the second row was not tried
    assert outbox.stats().forbidden == 3


async def test_a_refusal_fails_only_what_was_queued_before_the_refused_call(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    """The user presses Start while a refusal is on its way: what the bot
    queued for them since then is sent, not failed with the old rows."""
    refusals: list[float] = []

    async def on_forbidden(chat_id: int, description: str, sent_at: float) -> None:
        refusals.append(sent_at)

    alice = fake.users[ALICE]
    fake.block_bot(alice)
    answer = fake.hold("sendMessage", ALICE)
    outbox = make_outbox(db, bot, ftime, on_forbidden=on_forbidden)
    async with db.tx() as conn:
        await enqueue_send(conn, ALICE, "your hand, before the block was known")
    async with running(outbox):
        await fake.wait_for(lambda: fake.calls_to("sendMessage", ALICE))
        fake.unblock_bot(alice)
        queued_at = time.time()
        async with db.tx() as conn:
            await enqueue_send(conn, ALICE, "your hand again, after Start")
        answer.set()
        await outbox.drain()
    assert len(refusals) == 1 and refusals[0] <= queued_at
    assert fake.sent_texts(ALICE) == ["your hand again, after Start"]
    assert await statuses(db) == {"failed": 1, "sent": 1}


async def test_bad_request_fails_row_without_logging_text(
    db: Database,
    bot: Bot,
    fake: FakeTelegram,
    ftime: FakeTime,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    outbox = make_outbox(db, bot, ftime)
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "<b>secret ♠Q unclosed")  # can't parse entities
        await enqueue_send(
            conn,
            GROUP,
            "secret ♥7 with a bad button",
            reply_markup={"inline_keyboard": [[{"text": "no action"}]]},
        )
        await enqueue_send(conn, GROUP, "secret ♦2 bad markup", reply_markup={"inline_keyboard": 5})
        await enqueue_send(conn, GROUP, "fine")
    async with running(outbox):
        await outbox.drain()
    assert fake.sent_texts(GROUP) == ["fine"]
    assert await statuses(db) == {"failed": 3, "sent": 1}
    errors = [
        r["error"] for r in await db.fetchall("SELECT error FROM outbox WHERE error IS NOT NULL")
    ]
    assert len(errors) == 3 and all("secret" not in e for e in errors)
    assert "secret" not in caplog.text
    assert "♠" not in caplog.text
    assert outbox.stats().failed == 3


# ------------------------------------------------------------------ migration


async def test_group_migration_moves_the_outbox_rows_and_tells_the_services(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    """The outbox moves only what is its own (pending rows; the old chat's messages
    are forgotten, as they cannot be edited through the new id);
    the table's chat id is the services' to move, in ``on_migrated``."""
    migrated: list[tuple[int, int]] = []

    async def on_migrated(old: int, new: int) -> None:
        migrated.append((old, new))

    now = time.time()
    await db.execute(
        "INSERT INTO tables(chat_id, creator_id, status, rules_json, created_at, updated_at)"
        " VALUES (?, ?, 'playing', '{}', ?, ?)",
        (GROUP, ALICE, now, now),
    )
    outbox = make_outbox(db, bot, ftime, on_migrated=on_migrated)
    async with running(outbox):
        async with db.tx() as conn:
            await enqueue_put(conn, GROUP, "table:1", "table v1")
        outbox.wake()
        await outbox.drain()

        new_id = fake.migrate_group(GROUP)
        async with db.tx() as conn:
            await enqueue_put(conn, GROUP, "table:1", "table v2")
            await enqueue_send(conn, GROUP, "after migration")
        outbox.wake()
        await outbox.drain()

    assert migrated == [(GROUP, new_id)]
    assert [m.text for m in fake.chat_messages(new_id)] == ["table v2", "after migration"]
    assert [m.text for m in fake.chat_messages(GROUP)] == ["table v1"]
    key = await remembered(db, "table:1")
    assert key is not None and key[0] == new_id
    row = await db.fetchone("SELECT chat_id FROM tables")
    assert row is not None and row["chat_id"] == GROUP, "domain data is not the outbox's"
    assert (
        await db.fetchone("SELECT 1 FROM outbox WHERE chat_id = ? AND status = 'pending'", (GROUP,))
        is None
    )
    assert outbox.stats().migrations == 1


# ---------------------------------------------------------------- durability


async def test_pending_rows_survive_restart(
    tmp_path: Path, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    path = tmp_path / "spades.db"
    db = await Database.open(path)
    await apply_migrations(db)
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "one")
        await enqueue_put(conn, GROUP, "table:1", "two")
        await enqueue_send(conn, ALICE, "three")
    # The sender is stopped while Telegram hangs on its first call.
    fake.inject("timeout", method="sendMessage", chat_id=GROUP)
    outbox = make_outbox(db, bot, ftime, request_timeout=30)
    outbox.shutdown_grace = 0.5
    async with running(outbox):
        await fake.wait_for(lambda: fake.calls_to("sendMessage", GROUP))
        await fake.wait_for(lambda: fake.calls_to("sendMessage", ALICE))
    await db.close()
    fake.clear_faults()

    db = await Database.open(path)
    try:
        outbox = make_outbox(db, bot, ftime)
        async with running(outbox):
            await outbox.drain()
        assert fake.sent_texts(GROUP) == ["one", "two"]
        assert fake.sent_texts(ALICE) == ["three"]
        assert await statuses(db) == {"sent": 3}
        assert await remembered(db, "table:1") is not None
    finally:
        await db.close()


async def insert_rows(db: Database, rows: list[tuple[str, float]]) -> None:
    async with db.tx() as conn:
        for status, created in rows:
            await conn.execute(
                "INSERT INTO outbox(chat_id, op, payload, status, created_at)"
                " VALUES (?, 'send', '{}', ?, ?)",
                (GROUP, status, created),
            )


async def test_prune_removes_only_old_finished_rows(
    db: Database, bot: Bot, ftime: FakeTime
) -> None:
    outbox = make_outbox(db, bot, ftime)
    now = time.time()
    old = now - outbox.keep_sent - 60
    ancient = now - outbox.keep_failed - 60
    await insert_rows(
        db,
        [
            ("sent", old),
            ("superseded", old),
            ("sent", now),
            ("pending", ancient),
            ("failed", old),
            ("failed", ancient),
        ],
    )
    assert await outbox.prune() == 3
    assert await statuses(db) == {"sent": 1, "pending": 1, "failed": 1}
    assert outbox.stats().pruned == 3


class CountingDatabase(Database):
    """Notes what each prune transaction deleted."""

    deleted: list[int]

    async def run_tx(self, fn: Any, *args: Any) -> Any:
        result = await super().run_tx(fn, *args)
        if fn is outbox_pruning.prune_step:
            self.deleted.append(result[0])
        return result


@pytest.fixture
async def counting_db(tmp_path: Path) -> AsyncIterator[CountingDatabase]:
    database = await CountingDatabase.open(tmp_path / "spades.db")
    await apply_migrations(database)
    database.deleted = []
    yield database
    await database.close()


async def test_prune_takes_every_due_row_a_small_transaction_at_a_time(
    counting_db: CountingDatabase, bot: Bot, ftime: FakeTime
) -> None:
    """However far behind, one prune catches up (no cap per run), in chunks."""
    outbox = make_outbox(counting_db, bot, ftime)
    outbox.prune_chunk = 2
    old = time.time() - outbox.keep_sent - 60
    await insert_rows(counting_db, [("sent", old)] * 5 + [("superseded", old)] * 2)
    assert await outbox.prune() == 7
    assert await statuses(counting_db) == {}
    assert counting_db.deleted == [2, 2, 2, 1]


async def test_rows_that_stay_cost_a_prune_step_once(
    counting_db: CountingDatabase, bot: Bot, ftime: FakeTime
) -> None:
    """A week of failed rows (kept) before the sent ones: each step looks at
    ``prune_chunk`` rows, whatever they are, so none takes longer for them."""
    outbox = make_outbox(counting_db, bot, ftime)
    outbox.prune_chunk = 4
    old = time.time() - outbox.keep_sent - 60
    await insert_rows(counting_db, [("failed", old - 10)] * 10 + [("sent", old)] * 3)
    assert await outbox.prune() == 3
    assert counting_db.deleted == [0, 0, 2, 1]
    assert await statuses(counting_db) == {"failed": 10}


async def test_a_row_sent_after_the_prune_went_by_goes_at_the_next_full_sweep(
    db: Database, bot: Bot, ftime: FakeTime
) -> None:
    """A prune goes on from where the last one ended; a row still pending
    then (a flood wait, an outage) and sent later is found by the sweep from
    the oldest row that runs every ``full_sweep`` seconds."""
    outbox = make_outbox(db, bot, ftime)
    outbox.full_sweep = 3600.0
    old = time.time() - outbox.keep_sent - 60
    await insert_rows(db, [("pending", old), ("sent", old)])
    assert await outbox.prune() == 1
    await db.execute("UPDATE outbox SET status = 'sent'")
    assert await outbox.prune() == 0
    outbox.full_sweep = 0.0  # time for a sweep: the next prune starts from the oldest row
    assert await outbox.prune() == 1
    assert await statuses(db) == {}


async def test_moves_are_not_held_up_by_a_long_prune(
    db: Database, bot: Bot, ftime: FakeTime
) -> None:
    """A transaction queued while a big backlog is pruned commits after a
    chunk or two, not after the whole prune."""
    outbox = make_outbox(db, bot, ftime)
    outbox.prune_chunk = 20
    old = time.time() - outbox.keep_sent - 60
    await insert_rows(db, [("sent", old)] * 1000)
    pruning = asyncio.create_task(outbox.prune())
    await asyncio.sleep(0)  # the prune's first chunk is on its way
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "a move's message")
    assert not pruning.done()
    assert await pruning == 1000
    assert await statuses(db) == {"pending": 1}


async def test_sent_rows_are_pruned_while_running(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    """The running outbox prunes on its own: the table holds only the last
    ``keep_sent`` seconds of finished rows."""
    outbox = make_outbox(db, bot, ftime)
    outbox.keep_sent = 0.0
    outbox.prune_interval = 0.01
    async with running(outbox):
        for n in range(5):
            async with db.tx() as conn:
                await enqueue_send(conn, GROUP, f"m{n}")
                await enqueue_put(conn, GROUP, "table:1", f"v{n}")
                await enqueue_put(conn, GROUP, "table:1", f"w{n}")
            outbox.wake()
            await outbox.drain()
        async with asyncio.timeout(10):
            while outbox.stats().pruned < 15:
                await asyncio.sleep(0.01)
        assert await statuses(db) == {}
    assert [m.text for m in fake.chat_messages(GROUP)] == ["m0", "w4", "m1", "m2", "m3", "m4"]


# -------------------------------------------------------------------- pacing


async def test_group_pacing_never_exceeds_limit_per_minute(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    fake.enforce_limits = True  # the fake answers 429 if we ever overstep
    settings = make_settings(
        group_messages_per_minute=20,
        private_messages_per_second=1.0,
        global_messages_per_second=30.0,
    )
    outbox = make_outbox(db, bot, ftime, settings=settings)
    async with db.tx() as conn:
        for n in range(50):
            await enqueue_send(conn, GROUP, f"g{n}")
            if n % 5 == 0:
                await enqueue_send(conn, ALICE, f"a{n}")
    start = ftime.now
    async with running(outbox):
        await outbox.drain(timeout=30)

    assert fake.sent_texts(GROUP) == [f"g{n}" for n in range(50)]
    times = fake.message_times(GROUP)
    for i in range(len(times) - 20):
        assert times[i + 20] - times[i] >= 60, f"21 messages within a minute at call {i}"
    private = fake.message_times(ALICE)
    assert all(b - a >= 1.0 - 1e-6 for a, b in zip(private, private[1:], strict=False))
    assert fake.limit_violations() == []
    assert outbox.stats().flood_waits == 0
    # Not slower than needed either: 50 messages at 20/min is about 2.5 simulated minutes.
    assert ftime.now - start < 200


async def test_global_pacing(db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime) -> None:
    users = [fake.add_user(2000 + n, f"u{n}") for n in range(40)]
    for user in users:
        user.started_bot = True
    settings = make_settings(global_messages_per_second=10.0, private_messages_per_second=1.0)
    outbox = make_outbox(db, bot, ftime, settings=settings)
    async with db.tx() as conn:
        for user in users:
            for n in range(3):
                await enqueue_send(conn, user.id, f"m{n}")
    async with running(outbox):
        await outbox.drain(timeout=30)
    times = sorted(c.time for c in fake.calls if c.ok)
    assert len(times) == 120
    for i in range(len(times) - 10):
        assert times[i + 10] - times[i] >= 1.0 - 1e-6


def test_pacer_window_and_burst() -> None:
    pacer = Pacer(20 / 60, burst=3, window=60.0)
    now, calls = 0.0, []
    for _ in range(100):
        while (wait := pacer.delay(now)) > 0:
            now += wait
        pacer.take(now)
        calls.append(now)
    assert calls[:3] == [0.0, 0.0, 0.0]  # a small burst is allowed
    for i in range(len(calls) - 20):
        assert calls[i + 20] - calls[i] >= 60 - 1e-9
    assert calls[-1] < 100 / 20 * 60 + 60  # and the long-run rate is ~20/min


# --------------------------------------------------------------------- misc


async def test_enqueue_rejects_wrong_markup_type(db: Database) -> None:
    with pytest.raises(TypeError):
        async with db.tx() as conn:
            await enqueue_send(conn, GROUP, "x", reply_markup="not a keyboard")  # type: ignore[arg-type]
    assert await statuses(db) == {}


async def test_enqueue_is_part_of_the_callers_transaction(db: Database) -> None:
    with pytest.raises(RuntimeError):
        async with db.tx() as conn:
            await enqueue_send(conn, GROUP, "move announced")
            raise RuntimeError("the move was illegal")
    assert await statuses(db) == {}


async def test_send_can_reply_to_a_message(
    db: Database, bot: Bot, fake: FakeTelegram, ftime: FakeTime
) -> None:
    """A command's answer quotes the command; a command deleted meanwhile is no obstacle."""
    command = (await fake.send_text(fake.users[ALICE], GROUP, "/newgame"))["message_id"]
    outbox = make_outbox(db, bot, ftime)
    async with db.tx() as conn:
        await enqueue_send(conn, GROUP, "a table is open", reply_to=command)
        await enqueue_send(conn, GROUP, "to a vanished command", reply_to=999)
    async with running(outbox):
        await outbox.drain()
    answer, orphan = fake.chat_messages(GROUP)
    assert answer.text == "a table is open"
    assert answer.reply_to is not None and answer.reply_to.message_id == command
    assert orphan.text == "to a vanished command" and orphan.reply_to is None
    assert await statuses(db) == {"sent": 2}


async def test_reply_to_must_be_a_message_id(db: Database) -> None:
    with pytest.raises(TypeError):
        async with db.tx() as conn:
            await enqueue_send(conn, GROUP, "x", reply_to="12")  # type: ignore[arg-type]
    assert await statuses(db) == {}
