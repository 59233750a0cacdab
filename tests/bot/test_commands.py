"""The command menus are the handlers' own list (bot/commands.py), in every
scope and language; a menu entry without a command to answer it is refused."""

from __future__ import annotations

import json

import pytest
from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message
from fake_telegram import FakeTelegram
from harness import InProcessBot

from bot.commands import GROUP, PRIVATE, menu, menu_commands
from bot.handlers import routers
from bot.i18n import SUPPORTED


async def test_the_bot_sets_the_menus_its_handlers_declare(
    fake: FakeTelegram, running_bot: InProcessBot
) -> None:
    app = running_bot.app
    await fake.wait_for(lambda: len(fake.world.commands) == 4, message="two scopes, two languages")
    listed = menu_commands(routers())
    for scope in (GROUP, PRIVATE):
        key = json.dumps({"type": f"all_{scope}_chats"}, sort_keys=True)
        for lang in SUPPORTED:
            code = "" if lang == app.settings.default_lang else lang
            got = [(c["command"], c["description"]) for c in fake.world.commands[(key, code)]]
            names = list(dict.fromkeys(c.name for c in listed if scope in c.scopes))
            assert got == [(n, app.texts(lang, f"cmd-{n}")) for n in names]
    # Answered but not offered: /newgame in a private chat says where to type it.
    private = {
        c["command"] for c in fake.world.commands[(json.dumps({"type": "all_private_chats"}), "")]
    }
    assert "newgame" not in private and "review" in private


async def on_anything(message: Message) -> None:
    """A handler for the checks below; never called."""


def test_a_menu_entry_needs_a_command_to_answer_it() -> None:
    router = Router()
    router.message.register(on_anything, flags=menu(GROUP))
    with pytest.raises(ValueError, match="without a Command"):
        menu_commands([router])
    with pytest.raises(ValueError, match="needs a scope"):
        menu()


def test_a_command_answered_in_both_chats_is_in_both_menus() -> None:
    group, private = Router(), Router()
    group.message.register(on_anything, Command("help"), flags=menu(GROUP))
    private.message.register(on_anything, Command("help", "quiet"), flags=menu(PRIVATE))
    parent = Router()
    parent.include_routers(group, private)
    assert [(c.name, set(c.scopes)) for c in menu_commands([parent])] == [
        ("help", {GROUP}),
        ("help", {PRIVATE}),
        ("quiet", {PRIVATE}),
    ]
