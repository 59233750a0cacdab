"""Every text reads right whatever the name: no «взял(а)», no «У Борис»,
no «Вика не согласен».

Two ways round: every message of every locale formatted with each kind of
name (a man's, a woman's, ending in «-а», «-я», a consonant, a Latin one),
and whole games rendered (the group's table, each hand, the results, the
end) with those names at the table. A text that hedges a gender, assumes
one, or puts a name where Russian would decline it, fails here. Then the
words (issue #47): numbers agree with their nouns at 1, 2, 5, 11, 12, 21,
22; one word for each thing (the claim is «Остальные мои», never a
«заявка»; the computer has one name); and the table read at a glance.
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
from bot.services.moves import last_trick
from bot.views.hand import hand_message
from bot.views.messages import timeout_move
from bot.views.results import game_over, hand_result, private_hand_result, private_result
from bot.views.table import game_table
from engine import Game, apply
from engine.game import BIDDING, PLAY
from engine.rules import PRESETS, Rules
from engine.scoring import sides
from engine.view import public_view, view

LOCALES = Path(__file__).resolve().parent.parent / "locales"
NAMES = ("Борис", "Аня", "Илья", "Вика", "Глеб", "Маша", "Nick")
# Hedged genders, and a name after a preposition that would decline it.
BAD = re.compile(
    r"\((а|ась|ла|ись|ся|ла|ён|на)\)"
    r"|\b(У|у|За|за|для|с|со|от|к|ко|о|об|при|про) (Борис|Аня|Илья|Вика|Глеб|Маша|Nick)\b"
)
NAME_VARS = {"name", "partner", "winner", "a", "b", "side", "who", "player", "sender", "receiver"}
# Words that take the gender of whoever they are about: «Вика не согласен»,
# «✅ Согласен» (the presser), «его взятки» (a player's), «Аня заявил».
GENDERED = re.compile(
    r"(?i)\b(согласен|согласна|готов|готова|рад|рада|уверен|уверена)\b"
    r"|\b(его|её|ее) (взятк|карт|заявк|ход|мест|нол)"
    r"|\b(Борис|Аня|Илья|Вика|Глеб|Маша|Nick) (не )?[а-яё]+ла?\b"
)


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
            assert not GENDERED.search(text), (key, text)


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
            assert not GENDERED.search(text), text
            assert "нулей" not in text and "0 из 0" not in text, text


# --- Numbers and their nouns -------------------------------------------------

# A noun's forms after a number: one (1, 21), few (2, 22), many (5, 11, 12).
NOUN_FORMS = (
    ("взятка", "взятки", "взяток"),
    ("сдача", "сдачи", "сдач"),
    ("мешок", "мешка", "мешков"),
    ("очко", "очка", "очков"),
    ("партия", "партии", "партий"),
    ("игрок", "игрока", "игроков"),
    ("место", "места", "мест"),
)
NOUNS = {word: forms for forms in NOUN_FORMS for word in forms}
NUMBER_NOUN = re.compile(r"(?<![\w.,])(\w+ )?(\d+) ([а-яё]+)")
# «сыграно 1 сдача» is wrong, «сыграна 1 сдача» right (and 21): with one the
# predicate takes the noun's gender, with few and many it is neuter.
GENDER = {"взятка": "f", "сдача": "f", "партия": "f", "мешок": "m", "игрок": "m"}
PREDICATES = {
    form: gender
    for stem, forms in (
        ("сыгран", ("сыгран", "сыграна", "сыграно")),
        ("остал", ("остался", "осталась", "осталось")),
        ("свобод", ("свободен", "свободна", "свободно")),
        ("выполн", ("выполнен", "выполнена", "выполнено")),
    )
    for form, gender in zip(forms, "mfn", strict=True)
}
PREDICATE = re.compile(r"\b(" + "|".join(PREDICATES) + r") (\d+) ([а-яё]+)")
# After these a number takes the genitive, another pattern: not checked here.
GENITIVE = {"до", "после", "из", "от", "около", "более", "менее"}
NUMBERS = (1, 2, 5, 11, 12, 21, 22)


def plural(n: int) -> int:
    """Russian's plural category of ``n``: 0 one, 1 few, 2 many."""
    if n % 10 == 1 and n % 100 != 11:
        return 0
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return 1
    return 2


def number_slips(text: str) -> list[str]:
    """Each «N noun» whose noun has the wrong form for N, and each predicate
    that does not agree with the number after it."""
    slips = []
    for m in NUMBER_NOUN.finditer(text):
        before, n, word = (m.group(1) or "").strip().lower(), int(m.group(2)), m.group(3)
        if word in NOUNS and before not in GENITIVE and NOUNS[word][plural(n)] != word:
            slips.append(m.group(0))
    for m in PREDICATE.finditer(text):
        word = m.group(3)
        if word not in NOUNS:
            continue
        lemma = NOUNS[word][0]
        wanted = GENDER.get(lemma, "n") if plural(int(m.group(2))) == 0 else "n"
        if PREDICATES[m.group(1)] != wanted:
            slips.append(m.group(0))
    return slips


def test_the_number_rule_itself() -> None:
    assert number_slips("сыграно 1 сдача") and number_slips("сыграна 5 сдач")
    assert number_slips("сыграно 21 сдача") and number_slips("взято 2 взяток")
    assert not number_slips("сыграна 21 сдача · сыграно 12 сдач · сыграно 22 сдачи")
    assert not number_slips("свободно 1 место · свободен 1 мешок")
    assert number_slips("свободно 1 мешок")
    assert not number_slips("до 1 очков")  # a genitive: another pattern


# Values that are never small: a game's target, an option's points.
REAL = {"target": 500, "value": 500, "total": 13}


def formatted(lang: str, name: str = "Вика") -> list[tuple[str, int, str]]:
    """(key, number, text): every message with each number in NUMBERS."""
    b = bundle(lang)
    out = []
    for key, variables in messages(lang):
        for number in NUMBERS if variables - NAME_VARS else NUMBERS[:1]:
            args: dict[str, object] = {
                v: (name if v in NAME_VARS else REAL.get(v, number)) for v in variables
            }
            text, errors = b.format_pattern(b.get_message(key).value, args)
            assert not errors, (key, errors)
            out.append((key, number, str(text)))
    return out


def test_numbers_agree_with_their_nouns() -> None:
    """«сыграна 1 сдача / сыграно 2 сдачи / сыграно 5 сдач», at 11, 12, 21, 22 too."""
    slips = [(key, text) for key, _, text in formatted("ru") if number_slips(text)]
    assert not slips, slips


# --- One word for each thing -------------------------------------------------

# What must never be said, and why: each a slip a player noticed.
NEVER = {
    "ru": [
        (r"(?i)клубн\w* игрок|робот", "the computer has one name: «компьютер»"),
        (r"(?i)\bзаказ(ал|ала|али|ать|ывать|ет|ут)\w*", "a bid is «заявить», as the timeouts say"),
        (r"(?i)\bжест", "the afterword says «доброе слово»"),
        (r"«Старт»|\bStart\b", "the Russian client's button says «Запустить»"),
        (r"\bПас\b", "in преферанс «пас» declines to bid: the exchange is «Обмен»"),
        (r"(?i)движок", "a player does not know an engine"),
        (r"не дам", "«сесть там уже не получится»"),
        (r"Что сказать: ", "«Вика — что сказать?»"),
        (r"Сядьте за стол хотя бы", "«За стол должен сесть хотя бы один человек»"),
        (r"пока остались", "«пока остаётся»"),
    ],
    "en": [
        (r"(?i)club player|robot", "the computer has one name"),
        (r"(?i)gesture", "the afterword says «kind word»"),
        (r"\bPass\b", "the exchange is «Exchange»"),
        (r"(?i)\bengine\b", "a player does not know an engine"),
    ],
}


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_one_word_for_each_thing(lang: str) -> None:
    found = [
        (key, why, text)
        for key, _, text in formatted(lang)
        for pattern, why in NEVER[lang]
        if re.search(pattern, text)
    ]
    assert not found, found


CLAIM_NAME = {"ru": "«Остальные мои»", "en": '"The rest are mine"'}
BID_WORD = {"ru": re.compile(r"(?i)заявк|заявивш"), "en": re.compile(r"(?i)\bbid")}


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_claim_is_never_called_a_bid(lang: str) -> None:
    """«Заявка» is the bid: a claim of the rest is «Остальные мои» everywhere,
    or «Ваша заявка на голосовании» reads as if a bid were voted on."""
    claim_texts = [
        (key, line)
        for key, _, text in formatted(lang)
        for line in text.splitlines()
        if "claim" in key or CLAIM_NAME[lang] in line
    ]
    assert len(claim_texts) > 15  # the scan finds them
    wrong = [(key, text) for key, text in claim_texts if BID_WORD[lang].search(text)]
    assert not wrong, wrong


EMOJI = re.compile(r"[^\w\s,.:«»\"'+()–-]")


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_no_button_reads_as_the_start_of_another(lang: str) -> None:
    """«📋 Запись» beside «📜 Запись сдачи»: two buttons a glance cannot tell
    apart. Yes/no answers excepted (they sit under their question)."""
    labels = {
        key: EMOJI.sub("", text).strip().lower()
        for key, _, text in formatted(lang)
        if key.startswith("btn-") and "{" not in text
    }
    answers = ("да", "нет", "yes", "no")
    plain = {k: v for k, v in labels.items() if v and v.split()[0].strip(",") not in answers}
    clashes = [
        (a, b)
        for a, x in plain.items()
        for b, y in plain.items()
        if a != b and (y + " ").startswith(x + " ")
    ]
    assert not clashes, clashes


ROOT = LOCALES.parent


def test_the_computer_s_levels_have_one_set_of_names() -> None:
    """The bot's settings, the terminal game and the docs name the levels alike."""
    b = bundle("ru")
    names = {}
    for level in ("novice", "amateur", "master"):
        text, _ = b.format_pattern(b.get_message(f"ai-level-{level}").value, {})
        names[level] = text
        engine_md = " ".join((ROOT / "docs" / "engine.md").read_text(encoding="utf-8").split())
        assert f"`{level}` «{text}»" in engine_md
    chain = " → ".join(names.values())
    assert chain in (ROOT / "docs" / "playing.md").read_text(encoding="utf-8")
    assert ", ".join(names.values()) in (ROOT / "README.md").read_text(encoding="utf-8")
    assert set(names.values()).isdisjoint({"клуб", "«Клуб»"})  # a preset's name


# --- The table at a glance ---------------------------------------------------


def ru_table(rules: Rules, names: tuple[str, ...] = ("Аня", "", "Вика", "Глеб")) -> LiveTable:
    """A table of ``names`` (an empty name: a computer seat), in Russian."""
    seats = [None if not n else 100 + i for i, n in enumerate(names)]
    return LiveTable(
        1,
        -1001,
        "Клуб",
        100,
        TableStatus.PLAYING,
        rules,
        "ru",
        seats,
        names={100 + i: n for i, n in enumerate(names) if n},
        due_at=2_000_000_000,
    )


def group_text(tr: Texts, table: LiveTable, g: Game) -> str:
    from zoneinfo import ZoneInfo

    table.game = g
    return game_table(partial(tr, "ru"), table, public_view(g), 1_999_999_000, ZoneInfo("UTC"))[0]


def at_a_glance(texts: Texts, seeds: range) -> list[tuple[Game, str]]:
    """Every state of a few random classic games, with the group's table."""
    out = []
    for seed in seeds:
        table = ru_table(PRESETS["classic"])
        for g in play(PRESETS["classic"], seed, stop=120):
            out.append((g, group_text(texts, table, g)))
    return out


def side_lines(text: str) -> list[str]:
    """The lines under each side's score (they start with three spaces)."""
    return [line for line in text.splitlines() if line.startswith("   ")]


def test_while_bids_are_made_the_sides_show_the_bids(texts: Texts) -> None:
    """Not «заказ 0, взято 0» (which reads as a nil) nor «Борис 0 из 4»."""
    seen = 0
    for g, text in at_a_glance(texts, range(6)):
        if g.phase != BIDDING:
            continue
        seen += 1
        lines = side_lines(text)
        assert len(lines) == 2 and all(line.startswith("   заявки: ") for line in lines), text
        assert "заказ" not in text and " из " not in text.split("\n", 2)[2], text
    assert seen > 20


def test_in_play_a_side_shows_its_contract_against_its_tricks(texts: Texts) -> None:
    """«заказ 6 · взято 4 (ещё 2)», ✓ once reached; a nil beside its partner:
    «🤖 Восток: ноль ✗ (уже 1 взятка) · Глеб 0 из 3», never «взято 0» over it."""
    contract = re.compile(r"^   заказ (\d+) · взято (\d+)( \(ещё (\d+)\)| ✓)$")
    nil_broken = 0
    reached = 0
    for g, text in at_a_glance(texts, range(12)):
        if g.phase != PLAY:
            continue
        v = public_view(g)
        for members, line in zip(sides(4), side_lines(text), strict=True):
            if all(v.bids[s] for s in members):
                m = contract.match(line)
                assert m, text
                bid, taken = int(m.group(1)), int(m.group(2))
                assert bid == sum(v.bids[s] or 0 for s in members), text
                assert taken == sum(v.tricks_won[s] for s in members), text
                assert (m.group(3) == " ✓") == (taken >= bid), text
                reached += taken >= bid
                continue
            assert "заказ" not in line and "взято" not in line, text
            for s in members:
                if v.bids[s] == 0 and v.tricks_won[s]:
                    nil_broken += 1
                    n = v.tricks_won[s]
                    word = {0: "взятка", 1: "взятки", 2: "взяток"}[plural(n)]
                    assert f": ноль ✗ (уже {n} {word})" in line, text
    assert nil_broken > 5 and reached > 0


def test_the_trick_stands_right_under_whose_move_it_is(texts: Texts) -> None:
    seen = 0
    for _, text in at_a_glance(texts, range(3)):
        lines = text.splitlines()
        on_table = [i for i, line in enumerate(lines) if line.startswith("На столе: ")]
        if on_table:
            seen += 1
            assert lines[on_table[0] - 1].startswith("▶️ Ходит "), text
    assert seen > 20


def test_bags_at_nine_warn_in_a_few_words(texts: Texts) -> None:
    """«⚠️ ещё мешок — и −100», not «9 мешков ⚠️ ещё один — −100»."""
    from bot.views.sides import bags_text

    tr = partial(texts, "ru")
    assert bags_text(tr, PRESETS["classic"], 9) == "⚠️ ещё мешок — и −100"
    assert bags_text(tr, PRESETS["classic"], 8) == "8 мешков"


def test_a_hand_made_below_zero_has_no_tick(texts: Texts) -> None:
    """A failed nil beside a contract made: −60 is not ✅."""
    tr = partial(texts, "ru")
    seen = 0
    for seed in range(8):
        table = ru_table(PRESETS["classic"])
        states = play(PRESETS["classic"], seed, stop=400)
        for before, after in zip(states, states[1:], strict=False):
            if len(after.sheet) == len(before.sheet):
                continue
            table.game = after
            text = hand_result(tr, table, after.sheet[-1])
            for side in after.sheet[-1]["sides"]:
                if side["contract"] and side["taken"] >= side["contract"] and side["score"] < 0:
                    seen += 1
            for line in text.splitlines():
                if line.startswith("✅"):
                    assert "<b>−" not in line, text
    assert seen > 0


def test_the_private_hand_drops_the_seat_line_once_bids_are_made(texts: Texts) -> None:
    tr = partial(texts, "ru")
    table = ru_table(PRESETS["classic"])
    phases = set()
    for g in play(PRESETS["classic"], 3, stop=60):
        table.game = g
        text = hand_message(tr, table, view(g, 0))[0]
        phases.add(g.phase)
        assert ("Вы — Север, партнёр: Вика" in text) == (g.phase == BIDDING), text
    assert {BIDDING, PLAY} <= phases


def test_a_card_that_cannot_be_played_is_marked_plainly(texts: Texts) -> None:
    """A phone shows the mark: not a dot beside the suit («A♠˙»)."""
    import unicodedata

    from engine.cards import card_label

    labels = {card_label(c) for c in range(52)}
    tr = partial(texts, "ru")
    table = ru_table(PRESETS["classic"], ("Аня", "Борис", "Вика", "Глеб"))
    marked = 0
    for g in play(PRESETS["classic"], 4, stop=80):
        if g.phase != PLAY:
            continue
        table.game = g
        markup = hand_message(tr, table, view(g, g.to_move))[0:2][1]
        assert markup is not None
        for row in markup["inline_keyboard"]:
            for b in row:
                if not b.get("callback_data", "").startswith("w:"):  # WhyCb: says why
                    continue
                marked += 1
                label = max((x for x in labels if x in b["text"]), key=len)
                extra = b["text"].replace(label, "")
                assert extra and all(
                    unicodedata.category(ch) not in {"Sk", "Lm", "Mn", "Cf", "Zs"} for ch in extra
                ), b["text"]
    assert marked > 10


def test_rules_name_only_what_is_on_in_a_player_s_words(texts: Texts) -> None:
    """/rules: not thirteen lines mostly «нет»."""
    import dataclasses

    from bot.views.table import rules_lines

    tr = partial(texts, "ru")
    classic = rules_lines(tr, PRESETS["classic"])
    assert not any(line.endswith(": нет") for line in classic), classic
    assert len(classic) <= 5, classic
    rich = dataclasses.replace(
        PRESETS["classic"], exact_bonus=True, quicksand=True, suicide=True
    ).validate()
    lines = "\n".join(rules_lines(tr, rich))
    assert "• Бонус за точную заявку 1–2: +20" in lines
    for name in ("«Зыбучие пески»", "«Самоубийство»"):
        line = next(x for x in lines.splitlines() if name in x)
        assert len(line.split(": ", 1)[1]) > 20, line  # an explanation, not «да»
    bicycle = dataclasses.replace(PRESETS["classic"], bicycle=True).validate()
    assert "«Велосипед»: нолей нет" in "\n".join(rules_lines(tr, bicycle))


def test_the_private_end_offers_the_group_s_rematch(texts: Texts) -> None:
    from bot.model import SeatResult
    from bot.views.social import rematch_keyboard

    tr = partial(texts, "ru")
    table = ru_table(PRESETS["club"])
    states = play(PRESETS["club"], 1, stop=3000)  # the club's floor ends it soon
    assert states[-1].finished
    table.game = states[-1]
    text = private_result(tr, table, SeatResult(0, 100, True, 3, 2, 1, 0, 0))
    assert "/newgame" not in text and "Ещё партию" in text
    [[button]] = rematch_keyboard(tr, table)["inline_keyboard"]
    assert button["text"] == "🔁 Ещё партию" and button["callback_data"] == "rm:1"


# --- docs/playing.md shows the real table ------------------------------------

PLAYING_MD = ROOT / "docs" / "playing.md"
BEGIN, END = "<!-- table: made by tests/test_texts.py -->", "<!-- /table -->"


def sample_tables(texts: Texts) -> str:
    """The group's table of seed 39 while bids are made and in play (a nil
    beside its partner), as the real views render it, tags dropped."""
    table = ru_table(PRESETS["classic"])
    states = play(PRESETS["classic"], 39, stop=60)
    shots = [group_text(texts, table, states[2]), group_text(texts, table, states[22])]
    blocks = [re.sub(r"</?b>", "", s) for s in shots]
    return "\n\n".join(f"```\n{b}\n```" for b in blocks)


@pytest.mark.parametrize("path", [PLAYING_MD, ROOT / "README.md"])
def test_the_docs_show_the_table_the_views_make(texts: Texts, path: Path) -> None:
    """docs/playing.md and the README: ``PIKI_WRITE_DOCS=1`` writes the
    table there; else the doc must match the views."""
    import os

    doc = path.read_text(encoding="utf-8")
    start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    made = "\n" + sample_tables(texts) + "\n"
    if os.environ.get("PIKI_WRITE_DOCS"):
        path.write_text(doc[:start] + made + doc[end:], encoding="utf-8")
    else:
        assert doc[start:end] == made


# --- the README's commands are the menus' ------------------------------------

COMMANDS_BEGIN = "<!-- commands: checked by tests/test_texts.py -->"
COMMANDS_END = "<!-- /commands -->"
COMMAND_ROW = re.compile(r"^\| `/(\w+)([^`]*)` \| [^|]+ \| (.+) \|$")


def commands_table(texts: Texts, rows: dict[str, tuple[str, str]]) -> str:
    """The README's table of commands from the handlers' list (bot.commands):
    one row per command with the chats it is offered in; the rest of a row
    (``/hand N``'s argument, what it does) is the README's own, in its order.
    A new command's row is added with its English menu line, a gone one's dropped."""
    from bot.commands import GROUP, PRIVATE, menu_commands, scopes_by_name
    from bot.handlers import routers

    where = {
        frozenset({GROUP}): "group",
        frozenset({PRIVATE}): "private",
        frozenset({GROUP, PRIVATE}): "anywhere",
    }
    listed = scopes_by_name(menu_commands(routers()))
    names = [n for n in rows if n in listed] + [n for n in listed if n not in rows]
    lines = ["| command | where | what |", "|---|---|---|"]
    for name in names:
        usage, what = rows.get(name, ("", texts("en", f"cmd-{name}")))
        lines.append(f"| `/{name}{usage}` | {where[listed[name]]} | {what} |")
    return "\n".join(lines)


def test_the_readme_lists_the_commands_the_menus_offer(texts: Texts) -> None:
    """A command is in the README's table exactly when a handler offers it in
    a menu, with the chats it is offered in; ``PIKI_WRITE_DOCS=1`` writes the
    table (a new command's row then says what its menu line says)."""
    import os

    path = ROOT / "README.md"
    doc = path.read_text(encoding="utf-8")
    start, end = doc.index(COMMANDS_BEGIN) + len(COMMANDS_BEGIN), doc.index(COMMANDS_END)
    rows: dict[str, tuple[str, str]] = {}
    for line in doc[start:end].strip().splitlines()[2:]:
        match = COMMAND_ROW.match(line)
        assert match, f"not a row of the commands' table: {line!r}"
        rows[match[1]] = (match[2], match[3])
    made = "\n\n" + commands_table(texts, rows) + "\n\n"  # blank lines: the table renders
    if os.environ.get("PIKI_WRITE_DOCS"):
        path.write_text(doc[:start] + made + doc[end:], encoding="utf-8")
    else:
        assert doc[start:end] == made, "PIKI_WRITE_DOCS=1 pytest tests/test_texts.py writes it"
