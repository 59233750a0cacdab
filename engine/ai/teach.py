"""Teaching: the master's choice with its reason (``hint``), and a hand's review.

``hint(view)`` is the move ``choose_action(view, "master")`` makes, with one
short reason as a machine key (the bot words it). ``review(record, seat)``
replays a finished hand and lists where the person's decisions cost points:
at most three, each at least ``MIN_GAIN`` expected points worse than the
master's choice on the same information.

Reason keys (``REASONS``), each said only when it is true of the move:

* ``only_move`` — every legal card comes to the same;
* ``keep_nil`` — own nil: the card that does not take the trick;
* ``cover_nil`` — the partner bid nil: take the trick over them (or lead
  high) so that they can play under;
* ``set_nil`` — an opponent bid nil: stay under so that the nil takes it;
* ``partner_wins_trick`` — the partner is winning the trick: do not overtake;
* ``take_trick`` — play for the trick: the side still needs tricks;
* ``set_opponents`` — the contract is made (or there is none): take the
  tricks the opponents need for theirs;
* ``avoid_bags`` — the contract is made: lose the trick that could be won
  (or lead low), no overtrick;
* ``cash_winner`` — lead a card nobody can beat in its suit;
* ``lead_long_suit`` — lead from the longest side suit (four or more);
* ``save_winners`` — a low card: the high ones are worth more later (or
  nothing wins this trick);
* ``bid_tricks`` — the bid the hand is expected to make;
* ``bid_nil`` — nil: the hand can lose every trick;
* ``bid_for_win`` — the score decided the bid: a hand's points alone would
  have bid otherwise (ahead: safer; behind or the opponents near the target:
  bolder);
* ``blind_nil`` — far behind: blind nil before looking;
* ``help_blind_nil`` — the club exchange: the cards that help the blind nil.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine.ai.knowledge import knowledge
from engine.ai.player import (
    blind_rng,
    cap_seconds,
    check_decision,
    master_budget,
    position_rng,
)
from engine.ai.rollout import candidate_cards
from engine.ai.search import (
    Decision,
    Scored,
    best,
    decide,
    score_bids,
    score_exchange,
    score_play,
)
from engine.cards import SPADES, SUIT_MASKS, mask_of, parse_card
from engine.errors import EngineError
from engine.game import BID, BIDDING, BLIND, CLAIM, EXCHANGE, PLAY, action_from_json
from engine.replay import ReplayError, load_game, run_hand
from engine.scoring import sides
from engine.view import View, view

REASONS = (
    "only_move",
    "keep_nil",
    "cover_nil",
    "set_nil",
    "partner_wins_trick",
    "take_trick",
    "set_opponents",
    "avoid_bags",
    "cash_winner",
    "lead_long_suit",
    "save_winners",
    "bid_tricks",
    "bid_nil",
    "bid_for_win",
    "blind_nil",
    "help_blind_nil",
)
MIN_GAIN = 10.0  # expected points a reviewed decision must have cost
MAX_MISTAKES = 3
FOR_WIN_POINTS = 2.0  # a bid is "for the win" when it gives up at least this many points


class Hint(NamedTuple):
    action: int
    reason: str


# ------------------------------------------------------------------ reasons
def _beats(c: int, w: int) -> bool:
    return (c // 13 == w // 13 and c > w) or (c // 13 == SPADES and w // 13 != SPADES)


def _need(v: View, members: tuple[int, ...]) -> int | None:
    """Tricks a side still needs for its contract (None: no contract)."""
    contract = taken = nils = nil_tricks = 0
    for s in members:
        b = v.bids[s]
        if b:
            contract += b
            taken += v.tricks_won[s]
        else:
            nils += 1
            nil_tricks += v.tricks_won[s]
    if not contract:
        return None
    if v.rules.failed_nil == "help_partner" and len(members) == 2 and nils == 1:
        taken += nil_tricks
    return contract - taken


def play_reason(v: View, card: int, single: bool = False) -> str:
    """Why ``card`` is the move, from the position (see ``REASONS``)."""
    if single:
        return "only_move"
    n, seat = v.players, v.seat
    partner = (seat + 2) % 4 if n == 4 else -1

    def nil_alive(s: int) -> bool:
        return v.bids[s] == 0 and v.tricks_won[s] == 0

    mine = next(m for m in sides(n) if seat in m)
    others = [m for m in sides(n) if seat not in m]
    opp_nils = [s for s in range(n) if s not in mine and nil_alive(s)]
    need = _need(v, mine)
    made = need is not None and need <= 0
    can_set = any((_need(v, m) or 0) > 0 for m in others)
    k = knowledge(v)
    outstanding = k.unknown | sum(k.fixed)
    above = outstanding & SUIT_MASKS[card // 13] & ~((2 << card) - 1)  # higher, unseen

    if nil_alive(seat):
        return "keep_nil"
    if not v.trick:
        return _lead_reason(v, card, above, partner, nil_alive, opp_nils, made, need, can_set)
    order = [(v.trick_leader + i) % n for i in range(n)]
    to_come = order[len(v.trick) + 1 :]
    win_seat, win_card = -1, -1
    for s, c in v.trick:
        if win_card < 0 or _beats(c, win_card):
            win_seat, win_card = s, c
    wins_now = _beats(card, win_card)
    covering = partner in to_come or win_seat == partner
    if partner >= 0 and nil_alive(partner) and wins_now and covering:
        return "cover_nil"
    if opp_nils and not wins_now and any(s in to_come or s == win_seat for s in opp_nils):
        return "set_nil"
    if wins_now:
        if (need is None or need <= 0) and can_set:
            return "set_opponents"
        return "take_trick"
    could_win = any(_beats(c, win_card) for c in v.legal)
    if win_seat == partner:
        return "partner_wins_trick"
    if could_win and made and (v.rules.bag_penalty or v.rules.quicksand):
        return "avoid_bags"
    return "save_winners"


def _lead_reason(
    v: View,
    card: int,
    above: int,
    partner: int,
    nil_alive: Callable[[int], bool],
    opp_nils: list[int],
    made: bool,
    need: int | None,
    can_set: bool,
) -> str:
    high = not above or card % 13 >= 10  # a sure winner, or a queen or better
    if partner >= 0 and nil_alive(partner) and high:
        return "cover_nil"
    if not above:
        return "set_opponents" if made and can_set else "cash_winner"
    low = above.bit_count() >= 2
    if opp_nils and low:
        return "set_nil"
    if made and low and (v.rules.bag_penalty or v.rules.quicksand):
        return "avoid_bags"
    if card // 13 != SPADES:
        hand = mask_of(list(v.hand))
        lengths = [(hand & SUIT_MASKS[s]).bit_count() for s in range(3)]
        if lengths[card // 13] == max(lengths) and lengths[card // 13] >= 4:
            return "lead_long_suit"
    if low:
        return "save_winners"
    return "set_opponents" if made and can_set else "take_trick"


def bid_reason(action: int, scored: tuple[Scored, ...]) -> str:
    if action == BLIND:
        return "blind_nil"
    by_points = max(scored, key=lambda s: (s.points, -s.action)) if scored else None
    chosen = next((s for s in scored if s.action == action), None)
    if (
        by_points is not None
        and chosen is not None
        and by_points.action != action
        and by_points.points - chosen.points >= FOR_WIN_POINTS
        and chosen.win > by_points.win
    ):
        return "bid_for_win"
    return "bid_nil" if action == BID else "bid_tricks"


def reason_for(v: View, d: Decision) -> str:
    if v.phase == PLAY:
        return play_reason(v, d.action, single=not d.scored)
    if v.phase == EXCHANGE:
        return "help_blind_nil"
    return bid_reason(d.action, d.scored)


def hint(v: View, seed: int = 0, budget_ms: int | None = None) -> Hint:
    """The master's move for this moment (the same as ``choose_action(v,
    "master", seed, budget_ms)``) and one reason key from ``REASONS``."""
    check_decision(v, "master")
    budget = master_budget(budget_ms)
    rng = position_rng(v, "master", seed)
    d = decide(v, rng, blind_rng(v, seed), budget, cap_seconds(budget))
    return Hint(d.action, reason_for(v, d))


# ------------------------------------------------------------------- review
@dataclass(frozen=True, slots=True)
class Mistake:
    """One decision of the reviewed seat the master would have made otherwise.

    ``trick`` counts from 1 (plays only); ``table`` is the trick on the table
    before the move as (seat, card); ``hand_cards`` the seat's cards then;
    actions are engine actions (a card, ``BID + n``, ``BLIND``). ``gain`` is
    the expected points of the hand the master's choice adds for the seat's
    side (at least ``MIN_GAIN``); ``reason`` a key of ``REASONS``.
    """

    hand: int
    phase: str
    trick: int | None
    table: tuple[tuple[int, int], ...]
    hand_cards: tuple[int, ...]
    bids: tuple[int | None, ...]
    played: int
    better: int
    gain: float
    reason: str


REVIEW_BUDGET_MS = 200  # search work for a whole review, in decision-budget milliseconds
SCREEN_SHARE = 0.5  # of it for the first look at every decision; the rest refines three


def _plays(h: dict[str, Any]) -> int:
    plays = h.get("plays")
    return len(plays) if isinstance(plays, list) else 0


def _decisions(record: Any, seat: int, hand: int | None) -> tuple[list[tuple[View, int]], int]:
    """Every decision of ``seat`` in the record's hand ``hand``: (view before it, action)."""
    try:
        game, hands = load_game(record)
    except EngineError as e:
        raise ValueError(f"{e.code}: {e.message}") from None
    if not hands:
        raise ValueError("the record has no hand")
    if hand is None:
        cards = game.hand_size * game.n
        done = [i for i, h in enumerate(hands) if isinstance(h, dict) and _plays(h) == cards]
        if not done:
            raise ValueError("the record has no finished hand")
        index = done[-1]
    else:
        index = hand if hand >= 0 else len(hands) + hand
    if not 0 <= index < len(hands):
        raise ValueError(f"no hand {hand} in the record")
    if not 0 <= seat < game.n:
        raise ValueError("no such seat")
    try:
        for i in range(index):
            run_hand(game, hands[i], i)
    except ReplayError as e:
        raise ValueError(str(e)) from None
    h = hands[index]
    if not isinstance(h, dict) or not isinstance(h.get("deal"), list):
        raise ValueError("a hand is an object with a deal")
    out: list[tuple[View, int]] = []
    try:
        game.deal([[parse_card(c) for c in d] for d in h["deal"]])
        steps: list[tuple[str, Any]] = [("bid", b) for b in h.get("bids", [])]
        for ex in h.get("exchange", []):
            steps += [("exchange", c) for c in ex.get("cards", [])]
        steps += [("play", p) for p in h.get("plays", [])]
        start = len(game.sheet)
        for kind, value in steps:
            if value == "claim":  # a claim conceded: no decision to review
                game.replay_action(CLAIM)
                continue
            a = action_from_json(value, BIDDING) if kind == "bid" else parse_card(value)
            if game.to_move == seat:
                out.append((view(game, seat), a))
            game.apply_action(a)
    except (EngineError, ValueError) as e:
        raise ValueError(f"the hand does not replay: {e}") from None
    if len(game.sheet) == start:
        raise ValueError("the hand is not finished")
    return out, index


def _score(
    v: View, action: int, rng: random.Random, budget_ms: int, cap_s: float
) -> tuple[tuple[Scored, ...], int] | None:
    """The candidates of a decision with the person's action among them (None:
    nothing to choose)."""
    if v.phase == PLAY:
        cands = candidate_cards(v, knowledge(v))
        if len(cands) == 1:
            return None
        scored, prior = score_play(v, rng, budget_ms, cap_s, extra=action)
    elif v.phase == EXCHANGE:
        scored, prior = score_exchange(v, rng, budget_ms, cap_s, extra=action)
    else:
        if action == BLIND or BLIND in v.legal:
            return None  # blind nil is a call on the score alone: not reviewed
        scored, prior = score_bids(v, rng, budget_ms, cap_s, extra=action)
    if len(scored) < 2:
        return None
    return tuple(scored), prior


def _same(v: View, a: int, b: int) -> bool:
    """Equal moves, or cards of one run (nothing another seat could hold between)."""
    if a == b:
        return True
    if v.phase != PLAY or a // 13 != b // 13:
        return False
    k = knowledge(v)
    lo, hi = min(a, b), max(a, b)
    between = ((1 << hi) - 1) & ~((2 << lo) - 1)
    return not between & ~(k.hand | k.played)


def _look(v: View, action: int, seed: int, budget_ms: int) -> tuple[float, int, Decision] | None:
    res = _score(v, action, position_rng(v, "master", seed), budget_ms, cap_seconds(budget_ms))
    if res is None:
        return None
    scored, prior = res
    choice = best(list(scored), prior)
    if _same(v, choice, action):
        return 0.0, choice, Decision(choice, scored, prior)
    pts = {s.action: s.points for s in scored}
    return pts[choice] - pts[action], choice, Decision(choice, scored, prior)


def review(
    record: Any, seat: int, hand: int | None = None, seed: int = 0, budget_ms: int | None = None
) -> list[Mistake]:
    """Where ``seat``'s decisions in a finished hand of ``record`` (the replay
    format, e.g. ``engine.replay.record_of(game)``; ``hand`` indexes its hands,
    by default the last finished one) cost at least ``MIN_GAIN`` expected points against the
    master's choice on the same information: at most ``MAX_MISTAKES``, in the
    order they were made. ``budget_ms`` is the search work for the whole review.

    Each decision is first looked at briefly; the most costly few are looked at
    again with the rest of the budget, and only what holds up is reported.
    Raises ``ValueError`` for a record that does not replay or an unfinished hand.
    """
    total = REVIEW_BUDGET_MS if budget_ms is None else max(1, budget_ms)
    decisions, index = _decisions(record, seat, hand)
    if not decisions:
        return []
    screen = max(1, int(total * SCREEN_SHARE / len(decisions)))
    first: list[tuple[float, int]] = []
    for i, (v, a) in enumerate(decisions):
        look = _look(v, a, seed, screen)
        if look is not None and look[0] >= MIN_GAIN / 2:
            first.append((look[0], i))
    first.sort(reverse=True)
    refine = first[: MAX_MISTAKES + 1]
    deep = max(1, int(total * (1 - SCREEN_SHARE) / max(1, len(refine))))
    found: list[tuple[int, Mistake]] = []
    for _g, i in refine:
        v, a = decisions[i]
        look = _look(v, a, seed + 1, deep)
        if look is None or look[0] < MIN_GAIN:
            continue
        gain, better, d = look
        reason = reason_for(v, d)
        found.append((i, _mistake(v, index, a, better, gain, reason)))
    found.sort(key=lambda x: -x[1].gain)
    return [m for _i, m in sorted(found[:MAX_MISTAKES], key=lambda x: x[0])]


def _mistake(v: View, index: int, played: int, better: int, gain: float, reason: str) -> Mistake:
    return Mistake(
        hand=index,
        phase=str(v.phase),
        trick=len(v.tricks) + 1 if v.phase == PLAY else None,
        table=tuple(v.trick),
        hand_cards=tuple(v.hand),
        bids=tuple(v.bids),
        played=played,
        better=better,
        gain=round(gain, 1),
        reason=reason,
    )


__all__ = ["MIN_GAIN", "REASONS", "Hint", "Mistake", "hint", "review"]
