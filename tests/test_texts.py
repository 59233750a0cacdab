"""Every text reads right whatever the name: no «взял(а)», no «У Борис».

Two ways round: every message of every locale formatted with each kind of
name (a man's, a woman's, ending in «-а», «-я», a consonant, a Latin one),
and whole games rendered (the group's table, each hand, the results, the
end) with those names at the table. A text that hedges a gender, or puts a
name where Russian would decline it, fails here.
"""

from __future__ import annotations

import random
import re
from functools import partial
from pathlib import Path

import pytest
from fluent.runtime import FluentBundle, FluentResource
from fluent.syntax import FluentParser
from fluent.syntax.ast import Message, VariableReference
from fluent.syntax.visitor import Visitor

from bot.i18n import Texts, make_core
from bot.model import LiveTable, SeatResult, TableStatus
from bot.services.play import last_trick, timeout_move
from bot.views.hand import hand_message
from bot.views.results import game_over, hand_result, private_hand_result, private_result
from bot.views.table import game_table
from engine import Game, apply
from engine.rules import PRESETS, Rules
from engine.view import public_view, view

LOCALES = Path(__file__).resolve().parent.parent / "locales"
NAMES = ("Борис", "Аня", "Илья", "Вика", "Глеб", "Маша", "Nick")
# Hedged genders, and a name after a preposition that would decline it.
BAD = re.compile(
    r"\((а|ась|ла|ись|ся|ла|ён|на)\)"
    r"|\b(У|у|За|за|для|с|со|от|к|ко|о|об|при|про) (Борис|Аня|Илья|Вика|Глеб|Маша|Nick)\b"
)
NAME_VARS = {"name", "partner", "winner", "a", "b", "side", "who", "player"}


class _Variables(Visitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_VariableReference(self, node: VariableReference) -> None:  # noqa: N802
        self.names.add(node.id.name)


def messages(lang: str) -> list[tuple[str, set[str]]]:
    out = []
    for path in sorted((LOCALES / lang).glob("*.ftl")):
        for entry in FluentParser().parse(path.read_text(encoding="utf-8")).body:
            if isinstance(entry, Message) and entry.value is not None:
                seen = _Variables()
                seen.visit(entry)
                out.append((entry.id.name, seen.names))
    return out


def bundle(lang: str) -> FluentBundle:
    b = FluentBundle([lang], use_isolating=False)
    for path in sorted((LOCALES / lang).glob("*.ftl")):
        b.add_resource(FluentResource(path.read_text(encoding="utf-8")))
    return b


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("name", NAMES)
def test_every_message_reads_right_for_any_name(lang: str, name: str) -> None:
    b = bundle(lang)
    for key, variables in messages(lang):
        for number in (0, 1, 2, 5, 21):
            args: dict[str, object] = {v: (name if v in NAME_VARS else number) for v in variables}
            text, errors = b.format_pattern(b.get_message(key).value, args)
            assert not errors, (key, errors)
            assert not BAD.search(text), (key, text)


def play(rules: Rules, seed: int, stop: int | None = None) -> list[Game]:
    """Every state of one random game (to its end, or ``stop`` moves)."""
    rng = random.Random(seed)
    g = Game(rules, seed)
    states = [g]
    while not g.finished and (stop is None or len(states) < stop):
        g = apply(g, rng.choice(g.legal_actions()), g.to_move)
        states.append(g)
    return states


@pytest.fixture(scope="module")
def texts() -> Texts:
    import asyncio

    core = make_core("ru")
    asyncio.run(core.startup())
    return Texts(core)


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize(
    ("players", "preset", "stop"), [(4, "club", 2000), (4, "classic", 300), (3, "classic", 200)]
)
def test_whole_games_read_right_for_any_names(
    texts: Texts, lang: str, players: int, preset: str, stop: int | None
) -> None:
    import dataclasses
    from zoneinfo import ZoneInfo

    rules = dataclasses.replace(PRESETS[preset], players=players).validate()
    tr = partial(texts, lang)
    for offset in (0, len(NAMES) - players):  # every name once at a table
        names = NAMES[offset : offset + players]
        seats: list[int | None] = [100 + i for i in range(players)]
        seats[1] = None  # a computer seat among them
        table = LiveTable(
            1,
            -1001,
            "Клуб",
            100,
            TableStatus.PLAYING,
            rules,
            lang,
            seats,
            names={100 + i: n for i, n in enumerate(names)},
            due_at=2_000_000_000,
        )
        states = play(rules, seed=offset + players, stop=stop)
        rendered: list[str] = []
        for before, after in zip(states, states[1:], strict=False):
            table.game = after
            v = public_view(after)
            rendered.append(game_table(tr, table, v, 1_999_999_000, ZoneInfo("UTC"))[0])
            for seat in range(players):
                rendered.append(hand_message(tr, table, view(after, seat))[0])
            rendered.append(timeout_move(tr, after.actions[-1]))
            if len(after.sheet) > len(before.sheet):
                line = after.sheet[-1]
                last = last_trick(before, before.to_move, after.actions[-1], line)
                rendered.append(hand_result(tr, table, line, last))
                rendered.append(private_hand_result(tr, table, line, 0, last))
        if table.game is not None and table.game.finished:
            rendered.append(game_over(tr, table))
            record = SeatResult(0, 100, True, 3, 2, 1, 0, 0)
            rendered.append(private_result(tr, table, record))
        for text in rendered:
            assert not BAD.search(text), text
            assert "нулей" not in text and "0 из 0" not in text, text
