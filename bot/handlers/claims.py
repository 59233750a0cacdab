"""«Остальные мои»: the claim in one's hand, and the other side's vote on it."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery

from bot.callbacks import ClaimCb, ClaimVoteCb
from bot.handlers.common import in_own_chat
from bot.services.claims import ClaimService
from bot.services.errors import UserError


async def on_claim(cb: CallbackQuery, callback_data: ClaimCb, claims: ClaimService) -> None:
    await claims.claim(callback_data.t, cb.from_user.id, callback_data.s, callback_data.n)
    await cb.answer()


async def on_vote(cb: CallbackQuery, callback_data: ClaimVoteCb, claims: ClaimService) -> None:
    if callback_data.v not in (0, 1):
        raise UserError("err-stale")
    await claims.vote(
        callback_data.t, cb.from_user.id, callback_data.s, callback_data.n, callback_data.v == 1
    )
    await cb.answer()


def build() -> Router:
    """A fresh router: each App (and each test) gets its own. It must come
    before the buttons' router, whose last handler refuses unknown data."""
    router = Router(name="claims")
    # Pressed anywhere but the presser's own private chat, the data is forged.
    router.callback_query.register(on_claim, ClaimCb.filter(), in_own_chat)
    router.callback_query.register(on_vote, ClaimVoteCb.filter(), in_own_chat)
    return router
