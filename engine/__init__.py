"""Pure rules of Spades («Пики»): stdlib only, no I/O, no asyncio, no aiogram."""

from engine.errors import EngineError
from engine.game import BID, BLIND, Game, action_from_json, action_to_json, apply, new_game
from engine.rules import CLASSIC, CLUB, PRESETS, Rules
from engine.view import View, view

__all__ = [
    "BID",
    "BLIND",
    "CLASSIC",
    "CLUB",
    "PRESETS",
    "EngineError",
    "Game",
    "Rules",
    "View",
    "action_from_json",
    "action_to_json",
    "apply",
    "new_game",
    "view",
]
