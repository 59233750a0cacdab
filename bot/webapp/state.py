"""The table as one seat may see it, as JSON for the Mini App.

Two parts. ``public_state`` is what the whole table may know (built from
``engine.view.public_view``: no card of any hand), the same for every seat,
so the live stream builds it once per change and language. ``seat_part`` is
one seat's own: its cards (none while they lie face down for a blind nil),
its choices now (the claim of the rest among them), its own exchange, built
from ``engine.view.view(game, seat)``. Other hands are never read, so they
cannot be sent, not even as hidden fields. Every word is formatted here from the locales (the bot's own
texts where they exist), as plain text: the page puts it in with
``textContent``.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any

from bot.i18n import esc
from bot.model import LiveTable, TableStatus, paused_key
from bot.pace import is_daily
from bot.views.common import Tr, bid_text, player_name, seat_name
from bot.views.hand import blind_pending
from bot.views.table import game_over_line
from engine import BID, BLIND, PublicView, View, public_view, view
from engine.cards import card_label, sort_for_display
from engine.game import BIDDING, EXCHANGE, OVER, PLAY
from engine.scoring import partner, sides

_TAG = re.compile(r"<[^>]+>")


@lru_cache(maxsize=8192)
def plain(text: str) -> str:
    """A locale text (HTML for Telegram) as the plain text the page shows.
    Remembered: the same few hundred texts come back with every change."""
    return html.unescape(_TAG.sub("", text))


def playing(live: LiveTable) -> bool:
    """Moves are being waited for (not paused, not over)."""
    g = live.game
    return (
        g is not None
        and live.status == TableStatus.PLAYING
        and not live.paused
        and g.phase is not OVER
    )


def seat_state(tr: Tr, live: LiveTable, seat: int, now: float) -> dict[str, Any]:
    """Everything the page draws for ``seat``; ``now`` lets it count the time left."""
    return {**public_state(tr, live), **seat_part(tr, live, seat, now)}


def public_state(tr: Tr, live: LiveTable) -> dict[str, Any]:
    """What every seat at the table sees alike."""
    g = live.game
    assert g is not None and live.game_id is not None
    v = public_view(g)
    n = v.players
    names = [player_name(tr, live, s) for s in range(n)]
    on = playing(live)
    teams = sides(n)
    side_names = [
        tr("join-names", a=names[m[0]], b=names[m[1]]) if len(m) == 2 else names[m[0]]
        for m in teams
    ]
    return {
        "table": live.table_id,
        "game": live.game_id,
        "seq": live.seq,
        "status": str(live.status),
        "paused": bool(live.paused),
        "players": n,
        "phase": str(v.phase),
        "hand_no": v.hand_no,
        "hand_size": v.hand_size,
        "to_move": v.to_move if on else -1,
        "seats": [_seat(tr, live, v, s, names[s]) for s in range(n)],
        "trick": [[s, c] for s, c in v.trick],
        "last_trick": _last_trick(tr, v, names),
        "spades_broken": v.spades_broken,
        "score": [
            {
                "name": plain(side_names[i]),
                "seats": list(members),
                "total": v.totals[i],
                "bags": v.bags[i],
                "line": plain(
                    tr("score-line", side=side_names[i], total=v.totals[i], bags=v.bags[i])
                ),
            }
            for i, members in enumerate(teams)
        ],
        "target": live.rules.target,
        "winner": v.winner,
        "due_at": live.due_at if on else None,
        "daily": is_daily(live.pace),
        "lines": _lines(tr, live, v, names, side_names, on),
    }


def seat_part(tr: Tr, live: LiveTable, seat: int, now: float) -> dict[str, Any]:
    """What only ``seat`` sees: its cards, its choices, its exchange."""
    g = live.game
    assert g is not None
    v = view(g, seat)
    hidden = blind_pending(live, seat)
    on = playing(live)
    my_turn = on and v.to_move == seat and not live.voting  # a claim's vote holds the move
    return {
        "seat": seat,
        "partner": partner(v.players, seat),
        "my_turn": my_turn,
        "hand": [] if hidden else sort_for_display(list(v.hand)),
        "hidden": len(v.hand) if hidden else 0,
        "playable": list(v.cards_allowed) if my_turn and v.phase in (PLAY, EXCHANGE) else [],
        "bids": _bids(tr, v) if my_turn and v.phase == BIDDING and not hidden else [],
        "blind": (
            {"a": BLIND, "text": plain(tr("btn-blind"))}
            if my_turn and hidden and v.may_blind
            else None
        ),
        "look": {"text": plain(tr("btn-look"))} if on and hidden else None,
        "claim": _claim(live, seat) if on else None,
        "exchange": _exchange(tr, live, v) if v.phase == EXCHANGE or v.exchanges else None,
        "prompt": _prompt(tr, live, v, hidden) if on else None,
        "now": now,
    }


def _claim(live: LiveTable, seat: int) -> dict[str, Any] | None:
    """«Остальные мои» offered, as the chat's button is
    (``LiveTable.claim_number``): the number the claim is sent with."""
    n = live.claim_number(seat)
    return None if n is None else {"n": n}


def _seat(tr: Tr, live: LiveTable, v: PublicView, s: int, name: str) -> dict[str, Any]:
    bid = v.bids[s]
    return {
        "name": plain(name),
        "place": plain(seat_name(tr, v.players, s)),
        "computer": live.is_computer(s),
        "bid": bid,
        "bid_text": plain(bid_text(tr, bid, v.blind[s])),
        "nil": bid == 0,
        "blind": v.blind[s],
        "tricks": v.tricks_won[s],
        "cards": v.hand_counts[s],
        "dealer": s == v.dealer,
        "away": s in live.away,
        "blocked": s in live.blocked,
    }


def _bids(tr: Tr, v: View) -> list[dict[str, Any]]:
    """Every bid from nil to the hand size; the ones the rules forbid now are
    offered dimmed and refused with the engine's reason, as cards are."""
    allowed = set(v.bids_allowed)
    return [
        {"a": BID + b, "text": plain(tr("btn-nil")) if b == 0 else str(b), "ok": b in allowed}
        for b in range(v.hand_size + 1)
    ]


def _last_trick(tr: Tr, v: PublicView, names: list[str]) -> dict[str, Any] | None:
    """The trick taken last in this hand, and by whom: in the middle between
    tricks, in a corner while the next one is played."""
    last = v.last_trick
    if last is None:
        return None
    pairs, winner = last
    return {
        "cards": [[s, c] for s, c in pairs],
        "winner": winner,
        "text": plain(tr("webapp-taken-by", name=names[winner])),
    }


def _exchange(tr: Tr, live: LiveTable, v: View) -> dict[str, Any]:
    """The club blind nil's pass: to whom now, and only this seat's own passes."""
    passed: list[int] = []
    received: list[int] = []
    for ex in v.exchanges:
        if ex["from"] == v.seat:
            passed.extend(ex["cards"])
        elif ex["to"] == v.seat:
            received.extend(ex["cards"])
    return {
        "pass_to": v.pass_to,
        "picking": list(v.picking),
        "passed": passed,
        "received": received,
        "passed_text": plain(tr("hand-passed", cards=" ".join(map(card_label, passed))))
        if passed
        else None,
        "received_text": plain(tr("hand-received", cards=" ".join(map(card_label, received))))
        if received
        else None,
    }


def _lines(
    tr: Tr,
    live: LiveTable,
    v: PublicView,
    names: list[str],
    side_names: list[str],
    on: bool,
) -> dict[str, Any]:
    """The sentences around the drawing: whose turn, the hand, the notes."""
    out: dict[str, Any] = {
        "hand": plain(tr("table-hand", hand=v.hand_no + 1, dealer=names[v.dealer])),
        "spades": plain(tr("spades-broken" if v.spades_broken else "spades-unbroken")),
        "trick_no": plain(tr("table-trick-no", n=len(v.tricks) + 1, total=v.hand_size))
        if v.phase == PLAY
        else None,
        "target": plain(tr("webapp-target", target=live.rules.target)),
        "notes": [plain(tr("table-blocked", name=names[s])) for s in sorted(live.blocked)]
        + [plain(tr("table-away", name=names[s])) for s in sorted(live.away)],
    }
    if v.phase == OVER:
        assert v.winner is not None
        out["status"] = plain(game_over_line(tr, live, v))  # as the group's message says it
    elif live.paused:
        out["status"] = plain(tr(paused_key(live), group=esc(live.chat_title)))
    elif not on:
        out["status"] = plain(tr("hand-game-over"))
    else:
        turn = {BIDDING: "turn-bid", EXCHANGE: "turn-exchange"}.get(v.phase, "turn-play")
        out["status"] = plain(tr(turn, name=names[v.to_move]))
    return out


def _prompt(tr: Tr, live: LiveTable, v: View, hidden: bool) -> str:
    """What this seat is to do now (or whom it waits for)."""
    if live.voting:  # no card until the claim's vote ends
        return plain(tr("claim-waiting" if v.to_move == v.seat else "err-claim-voting"))
    if v.to_move != v.seat:
        wait = plain(tr("hand-wait", name=player_name(tr, live, v.to_move)))
        return f"{wait} {plain(tr('hand-blind-later'))}" if hidden else wait
    if v.phase == BIDDING:
        return plain(tr("hand-blind-offer" if hidden else "hand-your-bid"))
    if v.phase == EXCHANGE:
        mate = player_name(tr, live, v.pass_to)
        if v.picking:
            return plain(tr("hand-exchange-second", card=card_label(v.picking[0]), partner=mate))
        return plain(tr("hand-exchange", partner=mate))
    return plain(tr("hand-your-play"))
