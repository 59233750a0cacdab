"""The attacks' tests run the bot as tests/bot's do: its fixtures (the
database, the clock, ``make_bot``) and its helpers (``harness``,
``webapp_kit``, importable once tests/bot is on the path) are reused here,
not written again."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BOT_TESTS = Path(__file__).resolve().parent.parent / "bot"
if str(BOT_TESTS) not in sys.path:
    sys.path.insert(0, str(BOT_TESTS))

_spec = importlib.util.spec_from_file_location("bot_tests_conftest", BOT_TESTS / "conftest.py")
assert _spec is not None and _spec.loader is not None
_shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_shared)

db_path = _shared.db_path
db = _shared.db
clock = _shared.clock
make_bot = _shared.make_bot
running_bot = _shared.running_bot
clocked_bot = _shared.clocked_bot
