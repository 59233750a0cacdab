"""Erasing a person (/forget_me): their rows, and their name in every kept or queued text."""

from __future__ import annotations

import json
from typing import Any

from bot.storage.db import Statements

_FORGET_USER = (
    "DELETE FROM users WHERE user_id=?",
    "UPDATE results SET user_id=NULL WHERE user_id=?",
    "UPDATE seats SET user_id=NULL, away=0, timeouts=0 WHERE user_id=?",
    "UPDATE actions SET by_user=NULL WHERE by_user=?",
    "UPDATE tables SET creator_id=0 WHERE creator_id=?",
    "DELETE FROM partners WHERE a=? OR b=?",
    "DELETE FROM gestures WHERE to_user=?",
    "UPDATE OR IGNORE gestures SET from_user=NULL WHERE from_user=?",
    "DELETE FROM outbox WHERE chat_id=?",
    "DELETE FROM messages WHERE chat_id=?",
    "DELETE FROM call_me WHERE user_id=?",
    "DELETE FROM record_requests WHERE user_id=?",
    "DELETE FROM day_plays WHERE user_id=?",
    "DELETE FROM day_moves WHERE user_id=?",
)


async def erase_user(st: Statements, user_id: int, forms: list[str], replacement: str) -> None:
    """Erase a person (``db.run_tx``): their rows go, finished games keep
    results without them, and no queued or kept message text names them.

    Messages already sent are kept only for diagnosis: they all go (a name
    may be cut anywhere in them, with a partner's name before it). Those
    still to be sent go out with ``replacement`` in place of each of
    ``forms`` (every way a text may hold the person, longest first).
    Payloads are JSON, so a name with ``"`` or ``\\`` is stored escaped: each
    form is looked for as JSON writes it, and replaced in the decoded text.
    """
    for sql in _FORGET_USER:
        await st.execute(sql, (user_id,) * sql.count("?"))
    await st.execute("DELETE FROM outbox WHERE status != 'pending'")
    ids: set[int] = set()
    for form in forms:
        encoded = json.dumps(form, ensure_ascii=False)[1:-1]
        ids.update(
            r[0]
            for r in await st.fetchall(
                "SELECT id FROM outbox WHERE instr(payload, ?) > 0", (encoded,)
            )
        )
    for row_id in sorted(ids):
        found = await st.fetchone("SELECT payload FROM outbox WHERE id=?", (row_id,))
        assert found is not None
        data = _without(json.loads(found[0]), forms, replacement)
        await st.execute(
            "UPDATE outbox SET payload=? WHERE id=?",
            (json.dumps(data, ensure_ascii=False, separators=(",", ":")), row_id),
        )


def _without(value: Any, forms: list[str], replacement: str) -> Any:
    """A decoded payload with the forms replaced in every ``text`` (the
    message's and each button's); button data and the rest stay as they are."""
    if isinstance(value, list):
        return [_without(v, forms, replacement) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, v in value.items():
        if key == "text" and isinstance(v, str):
            for form in forms:
                v = v.replace(form, replacement)
            out[key] = v
        else:
            out[key] = _without(v, forms, replacement)
    return out
