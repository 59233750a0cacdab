"""The game state: deal, bidding, the blind-nil exchange, play, scoring.

A game is ``(rules, seed, actions)``: folding the actions over the start
state rebuilds it. Actions are small ints (OpenSpiel style) so the fast path
and the computer's search stay cheap:

* ``0…51``   a card (play, or one card of a blind-nil exchange)
* ``52…69``  a bid of 0…17 (0 = nil): ``BID + n``
* ``70``     blind nil
* ``71``     claim: the player to move takes every remaining trick of the
  hand (a claim the table conceded: proved by ``engine.claim`` or accepted)

``Game`` is mutable for speed (``apply_action``); ``apply(state, action)``
returns a new state for callers that want values. Randomness is only in
dealing, from the explicit seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from engine.cards import (
    NON_SPADES_MASK,
    SPADES,
    SUIT_MASKS,
    card_str,
    cards_of,
    deck,
    hand_size,
    mask_of,
    parse_card,
)
from engine.errors import EngineError
from engine.rules import Rules
from engine.scoring import decide_end, score_hand, sides

BID = 52
BLIND = 70
CLAIM = 71
MAX_BID = 17


class Phase(StrEnum):
    """Where a game stands. The values are stored and sent as they are."""

    DEAL = "deal"  # waiting for the cards of the next hand
    BIDDING = "bid"
    EXCHANGE = "exchange"  # club blind nil: the two passes of two cards
    PLAY = "play"
    OVER = "over"


# Short names for the phases. A phase is always one of these members, so the
# engine compares with ``is``: string equality on a str subclass is not
# specialised by the interpreter and cost 2 % of a hand on the public path.
DEAL, BIDDING, EXCHANGE, PLAY, OVER = (
    Phase.DEAL,
    Phase.BIDDING,
    Phase.EXCHANGE,
    Phase.PLAY,
    Phase.OVER,
)


def action_to_json(action: int) -> int | str:
    """Replay notation: a bid number, ``"blind"`` or a card like ``"AS"``."""
    if action == BLIND:
        return "blind"
    if action == CLAIM:
        return "claim"
    if action >= BID:
        return action - BID
    return card_str(action)


def action_from_json(value: Any, phase: Phase) -> int:
    """Parse replay notation; a bare number is a bid only while bidding."""
    if phase == BIDDING:
        if value == "blind":
            return BLIND
        if isinstance(value, int) and not isinstance(value, bool):
            if 0 <= value <= MAX_BID:
                return BID + value
            raise EngineError("bid_out_of_range", f"bid {value} is outside 0..{MAX_BID}")
        raise EngineError("bad_action", f"not a bid: {value!r}")
    if value == "claim":
        return CLAIM
    try:
        return parse_card(value)
    except ValueError as e:
        raise EngineError("bad_action", str(e)) from None


def deal_from_seed(seed: int, hand_no: int, players: int) -> list[list[int]]:
    """Same seed and hand number give the same deal on every machine."""
    cards = deck(players)
    random.Random(seed * 1_000_003 + hand_no).shuffle(cards)
    size = len(cards) // players
    return [sorted(cards[i * size : (i + 1) * size]) for i in range(players)]


# Fast path: the cards that beat card ``w`` on the table (higher in its suit,
# or any spade over a side suit), and the lowest spade.
_FIRST_SPADE = SPADES * 13
_BEATS = tuple(
    (SUIT_MASKS[w // 13] & ~((2 << w) - 1)) | (0 if w // 13 == SPADES else SUIT_MASKS[SPADES])
    for w in range(52)
)


# Every field of a ``Game`` and how ``copy`` treats it: OWN fields are lists
# changed in place, so a copy gets its own list (one level deep: their items
# are never changed in place); SHARED fields are immutable or only ever
# replaced whole, so a copy shares them. ``Game.__slots__`` is made from this
# table: a field cannot be added without saying how it is copied.
OWN, SHARED = True, False
_FIELDS: dict[str, bool] = {
    # the game
    "rules": SHARED,
    "seed": SHARED,
    "n": SHARED,
    "hand_size": SHARED,
    "first_dealer": SHARED,
    "hand_no": SHARED,
    "dealer": SHARED,
    "phase": SHARED,
    "to_move": SHARED,
    "totals": OWN,
    "bags": OWN,
    "tiebreak": SHARED,
    "winner": SHARED,
    "sheet": OWN,
    "actions": OWN,
    # the hand
    "dealt": OWN,
    "hands": OWN,
    "bids": OWN,
    "blind": OWN,
    "bid_count": SHARED,
    "exchange_queue": OWN,
    "exchange_pick": OWN,
    "exchanges": OWN,
    "trick": OWN,
    "trick_leader": SHARED,
    "win_card": SHARED,
    "win_seat": SHARED,
    "spades_broken": SHARED,
    "tricks_won": OWN,
    "tricks": OWN,
    "hand_start": SHARED,  # where in ``actions`` the hand began
}


def _compile_copy() -> Callable[[Game], Game]:
    """``Game.copy`` as straight-line code generated from ``_FIELDS``: three
    times faster than a loop over the names, and the computer player's search
    copies a state for every imagined deal and every candidate move."""
    lines = ["def copy(self):", "    g = _new(Game)"]
    for name, own in _FIELDS.items():
        lines.append(f"    g.{name} = self.{name}{'.copy()' if own else ''}")
    lines.append("    return g")
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), {"_new": object.__new__, "Game": Game}, namespace)
    copy: Callable[[Game], Game] = namespace["copy"]
    return copy


class Game:
    """Full state of one game. Use ``legal_actions`` / ``apply_action``."""

    __slots__ = tuple(_FIELDS)

    def __init__(self, rules: Rules, seed: int | None = None, first_dealer: int | None = None):
        self.rules = rules
        self.seed = seed
        self.n = rules.players
        self.hand_size = hand_size(rules.players)
        if first_dealer is None:
            if seed is None:
                raise EngineError("bad_record", "first_dealer is needed when there is no seed")
            first_dealer = random.Random(seed).randrange(self.n)
        if not (isinstance(first_dealer, int) and 0 <= first_dealer < self.n):
            raise EngineError("bad_record", "first_dealer must be a seat number")
        self.first_dealer = first_dealer
        self.hand_no = 0
        self.dealer = first_dealer
        self.totals = [0] * len(sides(self.n))
        self.bags = [0] * len(sides(self.n))
        self.tiebreak = False
        self.winner: int | None = None
        self.sheet: list[dict[str, Any]] = []
        self.actions: list[int] = []
        self.hand_start = 0  # index in ``actions`` where the current hand began
        self._reset_hand()
        if seed is not None:
            self.deal(deal_from_seed(seed, 0, self.n))

    # ----------------------------------------------------------------- hands
    def _reset_hand(self) -> None:
        self.phase: Phase = DEAL
        self.to_move = -1
        self.dealt: list[list[int]] = []
        self.hands = [0] * self.n
        self.bids: list[int | None] = [None] * self.n
        self.blind = [False] * self.n
        self.bid_count = 0
        self.exchange_queue: list[tuple[int, int]] = []
        self.exchange_pick: list[int] = []
        self.exchanges: list[dict[str, Any]] = []
        self.trick: list[int] = []
        self.trick_leader = -1
        self.win_card = -1
        self.win_seat = -1
        self.spades_broken = False
        self.tricks_won = [0] * self.n
        self.tricks: list[tuple[int, list[int], int]] = []  # (leader, cards, winner)

    def deal(self, hands: list[list[int]]) -> None:
        """Start the hand with these cards (seat by seat); validated against the deck."""
        if self.phase is not DEAL:
            raise EngineError("wrong_phase", "the hand is already dealt")
        if not isinstance(hands, list) or len(hands) != self.n:
            raise EngineError("bad_deal", f"a deal has {self.n} hands")
        seen: set[int] = set()
        for h in hands:
            if len(h) != self.hand_size:
                raise EngineError("bad_deal", f"each hand has {self.hand_size} cards")
            seen.update(h)
        if seen != set(deck(self.n)):
            raise EngineError("bad_deal", "the deal must use each card of the deck once")
        self.dealt = [sorted(h) for h in hands]
        self.hands = [mask_of(h) for h in hands]
        self.phase = BIDDING
        self.to_move = (self.dealer + 1) % self.n

    def _next_hand(self) -> None:
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % self.n
        self.hand_start = len(self.actions)
        self._reset_hand()
        if self.seed is not None:
            self.deal(deal_from_seed(self.seed, self.hand_no, self.n))

    # --------------------------------------------------------------- bidding
    def allowed_bids(self, seat: int) -> list[int]:
        """Bid numbers (0 = nil) this seat may make now; blind nil is separate."""
        r = self.rules
        hs = self.hand_size
        low = 1 if r.bicycle else 0
        allowed = list(range(low, hs + 1))
        if r.suicide:
            partner_bid = self.bids[(seat + 2) % 4]
            if partner_bid is None or partner_bid == 0:
                allowed = [b for b in allowed if b == 0 or b >= 4]
            else:
                allowed = [0]
        if r.bid_sum != "free":
            s = sum(b for b in self.bids if b)
            if r.bid_sum == "club":
                allowed = [b for b in allowed if s + b <= hs]
            elif self.bid_count == self.n - 1:
                allowed = [b for b in allowed if s + b != hs]
        return allowed

    def blind_allowed(self, seat: int) -> bool:
        """May ``seat`` declare blind nil now, as its bid."""
        if self.phase is not BIDDING or self.to_move != seat:
            return False
        return self._blind_eligible(seat) and 0 in self.allowed_bids(seat)

    def blind_possible(self, seat: int) -> bool:
        """May ``seat`` still declare blind nil this hand, now or when its turn
        comes? (A player keeps the cards face down while it may.) Before the
        turn only what is known counts: the option and the club's conditions;
        whether a nil will be allowed then depends on the bids still to come."""
        if self.phase is not BIDDING or self.bids[seat] is not None:
            return False
        if self.to_move == seat:
            return self.blind_allowed(seat)
        return self._blind_eligible(seat)

    def _blind_eligible(self, seat: int) -> bool:
        """The option, and under ``club`` (docs/rules.md, reading 2) a team at least 100
        behind before the hand, one blind nil per team."""
        rule = self.rules.blind_nil
        if rule == "off":
            return False
        if rule == "club":
            team = seat % 2
            if self.totals[team] > self.totals[1 - team] - 100:
                return False
            if self.blind[(seat + 2) % 4]:
                return False
        return True

    def _apply_bid(self, seat: int, action: int) -> None:
        if action == BLIND:
            if not self.blind_allowed(seat):
                raise EngineError("blind_not_allowed", "blind nil is not allowed now")
            n = 0
            self.blind[seat] = True
        else:
            n = action - BID
            if n > self.hand_size:
                raise EngineError("bid_out_of_range", f"bids are 0..{self.hand_size}")
            if n not in self.allowed_bids(seat):
                if n == 0:
                    raise EngineError("nil_not_allowed", "nil is not allowed here")
                raise EngineError("bid_not_allowed", f"bid {n} is not allowed here")
        self.bids[seat] = n
        self.bid_count += 1
        self.actions.append(action)
        if self.bid_count < self.n:
            self.to_move = (seat + 1) % self.n
            return
        if self.rules.blind_nil == "club":
            order = [(self.dealer + 1 + i) % self.n for i in range(self.n)]
            for s in order:
                if self.blind[s]:
                    partner = (s + 2) % 4
                    self.exchange_queue += [(s, partner), (partner, s)]
        if self.exchange_queue:
            self.phase = EXCHANGE
            self.to_move = self.exchange_queue[0][0]
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY
        self.trick_leader = self.to_move = (self.dealer + 1) % self.n

    # -------------------------------------------------------------- exchange
    def _apply_exchange(self, seat: int, c: int) -> None:
        if not (0 <= c < 52) or not (self.hands[seat] >> c) & 1 or c in self.exchange_pick:
            raise EngineError("card_not_in_hand", "that card is not in the hand")
        self.exchange_pick.append(c)
        self.actions.append(c)
        if len(self.exchange_pick) < 2:
            return
        giver, taker = self.exchange_queue.pop(0)
        m = mask_of(self.exchange_pick)
        self.hands[giver] &= ~m
        self.hands[taker] |= m
        self.exchanges.append({"from": giver, "to": taker, "cards": list(self.exchange_pick)})
        self.exchange_pick = []
        if self.exchange_queue:
            self.to_move = self.exchange_queue[0][0]
        else:
            self._start_play()

    # ------------------------------------------------------------------ play
    def legal_play_mask(self) -> int:
        """Fast path: the legal cards of the player to move as a bitmask."""
        h = self.hands[self.to_move]
        if self.trick:
            m = h & SUIT_MASKS[self.trick[0] // 13]
            return m or h
        if not self.spades_broken:
            return (h & NON_SPADES_MASK) or h
        return h

    def _apply_play(self, seat: int, c: int) -> None:
        h = self.hands[seat]
        if not (0 <= c < 52) or not (h >> c) & 1:
            raise EngineError("card_not_in_hand", "that card is not in the hand")
        if not (self.legal_play_mask() >> c) & 1:
            if self.trick:
                raise EngineError("must_follow_suit", "the led suit must be followed")
            raise EngineError("spades_not_broken", "spades may not be led yet")
        self.play_unchecked(c)

    def play_unchecked(self, c: int) -> None:
        """Play a card already known to be legal (the search's inner loop)."""
        seat = self.to_move
        self.hands[seat] &= ~(1 << c)
        self.actions.append(c)
        trick = self.trick
        if not trick or _BEATS[self.win_card] >> c & 1:
            self.win_card = c
            self.win_seat = seat
        if c >= _FIRST_SPADE:
            self.spades_broken = True
        trick.append(c)
        n = self.n
        if len(trick) < n:
            seat += 1
            self.to_move = 0 if seat == n else seat
            return
        winner = self.win_seat
        self.tricks_won[winner] += 1
        tricks = self.tricks
        tricks.append((self.trick_leader, trick, winner))
        self.trick = []
        self.trick_leader = self.to_move = winner
        if len(tricks) == self.hand_size:
            self._finish_hand()

    def _apply_claim(self, seat: int) -> None:
        """The rest of the hand to ``seat``, as if played out: the cards on the
        table and in the hands are gone, every trick not yet won is its."""
        left = self.hand_size - len(self.tricks)
        if left < 2:
            raise EngineError("claim_not_allowed", "a claim needs at least two tricks left")
        self.tricks_won[seat] += left
        self.hands = [0] * self.n
        self.trick = []
        self.actions.append(CLAIM)
        self._finish_hand()

    def _finish_hand(self) -> None:
        assert sum(self.tricks_won) == self.hand_size, "tricks must add up to the hand size"
        bids = [b if b is not None else 0 for b in self.bids]
        result = score_hand(self.rules, bids, self.blind, self.tricks_won, self.bags, self.totals)
        self.totals = [s.total for s in result]
        self.bags = [s.bags for s in result]
        self.sheet.append(
            {
                "hand": self.hand_no,
                "dealer": self.dealer,
                "bids": bids,
                "blind": list(self.blind),
                "tricks": list(self.tricks_won),
                "sides": [s.to_dict() for s in result],
            }
        )
        winner, self.tiebreak = decide_end(self.rules, self.totals, self.tiebreak)
        if winner is not None:
            self.winner = winner
            self.phase = OVER
            self.to_move = -1
            return
        self._next_hand()

    # ------------------------------------------------------------ public API
    @property
    def finished(self) -> bool:
        return self.phase is OVER

    def legal_actions(self) -> list[int]:
        """Every legal action of the player to move, ascending."""
        p = self.phase
        if p is PLAY:
            return cards_of(self.legal_play_mask())
        if p is BIDDING:
            seat = self.to_move
            out = [BID + b for b in self.allowed_bids(seat)]
            if self.blind_allowed(seat):
                out.append(BLIND)
            return out
        if p is EXCHANGE:
            return [c for c in cards_of(self.hands[self.to_move]) if c not in self.exchange_pick]
        return []

    def apply_action(self, action: int, seat: int | None = None) -> None:
        """Apply in place; raise ``EngineError`` (state unchanged) if illegal.

        ``seat``, when given, is who claims to act: the bot passes the presser's seat.
        """
        p = self.phase
        if p is OVER:
            raise EngineError("game_over", "the game is over")
        if p is DEAL:
            raise EngineError("wrong_phase", "the hand is not dealt yet")
        if seat is not None and seat != self.to_move:
            raise EngineError("not_your_turn", "it is another seat's turn")
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action <= CLAIM:
            raise EngineError("bad_action", f"unknown action {action!r}")
        if action == CLAIM:
            # A claim is a move only once proved or accepted (engine/claim.py
            # and the table's vote decide): concede_claim() applies it.
            raise EngineError("claim_not_conceded", "a claim is applied once conceded")
        if p is BIDDING:
            if action < BID:
                raise EngineError("wrong_phase", "bidding is in progress: bid first")
            self._apply_bid(self.to_move, action)
        elif action >= BID:
            raise EngineError("wrong_phase", "bidding is over")
        elif p is EXCHANGE:
            self._apply_exchange(self.to_move, action)
        else:
            self._apply_play(self.to_move, action)

    def concede_claim(self, seat: int | None = None) -> None:
        """The claim of the player to move, proved or accepted by the table:
        the rest of the hand is theirs. Raise ``EngineError`` (state
        unchanged) if no claim can be made now."""
        if seat is not None and seat != self.to_move:
            raise EngineError("not_your_turn", "it is another seat's turn")
        if self.phase is not PLAY:
            raise EngineError("wrong_phase", "a claim is made while cards are played")
        self._apply_claim(self.to_move)

    def replay_action(self, action: int) -> None:
        """Apply a recorded action: a recorded claim was conceded when made."""
        if action == CLAIM:
            self.concede_claim()
        else:
            self.apply_action(action)

    def copy(self) -> Game:
        """An independent copy: changing one never changes the other."""
        return _copy(self)

    def refusal(self, action: int, seat: int | None = None) -> str | None:
        """The error code ``apply_action(action, seat)`` would raise, or None if
        it is legal: why a card may not be played, asked without playing it."""
        try:
            self.copy().apply_action(action, seat)
        except EngineError as e:
            return e.code
        return None

    def passing(self) -> tuple[int, int] | None:
        """(giver, taker) of the blind-nil pass being made now, else None."""
        return self.exchange_queue[0] if self.phase is EXCHANGE else None

    def hand_cards(self, seat: int) -> list[int]:
        return cards_of(self.hands[seat])

    # --------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """Lossless JSON form: every field, so loading needs no replay."""
        d: dict[str, Any] = {}
        for name in Game.__slots__:
            v = getattr(self, name)
            if name == "rules":
                v = v.to_dict()
            elif name in ("exchange_queue", "tricks"):
                v = [list(x) for x in v]
            d[name] = v
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        g = cls.__new__(cls)
        for name in cls.__slots__:
            v = d[name]
            if name == "rules":
                v = Rules(**v).validate()
            elif name == "phase":
                v = Phase(v)
            elif name == "exchange_queue":
                v = [tuple(x) for x in v]
            elif name == "tricks":
                v = [(x[0], list(x[1]), x[2]) for x in v]
            setattr(g, name, v)
        return g

    @classmethod
    def replay(
        cls,
        rules: Rules,
        seed: int,
        actions: list[int],
        first_dealer: int | None = None,
    ) -> Game:
        """Rebuild from ``(rules, seed, actions)``: how the bot restores a game."""
        g = cls(rules, seed, first_dealer)
        for a in actions:
            g.replay_action(a)
        return g


_copy = _compile_copy()


def apply(state: Game, action: int, seat: int | None = None) -> Game:
    """Value-style apply: the input state is left as it was."""
    g = state.copy()
    g.apply_action(action, seat)
    return g


def concede(state: Game, seat: int) -> Game:
    """Value-style ``concede_claim``: the input state is left as it was."""
    g = state.copy()
    g.concede_claim(seat)
    return g


__all__ = [
    "BID",
    "BIDDING",
    "BLIND",
    "CLAIM",
    "DEAL",
    "EXCHANGE",
    "Game",
    "OVER",
    "PLAY",
    "Phase",
    "action_from_json",
    "action_to_json",
    "apply",
    "concede",
    "deal_from_seed",
]
