"""The command menus, from one list: the handlers' own registrations.

A command that belongs in a menu is registered with the scopes of its menu
in the handler's flags::

    router.message.register(on_history, Command("history"), flags=menu(GROUP))

aiogram keeps the handler's ``Command`` filters in the same flags
(``"commands"``). :func:`menu_commands` reads both from the routers, in the
order the routers and their handlers are registered; that list is what the
bot sets as the menu of each scope in each language (:func:`set_menus`, the
descriptions are ``cmd-<name>`` in locales/), and what tests/test_texts.py
checks the README's table of commands against. A new command is therefore
its handler, its ``cmd-`` lines and its README row. A handler registered
without the flag (``/newgame`` in a private chat, which only says where to
type it) answers without being offered.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from aiogram import Bot, Router
from aiogram.dispatcher.flags import get_flag
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
)

from bot.i18n import SUPPORTED, Texts
from bot.startup import until_done

Scope = Literal["group", "private"]
GROUP: Scope = "group"
PRIVATE: Scope = "private"
_MENU = "menu"  # the handler flag


def menu(*scopes: Scope) -> dict[str, Any]:
    """A handler's flags that put its commands in the menus of ``scopes``."""
    if not scopes:
        raise ValueError("a command in the menu needs a scope: GROUP, PRIVATE or both")
    return {_MENU: frozenset(scopes)}


@dataclass(frozen=True, slots=True)
class MenuCommand:
    """A command offered in the menus of ``scopes``."""

    name: str
    scopes: frozenset[Scope]


def menu_commands(routers: Iterable[Router]) -> list[MenuCommand]:
    """The commands in a menu, from the routers (and theirs), in the order
    they and their handlers are registered: one entry per handler and name
    (``/help`` is answered by one handler in groups and one in private)."""
    found: list[MenuCommand] = []
    for top in routers:
        for router in top.chain_tail:
            for handler in router.message.handlers:
                scopes = get_flag(handler, _MENU)
                if not scopes:
                    continue
                commands = get_flag(handler, "commands")
                if not commands:
                    raise ValueError(f"{handler.callback!r} is in the menu without a Command")
                for command in commands:
                    for name in command.commands:
                        if not isinstance(name, str):
                            raise ValueError(f"a pattern cannot be in the menu: {name!r}")
                        found.append(MenuCommand(name, scopes))
    return found


def in_scope(commands: Iterable[MenuCommand], scope: Scope) -> list[str]:
    """The names in the menu of ``scope``, in order, each once."""
    return list(dict.fromkeys(c.name for c in commands if scope in c.scopes))


def scopes_by_name(commands: Iterable[MenuCommand]) -> dict[str, frozenset[Scope]]:
    """Each command once, with every scope whose menu offers it."""
    merged: dict[str, frozenset[Scope]] = {}
    for c in commands:
        merged[c.name] = merged.get(c.name, frozenset()) | c.scopes
    return merged


async def set_menus(bot: Bot, commands: list[MenuCommand], texts: Texts, default_lang: str) -> None:
    """Set the menu of each scope in each language (the default one for
    clients in any other), each call tried until Telegram takes it."""
    for lang in SUPPORTED:
        code = None if lang == default_lang else lang
        for scope, where in (
            (BotCommandScopeAllGroupChats(), GROUP),
            (BotCommandScopeAllPrivateChats(), PRIVATE),
        ):
            items = [
                BotCommand(command=name, description=texts(lang, f"cmd-{name}"))
                for name in in_scope(commands, where)
            ]
            await until_done("setMyCommands", partial(bot.set_my_commands, items, scope, code))
