"""The score chart: each side's running total hand by hand, the target line,
the winner. A PNG, drawn with matplotlib's object API (no pyplot state, so
one drawing never touches another) on the Agg canvas.

Drawing takes a fraction of a second of pure CPU; the bot runs it in a
worker process (:mod:`bot.services.charts`), never on its event loop.
Everything it draws comes in as plain values (labels already translated),
so it pickles to the worker and back.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

# Telegram shows photos at phone width: 1200 x 750 px stays sharp there.
WIDTH, HEIGHT, DPI = 8.0, 5.0, 150
# Distinct on light and dark themes, and for the usual colour blindness.
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


@dataclass(frozen=True, slots=True)
class ChartData:
    """What the chart shows; ``totals[i]`` is side ``i``'s total after each hand."""

    title: str
    sides: tuple[str, ...]  # side labels (names), in side order
    totals: tuple[tuple[int, ...], ...]
    target: int
    target_label: str
    hand_label: str  # the x axis
    points_label: str  # the y axis
    winner: int | None = None  # side index, once the game is over
    floor: int | None = None  # the losing floor, when the rules have one


def render(data: ChartData) -> bytes:
    """The chart as PNG bytes."""
    # The minus sign our texts use (ASCII), not matplotlib's U+2212.
    with matplotlib.rc_context({"axes.unicode_minus": False}):
        return _render(data)


def drawable(text: str) -> str:
    """The label without what the chart's font cannot draw (emoji such as
    the computer's 🤖): a box in its place would read as a mistake."""
    kept = "".join(ch for ch in text if ord(ch) <= 0xFFFF and not 0xFE00 <= ord(ch) <= 0xFE0F)
    return " ".join(kept.split())


def _render(data: ChartData) -> bytes:
    fig = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    hands = list(range(len(data.totals[0]) + 1)) if data.totals else [0]
    for i, (label, totals) in enumerate(zip(data.sides, data.totals, strict=True)):
        colour = COLOURS[i % len(COLOURS)]
        won = data.winner == i
        ax.plot(
            hands,
            [0, *totals],
            color=colour,
            linewidth=3.0 if won else 1.8,
            marker="o",
            markersize=4,
            label=f"★ {drawable(label)}" if won else drawable(label),
        )
        if totals:
            ax.annotate(
                str(totals[-1]),
                (hands[-1], totals[-1]),
                textcoords="offset points",
                xytext=(6, 0),
                va="center",
                color=colour,
                fontweight="bold" if won else "normal",
            )
    ax.axhline(data.target, color="#555555", linestyle="--", linewidth=1.2)
    ax.annotate(
        drawable(data.target_label),
        (max(1, hands[-1]), data.target),
        textcoords="offset points",
        xytext=(0, 4),
        ha="right",
        color="#555555",
        fontsize=9,
    )
    if data.floor is not None:
        ax.axhline(data.floor, color="#aa3333", linestyle=":", linewidth=1.0)
    ax.axhline(0, color="#999999", linewidth=0.6)
    ax.set_title(drawable(data.title))
    ax.set_xlabel(data.hand_label)
    ax.set_ylabel(data.points_label)
    ax.set_xlim(0, max(1, hands[-1]) + 0.6)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, alpha=0.25)
    ax.legend(loc="best", fontsize=9, framealpha=0.85)
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png")
    return out.getvalue()
