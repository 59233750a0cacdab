"""An independent, deliberately plain implementation of docs/rules.md.

Written from the rules (docs/rules.md: rules, options and readings 1–13), not
from the engine: it imports nothing from ``engine`` at all. Cards are the
canonical strings of the replay format (``"AS"``, ``"TD"``, ``"2C"``), bids
are ints (0 = nil) or ``"blind"``. Speed does not matter here; clarity does.

Public pieces:

* ``norm_card(text)``       – parse ``AS``/``as``/``TD``/``10D``/``A♠`` to ``"AS"``
* ``make_rules(value, players)`` – preset + options, validated (reading 12)
* ``deck(players)``, ``hand_size(players)``
* ``trick_winner(cards)``, ``legal_plays(hand, trick, broken)``
* ``allowed_bids(...)``, ``blind_allowed(...)``
* ``score_hand(...)`` and ``game_end(...)``
* ``RefGame``                – the whole game as a state machine
* ``run_record(record, trace)`` – the replay CLI's output (or error) for a record
"""

from __future__ import annotations

from dataclasses import dataclass, replace

RANKS = "23456789TJQKA"
SUITS = "CDHS"  # clubs, diamonds, hearts, spades; spades are always trump
SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S", "♧": "C", "♢": "D", "♡": "H", "♤": "S"}


class RefError(Exception):
    """An illegal action, with the machine-readable code."""

    def __init__(self, code: str, message: str = ""):
        super().__init__(f"{code}: {message}")
        self.code = code


# ----------------------------------------------------------------- cards
def norm_card(text: object) -> str:
    """``AS``, ``as``, ``TD``, ``10D``, ``A♠``, ``10♦`` → canonical ``"AS"``."""
    if not isinstance(text, str):
        raise RefError("bad_action", f"not a card: {text!r}")
    t = text.strip()
    if len(t) < 2:
        raise RefError("bad_action", f"not a card: {text!r}")
    rank_txt, suit_txt = t[:-1].upper(), t[-1]
    suit = SYMBOLS.get(suit_txt, suit_txt.upper())
    if rank_txt == "10":
        rank_txt = "T"
    if len(rank_txt) != 1 or rank_txt not in RANKS or suit not in SUITS:
        raise RefError("bad_action", f"not a card: {text!r}")
    return rank_txt + suit


def rank(c: str) -> int:
    return RANKS.index(c[0])


def suit(c: str) -> str:
    return c[1]


def deck(players: int) -> list[str]:
    """52 cards; drop 2♣ (3 players), 2♣ 2♦ (5), all 2s (6)."""
    dropped = {3: {"2C"}, 4: set(), 5: {"2C", "2D"}, 6: {"2C", "2D", "2H", "2S"}}[players]
    return [r + s for s in SUITS for r in RANKS if r + s not in dropped]


def hand_size(players: int) -> int:
    return {3: 17, 4: 13, 5: 10, 6: 8}[players]


# ----------------------------------------------------------------- rules
@dataclass(frozen=True)
class Rules:
    players: int = 4
    target: int = 500
    losing_floor: int | None = None
    failed_nil: str = "ignored"
    blind_nil: str = "off"
    bid_sum: str = "free"
    exact_bonus: bool = False
    big_bid_bonus: bool = False
    quicksand: bool = False
    suicide: bool = False
    bicycle: bool = False
    bag_penalty: bool = True


OPTION_VALUES = {
    "target": [500, 1000, 1500, 2000],
    "losing_floor": [None, -200],
    "failed_nil": ["ignored", "bags", "help_partner"],
    "blind_nil": ["off", "chicago", "club"],
    "bid_sum": ["free", "club", "no_hell"],
    "exact_bonus": [False, True],
    "big_bid_bonus": [False, True],
    "quicksand": [False, True],
    "suicide": [False, True],
    "bicycle": [False, True],
    "bag_penalty": [True, False],
}
PRESET_OPTIONS = {
    "classic": {},
    "club": {"losing_floor": -200, "blind_nil": "club", "bid_sum": "club"},
}


def _same_value(a: object, b: object) -> bool:
    """Equal and of the same JSON type (``true`` is not ``1``, ``500.0`` is not ``500``)."""
    return type(a) is type(b) and a == b


def rules_problem(r: Rules) -> str | None:
    """Why a rule set is refused (values, then reading 12), or None."""
    if not any(_same_value(r.players, p) for p in (3, 4, 5, 6)):
        return "players"
    for key, values in OPTION_VALUES.items():
        if not any(_same_value(getattr(r, key), v) for v in values):
            return f"value of {key}"
    if r.suicide and r.players != 4:
        return "suicide without 4 players"
    if r.blind_nil == "club" and r.players != 4:
        return "club blind nil without 4 players"
    if r.bicycle and (r.blind_nil != "off" or r.suicide):
        return "bicycle with a nil"
    if r.bicycle and r.quicksand:
        return "bicycle with quicksand"
    if r.bicycle and r.bid_sum == "club":
        return "bicycle with the club sum cap"
    if r.suicide and r.bid_sum == "no_hell":
        return "suicide with no_hell"
    return None


def make_rules(value: object = "classic", players: int = 4) -> Rules:
    """``"classic"`` | ``"club"`` | ``{"preset": ..., option: value}`` → validated Rules."""
    if isinstance(value, str):
        value = {"preset": value}
    if not isinstance(value, dict):
        raise RefError("bad_rules", "rules must be a preset name or an object")
    opts = dict(value)
    preset = opts.pop("preset", "classic")
    if not isinstance(preset, str) or preset not in PRESET_OPTIONS:
        raise RefError("bad_rules", f"unknown preset {preset!r}")
    if "players" in opts and not _same_value(opts.pop("players"), players):
        raise RefError("bad_rules", "players given twice")
    for key in opts:
        if key not in OPTION_VALUES:
            raise RefError("bad_rules", f"unknown option {key}")
    merged = {**PRESET_OPTIONS[preset], **opts}
    r = replace(Rules(), players=players, **merged)
    problem = rules_problem(r)
    if problem:
        raise RefError("bad_rules", problem)
    return r


def teams(players: int) -> list[list[int]]:
    """Sides of the score sheet: two teams (0 = seats 0 and 2) or one seat each."""
    if players == 4:
        return [[0, 2], [1, 3]]
    return [[s] for s in range(players)]


# ------------------------------------------------------------------- play
def trick_winner(cards: list[str]) -> int:
    """Index (in play order) of the winner: the highest spade, else the highest of the led suit."""
    led = suit(cards[0])

    def strength(c: str) -> int:
        if suit(c) == "S":
            return 100 + rank(c)  # any spade beats any other card
        if suit(c) == led:
            return rank(c)
        return -1  # a discard never wins

    return max(range(len(cards)), key=lambda i: strength(cards[i]))


def legal_plays(hand: list[str], trick: list[str], spades_broken: bool) -> list[str]:
    if trick:
        follow = [c for c in hand if suit(c) == suit(trick[0])]
        return follow if follow else list(hand)
    if spades_broken:
        return list(hand)
    other = [c for c in hand if suit(c) != "S"]
    return other if other else list(hand)  # a leader with only spades may lead them


# ---------------------------------------------------------------- bidding
def allowed_bids(r: Rules, bids: list[int | None], seat: int) -> list[int]:
    """Bid numbers (0 = nil) ``seat`` may make, given earlier bids (None = not yet)."""
    n = r.players
    tricks = hand_size(n)
    made = [b for b in bids if b is not None]
    out = []
    for b in range(0, tricks + 1):
        if r.bicycle and b == 0:
            continue  # reading 7: bids from 1, no nil
        if r.suicide:
            # reading 10: in each team both nil, or one nil and the other ≥ 4
            partner = bids[(seat + 2) % 4]
            if partner is None or partner == 0:
                if b != 0 and b < 4:
                    continue
            elif b != 0:
                continue
        total = sum(made) + b  # nil counts 0 (reading 1)
        if r.bid_sum == "club" and total > tricks:
            continue
        if r.bid_sum == "no_hell" and len(made) == n - 1 and total == tricks:
            continue
        out.append(b)
    return out


def blind_allowed(
    r: Rules, bids: list[int | None], blind: list[bool], seat: int, totals: list[int]
) -> bool:
    """Reading 2: chicago — anyone; club — team ≥ 100 behind, one per team. A nil for every rule."""
    if r.blind_nil == "off":
        return False
    if 0 not in allowed_bids(r, bids, seat):
        return False
    if r.blind_nil == "club":
        mine, theirs = totals[seat % 2], totals[1 - seat % 2]
        if theirs - mine < 100:
            return False
        if blind[(seat + 2) % 4]:
            return False
    return True


# ---------------------------------------------------------------- scoring
BIG_BID_BEYOND = {3: 10, 4: 8, 5: 7, 6: 6}


def score_side(
    r: Rules,
    seats: list[int],
    bids: list[int],
    blind: list[bool],
    tricks: list[int],
    bags_before: int,
) -> tuple[int, int, int]:
    """(hand score incl. bag penalty, bags after, new bags) of one side."""
    points = 0
    new_bags = 0
    nil_seats = [s for s in seats if bids[s] == 0]
    bidders = [s for s in seats if bids[s] != 0]

    # each nil: ±100 (blind ±200), independent of the partner; quicksand keeps it (reading 6)
    for s in nil_seats:
        worth = 200 if blind[s] else 100
        points += worth if tricks[s] == 0 else -worth

    if bidders:
        contract = sum(bids[s] for s in bidders)
        taken = sum(tricks[s] for s in bidders)
        # reading 3: help_partner only with a partner and exactly one nil
        if r.failed_nil == "help_partner" and r.players == 4 and len(nil_seats) == 1:
            taken += tricks[nil_seats[0]]
        if taken >= contract:
            extra = taken - contract
            if r.quicksand:
                points += 10 * contract - 10 * extra  # no bags ever
            else:
                points += 10 * contract + extra
                new_bags += extra
            # reading 5: bonuses on the side's contract, also under quicksand
            if r.exact_bonus and r.players in (3, 4) and contract in (1, 2) and extra == 0:
                points += 20
            if r.big_bid_bonus and contract > BIG_BID_BEYOND[r.players]:
                points += 10 * (contract - BIG_BID_BEYOND[r.players])
        else:
            if r.bicycle:
                points += 0
            elif r.quicksand:
                points -= 10 * (contract - taken)
            else:
                points -= 10 * contract

    # reading 4: under "bags" each trick of a failed nil is +1 point, +1 bag; never with quicksand
    if r.failed_nil == "bags" and not r.quicksand:
        for s in nil_seats:
            points += tricks[s]
            new_bags += tricks[s]

    bags = bags_before + new_bags
    if r.bag_penalty:
        while bags >= 10:  # reading 8: −100 for each ten reached
            bags -= 10
            points -= 100
    return points, bags, new_bags


def score_hand(
    r: Rules,
    bids: list[int],
    blind: list[bool],
    tricks: list[int],
    bags_before: list[int],
    totals_before: list[int],
) -> dict[str, list[int]]:
    """``{"score", "bags", "totals"}`` per side after one hand."""
    if sum(tricks) != hand_size(r.players):
        raise AssertionError("tricks must add up to the hand size")
    out: dict[str, list[int]] = {"score": [], "bags": [], "totals": []}
    for i, seats in enumerate(teams(r.players)):
        pts, bags, _ = score_side(r, seats, bids, blind, tricks, bags_before[i])
        out["score"].append(pts)
        out["bags"].append(bags)
        out["totals"].append(totals_before[i] + pts)
    return out


def game_end(r: Rules, totals: list[int], tiebreak: bool) -> tuple[int | None, bool]:
    """Reading 9 → (winner or None, tie-break running)."""
    check = tiebreak or max(totals) >= r.target
    if r.losing_floor is not None and min(totals) <= r.losing_floor:
        check = True
    if not check:
        return None, False
    top = max(totals)
    leaders = [i for i, t in enumerate(totals) if t == top]
    if len(leaders) == 1:
        return leaders[0], False
    return None, True


# ------------------------------------------------------------- the game
class RefGame:
    """Deal → bids → (club blind-nil exchange) → play → score, hand after hand."""

    def __init__(self, rules: Rules, first_dealer: int):
        self.r = rules
        self.n = rules.players
        self.hs = hand_size(self.n)
        self.dealer = first_dealer
        self.hand_no = 0
        self.totals = [0] * len(teams(self.n))
        self.bags = [0] * len(teams(self.n))
        self.tiebreak = False
        self.winner: int | None = None
        self.results: list[dict] = []
        self.phase = "deal"

    # ---- hand start
    def start_hand(self, deal: list[list[str]]) -> None:
        if self.phase == "over":
            raise RefError("game_over", "the game is over")
        if self.phase != "deal":
            raise RefError("wrong_phase", "a hand is in progress")
        if (
            not isinstance(deal, list)
            or len(deal) != self.n
            or any(len(h) != self.hs for h in deal)
            or sorted(c for h in deal for c in h) != sorted(deck(self.n))
        ):
            raise RefError("bad_deal", "not a deal of this deck")
        self.hands = [list(h) for h in deal]
        self.bids: list[int | None] = [None] * self.n
        self.blind = [False] * self.n
        self.order = [(self.dealer + 1 + i) % self.n for i in range(self.n)]
        self.turn = self.order[0]
        self.passes: list[tuple[int, int]] = []  # (giver, taker) still due
        self.picked: list[str] = []
        self.trick: list[str] = []
        self.trick_seats: list[int] = []
        self.broken = False  # reading 11
        self.won = [0] * self.n
        self.played: list[str] = []
        self.phase = "bid"

    # ---- what may be done now
    def legal(self) -> list:
        if self.phase == "bid":
            out: list = list(allowed_bids(self.r, self.bids, self.turn))
            if blind_allowed(self.r, self.bids, self.blind, self.turn, self.totals):
                out.append("blind")
            return out
        if self.phase == "exchange":
            return [c for c in self.hands[self.turn] if c not in self.picked]
        if self.phase == "play":
            return legal_plays(self.hands[self.turn], self.trick, self.broken)
        return []

    def act(self, action: object) -> None:
        if self.phase == "over":
            raise RefError("game_over", "the game is over")
        if self.phase == "deal":
            raise RefError("wrong_phase", "no hand is dealt")
        if self.phase == "bid":
            self._bid(action)
        elif self.phase == "exchange":
            self._pass(action)
        else:
            self._play(action)

    def _bid(self, action: object) -> None:
        seat = self.turn
        if action == "blind":
            if not blind_allowed(self.r, self.bids, self.blind, seat, self.totals):
                raise RefError("blind_not_allowed")
            self.blind[seat] = True
            value = 0
        else:
            if isinstance(action, bool) or not isinstance(action, int):
                raise RefError("bad_action")
            if not 0 <= action <= self.hs:
                raise RefError("bid_out_of_range")
            if action not in allowed_bids(self.r, self.bids, seat):
                raise RefError("nil_not_allowed" if action == 0 else "bid_not_allowed")
            value = action
        self.bids[seat] = value
        pos = self.order.index(seat)
        if pos + 1 < self.n:
            self.turn = self.order[pos + 1]
            return
        if self.r.blind_nil == "club":
            for s in self.order:  # declarers in bidding order (at most one team can qualify)
                if self.blind[s]:
                    self.passes += [(s, (s + 2) % 4), ((s + 2) % 4, s)]
        if self.passes:
            self.phase = "exchange"
            self.turn = self.passes[0][0]
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = "play"
        self.turn = self.order[0]  # left of the dealer leads

    def _pass(self, action: object) -> None:
        c = norm_card(action)
        if c not in self.hands[self.turn] or c in self.picked:
            raise RefError("card_not_in_hand")
        self.picked.append(c)
        if len(self.picked) < 2:
            return
        giver, taker = self.passes.pop(0)
        for x in self.picked:
            self.hands[giver].remove(x)
            self.hands[taker].append(x)
        self.picked = []
        if self.passes:
            self.turn = self.passes[0][0]
        else:
            self._start_play()

    def _play(self, action: object) -> None:
        c = norm_card(action)
        seat = self.turn
        if c not in self.hands[seat]:
            raise RefError("card_not_in_hand")
        if c not in legal_plays(self.hands[seat], self.trick, self.broken):
            raise RefError("must_follow_suit" if self.trick else "spades_not_broken")
        if suit(c) == "S":
            self.broken = True  # on another suit's lead, or a forced spade lead
        self.hands[seat].remove(c)
        self.trick.append(c)
        self.trick_seats.append(seat)
        self.played.append(c)
        if len(self.trick) < self.n:
            self.turn = (seat + 1) % self.n
            return
        w = self.trick_seats[trick_winner(self.trick)]
        self.won[w] += 1
        self.trick, self.trick_seats = [], []
        self.turn = w
        if len(self.played) == self.n * self.hs:
            self._score()

    def _score(self) -> None:
        bids = [b if b is not None else 0 for b in self.bids]
        res = score_hand(self.r, bids, self.blind, self.won, self.bags, self.totals)
        res = {"tricks": list(self.won), **res}
        self.results.append(res)
        self.totals = list(res["totals"])
        self.bags = list(res["bags"])
        self.winner, self.tiebreak = game_end(self.r, self.totals, self.tiebreak)
        if self.winner is not None:
            self.phase = "over"
            return
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % self.n  # the deal passes left
        self.phase = "deal"


# ---------------------------------------------------------- replay record
def run_record(record: dict, trace: bool = False) -> dict:
    """What ``python -m engine replay`` must print for ``record``.

    Errors carry ``hand`` and ``step`` (reading 13: the hand's bids, then its
    plays, from 0; the exchange is not a step). Only the codes of actions are
    modelled here; record-shape problems are tested one by one elsewhere.
    """
    try:
        rules = make_rules(record.get("rules", "classic"), record.get("players", 4))
    except RefError as e:
        return {"error": {"hand": None, "step": None, "code": e.code}}
    g = RefGame(rules, record.get("first_dealer", 0))
    out: list[dict] = []
    for hi, hand in enumerate(record["hands"]):
        step = 0
        steps: list[dict] = []
        try:
            if g.phase == "over":
                raise RefError("game_over")
            g.start_hand([[norm_card(c) for c in h] for h in hand["deal"]])
            for b in hand["bids"]:
                if trace:
                    steps.append({"seat": g.turn, "action": b, "legal": g.legal()})
                g.act(b)
                step += 1
            for ex in hand.get("exchange", []):  # not a step (reading 13)
                if g.phase != "exchange" or ex["from"] != g.turn or len(ex["cards"]) != 2:
                    raise RefError("bad_exchange")
                for c in ex["cards"]:
                    g.act(c)
            for p in hand["plays"]:
                if g.phase == "exchange":
                    raise RefError("bad_exchange")
                if trace:
                    steps.append({"seat": g.turn, "action": p, "legal": g.legal()})
                g.act(p)
                step += 1
        except RefError as e:
            return {"error": {"hand": hi, "step": step, "code": e.code}}
        if g.phase not in ("deal", "over") and hi < len(record["hands"]) - 1:
            # cut short, yet another hand follows: reported where a step is missing
            return {"error": {"hand": hi, "step": step, "code": "hand_unfinished"}}
        if g.phase in ("deal", "over") and len(g.results) == hi + 1:
            entry = dict(g.results[-1])
        else:
            entry = {"tricks": list(g.won), "score": None, "bags": None, "totals": None}
        if trace:
            entry["steps"] = steps
        out.append(entry)
    return {"hands": out, "finished": g.phase == "over", "winner": g.winner}
