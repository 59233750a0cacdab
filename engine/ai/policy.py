"""The rule-based club player: bids, the blind-nil exchange and card play.

It is both the arena's «solid rule-based» opponent and the playout policy of
the search, so it works on a ``Game`` and must be fast. It reads only what its
seat may know: its own hand (``g.hands[seat]``) and public facts. The union of
the other hands is public too (every unplayed card not in my hand), so it uses
that and never an individual hidden hand.
"""

from __future__ import annotations

from engine.cards import SPADES, SUIT_MASKS
from engine.game import BID, BIDDING, BLIND, EXCHANGE, PLAY, Game

SM = SUIT_MASKS
SPADE_MASK = SM[SPADES]
SIDE_MASK = SM[0] | SM[1] | SM[2]
RANK_OF = tuple(c % 13 for c in range(52))
ABOVE = tuple(SM[c // 13] & ~((2 << c) - 1) for c in range(52))  # same suit, higher
BELOW = tuple(SM[c // 13] & ((1 << c) - 1) for c in range(52))  # same suit, lower
A, K, Q, J = 12, 11, 10, 9


def low(m: int) -> int:
    return (m & -m).bit_length() - 1


def high(m: int) -> int:
    return m.bit_length() - 1


def cards(m: int) -> list[int]:
    out = []
    while m:
        b = m & -m
        out.append(b.bit_length() - 1)
        m ^= b
    return out


# ---------------------------------------------------------------- bidding
# Honour values by player count: with more players a suit runs out sooner and
# side-suit honours get trumped more often.
_SIDE_HONOURS = {
    3: (1.0, 0.85, 0.45),
    4: (0.95, 0.72, 0.3),
    5: (0.85, 0.5, 0.15),
    6: (0.75, 0.35, 0.1),
}


def estimate_tricks(hand: int, n: int) -> float:
    """Expected tricks of a hand played for tricks (rule of thumb, by player count)."""
    hs = hand.bit_count()
    per_suit = hs / 4  # average cards per suit per player
    a_v, k_v, q_v = _SIDE_HONOURS.get(n, _SIDE_HONOURS[4])
    est = 0.0
    sp = hand & SPADE_MASK
    s_len = sp.bit_count()
    honours = 0.0
    used = 0
    ranks = sorted((c % 13 for c in cards(sp)), reverse=True)
    for i, r in enumerate(ranks):
        # The i-th highest spade wins if the spades above it are gone: guard count.
        gap = 12 - r - i  # missing higher spades not held by me
        if gap <= 0:
            honours += 1.0
            used += 1
        elif gap == 1 and s_len >= 2 + i:
            honours += 0.75
            used += 1
        elif gap == 2 and s_len >= 3 + i:
            honours += 0.5
            used += 1
    est += honours
    long_from = per_suit + 0.75
    if s_len > long_from:
        est += (s_len - long_from) * 0.85
    spare = max(0, s_len - used - 1)
    for suit in range(3):
        m = hand & SM[suit]
        ln = m.bit_count()
        top = [c % 13 for c in cards(m)][::-1]
        long_pen = 0.75 if ln >= per_suit + 3 else (0.9 if ln >= per_suit + 2 else 1.0)
        if top and top[0] == A:
            est += a_v * long_pen
        if K in top:
            est += (k_v if ln >= 2 else k_v * 0.3) * long_pen
        if Q in top:
            if ln >= 3:
                est += q_v * long_pen
            elif A in top or K in top:
                est += q_v * 0.5
        if spare:
            if ln == 0:
                r = min(spare, 2)
                est += 0.8 * r
                spare -= r
            elif ln == 1 and top[0] < K:
                est += 0.55
                spare -= 1
            elif ln == 2 and spare >= 2 and per_suit >= 3:
                est += 0.2
    return est


def nil_risk(hand: int, n: int) -> float:
    """How likely a nil fails, as a score: under ~1 is a nil hand."""
    risk = 0.0
    for suit in range(4):
        m = hand & SM[suit]
        ranks = [c % 13 for c in cards(m)]  # ascending
        for i, r in enumerate(ranks):
            allowed = 3 + 3 * i  # lowest card should be <= 5, next <= 8, ...
            if r > allowed:
                risk += (r - allowed) / 4
        if suit == SPADES:
            if ranks and ranks[-1] >= Q:
                risk += 2.0 + (ranks[-1] - Q)
            if len(ranks) > 3:
                risk += 0.8 * (len(ranks) - 3)
            risk += 0.15 * sum(1 for r in ranks if r >= 7)
    if n != 4:
        risk *= 1.15
    return risk


# Tunables, set by duplicate self-play of the rule player (bench/arena.py).
BID_BIAS = 0.1  # added to the trick estimate before rounding
NIL_LIMIT = 1.5  # nil when the nil risk is under this (adjusted by the score)
NIL_EST = 2.5  # ... and the hand is worth fewer tricks than this


def side_members(n: int, seat: int) -> tuple[int, ...]:
    return (seat % 2, seat % 2 + 2) if n == 4 else (seat,)


def sides_list(n: int) -> list[tuple[int, ...]]:
    return [(0, 2), (1, 3)] if n == 4 else [(s,) for s in range(n)]


def want_blind(g: Game, seat: int) -> bool:
    """Blind nil from the score alone: this function must never read the hand."""
    if g.rules.blind_nil == "off" or not g.blind_allowed(seat):
        return False
    n = g.n
    me = seat % 2 if n == 4 else seat
    mine = g.totals[me]
    best_other = max(t for i, t in enumerate(g.totals) if i != me)
    deficit = best_other - mine
    target = g.rules.target
    if n == 4:
        partner = (seat + 2) % 4
        if g.bids[partner] == 0:
            return False  # two nils with one blind: too much to protect
    desperate = best_other >= target - 120 or (
        g.rules.losing_floor is not None and mine <= g.rules.losing_floor + 80
    )
    need = 300 if g.rules.blind_nil == "chicago" else 200
    return deficit >= need and desperate


def choose_bid(g: Game, seat: int, aggression: float = 0.0, blind_ok: bool = True) -> int:
    """A bid action from the hand, the position, the bids so far and the score
    (``blind_ok`` false: the bid of a seat that has looked at its cards)."""
    legal = g.legal_actions()
    if blind_ok and BLIND in legal and want_blind(g, seat):
        return BLIND
    allowed = [a - BID for a in legal if a != BLIND]
    n = g.n
    hand = g.hands[seat]
    est = estimate_tricks(hand, n) + aggression
    me = seat % 2 if n == 4 else seat
    mine, bags = g.totals[me], g.bags[me]
    others = [t for i, t in enumerate(g.totals) if i != me]
    target = g.rules.target
    partner = (seat + 2) % 4 if n == 4 else -1
    partner_bid = g.bids[partner] if partner >= 0 else None

    # Nil: a weak, low hand, when the partner can carry the contract.
    if 0 in allowed and not g.rules.bicycle:
        risk = nil_risk(hand, n)
        limit = NIL_LIMIT
        if max(others) - mine >= 150:
            limit += 0.35
        if mine >= target - 80 and mine > max(others):
            limit -= 0.4
        if partner_bid == 0:
            limit -= 0.5
        elif partner_bid is not None and partner_bid >= 4:
            limit += 0.2
        only_nil = allowed == [0]
        if only_nil or (est < NIL_EST and risk < limit):
            return BID
    nums = [b for b in allowed if b > 0] or allowed
    if g.rules.suicide and 0 in allowed and est < 3.2:
        return BID
    # Round a little down (a set costs 10x a bag), up when bags are close to ten.
    bias = BID_BIAS
    if g.rules.bag_penalty and bags >= 7:
        bias += 0.3
    if g.rules.quicksand:
        bias += 0.1
    if max(others) >= target - 100 and mine < max(others) - 50:
        bias += 0.35
    if partner_bid is not None and partner_bid > 0 and n == 4:
        # Side total over the tricks available: shave.
        opp_bids = sum(b or 0 for i, b in enumerate(g.bids) if i % 2 != seat % 2)
        if partner_bid + est + opp_bids > g.hand_size + 1:
            bias -= 0.3
    want = max(1, int(est + bias + 0.5))
    best = min(nums, key=lambda b: (abs(b - want), b > want, b))
    return BID + best


def exchange_order(g: Game, seat: int) -> list[int]:
    """Club blind nil: the cards left to pass, best first. The declarer passes its
    most dangerous cards, the partner its lowest."""
    hand = g.hands[seat] & ~sum(1 << c for c in g.exchange_pick)
    declarer = g.blind[seat]

    def key(c: int) -> float:
        r = c % 13
        sp = c // 13 == SPADES
        length = (hand & SM[c // 13]).bit_count()
        if declarer:
            return r + (5 if sp else 0) + (3 if length <= 2 else 0)
        # Low cards help the nil: no spade, prefer the longest suits.
        return -(r + (6 if sp else 0)) + 0.1 * length

    return sorted(cards(hand), key=lambda c: (-key(c), c))


def choose_exchange(g: Game, seat: int) -> int:
    return exchange_order(g, seat)[0]


# ------------------------------------------------------------------- play
def side_need(g: Game, members: tuple[int, ...]) -> int:
    """Tricks the side still needs for its contract; -99 when it has none."""
    bids, tw = g.bids, g.tricks_won
    contract = taken = nil_tricks = nils = 0
    for s in members:
        b = bids[s]
        if b:
            contract += b
            taken += tw[s]
        else:
            nils += 1
            nil_tricks += tw[s]
    if not contract:
        return -99
    if g.rules.failed_nil == "help_partner" and len(members) == 2 and nils == 1:
        taken += nil_tricks
    return contract - taken


def _lead_low(hand: int, others: int, avoid_spades: bool = True) -> int:
    """The lead least likely to win: low card with the most outstanding cards above it."""
    best, best_key = -1, None
    pool = hand & SIDE_MASK if avoid_spades and hand & SIDE_MASK else hand
    for suit in range(4):
        m = pool & SM[suit]
        if not m:
            continue
        c = low(m)
        above = (others & ABOVE[c]).bit_count()
        key = (above > 0, above - 2 * (RANK_OF[c] > 6), -RANK_OF[c])
        if best_key is None or key > best_key:
            best, best_key = c, key
    return best


def _discard(hand: int, dump_high: bool) -> int:
    """Off-suit card: the highest side card when ducking, else a low one making a void."""
    side = hand & SIDE_MASK
    if not side:
        return low(hand)
    if dump_high:
        best, best_key = -1, -99
        for suit in range(3):
            m = side & SM[suit]
            if m:
                c = high(m)
                key = RANK_OF[c] * 4 - m.bit_count()
                if key > best_key:
                    best, best_key = c, key
        return best
    best, low_key = -1, 99
    for suit in range(3):
        m = side & SM[suit]
        if m:
            c = low(m)
            key = RANK_OF[c] + 2 * m.bit_count()
            if key < low_key:
                best, low_key = c, key
    return best


def _duck(hand: int, legal: int, lead: int, win: int, last: bool) -> int:
    """Play to lose the trick (nil, or no more tricks wanted)."""
    follow = legal & SM[lead]
    if follow:
        if win // 13 == lead:
            under = follow & BELOW[win]
            if under:
                return high(under)
            return high(follow) if last else low(follow)
        return high(follow)  # the trick is trumped: anything loses
    side = legal & SIDE_MASK
    if side:
        return _discard(legal, dump_high=True)
    # Only spades left: stay under a winning spade, else the lowest.
    if win // 13 == SPADES:
        under = legal & BELOW[win]
        if under:
            return high(under)
    return low(legal)


def _cheapest_win(legal: int, lead: int, win: int) -> int:
    """The cheapest card beating ``win``, or -1."""
    follow = legal & SM[lead]
    if follow:
        if win // 13 == lead:
            beat = follow & ABOVE[win]
            return low(beat) if beat else -1
        return -1
    sp = legal & SPADE_MASK
    if not sp:
        return -1
    if win // 13 == SPADES:
        beat = sp & ABOVE[win]
        return low(beat) if beat else -1
    return low(sp)


def choose_card(g: Game, seat: int) -> int:
    """The rule-based card for the seat to move (fast: the search's playout policy)."""
    legal = g.legal_play_mask()
    if not legal & (legal - 1):
        return low(legal)
    n = g.n
    hands = g.hands
    hand = hands[seat]
    others = 0
    for h in hands:
        others |= h
    others &= ~hand
    bids = g.bids
    partner = (seat + 2) % 4 if n == 4 else -1
    trick = g.trick
    pos = len(trick)
    to_come = n - pos - 1
    me_nil = partner_nil = False
    opp_nils: list[int] = []
    if 0 in bids:
        tw = g.tricks_won
        me_nil = bids[seat] == 0 and tw[seat] == 0
        partner_nil = partner >= 0 and bids[partner] == 0 and tw[partner] == 0
        opp_nils = [
            s for s in range(n) if s != seat and s != partner and bids[s] == 0 and tw[s] == 0
        ]

    if pos == 0:
        return _lead(g, seat, hand, legal, others, me_nil, partner_nil, opp_nils, partner)

    lead = trick[0] // 13
    win = g.win_card
    win_seat = g.win_seat
    last = to_come == 0

    if me_nil:
        return _duck(hand, legal, lead, win, last)
    if not partner_nil and not opp_nils:
        return _contract_follow(g, seat, legal, lead, win, win_seat, last, others, partner)

    after = [(seat + i) % n for i in range(1, to_come + 1)]
    if partner_nil:
        if partner in after:
            # Cover: win as high as possible so the nil partner can play under.
            c = _cheapest_win(legal, lead, win)
            follow = legal & SM[lead]
            if c >= 0:
                if follow:
                    return high(follow)
                sp = legal & SPADE_MASK
                return high(sp) if sp.bit_count() <= 2 else c
            return _contract_follow(g, seat, legal, lead, win, win_seat, last, others, partner)
        if win_seat == partner:
            c = _cheapest_win(legal, lead, win)
            if c >= 0:
                return c
    if opp_nils:
        nil_after = [s for s in opp_nils if s in after]
        if nil_after:
            # Keep the trick low for the nil to win it: never overtake.
            follow = legal & SM[lead]
            if follow:
                if win_seat in (seat, partner) or win // 13 != lead:
                    return low(follow)
                under = follow & BELOW[win]
                return high(under) if under else low(follow)
            return _discard(legal, dump_high=False)
        if win_seat in opp_nils:
            return _duck(hand, legal, lead, win, last)
    return _contract_follow(g, seat, legal, lead, win, win_seat, last, others, partner)


_MEMBERS = {n: tuple(side_members(n, s) for s in range(n)) for n in (3, 4, 5, 6)}
_SIDES = {n: tuple(sides_list(n)) for n in (3, 4, 5, 6)}


def _want_tricks(g: Game, seat: int) -> bool:
    n = g.n
    need = side_need(g, _MEMBERS[n][seat])
    left = g.hand_size - len(g.tricks)
    if need > 0:
        return need <= left or _can_set(g, seat, left)
    if need == -99:
        return _can_set(g, seat, left)
    me = seat % 2 if n == 4 else seat
    if g.rules.quicksand:
        return False
    if g.rules.bag_penalty and g.bags[me] - need >= 8:
        return False
    return _can_set(g, seat, left)


def _can_set(g: Game, seat: int, left: int) -> bool:
    for side in _SIDES[g.n]:
        if seat in side:
            continue
        on = side_need(g, side)
        if 0 < on <= left:
            return True
    return False


def _contract_follow(
    g: Game,
    seat: int,
    legal: int,
    lead: int,
    win: int,
    win_seat: int,
    last: bool,
    others: int,
    partner: int,
) -> int:
    hand = g.hands[seat]
    if not _want_tricks(g, seat):
        return _duck(hand, legal, lead, win, last)
    follow = legal & SM[lead]
    partner_winning = win_seat == partner
    if partner_winning:
        safe = last or (
            not others & ABOVE[win] and (win // 13 == SPADES or not others & SPADE_MASK)
        )
        if safe or win // 13 == SPADES or RANK_OF[win] >= Q:
            return low(follow) if follow else _discard(legal, dump_high=False)
    if follow:
        if win // 13 != lead:
            return low(follow)
        beat = follow & ABOVE[win]
        if not beat:
            return low(follow)
        if last:
            return low(beat)
        # A card no one else can beat in the suit: take it with the cheapest one.
        for c in cards(beat):
            if not others & ABOVE[c]:
                return c
        if len(g.trick) == 1 and g.n == 4:
            return low(follow)  # second hand low
        return high(beat)
    sp = legal & SPADE_MASK
    if sp and lead != SPADES:
        c = _cheapest_win(legal, lead, win)
        if c >= 0:
            return c
    return _discard(legal, dump_high=False)


def _lead(
    g: Game,
    seat: int,
    hand: int,
    legal: int,
    others: int,
    me_nil: bool,
    partner_nil: bool,
    opp_nils: list[int],
    partner: int,
) -> int:
    if me_nil:
        return _lead_low(legal, others)
    if partner_nil:
        # Lead from strength so the nil partner can play under.
        best, best_key = -1, None
        for suit in range(4):
            m = legal & SM[suit]
            if not m:
                continue
            c = high(m)
            above = (others & ABOVE[c]).bit_count()
            key = (-above, RANK_OF[c], suit != SPADES)
            if best_key is None or key > best_key:
                best, best_key = c, key
        return best
    if opp_nils:
        return _lead_low(legal, others)
    if not _want_tricks(g, seat):
        return _lead_low(legal, others)
    # Cash sure winners in side suits, draw trumps with top spades.
    sp = legal & SPADE_MASK
    if sp:
        top = high(sp)
        if not others & ABOVE[top] and (others & SPADE_MASK):
            return top
    for suit in range(3):
        m = legal & SM[suit]
        if m:
            top = high(m)
            if not others & ABOVE[top] and (others & SM[suit]).bit_count() >= 2:
                return top
    side = legal & SIDE_MASK
    if side:
        # Low from the shortest side suit (to ruff later), unless it is a lone honour.
        lead, lead_key = -1, None
        for suit in range(3):
            m = side & SM[suit]
            if not m:
                continue
            c = low(m)
            k = (RANK_OF[c] >= J and m.bit_count() <= 2, m.bit_count(), RANK_OF[c])
            if lead_key is None or k < lead_key:
                lead, lead_key = c, k
        return lead
    return low(legal)


# ---------------------------------------------------------------- driver
def choose(g: Game, seat: int | None = None, aggression: float = 0.0) -> int:
    """The rule-based action for the seat to move, in any phase."""
    if seat is None:
        seat = g.to_move
    if g.phase == PLAY:
        return choose_card(g, seat)
    if g.phase == BIDDING:
        return choose_bid(g, seat, aggression)
    if g.phase == EXCHANGE:
        return choose_exchange(g, seat)
    raise ValueError("no decision in phase " + g.phase)
