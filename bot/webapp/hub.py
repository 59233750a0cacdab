"""The Mini App's live streams, served by the bot itself.

A page opens ``/api/events``; once the bot has checked who asks and where
they sit (:mod:`bot.webapp.server`), the connection stays open and gets the
seat's state at once, then again after each change of the table
(Server-Sent Events), with what that seat may see only
(:mod:`bot.webapp.state`).

Every table changes under its lock, so when a watched table's lock is
released (``Registry.on_release``) the table is noted, and at most once per
``SCAN_DELAY`` each noted table whose picture changed (:func:`mark`) is
built, once per language for the part every seat shares, and handed to its
pages. A table whose lock is held again by then is left: it may hold a
change not yet committed; its release notes it again. A page that reads
slowly gets only the newest state when it catches up, never a backlog.

Open streams are limited (``STREAMS_PER_PERSON``, ``WATCHERS_PER_TABLE``): a
stream beyond them is refused (:class:`TooManyStreams`) before anything is
sent; a closed stream frees its place at once. Watchers are counted apart
from the players: a room of watchers (any member may watch) never takes a
seated player's place. A watcher (a group member not
seated) is asked after again every ``MEMBER_RECHECK`` seconds: who has left
the group has their stream ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from aiohttp import web

from bot.clock import Clock
from bot.i18n import Texts
from bot.model import LiveTable
from bot.services.live import Registry
from bot.services.membership import Members
from bot.webapp.headers import EVENT_STREAM, NO_STORE, SECURITY_HEADERS
from bot.webapp.state import plain, public_state, seat_part
from bot.webapp.watch import MEMBER_RECHECK, spectator_part

# Seconds between a change and the pass that tells the pages: moves made
# within it reach the page together, well inside the second people expect.
SCAN_DELAY = 0.1
# A stream that saw no change for this long gets a comment line: proxies keep
# it open, and a page that went away is noticed.
KEEPALIVE = 15.0
# Seconds between looks at a quiet stream's connection: one the page closed
# frees its place (below) within this, not at the next write.
CLOSED_CHECK = 1.0
# Streams one person may hold open at once, over all tables: a phone and a
# desktop, each reconnecting, with room to spare; beyond it, a leak or a flood.
STREAMS_PER_PERSON = 4
# Watchers' streams one table may have open at once (group members not
# seated): a room of them, each costing a state built at every change. The
# players' streams are not counted here, so however many members watch, a
# seated player is never refused (their own streams are at most
# STREAMS_PER_PERSON each, six seats at most).
WATCHERS_PER_TABLE = 32


class TooManyStreams(Exception):
    """A new stream beyond the limits: refused, nothing sent."""


def mark(live: LiveTable) -> tuple[Any, ...]:
    """What must differ for any seat's picture of the table to differ. The
    game is compared by identity and length: the services replace it, and
    the length costs nothing to compare should one ever change it in place."""
    return (
        live.game,
        live.seq,
        live.status,
        live.due_at,
        live.paused,
        live.claim_vote,
        sum(live.claims.values()),  # a claim refused at once changes no move
        len(live.looked),
        len(live.away),
        len(live.blocked),
        tuple(live.seats),
        tuple(live.names.get(u) for u in live.seats if u is not None),
    )


def _dumps(build: Callable[..., dict[str, Any]], *args: Any) -> str:
    return json.dumps(build(*args), ensure_ascii=False, separators=(",", ":"))


def _event(kind: str, data: dict[str, Any]) -> bytes:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {kind}\ndata: {body}\n\n".encode()


def _gone(tr: Callable[..., str]) -> bytes:
    """The last event of a stream whose person may no longer see the table."""
    return _event("gone", {"error": "err-not-at-table", "text": plain(tr("err-not-at-table"))})


@dataclass(eq=False, slots=True)
class Page:
    """One open stream: a person's page, and the newest event it has not had."""

    user_id: int
    lang: str
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    pending: bytes | None = None
    gone: bool = False  # the person no longer sits at the table: the stream ends
    spectator: bool = False  # a group member watching: the public part, no card

    def take(self) -> bytes | None:
        data, self.pending = self.pending, None
        return data

    def waiting(self) -> bool:
        return self.pending is not None


@dataclass(eq=False, slots=True)
class Watched:
    """A table somebody watches. ``live`` is kept: a finished game is dropped
    from the registry, and its last state must still reach the pages."""

    live: LiveTable
    seen: tuple[Any, ...]
    pages: set[Page] = field(default_factory=set)
    public_json: dict[str, str] = field(default_factory=dict)  # per language, this change


class Hub:
    def __init__(self, reg: Registry, texts: Texts, clock: Clock, members: Members) -> None:
        self.reg = reg
        self.texts = texts
        self.clock = clock
        self.now = clock.now
        self.members = members
        self._tables: dict[int, Watched] = {}
        # Streams open (or being opened) per person, and watchers' per table.
        self._by_person: dict[int, int] = {}
        self._watchers: dict[int, int] = {}
        self._noted: set[int] = set()  # watched tables released since the last pass
        self._scan: asyncio.TimerHandle | None = None
        self.closing = False
        reg.on_release = self._released
        reg.on_forget.append(self._forgotten)

    def __len__(self) -> int:
        """Pages open now."""
        return sum(len(w.pages) for w in self._tables.values())

    async def serve(
        self,
        request: web.Request,
        live: LiveTable,
        user_id: int,
        lang: str,
        *,
        spectator: bool = False,
    ) -> web.StreamResponse:
        """The seat's state now, then after every change, until the person
        goes or the bot stops. A reconnecting page gets the state at once:
        it catches up whatever it missed. Beyond the limits of open streams,
        :class:`TooManyStreams` is raised before anything is sent."""
        with self._place(live.table_id, user_id, spectator):
            return await self._serve(request, live, user_id, lang, spectator)

    @contextlib.contextmanager
    def _place(self, table_id: int, user_id: int, spectator: bool) -> Iterator[None]:
        """A stream's place, taken at once (no await between the count and
        the taking), freed when the stream ends however it ends. A watcher
        also takes one of the table's WATCHERS_PER_TABLE; a player only
        their own."""
        counted = [(self._by_person, user_id)]
        if spectator:
            counted.append((self._watchers, table_id))
        if self._by_person.get(user_id, 0) >= STREAMS_PER_PERSON or (
            spectator and self._watchers.get(table_id, 0) >= WATCHERS_PER_TABLE
        ):
            raise TooManyStreams
        for counts, key in counted:
            counts[key] = counts.get(key, 0) + 1
        try:
            yield
        finally:
            for counts, key in counted:
                counts[key] -= 1
                if not counts[key]:
                    del counts[key]

    async def _serve(
        self, request: web.Request, live: LiveTable, user_id: int, lang: str, spectator: bool
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={**SECURITY_HEADERS, **NO_STORE, **EVENT_STREAM})
        await response.prepare(request)
        page = Page(user_id, lang, spectator=spectator)
        async with self.reg.lock(live.table_id):  # the table as committed
            live = self.reg.cached(live.table_id) or live
            watched = self._watch(live, page)
            # The shared part is reused only if built for the table as it is
            # now: a change not yet passed on (its pass is due, or the table
            # was busy) would have the page start from an older state.
            page.pending = self._build(watched, page, shared=mark(live) == watched.seen)
        recheck = None
        if spectator:  # from now: the moment is read before anything can wait
            first = self.clock.now() + MEMBER_RECHECK
            recheck = asyncio.create_task(self._recheck(watched, page, first))
        try:
            while True:
                data = page.take()
                if data is not None:
                    await response.write(data)
                if page.waiting():  # built while this one was written (a "gone" too)
                    continue
                if page.gone or self.closing:
                    break
                page.wake.clear()
                await self._quiet(request, response, page)
        except (ConnectionError, RuntimeError):
            pass  # the page went away (closed, reloaded, lost the network)
        finally:
            if recheck is not None:
                recheck.cancel()
            self._unwatch(watched.live.table_id, page)
        return response

    async def _quiet(self, request: web.Request, response: web.StreamResponse, page: Page) -> None:
        """Until the page has something to be sent; a keep-alive comment every
        KEEPALIVE seconds; ConnectionResetError once the page has gone."""
        quiet = 0.0
        while True:
            try:
                async with asyncio.timeout(CLOSED_CHECK):
                    await page.wake.wait()
                return
            except TimeoutError:
                transport = request.transport
                if transport is None or transport.is_closing():
                    raise ConnectionResetError from None
                quiet += CLOSED_CHECK
                if quiet >= KEEPALIVE:
                    await response.write(b": keep-alive\n\n")
                    quiet = 0.0

    async def _recheck(self, watched: Watched, page: Page, moment: float) -> None:
        """A watcher's stream lasts while they are in the group: asked again
        every MEMBER_RECHECK seconds (Telegram's answer, remembered as long);
        when Telegram does not answer, the stream goes on and is asked
        about next time."""
        while not page.gone:
            await self.clock.sleep_until(moment)
            moment = self.clock.now() + MEMBER_RECHECK
            live = watched.live
            if live.seat_of(page.user_id) is not None:
                continue  # seated now: a player, not a watcher
            if await self.members(live.chat_id, page.user_id) is False:
                page.gone = True
                page.pending = _gone(partial(self.texts, page.lang))
                page.wake.set()

    def close(self) -> None:
        """The server stops: every stream ends."""
        self.closing = True
        if self._scan is not None:
            self._scan.cancel()
            self._scan = None
        for watched in self._tables.values():
            for page in watched.pages:
                page.wake.set()

    # ------------------------------------------------------------ watching
    def _watch(self, live: LiveTable, page: Page) -> Watched:
        watched = self._tables.get(live.table_id)
        if watched is None:
            watched = self._tables[live.table_id] = Watched(live, mark(live))
        else:  # ``seen`` stays: the other pages are told of the change at its pass
            watched.live = live
        watched.pages.add(page)
        return watched

    def _unwatch(self, table_id: int, page: Page) -> None:
        watched = self._tables.get(table_id)
        if watched is None:
            return
        watched.pages.discard(page)
        if not watched.pages:
            del self._tables[table_id]
            self._noted.discard(table_id)

    def _forgotten(self, user_id: int) -> None:
        """After ``/forget_me``: a table kept here (a finished one, dropped by
        the registry) holds the person as the database no longer does. Its
        pages get it as the bot shows any forgotten player (their seat empty:
        named by its place, as when read again), never their id or name."""
        for table_id, watched in self._tables.items():
            live = watched.live
            if user_id not in live.seats and user_id not in live.names:
                continue
            watched.live = dataclasses.replace(
                live,
                seats=[None if u == user_id else u for u in live.seats],
                names={u: n for u, n in live.names.items() if u != user_id},
            )
            self._released(table_id)  # its pages are told at the next pass

    def _released(self, table_id: int) -> None:
        if table_id in self._tables:
            self._noted.add(table_id)
            if self._scan is None:
                self._scan = asyncio.get_running_loop().call_later(SCAN_DELAY, self._pass)

    def _pass(self) -> None:
        self._scan = None
        noted, self._noted = self._noted, set()
        for table_id in noted:
            watched = self._tables.get(table_id)
            if watched is None or self.reg.busy(table_id):
                continue  # no page any more; or held again, and noted at its release
            current = self.reg.cached(table_id)
            if current is not None:
                watched.live = current
            now = mark(watched.live)
            if now == watched.seen:
                continue
            watched.seen, watched.public_json = now, {}
            for page in watched.pages:
                if page.gone:
                    continue  # its last event is out, or waiting to be
                page.pending = self._build(watched, page)
                page.wake.set()

    def _build(self, watched: Watched, page: Page, *, shared: bool = True) -> bytes:
        """The seat's state as an event: the public part as the table's other
        pages share it (``shared``: else built for this page alone), and the
        seat's own part, in one JSON object."""
        live = watched.live
        tr = partial(self.texts, page.lang)
        seat = live.seat_of(page.user_id)
        if live.game is None or (seat is None and not page.spectator):
            page.gone = True
            return _gone(tr)
        public = watched.public_json.get(page.lang) if shared else None
        if public is None:
            public = _dumps(public_state, tr, live)
            if shared:
                watched.public_json[page.lang] = public
        if seat is None:
            own = _dumps(spectator_part, tr, live, self.now())
        else:
            own = _dumps(seat_part, tr, live, seat, self.now())
        data = public[:-1] + "," + own[1:]  # {...public, ...own}
        return f"id: {live.seq}\nevent: state\ndata: {data}\n\n".encode()
