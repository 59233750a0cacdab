"""The outbox's HTTP transport and its sorting of Telegram's answers.

The mapping is checked on answers as Telegram words them (a table of
status/body pairs), then end to end over HTTP against the fake Bot API, whose
faults (429, 5xx, nginx's HTML page, a dropped connection, a hung call) and
refusals (blocked user, upgraded group, lost message) are Telegram's own.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import aiohttp
import pytest
from aiogram import Bot
from aiogram.client.session.base import BaseSession
from fake_telegram import FakeTelegram, errors

from bot.outbox.errors import (
    ApiError,
    BadRequest,
    ChatMigrated,
    FloodWait,
    Forbidden,
    TooLarge,
    Transient,
    Unauthorized,
    is_delete_target_gone,
    is_edit_target_gone,
    is_not_modified,
    is_unreachable,
    read_answer,
)
from bot.outbox.transport import Transport

GROUP = -4001
ALICE = 1001


def failure(status: int, description: str, **parameters: Any) -> tuple[int, str]:
    answer: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
    if parameters:
        answer["parameters"] = parameters
    return status, json.dumps(answer)


# ------------------------------------------------------------- the mapping


def test_a_success_gives_its_result() -> None:
    message = {"message_id": 7, "chat": {"id": GROUP}, "text": "hi"}
    assert read_answer(200, json.dumps({"ok": True, "result": message})) == message
    assert read_answer(200, '{"ok":true,"result":true}') is True


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        (failure(400, errors.CHAT_NOT_FOUND), BadRequest),
        (failure(400, errors.PARSE_ENTITIES + "unclosed tag"), BadRequest),
        (failure(401, errors.UNAUTHORIZED), Unauthorized),
        (failure(403, errors.BLOCKED_BY_USER), Forbidden),
        (failure(403, errors.KICKED_FROM_SUPERGROUP), Forbidden),
        (failure(413, "Request Entity Too Large"), TooLarge),
        (failure(404, errors.METHOD_NOT_FOUND), Transient),  # a wrong API URL: retried
        (failure(409, errors.WEBHOOK_ACTIVE), Transient),
        (failure(500, errors.INTERNAL_SERVER_ERROR), Transient),
        (failure(502, errors.BAD_GATEWAY), Transient),
        (failure(503, "Service Unavailable: restart"), Transient),
        # 429 without retry_after (a proxy's own limit): back off, no flood pause.
        (failure(429, "Too Many Requests"), Transient),
        (failure(429, "Too Many Requests", retry_after=True), Transient),
        (failure(429, "Too Many Requests", retry_after=0), Transient),
        ((502, errors.NGINX_502_HTML), Transient),
        ((200, "<html>captive portal</html>"), Transient),
        ((200, "[1, 2]"), Transient),
        ((200, '{"ok": false}'), Transient),
        ((500, ""), Transient),
    ],
)
def test_failures_are_sorted_by_kind(answer: tuple[int, str], kind: type[ApiError]) -> None:
    status, content = answer
    with pytest.raises(ApiError) as caught:
        read_answer(status, content)
    assert type(caught.value) is kind
    assert caught.value.description


def test_the_description_is_telegrams_or_names_the_status() -> None:
    with pytest.raises(Forbidden) as forbidden:
        read_answer(*failure(403, errors.BLOCKED_BY_USER))
    assert forbidden.value.description == errors.BLOCKED_BY_USER
    with pytest.raises(Transient) as html:
        read_answer(502, errors.NGINX_502_HTML)
    assert html.value.description == "HTTP 502: the answer is not JSON"
    with pytest.raises(Transient) as bare:
        read_answer(200, '{"ok": false}')
    assert bare.value.description == "HTTP 200"


def test_429_carries_retry_after() -> None:
    with pytest.raises(FloodWait) as caught:
        read_answer(*failure(429, "Too Many Requests: retry after 7", retry_after=7))
    assert caught.value.retry_after == 7.0
    assert caught.value.description == "Too Many Requests: retry after 7"


def test_migrate_to_chat_id_names_the_new_chat() -> None:
    new = -1001234567890
    with pytest.raises(ChatMigrated) as caught:
        read_answer(*failure(400, errors.UPGRADED_TO_SUPERGROUP, migrate_to_chat_id=new))
    assert caught.value.new_chat_id == new


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
    assert is_not_modified(description) is not_modified
    assert is_edit_target_gone(description) is edit_gone
    assert is_delete_target_gone(description) is delete_gone
    assert is_unreachable(description) is unreachable


# ------------------------------------------------------------ over HTTP


@pytest.fixture
def fake(fake: FakeTelegram) -> FakeTelegram:
    """The shared fake with Alice, who has started the bot, in a group."""
    alice = fake.add_user(ALICE, "Алиса")
    alice.started_bot = True
    fake.add_group(GROUP, "Стол", members=[alice])
    return fake


async def send(transport: Transport, chat_id: int, text: str = "hello") -> Any:
    return await transport.call("sendMessage", {"chat_id": chat_id, "text": text})


async def test_sends_json_and_returns_the_message(fake: FakeTelegram, bot: Bot) -> None:
    transport = Transport.for_bot(bot, 5)
    result = await transport.call(
        "sendMessage",
        {
            "chat_id": GROUP,
            "text": "<b>Стол</b> открыт",
            "parse_mode": "HTML",
            "reply_markup": {"inline_keyboard": [[{"text": "Сесть", "callback_data": "s:1"}]]},
        },
    )
    (message,) = fake.chat_messages(GROUP)
    assert result["message_id"] == message.message_id
    assert message.text == "Стол открыт"
    assert [b.value for b in message.buttons()] == ["s:1"]


@pytest.mark.parametrize("kind", ["500", "502", "502_html", "drop"])
async def test_server_and_network_failures_are_transient(
    fake: FakeTelegram, bot: Bot, kind: str
) -> None:
    fake.inject(kind, method="sendMessage")  # type: ignore[arg-type]
    transport = Transport.for_bot(bot, 5)
    with pytest.raises(Transient):
        await send(transport, GROUP)
    await send(transport, GROUP, "again")  # the same transport goes on working
    assert fake.sent_texts(GROUP) == ["again"]


async def test_a_hung_call_times_out(fake: FakeTelegram, bot: Bot) -> None:
    fake.inject("timeout", method="sendMessage")
    transport = Transport.for_bot(bot, 1)
    with pytest.raises(Transient) as caught:
        await send(transport, GROUP)
    assert caught.value.description == "request timeout"


async def test_flood_wait_over_http(fake: FakeTelegram, bot: Bot) -> None:
    fake.inject("429", method="sendMessage", retry_after=3)
    with pytest.raises(FloodWait) as caught:
        await send(Transport.for_bot(bot, 5), GROUP)
    assert caught.value.retry_after == 3.0


async def test_refusals_over_http(fake: FakeTelegram, bot: Bot) -> None:
    transport = Transport.for_bot(bot, 5)
    with pytest.raises(BadRequest) as lost:
        await transport.call("editMessageText", {"chat_id": GROUP, "message_id": 999, "text": "x"})
    assert is_edit_target_gone(lost.value.description)

    fake.block_bot(fake.users[ALICE])
    with pytest.raises(Forbidden) as blocked:
        await send(transport, ALICE)
    assert blocked.value.description == errors.BLOCKED_BY_USER

    new = fake.migrate_group(GROUP)
    with pytest.raises(ChatMigrated) as moved:
        await send(transport, GROUP)
    assert moved.value.new_chat_id == new


async def test_unreachable_server_is_transient_and_the_token_stays_out_of_it() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token = "123456:SECRET-token"
    async with aiohttp.ClientSession() as client:

        async def session() -> aiohttp.ClientSession:
            return client

        transport = Transport(
            session, lambda method: f"http://127.0.0.1:{port}/bot{token}/{method}", 2, secret=token
        )
        with pytest.raises(Transient) as caught:
            await send(transport, GROUP)
    assert "SECRET" not in caught.value.description
    assert caught.value.description.startswith("Client")


def test_needs_an_aiohttp_session() -> None:
    """The outbox posts through aiohttp; another kind of session is refused at once."""

    class NotAiohttp(BaseSession):
        async def close(self) -> None:
            pass

        async def make_request(self, bot: Bot, method: Any, timeout: int | None = None) -> Any:
            raise NotImplementedError

        async def stream_content(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    with pytest.raises(TypeError):
        Transport.for_bot(Bot("1:test", session=NotAiohttp()))
