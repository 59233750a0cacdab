"""The afterword message: what was said so far, and the gesture buttons."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import GestureCb
from bot.i18n import esc
from bot.model import LiveTable
from bot.views.common import Tr

# Gesture kinds in button order, with their emoji (the words live in locales).
GESTURES = {"thanks": "🙏", "partner": "🤝", "nil": "🎯", "played": "👏"}
KINDS = tuple(GESTURES)
# A name on a button is cut to this many characters.
BUTTON_NAME = 12


def afterword_message(
    tr: Tr, live: LiveTable, sent: Sequence[Any], open_: bool
) -> tuple[str, InlineKeyboardMarkup | None]:
    legend = " · ".join(f"{emoji} {tr(f'gesture-{kind}')}" for kind, emoji in GESTURES.items())
    lines = [tr("afterword-title"), tr("afterword-legend", legend=legend), ""]

    def name(uid: int | None) -> str:
        if uid is None or uid not in live.names:
            return tr("afterword-someone")
        return esc(live.names[uid])

    for row in sent:
        kind = row["kind"]
        lines.append(
            tr(
                "afterword-line",
                sender=name(row["from_user"]),
                receiver=name(row["to_user"]),
                gesture=f"{GESTURES.get(kind, '')} {tr(f'gesture-{kind}')}",
            )
        )
    if not sent:
        lines.append(tr("afterword-empty" if open_ else "afterword-quiet"))
    if not open_:
        lines.append("")
        lines.append(tr("afterword-closed"))
        return "\n".join(lines), None
    rows = []
    for seat, uid in enumerate(live.seats):
        if uid is None:
            continue
        short = live.names.get(uid, "")[:BUTTON_NAME]
        rows.append(
            [
                InlineKeyboardButton(
                    text=f"{emoji} {short}",
                    callback_data=GestureCb(g=live.game_id or 0, s=seat, k=i).pack(),
                )
                for i, emoji in enumerate(GESTURES.values())
            ]
        )
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)
