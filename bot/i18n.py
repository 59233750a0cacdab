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
from fluent.runtime import FluentBundle

LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"
SUPPORTED = ("ru", "en")


def pick_locale(language_code: str | None, default: str = "ru") -> str:
    """Russian unless the user's Telegram is set to English (our only other locale)."""
    if language_code and language_code.lower().startswith("en"):
        return "en"
    if language_code and language_code.lower().startswith("ru"):
        return "ru"
    return default


class FluentCore(FluentRuntimeCore):
    """aiogram-i18n's Fluent core that parses the locale files once a process.

    Parsing them is most of the bot's start-up after its imports (~0.35 s of
    CPU, asked for twice: by ``App.setup`` and by i18n's startup hook); a
    process that builds the app again and again (the tests start hundreds)
    or forks bots from one that parsed them (tests/bot/zygote.py) parses
    them once. The bundles are only read once built.
    """

    _parsed: dict[Path, dict[str, FluentBundle]] = {}

    def find_locales(self) -> dict[str, FluentBundle]:
        parsed = self._parsed.get(self.path)
        if parsed is None:
            parsed = self._parsed[self.path] = super().find_locales()
        return dict(parsed)


def make_core(default: str = "ru") -> FluentRuntimeCore:
    return FluentCore(path=LOCALES_DIR / "{locale}", default_locale=default)


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


#: Unicode's direction controls: the embeddings and overrides (U+202A–U+202E),
#: the isolates (U+2066–U+2069), and the marks LRM, RLM and ALM.
BIDI_CONTROLS = frozenset(
    chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)
)
_NO_BIDI = dict.fromkeys(map(ord, BIDI_CONTROLS))


def clean_name(text: str | None) -> str:
    """A person's name (or a group's title) without Unicode's direction controls.

    Stripped, not merely wrapped in an isolate: an override (U+202E) or an
    embedding left open in a name turns the rest of our line around (the
    colons, the scores, the names after it), and a stray U+2069 in the name
    would close the very isolate meant to hold it. A name needs none of them:
    its letters carry their own direction, and one written right to left is
    isolated where it is shown (:func:`isolated`). Applied where a name comes
    from Telegram (the handlers' ``person``) and wherever one is shown
    (:func:`esc`, :func:`isolated`), so names stored before are covered too."""
    return (text or "").translate(_NO_BIDI)


def isolated(text: str | None) -> str:
    """A user-supplied string for a plain-text place (a button's label):
    without direction controls, and one with right-to-left letters wrapped
    in Unicode's first-strong isolate, so that a Hebrew or Arabic name never
    reorders the Russian line around it (the colons, numbers and arrows)."""
    clean = clean_name(text)
    return f"\u2068{clean}\u2069" if has_rtl(clean) else clean


def esc(text: str | None) -> str:
    """A user-supplied string (names, titles) for HTML messages: escaped,
    and :func:`isolated`."""
    return isolated(html.escape(text or "", quote=False))


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
