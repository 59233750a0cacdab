"""The bot renders a game only from the engine's views: group messages from
``public_view`` (no card of any hand), a private hand from ``view(game, seat)``.
Checked on the source, since a hand leaking into a group text is exactly the
kind of mistake no single rendering test would notice."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Where a renderer may touch the Game itself: to build a view, or to ask the
# engine a question (may this seat still go blind).
ALLOWED = {
    ("bot/views/common.py", "public"),
    ("bot/views/hand.py", "blind_pending"),
    ("bot/views/messages.py", "public"),
    ("bot/views/messages.py", "hands"),
}
LOOKUP_RENDERERS = {"_score", "_turn", "_table", "_info", "_sheet"}


def _game_reads(tree: ast.AST) -> list[tuple[str, int]]:
    """(function, line) of every ``<x>.game`` not merely compared with None."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, func: str, parent: ast.AST | None) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            func = node.name
        if isinstance(node, ast.Attribute) and node.attr == "game":
            none_check = (
                isinstance(parent, ast.Compare)
                and len(parent.comparators) == 1
                and isinstance(parent.comparators[0], ast.Constant)
                and parent.comparators[0].value is None
            )
            if not none_check:
                found.append((func, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, func, node)

    visit(tree, "", None)
    return found


def test_views_read_the_game_only_through_engine_views() -> None:
    paths = sorted((ROOT / "bot" / "views").glob("*.py")) + [ROOT / "bot/services/render.py"]
    bad = []
    for path in paths:
        rel = path.relative_to(ROOT).as_posix()
        for func, line in _game_reads(ast.parse(path.read_text(encoding="utf-8"))):
            if (rel, func) not in ALLOWED:
                bad.append(f"{rel}:{line} in {func}")
    assert not bad, bad


def test_lookup_texts_read_the_game_only_through_the_public_view() -> None:
    path = ROOT / "bot/views/lookups.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert defined >= LOOKUP_RENDERERS  # the check below looks at the renderers there are
    reads = _game_reads(tree)
    assert not [r for r in reads if r[0] in LOOKUP_RENDERERS], reads
