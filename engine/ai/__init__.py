"""The club player («клубный игрок»): bids and plays from one seat's ``View``.

``choose_action(view, level, seed, budget_ms)`` is all the bot needs to play;
``hint`` and ``review`` explain the master's choices to a person. Levels:
``novice`` (rules with slips), ``amateur`` (the rule player), ``master``
(search valued by the chance to win the game; the default).
"""

from engine.ai.player import DEFAULT_BUDGET_MS, LEVELS, choose_action
from engine.ai.teach import REASONS, Hint, Mistake, hint, review

__all__ = [
    "DEFAULT_BUDGET_MS",
    "LEVELS",
    "REASONS",
    "Hint",
    "Mistake",
    "choose_action",
    "hint",
    "review",
]
