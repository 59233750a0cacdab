"""One error type with a machine-readable code the bot translates to Russian."""

from __future__ import annotations

# Every code the engine raises; the bot's locales must cover each of them.
CODES = (
    "bad_rules",
    "bad_action",
    "wrong_phase",
    "not_your_turn",
    "game_over",
    "bid_out_of_range",
    "bid_not_allowed",
    "nil_not_allowed",
    "blind_not_allowed",
    "card_not_in_hand",
    "must_follow_suit",
    "spades_not_broken",
    "bad_exchange",
    "bad_deal",
    "bad_record",
    "claim_not_allowed",
    "claim_not_conceded",
    "hand_not_finished",
)


class EngineError(Exception):
    """An illegal action or input. ``code`` is stable; ``message`` is for developers.

    Messages never name cards of a hidden hand: they can end up in logs.
    """

    def __init__(self, code: str, message: str = "") -> None:
        assert code in CODES, code
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message or code
