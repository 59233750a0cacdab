"""Small helpers the handlers share."""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import CallbackQuery, Message, User

from bot.i18n import pick_locale
from bot.outbox import Markup
from bot.services.replies import Replies
from bot.services.tables import Person


def person(user: User, default_lang: str = "ru") -> Person:
    return Person(
        user_id=user.id,
        first_name=user.first_name or "",
        username=user.username,
        lang=pick_locale(user.language_code, default_lang),
    )


async def is_admin(bot: Bot, chat_id: int, user_id: int) -> bool:
    """Group admins may cancel a table they did not create."""
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except Exception:
        return False
    return member.status in ("creator", "administrator")


def subject(message: Message) -> User:
    """Whom a lookup is about: the author, or the person they replied to."""
    assert message.from_user is not None
    reply = message.reply_to_message
    if reply is not None and reply.from_user is not None and not reply.from_user.is_bot:
        return reply.from_user
    return message.from_user


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
) -> None:
    """Answer a command through the outbox, paced like every other message;
    in a group as a reply, so it is clear whose command it answers.
    ``passing``: a lookup or a refusal, deleted from a group after a while."""
    to = None if message.chat.type == "private" else message.message_id
    await replies.reply(message.chat.id, to, text, markup, passing=passing)
