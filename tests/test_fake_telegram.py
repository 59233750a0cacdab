"""Tests of the fake Telegram server, driven by a real aiogram Bot and Dispatcher.

These pin down that aiogram sees the fake exactly as it would see Telegram:
updates arrive through long polling, answers parse into aiogram's models, and
every error surfaces as the aiogram exception the bot's code will catch in
production (TelegramBadRequest, TelegramRetryAfter, TelegramMigrateToChat…).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiogram import Bot, Dispatcher, F, Router
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramBadRequest,
    TelegramConflictError,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.filters import Command, CommandObject
from aiogram.types import (
    BotCommand,
    BotCommandScopeChat,
    BufferedInputFile,
    CallbackQuery,
    ChatMemberAdministrator,
    ChatMemberBanned,
    ChatMemberLeft,
    ChatMemberMember,
    ChatMemberOwner,
    ForumTopicClosed,
    ForumTopicReopened,
    InaccessibleMessage,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    MenuButtonCommands,
    Message,
    ReplyParameters,
    Update,
)
from fake_telegram import FakeTelegram, FakeUser, parse_html
from fake_telegram import errors as tg

# The bot of the shared ``fake`` fixture (tests/shared_fixtures.py): FakeTelegram's defaults.
BOT_USERNAME = "piki_test_bot"
BOT_ID = 7_000_000_001
GROUP_ID = -4001
SUPERGROUP_ID = -1001234567890


class FakeClock:
    """A clock the test moves by hand (the fake's ``clock`` is any callable)."""

    def __init__(self, start: float = 1_750_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def keyboard(turn: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="Ход", callback_data=f"move:{turn + 1}")]]
    )


def make_router() -> Router:
    """A tiny bot: echo a command, show a board with a button, edit it on a press."""
    router = Router()

    @router.message(Command("echo"))
    async def echo(message: Message, command: CommandObject) -> None:
        await message.answer(f"echo: {command.args or '-'}")

    @router.message(Command("board"))
    async def board(message: Message) -> None:
        await message.answer("<b>Стол</b>: ход 0", parse_mode="HTML", reply_markup=keyboard(0))

    @router.callback_query(F.data.startswith("move:"))
    async def move(query: CallbackQuery) -> None:
        assert isinstance(query.message, Message) and query.data is not None
        turn = int(query.data.split(":")[1])
        await query.message.edit_text(
            f"<b>Стол</b>: ход {turn}", parse_mode="HTML", reply_markup=keyboard(turn)
        )
        await query.answer(f"ход {turn}")

    return router


class QuickCloseSession(AiohttpSession):
    """aiogram sleeps 250 ms after closing, for TLS shutdown; plain HTTP to the fake needs none."""

    async def close(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()


def make_bot(fake: FakeTelegram, timeout: float = 60.0) -> Bot:
    session = QuickCloseSession(api=TelegramAPIServer.from_base(fake.base_url), timeout=timeout)
    return Bot(fake.token, session=session)


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    client = make_bot(fake)
    yield client
    await client.session.close()


@pytest.fixture
async def polling(fake: FakeTelegram, bot: Bot) -> AsyncIterator[Dispatcher]:
    dp = Dispatcher()
    dp.include_router(make_router())
    task = asyncio.create_task(
        dp.start_polling(bot, handle_signals=False, close_bot_session=False, polling_timeout=5)
    )
    await fake.wait_for_call("getMe")
    await fake.wait_for(lambda: fake.calls_to("getUpdates"), message="the first getUpdates")
    yield dp
    await dp.stop_polling()
    await task


@pytest.fixture
def alice(fake: FakeTelegram) -> FakeUser:
    return fake.add_user(1001, "Алиса", username="alice")


@pytest.fixture
def bob(fake: FakeTelegram) -> FakeUser:
    return fake.add_user(1002, "Боб", username="bob")


# ----------------------------------------------------------------- transport


async def test_wire_format_method_lookup_and_tokens(fake: FakeTelegram, bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot) == (BOT_ID, BOT_USERNAME, True)
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{fake.base_url}/bot123:other/getMe") as resp:
            assert resp.status == 401  # another bot's token
            assert (await resp.json())["description"] == "Unauthorized"
        url = f"{fake.base_url}/bot{BOT_ID}:other"
        async with http.post(f"{url}/GETME") as resp:
            assert resp.status == 200
            assert (await resp.json())["result"]["username"] == BOT_USERNAME
        async with http.post(f"{url}/fooBar") as resp:
            assert resp.status == 404
            assert await resp.json() == {
                "ok": False,
                "error_code": 404,
                "description": "Not Found: method not found",
            }
        async with http.get(f"{url}/sendDocument") as resp:
            assert resp.status == 501  # real method the fake lacks: loud, not a fake 404
    assert fake.tokens == {fake.token, "123:other", f"{BOT_ID}:other"}
    assert [c.method for c in fake.calls] == ["getMe", "getMe", "getMe", "fooBar", "sendDocument"]


async def test_wait_for_timeout_explains_itself(fake: FakeTelegram) -> None:
    with pytest.raises(AssertionError, match="recent calls"):
        await fake.wait_for(lambda: False, timeout=0.05, message="nothing")


# ------------------------------------------------------- through a Dispatcher


async def test_commands_with_and_without_botname_reach_handler(
    fake: FakeTelegram, polling: Dispatcher, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.send_text(alice, alice.id, "/echo привет")
    reply = await fake.wait_for(lambda: fake.last_message(alice.id))
    assert reply.text == "echo: привет"

    fake.add_group(GROUP_ID, "Пики", members=[alice, bob], admins=[alice])
    sent = await fake.send_text(bob, GROUP_ID, f"/echo@{BOT_USERNAME} x")
    assert sent["entities"] == [{"type": "bot_command", "offset": 0, "length": 19}]
    await fake.wait_for(lambda: fake.sent_texts(GROUP_ID) == ["echo: x"])

    # Privacy mode: another bot's command and plain chatter never reach the bot.
    await fake.send_text(bob, GROUP_ID, "/echo@other_bot y")
    await fake.send_text(bob, GROUP_ID, "просто текст")
    assert fake.updates_pending() == 0
    # A reply to the bot's message does.
    await fake.send_text(
        alice, GROUP_ID, "/echo z", reply_to=fake.last_message(GROUP_ID).message_id
    )
    await fake.wait_idle()
    assert fake.sent_texts(GROUP_ID) == ["echo: x", "echo: z"]
    assert len(fake.chat_messages(GROUP_ID, include_user_messages=True)) == 6


async def test_press_reaches_callback_handler_and_answer_is_observed(
    fake: FakeTelegram, polling: Dispatcher, alice: FakeUser, bob: FakeUser
) -> None:
    fake.add_group(SUPERGROUP_ID, "Пики", members=[alice, bob], admins=[alice], supergroup=True)
    await fake.send_text(alice, SUPERGROUP_ID, "/board")
    board = await fake.wait_for(lambda: fake.last_message(SUPERGROUP_ID))
    assert (board.text, board.html) == ("Стол: ход 0", "<b>Стол</b>: ход 0")
    assert board.entities == [{"offset": 0, "length": 4, "type": "bold"}]

    button = fake.find_button(board, text_contains="Ход")
    press = await fake.press(bob, SUPERGROUP_ID, board.message_id, button.value or "")
    assert (await press.answer())["text"] == "ход 1"
    await fake.wait_for(lambda: board.edits == 1)
    assert board.text == "Стол: ход 1"
    assert board.buttons() == [("Ход", "move:2")]
    assert board.history[0].text == "Стол: ход 0"

    # The old button is gone: a real client cannot press it, a forged press can.
    with pytest.raises(AssertionError, match="press_raw"):
        await fake.press(bob, SUPERGROUP_ID, board.message_id, "move:1")
    # Replaying it makes this naive handler edit to the same content: Telegram's
    # "not modified" reaches the handler, which therefore never answers.
    stale = await fake.press_raw(bob, SUPERGROUP_ID, board.message_id, "move:1")
    await fake.wait_for(
        lambda: [c for c in fake.calls_to("editMessageText") if c.error is not None]
    )
    await fake.wait_idle()
    assert (board.edits, stale.answered) == (1, False)


# ------------------------------------------------------------------- editing


async def test_message_not_modified_and_keyboard_dropped_by_edit(
    fake: FakeTelegram, bot: Bot, alice: FakeUser
) -> None:
    await fake.start_bot(alice)
    sent = await bot.send_message(
        alice.id, "<b>Счёт</b> 0", parse_mode="HTML", reply_markup=keyboard(0)
    )
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.edit_message_text(
            "<b>Счёт</b> 0",
            chat_id=alice.id,
            message_id=sent.message_id,
            parse_mode="HTML",
            reply_markup=keyboard(0),
        )
    assert caught.value.message == tg.NOT_MODIFIED
    # Same text, other formatting: a real modification.
    await bot.edit_message_text(
        "<i>Счёт</i> 0",
        chat_id=alice.id,
        message_id=sent.message_id,
        parse_mode="HTML",
        reply_markup=keyboard(0),
    )
    # Omitting reply_markup in editMessageText removes the keyboard, as on Telegram.
    edited = await bot.edit_message_text(
        "<i>Счёт</i> 0", chat_id=alice.id, message_id=sent.message_id, parse_mode="HTML"
    )
    assert isinstance(edited, Message) and edited.reply_markup is None and edited.edit_date
    message = fake.message(alice.id, sent.message_id)
    assert (message.reply_markup, message.edits) == (None, 2)
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await bot.edit_message_reply_markup(chat_id=alice.id, message_id=sent.message_id)
    await bot.edit_message_reply_markup(
        chat_id=alice.id, message_id=sent.message_id, reply_markup=keyboard(5)
    )
    assert message.buttons() == [("Ход", "move:6")]


async def test_edit_and_delete_errors(
    fake: FakeTelegram, bot: Bot, alice: FakeUser, bob: FakeUser
) -> None:
    clock = FakeClock()
    fake.clock = clock
    fake.add_group(GROUP_ID, "Пики", members=[alice, bob], admins=[alice])
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.edit_message_text("x", chat_id=GROUP_ID, message_id=99)
    assert caught.value.message == tg.EDIT_NOT_FOUND
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.delete_message(GROUP_ID, 99)
    assert caught.value.message == tg.DELETE_NOT_FOUND

    users_message = await fake.send_text(alice, GROUP_ID, "/start")
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.edit_message_text("x", chat_id=GROUP_ID, message_id=users_message["message_id"])
    assert caught.value.message == tg.CANT_EDIT
    with pytest.raises(TelegramBadRequest) as caught:  # not an admin
        await bot.delete_message(GROUP_ID, users_message["message_id"])
    assert caught.value.message == tg.CANT_DELETE

    first = await bot.send_message(GROUP_ID, "один")
    second = await bot.send_message(GROUP_ID, "два")
    assert second.message_id == first.message_id + 1 == users_message["message_id"] + 2
    assert await bot.delete_message(GROUP_ID, first.message_id)
    assert [m.text for m in fake.chat_messages(GROUP_ID)] == ["два"]
    assert fake.sent_texts(GROUP_ID) == ["один", "два"]
    assert fake.message(GROUP_ID, first.message_id).deleted
    clock.advance(49 * 3600)
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.delete_message(GROUP_ID, second.message_id)
    assert caught.value.message == tg.CANT_DELETE


# ------------------------------------------------------------ text & markup


async def test_text_validation(fake: FakeTelegram, bot: Bot, alice: FakeUser) -> None:
    await fake.start_bot(alice)
    for text in ("", "  \n "):
        with pytest.raises(TelegramBadRequest) as caught:
            await bot.send_message(alice.id, text)
        assert caught.value.message == tg.TEXT_EMPTY
    # The limit counts the text after entity parsing and trimming.
    long_html = "<b>" + "я" * 4096 + "</b>\n"
    sent = await bot.send_message(alice.id, long_html, parse_mode="HTML")
    assert sent.text is not None and len(sent.text) == 4096
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.send_message(alice.id, "я" * 4097)
    assert caught.value.message == tg.TEXT_TOO_LONG
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.edit_message_text("я" * 4097, chat_id=alice.id, message_id=sent.message_id)
    assert caught.value.message == tg.EDIT_TEXT_TOO_LONG
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.send_message(-777, "кому?")
    assert caught.value.message == tg.CHAT_NOT_FOUND


async def test_html_parse_errors_and_entities(
    fake: FakeTelegram, bot: Bot, alice: FakeUser
) -> None:
    await fake.start_bot(alice)
    bad = {
        "<b>жирный": 'Can\'t find end tag corresponding to start tag "b"',
        "<foo>x</foo>": 'Unsupported start tag "foo" at byte offset 0',
        "1 < 2": 'Unsupported start tag "" at byte offset 2',
        "<b>x</i>": 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"',
        "x</b>": "Unexpected end tag at byte offset 1",
        '<span class="x">s</span>': 'Tag "span" must have class "tg-spoiler"',
        "Том & Джерри": 'Unescaped "&"',
    }
    for html, reason in bad.items():
        with pytest.raises(TelegramBadRequest) as caught:
            await bot.send_message(alice.id, html, parse_mode="HTML")
        assert caught.value.message.startswith(tg.PARSE_ENTITIES + reason), html
    assert fake.sent_texts(alice.id) == []

    text, entities = parse_html(
        '<a href="https://t.me/x">ссылка</a> <tg-spoiler>😀</tg-spoiler> '
        '<pre><code class="language-python">x = 1</code></pre> &lt;&#65;&quot;&amp;'
    )
    assert text == 'ссылка 😀 x = 1 <A"&'
    assert entities == [
        {"offset": 0, "length": 6, "type": "text_link", "url": "https://t.me/x"},
        {"offset": 7, "length": 2, "type": "spoiler"},
        {"offset": 10, "length": 5, "type": "pre", "language": "python"},
    ]
    fake.strict_html = False  # real Telegram keeps a bare "&" literally
    sent = await bot.send_message(alice.id, "Том & Джерри", parse_mode="HTML")
    assert sent.text == "Том & Джерри"


async def test_callback_data_limits(fake: FakeTelegram, bot: Bot, alice: FakeUser) -> None:
    await fake.start_bot(alice)

    def one_button(**button: str) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(text="b", **button)]])

    for data in ("x" * 64, "ж" * 32):
        await bot.send_message(alice.id, "ok", reply_markup=one_button(callback_data=data))
    for data in ("x" * 65, "ж" * 33, ""):
        with pytest.raises(TelegramBadRequest) as caught:
            await bot.send_message(alice.id, "no", reply_markup=one_button(callback_data=data))
        assert caught.value.message == tg.BUTTON_DATA_INVALID
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.send_message(alice.id, "no", reply_markup=one_button(url="javascript:alert(1)"))
    assert caught.value.message == tg.BUTTON_URL_INVALID
    assert fake.sent_texts(alice.id) == ["ok", "ok"]


# --------------------------------------------------------- chats and members


async def test_forbidden_for_never_started_blocked_and_kicked(
    fake: FakeTelegram, bot: Bot, alice: FakeUser, bob: FakeUser
) -> None:
    with pytest.raises(TelegramForbiddenError) as caught:
        await bot.send_message(alice.id, "привет")
    assert caught.value.message == tg.CANT_INITIATE
    await fake.start_bot(alice, payload="ref42")
    await bot.send_message(alice.id, "привет")
    fake.block_bot(alice)
    with pytest.raises(TelegramForbiddenError) as caught:
        await bot.send_message(alice.id, "ау")
    assert caught.value.message == tg.BLOCKED_BY_USER
    fake.unblock_bot(alice)
    await bot.send_message(alice.id, "снова")

    fake.add_group(GROUP_ID, "Пики", members=[alice, bob], admins=[bob])
    fake.remove_bot_from_group(GROUP_ID, by_user=bob)
    with pytest.raises(TelegramForbiddenError) as caught:
        await bot.send_message(GROUP_ID, "я тут?")
    assert caught.value.message == tg.KICKED_FROM_GROUP

    updates = await bot.get_updates()
    assert updates[0].message is not None and updates[0].message.text == "/start ref42"
    changes = [u.my_chat_member for u in updates[1:]]
    assert [(c.chat.id, type(c.new_chat_member)) for c in changes if c] == [
        (alice.id, ChatMemberBanned),
        (alice.id, ChatMemberMember),
        (GROUP_ID, ChatMemberBanned),
    ]
    fake.add_bot_to_group(GROUP_ID, by_user=bob)
    await bot.send_message(GROUP_ID, "вернулся")


async def test_migration_to_supergroup(fake: FakeTelegram, bot: Bot, alice: FakeUser) -> None:
    fake.add_group(GROUP_ID, "Пики", members=[alice], admins=[alice])
    new_id = fake.migrate_group(GROUP_ID)
    assert new_id == -1000000004001
    with pytest.raises(TelegramMigrateToChat) as caught:
        await bot.send_message(GROUP_ID, "старый чат")
    assert caught.value.migrate_to_chat_id == new_id
    await bot.send_message(new_id, "новый чат")
    updates = await bot.get_updates()
    assert [
        (u.message.chat.id, u.message.migrate_to_chat_id, u.message.migrate_from_chat_id)
        for u in updates
        if u.message
    ] == [(GROUP_ID, new_id, None), (new_id, None, GROUP_ID)]
    chat = await bot.get_chat(new_id)
    assert (chat.type, chat.title) == ("supergroup", "Пики")


async def test_chat_info_and_bot_settings_parse_in_aiogram(
    fake: FakeTelegram, bot: Bot, alice: FakeUser, bob: FakeUser
) -> None:
    carol = fake.add_user(1003, "Карина")
    fake.add_group(GROUP_ID, "Пики", members=[alice, bob, carol], admins=[alice, bob])
    assert isinstance(await bot.get_chat_member(GROUP_ID, alice.id), ChatMemberOwner)
    assert isinstance(await bot.get_chat_member(GROUP_ID, bob.id), ChatMemberAdministrator)
    assert isinstance(await bot.get_chat_member(GROUP_ID, carol.id), ChatMemberMember)
    assert isinstance(await bot.get_chat_member(GROUP_ID, BOT_ID), ChatMemberMember)
    dave = fake.add_user(1004, "Денис")
    assert isinstance(await bot.get_chat_member(GROUP_ID, dave.id), ChatMemberLeft)
    with pytest.raises(TelegramBadRequest, match="user not found"):
        await bot.get_chat_member(GROUP_ID, 999)
    admins = await bot.get_chat_administrators(GROUP_ID)
    assert [a.user.id for a in admins] == [alice.id, bob.id]
    with pytest.raises(TelegramBadRequest, match="chat not found"):
        await bot.get_chat(alice.id)  # never wrote to the bot
    await fake.start_bot(alice)
    assert (await bot.get_chat(alice.id)).first_name == "Алиса"
    with pytest.raises(TelegramBadRequest, match="no administrators in the private chat"):
        await bot.get_chat_administrators(alice.id)

    commands = [BotCommand(command="newgame", description="Новая игра")]
    scope = BotCommandScopeChat(chat_id=GROUP_ID)
    assert await bot.set_my_commands(commands, scope=scope, language_code="ru")
    got = await bot.get_my_commands(scope=scope, language_code="ru")
    assert [(c.command, c.description) for c in got] == [("newgame", "Новая игра")]
    assert await bot.get_my_commands() == []
    assert await bot.delete_my_commands(scope=scope, language_code="ru")
    assert await bot.get_my_commands(scope=scope, language_code="ru") == []
    with pytest.raises(TelegramBadRequest, match="BOT_COMMAND_INVALID"):
        await bot.set_my_commands([BotCommand(command="New-Game", description="x")])

    assert await bot.send_chat_action(GROUP_ID, "typing")
    with pytest.raises(TelegramBadRequest, match="wrong parameter action"):
        await bot.send_chat_action(GROUP_ID, "dancing")
    pinned = await bot.send_message(GROUP_ID, "закреп")
    with pytest.raises(TelegramBadRequest, match="not enough rights"):
        await bot.pin_chat_message(GROUP_ID, pinned.message_id)
    fake.chat(GROUP_ID).bot_status = "administrator"
    assert await bot.pin_chat_message(GROUP_ID, pinned.message_id)
    assert (await bot.get_chat(GROUP_ID)).pinned_message is not None
    assert await bot.unpin_chat_message(GROUP_ID)
    assert await bot.set_chat_menu_button(chat_id=alice.id, menu_button=MenuButtonCommands())
    assert isinstance(await bot.get_chat_menu_button(chat_id=alice.id), MenuButtonCommands)

    await fake.send_text(alice, alice.id, "ещё")
    assert fake.updates_pending() == 2
    assert await bot.delete_webhook(drop_pending_updates=True)
    assert fake.updates_pending() == 0
    assert await bot.close() and await bot.log_out()


# ------------------------------------------------------------- long polling


async def test_long_polling_delivers_update_queued_while_waiting(
    fake: FakeTelegram, bot: Bot, alice: FakeUser
) -> None:
    started = time.monotonic()
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await fake.wait_for(lambda: any(not c.done for c in fake.calls_to("getUpdates")))
    await fake.send_text(alice, alice.id, "/start")
    updates = await asyncio.wait_for(poll, 2)
    assert time.monotonic() - started < 1.5
    assert len(updates) == 1 and updates[0].message is not None
    assert updates[0].message.text == "/start"
    # Not confirmed yet: asked again without offset, Telegram resends it.
    assert [u.update_id for u in await bot.get_updates()] == [updates[0].update_id]
    assert await bot.get_updates(offset=updates[0].update_id + 1) == []
    assert fake.updates_pending() == 0


async def test_get_updates_limit_allowed_updates_and_conflict(
    fake: FakeTelegram, bot: Bot, alice: FakeUser
) -> None:
    for text in ("1", "2", "3"):
        await fake.send_text(alice, alice.id, text)
    first_two = await bot.get_updates(limit=2)
    assert [u.message.text for u in first_two if u.message] == ["1", "2"]
    rest = await bot.get_updates(offset=first_two[-1].update_id + 1)
    assert [u.message.text for u in rest if u.message] == ["3"]
    await bot.get_updates(offset=rest[-1].update_id + 1, allowed_updates=["callback_query"])
    await fake.send_text(alice, alice.id, "отфильтровано")
    assert fake.updates_pending() == 0
    press = await fake.press_raw(alice, alice.id, 12345, "forged")
    (update,) = await bot.get_updates()
    assert update.callback_query is not None and update.callback_query.id == press.query_id
    assert isinstance(update.callback_query.message, InaccessibleMessage)

    older = asyncio.create_task(bot.get_updates(offset=update.update_id + 1, timeout=5))
    await fake.wait_for(lambda: any(not c.done for c in fake.calls_to("getUpdates")))
    assert await bot.get_updates(timeout=0) == []
    with pytest.raises(TelegramConflictError, match="terminated by other getUpdates"):
        await older


# ------------------------------------------------------- callback queries


async def test_answer_callback_query_errors(fake: FakeTelegram, bot: Bot, alice: FakeUser) -> None:
    clock = FakeClock()
    fake.clock = clock
    press = await fake.press_raw(alice, alice.id, 1, "x")
    with pytest.raises(TelegramBadRequest, match="MESSAGE_TOO_LONG"):
        await bot.answer_callback_query(press.query_id, text="я" * 201)
    assert await bot.answer_callback_query(press.query_id, text="ок", show_alert=True)
    assert await press.answer() == {
        "text": "ок",
        "show_alert": True,
        "url": None,
        "cache_time": None,
    }
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.answer_callback_query(press.query_id)
    assert caught.value.message == tg.QUERY_TOO_OLD
    late = await fake.press_raw(alice, alice.id, 1, "y")
    clock.advance(15.5)
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await bot.answer_callback_query(late.query_id)
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await bot.answer_callback_query("424242")
    with pytest.raises(AssertionError, match="did not answer"):
        await late.answer(timeout=0.01)


# ---------------------------------------------------------- fault injection


async def test_retry_after_injection(fake: FakeTelegram, bot: Bot, alice: FakeUser) -> None:
    await fake.start_bot(alice)
    fault = fake.inject("429", method="sendMessage", retry_after=7)
    with pytest.raises(TelegramRetryAfter) as caught:
        await bot.send_message(alice.id, "раз")
    assert caught.value.retry_after == 7
    assert "Too Many Requests: retry after 7" in caught.value.message
    await bot.send_message(alice.id, "два")
    assert (fault.fired, fault.remaining) == (1, 0)
    assert fake.sent_texts(alice.id) == ["два"]


async def test_server_errors_drops_and_timeouts(
    fake: FakeTelegram, bot: Bot, alice: FakeUser
) -> None:
    await fake.start_bot(alice)
    fake.inject("500")
    with pytest.raises(TelegramServerError, match="Internal Server Error"):
        await bot.send_message(alice.id, "a")
    fake.inject("502")
    with pytest.raises(TelegramServerError, match="Bad Gateway"):
        await bot.send_message(alice.id, "b")
    fake.inject("502_html")
    with pytest.raises(ClientDecodeError):
        await bot.send_message(alice.id, "c")
    fake.inject("drop")
    with pytest.raises(TelegramNetworkError):
        await bot.send_message(alice.id, "d")
    assert fake.sent_texts(alice.id) == []
    # Dropped after the action: sent, but the bot cannot know.
    fake.inject("drop", after=True)
    with pytest.raises(TelegramNetworkError):
        await bot.send_message(alice.id, "e")
    assert fake.sent_texts(alice.id) == ["e"]
    impatient = make_bot(fake, timeout=0.3)
    try:
        fake.inject("timeout", method="sendMessage", chat_id=alice.id, after=True)
        with pytest.raises(TelegramNetworkError, match="timeout"):
            await impatient.send_message(alice.id, "f")
    finally:
        await impatient.session.close()
    assert fake.sent_texts(alice.id) == ["e", "f"]
    assert fake.stats().faults == {"500": 1, "502": 1, "502_html": 1, "drop": 2, "timeout": 1}


async def test_inject_random_is_reproducible(fake: FakeTelegram, bot: Bot, alice: FakeUser) -> None:
    await fake.start_bot(alice)

    async def outcomes() -> list[bool]:
        fake.inject_random(0.4, kinds=("500",), seed=7)
        result = []
        for _ in range(25):
            try:
                await bot.send_chat_action(alice.id, "typing")
            except TelegramServerError:
                result.append(False)
            else:
                result.append(True)
        fake.clear_faults()
        return result

    first, second = await outcomes(), await outcomes()
    assert first == second and 5 <= first.count(False) <= 20


# ------------------------------------------------------------- rate limits


async def test_flood_limits_enforced_and_reported(
    fake: FakeTelegram, bot: Bot, alice: FakeUser
) -> None:
    clock = FakeClock()
    fake.clock = clock
    fake.add_group(GROUP_ID, "Пики", members=[alice], admins=[alice])
    await fake.start_bot(alice)
    fake.enforce_limits = True
    for index in range(20):
        clock.advance(1.0)
        await bot.send_message(GROUP_ID, f"{index}")
    with pytest.raises(TelegramRetryAfter) as caught:
        await bot.send_message(GROUP_ID, "лишнее")
    assert caught.value.retry_after == 41  # the oldest of the 20 leaves the window then
    clock.advance(41)
    await bot.send_message(GROUP_ID, "дождался")

    for text in ("a", "b", "c"):  # a short burst in private is fine
        await bot.send_message(alice.id, text)
    with pytest.raises(TelegramRetryAfter) as caught:
        await bot.send_message(alice.id, "d")
    assert caught.value.retry_after == 1
    clock.advance(1)
    await bot.send_message(alice.id, "d")
    assert fake.limit_violations() == []

    fake.enforce_limits = False
    for index in range(5):
        await bot.send_message(alice.id, f"спам {index}")
    assert fake.limit_violations() == [
        f"chat {alice.id}: sustained more than 1.0/s at t={clock.now:.3f}"
    ]
    stats = fake.stats()
    assert stats.by_chat_method[GROUP_ID]["sendMessage"] == 22
    assert stats.errors[("sendMessage", 429)] == 2
    assert len(fake.message_times(GROUP_ID)) == 21


# ------------------------------------------------------------ forum topics

FORUM_ID = -1005550001111
# All the fake checks of an uploaded photo is its PNG/JPEG signature.
PNG = b"\x89PNG\r\n\x1a\n" + bytes(32)


def forum(fake: FakeTelegram, *users: FakeUser) -> int:
    """A forum whose first user is its creator; returns its id."""
    fake.add_group(
        FORUM_ID, "Пики: клуб", members=users, admins=users[:1], supergroup=True, forum=True
    )
    return FORUM_ID


async def test_topic_messages_carry_the_thread_and_the_implicit_reply(
    fake: FakeTelegram, bot: Bot, alice: FakeUser, bob: FakeUser
) -> None:
    with pytest.raises(ValueError, match="only a supergroup can be a forum"):
        fake.add_group(GROUP_ID, "Пики", forum=True)
    forum(fake, alice, bob)
    thread = fake.create_topic(FORUM_ID, alice, "Стол 1")
    assert fake.chat(FORUM_ID).topic(thread).name == "Стол 1"
    in_topic = await fake.send_text(bob, FORUM_ID, "/echo в теме", thread=thread)
    assert (in_topic["message_thread_id"], in_topic["is_topic_message"]) == (thread, True)
    assert in_topic["reply_to_message"]["message_id"] == thread
    general = await fake.send_text(bob, FORUM_ID, "/echo в общем")
    assert not {"message_thread_id", "is_topic_message", "reply_to_message"} & general.keys()
    # Replying to a message of a topic writes in that topic.
    answer = await fake.send_text(alice, FORUM_ID, "/echo ответ", reply_to=in_topic["message_id"])
    assert answer["message_thread_id"] == thread
    assert answer["reply_to_message"]["message_id"] == in_topic["message_id"]
    # Replies outside topics form reply threads: message_thread_id is the chain's
    # root, without is_topic_message (sending to it answers "thread not found").
    reply = await fake.send_text(alice, FORUM_ID, "/echo 1", reply_to=general["message_id"])
    again = await fake.send_text(bob, FORUM_ID, "/echo 2", reply_to=reply["message_id"])
    assert again["message_thread_id"] == general["message_id"] and "is_topic_message" not in again
    with pytest.raises(AssertionError, match="not in topic"):
        await fake.send_text(bob, FORUM_ID, "x", thread=thread, reply_to=general["message_id"])
    with pytest.raises(AssertionError, match="no topic 999"):
        await fake.send_text(bob, FORUM_ID, "x", thread=999)

    created, *messages = [u.message for u in await bot.get_updates()]
    assert created is not None and created.forum_topic_created is not None
    assert created.forum_topic_created.name == "Стол 1" and created.chat.is_forum
    assert (created.message_id, created.message_thread_id, created.is_topic_message) == (
        thread,
        thread,
        True,
    )
    assert [(m.text, m.message_thread_id, m.is_topic_message) for m in messages if m] == [
        ("/echo в теме", thread, True),
        ("/echo в общем", None, None),
        ("/echo ответ", thread, True),
        ("/echo 1", general["message_id"], None),
        ("/echo 2", general["message_id"], None),
    ]
    first = messages[0]
    assert first is not None and first.reply_to_message is not None
    assert first.reply_to_message.forum_topic_created is not None
    texts = [
        m.text for m in fake.chat_messages(FORUM_ID, include_user_messages=True, thread=thread)
    ]
    assert texts == ["", "/echo в теме", "/echo ответ"]


async def test_bot_sends_into_topics_and_replies_find_their_topic(
    fake: FakeTelegram, bot: Bot, alice: FakeUser, bob: FakeUser
) -> None:
    forum(fake, alice, bob)
    thread = fake.create_topic(FORUM_ID, bob, "Стол 2")
    other = fake.create_topic(FORUM_ID, bob, "Стол 3")
    sent = await bot.send_message(FORUM_ID, "раздача", message_thread_id=thread)
    assert (sent.message_thread_id, sent.is_topic_message) == (thread, True)
    assert sent.reply_to_message is not None and sent.reply_to_message.message_id == thread
    photo = await bot.send_photo(
        FORUM_ID,
        BufferedInputFile(PNG, "table.png"),
        caption="стол",
        message_thread_id=other,
    )
    assert photo.message_thread_id == other
    assert fake.sent_texts(FORUM_ID, thread=thread) == ["раздача"]
    assert [m.message_id for m in fake.chat_messages(FORUM_ID, thread=other)] == [photo.message_id]
    assert fake.last_message(FORUM_ID, thread="general") is None
    assert fake.message(FORUM_ID, sent.message_id).thread_id == thread

    # No message_thread_id: the reply's topic, as Telegram infers it.
    question = await fake.send_text(alice, FORUM_ID, "ход?", thread=other)
    answer = await bot.send_message(
        FORUM_ID, "ваш ход", reply_parameters=ReplyParameters(message_id=question["message_id"])
    )
    assert (answer.message_thread_id, answer.reply_to_message and answer.reply_to_message.text) == (
        other,
        "ход?",
    )
    in_general = await bot.send_message(FORUM_ID, "всем")
    assert in_general.message_thread_id is None and in_general.reply_to_message is None
    assert fake.last_message(FORUM_ID, thread="general") is not None

    # General (1), unknown ids and reply-thread roots are no topics.
    root = await fake.send_text(alice, FORUM_ID, "корень")
    reply = await fake.send_text(bob, FORUM_ID, "ответ", reply_to=root["message_id"])
    for bad in (1, 999, reply["message_thread_id"]):
        with pytest.raises(TelegramBadRequest) as caught:
            await bot.send_message(FORUM_ID, "куда?", message_thread_id=bad)
        assert caught.value.message == tg.THREAD_NOT_FOUND
    # Outside forums message_thread_id is ignored.
    fake.add_group(GROUP_ID, "Пики", members=[alice], admins=[alice])
    plain = await bot.send_message(GROUP_ID, "тут тем нет", message_thread_id=42)
    assert plain.message_thread_id is None


async def test_closed_and_deleted_topics(
    fake: FakeTelegram, bot: Bot, alice: FakeUser, bob: FakeUser
) -> None:
    forum(fake, alice, bob)
    thread = fake.create_topic(FORUM_ID, bob, "Стол 4")
    board = await bot.send_message(FORUM_ID, "стол", message_thread_id=thread)
    question = await fake.send_text(bob, FORUM_ID, "/echo", thread=thread)
    closed = fake.close_topic(FORUM_ID, thread, by=alice)
    assert closed["forum_topic_closed"] == {} and closed["message_thread_id"] == thread
    assert fake.chat(FORUM_ID).topic(thread).closed
    for params in (
        {"message_thread_id": thread},
        {"reply_parameters": ReplyParameters(message_id=question["message_id"])},
    ):
        with pytest.raises(TelegramBadRequest) as caught:
            await bot.send_message(FORUM_ID, "нельзя", **params)  # type: ignore[arg-type]
        assert caught.value.message == tg.TOPIC_CLOSED
    # The bot may still edit its own messages there.
    await bot.edit_message_text("стол закрыт", chat_id=FORUM_ID, message_id=board.message_id)
    with pytest.raises(AssertionError, match="closed"):
        await fake.send_text(bob, FORUM_ID, "пусти", thread=thread)
    await fake.send_text(alice, FORUM_ID, "админам можно", thread=thread)
    reopened = fake.reopen_topic(FORUM_ID, thread, by=bob)  # bob created it
    assert "forum_topic_reopened" in reopened
    await bot.send_message(FORUM_ID, "снова", message_thread_id=thread)

    updates = await bot.get_updates()
    service = [u.message for u in updates if u.message and u.message.message_thread_id]
    assert [
        (
            m.forum_topic_created is not None,
            isinstance(m.forum_topic_closed, ForumTopicClosed),
            isinstance(m.forum_topic_reopened, ForumTopicReopened),
        )
        for m in service
        if m.text is None
    ] == [(True, False, False), (False, True, False), (False, False, True)]

    pending = fake.updates_pending()
    fake.delete_topic(FORUM_ID, thread)
    assert fake.updates_pending() == pending  # Telegram tells the bot nothing
    assert fake.message(FORUM_ID, board.message_id).deleted
    assert fake.chat_messages(FORUM_ID, thread=thread, include_user_messages=True) == []
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.edit_message_text("x", chat_id=FORUM_ID, message_id=board.message_id)
    assert caught.value.message == tg.EDIT_NOT_FOUND
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.send_message(FORUM_ID, "x", message_thread_id=thread)
    assert caught.value.message == tg.THREAD_NOT_FOUND
    gone = ReplyParameters(message_id=question["message_id"])
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.send_message(FORUM_ID, "x", reply_parameters=gone)
    assert caught.value.message == tg.REPLY_NOT_FOUND
    gone = ReplyParameters(message_id=question["message_id"], allow_sending_without_reply=True)
    fallback = await bot.send_message(FORUM_ID, "в общий", reply_parameters=gone)
    assert fallback.message_thread_id is None and fallback.reply_to_message is None
    with pytest.raises(AssertionError, match="no topic"):
        fake.close_topic(FORUM_ID, thread, by=alice)


# ------------------------------------------------- anonymous admins, channels


async def test_anonymous_admin_and_channel_posts(
    fake: FakeTelegram, bot: Bot, alice: FakeUser, bob: FakeUser
) -> None:
    forum(fake, alice, bob)
    thread = fake.create_topic(FORUM_ID, alice, "Стол 5")
    anonymous = await fake.send_as_group(alice, FORUM_ID, "/echo аноним", author_signature="Крупье")
    update = Update.model_validate({"update_id": 1, "message": anonymous})
    message = update.message
    assert message is not None and message.from_user is not None and message.sender_chat
    assert (message.from_user.id, message.from_user.username) == (
        1087968824,
        "GroupAnonymousBot",
    )
    assert (message.sender_chat.id, message.sender_chat.type) == (FORUM_ID, "supergroup")
    assert message.author_signature == "Крупье"
    await fake.send_as_group(alice, FORUM_ID, "просто так", thread=thread)  # privacy mode
    with pytest.raises(AssertionError, match="not an admin"):
        await fake.send_as_group(bob, FORUM_ID, "/echo")
    fake.add_group(GROUP_ID, "Пики", members=[alice], admins=[alice])
    with pytest.raises(AssertionError, match="not a supergroup"):
        await fake.send_as_group(alice, GROUP_ID, "/echo")

    post = await fake.send_as_channel(
        -1009876543210, "Канал", FORUM_ID, "/echo канал", thread=thread
    )
    channel_message = Update.model_validate({"update_id": 2, "message": post}).message
    assert channel_message is not None and channel_message.from_user is not None
    assert (channel_message.from_user.id, channel_message.from_user.username) == (
        136817688,
        "Channel_Bot",
    )
    assert channel_message.sender_chat is not None
    assert (channel_message.sender_chat.id, channel_message.sender_chat.type) == (
        -1009876543210,
        "channel",
    )
    assert channel_message.message_thread_id == thread

    updates = await bot.get_updates()
    assert [u.message.text for u in updates if u.message] == [
        None,  # forum_topic_created
        "/echo аноним",
        "/echo канал",
    ]
    assert fake.chat_messages(FORUM_ID) == []  # none of them is the bot's
    for service_bot in (1087968824, 136817688):
        member = await bot.get_chat_member(FORUM_ID, service_bot)
        assert isinstance(member, ChatMemberLeft) and member.user.id == service_bot
    with pytest.raises(TelegramBadRequest) as caught:
        await bot.edit_message_text("x", chat_id=FORUM_ID, message_id=anonymous["message_id"])
    assert caught.value.message == tg.CANT_EDIT


# ------------------------------------------------ batches and migration order


async def test_hold_updates_delivers_one_batch(
    fake: FakeTelegram, bot: Bot, alice: FakeUser, bob: FakeUser
) -> None:
    fake.add_group(GROUP_ID, "Пики", members=[alice, bob], admins=[alice])
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await fake.wait_for(lambda: any(not c.done for c in fake.calls_to("getUpdates")))
    with fake.hold_updates():
        await fake.send_text(alice, GROUP_ID, "/newgame")
        await asyncio.sleep(0.1)  # a long poll would have answered by now
        assert not poll.done()
        await fake.send_text(bob, GROUP_ID, "/newgame")
    updates = await asyncio.wait_for(poll, 2)
    assert [u.message.from_user.id for u in updates if u.message and u.message.from_user] == [
        alice.id,
        bob.id,
    ]


async def test_migration_refused_before_the_service_messages_arrive(
    fake: FakeTelegram, bot: Bot, alice: FakeUser
) -> None:
    fake.add_group(GROUP_ID, "Пики", members=[alice], admins=[alice])
    new_id = fake.migrate_group(GROUP_ID, announce="after_refusal")
    assert fake.updates_pending() == 0
    assert [m.service for m in fake.chat_messages(new_id, include_user_messages=True)] == [
        {"migrate_from_chat_id": GROUP_ID}
    ]
    with pytest.raises(TelegramMigrateToChat):
        await bot.send_message(GROUP_ID, "старый чат")
    updates = await bot.get_updates()
    assert [(u.message.chat.id, u.message.migrate_to_chat_id) for u in updates if u.message] == [
        (GROUP_ID, new_id),
        (new_id, None),
    ]
    other = fake.add_group(-4002, "Пики 2", members=[alice], admins=[alice])
    fake.migrate_group(other.id, announce="after_refusal")
    fake.announce_migration(other.id)
    assert fake.updates_pending() == len(updates) + 2  # not confirmed yet: still queued
