"""Inline mode: «@бот» in any chat lists the person's own running games
(most urgent first), «@бот статистика» their record, «@бот <группа>» the
games of groups of that name.

Telegram sends a query per key press. What the database says of a person
(their running tables, record, Authority: one read, one snapshot) is
remembered for ``MEMORY_SECONDS``, so typing costs no database query per
key press. The games themselves are the registry's live tables in memory:
an answer is remembered under its words and the state of those tables, and
given again only while no move, vote or deadline has changed them. ``/forget_me`` drops the memory (:meth:`InlineService.forget`).

Only the person's own games and record are ever looked at: the tables are
those they sit at, asked of the database by their id, and each is checked
again in memory (a seat given up meanwhile is not shown).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter
from dataclasses import dataclass, field
from functools import partial

from aiogram.types import InlineQueryResultArticle, InlineQueryResultsButton

from bot.i18n import SUPPORTED
from bot.model import LiveTable, TableStatus
from bot.services.live import Registry
from bot.storage.repo_inline import PersonNow, person_now
from bot.views.inline import (
    game_result,
    my_move,
    no_games_result,
    start_button,
    stats_result,
    table_link,
)
from bot.views.messages import table_key
from engine.game import OVER
from engine.view import public_view

log = logging.getLogger(__name__)

#: Seconds a person's tables and record are answered from memory.
MEMORY_SECONDS = 6.0
#: Telegram's own cache of an answer, per person (``cache_time``).
CACHE_SECONDS = 5
#: Telegram takes at most 50 results an answer.
MAX_RESULTS = 50
#: Answers remembered per person (one per query typed, in each language).
KEPT_ANSWERS = 64
#: People remembered before the idle ones are let go.
KEPT_PEOPLE = 10_000


@dataclass(frozen=True, slots=True)
class InlineAnswer:
    """The results, and the button above them (None: no button)."""

    results: tuple[InlineQueryResultArticle, ...]
    button: InlineQueryResultsButton | None = None


@dataclass(slots=True)
class _Known:
    """A person as the database said at ``at``, and the answers given since."""

    at: float
    person: PersonNow
    answers: dict[tuple[str, str, tuple[object, ...]], InlineAnswer] = field(default_factory=dict)


class InlineService:
    def __init__(self, reg: Registry) -> None:
        self.reg = reg
        self.ctx = reg.ctx
        self._known: dict[int, _Known] = {}
        self._reading: dict[int, asyncio.Future[_Known]] = {}
        self._forgets = 0  # /forget_me so far: a read begun before one is not kept
        # read: a person read from the database; remembered: from memory;
        # repeated: an answer given again as it was; chosen: cards sent.
        self.counts: Counter[str] = Counter()
        texts = self.ctx.texts
        self._stats_words = frozenset(
            word.casefold()
            for lang in SUPPORTED
            for word in texts(lang, "inline-stats-words").split()
        )

    async def answer(self, user_id: int, name: str, query: str, lang: str) -> InlineAnswer:
        """The answer to the person's query: from memory when the person was
        read in the last ``MEMORY_SECONDS``."""
        now = self.ctx.clock.now()
        known = self._known.get(user_id)
        if known is None or now - known.at > MEMORY_SECONDS:
            # One read a person at a time: the key presses that come while
            # it runs wait for it.
            reading = self._reading.get(user_id)
            if reading is None:
                reading = asyncio.ensure_future(self._read(user_id, now))
                self._reading[user_id] = reading
                reading.add_done_callback(lambda _: self._reading.pop(user_id, None))
            else:
                self.counts["remembered"] += 1
            known = await asyncio.shield(reading)
        else:
            self.counts["remembered"] += 1
        words = " ".join(query.split()).casefold()
        key = (lang, words, self._stamp(known.person))
        found = known.answers.get(key)
        if found is not None:
            self.counts["repeated"] += 1
            return found
        found = await self._build(known.person, user_id, name, words, lang, now)
        if len(known.answers) >= KEPT_ANSWERS:
            known.answers.clear()
        known.answers[key] = found
        return found

    def chosen(self, result_id: str) -> None:
        """A result was sent into a chat (Telegram tells only with inline
        feedback on); counted, nothing else to do."""
        kind = "stats" if result_id == "stats" else "game" if result_id[:1] == "g" else "other"
        self.counts[f"chosen_{kind}"] += 1

    def remembers(self, user_id: int) -> bool:
        """Whether anything of the person is held here now."""
        return user_id in self._known

    def forget(self, user_id: int) -> None:
        """``/forget_me``: nothing of the person stays here."""
        self._forgets += 1
        self._known.pop(user_id, None)

    # ------------------------------------------------------------ inside
    def _stamp(self, person: PersonNow) -> tuple[object, ...]:
        """What an answer about these tables depends on, as they stand in
        memory: an answer is given again only while none of it has moved."""
        stamp: list[object] = []
        for table_id, _ in person.tables:
            live = self.reg.cached(table_id)
            if live is None:
                stamp.append(table_id)
                continue
            moves = len(live.game.actions) if live.game is not None else -1
            stamp.append((table_id, live.status, moves, live.claim_vote, live.due_at, live.paused))
        return tuple(stamp)

    async def _read(self, user_id: int, now: float) -> _Known:
        forgets = self._forgets
        person = await self.ctx.db.run(person_now, user_id, table_key)
        self.counts["read"] += 1
        known = _Known(now, person)
        if forgets == self._forgets:  # no /forget_me meanwhile
            if len(self._known) >= KEPT_PEOPLE:
                self._let_go(now)
            self._known[user_id] = known
        return known

    def _let_go(self, now: float) -> None:
        for uid in [u for u, k in self._known.items() if now - k.at > MEMORY_SECONDS]:
            del self._known[uid]

    async def _build(
        self, person: PersonNow, user_id: int, name: str, words: str, lang: str, now: float
    ) -> InlineAnswer:
        tr = partial(self.ctx.texts, lang)
        if words in self._stats_words:
            return InlineAnswer((stats_result(tr, name, person.authority, person.stats),))
        games = []
        for table_id, message_id in person.tables:
            live = await self.reg.get(table_id)
            if live is None or not _running(live):
                continue
            seat = live.seat_of(user_id)
            if seat is None:
                continue
            if words and words not in live.chat_title.casefold():
                continue
            games.append((live, seat, message_id))
        if not games and not words:
            bot = self.ctx.bot_username
            return InlineAnswer((no_games_result(tr, bot),), start_button(tr))
        games.sort(key=_urgency)
        s = self.ctx.settings
        app = (s.webapp_short_name or "") if s.webapp_url else ""
        results = tuple(
            game_result(
                tr,
                live,
                seat,
                now,
                s.zone,
                table_link(live, message_id, self.ctx.bot_username, app),
            )
            for live, seat, message_id in games[:MAX_RESULTS]
        )
        return InlineAnswer(results)


def _running(live: LiveTable) -> bool:
    return (
        live.status == TableStatus.PLAYING
        and live.game is not None
        and public_view(live.game).phase != OVER
    )


def _urgency(found: tuple[LiveTable, int, int | None]) -> tuple[int, float, int]:
    """The person's own moves first, the nearest deadline first; then the rest."""
    live, seat, _ = found
    due = live.due_at if live.due_at is not None else math.inf
    return (0 if my_move(live, seat) else 1, due, live.table_id)
