"""The one group message per table: seats before the game, the game after."""

from __future__ import annotations

from datetime import tzinfo

from bot.callbacks import (
    HINTS,
    OPTION,
    OPTIONS,
    PACE,
    PRESET,
    SIT,
    STAND,
    START,
    LookupCb,
    TableCb,
)
from bot.i18n import isolated
from bot.model import LiveTable, TableStatus, preset_name
from bot.pace import is_daily
from bot.views.common import (
    Tr,
    clock_time,
    duration,
    members_name,
    num,
    player_name,
    preset_label,
    seat_name,
    side_name,
    trick_line,
)
from bot.views.keyboard import Button, Keyboard, button, keyboard, link, rows_by, rows_of
from bot.views.sides import Standing, bags_text, standing_lines, standing_of
from bot.views.social import ai_level_button
from engine.game import BIDDING, EXCHANGE, OVER, PLAY
from engine.rules import (
    BID_SUM,
    BIG_BID_THRESHOLD,
    BLIND_NIL,
    FAILED_NIL,
    LOSING_FLOORS,
    TARGETS,
    Rules,
)
from engine.view import PublicView

# Options offered on the settings screen, in order, with the values cycled through.
OPTION_VALUES: list[tuple[str, tuple[object, ...]]] = [
    ("players", (4, 3, 5, 6)),
    ("target", TARGETS),
    ("losing_floor", LOSING_FLOORS),
    ("failed_nil", FAILED_NIL),
    ("blind_nil", BLIND_NIL),
    ("bid_sum", BID_SUM),
    ("exact_bonus", (False, True)),
    ("big_bid_bonus", (False, True)),
    ("quicksand", (False, True)),
    ("suicide", (False, True)),
    ("bicycle", (False, True)),
    ("bag_penalty", (True, False)),
]


def option_value(tr: Tr, name: str, value: object) -> str:
    if isinstance(value, bool):
        return tr("opt-on" if value else "opt-off")
    if value is None:
        return tr("opt-none")
    if name in ("players", "target", "losing_floor"):
        shown = num(value) if isinstance(value, int) and value < 0 else str(value)
        return tr(f"optval-{name}", value=shown if name != "players" else value)
    return tr(f"optval-{name}-{value}")


# Options /rules names only when they are on (a value other than the first).
OPTIONAL = ("losing_floor", "blind_nil", "bid_sum")


def rules_lines(tr: Tr, table_rules: Rules) -> list[str]:
    """/rules: the options that are on, each in a player's words (a line of
    «нет» for every option off hides the few that matter)."""
    lines = []
    for name, values in OPTION_VALUES:
        value = getattr(table_rules, name)
        if isinstance(value, bool):
            if value:
                text = tr(
                    f"rules-on-{name}", **{"from": BIG_BID_THRESHOLD.get(table_rules.players, 0)}
                )
                lines.append(tr("rules-line", name=tr(f"opt-{name}"), value=text))
            continue
        if name in OPTIONAL and value == values[0]:
            continue
        lines.append(tr("rules-line", name=tr(f"opt-{name}"), value=option_value(tr, name, value)))
    return lines


def hints_line(tr: Tr, hints: bool) -> str:
    """The option «Подсказки» as a line of /rules (a table setting, not a rule)."""
    return tr("rules-line", name=tr("opt-hints"), value=option_value(tr, "hints", hints))


def open_table(tr: Tr, table: LiveTable) -> tuple[str, Keyboard]:
    n = table.players
    lines = [
        tr("table-open-title", rules=preset_label(tr, table.rules), target=str(table.rules.target))
    ]
    for seat in range(n):
        uid = table.seats[seat]
        name = player_name(tr, table, seat) if uid is not None else tr("seat-free")
        if uid is not None and table.authority.get(uid):
            name = tr("name-authority", name=name, authority=table.authority[uid])
        lines.append(tr("seat-line", seat=seat_name(tr, n, seat), name=name))
    lines.append(tr("table-pace", pace=duration(tr, table.pace), daily=int(is_daily(table.pace))))
    lines.append(tr("table-hints", on=int(table.hints)))
    lines.append("")
    lines.append(tr("table-partners-4" if n == 4 else "table-partners-solo"))
    lines.append(tr("table-open-hint"))
    seat_buttons: list[Button] = []
    for seat in range(n):
        uid = table.seats[seat]
        if uid is None:
            text = tr("btn-seat-free", seat=seat_name(tr, n, seat))
        else:
            name = isolated(table.names.get(uid))
            text = tr("btn-seat-taken", seat=seat_name(tr, n, seat), name=name)
        seat_buttons.append(button(text, TableCb.packed(t=table.table_id, op=SIT, v=seat)))
    rows = rows_by(seat_buttons, 2)
    t = table.table_id
    preset = preset_name(table.rules)
    rows.append(
        [
            button(
                tr("btn-preset", rules=preset_label(tr, table.rules)),
                TableCb.packed(t=t, op=PRESET, v=1 if preset == "classic" else 0),
            ),
            button(tr("btn-options"), TableCb.packed(t=t, op=OPTIONS)),
        ]
    )
    rows.append(
        [button(tr("btn-pace", pace=duration(tr, table.pace)), TableCb.packed(t=t, op=PACE))]
    )
    rows.append(
        [
            button(tr("btn-start"), TableCb.packed(t=t, op=START)),
            button(tr("btn-stand"), TableCb.packed(t=t, op=STAND)),
        ]
    )
    return "\n".join(lines), keyboard(rows)


def options_screen(tr: Tr, table: LiveTable) -> tuple[str, Keyboard]:
    from bot.callbacks import CLOSE_OPTIONS

    lines = [tr("options-title", rules=preset_label(tr, table.rules)), ""]
    lines.append(tr("options-hint"))
    rows = []
    for i, (name, _) in enumerate(OPTION_VALUES):
        value = getattr(table.rules, name)
        rows.append(
            [
                button(
                    tr("btn-option", name=tr(f"opt-{name}"), value=option_value(tr, name, value)),
                    TableCb.packed(t=table.table_id, op=OPTION, v=i),
                )
            ]
        )
    rows.append(
        [
            button(
                tr(
                    "btn-option", name=tr("opt-hints"), value=option_value(tr, "hints", table.hints)
                ),
                TableCb.packed(t=table.table_id, op=HINTS),
            )
        ]
    )
    rows.append([ai_level_button(tr, table)])
    rows.append(
        [button(tr("btn-options-done"), TableCb.packed(t=table.table_id, op=CLOSE_OPTIONS))]
    )
    return "\n".join(lines), keyboard(rows)


def score_lines(
    tr: Tr, table: LiveTable, v: PublicView, standing: Standing | None = None
) -> list[str]:
    """Each side's total and bags, one line a side (the score lookup)."""
    return [
        tr(
            "side-head",
            side=members_name(tr, table, side.members),
            total=num(side.total),
            bags=bags_text(tr, v.rules, side.bags),
        )
        for side in (standing if standing is not None else standing_of(v))
    ]


def deadline_text(tr: Tr, table: LiveTable, now: float, zone: tzinfo) -> str | None:
    """``до 14:16``, ``до завтра 09:30``: when the player to move must have moved."""
    if table.due_at is None:
        return None
    return tr("deadline-at", time=clock_time(tr, table.due_at, now, zone))


def lookup_keyboard(tr: Tr, table: LiveTable) -> Keyboard:
    """What the table does not show itself: the whole score sheet."""
    return keyboard([[button(tr("btn-q-sheet"), LookupCb.packed(t=table.table_id, k="sheet"))]])


def status_line(tr: Tr, v: PublicView, key: str = "table-status") -> str:
    """``🃏 Сдача 2 · взятка 7 из 13 · ♠ вскрыты`` (``lookup-status``: without the 🃏,
    which marks the table message itself)."""
    if v.phase == BIDDING:
        stage = tr("stage-bidding")
    elif v.phase == EXCHANGE:
        stage = tr("stage-exchange")
    else:
        stage = tr(
            "stage-play",
            n=min(len(v.tricks) + 1, v.hand_size),
            total=v.hand_size,
            spades=tr("stage-spades-broken" if v.spades_broken else "stage-spades-unbroken"),
        )
    return tr(key, hand=v.hand_no + 1, stage=stage)


def turn_line(tr: Tr, table: LiveTable, v: PublicView, now: float, zone: tzinfo) -> str:
    """``▶️ Ходит Борис · до 14:16``."""
    who = player_name(tr, table, v.to_move)
    deadline = deadline_text(tr, table, now, zone)
    key = {BIDDING: "table-turn-bid", EXCHANGE: "table-turn-exchange"}.get(
        v.phase, "table-turn-play"
    )
    return tr(key, name=who, deadline=f" · {deadline}" if deadline else "")


def game_table(
    tr: Tr,
    table: LiveTable,
    v: PublicView,
    now: float,
    zone: tzinfo,
    app_link: str | None = None,
    standing: Standing | None = None,
) -> tuple[str, Keyboard | None]:
    """The group's view of a running or finished game, read in two seconds:
    where the hand stands, whose turn it is and the trick on the table at
    the top, then each side's bids or contract against its tricks. No
    hidden card, ever.
    ``app_link``: the Mini App's t.me link for this table, as a last row;
    ``standing``: the sides as the render pass worked them out."""
    if standing is None:
        standing = standing_of(v)
    if v.phase == OVER:
        assert v.winner is not None
        lines = [tr("table-over-title", rules=preset_label(tr, table.rules))]
        lines.append(game_over_line(tr, table, v, standing))
        lines.append("")
        lines.extend(score_lines(tr, table, v, standing))
        return "\n".join(lines), None
    lines = [status_line(tr, v)]
    playing = table.status == TableStatus.PLAYING
    if playing:
        lines.append(turn_line(tr, table, v, now, zone))
    # The line that changes every move, right under whose move it is.
    if v.phase == PLAY:
        trick = trick_line(tr, table, v)
        if trick is not None:
            lines.append(trick)
    lines.append("")
    lines.extend(standing_lines(tr, table, v, standing=standing))
    if not playing:
        return "\n".join(lines), None
    notes = [tr("table-blocked", name=player_name(tr, table, s)) for s in sorted(table.blocked)]
    notes += [tr("table-away", name=player_name(tr, table, s)) for s in sorted(table.away)]
    if table.hints:
        notes.append(tr("table-hints", on=1))
    if notes:
        lines.append("")
        lines.extend(notes)
    markup = lookup_keyboard(tr, table)
    if app_link is not None:
        markup = keyboard([*rows_of(markup), [link(tr("btn-webapp-group"), app_link)]])
    return "\n".join(lines), markup


def game_over_line(
    tr: Tr, table: LiveTable, v: PublicView, standing: Standing | None = None
) -> str:
    """``🏆 Победа: Аня + Вика — 586 : 228``: the winner's total first."""
    assert v.winner is not None
    order = [v.winner] + [i for i in range(len(v.totals)) if i != v.winner]
    totals = " : ".join(num(v.totals[i]) for i in order)
    winner = (
        members_name(tr, table, standing[v.winner].members)
        if standing is not None
        else side_name(tr, table, v.winner)
    )
    return tr("table-winner", winner=winner, totals=totals)
