"""Thin handlers: parse the update, call a service, answer. Nothing else.

A command offered in the menus is registered with its scopes,
``flags=menu(GROUP, PRIVATE)`` (:mod:`bot.commands`): the menus the bot sets
and the README's table of commands come from these registrations.
"""

from aiogram import Router

from bot.handlers import (
    buttons,
    claims,
    club,
    day,
    errors,
    group,
    inline,
    lookups,
    membership,
    private,
    record,
    social,
    teach,
)


def routers() -> list[Router]:
    return [
        errors.build(),
        membership.build(),
        day.build(),  # before private: its Start handles the other deep links
        private.build(),
        group.build(),
        lookups.build(),
        inline.build(),
        club.build(),
        record.build(),  # before buttons, like teach
        teach.build(),  # before buttons: their last handler refuses unknown data
        social.build(),  # so is this one
        claims.build(),  # so are these
        buttons.build(),
    ]
