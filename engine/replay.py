"""The replay format: a JSON game record in, hand results out.

This is a public contract (docs/engine.md, ``python -m engine replay``):
other programs build records and compare results, so field names and shapes
must stay stable. Besides the engine's own error codes
(``engine.errors.CODES``) a record can fail with ``hand_unfinished``: a hand
that stops before its last trick while another hand follows it, reported at
the step that is missing.
"""

from __future__ import annotations

from typing import Any

from engine.cards import CardParseError, card_str, parse_card
from engine.errors import EngineError
from engine.game import (
    BIDDING,
    CLAIM,
    DEAL,
    EXCHANGE,
    OVER,
    PLAY,
    Game,
    action_from_json,
    action_to_json,
)
from engine.rules import Rules


class ReplayError(Exception):
    """An illegal record: where it broke (hand, step) and the engine's code."""

    def __init__(self, hand: int | None, step: int | None, code: str, message: str):
        super().__init__(f"{code} at hand {hand} step {step}: {message}")
        self.hand = hand
        self.step = step
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, Any]:
        return {
            "error": {
                "hand": self.hand,
                "step": self.step,
                "code": self.code,
                "message": self.message,
            }
        }


def _cards(value: Any, what: str) -> list[int]:
    if not isinstance(value, list):
        raise EngineError("bad_record", f"{what} must be a list of cards")
    try:
        return [parse_card(c) for c in value]
    except CardParseError as e:
        raise EngineError("bad_record", f"{what}: {e}") from None


def load_game(record: Any) -> tuple[Game, list[dict[str, Any]]]:
    """The starting state and the record's hands, validated for shape only."""
    if not isinstance(record, dict):
        raise EngineError("bad_record", "a record is a JSON object")
    players = record.get("players", 4)
    if isinstance(players, bool) or not isinstance(players, int):
        raise EngineError("bad_record", "players must be a number")
    rules = Rules.from_json(record.get("rules", "classic"), players)
    hands = record.get("hands", [])
    if not isinstance(hands, list):
        raise EngineError("bad_record", "hands must be a list")
    first_dealer = record.get("first_dealer", 0)
    if isinstance(first_dealer, bool) or not isinstance(first_dealer, int):
        raise EngineError("bad_record", "first_dealer must be a seat number")
    return Game(rules, None, first_dealer), hands


def run_hand(
    game: Game,
    hand: Any,
    hand_index: int,
    trace: list[dict[str, Any]] | None = None,
) -> int:
    """Apply one hand of a record to ``game``; raise ``ReplayError`` where it breaks.

    Returns the number of steps applied (the hand's bids and plays).
    """
    step = 0
    try:
        if not isinstance(hand, dict):
            raise EngineError("bad_record", "a hand is a JSON object")
        if game.finished:
            raise EngineError("game_over", "the game is over: no more hands")
        if game.phase != DEAL:
            raise EngineError("bad_record", "the previous hand is not finished")
        deal = hand.get("deal")
        if not isinstance(deal, list):
            raise EngineError("bad_record", "deal must be a list of hands")
        game.deal([_cards(h, f"deal of seat {i}") for i, h in enumerate(deal)])
        bids = hand.get("bids", [])
        plays = hand.get("plays", [])
        exchange = hand.get("exchange", [])
        if not isinstance(bids, list) or not isinstance(plays, list):
            raise EngineError("bad_record", "bids and plays must be lists")
        if not isinstance(exchange, list):
            raise EngineError("bad_record", "exchange must be a list")
        for b in bids:
            _step(game, action_from_json(b, BIDDING), trace)
            step += 1
        if exchange and game.phase != EXCHANGE:
            raise EngineError("bad_exchange", "no exchange is due in this hand")
        for ex in exchange:
            if not isinstance(ex, dict) or "cards" not in ex:
                raise EngineError("bad_record", 'an exchange is {"from": seat, "cards": [2 cards]}')
            cards = _cards(ex["cards"], "exchange cards")
            if game.phase != EXCHANGE:
                raise EngineError("bad_exchange", "no exchange is due now")
            if len(cards) != 2:
                raise EngineError("bad_exchange", "an exchange passes exactly 2 cards")
            if ex.get("from") != game.to_move:
                raise EngineError("bad_exchange", f"seat {game.to_move} must pass next")
            for c in cards:
                game.apply_action(c)
        for p in plays:
            if game.phase == EXCHANGE:
                raise EngineError("bad_exchange", "the blind-nil exchange is missing")
            if game.phase == BIDDING:
                raise EngineError("wrong_phase", "a card was played before all bids")
            if game.finished:
                raise EngineError("game_over", "the game is over: too many cards")
            if game.phase != PLAY:
                raise EngineError("bad_record", "the hand is over: too many cards")
            _step(game, action_from_json(p, PLAY), trace)
            step += 1
    except EngineError as e:
        raise ReplayError(hand_index, step, e.code, e.message) from None
    return step


def _step(game: Game, action: int, trace: list[dict[str, Any]] | None) -> None:
    if trace is not None:
        legal = [action_to_json(a) for a in game.legal_actions()]
        trace.append({"seat": game.to_move, "action": action_to_json(action), "legal": legal})
    game.replay_action(action)


def replay(record: Any, trace: bool = False) -> dict[str, Any]:
    """Run a whole record; the result dict of ``python -m engine replay``."""
    try:
        game, hands = load_game(record)
    except EngineError as e:
        raise ReplayError(None, None, e.code, e.message) from None
    out_hands: list[dict[str, Any]] = []
    for i, hand in enumerate(hands):
        steps: list[dict[str, Any]] | None = [] if trace else None
        sheet_before = len(game.sheet)
        done = run_hand(game, hand, i, steps)
        if i < len(hands) - 1 and game.phase not in (DEAL, OVER):
            raise ReplayError(
                i, done, "hand_unfinished", "the hand stops before its last trick, another follows"
            )
        if len(game.sheet) > sheet_before:
            line = game.sheet[-1]
            entry: dict[str, Any] = {
                "tricks": line["tricks"],
                "score": [s["score"] for s in line["sides"]],
                "bags": [s["bags"] for s in line["sides"]],
                "totals": [s["total"] for s in line["sides"]],
            }
        else:
            entry = {"tricks": list(game.tricks_won), "score": None, "bags": None, "totals": None}
        if steps is not None:
            entry["steps"] = steps
        out_hands.append(entry)
    return {"hands": out_hands, "finished": game.finished, "winner": game.winner}


def record_of(game: Game) -> dict[str, Any]:
    """The replay record of a game played with the engine (the bot's export)."""
    hands: list[dict[str, Any]] = []
    g = Game(game.rules, None, game.first_dealer)
    # Re-walk the action log with the known deals to split it into hands.
    deals = _deals_of(game)
    actions = list(game.actions)
    i = 0
    for deal in deals:
        g.deal(deal)
        h: dict[str, Any] = {"deal": [[card_str(c) for c in d] for d in deal], "bids": []}
        exchange: list[dict[str, Any]] = []
        plays: list[str] = []
        while i < len(actions) and g.phase not in (DEAL,) and not g.finished:
            a = actions[i]
            phase, seat = g.phase, g.to_move
            g.replay_action(a)
            i += 1
            if phase == BIDDING:
                h["bids"].append(action_to_json(a))
            elif phase == EXCHANGE:
                if not exchange or len(exchange[-1]["cards"]) == 2:
                    exchange.append({"from": seat, "cards": []})
                exchange[-1]["cards"].append(card_str(a))
            else:
                plays.append(card_str(a) if a != CLAIM else "claim")
        if exchange:
            h["exchange"] = exchange
        h["plays"] = plays
        hands.append(h)
    return {
        "rules": game.rules.diff_from_preset(with_players=False),
        "players": game.n,
        "first_dealer": game.first_dealer,
        "hands": hands,
    }


def _deals_of(game: Game) -> list[list[list[int]]]:
    from engine.game import deal_from_seed

    if game.seed is None:
        raise ValueError("record_of needs a seeded game")
    count = game.hand_no + 1 if game.phase != DEAL else game.hand_no
    return [deal_from_seed(game.seed, k, game.n) for k in range(count)]
