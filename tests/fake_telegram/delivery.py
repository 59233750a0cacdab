"""How updates reach the bot: getUpdates long polling, or POSTs to its webhook."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import aiohttp

from . import errors
from .errors import ApiError
from .state import ServerState


class UpdateDelivery(ServerState):
    """``_get_updates`` answers a long poll; ``_deliver`` (a task while the
    server runs) pushes updates to a webhook once the bot has set one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._poll_generation = 0
        #: Webhook POSTs the bot answered with 200, and those it did not (retried).
        self.webhook_deliveries = 0
        self.webhook_failures = 0
        #: Seconds before a failed webhook delivery is tried again.
        self.webhook_retry = 0.2
        self.webhook_last_error: str | None = None
        self._updates_held = 0

    @contextmanager
    def hold_updates(self) -> Iterator[None]:
        """Deliver nothing while inside; on leaving, everything queued meanwhile
        goes out together, in ONE getUpdates answer (up to its ``limit``).

        Updates queued back to back usually share a batch anyway, but only
        by timing; this makes "two /newgame in one batch" certain::

            with fake.hold_updates():
                await fake.send_text(alice, GROUP, "/newgame")
                await fake.send_text(bob, GROUP, "/newgame")

        (Do not ``wait_idle`` inside: the held updates keep the bot busy.)
        """
        self._updates_held += 1
        try:
            yield
        finally:
            self._updates_held -= 1
            self._notify()

    @property
    def _deliverable(self) -> bool:
        return bool(self.world.updates) and not self._updates_held

    async def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Long polling: answer at once if updates wait, else when one arrives or time is up.

        A newer getUpdates ends an older one with 409, exactly like Telegram
        does when two bot instances poll at once.
        """
        if self.world.webhook is not None:
            raise ApiError(409, errors.WEBHOOK_ACTIVE)
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # wake an older poll so it reports the conflict
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self.world.allowed_updates = frozenset(allowed) if allowed else None
        offset = params.get("offset")
        self.world.confirm(offset if isinstance(offset, int) else None)
        limit = params.get("limit")
        limit = limit if isinstance(limit, int) and 1 <= limit <= 100 else 100
        timeout = params.get("timeout")
        timeout = float(timeout) if isinstance(timeout, int) and timeout > 0 else 0.0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(409, errors.GET_UPDATES_CONFLICT)
            if self._deliverable:
                self._last_activity = loop.time()
                return self.world.updates[:limit]
            remaining = deadline - loop.time()
            if remaining <= 0 or self._closing.is_set():
                return []
            # Re-check at least every 50 ms: a wake-up can be missed when an
            # update is queued between two polls, and a test must not wait a
            # whole long-poll timeout for it.
            await self._wait_change(min(remaining, 0.05))

    async def _deliver(self) -> None:
        """With a webhook set: POST the updates to it in order, one at a time,
        with the secret token header; one not answered 200 is tried again
        after ``webhook_retry`` seconds, as Telegram keeps retrying."""
        loop = asyncio.get_running_loop()
        async with aiohttp.ClientSession() as session:
            while not self._closing.is_set():
                hook = self.world.webhook
                if hook is None or not self._deliverable:
                    await self._wait_change(0.05)
                    continue
                update = self.world.updates[0]
                headers = {}
                if hook["secret_token"]:
                    headers["X-Telegram-Bot-Api-Secret-Token"] = hook["secret_token"]
                self._in_flight += 1
                self._last_activity = loop.time()
                try:
                    async with session.post(
                        hook["url"],
                        json=update,
                        headers=headers,
                        timeout=aiohttp.ClientTimeout(total=60),
                    ) as response:
                        await response.read()
                        ok = response.status == 200
                except Exception as exc:  # any failure is a failed delivery
                    self.webhook_last_error = repr(exc)
                    ok = False
                finally:
                    self._in_flight -= 1
                    self._last_activity = loop.time()
                    self._notify()
                if ok:
                    self.webhook_deliveries += 1
                    if self.world.updates and self.world.updates[0] is update:
                        del self.world.updates[0]
                else:
                    self.webhook_failures += 1
                    await asyncio.sleep(self.webhook_retry)
