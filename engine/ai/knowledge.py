"""What one seat knows about the hidden cards, and deals sampled to match it.

Everything here is computed from a ``View`` (or the same public facts), never
from the full ``Game``: the search imagines the hidden hands by sampling deals
consistent with the played cards, the shown voids and the exchange, and then
plays each imagined deal out on the engine's fast path.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.cards import SPADES, deck, mask_of
from engine.game import EXCHANGE, Game
from engine.view import View

NON_SPADE_SUITS = 0b0111  # suit bits C, D, H


def popcount(m: int) -> int:
    return m.bit_count()


@dataclass(slots=True)
class Knowledge:
    """Public facts plus the own hand, in bitmask form."""

    seat: int
    n: int
    hand: int  # own cards now
    played: int  # every card already on the table (finished tricks and the current one)
    unknown: int  # cards that some other seat holds, and which one is not known
    fixed: list[int]  # per seat: cards known to be in that (other) seat's hand
    voids: list[int]  # per seat: bit s set = that seat has no card of suit s
    counts: list[int]  # cards in hand per seat
    played_by: list[int]  # per seat: cards it played in this hand

    def hidden_seats(self) -> list[int]:
        return [s for s in range(self.n) if s != self.seat]


def trick_facts(
    n: int,
    tricks: list[tuple[int, list[int]]],
) -> tuple[list[int], list[int], int]:
    """Voids, cards played per seat, and the played mask from (leader, cards) tricks.

    A seat that did not follow the led suit has none of it; a seat that led a
    spade before spades were broken held nothing but spades.
    """
    voids = [0] * n
    played_by = [0] * n
    broken = False
    played = 0
    for leader, cards in tricks:
        if not cards:
            continue
        lead = cards[0] // 13
        if lead == SPADES and not broken:
            voids[leader] |= NON_SPADE_SUITS
        for i, c in enumerate(cards):
            s = (leader + i) % n
            played_by[s] |= 1 << c
            played |= 1 << c
            if i and c // 13 != lead:
                voids[s] |= 1 << lead
            if c // 13 == SPADES:
                broken = True
    return voids, played_by, played


def knowledge(v: View) -> Knowledge:
    n = v.players
    tricks: list[tuple[int, list[int]]] = [(ld, list(cs)) for ld, cs, _w in v.tricks]
    if v.trick:
        tricks.append((v.trick[0][0], [c for _s, c in v.trick]))
    voids, played_by, played = trick_facts(n, tricks)
    hand = mask_of(list(v.hand))
    fixed = [0] * n
    for e in v.exchanges:
        if e["from"] == v.seat:
            # Cards I passed stay with the receiver unless played or passed back to me.
            fixed[e["to"]] |= mask_of(list(e["cards"])) & ~hand & ~played
    all_cards = mask_of(deck(n))
    unknown = all_cards & ~hand & ~played
    for f in fixed:
        unknown &= ~f
    return Knowledge(
        seat=v.seat,
        n=n,
        hand=hand,
        played=played,
        unknown=unknown,
        fixed=fixed,
        voids=voids,
        counts=list(v.hand_counts),
        played_by=played_by,
    )


def _hall_ok(cards_by_suit: list[int], caps: dict[int, int], allow: dict[int, int]) -> bool:
    """Can the remaining cards still be dealt? Hall's condition over suit subsets."""
    for subset in range(1, 16):
        need = 0
        for s in range(4):
            if subset >> s & 1:
                need += cards_by_suit[s]
        if not need:
            continue
        room = 0
        for seat, cap in caps.items():
            if allow[seat] & subset:
                room += cap
        if need > room:
            return False
    return True


def deal_out(
    unknown: int,
    caps: dict[int, int],
    voids: list[int],
    rng: random.Random,
) -> dict[int, int] | None:
    """Give the ``unknown`` cards to seats (``caps``: how many each takes) at random,
    never a suit a seat is void in. ``None`` if no such deal exists."""
    if any(c < 0 for c in caps.values()) or sum(caps.values()) != popcount(unknown):
        return None
    seats = list(caps)
    cards = [c for c in range(52) if unknown >> c & 1]
    rng.shuffle(cards)
    out = dict.fromkeys(seats, 0)
    if not any(voids[s] for s in seats):
        i = 0
        for s in seats:
            for c in cards[i : i + caps[s]]:
                out[s] |= 1 << c
            i += caps[s]
        return out
    allow = {s: 0b1111 & ~voids[s] for s in seats}
    # Most constrained suits first; usually a plain random pass works.
    order = sorted(range(4), key=lambda s: sum(1 for t in seats if allow[t] >> s & 1))
    ordered = [c for suit in order for c in cards if c // 13 == suit]
    for _attempt in range(4):
        left = dict(caps)
        got = dict.fromkeys(seats, 0)
        for c in ordered:
            suit = c // 13
            options = [t for t in seats if left[t] and allow[t] >> suit & 1]
            if not options:
                break
            total = sum(left[t] for t in options)
            r = rng.randrange(total)
            pick = options[-1]
            for t in options:
                r -= left[t]
                if r < 0:
                    pick = t
                    break
            left[pick] -= 1
            got[pick] |= 1 << c
        else:
            return got
    return _deal_out_exact(ordered, caps, allow, rng)


def _deal_out_exact(
    ordered: list[int],
    caps: dict[int, int],
    allow: dict[int, int],
    rng: random.Random,
) -> dict[int, int] | None:
    """The careful pass: each card goes where the rest stays dealable (Hall)."""
    seats = list(caps)
    caps = dict(caps)
    out = dict.fromkeys(seats, 0)
    by_suit = [0, 0, 0, 0]
    for c in ordered:
        by_suit[c // 13] += 1
    if not _hall_ok(by_suit, caps, allow):
        return None
    for c in ordered:
        suit = c // 13
        by_suit[suit] -= 1
        options = [t for t in seats if caps[t] and allow[t] >> suit & 1]
        total = sum(caps[t] for t in options)
        chosen = -1
        while options:
            r = rng.randrange(total)
            pick = options[-1]
            for t in options:
                r -= caps[t]
                if r < 0:
                    pick = t
                    break
            caps[pick] -= 1
            if _hall_ok(by_suit, caps, allow):
                chosen = pick
                break
            caps[pick] += 1
            total -= caps[pick]
            options.remove(pick)
        if chosen < 0:
            return None
        out[chosen] |= 1 << c
    return out


def sample_hands(k: Knowledge, rng: random.Random) -> list[int] | None:
    """One deal of the unknown cards to the other seats, consistent with the facts.

    Returns a hand mask per seat (the own hand included) or ``None`` if the
    facts admit no deal (a malformed view).
    """
    seats = k.hidden_seats()
    caps = {s: k.counts[s] - popcount(k.fixed[s]) for s in seats}
    got = deal_out(k.unknown, caps, k.voids, rng)
    if got is None:
        return None
    hands = [0] * k.n
    hands[k.seat] = k.hand
    for s in seats:
        hands[s] = k.fixed[s] | got[s]
    return hands


def build_game(v: View, hands: list[int]) -> Game:
    """A full engine state equal to the view plus imagined hidden hands."""
    g = Game.__new__(Game)
    g.rules = v.rules
    g.seed = None
    g.n = v.players
    g.hand_size = v.hand_size
    g.first_dealer = v.dealer
    g.hand_no = v.hand_no
    g.dealer = v.dealer
    g.phase = v.phase
    g.to_move = v.to_move
    g.totals = list(v.totals)
    g.bags = list(v.bags)
    g.tiebreak = v.tiebreak
    g.winner = v.winner
    g.sheet = []
    g.actions = []
    g.dealt = []
    g.hands = list(hands)
    g.bids = list(v.bids)
    g.blind = list(v.blind)
    g.bid_count = sum(1 for b in v.bids if b is not None)
    g.exchange_queue = []
    g.exchange_pick = list(v.picking)
    g.exchanges = []
    if v.phase == EXCHANGE:
        queue: list[tuple[int, int]] = []
        for i in range(v.players):
            s = (v.dealer + 1 + i) % v.players
            if v.blind[s]:
                queue += [(s, (s + 2) % 4), ((s + 2) % 4, s)]
        idx = next((i for i, (giver, _t) in enumerate(queue) if giver == v.to_move), 0)
        g.exchange_queue = queue[idx:]
    g.trick = [c for _s, c in v.trick]
    g.trick_leader = v.trick_leader
    g.win_card = -1
    g.win_seat = -1
    for s, c in v.trick:
        w = g.win_card
        if w < 0 or (c // 13 == w // 13 and c > w) or (c // 13 == SPADES and w // 13 != SPADES):
            g.win_card = c
            g.win_seat = s
    g.spades_broken = v.spades_broken
    g.tricks_won = list(v.tricks_won)
    g.tricks = [(ld, list(cs), w) for ld, cs, w in v.tricks]
    g.hand_start = 0
    return g


def any_world(v: View, seed: int = 0) -> Game:
    """A consistent full state for policies that read only public facts and the own hand."""
    k = knowledge(v)
    rng = random.Random(seed)
    hands = sample_hands(k, rng)
    if hands is None:
        # Malformed view: give the unknown cards out by count only.
        hands = [0] * k.n
        hands[k.seat] = k.hand
        rest = [c for c in range(52) if k.unknown >> c & 1]
        for s in k.hidden_seats():
            hands[s] = k.fixed[s]
            need = max(0, k.counts[s] - popcount(k.fixed[s]))
            for c in rest[:need]:
                hands[s] |= 1 << c
            rest = rest[need:]
    return build_game(v, hands)


__all__ = [
    "Knowledge",
    "any_world",
    "build_game",
    "deal_out",
    "knowledge",
    "sample_hands",
    "trick_facts",
]
