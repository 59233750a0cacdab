"""The HTTP side: the aiohttp server on 127.0.0.1 and its one route,
``/bot{token}/{method}``, which records each call and answers it as Telegram
would (or with an injected fault)."""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType
from typing import Any, Self

from aiohttp import web

from . import errors
from .api import REAL_METHODS, decode_params
from .delivery import UpdateDelivery
from .errors import ApiError
from .faults import FaultInjection
from .limits import RateLimiting
from .methods import lookup
from .models import CallRecord


def _chat_id_of(params: dict[str, Any]) -> int | None:
    value = params.get("chat_id")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class HttpRoutes(FaultInjection, RateLimiting, UpdateDelivery):
    """Start and stop the server; turn each request into a recorded call
    passed through faults and flood limits to the method or the long poll."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._delivery: asyncio.Task[None] | None = None

    # -------------------------------------------------------------- lifecycle

    @property
    def base_url(self) -> str:
        """For ``TelegramAPIServer.from_base(fake.base_url)``."""
        if self._port is None:
            raise RuntimeError("FakeTelegram is not started")
        return f"http://127.0.0.1:{self._port}"

    async def start(self) -> None:
        """Listen on a free port of 127.0.0.1."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        # A dropped client connection cancels its handler, as a closed socket ends
        # a request on Telegram's side; it also lets stop() finish promptly.
        self._runner = web.AppRunner(
            app, handler_cancellation=True, shutdown_timeout=1.0, access_log=None
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = self._runner.addresses[0][1]
        self._last_activity = asyncio.get_running_loop().time()
        self._delivery = asyncio.create_task(self._deliver())

    async def stop(self) -> None:
        """Release long polls and hung requests, then close the server."""
        self._closing.set()
        self._notify()
        if self._delivery is not None:
            self._delivery.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._delivery
            self._delivery = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # ------------------------------------------------------------------- HTTP

    async def _read_params(self, request: web.Request) -> dict[str, Any]:
        """Telegram accepts query strings, urlencoded and multipart forms, and JSON."""
        raw: dict[str, Any] = dict(request.query)
        if request.content_type == "application/json":
            body = await request.json()
            if isinstance(body, dict):
                raw.update(body)
        elif request.body_exists:
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    raw[key] = value.file.read()
                else:  # a text field, or a part without a file name: its bytes
                    raw[key] = value if isinstance(value, str) else bytes(value)
        return decode_params(raw)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        token = request.match_info["token"]
        method = request.match_info["method"]
        self.tokens.add(token)
        params = await self._read_params(request)
        entry = lookup(method)
        is_poll = method.lower() == "getupdates"
        canonical = "getUpdates" if is_poll else (entry[0] if entry else method)
        record = CallRecord(
            seq=len(self.calls) + 1,
            method=canonical,
            params=params,
            chat_id=_chat_id_of(params),
            time=self.now(),
            token=token,
        )
        self.calls.append(record)
        loop = asyncio.get_running_loop()
        if not is_poll:
            self._in_flight += 1
            self._last_activity = loop.time()
        self._notify()
        try:
            return await self._process(request, record, is_poll)
        finally:
            record.done = True
            if not is_poll:
                self._in_flight -= 1
                self._last_activity = loop.time()
            self._notify()

    async def _process(
        self, request: web.Request, record: CallRecord, is_poll: bool
    ) -> web.StreamResponse:
        if record.token.partition(":")[0] != str(self.bot.id):
            # A token of another bot (or none): Telegram answers 401 to every call.
            error = ApiError(401, errors.UNAUTHORIZED)
            record.error = error
            return web.json_response(error.to_json(), status=401)
        fault = self._take_fault(record)
        if fault is not None and not fault.after:
            return await self._apply_fault(request, record, fault)
        try:
            if is_poll:
                result = await self._get_updates(record.params)
            elif lookup(record.method) is None:
                if record.method.lower() in REAL_METHODS:
                    raise ApiError(
                        501, f"Not Implemented: the fake Telegram has no {record.method}"
                    )
                raise ApiError(404, errors.METHOD_NOT_FOUND)
            else:
                self._check_limits(record)
                result = await self.api.call(record.method, record.params)
        except ApiError as error:
            record.error = error
            response = web.json_response(error.to_json(), status=error.error_code)
        else:
            record.result = result
            response = web.json_response({"ok": True, "result": result})
        await self._held(record)
        if fault is not None:
            return await self._apply_fault(request, record, fault)
        return response
