"""Trying a constant of the computer players for one run (``--set``)."""

from __future__ import annotations

import importlib


def apply_sets(items: list[str]) -> None:
    """``MODULE.NAME=VALUE`` each: set ``engine.ai.MODULE.NAME`` to VALUE,
    read as the type the constant already has."""
    for item in items:
        name, _, value = item.partition("=")
        mod, _, attr = name.rpartition(".")
        module = importlib.import_module(f"engine.ai.{mod}")
        setattr(module, attr, type(getattr(module, attr))(value))
