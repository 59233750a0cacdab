"""The agent protocol: a replay record with hidden cards in, one decision out.

A request is the game so far in the replay format, with ``null`` for the
other seats' deal in the unfinished (last) hand, plus ``"seat"`` (who must
act) and optional ``"level"`` and ``"seed"``. The answer is
``{"action": ...}`` in replay notation, or ``{"error": {"code", "message"}}``.

To reuse the engine's validation the hidden hands are *imagined*: any deal
that agrees with every public fact (cards played, voids shown, the exchange)
is replayed, and only ``view(game, seat)`` of it reaches the player, so the
imagined cards never matter. Deals given for other seats of the last hand
are ignored: the seat cannot know them.
"""

from __future__ import annotations

import random
from typing import Any

from engine.ai.knowledge import deal_out, popcount, trick_facts
from engine.cards import CardParseError, card_str, deck, mask_of, parse_card
from engine.errors import EngineError
from engine.game import DEAL, EXCHANGE, OVER, Game, action_to_json
from engine.replay import ReplayError, load_game, record_of, run_hand
from engine.view import View, view


class RequestError(Exception):
    """A request the player cannot answer; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str, hand: int | None = None, step: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.hand = hand
        self.step = step

    def to_json(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.hand is not None:
            err["hand"] = self.hand
            err["step"] = self.step
        return {"error": err}


def _card_list(value: Any, what: str) -> list[int]:
    if not isinstance(value, list):
        raise RequestError("bad_record", f"{what} must be a list of cards")
    try:
        return [parse_card(c) for c in value]
    except CardParseError as e:
        raise RequestError("bad_record", f"{what}: {e}") from None


def _trick_winner(n: int, leader: int, cards: list[int]) -> int:
    win, seat = cards[0], leader
    for i, c in enumerate(cards[1:], 1):
        if (c // 13 == win // 13 and c > win) or (c // 13 == 3 and win // 13 != 3):
            win, seat = c, (leader + i) % n
    return seat


def _imagine_hand(game: Game, hand: dict[str, Any], known: dict[int, list[int]]) -> dict[str, Any]:
    """A complete hand record agreeing with the public facts and the known deals."""
    n, size = game.n, game.hand_size
    plays = hand.get("plays", [])
    exchange = hand.get("exchange", [])
    if not isinstance(plays, list) or not isinstance(exchange, list):
        raise RequestError("bad_record", "plays and exchange must be lists")
    cards = _card_list(plays, "plays")
    if len(set(cards)) != len(cards):
        raise RequestError("bad_record", "a card is played twice")
    # Who played what: walk the tricks from the dealer's left.
    tricks: list[tuple[int, list[int]]] = []
    leader = (game.dealer + 1) % n
    for i in range(0, len(cards), n):
        t = cards[i : i + n]
        tricks.append((leader, t))
        if len(t) == n:
            leader = _trick_winner(n, leader, t)
    voids, played_by, _played = trick_facts(n, tricks)

    # Forward through the exchange: cards whose holder is known.
    held = {s: mask_of(c) for s, c in known.items()}  # post-exchange hands of known seats
    fixed = [0] * n  # cards a hidden seat must hold after the exchange
    passes: list[tuple[int, int, list[int] | None]] = []
    for ex in exchange:
        if not isinstance(ex, dict) or not isinstance(ex.get("from"), int):
            raise RequestError("bad_record", 'an exchange is {"from": seat, "cards": [2 cards]}')
        giver = ex["from"]
        if not 0 <= giver < n or n != 4:
            raise RequestError("bad_exchange", "no such seat in an exchange")
        taker = (giver + 2) % 4
        if giver not in known and taker not in known:
            passes.append((giver, taker, None))
            continue
        got = _card_list(ex.get("cards"), "exchange cards")
        if len(got) != 2:
            raise RequestError("bad_exchange", "an exchange passes exactly 2 cards")
        m = mask_of(got)
        if giver in known:
            held[giver] &= ~m
        else:
            fixed[giver] &= ~m
        if taker in known:
            held[taker] |= m
        else:
            fixed[taker] |= m
        passes.append((giver, taker, got))

    hidden = [s for s in range(n) if s not in known]
    all_cards = mask_of(deck(n))
    taken = 0
    for s in known:
        taken |= held[s]
    for s in hidden:
        taken |= fixed[s] | played_by[s]
    unknown = all_cards & ~taken
    count = [size] * n  # hand sizes after the passes made so far
    for giver, taker, _got in passes:
        count[giver] -= 2
        count[taker] += 2
    caps = {s: count[s] - popcount(fixed[s] | played_by[s]) for s in hidden}
    got_cards = deal_out(unknown, caps, voids, random.Random(0))
    if got_cards is None:
        raise RequestError("bad_record", "no deal agrees with the cards played")
    post = dict(held)
    for s in hidden:
        post[s] = fixed[s] | played_by[s] | got_cards[s]
    # Backwards through the exchange to the dealt hands; imagine hidden passes.
    done: list[dict[str, Any]] = []
    for giver, taker, passed in reversed(passes):
        got = passed if passed is not None else [c for c in range(52) if post[taker] >> c & 1][:2]
        m = mask_of(got)
        if post[taker] & m != m:
            raise RequestError("bad_exchange", "the exchange does not match the cards held")
        post[taker] &= ~m
        post[giver] |= m
        done.append({"from": giver, "cards": [card_str(c) for c in got]})
    done.reverse()
    deal = [[card_str(c) for c in range(52) if post[s] >> c & 1] for s in range(n)]
    for s, cs in known.items():
        if sorted(cs) != [c for c in range(52) if post[s] >> c & 1]:
            raise RequestError("bad_exchange", "the exchange does not match the known deal")
    out: dict[str, Any] = {"deal": deal, "bids": hand.get("bids", []), "plays": plays}
    if done:
        out["exchange"] = done
    return out


def game_from_request(req: Any) -> tuple[Game, int]:
    """The imagined full state and the seat to act; raises ``RequestError``."""
    if not isinstance(req, dict):
        raise RequestError("bad_request", "a request is a JSON object")
    seat = req.get("seat")
    try:
        game, hands = load_game(req)
    except EngineError as e:
        raise RequestError(e.code, e.message) from None
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.n:
        raise RequestError("bad_request", '"seat" must be the number of the seat to act')
    if not hands:
        raise RequestError("bad_request", "the record has no hand: nothing to decide")
    for i, hand in enumerate(hands):
        last = i == len(hands) - 1
        if game.phase != DEAL:
            raise RequestError("bad_record", "a hand follows an unfinished one", i, 0)
        if not isinstance(hand, dict) or not isinstance(hand.get("deal"), list):
            raise RequestError("bad_record", "a hand is an object with a deal", i, 0)
        deal = hand["deal"]
        if len(deal) != game.n:
            raise RequestError("bad_deal", f"a deal has {game.n} hands", i, 0)
        if last:
            if not isinstance(deal[seat], list):
                raise RequestError("bad_request", "the deal of the seat to act is needed", i, 0)
            known = {seat: _card_list(deal[seat], f"deal of seat {seat}")}
        else:
            known = {s: _card_list(d, f"deal of seat {s}") for s, d in enumerate(deal) if d}
        try:
            full = hand if len(known) == game.n else _imagine_hand(game, hand, known)
        except RequestError as e:
            e.hand, e.step = i, None
            raise
        try:
            run_hand(game, full, i)
        except ReplayError as e:
            raise RequestError(e.code, e.message, e.hand, e.step) from None
    if game.phase in (DEAL, OVER):
        raise RequestError("bad_request", "the last hand is over: there is no decision to make")
    if game.to_move != seat:
        raise RequestError("not_your_turn", f"seat {game.to_move} is to act, not seat {seat}")
    return game, seat


def answer(req: Any, choose: Any) -> dict[str, Any]:
    """Answer one request with ``choose(view, level, seed) -> action``."""
    try:
        game, seat = game_from_request(req)
        level = req.get("level", "master")
        seed = req.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RequestError("bad_request", '"seed" must be an integer')
        if not isinstance(level, str):
            raise RequestError("bad_request", '"level" must be a string')
        v = view(game, seat)
        a = choose(v, level, seed)
        if game.phase != EXCHANGE:
            return {"action": action_to_json(a)}
        game.apply_action(a)
        second = choose(view(game, seat), level, seed)
        return {"action": [card_str(a), card_str(second)]}
    except RequestError as e:
        return e.to_json()
    except (EngineError, ValueError) as e:
        code = e.code if isinstance(e, EngineError) else "bad_request"
        msg = e.message if isinstance(e, EngineError) else str(e)
        return {"error": {"code": code, "message": msg}}


def request_for(game: Game, seat: int) -> dict[str, Any]:
    """The request a seat sends: the record with the other seats' cards hidden."""
    rec = record_of(game)
    last = rec["hands"][-1]
    last["deal"] = [d if s == seat else None for s, d in enumerate(last["deal"])]
    for ex in last.get("exchange", []):
        if seat not in (ex["from"], (ex["from"] + 2) % 4):
            ex["cards"] = None
    if game.phase == EXCHANGE and game.exchange_pick:
        # A pass is recorded whole: the half-made one is the asker's own business.
        ex_list = last.get("exchange", [])
        if ex_list and len(ex_list[-1]["cards"] or []) < 2:
            ex_list.pop()
    rec["seat"] = seat
    return rec


def own_view(req: Any) -> View:
    """The asking seat's view of a request (tests and tools)."""
    game, seat = game_from_request(req)
    return view(game, seat)


__all__ = ["RequestError", "answer", "game_from_request", "own_view", "request_for"]
