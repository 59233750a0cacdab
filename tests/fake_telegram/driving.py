"""Tests acting as Telegram users: creating users and groups, writing in a
chat (as oneself, as an anonymous admin, as a channel), pressing the bot's
buttons (or forging presses)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from .inline import Inline
from .memberships import Memberships
from .models import (
    ADMINS,
    PRESENT,
    FakeChat,
    FakeMessage,
    FakeUser,
    MemberStatus,
    PendingCallback,
)
from .queries import Queries
from .topics import Topics
from .world import SUPERGROUP_ID_LIMIT


class CallbackPress:
    """A button press queued as a ``callback_query`` update.

    ``await press.answer()`` waits for the bot's answerCallbackQuery and
    returns its parameters: ``text``, ``show_alert``, ``url``, ``cache_time``.
    """

    def __init__(
        self,
        fake: Queries,
        pending: PendingCallback,
        update: dict[str, Any] | None,
    ) -> None:
        self._fake = fake
        self._pending = pending
        self.update = update

    @property
    def query_id(self) -> str:
        return self._pending.query_id

    @property
    def answered(self) -> bool:
        return self._pending.answered

    async def answer(self, timeout: float = 5.0) -> dict[str, Any]:
        """The answerCallbackQuery parameters, or AssertionError if none came in time."""
        try:
            return await asyncio.wait_for(asyncio.shield(self._pending.answer), timeout)
        except TimeoutError:
            raise AssertionError(
                f"the bot did not answer callback query {self.query_id} within {timeout}s\n"
                f"{self._fake.dump_calls()}"
            ) from None


class Driving(Memberships, Topics, Inline, Queries):
    """Users and groups, messages and button presses, as a test plays them."""

    # ------------------------------------------------------------- the world

    def add_user(
        self,
        user_id: int,
        first_name: str,
        username: str | None = None,
        language_code: str | None = "ru",
        last_name: str | None = None,
    ) -> FakeUser:
        """A Telegram user; the private chat with the bot has the same id."""
        return self.world.add_user(
            FakeUser(
                id=user_id,
                first_name=first_name,
                username=username,
                language_code=language_code,
                last_name=last_name,
            )
        )

    def add_group(
        self,
        chat_id: int,
        title: str,
        members: Iterable[FakeUser] = (),
        admins: Iterable[FakeUser] = (),
        supergroup: bool = False,
        *,
        bot_status: MemberStatus = "member",
        username: str | None = None,
        forum: bool = False,
    ) -> FakeChat:
        """A group the bot is already in (no update queued): the first admin is its creator.

        Basic group ids are small negatives (-4001); supergroup ids start with
        -100 (-1001234567890).  ``bot_status="administrator"`` lifts privacy
        mode and allows pinning and deleting others' messages.  ``forum=True``
        (supergroups only) makes a forum: ``is_forum`` in its Chat, topics
        made with ``create_topic``.
        """
        chat = FakeChat(
            id=chat_id,
            type="supergroup" if supergroup else "group",
            title=title,
            username=username,
            bot_status=bot_status,
            is_forum=forum,
        )
        members = [self.world.ensure_known(user) for user in members]
        admins = [self.world.ensure_known(user) for user in admins]
        self.world.add_chat(chat)
        self.world.set_members(chat, members, admins)
        return chat

    def chat(self, chat_id: int) -> FakeChat:
        return self.world.chat(chat_id)

    # -------------------------------------------------------------- messages

    async def send_text(
        self,
        user: FakeUser,
        chat_id: int,
        text: str,
        *,
        reply_to: int | None = None,
        thread: int | None = None,
    ) -> dict[str, Any]:
        """``user`` writes ``text`` in a chat; returns the Message dict.

        The update is queued only if Telegram would deliver it (privacy mode in
        groups).  Writing in the private chat starts the bot, and un-blocks it
        if needed, as the Telegram app's "Restart" button does.

        In a forum, ``thread`` (a ``create_topic`` id) writes in that topic:
        the message carries ``message_thread_id``, ``is_topic_message`` and,
        unless it answers ``reply_to``, a ``reply_to_message`` that is the
        topic's ``forum_topic_created`` message, exactly as Telegram sends it.
        A reply to a message in a topic is written in that topic.  Without
        either the message is in General.  Only admins write in a closed topic.
        """
        self.world.ensure_known(user)
        chat = self.world.chat(chat_id)
        if chat.type == "private":
            if chat.id != user.id:
                raise AssertionError(f"user {user.id} cannot write in the private chat {chat.id}")
            if user.blocked_bot:
                self.unblock_bot(user)
            user.started_bot = True
        else:
            if chat.migrated_to is not None:
                raise AssertionError(f"group {chat.id} was migrated to {chat.migrated_to}")
            if chat.members.get(user.id) not in PRESENT:
                raise AssertionError(f"user {user.id} is not a member of {chat.id}")
        thread_id, target = self._place(
            chat, thread, reply_to, admin=chat.members.get(user.id) in ADMINS
        )
        payload = self.world.user_message(user, chat, text, reply_to=target, thread_id=thread_id)
        self._bump()
        await asyncio.sleep(0)
        return payload

    async def send_as_group(
        self,
        admin: FakeUser,
        chat_id: int,
        text: str,
        *,
        thread: int | None = None,
        reply_to: int | None = None,
        author_signature: str | None = None,
    ) -> dict[str, Any]:
        """An admin posts anonymously, on behalf of the group; returns the Message dict.

        ``from`` is @GroupAnonymousBot (1087968824), ``sender_chat`` the group
        itself, ``author_signature`` the admin's custom title if given.  Only
        supergroups have anonymous admins (turning anonymity on upgrades a
        basic group).  Delivery follows privacy mode like a user's message;
        ``thread`` and ``reply_to`` as in ``send_text``.
        """
        self.world.ensure_known(admin)
        chat = self.world.chat(chat_id)
        if chat.type != "supergroup":
            raise AssertionError(f"chat {chat_id} is not a supergroup: no anonymous admins there")
        if chat.members.get(admin.id) not in ADMINS:
            raise AssertionError(f"user {admin.id} is not an admin of {chat_id}")
        thread_id, target = self._place(chat, thread, reply_to, admin=True)
        payload = self.world.user_message(
            self.world.group_anonymous_bot,
            chat,
            text,
            reply_to=target,
            thread_id=thread_id,
            sender_chat=chat.to_api(),
            author_signature=author_signature,
        )
        self._bump()
        await asyncio.sleep(0)
        return payload

    async def send_as_channel(
        self,
        channel_id: int,
        channel_title: str,
        chat_id: int,
        text: str,
        *,
        thread: int | None = None,
        reply_to: int | None = None,
    ) -> dict[str, Any]:
        """Someone posts in a supergroup on behalf of their channel; returns the Message dict.

        ``from`` is @Channel_Bot (136817688), ``sender_chat`` the channel
        (``{"id": channel_id, "type": "channel", "title": channel_title}``;
        channel ids look like supergroup ids, -100…).  Delivery follows
        privacy mode like a user's message; ``thread`` and ``reply_to`` as in
        ``send_text`` (a channel is no admin: closed topics are shut to it).
        """
        if not (channel_id <= SUPERGROUP_ID_LIMIT and str(channel_id).startswith("-100")):
            raise AssertionError(f"channel ids look like -100xxxxxxxxxx, got {channel_id}")
        chat = self.world.chat(chat_id)
        if chat.type != "supergroup":
            raise AssertionError(f"chat {chat_id} is not a supergroup: channels cannot post there")
        thread_id, target = self._place(chat, thread, reply_to, admin=False)
        payload = self.world.user_message(
            self.world.channel_bot,
            chat,
            text,
            reply_to=target,
            thread_id=thread_id,
            sender_chat={"id": channel_id, "type": "channel", "title": channel_title},
        )
        self._bump()
        await asyncio.sleep(0)
        return payload

    def _place(
        self, chat: FakeChat, thread: int | None, reply_to: int | None, *, admin: bool
    ) -> tuple[int | None, FakeMessage | None]:
        """``(topic, replied message)`` of a message written in ``chat``, or
        AssertionError where a Telegram app would not let one write it."""
        target = None
        if reply_to is not None:
            target = chat.messages.get(reply_to)
            if target is None:
                raise AssertionError(f"no message {reply_to} in chat {chat.id} to reply to")
        if thread is not None:
            if not chat.is_forum:
                raise AssertionError(f"chat {chat.id} is not a forum: no topic {thread}")
            topic = chat.topics.get(thread)
            if topic is None or topic.deleted:
                raise AssertionError(f"chat {chat.id} has no topic {thread}")
            if target is not None and target.thread_id != thread:
                raise AssertionError(f"message {reply_to} is not in topic {thread}")
        elif target is not None:
            thread = target.thread_id
        if thread is not None and chat.topics[thread].closed and not admin:
            raise AssertionError(f"topic {thread} of chat {chat.id} is closed: only admins write")
        return thread, target

    async def start_bot(self, user: FakeUser, payload: str | None = None) -> dict[str, Any]:
        """``/start`` (or ``/start <payload>``, a deep link) in the private chat."""
        text = "/start" if payload is None else f"/start {payload}"
        return await self.send_text(user, user.id, text)

    # --------------------------------------------------------------- presses

    async def press(
        self, user: FakeUser, chat_id: int, message_id: int, callback_data: str
    ) -> CallbackPress:
        """``user`` presses the button carrying ``callback_data`` on a bot message.

        Fails the test if the message (as the bot last left it) has no such
        button or the user cannot see the chat; ``press_raw`` forges presses.
        """
        self.world.ensure_known(user)
        chat = self.world.chat(chat_id)
        message = chat.messages.get(message_id)
        if message is None:
            raise AssertionError(f"no live message {message_id} in chat {chat_id}")
        if not message.from_bot:
            raise AssertionError(f"message {message_id} in chat {chat_id} is not the bot's")
        data = [b.get("callback_data") for row in _rows(message) for b in row]
        if callback_data not in data:
            raise AssertionError(
                f"message {message_id} has no button with callback_data {callback_data!r}; "
                f"its buttons: {message.buttons()!r} (use press_raw for a forged press)"
            )
        if chat.type == "private":
            visible = chat.id == user.id
        else:
            visible = chat.members.get(user.id) in PRESENT
        if not visible:
            raise AssertionError(f"user {user.id} cannot see chat {chat_id}")
        return await self.press_raw(user, chat_id, message_id, callback_data)

    async def press_raw(
        self, user: FakeUser, chat_id: int, message_id: int, callback_data: str
    ) -> CallbackPress:
        """Queue a callback query without checking the keyboard: forged or stale presses.

        For a message that does not exist the query carries an
        InaccessibleMessage (``date`` 0), as Telegram does.
        """
        self.world.ensure_known(user)
        chat = self.world.chat(chat_id)
        message = chat.messages.get(message_id)
        if message is not None:
            message_obj = message.to_api()
        else:
            message_obj = {"chat": chat.to_api(), "message_id": message_id, "date": 0}
        query_id = str(self.world.next_callback_id)
        self.world.next_callback_id += 1
        pending = PendingCallback(
            query_id=query_id,
            created=self.now(),
            answer=asyncio.get_running_loop().create_future(),
        )
        self.world.callbacks[query_id] = pending
        update = self.world.enqueue(
            "callback_query",
            {
                "id": query_id,
                "from": user.to_api(),
                "message": message_obj,
                "chat_instance": str(abs(chat.id) * 7919 % 10**19),
                "data": callback_data,
            },
        )
        self._bump()
        await asyncio.sleep(0)
        return CallbackPress(self, pending, update)

    async def press_button(
        self,
        user: FakeUser,
        message: FakeMessage,
        *,
        text_contains: str | None = None,
        data_startswith: str | None = None,
    ) -> CallbackPress:
        """Find a callback button on ``message`` (see ``find_button``) and press it."""
        button = self.find_button(
            message, text_contains=text_contains, data_startswith=data_startswith
        )
        if button.value is None:
            raise AssertionError(f"button {button.text!r} has no callback_data")
        return await self.press(user, message.chat_id, message.message_id, button.value)


def _rows(message: FakeMessage) -> list[list[dict[str, Any]]]:
    markup = message.inline_keyboard
    return markup["inline_keyboard"] if markup else []
