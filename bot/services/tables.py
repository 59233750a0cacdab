"""Opening a table in a group, choosing the rules, starting and cancelling.
Seats: :mod:`bot.services.seats`; the group's events: :mod:`bot.services.group_events`."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from bot.model import NO_CREATOR, LiveTable, Place, TableStatus, rules_to_json
from bot.pace import PACES
from bot.services.errors import UserError
from bot.services.live import Registry
from bot.services.play import PlayService
from bot.services.render import publish, table_message
from bot.storage import repo_club, repo_games, repo_seats, repo_tables, repo_tail, repo_users
from bot.storage.db import Conn
from bot.views.messages import table_key
from bot.views.outcome import Called, Cancelled, Change, Repost
from bot.views.table import OPTION_VALUES
from engine import EngineError, Rules
from engine.ai import LEVELS
from engine.rules import PRESETS


@dataclass(frozen=True, slots=True)
class Person:
    """Who pressed or wrote, as Telegram told us."""

    user_id: int
    first_name: str
    username: str | None
    lang: str


#: Asks Telegram whether a user is an admin of a group: (chat, user) -> bool.
#: Always asked of the table's own chat, never of the chat a button came from.
AdminCheck = Callable[[int, int], Awaitable[bool]]

#: Run in the transaction that opens a table: who is called to it (its
#: group's subscribers), their calls shown with the table's message.
OpenHook = Callable[[Conn, LiveTable], Awaitable[Sequence[Called]]]


@dataclass(frozen=True, slots=True)
class Opening:
    """A table about to open: where, with what, and who sits where.

    ``seats`` are the people to seat, seat by seat (shorter: the rest free);
    those the bot cannot write to (never started it, blocked it) are left
    out. ``pace`` None: the default one."""

    place: Place
    title: str
    creator_id: int
    lang: str
    rules: Rules
    ai_level: str
    seats: tuple[int | None, ...] = ()
    pace: int | None = None
    hints: bool = False
    rematch_of: int | None = None


class TableService:
    def __init__(
        self,
        reg: Registry,
        play: PlayService,
        is_admin: AdminCheck,
        *,
        on_open: OpenHook,
    ) -> None:
        """``on_open``: part of the transaction that opens a table (the calls)."""
        self.reg = reg
        self.ctx = reg.ctx
        self.play = play
        self.is_admin = is_admin
        self.on_open = on_open
        self._options_open: set[int] = set()

    async def remember(self, person: Person, started: bool = False) -> None:
        async with self.ctx.db.tx() as conn:
            await repo_users.upsert_user(
                conn, person.user_id, person.first_name, person.username, person.lang, started
            )
        self.reg.langs[person.user_id] = person.lang

    async def toggle_quiet(self, user_id: int) -> bool:
        """``/quiet``: "your turn" pings off, or on again; True when now quiet."""
        user = await repo_users.get_user(self.ctx.db, user_id)
        quiet = not (user.quiet if user else False)
        async with self.ctx.db.tx() as conn:
            await repo_users.set_quiet(conn, user_id, quiet)
        return quiet

    # --------------------------------------------------------------- open
    async def new_table(self, place: Place, title: str, person: Person | None) -> LiveTable:
        """``/newgame`` in a group's topic. ``person`` is None for an anonymous
        admin or a channel: the table then has no creator, and whoever sits
        at it (or any admin) may set it up and start it."""
        async with self.reg.chat_lock(place.chat_id):
            return await self._new_table(place, title, person)

    async def _new_table(self, place: Place, title: str, person: Person | None) -> LiveTable:
        existing = await self.reg.live_in(place.chat_id, place.thread_id)
        if existing is not None:
            # Bring the table message to the bottom of the chat instead of a second table.
            old = await repo_tail.message_of(self.ctx.db, table_key(existing.table_id))
            async with self.reg.lock(existing.table_id), self.ctx.db.tx() as conn:
                options = existing.table_id in self._options_open
                await table_message(conn, self.reg, existing, options, repost=Repost(old))
            self.ctx.outbox.wake()
            raise UserError("err-table-exists")
        if place.topic:
            title = f"{title} › {place.topic}"
        opening = Opening(
            place=place,
            title=title,
            creator_id=NO_CREATOR if person is None else person.user_id,
            lang=self.ctx.settings.default_lang if person is None else person.lang,
            rules=PRESETS["classic"],
            # AI_LEVEL as it is now: the table's own from here on.
            ai_level=self.ctx.settings.ai_level,
            seats=() if person is None else (person.user_id,),
        )
        return await self.open_new(opening, person)

    async def open_new(self, opening: Opening, person: Person | None = None) -> LiveTable:
        """Open a table, under its chat's lock (``/newgame``, «Ещё партию»):
        in one transaction its row, its seats, its group message and the
        calls to the group's subscribers, so a crash leaves all or none of
        them. ``person``: who opened it, remembered in that transaction.
        A unique index may refuse the row (``sqlite3.IntegrityError``, e.g.
        a second rematch of one table): nothing is written then."""
        wanted = [uid for uid in opening.seats if uid is not None]
        users = await repo_users.get_users(self.ctx.db, wanted)
        can_write = {uid for uid, u in users.items() if u.started and not u.blocked}
        players = opening.rules.players
        seats = [uid if uid in can_write else None for uid in opening.seats[:players]]
        seats += [None] * (players - len(seats))
        names = {uid: users[uid].first_name for uid in seats if uid is not None}
        if person is not None and person.user_id in names:
            names[person.user_id] = person.first_name
        authority = await repo_club.authority(self.ctx.db, list(names))
        async with self.ctx.db.tx() as conn:
            if person is not None:
                await repo_users.upsert_user(
                    conn, person.user_id, person.first_name, person.username, person.lang
                )
            table_id = await repo_tables.create_table(
                conn,
                opening.place.chat_id,
                opening.title,
                opening.creator_id,
                rules_to_json(opening.rules),
                players,
                opening.lang,
                opening.place.thread_id,
            )
            extra: dict[str, object] = {"ai_level": opening.ai_level}
            if opening.pace is not None:
                extra["pace"] = opening.pace
            if opening.hints:
                extra["hints"] = 1
            if opening.rematch_of is not None:
                extra["rematch_of"] = opening.rematch_of
            await repo_tables.update_table(conn, table_id, **extra)
            for seat, uid in enumerate(seats):
                if uid is not None:
                    await repo_seats.set_seat(conn, table_id, seat, uid)
            # The table as it will be read back once committed: shown, and
            # its calls made, in this same transaction.
            shown = LiveTable(
                table_id=table_id,
                chat_id=opening.place.chat_id,
                chat_title=opening.title,
                creator_id=opening.creator_id,
                status=TableStatus.OPEN,
                rules=opening.rules,
                lang=opening.lang,
                seats=list(seats),
                names=names,
                hints=opening.hints,
                thread_id=opening.place.thread_id,
                ai_level=opening.ai_level or self.ctx.settings.ai_level,
                authority=authority,
            )
            if opening.pace is not None:
                shown.pace = opening.pace
            calls = await self.on_open(conn, shown)
            await publish(conn, self.reg, shown, Change(tuple(calls), table=True))
        if person is not None:
            self.reg.langs[person.user_id] = person.lang
        self.ctx.outbox.wake()
        live = await self.reg.get(table_id)
        assert live is not None
        return live

    async def own_open_table(self, table_id: int, chat_id: int) -> LiveTable:
        """The open table pressed in its own group ``chat_id``: a table of
        another chat (or none) is "stale" before anything tells its state
        (read from its row: a forged press loads no other chat's game)."""
        row = await repo_tables.get_table(self.ctx.db, table_id)
        if row is None or row.chat_id != chat_id:
            raise UserError("err-stale")
        return await self.open_table(table_id)

    def options_shown(self, table_id: int) -> bool:
        """Whether the table message shows its options now (kept as it is
        redrawn)."""
        return table_id in self._options_open

    async def open_table(self, table_id: int) -> LiveTable:
        """The table while it is open; "closed" or "started" otherwise."""
        live = await self.reg.get(table_id)
        if live is None or live.status in ("finished", "cancelled"):
            raise UserError("err-table-closed")
        if live.status != "open":
            raise UserError("err-table-started")
        return live

    # -------------------------------------------------------------- rules
    async def _creator_table(self, table_id: int, person: Person, chat_id: int) -> LiveTable:
        """The open table, if ``person`` may set it up: its creator; at a table
        an anonymous admin or a channel opened, anyone seated or any admin of
        its group. Only pressed in its own group (``chat_id``): the data of
        its buttons can be forged from any chat, and another chat's table
        is answered as no table, whatever its state."""
        live = await self.own_open_table(table_id, chat_id)
        if person.user_id == live.creator_id:
            return live
        if live.creator_id != NO_CREATOR:
            raise UserError("err-not-creator")
        if live.seat_of(person.user_id) is None and not await self.is_admin(
            live.chat_id, person.user_id
        ):
            raise UserError("err-not-seated")
        return live

    async def set_preset(self, table_id: int, person: Person, chat_id: int, name: str) -> None:
        async with self.reg.lock(table_id):
            live = await self._creator_table(table_id, person, chat_id)
            rules = PRESETS[name]
            await self._set_rules(live, rules)

    async def cycle_option(self, table_id: int, person: Person, chat_id: int, index: int) -> None:
        """Next value of one option; values that clash with the rest are skipped."""
        async with self.reg.lock(table_id):
            live = await self._creator_table(table_id, person, chat_id)
            if not 0 <= index < len(OPTION_VALUES):
                raise UserError("err-stale")
            name, values = OPTION_VALUES[index]
            current = values.index(getattr(live.rules, name))
            for step in range(1, len(values)):
                value = values[(current + step) % len(values)]
                try:
                    # The option's value comes from the engine's own list for it.
                    rules = dataclasses.replace(live.rules, **{name: value}).validate()  # type: ignore[arg-type]
                except EngineError:
                    continue
                await self._set_rules(live, rules)
                return
            raise UserError("err-bad-rules")

    async def cycle_pace(self, table_id: int, person: Person, chat_id: int) -> None:
        async with self.reg.lock(table_id):
            live = await self._creator_table(table_id, person, chat_id)
            i = PACES.index(live.pace) if live.pace in PACES else 0
            pace = PACES[(i + 1) % len(PACES)]
            await self._change(live, "pace", pace, pace)

    async def toggle_hints(self, table_id: int, person: Person, chat_id: int) -> None:
        """The option «Подсказки»: a table setting, not a rule of the game."""
        async with self.reg.lock(table_id):
            live = await self._creator_table(table_id, person, chat_id)
            await self._change(live, "hints", not live.hints, int(not live.hints))

    async def cycle_ai_level(self, table_id: int, person: Person, chat_id: int) -> None:
        """The computer's strength at this table: the next of the engine's levels."""
        async with self.reg.lock(table_id):
            live = await self._creator_table(table_id, person, chat_id)
            i = LEVELS.index(live.ai_level) if live.ai_level in LEVELS else len(LEVELS) - 1
            level = LEVELS[(i + 1) % len(LEVELS)]
            await self._change(live, "ai_level", level, level)

    async def _change(self, live: LiveTable, field: str, value: object, stored: object) -> None:
        """One table setting (``field``: pace, hints, the computer's strength)
        changed in memory and stored in one transaction, put back if that fails."""
        before = getattr(live, field)
        setattr(live, field, value)
        try:
            async with self.ctx.db.tx() as conn:
                await repo_tables.update_table(conn, live.table_id, **{field: stored})
                await table_message(conn, self.reg, live, self.options_shown(live.table_id))
        except BaseException:
            setattr(live, field, before)
            raise
        self.ctx.outbox.wake()

    async def show_options(self, table_id: int, person: Person, chat_id: int, show: bool) -> None:
        async with self.reg.lock(table_id):
            live = await self._creator_table(table_id, person, chat_id)
            if show:
                self._options_open.add(table_id)
            else:
                self._options_open.discard(table_id)
            async with self.ctx.db.tx() as conn:
                await table_message(conn, self.reg, live, show)
        self.ctx.outbox.wake()

    async def _set_rules(self, live: LiveTable, rules: Rules) -> None:
        async with self.ctx.db.tx() as conn:
            if rules.players != live.players:
                await repo_seats.resize_seats(conn, live.table_id, rules.players)
                live.seats = (live.seats + [None] * rules.players)[: rules.players]
            live.rules = rules
            await repo_tables.update_table(
                conn, live.table_id, rules_json=rules_to_json(rules), players=rules.players
            )
            await table_message(conn, self.reg, live, live.table_id in self._options_open)
        self.ctx.outbox.wake()

    # -------------------------------------------------------------- start
    async def start(self, table_id: int, person: Person, chat_id: int) -> None:
        async with self.reg.lock(table_id):
            live = await self._creator_table(table_id, person, chat_id)
            if not live.humans():
                raise UserError("err-no-players")
            self._options_open.discard(table_id)
            await self.play.start_game(live)

    # ------------------------------------------------------------- cancel
    async def cancel(self, place: Place, user_id: int | None, is_admin: bool) -> LiveTable:
        """Checks for ``/cancel`` (``user_id`` None: an anonymous admin); the
        confirmation button calls ``confirm_cancel``."""
        live = await self.reg.live_in(place.chat_id, place.thread_id)
        if live is None:
            raise UserError("err-no-table")
        if user_id != live.creator_id and not is_admin:
            raise UserError("err-cancel-rights")
        return live

    async def confirm_cancel(
        self, table_id: int, person: Person, chat_id: int, *, cancel: bool = True
    ) -> LiveTable:
        """The answer to ``/cancel``'s question, pressed in ``chat_id``:
        cancel, or (``cancel=False``) keep playing. Only in the table's own
        group, by its creator or an admin of that group (the data can be
        forged from any chat, where the presser may well be an admin)."""
        row = await repo_tables.get_table(self.ctx.db, table_id)
        # Another chat's table, whatever its state, is answered as no table.
        if row is None or row.chat_id != chat_id:
            raise UserError("err-stale")
        if row.status not in (TableStatus.OPEN, TableStatus.PLAYING):
            raise UserError("err-table-closed")
        # Telegram is asked outside the table's lock: nobody waits on it.
        if person.user_id != row.creator_id and not await self.is_admin(
            row.chat_id, person.user_id
        ):
            raise UserError("err-cancel-rights")
        async with self.reg.lock(table_id):
            live = await self.reg.get(table_id)
            if live is None or live.ended:
                raise UserError("err-table-closed")
            if live.chat_id != chat_id:
                raise UserError("err-stale")
            if not cancel:
                return live
            async with self.ctx.db.tx() as conn:
                await repo_tables.update_table(conn, table_id, status="cancelled")
                if live.game_id is not None and live.status == "playing":
                    await repo_games.end_game(conn, live.game_id, "cancelled", None)
                live.status = TableStatus.CANCELLED
                await publish(conn, self.reg, live, Change((Cancelled(),)))
            self.reg.forget(table_id)
        self.ctx.outbox.wake()
        return live
