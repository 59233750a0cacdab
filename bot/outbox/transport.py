"""The HTTP transport: one Bot API call as a JSON POST, its answer read with :mod:`.errors`.

Why not ``await bot(method)``: aiogram's path builds a pydantic model of each
call, posts it as a multipart form and validates every answer into a
``Message`` that the outbox only needs the id of; under load that cost about
as much CPU as rendering the message (see ``bench/load.py``). Here the body
is the JSON the queue already holds and only ``message_id`` is read back.

The connection pool is the one of the bot's aiogram session
(``AiohttpSession.create_session``, public), so TLS, proxy and connection
limits are configured in one place and closed with the bot. aiogram's
request middlewares do not see these calls.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession

from bot.outbox.errors import Transient, read_answer

_JSON_HEADERS = {"Content-Type": "application/json"}


class Transport:
    """Posts Bot API calls; raises :class:`~bot.outbox.errors.ApiError` subclasses."""

    def __init__(
        self,
        client: Callable[[], Awaitable[aiohttp.ClientSession]],
        url: Callable[[str], str],
        timeout: float,
        *,
        secret: str = "",
    ) -> None:
        """``client`` gives the (shared) aiohttp session, ``url`` a method's
        address; ``secret`` (the token) is blanked out of error descriptions."""
        self._client = client
        self._url = url
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._secret = secret

    @classmethod
    def for_bot(cls, bot: Bot, timeout: float | None = None) -> Transport:
        """Through the bot's own aiohttp session, to its API server."""
        session = bot.session
        if not isinstance(session, AiohttpSession):
            raise TypeError("the outbox sends through aiohttp: give the Bot an AiohttpSession")
        token = bot.token
        api = session.api

        def url(method: str) -> str:
            return api.api_url(token=token, method=method)

        seconds = float(session.timeout if timeout is None else timeout)
        return cls(session.create_session, url, seconds, secret=token)

    async def call(
        self,
        method: str,
        params: dict[str, Any],
        files: dict[str, tuple[str, bytes]] | None = None,
    ) -> Any:
        """Make the call; returns its ``result`` (raises on any failure).

        With ``files`` it goes as a multipart form (Telegram's way to upload),
        each other parameter a field (objects as JSON); else as a JSON body.
        """
        client = await self._client()
        body: Any
        headers: dict[str, str] | None
        if files:
            body = aiohttp.FormData()
            for name, value in params.items():
                body.add_field(
                    name, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                )
            for name, (filename, data) in files.items():
                body.add_field(name, data, filename=filename, content_type="image/png")
            headers = None
        else:
            body, headers = json.dumps(params, ensure_ascii=False), _JSON_HEADERS
        try:
            async with client.post(
                self._url(method), data=body, headers=headers, timeout=self._timeout
            ) as resp:
                status, content = resp.status, await resp.text(errors="replace")
        except TimeoutError as exc:
            raise Transient("request timeout") from exc
        except (aiohttp.ClientError, OSError) as exc:
            raise Transient(self._describe(exc)) from exc
        return read_answer(status, content)

    def _describe(self, exc: BaseException) -> str:
        text = f"{type(exc).__name__}: {exc}"
        return text.replace(self._secret, "<token>") if self._secret else text
