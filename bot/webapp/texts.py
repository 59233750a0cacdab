"""The words the page itself shows, from ``locales/<lang>/webapp.ftl``.

The page holds no words of its own: it asks for these once, in the person's
language. Every message of ``webapp.ftl`` without variables is sent (those
with variables are filled in by the bot in the table's state), plus the few
bot texts the page uses as they are, and the card notation of the engine.
"""

from __future__ import annotations

from typing import Any

from fluent.syntax import FluentParser
from fluent.syntax.ast import Message, Placeable

from bot.i18n import LOCALES_DIR, SUPPORTED, Texts
from bot.webapp.state import plain
from engine.cards import RANK_LABELS, SUIT_SYMBOLS

# Bot texts the page shows unchanged (error texts come with each refusal).
SHARED = ("btn-nil", "btn-blind", "btn-look", "btn-claim", "err-generic", "err-too-fast")
# Where the page's words are: its own file, and the features' files.
PAGE_FILES = ("webapp.ftl", "record.ftl")


def page_keys(lang: str) -> list[str]:
    """The messages of ``webapp.ftl`` that need no value, and the page's own
    (``webapp-…``) of the features' files (``record.ftl``)."""
    keys = []
    for name in PAGE_FILES:
        source = (LOCALES_DIR / lang / name).read_text(encoding="utf-8")
        for entry in FluentParser(with_spans=False).parse(source).body:
            if (
                isinstance(entry, Message)
                and entry.value is not None
                and not any(isinstance(e, Placeable) for e in entry.value.elements)
                and (name == "webapp.ftl" or entry.id.name.startswith("webapp-"))
            ):
                keys.append(entry.id.name)
    return keys


def page_texts(texts: Texts) -> dict[str, dict[str, Any]]:
    """Per language, what ``/texts`` answers: built once at start."""
    out: dict[str, dict[str, Any]] = {}
    for lang in SUPPORTED:
        words = {key: plain(texts(lang, key)) for key in (*page_keys(lang), *SHARED)}
        out[lang] = {
            "lang": lang,
            "texts": words,
            "ranks": list(RANK_LABELS),
            "suits": SUIT_SYMBOLS,
        }
    return out
