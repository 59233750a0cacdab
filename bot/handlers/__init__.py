"""Thin handlers: parse the update, call a service, answer. Nothing else."""

from aiogram import Router

from bot.handlers import buttons, club, errors, group, lookups, membership, private, social, teach


def routers() -> list[Router]:
    return [
        errors.build(),
        membership.build(),
        private.build(),
        group.build(),
        lookups.build(),
        club.build(),
        teach.build(),  # before buttons: their last handler refuses unknown data
        social.build(),  # so is this one
        buttons.build(),
    ]
