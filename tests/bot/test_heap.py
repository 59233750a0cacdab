"""The bot's heap set aside once it is built (bot/heap.py): a full collection
then walks only what the tables and the updates made."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fake_telegram import FakeTelegram
from harness import InProcessBot, settings_for

from bot.heap import YOUNG, collect_young_less_often, set_aside


def walked(obj: object) -> bool:
    """Whether a collection walks ``obj`` (``gc.get_objects`` leaves out the frozen)."""
    return any(o is obj for o in gc.get_objects())


@pytest.fixture
def thawed() -> Iterator[None]:
    """This test process must not keep the heap frozen for the tests after it."""
    try:
        yield
    finally:
        gc.unfreeze()


async def test_what_the_bot_builds_is_set_aside_and_what_it_plays_is_not(
    fake: FakeTelegram, tmp_path: Path, thawed: None
) -> None:
    calls: list[int] = []

    def built() -> None:
        calls.append(len(fake.calls))
        set_aside()

    bot = InProcessBot(settings_for(fake, tmp_path / "spades.db"), built=built)
    await bot.start(fake)
    try:
        assert len(calls) == 1
        # The locales as i18n's start hook compiled them: a hook run before
        # that one would freeze bundles that are then thrown away.
        bundle = bot.app.texts.core.get_translator("ru")
        assert not walked(bundle)
        assert not walked(bot.app.dp)

        anna = fake.add_user(341, "Анна")
        await fake.start_bot(anna)
        await fake.wait_for(lambda: fake.last_message(anna.id) is not None, timeout=30)
        group = fake.add_group(-100341, "Пики у Анны", members=[anna])
        await fake.send_text(anna, group.id, "/newgame")
        reg = bot.app.registry
        await fake.wait_for(lambda: bool(reg.cached_in_chat(group.id)), timeout=30)
        (table_id,) = reg.cached_in_chat(group.id)
        assert walked(reg.cached(table_id))  # made after: collected as ever
    finally:
        await bot.stop()


@pytest.fixture
def gc_restored() -> Iterator[None]:
    threshold, interval = gc.get_threshold(), sys.getswitchinterval()
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        sys.setswitchinterval(interval)
        gc.unfreeze()


def test_python_m_bot_sets_its_heap_aside_twice_and_collects_young_less_often(
    monkeypatch: pytest.MonkeyPatch, gc_restored: None
) -> None:
    """``main``: the imports set aside at once, what the bot builds by App.run."""
    import bot.__main__ as entry

    given: list[Callable[[], None] | None] = []

    class Built:
        def __init__(self, settings: object) -> None:
            pass

        async def run(self, built: Callable[[], None] | None = None) -> None:
            given.append(built)

    monkeypatch.setenv("BOT_TOKEN", "42:TEST")
    monkeypatch.setattr(entry, "App", Built)
    gc.set_threshold(700, 10, 10)
    assert entry.main() == 0
    assert given == [set_aside]
    assert gc.get_threshold() == (YOUNG, 10, 10)
    assert gc.get_freeze_count() > 0


def test_collecting_young_less_often_keeps_the_older_generations_thresholds(
    gc_restored: None,
) -> None:
    gc.set_threshold(700, 12, 13)
    collect_young_less_often()
    assert gc.get_threshold() == (YOUNG, 12, 13)
