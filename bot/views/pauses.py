"""A game waiting for its group, in words: why it waits (told to each
player in private, since the group may not be written to) and that it goes
on (in the group and in private)."""

from __future__ import annotations

from bot.i18n import esc
from bot.model import LiveTable, Pause
from bot.views.common import Tr


def paused_private(tr: Tr, table: LiveTable) -> str:
    """Why the game waits (``table.paused``): the bot removed, the topic
    closed, or the topic deleted."""
    group = esc(table.chat_title)
    if table.paused == Pause.TOPIC_DELETED:
        return tr("paused-topic-deleted-private", group=group)
    if table.paused == Pause.TOPIC_CLOSED:
        return tr("paused-topic-private", group=group)
    return tr("paused-private", group=group)


def resumed_private(tr: Tr, table: LiveTable) -> str:
    """The game goes on."""
    return tr("resumed-private", group=esc(table.chat_title))


def resumed_note(tr: Tr, topic: bool) -> str:
    """The group's line when its game goes on: the bot is back, or
    (``topic``) the table's topic is open again."""
    return tr("resumed-topic-note" if topic else "resumed-note")
