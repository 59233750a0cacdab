"""Who is asking: Telegram's ``initData``, checked with the bot token.

The Mini App gets ``initData`` from Telegram when it opens and sends it with
every API call (``Authorization: tma <initData>``). It is signed with a key
derived from the bot token, so only Telegram can make it; ``auth_date`` is
when the app was opened, and data older than ``WEBAPP_AUTH_TTL`` is refused,
so a copy that leaked once does not work for ever.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram.utils.web_app import safe_parse_webapp_init_data

from bot.i18n import pick_locale

SCHEME = "tma "
# Telegram's clock and ours may differ a little: data "from the future" by
# less than this is accepted.
CLOCK_SKEW = 60.0


class AuthError(Exception):
    """The request cannot be tied to a Telegram user; ``key`` is the locale key
    of the reason (never the data itself: it is a credential)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


@dataclass(frozen=True, slots=True)
class Person:
    user_id: int
    first_name: str
    lang: str
    start_param: str | None


def authenticate(
    header: str | None, token: str, now: float, ttl: float, default_lang: str
) -> Person:
    """The person behind an ``Authorization`` header, or :class:`AuthError`."""
    if not header or not header.startswith(SCHEME):
        raise AuthError("webapp-err-auth")
    raw = header[len(SCHEME) :].strip()
    try:
        data = safe_parse_webapp_init_data(token, raw)
    except ValueError:  # a bad signature, or signed data that is not initData
        raise AuthError("webapp-err-auth") from None
    if data.user is None:
        raise AuthError("webapp-err-auth")
    opened = data.auth_date.timestamp()
    if now - opened > ttl or opened - now > CLOCK_SKEW:
        raise AuthError("webapp-err-expired")
    return Person(
        user_id=data.user.id,
        first_name=data.user.first_name,
        lang=pick_locale(data.user.language_code, default_lang),
        start_param=data.start_param,
    )
