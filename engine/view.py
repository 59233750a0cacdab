"""What one seat may know. The computer player and the bot's private
rendering read a ``View``, never the full ``Game``: that is how hidden cards
stay hidden by construction rather than by care."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from engine.cards import card_str, cards_of
from engine.game import Game, action_to_json
from engine.rules import Rules


@dataclass(frozen=True, slots=True)
class View:
    seat: int
    rules: Rules
    players: int
    hand_size: int
    hand_no: int
    dealer: int
    phase: str
    to_move: int
    hand: tuple[int, ...]  # own cards, ascending
    hand_counts: tuple[int, ...]  # cards left per seat
    bids: tuple[int | None, ...]  # 0 = nil; None: not bid yet
    blind: tuple[bool, ...]
    tricks_won: tuple[int, ...]
    trick: tuple[tuple[int, int], ...]  # (seat, card) of the trick on the table
    trick_leader: int
    tricks: tuple[tuple[int, tuple[int, ...], int], ...]  # finished tricks: leader, cards, winner
    spades_broken: bool
    exchanges: tuple[dict[str, Any], ...]  # only those this seat gave or received
    totals: tuple[int, ...]
    bags: tuple[int, ...]
    tiebreak: bool
    winner: int | None
    legal: tuple[int, ...]  # legal actions if this seat is to move
    picking: tuple[int, ...]  # cards this seat already chose for its exchange pass
    sheet: tuple[dict[str, Any], ...] = field(default=())

    @property
    def lead_suit(self) -> int | None:
        return self.trick[0][1] // 13 if self.trick else None

    def to_dict(self) -> dict[str, Any]:
        """JSON form, cards in replay notation."""
        d = asdict(self)
        d["rules"] = self.rules.to_dict()
        d["hand"] = [card_str(c) for c in self.hand]
        d["trick"] = [[s, card_str(c)] for s, c in self.trick]
        d["tricks"] = [[ld, [card_str(c) for c in cs], w] for ld, cs, w in self.tricks]
        d["exchanges"] = [
            {"from": e["from"], "to": e["to"], "cards": [card_str(c) for c in e["cards"]]}
            for e in self.exchanges
        ]
        d["legal"] = [action_to_json(a) for a in self.legal]
        d["picking"] = [card_str(c) for c in self.picking]
        d["sheet"] = list(self.sheet)
        return d


def view(state: Game, seat: int) -> View:
    trick_seats = [(state.trick_leader + i) % state.n for i in range(len(state.trick))]
    return View(
        seat=seat,
        rules=state.rules,
        players=state.n,
        hand_size=state.hand_size,
        hand_no=state.hand_no,
        dealer=state.dealer,
        phase=state.phase,
        to_move=state.to_move,
        hand=tuple(cards_of(state.hands[seat])),
        hand_counts=tuple(h.bit_count() for h in state.hands),
        bids=tuple(state.bids),
        blind=tuple(state.blind),
        tricks_won=tuple(state.tricks_won),
        trick=tuple(zip(trick_seats, state.trick, strict=True)),
        trick_leader=state.trick_leader,
        tricks=tuple((ld, tuple(cs), w) for ld, cs, w in state.tricks),
        spades_broken=state.spades_broken,
        exchanges=tuple(e for e in state.exchanges if seat in (e["from"], e["to"])),
        totals=tuple(state.totals),
        bags=tuple(state.bags),
        tiebreak=state.tiebreak,
        winner=state.winner,
        legal=tuple(state.legal_actions()) if state.to_move == seat else (),
        picking=tuple(state.exchange_pick) if state.to_move == seat else (),
        sheet=tuple(state.sheet),
    )
