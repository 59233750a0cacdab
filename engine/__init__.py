"""Pure rules of Spades («Пики»): stdlib only, no I/O, no asyncio, no aiogram."""

from engine.errors import EngineError
from engine.game import (
    BID,
    BLIND,
    CLAIM,
    Game,
    Phase,
    action_from_json,
    action_to_json,
    apply,
    concede,
)
from engine.rules import CLASSIC, CLUB, PRESETS, Rules
from engine.view import PublicView, View, public_view, view, views

__all__ = [
    "BID",
    "BLIND",
    "CLAIM",
    "CLASSIC",
    "CLUB",
    "PRESETS",
    "PublicView",
    "EngineError",
    "Game",
    "Phase",
    "Rules",
    "View",
    "action_from_json",
    "action_to_json",
    "apply",
    "concede",
    "public_view",
    "view",
    "views",
]
