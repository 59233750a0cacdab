"""Tests acting on memberships: blocking the bot, adding it to or removing it
from a group, people joining and leaving, a group becoming a supergroup."""

from __future__ import annotations

from typing import Literal

from .models import PRESENT, FakeChat, FakeUser, MemberStatus
from .state import ServerState
from .world import SUPERGROUP_ID_LIMIT


class Memberships(ServerState):
    """Each change queues the updates Telegram would send for it."""

    def block_bot(self, user: FakeUser) -> None:
        """The user blocks the bot: a ``my_chat_member`` update, then 403 on every send."""
        self.world.ensure_known(user)
        if user.blocked_bot:
            return
        user.blocked_bot = True
        chat = self.world.chats[user.id]
        self.world.member_update("my_chat_member", chat, user, self.bot, "member", "kicked")
        self._bump()

    def unblock_bot(self, user: FakeUser) -> None:
        """The user unblocks the bot (queues ``my_chat_member`` kicked → member)."""
        self.world.ensure_known(user)
        if not user.blocked_bot:
            return
        user.blocked_bot = False
        chat = self.world.chats[user.id]
        self.world.member_update("my_chat_member", chat, user, self.bot, "kicked", "member")
        self._bump()

    def deactivate_user(self, user: FakeUser) -> None:
        """The account is deleted: further calls to its chat answer 403 user is deactivated."""
        self.world.ensure_known(user).deactivated = True

    def remove_bot_from_group(self, chat_id: int, by_user: FakeUser | None = None) -> None:
        """An admin removes the bot: ``my_chat_member`` (→ kicked), then 403 in that chat."""
        chat = self.world.chat(chat_id)
        actor = self._by_user(chat, by_user)
        old = chat.bot_status
        chat.bot_status = "kicked"
        self.world.member_update("my_chat_member", chat, actor, self.bot, old, "kicked")
        self._bump()

    def add_bot_to_group(
        self, chat_id: int, by_user: FakeUser | None = None, *, as_admin: bool = False
    ) -> None:
        """Someone adds the bot: ``my_chat_member`` plus a ``new_chat_members`` message."""
        chat = self.world.chat(chat_id)
        actor = self._by_user(chat, by_user)
        old = chat.bot_status
        chat.bot_status = "administrator" if as_admin else "member"
        self.world.member_update("my_chat_member", chat, actor, self.bot, old, chat.bot_status)
        self.world.service_message(chat, actor, {"new_chat_members": [self.bot.to_api()]})
        self._bump()

    def add_member(self, chat_id: int, user: FakeUser, by_user: FakeUser | None = None) -> None:
        """``user`` joins a group (a ``new_chat_members`` message and a ``chat_member`` update)."""
        chat = self.world.chat(chat_id)
        self.world.ensure_known(user)
        actor = self.world.ensure_known(by_user) if by_user is not None else user
        old = chat.members.get(user.id, "left")
        chat.members[user.id] = "member"
        self.world.member_update("chat_member", chat, actor, user, old, "member")
        self.world.service_message(chat, actor, {"new_chat_members": [user.to_api()]})
        self._bump()

    def promote(self, chat_id: int, user: FakeUser, by_user: FakeUser | None = None) -> None:
        """``user``, a member of the group, is made one of its admins (a
        ``chat_member`` update; no service message, as in Telegram)."""
        chat = self.world.chat(chat_id)
        self.world.ensure_known(user)
        old = chat.members.get(user.id, "left")
        if old not in PRESENT:
            raise AssertionError(f"user {user.id} is not a member of {chat_id}")
        actor = self._by_user(chat, by_user)
        chat.members[user.id] = "administrator"
        self.world.member_update("chat_member", chat, actor, user, old, "administrator")
        self._bump()

    def remove_member(
        self,
        chat_id: int,
        user: FakeUser,
        by_user: FakeUser | None = None,
        *,
        quietly: bool = False,
    ) -> None:
        """``user`` leaves (or is removed from) a group. ``quietly``: the bot
        hears nothing of it (a large supergroup sends no service message, and
        ``chat_member`` updates come only to a bot that is an admin and asked)."""
        chat = self.world.chat(chat_id)
        self.world.ensure_known(user)
        actor = self.world.ensure_known(by_user) if by_user is not None else user
        old = chat.members.get(user.id, "left")
        new: MemberStatus = "left" if actor is user else "kicked"
        chat.members[user.id] = new
        if quietly:
            return
        self.world.member_update("chat_member", chat, actor, user, old, new)
        self.world.service_message(chat, actor, {"left_chat_member": user.to_api()})
        self._bump()

    def migrate_group(
        self,
        chat_id: int,
        new_chat_id: int | None = None,
        by_user: FakeUser | None = None,
        *,
        announce: Literal["now", "after_refusal", "manual"] = "now",
    ) -> int:
        """Upgrade a basic group to a supergroup; returns the new chat id.

        Queues ``migrate_to_chat_id`` in the old chat and
        ``migrate_from_chat_id`` in the new one; afterwards every call to the
        old id answers 400 with ``parameters.migrate_to_chat_id``.

        ``announce="after_refusal"`` keeps those two updates back (the
        messages exist at once) until the bot's first call to the old id has
        been refused: the bot then learns of the move from the refusal before
        the service messages reach it.  ``announce_migration`` releases them
        earlier. ``announce="manual"`` keeps them back until ``announce_migration``,
        refusals or not: the service messages come late (Telegram gives no
        order between the two ways the bot learns of the move).
        """
        if announce not in ("now", "after_refusal", "manual"):
            raise ValueError(f"announce is 'now', 'after_refusal' or 'manual', not {announce!r}")
        old = self.world.chat(chat_id)
        if old.type != "group" or old.migrated_to is not None:
            raise AssertionError(f"chat {chat_id} is not a basic group that can be upgraded")
        actor = self._by_user(old, by_user)
        new_id = new_chat_id if new_chat_id is not None else SUPERGROUP_ID_LIMIT + chat_id
        new = FakeChat(
            id=new_id,
            type="supergroup",
            title=old.title,
            username=old.username,
            members=dict(old.members),
            bot_status=old.bot_status,
            migrated_from=old.id,
        )
        self.world.add_chat(new)
        deliver = announce == "now"
        moved_to = self.world.service_message(
            old, actor, {"migrate_to_chat_id": new_id}, deliver=deliver
        )
        old.migrated_to = new_id
        moved_from = self.world.service_message(
            new, actor, {"migrate_from_chat_id": old.id}, deliver=deliver
        )
        if not deliver and new.bot_status in PRESENT:
            for payload in (moved_to, moved_from):
                if announce == "manual":
                    self.world.held_manually.setdefault(old.id, []).append(("message", payload))
                else:
                    self.world.hold_until_refused(old, "message", payload)
        self._bump()
        return new_id

    def announce_migration(self, chat_id: int) -> None:
        """Queue the service messages of ``migrate_group(chat_id, announce="after_refusal")``
        now, without waiting for a refused call."""
        chat = self.world.chat(chat_id).id
        self.world.release_held(chat)
        for kind, payload in self.world.held_manually.pop(chat, []):
            self.world.enqueue(kind, payload)
        self._bump()

    def _by_user(self, chat: FakeChat, by_user: FakeUser | None) -> FakeUser:
        """Who acts when the test does not say: the group's creator, else any member."""
        if by_user is not None:
            return self.world.ensure_known(by_user)
        for user_id, status in chat.members.items():
            if status == "creator":
                return self.world.users[user_id]
        for user_id, status in chat.members.items():
            if status in PRESENT:
                return self.world.users[user_id]
        raise AssertionError(f"chat {chat.id} has no member to act; pass by_user")
