"""«Сдача дня» as the group and the person read it: the opening message with
its link, the person's private hand (the hand view's text, the day's own
buttons), their result until the close (own score and the count only),
``/day``'s answers, and the close's table of results."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

from bot.callbacks import DayMoveCb, DayRecordCb, DayWhyCb
from bot.i18n import esc
from bot.model import LiveTable
from bot.views.common import Tr, num
from bot.views.hand import card_keyboard, hand_message
from bot.views.keyboard import Keyboard, button, keyboard, link, rows_by
from engine.game import BID, BIDDING, PLAY
from engine.view import View


@dataclass(frozen=True, slots=True)
class DayLine:
    """One player's line of a closed day."""

    user_id: int
    name: str
    bid: int
    tricks: int
    score: int
    points: float  # matchpoints against the group's other players
    percent: int | None  # better than this share of every group's players
    finished_at: float


def clock(moment: float, zone: tzinfo) -> str:
    return datetime.fromtimestamp(moment, zone).strftime("%H:%M")


def day_date(moment: float, zone: tzinfo) -> str:
    return datetime.fromtimestamp(moment, zone).strftime("%d.%m")


def _bid(tr: Tr, bid: int) -> str:
    """``3``, or ``ноль``."""
    return tr("bid-nil") if bid == 0 else str(bid)


def points_text(points: float) -> str:
    """``2``, ``1½``, ``½``."""
    whole, half = int(points), points - int(points) >= 0.5
    if not half:
        return str(whole)
    return "½" if whole == 0 else f"{whole}½"


# ---------------------------------------------------------------- the group
def opening_message(tr: Tr, url: str, closes_at: float, zone: tzinfo) -> tuple[str, Keyboard]:
    """«🃏 Сдача дня · до завтра 09:00» and the button to the private chat."""
    text = tr("day-opening", until=clock(closes_at, zone))
    return text, keyboard([[link(tr("btn-day-play"), url)]])


def closed_opening_text(tr: Tr, closed_at: float, zone: tzinfo) -> str:
    return tr("day-opening-closed", at=clock(closed_at, zone))


def close_message(
    tr: Tr, day_id: int, lines: Sequence[DayLine], unfinished: int
) -> tuple[str, Keyboard | None]:
    """The day's table, best first; the best line's record a tap away."""
    out = [tr("day-close-title")]
    if not lines:
        out.append(tr("day-close-nobody"))
    for n, line in enumerate(lines, 1):
        out.append(
            tr(
                "day-close-line",
                n=n,
                name=esc(line.name) or tr("day-someone"),
                bid=_bid(tr, line.bid),
                tricks=line.tricks,
                score=num(line.score),
                points=points_text(line.points),
            )
        )
        if line.percent is not None:
            out.append(tr("day-close-percent", percent=line.percent))
    if unfinished:
        out.append(tr("day-close-unfinished", count=unfinished))
    markup = None
    if lines:
        markup = keyboard([[button(tr("btn-day-record"), DayRecordCb.packed(d=day_id))]])
    return "\n".join(out), markup


def state_text(
    tr: Tr,
    *,
    enabled: bool,
    minute: int,
    closes_at: float | None,
    next_at: float | None,
    done: Sequence[str],
    playing: Sequence[str],
    zone: tzinfo,
) -> str:
    """``/day`` in the group: names only, never a score before the close."""
    hour = f"{minute // 60:02d}:{minute % 60:02d}"
    out = [tr("day-state-on" if enabled else "day-state-off", hour=hour)]
    if closes_at is not None:
        out.append(tr("day-state-closes", at=clock(closes_at, zone)))
        names = ", ".join(esc(n) for n in done) or "—"
        out.append(tr("day-state-done", count=len(done), names=names))
        names = ", ".join(esc(n) for n in playing) or "—"
        out.append(tr("day-state-playing", count=len(playing), names=names))
    elif enabled and next_at is not None:
        out.append(tr("day-state-next", at=f"{day_date(next_at, zone)} {clock(next_at, zone)}"))
    return "\n".join(out)


# ---------------------------------------------------------------- the person
def day_hand(
    tr: Tr, table: LiveTable, v: View, day_id: int, seq: int
) -> tuple[str, Keyboard | None]:
    """The hand as the tables' hand view tells it, with the day's buttons."""
    text, _ = hand_message(tr, table, v)
    text = "\n".join([tr("day-hand-title"), text])
    if v.to_move != v.seat:
        return text, None
    if v.phase == BIDDING:
        bids = [
            button(
                tr("btn-nil") if b == 0 else str(b), DayMoveCb.packed(d=day_id, s=seq, a=BID + b)
            )
            for b in v.bids_allowed
        ]
        return text, keyboard(rows_by(bids, 5))
    if v.phase == PLAY:
        return text, _cards(v, day_id, seq)
    return text, None


def _cards(v: View, day_id: int, seq: int) -> Keyboard:
    return card_keyboard(
        v,
        lambda c: DayMoveCb.packed(d=day_id, s=seq, a=c),
        lambda c: DayWhyCb.packed(d=day_id, s=seq, a=c),
    )


def day_done_text(
    tr: Tr,
    title: str,
    bid: int,
    tricks: int,
    score: int,
    played: int,
    closes_at: float,
    zone: tzinfo,
) -> str:
    """After the last card: the person's own result and how many have
    played, nothing of anyone else's until the close."""
    return "\n".join(
        [
            tr("day-done-title", group=esc(title)),
            tr(
                "day-done-result",
                bid=_bid(tr, bid),
                tricks=tricks,
                score=num(score),
            ),
            tr("day-done-played", count=played),
            tr("day-done-wait", at=clock(closes_at, zone)),
        ]
    )


def own_days_text(
    tr: Tr, items: Sequence[tuple[sqlite3.Row, bool, int, int | None]], zone: tzinfo
) -> str:
    """``/day`` in private: (play, closed, how many played, better than %) each."""
    if not items:
        return tr("day-own-none")
    out = [tr("day-own-title")]
    for row, closed, played, percent in items:
        when = ".".join(reversed(str(row["date"]).split("-")[1:]))
        if row["finished_at"] is None:
            key = "day-own-closed-unfinished" if closed else "day-own-playing"
            out.append(tr(key, date=when))
            continue
        bid = _bid(tr, int(row["bid"]))
        out.append(
            tr(
                "day-own-line",
                date=when,
                bid=bid,
                tricks=row["tricks"],
                score=num(int(row["score"])),
                played=played,
            )
        )
        if closed and percent is not None:
            out.append(tr("day-close-percent", percent=percent))
        elif not closed:
            out.append(tr("day-own-open", at=clock(float(row["closes_at"]), zone)))
    return "\n".join(out)
