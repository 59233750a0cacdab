"""Webhook mode: Telegram POSTs the updates (the fake does, as a local Bot API
server would), the bot answers each one after handling it, and nobody without
the secret can post an update."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest
from fake_telegram import FakeTelegram
from fake_telegram.webapp import free_port
from harness import InProcessBot, MakeBot, settings_for
from test_table_flow import play_solo_game

from bot.config import ConfigError, Settings, load_settings, webhook_secret

GROUP = -1007777


def webhook_settings(fake: FakeTelegram, tmp_path: Path, port: int) -> Settings:
    return settings_for(
        fake,
        tmp_path / "spades.db",
        webhook_url=f"http://127.0.0.1:{port}/telegram/updates",
        webhook_listen="127.0.0.1",
        webhook_port=port,
    )


async def started_webhook_bot(
    fake: FakeTelegram, tmp_path: Path, make_bot: MakeBot
) -> tuple[Settings, InProcessBot]:
    settings = webhook_settings(fake, tmp_path, free_port())
    return settings, await make_bot(settings)


def polls(fake: FakeTelegram, after: int = 0) -> int:
    return sum(1 for c in fake.calls[after:] if c.method == "getUpdates")


async def test_a_whole_game_over_the_webhook(
    fake: FakeTelegram, tmp_path: Path, make_bot: MakeBot
) -> None:
    port = free_port()
    settings = webhook_settings(fake, tmp_path, port)
    await make_bot(settings)
    assert fake.world.webhook == {
        "url": f"http://127.0.0.1:{port}/telegram/updates",
        "secret_token": webhook_secret(settings),
    }
    first = fake.world.next_update_id
    await play_solo_game(fake)
    await fake.wait_idle()
    queued = fake.world.next_update_id - first - len(fake.world.filtered_updates)
    assert queued >= 10
    assert fake.webhook_deliveries == queued  # each update once, none left
    assert not fake.world.updates
    assert fake.webhook_failures == 0
    assert polls(fake) == 0


async def test_posts_without_the_secret_are_refused(
    fake: FakeTelegram, tmp_path: Path, make_bot: MakeBot
) -> None:
    port = free_port()
    await make_bot(webhook_settings(fake, tmp_path, port))
    user = fake.add_user(501, "Чужой")
    fake.add_group(GROUP, "Стол", members=[user], admins=[user])
    update = {
        "update_id": 1,
        "message": {
            "message_id": 1,
            "date": 1_800_000_000,
            "chat": {"id": GROUP, "type": "group", "title": "Стол"},
            "from": {"id": user.id, "is_bot": False, "first_name": user.first_name},
            "text": "/newgame",
            "entities": [{"type": "bot_command", "offset": 0, "length": 8}],
        },
    }
    url = f"http://127.0.0.1:{port}/telegram/updates"
    async with aiohttp.ClientSession() as http:
        for headers in ({}, {"X-Telegram-Bot-Api-Secret-Token": "guess"}):
            async with http.post(url, json=update, headers=headers) as response:
                assert response.status == 401
    await fake.wait_idle()
    assert fake.chat_messages(GROUP) == []
    # The same command from Telegram itself is served.
    await fake.send_text(user, GROUP, "/newgame")
    await fake.wait_for(lambda: fake.chat_messages(GROUP))


async def test_updates_wait_for_a_stopped_bot_then_polling_takes_over(
    fake: FakeTelegram, tmp_path: Path, make_bot: MakeBot
) -> None:
    user = fake.add_user(502, "Терпеливый")
    settings, bot = await started_webhook_bot(fake, tmp_path, make_bot)
    await fake.start_bot(user)
    await fake.wait_for(lambda: fake.sent_texts(user.id))
    greeted = len(fake.sent_texts(user.id))
    await bot.stop()

    # The webhook stays set while the bot is down: Telegram keeps the update
    # and tries again until somebody answers.
    await fake.send_text(user, user.id, "/help")
    await fake.wait_for(lambda: fake.webhook_failures >= 2)
    assert len(fake.world.updates) == 1
    assert len(fake.sent_texts(user.id)) == greeted

    # Started with long polling, the bot removes the webhook and gets the update.
    after = len(fake.calls)
    await make_bot()
    assert fake.world.webhook is None
    assert any(c.method == "deleteWebhook" for c in fake.calls[after:])
    await fake.wait_for(lambda: len(fake.sent_texts(user.id)) > greeted)
    assert not fake.world.updates


async def test_a_restarted_webhook_bot_gets_what_came_meanwhile(
    fake: FakeTelegram, tmp_path: Path, make_bot: MakeBot
) -> None:
    user = fake.add_user(503, "Вернувшийся")
    settings, bot = await started_webhook_bot(fake, tmp_path, make_bot)
    await bot.stop()
    await fake.start_bot(user)
    await fake.wait_for(lambda: fake.webhook_failures >= 1)
    assert fake.sent_texts(user.id) == []
    await make_bot(settings)
    await fake.wait_for(lambda: fake.sent_texts(user.id))
    await fake.wait_idle()
    assert fake.webhook_deliveries == 1
    assert not fake.world.updates


def test_webhook_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="WEBHOOK_URL"):
        load_settings(env_file=None, bot_token="1:x", webhook_url="telegram.example/hook")
    with pytest.raises(ConfigError, match="WEBHOOK_SECRET") as err:
        load_settings(env_file=None, bot_token="1:x", webhook_secret="has spaces")
    assert "has spaces" not in str(err.value)
    s = load_settings(env_file=None, bot_token="1:x", webhook_url="https://t.example/hook")
    derived = webhook_secret(s)
    assert derived == webhook_secret(s) and 1 <= len(derived) <= 256
    assert derived != webhook_secret(load_settings(env_file=None, bot_token="2:y"))
    # An empty line in .env means unset: long polling.
    assert load_settings(env_file=None, bot_token="1:x", webhook_url="").webhook_url is None
