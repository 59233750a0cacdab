"""The attacks drive the bot as tests/bot does: its fixtures (the bot in this
process, its database, a clock) and its helpers (``harness``, ``webapp_kit``,
the claim tests' steps) are shared, not written again."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_BOT_TESTS = Path(__file__).resolve().parents[1] / "bot"
if str(_BOT_TESTS) not in sys.path:
    sys.path.insert(0, str(_BOT_TESTS))

# tests/bot/conftest.py under a name of its own ("conftest" is tests/conftest.py's).
_spec = importlib.util.spec_from_file_location("bot_tests_fixtures", _BOT_TESTS / "conftest.py")
assert _spec is not None and _spec.loader is not None
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)

db_path = _fixtures.db_path
clock = _fixtures.clock
make_bot = _fixtures.make_bot
