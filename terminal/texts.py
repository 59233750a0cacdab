"""The terminal game's words: the bot's Fluent files, read directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fluent.runtime import FluentBundle, FluentResource

LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"
LANGS = ("ru", "en")


class Texts:
    """``texts(key, **args)``: one message of ``locales/<lang>/*.ftl``."""

    def __init__(self, lang: str) -> None:
        self.bundle = FluentBundle([lang], use_isolating=False)
        for path in sorted((LOCALES_DIR / lang).glob("*.ftl")):
            self.bundle.add_resource(FluentResource(path.read_text(encoding="utf-8")))

    def __call__(self, key: str, /, **args: Any) -> str:
        message = self.bundle.get_message(key)
        if message.value is None:
            raise KeyError(key)
        text, errors = self.bundle.format_pattern(message.value, args)
        if errors:
            raise errors[0]
        return str(text)

    def words(self, key: str) -> set[str]:
        """A message that lists accepted inputs, as a set of lower-case words."""
        return {w.lower() for w in self(key).split()}
