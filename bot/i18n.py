"""Text lookup for every word a user reads, from ``locales/<lang>/*.ftl``.

Handlers get an ``I18nContext`` from aiogram-i18n for the user who acts;
services render messages for *other* people (the group, each seated player)
and so ask the same Fluent core for an explicit locale through ``Texts``.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from aiogram.types import User
from aiogram_i18n.cores import FluentRuntimeCore
from aiogram_i18n.managers import BaseManager

LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"
SUPPORTED = ("ru", "en")


def pick_locale(language_code: str | None, default: str = "ru") -> str:
    """Russian unless the user's Telegram is set to English (our only other locale)."""
    if language_code and language_code.lower().startswith("en"):
        return "en"
    if language_code and language_code.lower().startswith("ru"):
        return "ru"
    return default


def make_core(default: str = "ru") -> FluentRuntimeCore:
    return FluentRuntimeCore(path=LOCALES_DIR / "{locale}", default_locale=default)


class UserLocaleManager(BaseManager):
    """Locale from the user's Telegram language; nothing is stored for it."""

    def __init__(self, default: str = "ru") -> None:
        super().__init__(default_locale=default)

    async def get_locale(self, event_from_user: User | None = None, **_: Any) -> str:
        code = event_from_user.language_code if event_from_user else None
        return pick_locale(code, self.default_locale or "ru")

    async def set_locale(self, locale: str, **_: Any) -> None:  # pragma: no cover - unused
        return None


class Texts:
    """``texts(locale, key, **args)``: one Fluent message in that locale."""

    def __init__(self, core: FluentRuntimeCore) -> None:
        self.core = core

    def __call__(self, locale: str, key: str, /, **args: Any) -> str:
        return self.core.get(key, locale, **args)


def esc(text: str | None) -> str:
    """Escape a user-supplied string for HTML messages (names, titles)."""
    return html.escape(text or "", quote=False)
