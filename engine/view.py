"""What one seat may know, and what everyone at the table may know.

The computer player and the bot's private messages read a ``View``, the
bot's group messages a ``PublicView``, never the full ``Game``: that is how
hidden cards stay hidden by construction rather than by care.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from engine.cards import card_str, cards_of
from engine.game import BID, BLIND, Game, Phase, action_to_json
from engine.rules import Rules


# Views are read-only by convention, not frozen: a frozen dataclass costs
# five times as much to build, and the bot builds several per move.
@dataclass(slots=True, kw_only=True)
class PublicView:
    """The game as the whole table sees it: no card of any hand."""

    rules: Rules
    players: int
    hand_size: int
    hand_no: int
    dealer: int
    phase: Phase
    to_move: int
    hand_counts: tuple[int, ...]  # cards left per seat
    bids: tuple[int | None, ...]  # 0 = nil; None: not bid yet
    blind: tuple[bool, ...]
    tricks_won: tuple[int, ...]
    trick: tuple[tuple[int, int], ...]  # (seat, card) of the trick on the table
    trick_leader: int
    tricks: tuple[tuple[int, tuple[int, ...], int], ...]  # finished tricks: leader, cards, winner
    spades_broken: bool
    pass_to: int  # who receives the blind-nil pass being made now; -1: none
    totals: tuple[int, ...]
    bags: tuple[int, ...]
    tiebreak: bool
    winner: int | None
    sheet: tuple[dict[str, Any], ...] = ()

    @property
    def lead_suit(self) -> int | None:
        return self.trick[0][1] // 13 if self.trick else None

    @property
    def last_trick(self) -> tuple[tuple[tuple[int, int], ...], int] | None:
        """The last finished trick of this hand as (seat, card) pairs in play
        order, with its winner; None before the first trick is complete."""
        if not self.tricks:
            return None
        leader, cards, winner = self.tricks[-1]
        n = self.players
        return tuple(((leader + i) % n, c) for i, c in enumerate(cards)), winner

    def to_dict(self) -> dict[str, Any]:
        """JSON form, cards in replay notation."""
        # The fields as they are: ``asdict`` deep-copied the whole score sheet
        # only for it to be replaced below (the rest are tuples of numbers).
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["rules"] = self.rules.to_dict()
        d["trick"] = [[s, card_str(c)] for s, c in self.trick]
        d["tricks"] = [[ld, [card_str(c) for c in cs], w] for ld, cs, w in self.tricks]
        d["sheet"] = list(self.sheet)
        return d


@dataclass(slots=True, kw_only=True)
class View(PublicView):
    """The game as one seat sees it: the public part, its own cards, its own
    exchange, and what it may do now."""

    seat: int
    hand: tuple[int, ...]  # own cards, ascending
    exchanges: tuple[dict[str, Any], ...]  # only those this seat gave or received
    legal: tuple[int, ...]  # legal actions if this seat is to move
    picking: tuple[int, ...]  # cards this seat already chose for its exchange pass
    blind_possible: bool  # may still declare blind nil this hand (``Game.blind_possible``)

    @property
    def bids_allowed(self) -> tuple[int, ...]:
        """The bids (0 = nil) this seat may make now; blind nil is ``may_blind``."""
        return tuple(a - BID for a in self.legal if BID <= a < BLIND)

    @property
    def may_blind(self) -> bool:
        return BLIND in self.legal

    @property
    def cards_allowed(self) -> tuple[int, ...]:
        """The cards this seat may play, or pass in the exchange, now."""
        return tuple(a for a in self.legal if a < BID)

    def to_dict(self) -> dict[str, Any]:
        """JSON form, cards in replay notation."""
        d = PublicView.to_dict(self)
        d["hand"] = [card_str(c) for c in self.hand]
        d["exchanges"] = [
            {"from": e["from"], "to": e["to"], "cards": [card_str(c) for c in e["cards"]]}
            for e in self.exchanges
        ]
        d["legal"] = [action_to_json(a) for a in self.legal]
        d["picking"] = [card_str(c) for c in self.picking]
        return d


def _public(state: Game) -> dict[str, Any]:
    """The fields of a ``PublicView``: both views are built from these."""
    n = state.n
    leader = state.trick_leader
    passing = state.passing()
    return {
        "rules": state.rules,
        "players": n,
        "hand_size": state.hand_size,
        "hand_no": state.hand_no,
        "dealer": state.dealer,
        "phase": state.phase,
        "to_move": state.to_move,
        "hand_counts": tuple(map(int.bit_count, state.hands)),
        "bids": tuple(state.bids),
        "blind": tuple(state.blind),
        "tricks_won": tuple(state.tricks_won),
        "trick": tuple([((leader + i) % n, c) for i, c in enumerate(state.trick)]),
        "trick_leader": leader,
        "tricks": tuple([(ld, tuple(cs), w) for ld, cs, w in state.tricks]),
        "spades_broken": state.spades_broken,
        "pass_to": passing[1] if passing else -1,
        "totals": tuple(state.totals),
        "bags": tuple(state.bags),
        "tiebreak": state.tiebreak,
        "winner": state.winner,
        "sheet": tuple(state.sheet),
    }


def public_view(state: Game) -> PublicView:
    """What every seat, and anyone watching the table, may know."""
    return PublicView(**_public(state))


def view(state: Game, seat: int) -> View:
    """What ``seat`` may know: the public view plus its own cards and choices."""
    return _seat_view(state, seat, _public(state))


def views(state: Game, seats: Iterable[int]) -> list[View]:
    """``view(state, seat)`` for several seats, the public part built once:
    the bot renders every player's hand after each move."""
    public = _public(state)
    return [_seat_view(state, seat, public) for seat in seats]


def _seat_view(state: Game, seat: int, public: dict[str, Any]) -> View:
    to_move = state.to_move == seat
    return View(
        **public,
        seat=seat,
        hand=tuple(cards_of(state.hands[seat])),
        exchanges=tuple([e for e in state.exchanges if seat in (e["from"], e["to"])]),
        legal=tuple(state.legal_actions()) if to_move else (),
        picking=tuple(state.exchange_pick) if to_move else (),
        blind_possible=state.blind_possible(seat),
    )
