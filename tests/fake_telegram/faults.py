"""Fault injection: failing chosen calls (or a random share of them) the way
Telegram and networks fail, before the action or after it was applied."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from . import errors
from .errors import ApiError, flood_wait
from .models import CallRecord, Fault, FaultKind
from .state import ServerState

FAULT_KINDS: frozenset[str] = frozenset({"429", "500", "502", "502_html", "timeout", "drop"})


@dataclass
class _RandomFaults:
    """State of ``inject_random``: a seeded generator makes a run reproducible."""

    rate: float
    kinds: tuple[FaultKind, ...]
    rng: random.Random
    method: str | None
    chat_id: int | None
    after_rate: float
    retry_after: int


class FaultInjection(ServerState):
    """``inject``, ``inject_random``, ``clear_faults``; the HTTP layer asks
    ``_take_fault`` for each call and ``_apply_fault`` answers with it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._faults: list[Fault] = []
        self._random: _RandomFaults | None = None
        self._holds: list[tuple[Fault, asyncio.Event]] = []

    def inject(
        self,
        kind: FaultKind,
        method: str | None = None,
        chat_id: int | None = None,
        count: int | None = 1,
        retry_after: int = 1,
        *,
        after: bool = False,
    ) -> Fault:
        """Fail the next ``count`` matching calls (``count=None``: until cleared).

        ``method=None`` matches every method but getUpdates.  ``after=True``
        performs the action first and then fails the answer, so the message is
        really sent/edited while the bot believes it failed (mostly useful with
        ``"drop"`` and ``"timeout"``, the ambiguity exactly-once code must survive).
        """
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; expected one of {sorted(FAULT_KINDS)}")
        fault = Fault(
            kind=kind,
            method=method,
            chat_id=chat_id,
            remaining=count,
            retry_after=retry_after,
            after=after,
        )
        self._faults.append(fault)
        return fault

    def inject_random(
        self,
        rate: float,
        kinds: Sequence[FaultKind] = ("429", "500", "drop"),
        seed: int = 0,
        *,
        method: str | None = None,
        chat_id: int | None = None,
        after_rate: float = 0.0,
        retry_after: int = 1,
    ) -> None:
        """Fail about ``rate`` of the matching calls, reproducibly for a given ``seed``.

        ``after_rate`` is the share of those faults applied after the action.
        Replaces a previous ``inject_random``.
        """
        unknown = set(kinds) - FAULT_KINDS
        if unknown or not kinds:
            raise ValueError(f"bad fault kinds {sorted(unknown) or kinds!r}")
        self._random = _RandomFaults(
            rate=rate,
            kinds=tuple(kinds),
            rng=random.Random(seed),
            method=method,
            chat_id=chat_id,
            after_rate=after_rate,
            retry_after=retry_after,
        )

    def clear_faults(self) -> None:
        """Remove every injected fault, explicit and random."""
        self._faults.clear()
        self._random = None

    def hold(self, method: str, chat_id: int | None = None) -> asyncio.Event:
        """Keep the answers of matching calls (the action done, or refused)
        until the returned event is set: what the bot does while an answer
        is on its way. Setting the event ends the hold."""
        release = asyncio.Event()
        # A Fault only for its matching (method, chat), as _take_fault's probe.
        self._holds.append(
            (Fault(kind="drop", method=method, chat_id=chat_id, remaining=None), release)
        )
        return release

    async def _held(self, record: CallRecord) -> None:
        """Wait while a hold matches ``record``."""
        for probe, release in list(self._holds):
            if not release.is_set() and probe.matches(record.method, record.chat_id):
                await release.wait()
        self._holds = [(p, r) for p, r in self._holds if not r.is_set()]

    def _take_fault(self, record: CallRecord) -> Fault | None:
        for fault in self._faults:
            if fault.matches(record.method, record.chat_id):
                if fault.remaining is not None:
                    fault.remaining -= 1
                fault.fired += 1
                return fault
        rnd = self._random
        if rnd is None:
            return None
        probe = Fault(kind=rnd.kinds[0], method=rnd.method, chat_id=rnd.chat_id, remaining=None)
        if not probe.matches(record.method, record.chat_id) or rnd.rng.random() >= rnd.rate:
            return None
        return Fault(
            kind=rnd.rng.choice(rnd.kinds),
            method=rnd.method,
            chat_id=rnd.chat_id,
            remaining=0,
            retry_after=rnd.retry_after,
            after=rnd.rng.random() < rnd.after_rate,
            fired=1,
        )

    async def _apply_fault(
        self, request: web.Request, record: CallRecord, fault: Fault
    ) -> web.StreamResponse:
        record.fault = fault.kind
        if fault.kind == "429":
            error = flood_wait(fault.retry_after)
            return web.json_response(error.to_json(), status=429)
        if fault.kind == "500":
            error = ApiError(500, errors.INTERNAL_SERVER_ERROR)
            return web.json_response(error.to_json(), status=500)
        if fault.kind == "502":
            error = ApiError(502, errors.BAD_GATEWAY)
            return web.json_response(error.to_json(), status=502)
        if fault.kind == "502_html":
            return web.Response(status=502, text=errors.NGINX_502_HTML, content_type="text/html")
        if fault.kind == "timeout":
            # Hold the request until the client gives up (its handler is then
            # cancelled) or the fake stops.
            await self._closing.wait()
        self._drop_connection(request)
        # With the socket gone there is nobody to answer; ending the handler as
        # cancelled is how aiohttp itself ends one whose client disconnected.
        raise asyncio.CancelledError

    @staticmethod
    def _drop_connection(request: web.Request) -> None:
        """Close the socket without an HTTP answer, like a lost connection."""
        transport = request.transport
        if transport is not None:
            transport.abort()
