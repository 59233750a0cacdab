"""The attack tests run the real bot against the fake Telegram exactly as
tests/bot's do: that folder's fixtures (its conftest.py), re-exported here,
with its harness importable as there."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BOT_TESTS = Path(__file__).resolve().parents[1] / "bot"


def _bot_tests_conftest() -> ModuleType:
    """tests/bot/conftest.py under a name of its own (pytest knows it as a
    plain ``conftest``), with tests/bot on the path for its ``harness``."""
    if str(BOT_TESTS) not in sys.path:
        sys.path.insert(0, str(BOT_TESTS))
    name = "tests_bot_conftest"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BOT_TESTS / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_shared = _bot_tests_conftest()
db_path = _shared.db_path
clock = _shared.clock
make_bot = _shared.make_bot
running_bot = _shared.running_bot
clocked_bot = _shared.clocked_bot
