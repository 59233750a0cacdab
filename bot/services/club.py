"""The club (seed 003): permanent partners, the afterword and Authority.

Authority grows only from gestures received in an afterword; wins never
touch it, and nothing in the club ranks people by wins.
"""

from __future__ import annotations

import logging
from functools import partial

from bot.i18n import clean_name, esc
from bot.model import LiveTable
from bot.outbox import enqueue_send
from bot.services import render
from bot.services.afterword import AfterwordService
from bot.services.live import Registry
from bot.services.play import PlayService
from bot.storage import repo_club, repo_games, repo_privacy, repo_seats, repo_tables, repo_users
from bot.storage.db import Conn
from bot.views.club import (
    BUTTON_NAME,
    Partner,
    Profile,
    partners_note,
    partners_private,
    someone,
)
from engine.scoring import sides
from engine.view import public_view

log = logging.getLogger(__name__)

PERMANENT_AFTER = 3


async def record_partners(reg: Registry, conn: Conn, live: LiveTable) -> None:
    """A finish hook (inside the transaction that ends the game): the
    partners' record, and the news when a pair becomes permanent."""
    assert live.game is not None and live.game_id is not None
    v = public_view(live.game)
    now = reg.ctx.clock.now()
    for side, members in enumerate(sides(v.players)):
        if len(members) != 2:
            continue  # an individual game: no partners
        a, b = (live.seats[s] for s in members)
        if a is None or b is None:
            continue
        if await repo_club.add_partner_game(conn, a, b, v.winner == side, now):
            await _announce_partners(reg, conn, live, a, b)


async def _announce_partners(reg: Registry, conn: Conn, live: LiveTable, a: int, b: int) -> None:
    await render.group_note(conn, live, partners_note(reg.tr_group(live), live, a, b))
    for me, other in ((a, b), (b, a)):
        await enqueue_send(conn, me, partners_private(reg.tr_user(me, live.lang), live, other))


class ClubService:
    def __init__(
        self,
        reg: Registry,
        play: PlayService,
        afterword: AfterwordService,
    ) -> None:
        self.reg = reg
        self.ctx = reg.ctx
        self.play = play
        self.afterword = afterword

    # ------------------------------------------------------ lookups
    async def profile(self, user_id: int) -> Profile:
        """The person's Authority, record and number of permanent partners."""
        stats = await repo_games.user_stats(self.ctx.db, user_id)
        auth = (await repo_club.authority(self.ctx.db, [user_id])).get(user_id, 0)
        partners = await repo_club.permanent_partners(self.ctx.db, user_id)
        return Profile(auth, dict(stats) if stats else None, len(partners))

    async def partners(self, user_id: int) -> list[Partner]:
        """The person's permanent partners, most games together first."""
        rows = await repo_club.permanent_partners(self.ctx.db, user_id)
        if not rows:
            return []
        users = await repo_users.get_users(self.ctx.db, [r["partner"] for r in rows])
        found = []
        for r in rows:
            user = users.get(r["partner"])
            found.append(Partner(user.first_name if user else "?", r["games"], r["wins"]))
        return found

    async def authority_list(self, chat_id: int) -> list[tuple[str, int]]:
        """(name, Authority) of everyone who sat at the group's tables."""
        rows = await repo_club.chat_members_by_authority(self.ctx.db, chat_id)
        return [(r["first_name"], r["authority"]) for r in rows]

    # ------------------------------------------------------ forget me
    async def forget(self, user_id: int, name: str, username: str | None) -> None:
        """Erase the person: rows, names in queued messages, seats in live games
        (the computer takes them), names held in memory; finished games keep
        anonymous results."""
        live_tables = await repo_tables.live_tables_of_user(self.ctx.db, user_id)
        for row in live_tables:
            async with self.reg.lock(row.table_id):
                live = await self.reg.get(row.table_id)
                if live is None:
                    continue
                seat = live.seat_of(user_id)
                if seat is None:
                    continue
                async with self.ctx.db.tx() as conn:
                    await repo_seats.set_seat(conn, live.table_id, seat, None)
                    live.seats[seat] = None
                    live.away.discard(seat)
                    live.names.pop(user_id, None)
                    if live.game is not None and live.status == "playing":
                        await self.play.schedule(conn, live)
                    await render.table_message(conn, self.reg, live)
                await self.play.seat_to_computer(live, seat)
            self.play.kick(row.table_id)
        afterwords = await repo_club.open_afterwords_of(self.ctx.db, user_id)
        # The name we stored may be older than the one Telegram shows now.
        stored = await repo_users.get_user(self.ctx.db, user_id)
        forms = name_forms(
            {name, stored.first_name if stored else ""},
            {username, stored.username if stored else None},
        )
        replacement = someone(partial(self.ctx.texts, self.ctx.settings.default_lang))
        erase = partial(self.ctx.db.run_tx, repo_privacy.erase_user, user_id, forms, replacement)
        await erase()  # first the rows, so that no table read again holds the person
        await self.reg.drop_person(user_id)
        self.ctx.texts.clear()  # formatted lines may hold the name
        # Then once more: a timer that held a table's lock meanwhile (an
        # afterword closing) may have queued the name or an edit of their picker.
        await erase()
        for game_id, table_id in afterwords:  # its buttons named the person
            await self.afterword.refresh(game_id, table_id)
        self.play.on_change()


def name_forms(names: set[str], usernames: set[str | None]) -> list[str]:
    """Every way a text of ours may hold a person (each name as written and
    as shown, without direction controls; HTML-escaped, cut for a button
    label or cut with "…" in the score sheet's head; each username), longest
    first."""
    forms: set[str] = set()
    for name in names | {clean_name(n) for n in names}:
        cuts = {name, name[:BUTTON_NAME]} | {name[:k] + "…" for k in range(2, len(name))}
        forms |= cuts | {esc(c) for c in cuts}
    for username in usernames:
        if username:
            forms |= {username, "@" + username}
    return sorted((f for f in forms if f), key=len, reverse=True)
