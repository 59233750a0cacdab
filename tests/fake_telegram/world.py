"""State shared by the Bot API side and the test-driving side of the fake.

Kept apart from the HTTP server so the rules that decide *whether* the bot
may act in a chat (never started, blocked, kicked, migrated…) and *whether* an
update reaches it (privacy mode, ``allowed_updates``) are written once and
used both when the bot calls the API and when a test acts as a user.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from . import errors
from .errors import bad_request, forbidden
from .markup import detect_user_entities, leading_command
from .models import (
    PRESENT,
    TOPIC_ICON_COLORS,
    FakeChat,
    FakeMessage,
    FakeTopic,
    FakeUser,
    MemberStatus,
    PendingCallback,
    PendingInline,
    channel_bot,
    group_anonymous_bot,
)

#: Update kinds delivered when the bot never chose (or sent an empty list): Telegram
#: leaves these three out by default.
DEFAULT_EXCLUDED_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})

#: Supergroup ids are -100 followed by the channel id.
SUPERGROUP_ID_LIMIT = -1_000_000_000_000


class World:
    """Users, chats, messages, the update queue and pending callback queries."""

    def __init__(
        self,
        *,
        bot: FakeUser,
        now: Callable[[], float],
        on_change: Callable[[], None],
    ) -> None:
        self.bot = bot
        self.now = now
        self.on_change = on_change
        self.privacy_mode = True
        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.updates: list[dict[str, Any]] = []
        self.filtered_updates: list[dict[str, Any]] = []
        self.next_update_id = 100_000_001
        self.allowed_updates: frozenset[str] | None = None
        self.callbacks: dict[str, PendingCallback] = {}
        # Inline mode (@BotFather's /setinline, and /setinlinefeedback for
        # chosen_inline_result updates); the queries waiting for an answer and
        # Telegram's cache of answers (inline.py).
        self.inline_mode = False
        self.inline_feedback = False
        self.inline_queries: dict[str, PendingInline] = {}
        self.inline_cache: dict[tuple[int | None, str, str], tuple[float, dict[str, Any]]] = {}
        self.next_inline_id = 9_000_000_000_000_000_001
        self.next_callback_id = 4_000_000_000_000_000_001
        self.commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.menu_buttons: dict[int | None, dict[str, Any]] = {}
        # setWebhook's url and secret_token: updates are then POSTed, not polled.
        self.webhook: dict[str, str] | None = None
        #: The senders of anonymous admins' and channels' messages in groups.
        self.group_anonymous_bot = group_anonymous_bot()
        self.channel_bot = channel_bot()
        #: Updates kept back per chat id until the bot's first call to that
        #: chat is refused (``migrate_group(..., announce="after_refusal")``).
        self.held_updates: dict[int, list[tuple[str, dict[str, Any]]]] = {}
        #: Updates kept back until the test releases them (``announce="manual"``).
        self.held_manually: dict[int, list[tuple[str, dict[str, Any]]]] = {}

    # ----------------------------------------------------------------- updates

    def update_allowed(self, kind: str) -> bool:
        if self.allowed_updates is None:
            return kind not in DEFAULT_EXCLUDED_UPDATES
        return kind in self.allowed_updates

    def enqueue(self, kind: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        """Queue an update unless ``allowed_updates`` filters it (then it is lost, as on Telegram)."""
        update = {"update_id": self.next_update_id, kind: payload}
        self.next_update_id += 1
        if not self.update_allowed(kind):
            self.filtered_updates.append(update)
            return None
        self.updates.append(update)
        self.on_change()
        return update

    def hold_until_refused(self, chat: FakeChat, kind: str, payload: dict[str, Any]) -> None:
        """Keep an update back until a call to ``chat`` is refused (see ``access``)."""
        self.held_updates.setdefault(chat.id, []).append((kind, payload))

    def release_held(self, chat_id: int) -> None:
        """Queue the updates held back for ``chat_id``, in their order."""
        for kind, payload in self.held_updates.pop(chat_id, []):
            self.enqueue(kind, payload)

    def confirm(self, offset: int | None) -> None:
        """getUpdates ``offset`` semantics: drop what is confirmed (negative = keep the tail)."""
        if not offset:
            return
        if offset > 0:
            self.updates = [u for u in self.updates if u["update_id"] >= offset]
        else:
            self.updates = self.updates[offset:]

    # ------------------------------------------------------------------- chats

    def add_user(self, user: FakeUser) -> FakeUser:
        if user.id <= 0:
            raise ValueError(f"user ids are positive, got {user.id}")
        if user.id in self.users or user.id in self.chats or self.known_user(user.id):
            raise ValueError(f"id {user.id} is already taken")
        self.users[user.id] = user
        self.chats[user.id] = FakeChat(id=user.id, type="private", user=user)
        return user

    def add_chat(self, chat: FakeChat) -> FakeChat:
        if chat.id in self.chats:
            raise ValueError(f"chat {chat.id} already exists")
        if chat.is_forum:
            if chat.type != "supergroup":
                raise ValueError(f"only a supergroup can be a forum, not a {chat.type}")
            # Message 1 is the group's creation, and 1 is the id of General,
            # which is no topic a message_thread_id may name.
            chat.next_message_id = max(chat.next_message_id, 2)
        if chat.type == "group" and not SUPERGROUP_ID_LIMIT < chat.id < 0:
            raise ValueError(f"basic group ids are negative and above -10**12, got {chat.id}")
        if chat.type == "supergroup" and not (
            chat.id <= SUPERGROUP_ID_LIMIT and str(chat.id).startswith("-100")
        ):
            raise ValueError(f"supergroup ids look like -100xxxxxxxxxx, got {chat.id}")
        self.chats[chat.id] = chat
        return chat

    def chat(self, chat_id: int) -> FakeChat:
        """A chat by id for test code (a plain KeyError would hide the typo)."""
        try:
            return self.chats[chat_id]
        except KeyError:
            raise AssertionError(f"the fake has no chat {chat_id}") from None

    def resolve_chat(self, raw: Any) -> FakeChat:
        """Turn a ``chat_id`` parameter into a chat, with Telegram's errors for bad ids."""
        if raw is None or raw == "":
            raise bad_request(errors.CHAT_ID_EMPTY)
        if isinstance(raw, str) and raw.startswith("@"):
            name = raw[1:].lower()
            for chat in self.chats.values():
                if chat.username and chat.username.lower() == name and chat.is_group:
                    return chat
            raise bad_request(errors.CHAT_NOT_FOUND)
        try:
            chat_id = int(raw)
        except (TypeError, ValueError):
            raise bad_request(errors.CHAT_NOT_FOUND) from None
        found = self.chats.get(chat_id)
        if found is None:
            raise bad_request(errors.CHAT_NOT_FOUND)
        return found

    def access(self, raw_chat_id: Any, *, write: bool) -> FakeChat:
        """The chat, if the bot may act there; otherwise the error Telegram would give.

        ``write`` covers sending, editing, deleting, chat actions and pins;
        reading (getChat, getChatMember…) is allowed in a private chat whose
        user blocked the bot but not in one never opened.
        """
        chat = self.resolve_chat(raw_chat_id)
        if chat.migrated_to is not None:
            self.release_held(chat.id)
            raise bad_request(
                errors.UPGRADED_TO_SUPERGROUP, {"migrate_to_chat_id": chat.migrated_to}
            )
        if chat.type == "private":
            user = chat.user
            assert user is not None
            if user.deactivated:
                raise forbidden(errors.USER_DEACTIVATED)
            if not user.started_bot:
                if write:
                    raise forbidden(errors.CANT_INITIATE)
                raise bad_request(errors.CHAT_NOT_FOUND)
            if user.blocked_bot and write:
                raise forbidden(errors.BLOCKED_BY_USER)
            return chat
        if chat.bot_status == "kicked":
            raise forbidden(
                errors.KICKED_FROM_GROUP if chat.type == "group" else errors.KICKED_FROM_SUPERGROUP
            )
        if chat.bot_status == "left":
            raise forbidden(
                errors.NOT_MEMBER_OF_GROUP
                if chat.type == "group"
                else errors.NOT_MEMBER_OF_SUPERGROUP
            )
        return chat

    def bot_is_admin(self, chat: FakeChat) -> bool:
        return chat.bot_status in {"administrator", "creator"}

    # ---------------------------------------------------------------- messages

    def add_message(
        self,
        chat: FakeChat,
        sender: FakeUser,
        *,
        text: str = "",
        html: str | None = None,
        parse_mode: str | None = None,
        entities: list[dict[str, Any]] | None = None,
        reply_markup: dict[str, Any] | None = None,
        reply_to: FakeMessage | None = None,
        service: dict[str, Any] | None = None,
        thread_id: int | None = None,
        sender_chat: dict[str, Any] | None = None,
        author_signature: str | None = None,
    ) -> FakeMessage:
        """Store a new message; in a topic it answers the topic's first message
        unless it answers another one (what the Bot API shows as reply_to_message)."""
        if thread_id is not None and reply_to is None:
            reply_to = chat.messages.get(thread_id)
        message = FakeMessage(
            chat=chat,
            message_id=chat.take_message_id(),
            sender=sender,
            date=int(self.now()),
            text=text,
            html=html,
            parse_mode=parse_mode,
            entities=entities or [],
            reply_markup=reply_markup,
            reply_to=reply_to,
            service=service or {},
            thread_id=thread_id,
            sender_chat=sender_chat,
            author_signature=author_signature,
        )
        chat.messages[message.message_id] = message
        chat.all_messages.append(message)
        self.on_change()
        return message

    def live_message(self, chat: FakeChat, message_id: Any) -> FakeMessage | None:
        try:
            return chat.messages.get(int(message_id))
        except (TypeError, ValueError):
            return None

    def user_message(
        self,
        user: FakeUser,
        chat: FakeChat,
        text: str,
        *,
        reply_to: FakeMessage | None = None,
        thread_id: int | None = None,
        sender_chat: dict[str, Any] | None = None,
        author_signature: str | None = None,
    ) -> dict[str, Any]:
        """Store a message a user (or an anonymous admin, or a channel) wrote
        and queue it if the bot would receive it."""
        message = self.add_message(
            chat,
            user,
            text=text,
            entities=detect_user_entities(text),
            reply_to=reply_to,
            thread_id=thread_id,
            sender_chat=sender_chat,
            author_signature=author_signature,
        )
        payload = message.to_api()
        if self.delivered_to_bot(chat, message):
            self.enqueue("message", payload)
        return payload

    def service_message(
        self,
        chat: FakeChat,
        sender: FakeUser,
        service: dict[str, Any],
        *,
        thread_id: int | None = None,
        deliver: bool = True,
    ) -> dict[str, Any]:
        """Service messages (members joining, migration, topics…) reach the bot
        even in privacy mode; ``deliver=False`` stores one without queuing it."""
        message = self.add_message(chat, sender, service=service, thread_id=thread_id)
        payload = message.to_api()
        if deliver:
            self.deliver_service(chat, payload)
        return payload

    def deliver_service(self, chat: FakeChat, payload: dict[str, Any]) -> None:
        if chat.type == "private" or chat.bot_status in PRESENT:
            self.enqueue("message", payload)

    # ------------------------------------------------------------------ topics

    def create_topic(
        self, chat: FakeChat, creator: FakeUser, name: str, icon_color: int | None
    ) -> FakeTopic:
        """A topic opens with its ``forum_topic_created`` message, whose id is the thread's."""
        if icon_color is None:
            icon_color = TOPIC_ICON_COLORS[len(chat.topics) % len(TOPIC_ICON_COLORS)]
        message = self.add_message(
            chat,
            creator,
            service={"forum_topic_created": {"name": name, "icon_color": icon_color}},
        )
        message.thread_id = message.message_id
        topic = FakeTopic(
            thread_id=message.message_id, name=name, icon_color=icon_color, creator=creator
        )
        chat.topics[topic.thread_id] = topic
        self.deliver_service(chat, message.to_api())
        return topic

    def delete_topic(self, chat: FakeChat, topic: FakeTopic) -> None:
        """The topic and every message in it are gone (Telegram tells the bot nothing)."""
        topic.deleted = True
        for message in list(chat.messages.values()):
            if message.thread_id == topic.thread_id:
                message.deleted = True
                del chat.messages[message.message_id]
                if message.message_id in chat.pinned:
                    chat.pinned.remove(message.message_id)
        self.on_change()

    def delivered_to_bot(self, chat: FakeChat, message: FakeMessage) -> bool:
        """Telegram's privacy-mode rules for a user's message.

        In a group the bot gets everything only when privacy mode is off or it
        is an admin; otherwise just commands (bare or addressed to it) and
        replies to its own messages.  (Telegram sends a bare command only if
        this bot was the last bot to write in the group, which always holds
        with a single bot.)
        """
        if chat.type == "private":
            return True
        if chat.bot_status not in PRESENT:
            return False
        if not self.privacy_mode or self.bot_is_admin(chat):
            return True
        command = leading_command(message.text)
        if command is not None:
            mention = command[1]
            return mention is None or mention.lower() == (self.bot.username or "").lower()
        return message.reply_to is not None and message.reply_to.from_bot

    # ----------------------------------------------------------------- members

    def known_user(self, user_id: int) -> FakeUser | None:
        """A user the Bot API knows by id: the bot, a test's user, or a service bot."""
        if user_id == self.bot.id:
            return self.bot
        for service_bot in (self.group_anonymous_bot, self.channel_bot):
            if user_id == service_bot.id:
                return service_bot
        return self.users.get(user_id)

    def member_status(self, chat: FakeChat, user_id: int) -> MemberStatus:
        if user_id == self.bot.id:
            return chat.bot_status
        if chat.type == "private":
            return "member" if user_id == chat.id else "left"
        return chat.members.get(user_id, "left")

    def member_object(self, user: FakeUser, status: MemberStatus) -> dict[str, Any]:
        """A ``ChatMember`` object with every field aiogram requires for the status."""
        data: dict[str, Any] = {"status": status, "user": user.to_api()}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data.update(
                can_be_edited=False,
                is_anonymous=False,
                can_manage_chat=True,
                can_delete_messages=True,
                can_manage_video_chats=True,
                can_restrict_members=True,
                can_promote_members=False,
                can_change_info=True,
                can_invite_users=True,
                can_post_stories=False,
                can_edit_stories=False,
                can_delete_stories=False,
                can_send_welcome_messages=False,
                can_pin_messages=True,
            )
        elif status == "kicked":
            data["until_date"] = 0
        return data

    def member_update(
        self,
        kind: str,
        chat: FakeChat,
        actor: FakeUser,
        subject: FakeUser,
        old: MemberStatus,
        new: MemberStatus,
    ) -> dict[str, Any] | None:
        """Queue a ``my_chat_member`` / ``chat_member`` update for a status change."""
        return self.enqueue(
            kind,
            {
                "chat": chat.to_api(),
                "from": actor.to_api(),
                "date": int(self.now()),
                "old_chat_member": self.member_object(subject, old),
                "new_chat_member": self.member_object(subject, new),
            },
        )

    def set_members(
        self,
        chat: FakeChat,
        members: Iterable[FakeUser],
        admins: Iterable[FakeUser],
    ) -> None:
        admins = list(admins)
        for user in members:
            chat.members[user.id] = "member"
        for index, user in enumerate(admins):
            chat.members[user.id] = "creator" if index == 0 else "administrator"

    def ensure_known(self, user: FakeUser) -> FakeUser:
        if self.users.get(user.id) is not user:
            raise AssertionError(f"user {user.id} was not created with fake.add_user()")
        return user
