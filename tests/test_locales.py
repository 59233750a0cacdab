"""Every text the code asks for exists in ru and en, parses, and declines right."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fluent.runtime import FluentBundle, FluentResource
from fluent.syntax import FluentParser
from fluent.syntax.ast import Junk, Message

from bot.views.table import OPTION_VALUES
from engine.errors import CODES
from engine.rules import BOOL_OPTIONS, FAILED_NIL, PRESETS

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "locales"
KEY_CALL = re.compile(
    r"""(?:\btr|\bt|\but|\bwords|i18n\.get|UserError|texts\(\s*\w+\s*,)\(\s*"([a-z][a-z0-9_-]+)"|"((?:err|left)-[a-z0-9_-]+)\""""
)


def bundle(lang: str) -> FluentBundle:
    b = FluentBundle([lang], use_isolating=False)
    for path in sorted((LOCALES / lang).glob("*.ftl")):
        b.add_resource(FluentResource(path.read_text(encoding="utf-8")))
    return b


def keys_in(lang: str) -> set[str]:
    keys: set[str] = set()
    for path in (LOCALES / lang).glob("*.ftl"):
        for entry in FluentParser().parse(path.read_text(encoding="utf-8")).body:
            if isinstance(entry, Message):
                keys.add(entry.id.name)
    return keys


def keys_used() -> set[str]:
    used: set[str] = set()
    for path in [*(ROOT / "bot").rglob("*.py"), *(ROOT / "terminal").rglob("*.py")]:
        for m in KEY_CALL.finditer(path.read_text(encoding="utf-8")):
            used.add(m.group(1) or m.group(2))
    # Keys built at run time.
    for name, values in OPTION_VALUES:
        used.add(f"opt-{name}")
        for v in values:
            if isinstance(v, str):
                used.add(f"optval-{name}-{v}")
    used |= {f"optval-{n}" for n in ("players", "target", "losing_floor")}
    used |= {f"err-{code}" for code in CODES}
    used |= {f"preset-{name}" for name in PRESETS}
    from bot.commands import menu_commands
    from bot.handlers import routers

    used |= {f"cmd-{c.name}" for c in menu_commands(routers())}
    used |= {f"result-nil-tricks-{v}" for v in FAILED_NIL}
    used |= {f"part-{k}" for k in ("overtricks", "nil", "bonus", "penalty")}
    used |= {f"rules-on-{name}" for name in BOOL_OPTIONS}
    return used


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_file_parses(lang: str) -> None:
    for path in (LOCALES / lang).glob("*.ftl"):
        junk = [
            e
            for e in FluentParser().parse(path.read_text(encoding="utf-8")).body
            if isinstance(e, Junk)
        ]
        assert not junk, f"{path}: {junk[0].content[:80]!r}"


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_used_key_exists(lang: str) -> None:
    used = keys_used()
    assert len(used) > 100  # the scan itself works
    missing = sorted(used - keys_in(lang))
    assert not missing, f"missing in {lang}: {missing}"


def test_ru_and_en_have_the_same_keys() -> None:
    assert keys_in("ru") == keys_in("en")


@pytest.mark.parametrize(
    ("n", "word"),
    [(1, "мешок"), (2, "мешка"), (5, "мешков"), (11, "мешков"), (21, "мешок"), (22, "мешка")],
)
def test_russian_plurals(n: int, word: str) -> None:
    b = bundle("ru")
    text, errors = b.format_pattern(b.get_message("bags").value, {"n": n})
    assert not errors
    assert text == f"{n} {word}"


@pytest.mark.parametrize(
    ("n", "word"), [(1, "сдача"), (2, "сдачи"), (5, "сдач"), (11, "сдач"), (21, "сдача")]
)
def test_russian_plurals_hands(n: int, word: str) -> None:
    b = bundle("ru")
    text, errors = b.format_pattern(b.get_message("score-title").value, {"target": 500, "hands": n})
    assert not errors and text.endswith(f"{n} {word}")


def test_seat_names() -> None:
    b = bundle("ru")
    names = [
        b.format_pattern(b.get_message("seat").value, {"players": 4, "seat": s, "num": s + 1})[0]
        for s in range(4)
    ]
    assert names == ["Север", "Восток", "Юг", "Запад"]
    five = b.format_pattern(b.get_message("seat").value, {"players": 5, "seat": 4, "num": 5})[0]
    assert five == "Место 5"
