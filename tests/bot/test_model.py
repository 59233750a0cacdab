"""``LiveTable.snapshot``/``restore``: a change that does not commit is undone
in every field, including fields added after this test was written."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from live_tables import live_table

from bot.model import LiveTable, TableStatus
from engine import CLUB, Game


def _table() -> LiveTable:
    """A table with its sets and maps filled, so that changes made in place show."""
    return live_table(
        Game(CLUB, 5),
        looked={0},
        blocked={2},
        away={2},
        timeouts={2: 1},
        due_at=100.0,
        authority={1: 2},
    )


def _values(live: LiveTable) -> dict[str, Any]:
    return {f.name: getattr(live, f.name) for f in fields(LiveTable)}


def test_restore_undoes_changes_made_in_place() -> None:
    live = _table()
    before = {
        k: v.copy() if isinstance(v, list | dict | set) else v for k, v in _values(live).items()
    }
    saved = live.snapshot()
    for value in _values(live).values():
        if isinstance(value, list):
            value.append(9)
        elif isinstance(value, dict):
            value[99] = 9
        elif isinstance(value, set):
            value.add(99)
    assert _values(live) != before
    live.restore(saved)
    assert _values(live) == before


def test_restore_undoes_every_field_replaced() -> None:
    live = _table()
    before = _values(live)
    saved = live.snapshot()
    for name in before:
        setattr(live, name, object())
    live.restore(saved)
    after = _values(live)
    assert after == before
    assert after["game"] is before["game"]  # the game is replaced whole, never copied


def test_table_status_is_stored_as_its_plain_value() -> None:
    status: str = TableStatus.PLAYING
    assert status == "playing" and json.dumps([status]) == '["playing"]'
    assert TableStatus("cancelled") is TableStatus.CANCELLED
    assert [s.value for s in TableStatus] == ["open", "playing", "finished", "cancelled"]
