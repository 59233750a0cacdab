"""Thin handlers: parse the update, call a service, answer. Nothing else."""

from aiogram import Router

from bot.handlers import buttons, errors, group, lookups, private


def routers() -> list[Router]:
    return [errors.build(), private.build(), group.build(), lookups.build(), buttons.build()]
