"""The Mini App's HTTP side: the page, its assets, its words, and the table API.

Served by the bot's own aiohttp server: added to the webhook's application in
webhook mode, on ``WEBAPP_LISTEN:WEBAPP_PORT`` in polling mode. Under the
path of ``WEBAPP_URL`` (``/app`` below):

* ``/app/`` the page; ``/app/static/<file>`` its script, style and card
  back; ``/app/texts?code=<language>`` its words. Public, like any page.
* ``/app/api/state?t=<table>``, ``/app/api/events?t=<table>`` (Server-Sent
  Events: the state again after every change), ``POST /app/api/move``,
  ``POST /app/api/look`` and ``POST /app/api/claim`` (the claim of the rest,
  «Остальные мои»): each needs ``Authorization: tma <initData>``, and
  answers only a person seated at that table, with what their seat may see
  (or a member of its group, watching: :mod:`bot.webapp.watch`). Event
  streams are served by :class:`bot.webapp.hub.Hub` in this process.
* ``/app/api/record?t=<table>&h=<hand>``: a finished hand's record, for the
  table's players and its group's members.

Every API call is counted against its person's rate first, before anything
costs: a flood is refused (429) having read nothing, asked Telegram nothing.

A move goes through ``PlayService.human_move`` like a button press, and a
claim through ``ClaimService.claim`` like the hand's claim button: the same
checks (seat, move number, turn), the same transaction, the same refusals,
whose texts the page shows.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from bot.clock import Clock
from bot.config import Settings
from bot.i18n import SUPPORTED, Texts, pick_locale
from bot.model import LiveTable
from bot.services.claims import ClaimService
from bot.services.errors import UserError
from bot.services.live import Registry
from bot.services.membership import Members
from bot.services.play import PlayService
from bot.webapp.auth import AuthError, Person, authenticate
from bot.webapp.body import MAX_BODY, json_int, json_object, table_id_of
from bot.webapp.headers import EVENT_STREAM, NO_STORE, SECURITY_HEADERS
from bot.webapp.hub import Hub, TooManyStreams
from bot.webapp.rate import Rate
from bot.webapp.state import plain, public_state, seat_state
from bot.webapp.texts import page_texts
from bot.webapp.watch import record_state, spectator_part
from engine import BLIND, EngineError
from engine.record import hand_record, hands_finished

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).resolve().parent / "static"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
# Telegram's own script is the one thing the page loads from elsewhere.
TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
# Reads (state, stream, record) a person may make per press allowed
# (PRESS_LIMIT per PRESS_WINDOW): more than any page asks, far less than a flood.
READS_PER_PRESS = 8

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# The language of the person asking, once known: refusals are told in it.
_lang: ContextVar[str | None] = ContextVar("webapp_lang", default=None)


class Refusal(Exception):
    """An API answer other than success: HTTP status, locale key, its values."""

    def __init__(self, status: int, key: str, **args: Any) -> None:
        super().__init__(key)
        self.status = status
        self.key = key
        self.args_ = args


class TableApp:
    def __init__(
        self,
        settings: Settings,
        reg: Registry,
        play: PlayService,
        claims: ClaimService,
        texts: Texts,
        clock: Clock,
        members: Members,
    ) -> None:
        assert settings.webapp_url is not None
        self.settings = settings
        self.reg = reg
        self.play = play
        self.claims = claims
        self.texts = texts
        self.clock = clock
        # Who may watch a table without a seat: its group's members.
        self.members = members
        self.base = urlsplit(settings.webapp_url).path.rstrip("/")
        self.hub = Hub(reg, texts, clock, members)
        self._token = settings.bot_token.get_secret_value()
        self._words = {
            lang: json.dumps(words, ensure_ascii=False).encode()
            for lang, words in page_texts(texts).items()
        }
        self._static = _load_static()
        version = hashlib.sha256(b"".join(body for body, _ in self._static.values())).hexdigest()
        page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
        self._page = page.replace("__VERSION__", version[:12]).encode()
        # Each API call is counted first: moves as button presses, reads apart.
        self._moves = Rate(settings.press_limit, settings.press_window)
        self._reads = Rate(settings.press_limit * READS_PER_PRESS, settings.press_window)

    # ------------------------------------------------------------ serving
    def install(self, app: web.Application) -> None:
        """Add the routes to an application (the webhook's, or our own)."""
        b = self.base
        if b:
            app.router.add_get(b, self._to_page)
        app.router.add_get(b + "/", self._guarded(self._index))
        app.router.add_get(b + "/static/{name}", self._guarded(self._asset))
        app.router.add_get(b + "/texts", self._guarded(self._texts))
        app.router.add_get(b + "/api/state", self._guarded(self._state))
        app.router.add_get(b + "/api/events", self._guarded(self._events))
        app.router.add_post(b + "/api/move", self._guarded(self._move))
        app.router.add_post(b + "/api/look", self._guarded(self._look))
        app.router.add_post(b + "/api/claim", self._guarded(self._claim))
        app.router.add_get(b + "/api/record", self._guarded(self._record))
        app.on_shutdown.append(self._on_shutdown)

    @contextlib.asynccontextmanager
    async def serving(self, host: str, port: int) -> AsyncIterator[None]:
        """Polling mode: a server of its own for as long as the block runs."""
        app = web.Application(client_max_size=MAX_BODY * 16)
        self.install(app)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=5)
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
            log.info("Mini App: listening on %s:%s", host, port)
            yield
        finally:
            await runner.cleanup()

    async def _on_shutdown(self, _: web.Application) -> None:
        self.hub.close()

    def _guarded(self, handler: Handler) -> Handler:
        """Refusals become JSON with the text in the person's language."""

        async def run(request: web.Request) -> web.StreamResponse:
            token = _lang.set(None)
            try:
                response = await handler(request)
            except Refusal as r:
                lang = _lang.get() or self.settings.default_lang
                text = plain(self.texts(lang, r.key, **r.args_))
                response = web.json_response(
                    {"error": r.key, "text": text}, status=r.status, headers=NO_STORE
                )
            finally:
                _lang.reset(token)
            if not response.prepared:
                response.headers.update(SECURITY_HEADERS)
            return response

        return run

    # ------------------------------------------------------------- assets
    async def _to_page(self, request: web.Request) -> web.StreamResponse:
        query = f"?{request.query_string}" if request.query_string else ""
        raise web.HTTPFound(self.base + "/" + query)

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.Response(
            body=self._page, content_type="text/html", charset="utf-8", headers={**NO_STORE}
        )

    async def _asset(self, request: web.Request) -> web.StreamResponse:
        found = self._static.get(request.match_info["name"])
        if found is None:
            raise web.HTTPNotFound()
        body, kind = found
        return web.Response(
            body=body, headers={"Content-Type": kind, "Cache-Control": "public, max-age=86400"}
        )

    async def _texts(self, request: web.Request) -> web.StreamResponse:
        lang = pick_locale(request.query.get("code"), self.settings.default_lang)
        return web.Response(
            body=self._words[lang if lang in SUPPORTED else self.settings.default_lang],
            content_type="application/json",
            headers={"Cache-Control": "public, max-age=3600"},
        )

    # ---------------------------------------------------------------- API
    def _person(self, request: web.Request) -> Person:
        try:
            person = authenticate(
                request.headers.get("Authorization"),
                self._token,
                self.clock.now(),
                self.settings.webapp_auth_ttl,
                self.settings.default_lang,
            )
        except AuthError as e:
            raise Refusal(401, e.key) from None
        _lang.set(person.lang)
        return person

    async def _seated(self, person: Person, raw_table: object) -> tuple[LiveTable, int]:
        """The table asked for and the person's seat at it; anyone else is
        refused alike, whether the table exists or not."""
        table_id = table_id_of(raw_table, person.start_param)
        live = await self.reg.get(table_id) if table_id is not None else None
        seat = live.seat_of(person.user_id) if live is not None else None
        if live is None or seat is None:
            raise Refusal(403, "err-not-at-table")
        if live.game is None or live.game_id is None:
            raise Refusal(409, "err-stale")
        return live, seat

    def _snapshot(self, person: Person, live: LiveTable, seat: int) -> dict[str, Any]:
        return seat_state(partial(self.texts, person.lang), live, seat, self.clock.now())

    async def _state(self, request: web.Request) -> web.StreamResponse:
        person = self._person(request)
        self._throttle_read(person.user_id)
        live, seat = await self._viewer(person, request.query.get("t"))
        if seat is None:
            tr = partial(self.texts, person.lang)
            return _json({**public_state(tr, live), **spectator_part(tr, live, self.clock.now())})
        return _json(self._snapshot(person, live, seat))

    async def _viewer(self, person: Person, raw_table: object) -> tuple[LiveTable, int | None]:
        """The table asked for and the person's seat at it, or None for a
        member of its group watching; anyone else is refused alike, whether
        the table exists or not."""
        table_id = table_id_of(raw_table, person.start_param)
        live = await self.reg.get(table_id) if table_id is not None else None
        if live is None:
            raise Refusal(403, "err-not-at-table")
        seat = live.seat_of(person.user_id)
        if seat is None:
            member = await self.members(live.chat_id, person.user_id)
            if member is None:  # Telegram did not answer: not known, not refused for good
                raise Refusal(503, "webapp-err-telegram")
            if not member:
                raise Refusal(403, "err-not-at-table")
        if live.game is None or live.game_id is None:
            raise Refusal(409, "err-stale")
        return live, seat

    async def _record(self, request: web.Request) -> web.StreamResponse:
        """A finished hand's record (``h``: its number from 1), for the
        table's players and its group's members; a hand in play is refused."""
        person = self._person(request)
        self._throttle_read(person.user_id)
        raw = request.query.get("h", "")
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 4):
            raise Refusal(400, "webapp-err-request")
        live, _ = await self._viewer(person, request.query.get("t"))
        g = live.game
        assert g is not None
        hand_no = int(raw) - 1
        try:
            rec = hand_record(g, hand_no)
        except EngineError:
            in_play = hand_no == g.hand_no and not g.finished
            raise Refusal(409, "record-not-finished" if in_play else "err-stale") from None
        tr = partial(self.texts, person.lang)
        return _json(record_state(tr, live, rec, hands_finished(g)))

    async def _move(self, request: web.Request) -> web.StreamResponse:
        # A bid (up to the blind nil) or a card: nothing else is a move from
        # the page (the claim, above BLIND, has its own call: ``_claim``).
        return await self._press(request, "action", range(BLIND + 1), self.play.human_move)

    async def _claim(self, request: web.Request) -> web.StreamResponse:
        """«Остальные мои»: ``n`` is the claim's number in the hand, as the
        state offers it (``claim``)."""
        return await self._press(request, "n", None, self.claims.claim)

    async def _press(
        self,
        request: web.Request,
        key: str,
        allowed: range | None,
        act: Callable[[int, int, int, int], Awaitable[None]],
    ) -> web.StreamResponse:
        """A press from the page, as its button in the chat: the body's
        ``game``, ``seq`` and ``key`` whole numbers (``key`` in ``allowed``),
        the presser seated, the game current; then ``act(table, user, seq,
        value)``, whose refusals are the page's."""
        person = self._person(request)
        self._throttle(person.user_id)
        body = await _body(request)
        game, seq, value = (json_int(body.get(k)) for k in ("game", "seq", key))
        outside = allowed is not None and value not in allowed
        if game is None or seq is None or value is None or outside:
            raise Refusal(400, "webapp-err-request")
        live, _ = await self._seated(person, body.get("t"))
        if game != live.game_id:
            raise Refusal(409, "err-stale")
        try:
            await act(live.table_id, person.user_id, seq, value)
        except UserError as e:
            raise Refusal(409, e.key, **e.args_) from None
        return await self._after(person, live.table_id)

    async def _look(self, request: web.Request) -> web.StreamResponse:
        person = self._person(request)
        self._throttle(person.user_id)
        body = await _body(request)
        live, _ = await self._seated(person, body.get("t"))
        try:
            await self.play.look(live.table_id, person.user_id)
        except UserError as e:
            raise Refusal(409, e.key, **e.args_) from None
        return await self._after(person, live.table_id)

    async def _after(self, person: Person, table_id: int) -> web.StreamResponse:
        """The state once the move is committed (the table may have finished)."""
        live, seat = await self._seated(person, table_id)
        return _json(self._snapshot(person, live, seat))

    def _throttle(self, user_id: int) -> None:
        """PRESS_LIMIT per PRESS_WINDOW, as for buttons: taps beyond it are refused."""
        if not self._moves.take(user_id):
            raise Refusal(429, "err-too-fast")

    def _throttle_read(self, user_id: int) -> None:
        """READS_PER_PRESS times as many reads: beyond them, refused."""
        if not self._reads.take(user_id):
            raise Refusal(429, "err-too-fast")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        """The seat's state now, then again after every change, until the
        person goes or the bot stops. A reconnecting page gets the state at
        once: it catches up whatever it missed."""
        person = self._person(request)
        self._throttle_read(person.user_id)
        live, seat = await self._viewer(person, request.query.get("t"))
        if request.method != "GET":  # HEAD: the headers only
            return web.Response(headers={**SECURITY_HEADERS, **NO_STORE, **EVENT_STREAM})
        try:
            return await self.hub.serve(
                request, live, person.user_id, person.lang, spectator=seat is None
            )
        except TooManyStreams:
            raise Refusal(429, "webapp-err-streams") from None


def _load_static() -> dict[str, tuple[bytes, str]]:
    """Every asset, read once (the page is small, and held whole)."""
    out = {}
    for path in sorted(STATIC_DIR.iterdir()):
        kind = CONTENT_TYPES.get(path.suffix)
        if path.is_file() and kind is not None and path.name != "index.html":
            out[path.name] = (path.read_bytes(), kind)
    return out


def _json(data: dict[str, Any]) -> web.Response:
    return web.Response(
        body=json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(),
        content_type="application/json",
        headers=NO_STORE,
    )


async def _body(request: web.Request) -> dict[str, Any]:
    """A call's JSON body: one object as a move could be (:mod:`bot.webapp.body`), or 400."""
    data = await json_object(request)
    if data is None:
        raise Refusal(400, "webapp-err-request")
    return data
