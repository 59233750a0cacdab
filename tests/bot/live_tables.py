"""Tables as the bot holds them in memory (``bot.model.LiveTable``), built
for the tests of one part (the model, the Mini App's state) without a bot."""

from __future__ import annotations

from typing import Any

from bot.model import LiveTable, TableStatus
from engine import CLUB, Game


def live_table(game: Game, **changes: Any) -> LiveTable:
    """``game`` being played at table 7 of the group -100, «Клуб <по средам>»:
    Анна (user 1) North, «Вера & Co» (user 2) South, the computer East and
    West; the title and a name carry what HTML must escape. ``changes`` set
    any other field."""
    fields: dict[str, Any] = {
        "table_id": 7,
        "chat_id": -100,
        "chat_title": "Клуб <по средам>",
        "creator_id": 1,
        "status": TableStatus.PLAYING,
        "rules": CLUB,
        "lang": "ru",
        "seats": [1, None, 2, None],
        "names": {1: "Анна", 2: "Вера & Co"},
        "game_id": 3,
        "game": game,
    }
    return LiveTable(**{**fields, **changes})
