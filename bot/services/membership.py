"""Who is in a group now, as Telegram says: the one membership check of the
whole bot (every way to a seat, the rematch, the Mini App's watchers).

Telegram's answer (``getChatMember``) is remembered for ``MEMBER_TTL``
seconds, so a friend's presses and a page's reconnects ask once; a question
Telegram did not answer (the network, an error) is remembered as nothing,
and asked again next time. One person cannot make the bot ask Telegram about
a stream of groups: at most ``MEMBER_QUOTA`` distinct groups a person is
asked about per ``MEMBER_QUOTA_WINDOW`` seconds; beyond it the answer is
"not a member" without asking (not remembered): "try again" would tell the
prober that the table he named exists. An answer from memory costs no quota.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import ChatMemberRestricted

log = logging.getLogger(__name__)

#: Seconds a group member's answer from Telegram is trusted.
MEMBER_TTL = 60.0
#: Answers remembered at most (the oldest go first).
MEMBER_CACHE = 10_000
#: Distinct groups one person may be asked about of Telegram per window: a
#: friend plays in one or two; beyond it someone is probing tables.
MEMBER_QUOTA = 10
#: Seconds of that window.
MEMBER_QUOTA_WINDOW = 60.0

#: Whether a person is in a group: True, False, or None when Telegram did
#: not answer (not known: not remembered, asked again next time).
Ask = Callable[[int, int], Awaitable[bool | None]]


async def ask_telegram(bot: Bot, chat_id: int, user_id: int) -> bool | None:
    """Whether ``user_id`` is in the group now (a restricted member still
    is); None when there is no answer (the network failed, Telegram refused)."""
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except TelegramAPIError as e:  # the network's errors are Telegram's here too
        log.info("getChatMember in %s failed: %s", chat_id, type(e).__name__)
        return None
    if member.status in ("creator", "administrator", "member"):
        return True
    return isinstance(member, ChatMemberRestricted) and member.is_member


class Members:
    """Group membership, asked of Telegram and remembered briefly: only
    Telegram's answers are remembered, never a failure to get one; the
    questions about one person are limited to ``quota`` groups a window."""

    def __init__(
        self,
        ask: Ask,
        now: Callable[[], float],
        *,
        quota: int = MEMBER_QUOTA,
        window: float = MEMBER_QUOTA_WINDOW,
    ) -> None:
        self._ask = ask
        self._now = now
        self._quota = quota
        self._window = window
        self._known: dict[tuple[int, int], tuple[bool, float]] = {}
        # person -> group -> when Telegram was last asked about them there
        self._asked: dict[int, dict[int, float]] = {}

    async def __call__(self, chat_id: int, user_id: int) -> bool | None:
        """True or False as Telegram said (lately); False too, unasked, when
        this person's quota is spent (refused like a stranger, so the answer
        tells nothing of the table); None: Telegram did not answer."""
        key = (chat_id, user_id)
        now = self._now()
        known = self._known.get(key)
        if known is not None and 0 <= now - known[1] < MEMBER_TTL:
            return known[0]
        if not self._may_ask(chat_id, user_id, now):
            return False
        member = await self._ask(chat_id, user_id)
        if member is None:
            return None
        self._known.pop(key, None)
        self._known[key] = (member, now)
        while len(self._known) > MEMBER_CACHE:
            del self._known[next(iter(self._known))]
        return member

    def forget(self, chat_id: int, user_id: int) -> None:
        """The bot heard that ``user_id`` left ``chat_id`` (or was removed),
        or joined it: the remembered answer goes, so the next question asks
        Telegram."""
        self._known.pop((chat_id, user_id), None)

    def _may_ask(self, chat_id: int, user_id: int, now: float) -> bool:
        """Counts a question about ``user_id`` in ``chat_id``; False (and
        nothing counted) when it would be one group too many this window."""
        asked = self._asked.get(user_id)
        if asked is None:
            if len(self._asked) >= MEMBER_CACHE:
                self._forget_idle(now)
            asked = self._asked[user_id] = {}
        for chat, when in list(asked.items()):
            if not 0 <= now - when < self._window:
                del asked[chat]
        if chat_id not in asked and len(asked) >= self._quota:
            log.info("membership questions over the quota for one person")
            return False
        asked[chat_id] = now
        return True

    def _forget_idle(self, now: float) -> None:
        """People asked about in no group this window are dropped."""
        for uid, asked in list(self._asked.items()):
            if all(not 0 <= now - when < self._window for when in asked.values()):
                del self._asked[uid]
