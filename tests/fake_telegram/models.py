"""The fake's world: users, chats, messages, recorded calls and injected faults.

These are plain dataclasses so a test can read them directly
(``fake.users[42].blocked_bot``, ``msg.edits``), and each knows how to render
itself as the Bot API JSON object aiogram will validate, so the shapes are
defined once.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from .errors import ApiError

ChatType = Literal["private", "group", "supergroup"]
MemberStatus = Literal["creator", "administrator", "member", "left", "kicked"]
FaultKind = Literal["429", "500", "502", "502_html", "timeout", "drop"]

#: Statuses with which a user (or the bot) sees the chat and may act in it.
PRESENT = frozenset({"creator", "administrator", "member"})
#: Statuses of a group's administrators (who may post anonymously, write in closed topics).
ADMINS = frozenset({"creator", "administrator"})

#: The accounts Telegram puts in ``from`` of messages that are not signed by a
#: user: an anonymous group admin's, and a channel's posting in a group.
GROUP_ANONYMOUS_BOT_ID = 1087968824
CHANNEL_BOT_ID = 136817688
#: The six colours Telegram's apps offer for a new topic's icon (RGB).
TOPIC_ICON_COLORS = (0x6FB9F0, 0xFFD67E, 0xCB86DB, 0x8EEE98, 0xFF93B2, 0xFB6F5F)


@dataclass(eq=False)
class FakeUser:
    """A Telegram account; ``started_bot``/``blocked_bot`` drive the 403s of private chats."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = "ru"
    last_name: str | None = None
    is_bot: bool = False
    started_bot: bool = False
    blocked_bot: bool = False
    deactivated: bool = False

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name

    def to_api(self) -> dict[str, Any]:
        """The ``User`` object."""
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code and not self.is_bot:
            data["language_code"] = self.language_code
        return data


def group_anonymous_bot() -> FakeUser:
    """@GroupAnonymousBot: ``from`` of every message an admin posts anonymously."""
    return FakeUser(
        id=GROUP_ANONYMOUS_BOT_ID,
        first_name="Group",
        username="GroupAnonymousBot",
        language_code=None,
        is_bot=True,
    )


def channel_bot() -> FakeUser:
    """@Channel_Bot: ``from`` of every message a channel posts in a group."""
    return FakeUser(
        id=CHANNEL_BOT_ID,
        first_name="Channel",
        username="Channel_Bot",
        language_code=None,
        is_bot=True,
    )


class Button(NamedTuple):
    """An inline button as a test sees it: its label and its callback_data or url."""

    text: str
    value: str | None


@dataclass(eq=False)
class MessageVersion:
    """A past state of a message, kept so tests can inspect the edit history."""

    text: str
    html: str | None
    entities: list[dict[str, Any]]
    reply_markup: dict[str, Any] | None
    date: float


@dataclass(eq=False)
class FakeMessage:
    """A message in a chat, as Telegram stores it (plain text + entities).

    ``html`` is the raw ``text`` argument exactly as the bot sent it (markup
    included, ``None`` for messages written by users); ``text`` is what users
    see, tags stripped and entities unescaped.

    ``thread_id`` is the forum topic the message is in (``None``: General, or
    a chat without topics).  ``reply_to`` is what the Bot API shows as
    ``reply_to_message``: in a topic, the topic's ``forum_topic_created``
    message unless the message answers another one, as Telegram does.
    ``sender_chat`` / ``author_signature`` are set for a message an admin
    posted anonymously or a channel posted (``sender`` is then
    @GroupAnonymousBot or @Channel_Bot).
    """

    chat: FakeChat
    message_id: int
    sender: FakeUser
    date: int
    text: str = ""
    html: str | None = None
    parse_mode: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    reply_markup: dict[str, Any] | None = None
    reply_to: FakeMessage | None = None
    service: dict[str, Any] = field(default_factory=dict)
    edits: int = 0
    edit_date: int | None = None
    deleted: bool = False
    history: list[MessageVersion] = field(default_factory=list)
    # A photo message: the picture's bytes (``text`` then holds its caption).
    photo: bytes | None = None
    thread_id: int | None = None
    sender_chat: dict[str, Any] | None = None
    author_signature: str | None = None
    # A message a person sent through a bot's inline mode: that bot.
    via_bot: FakeUser | None = None

    @property
    def from_bot(self) -> bool:
        """Sent by the bot under test (not by @GroupAnonymousBot or @Channel_Bot)."""
        return self.sender.is_bot and self.sender_chat is None

    @property
    def reply_thread_root(self) -> int:
        """The root of the reply chain this message is part of (itself if it starts one).

        Outside forum topics a supergroup's replies form threads: the Bot API
        gives each reply ``message_thread_id`` = the chain's first message,
        without ``is_topic_message``.
        """
        root = self
        while root.reply_to is not None and root.reply_to.chat is self.chat:
            root = root.reply_to
        return root.message_id

    @property
    def chat_id(self) -> int:
        return self.chat.id

    @property
    def inline_keyboard(self) -> dict[str, Any] | None:
        """The markup Telegram keeps on the message (reply keyboards are not part of it)."""
        if self.reply_markup and "inline_keyboard" in self.reply_markup:
            return self.reply_markup
        return None

    def buttons(self) -> list[Button]:
        """All inline buttons, row by row, as ``(text, callback_data or url)``."""
        markup = self.inline_keyboard
        if markup is None:
            return []
        return [
            Button(button["text"], button.get("callback_data", button.get("url")))
            for row in markup["inline_keyboard"]
            for button in row
        ]

    def to_api(self, *, with_reply: bool = True) -> dict[str, Any]:
        """The ``Message`` object (``with_reply=False`` for the nested reply_to_message)."""
        data: dict[str, Any] = {"message_id": self.message_id}
        if self.thread_id is not None:
            data["message_thread_id"] = self.thread_id
        elif (
            self.chat.type == "supergroup"
            and self.reply_to is not None
            and self.reply_to.chat is self.chat
        ):
            # A reply outside topics: its reply thread, without is_topic_message.
            data["message_thread_id"] = self.reply_thread_root
        data["from"] = self.sender.to_api()
        if self.sender_chat is not None:
            data["sender_chat"] = self.sender_chat
        data["chat"] = self.chat.to_api()
        data["date"] = self.date
        if self.thread_id is not None:
            data["is_topic_message"] = True
        if self.author_signature is not None:
            data["author_signature"] = self.author_signature
        if self.via_bot is not None:
            data["via_bot"] = self.via_bot.to_api()
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if self.reply_to is not None and with_reply:
            data["reply_to_message"] = self.reply_to.to_api(with_reply=False)
        if self.photo is not None:
            data["photo"] = [
                {
                    "file_id": f"photo-{self.chat.id}-{self.message_id}",
                    "file_unique_id": f"p{self.message_id}",
                    "width": 1200,
                    "height": 750,
                    "file_size": len(self.photo),
                }
            ]
            if self.text:
                data["caption"] = self.text
            if self.entities:
                data["caption_entities"] = self.entities
        else:
            if self.text:
                data["text"] = self.text
            if self.entities:
                data["entities"] = self.entities
        if self.inline_keyboard is not None:
            data["reply_markup"] = self.inline_keyboard
        data.update(self.service)
        return data

    def __repr__(self) -> str:
        thread = f" thread={self.thread_id}" if self.thread_id is not None else ""
        return (
            f"<FakeMessage chat={self.chat.id}{thread} id={self.message_id} "
            f"from={'bot' if self.from_bot else self.sender.id} edits={self.edits} "
            f"text={self.text[:60]!r} buttons={self.buttons()!r}>"
        )


@dataclass(eq=False)
class FakeTopic:
    """A forum topic; ``thread_id`` is the id of its ``forum_topic_created`` message."""

    thread_id: int
    name: str
    icon_color: int
    creator: FakeUser
    closed: bool = False
    deleted: bool = False

    @property
    def open(self) -> bool:
        return not (self.closed or self.deleted)


@dataclass(eq=False)
class FakeChat:
    """A private chat, group or supergroup; ``members`` maps user id to status.

    A forum (``is_forum``, supergroups only) keeps its topics in ``topics``,
    deleted ones included (``topic.deleted``).
    """

    id: int
    type: ChatType
    title: str | None = None
    user: FakeUser | None = None
    username: str | None = None
    members: dict[int, MemberStatus] = field(default_factory=dict)
    bot_status: MemberStatus = "member"
    migrated_to: int | None = None
    migrated_from: int | None = None
    messages: dict[int, FakeMessage] = field(default_factory=dict)
    all_messages: list[FakeMessage] = field(default_factory=list)
    pinned: list[int] = field(default_factory=list)
    next_message_id: int = 1
    is_forum: bool = False
    topics: dict[int, FakeTopic] = field(default_factory=dict)

    @property
    def is_group(self) -> bool:
        return self.type != "private"

    def topic(self, thread_id: int) -> FakeTopic:
        """A topic by thread id for test code (deleted ones too)."""
        try:
            return self.topics[thread_id]
        except KeyError:
            raise AssertionError(f"chat {self.id} has no topic {thread_id}") from None

    def to_api(self) -> dict[str, Any]:
        """The ``Chat`` object."""
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.type == "private" and self.user is not None:
            data["first_name"] = self.user.first_name
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
        else:
            data["title"] = self.title
            if self.username:
                data["username"] = self.username
            if self.is_forum:
                data["is_forum"] = True
        return data

    def take_message_id(self) -> int:
        message_id = self.next_message_id
        self.next_message_id += 1
        return message_id


@dataclass
class CallRecord:
    """One HTTP request the bot made, with what the fake answered.

    ``time`` is the fake clock at arrival; ``fault`` names an injected fault
    that replaced or swallowed the answer (then ``result``/``error`` say what
    the action itself produced, which matters for ``after=True`` faults).
    """

    seq: int
    method: str
    params: dict[str, Any]
    chat_id: int | None
    time: float
    token: str
    result: Any = None
    error: ApiError | None = None
    fault: str | None = None
    done: bool = False

    @property
    def ok(self) -> bool:
        """True when the bot got a successful answer."""
        return self.done and self.error is None and self.fault is None

    def summary(self) -> str:
        shown = {k: v for k, v in self.params.items() if k not in {"reply_markup", "entities"}}
        if "reply_markup" in self.params:
            shown["reply_markup"] = "…"
        if self.fault:
            outcome = f"FAULT {self.fault}"
        elif self.error is not None:
            outcome = f"ERROR {self.error.error_code} {self.error.description}"
        elif not self.done:
            outcome = "pending"
        else:
            outcome = "ok"
        return f"#{self.seq} t={self.time:.3f} {self.method} {shown} -> {outcome}"


@dataclass
class CallStats:
    """Counts over ``fake.calls``: per method, per chat, per chat and method, errors."""

    by_method: Counter[str]
    by_chat: Counter[int]
    by_chat_method: dict[int, Counter[str]]
    errors: Counter[tuple[str, int]]
    faults: Counter[str]
    total: int


@dataclass
class Fault:
    """An injected failure; ``remaining=None`` means until ``clear_faults()``.

    ``method`` None matches every method except getUpdates (so that a fault
    meant for the bot's actions is not eaten by the polling loop); name
    getUpdates explicitly to break polling.
    """

    kind: FaultKind
    method: str | None = None
    chat_id: int | None = None
    remaining: int | None = 1
    retry_after: int = 1
    after: bool = False
    fired: int = 0

    def matches(self, method: str, chat_id: int | None) -> bool:
        if self.remaining is not None and self.remaining <= 0:
            return False
        if self.method is None:
            if method == "getUpdates":
                return False
        elif self.method.lower() != method.lower():
            return False
        return self.chat_id is None or self.chat_id == chat_id


@dataclass
class RateLimits:
    """Telegram's documented flood limits, used when ``fake.enforce_limits`` is on.

    Groups: ``group_per_minute`` messages (sends + edits) per rolling minute.
    Private chats: a token bucket of ``private_burst`` refilled at
    ``private_per_second`` (short bursts pass, sustained >1/s does not).
    Overall: ``global_per_second`` calls of any method but getUpdates.
    """

    group_per_minute: int = 20
    private_per_second: float = 1.0
    private_burst: int = 3
    global_per_second: int = 30


@dataclass(eq=False)
class PendingCallback:
    """A callback query waiting for answerCallbackQuery (Telegram allows 15 seconds)."""

    query_id: str
    created: float
    answer: asyncio.Future[dict[str, Any]]
    answered: bool = False


@dataclass(eq=False)
class PendingInline:
    """An inline query waiting for answerInlineQuery (Telegram allows about
    10 seconds): who asked, what they typed, and from which kind of chat."""

    query_id: str
    user: FakeUser
    query: str
    offset: str
    chat_type: str
    created: float
    answer: asyncio.Future[dict[str, Any]]
    answered: bool = False
