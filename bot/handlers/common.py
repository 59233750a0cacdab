"""Small helpers the handlers share: who wrote, where, and answering them."""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import CallbackQuery, Message, User

from bot.i18n import clean_name, pick_locale
from bot.model import Place
from bot.outbox import Markup
from bot.services.replies import Replies
from bot.services.tables import Person

# Telegram's stand-ins for a message that is not a person's own: an admin
# posting anonymously (as the group) and a post on behalf of a channel.
GROUP_ANONYMOUS_BOT = 1087968824
CHANNEL_BOT = 136817688


def person(user: User, default_lang: str = "ru") -> Person:
    """The person behind a Telegram user, as the bot stores and shows them:
    their name without direction controls (:func:`bot.i18n.clean_name`)."""
    return Person(
        user_id=user.id,
        first_name=clean_name(user.first_name),
        username=user.username,
        lang=pick_locale(user.language_code, default_lang),
    )


def author(message: Message) -> Person | None:
    """The person who wrote ``message``; None when it was written on behalf of
    the group (an anonymous admin) or of a channel: such a sender is never
    stored, seated or made a table's creator."""
    user = message.from_user
    if message.sender_chat is not None or user is None or user.is_bot:
        return None
    return person(user)


def anonymous_admin(message: Message) -> bool:
    """Written by an admin of this very group, anonymously (as the group)."""
    return message.sender_chat is not None and message.sender_chat.id == message.chat.id


def asker_id(message: Message) -> int:
    """Whose question this is, for keeping their answers apart: the person,
    or the group or channel they wrote as."""
    if message.sender_chat is not None:
        return message.sender_chat.id
    return message.from_user.id if message.from_user else 0


def thread_of(message: Message) -> int:
    """The forum topic ``message`` was written in; 0 for General or no forum.
    (Outside forums ``message_thread_id`` names a reply thread: not a place.)"""
    if message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return 0


def place(message: Message) -> Place:
    """The group and topic of a command, with the topic's name when Telegram
    sent it (every message in a topic implicitly replies to its first one)."""
    thread = thread_of(message)
    topic = ""
    start = message.reply_to_message
    if thread and start is not None and start.forum_topic_created is not None:
        topic = start.forum_topic_created.name
    return Place(message.chat.id, thread, topic)


async def is_admin(bot: Bot, chat_id: int, user_id: int) -> bool:
    """Group admins may cancel a table they did not create."""
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except Exception:
        return False
    return member.status in ("creator", "administrator")


def subject(message: Message) -> User | None:
    """Whom a lookup is about: the person replied to, else the author (None:
    the author is the group or a channel). Only a reply to a person's own
    message counts: in a forum topic every message also replies to the
    topic's first message, which says nothing about whom it asks of."""
    reply = message.reply_to_message
    if (
        reply is not None
        and reply.forum_topic_created is None
        and not (message.is_topic_message and reply.message_id == message.message_thread_id)
        and reply.sender_chat is None
        and reply.from_user is not None
        and not reply.from_user.is_bot
    ):
        return reply.from_user
    if message.sender_chat is not None or message.from_user is None or message.from_user.is_bot:
        return None
    return message.from_user


def pressed_in(cb: CallbackQuery) -> int:
    """The chat of the pressed message (0: none): the services hold a table's
    buttons to its own group, since their data can be forged from any chat."""
    return cb.message.chat.id if cb.message is not None else 0


def in_own_chat(cb: CallbackQuery) -> bool:
    """A filter for buttons that only ever sit in the presser's private chat
    with the bot (moves, the hand, forgetting oneself): the same data pressed
    anywhere else is forged."""
    return cb.message is not None and cb.message.chat.id == cb.from_user.id


async def answer(
    message: Message,
    replies: Replies,
    text: str,
    markup: Markup = None,
    *,
    passing: bool = False,
    once: str | None = None,
) -> None:
    """Answer a command through the outbox, paced like every other message;
    in a group as a reply, in the command's topic, so it is clear whose
    command it answers. ``passing``: a lookup or a refusal, deleted from a
    group after a while. ``once``: the kind of question (``score``): asked
    again by the same person, the new answer replaces the earlier one."""
    private = message.chat.type == "private"
    to = None if private else message.message_id
    again = None if private or once is None else f"{asker_id(message)}:{once}"
    await replies.reply(
        message.chat.id,
        to,
        text,
        markup,
        passing=passing,
        thread=thread_of(message),
        once=again,
    )
