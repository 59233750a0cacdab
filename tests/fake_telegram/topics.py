"""Tests acting on forum topics: creating, closing, reopening and deleting
them, with the service messages Telegram posts in the topic for each."""

from __future__ import annotations

from typing import Any

from .models import ADMINS, PRESENT, FakeChat, FakeTopic, FakeUser
from .state import ServerState

#: Telegram's limit on a topic's name.
MAX_TOPIC_NAME = 128


class Topics(ServerState):
    """Each change queues the service message Telegram would send for it
    (deleting a topic sends nothing, as on Telegram)."""

    def create_topic(
        self, chat_id: int, creator: FakeUser, name: str, *, icon_color: int | None = None
    ) -> int:
        """``creator`` opens a topic in a forum; returns its ``message_thread_id``.

        The topic starts with a ``forum_topic_created`` service message
        (``name``, ``icon_color``: by default the apps' colours in turn) whose
        message_id is the thread id; it is itself in the topic and reaches
        the bot like any service message.
        """
        chat = self._forum(chat_id)
        self.world.ensure_known(creator)
        if chat.members.get(creator.id) not in PRESENT:
            raise AssertionError(f"user {creator.id} is not a member of {chat_id}")
        if not 1 <= len(name) <= MAX_TOPIC_NAME:
            raise AssertionError(f"a topic's name has 1-{MAX_TOPIC_NAME} characters: {name!r}")
        topic = self.world.create_topic(chat, creator, name, icon_color)
        self._bump()
        return topic.thread_id

    def close_topic(self, chat_id: int, thread_id: int, by: FakeUser) -> dict[str, Any]:
        """An admin (or the topic's creator) closes it: a ``forum_topic_closed``
        message in the topic; only admins may write there until it is reopened
        (the bot gets 400 TOPIC_CLOSED).  Returns the service message."""
        chat, topic = self._manageable(chat_id, thread_id, by)
        if topic.closed:
            raise AssertionError(f"topic {thread_id} of chat {chat_id} is already closed")
        topic.closed = True
        return self._topic_service(chat, topic, by, {"forum_topic_closed": {}})

    def reopen_topic(self, chat_id: int, thread_id: int, by: FakeUser) -> dict[str, Any]:
        """Reopen a closed topic: a ``forum_topic_reopened`` message in it.
        Returns the service message."""
        chat, topic = self._manageable(chat_id, thread_id, by)
        if not topic.closed:
            raise AssertionError(f"topic {thread_id} of chat {chat_id} is not closed")
        topic.closed = False
        return self._topic_service(chat, topic, by, {"forum_topic_reopened": {}})

    def delete_topic(self, chat_id: int, thread_id: int) -> None:
        """The topic and all its messages are gone, without an update to the bot.

        Afterwards editing or deleting its messages answers "message to edit
        not found" / "message to delete not found", replying to them "message
        to be replied not found", and sending to the thread "message thread
        not found".
        """
        chat = self._forum(chat_id)
        topic = self._live_topic(chat, thread_id)
        self.world.delete_topic(chat, topic)
        self._bump()

    # ---------------------------------------------------------------- helpers

    def _forum(self, chat_id: int) -> FakeChat:
        chat = self.world.chat(chat_id)
        if not chat.is_forum:
            raise AssertionError(f"chat {chat_id} is not a forum (add_group(..., forum=True))")
        return chat

    def _live_topic(self, chat: FakeChat, thread_id: int) -> FakeTopic:
        topic = chat.topics.get(thread_id)
        if topic is None or topic.deleted:
            raise AssertionError(f"chat {chat.id} has no topic {thread_id}")
        return topic

    def _manageable(self, chat_id: int, thread_id: int, by: FakeUser) -> tuple[FakeChat, FakeTopic]:
        chat = self._forum(chat_id)
        topic = self._live_topic(chat, thread_id)
        self.world.ensure_known(by)
        if chat.members.get(by.id) not in ADMINS and by is not topic.creator:
            raise AssertionError(
                f"user {by.id} is neither an admin of {chat_id} nor the creator of topic {thread_id}"
            )
        return chat, topic

    def _topic_service(
        self, chat: FakeChat, topic: FakeTopic, by: FakeUser, service: dict[str, Any]
    ) -> dict[str, Any]:
        payload = self.world.service_message(chat, by, service, thread_id=topic.thread_id)
        self._bump()
        return payload
