"""Text lookup for every word a user reads, from ``locales/<lang>/*.ftl``.

Handlers get an ``I18nContext`` from aiogram-i18n for the user who acts;
services render messages for *other* people (the group, each seated player)
and so ask the same Fluent core for an explicit locale through ``Texts``.
"""

from __future__ import annotations

import html
import re
import unicodedata
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
    """``texts(locale, key, **args)``: one Fluent message in that locale.

    Results are remembered: every move re-renders the table and each hand,
    which is mostly the same card labels, names and buttons, and Fluent's
    formatting (plural rules, number formats) was the largest single cost
    under load. The memory is bounded and can be dropped (``clear``) when a
    person asks to be forgotten, as it holds formatted names.
    """

    LIMIT = 50_000

    def __init__(self, core: FluentRuntimeCore) -> None:
        self.core = core
        self._memo: dict[tuple[Any, ...], str] = {}

    def __call__(self, locale: str, key: str, /, **args: Any) -> str:
        memo_key = (locale, key, *args.items())
        try:
            return self._memo[memo_key]
        except KeyError:
            pass
        except TypeError:  # an unhashable argument: format without remembering
            return self.core.get(key, locale, **args)
        text = self.core.get(key, locale, **args)
        if len(self._memo) >= self.LIMIT:
            self._memo.clear()
        self._memo[memo_key] = text
        return text

    def clear(self) -> None:
        self._memo.clear()


def esc(text: str | None) -> str:
    """Escape a user-supplied string for HTML messages (names, titles).

    A string with right-to-left letters is wrapped in Unicode's first-strong
    isolate marks, so a Hebrew or Arabic name never reorders the Russian line
    around it (the colons, numbers and arrows after it)."""
    escaped = html.escape(text or "", quote=False)
    return f"\u2068{escaped}\u2069" if has_rtl(escaped) else escaped


_RTL_CLASSES = frozenset({"R", "AL"})


def has_rtl(text: str) -> bool:
    """Whether any letter of ``text`` is written right to left."""
    return any(unicodedata.bidirectional(ch) in _RTL_CLASSES for ch in text)


POPUP_LIMIT = 200
_TAG = re.compile(r"<[^>]+>")


def popup(text: str) -> str:
    """A pop-up (``answerCallbackQuery``) shows plain text of at most 200
    characters: our texts are HTML, so tags go and entities become characters."""
    text = html.unescape(_TAG.sub("", text))
    return text if len(text) <= POPUP_LIMIT else text[: POPUP_LIMIT - 1] + "…"
