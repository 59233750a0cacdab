"""The bot's heap set aside once it is built (bot/heap.py): a full collection
then walks only what the tables and the updates made."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_telegram import FakeTelegram
from harness import MakeBot

from bot.heap import set_aside


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
    fake: FakeTelegram, thawed: None, make_bot: MakeBot
) -> None:
    calls: list[int] = []

    def built() -> None:
        calls.append(len(fake.calls))
        set_aside()

    bot = await make_bot(built=built)
    (before,) = calls  # once, and before the first long poll
    assert not any(c.method == "getUpdates" for c in fake.calls[:before])
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


def test_python_m_bot_sets_its_heap_aside_twice(tmp_path: Path) -> None:
    """``main``: the imports set aside at once, what the bot builds by App.run.
    In a process of its own: main() freezes and sets the whole interpreter."""
    script = """
import gc, json
import bot.__main__ as entry
from bot.heap import set_aside

given = []

class Built:
    def __init__(self, settings):
        pass

    async def run(self, built=None):
        given.append(built is set_aside)

entry.App = Built
rc = entry.main()
print(json.dumps([rc, given, gc.get_freeze_count() > 0]))
"""
    env = {**os.environ, "BOT_TOKEN": "42:TEST"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=tmp_path,  # no developer's .env
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [0, [True], True]
