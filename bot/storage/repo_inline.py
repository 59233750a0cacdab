"""What inline mode reads of a person, in one snapshot: the tables where
they play a running game (with each table's group message), their record
and their Authority."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.storage import repo_club, repo_games
from bot.storage.db import Statements


@dataclass(frozen=True, slots=True)
class PersonNow:
    """``tables``: (table, its group message or None) of each running game
    the person sits at; ``stats``: their record (None: no row); ``authority``:
    gestures received."""

    tables: tuple[tuple[int, int | None], ...]
    stats: dict[str, Any] | None
    authority: int


async def person_now(st: Statements, user_id: int, message_key: Callable[[int], str]) -> PersonNow:
    """For ``Database.run``: the reads of one snapshot. ``message_key``: the
    outbox's key of a table's group message (the views name it)."""
    ids = [
        int(r[0])
        for r in await st.fetchall(
            "SELECT t.table_id FROM tables t JOIN seats s ON s.table_id=t.table_id"
            " WHERE s.user_id=? AND t.status='playing' ORDER BY t.table_id",
            (user_id,),
        )
    ]
    keys = {message_key(t): t for t in ids}
    shown: dict[int, int] = {}
    if keys:
        marks = ",".join("?" * len(keys))
        for key, message_id in await st.fetchall(
            f"SELECT key, message_id FROM messages WHERE key IN ({marks})", list(keys)
        ):
            shown[keys[key]] = int(message_id)
    stats = await repo_games.user_stats(st, user_id)
    authority = (await repo_club.authority(st, [user_id])).get(user_id, 0)
    return PersonNow(
        tables=tuple((t, shown.get(t)) for t in ids),
        stats=dict(stats) if stats is not None and stats["games"] else None,
        authority=authority,
    )
