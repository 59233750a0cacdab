"""What the score chart shows, in the reader's words (the drawing is bot/chart.py)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from bot.callbacks import ChartCb
from bot.chart import ChartData
from bot.i18n import clean_name, esc, isolated
from bot.model import LiveTable
from bot.views.common import Tr, public, side_name
from bot.views.keyboard import Keyboard, button, keyboard
from engine.scoring import sides


def chart_data(tr: Tr, table: LiveTable) -> ChartData:
    """Each side's (each player's, in 3/5/6) running total hand by hand."""
    v = public(table)
    count = len(sides(v.players))
    return ChartData(
        # Drawn, not marked up: the title without direction controls.
        title=html.unescape(tr("chart-title", group=clean_name(table.chat_title))),
        sides=tuple(html.unescape(side_name(tr, table, i)) for i in range(count)),
        totals=tuple(tuple(line["sides"][i]["total"] for line in v.sheet) for i in range(count)),
        target=v.rules.target,
        target_label=tr("chart-target", target=str(v.rules.target)),
        hand_label=tr("chart-hand"),
        points_label=tr("chart-points"),
        winner=v.winner,
        floor=v.rules.losing_floor,
    )


def chart_caption(tr: Tr, table: LiveTable) -> str:
    """Under the chart's photo: whose game it is."""
    return tr("chart-caption", group=esc(table.chat_title))


def chart_keyboard(tr: Tr, tables: Sequence[tuple[int, str]]) -> Keyboard:
    """A «📈» button per table (its group named when there are several)."""
    return keyboard(
        [
            [
                button(
                    tr("btn-chart", group=isolated(title))
                    if len(tables) > 1
                    else tr("btn-chart-one"),
                    ChartCb.packed(t=table_id),
                )
            ]
            for table_id, title in tables
        ]
    )
