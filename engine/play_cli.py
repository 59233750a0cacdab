"""``python -m engine play``: a game in the terminal, in Russian, against the computer.

The way to try the rules without Telegram: you sit at one seat, the club
player («клубный игрок») takes the others. Cards are typed by their number
in the list of playable cards or in notation (``QS``, ``10♦``, ``Д♠``);
``?`` asks the computer for a hint, ``выход`` (or end of input) leaves.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import TextIO

from engine.ai import choose_action
from engine.cards import CardParseError, card_label, parse_card, sort_for_display
from engine.game import BID, BIDDING, BLIND, EXCHANGE, Game
from engine.rules import Rules
from engine.view import view

SEATS4 = ("Север", "Восток", "Юг", "Запад")
RU_RANKS = {"В": "J", "Д": "Q", "К": "K", "Т": "A"}
QUIT = {"выход", "quit", "q", "exit"}


class Quit(Exception):
    pass


def seat_name(seat: int, me: int, n: int) -> str:
    base = SEATS4[seat] if n == 4 else f"Игрок {seat + 1}"
    if seat == me:
        return f"{base} (вы)"
    if n == 4 and seat == (me + 2) % 4:
        return f"{base} (партнёр)"
    return base


def side_name(side: int, me: int, n: int) -> str:
    if n != 4:
        return seat_name(side, me, n)
    names = f"{SEATS4[side]}–{SEATS4[side + 2]}"
    return f"{names} (вы)" if side == me % 2 else names


def parse_typed_card(text: str) -> int:
    t = text.strip()
    for ru, en in RU_RANKS.items():
        if t.upper().startswith(ru):
            t = en + t[1:]
    return parse_card(t)


def bid_text(b: int | None, blind: bool) -> str:
    if b is None:
        return "—"
    if blind:
        return "слепой ноль"
    return "ноль" if b == 0 else str(b)


class Terminal:
    def __init__(self, args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
        self.args = args
        self.stdin = stdin
        self.stdout = stdout
        rules = Rules.from_json(args.preset, args.players)
        self.seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
        self.game = Game(rules, self.seed)
        self.me = args.seat % rules.players
        self.level = args.level

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise Quit
        text = line.strip()
        if text.lower() in QUIT:
            raise Quit
        return text

    def name(self, seat: int) -> str:
        return seat_name(seat, self.me, self.game.n)

    def hint(self) -> int:
        return choose_action(view(self.game, self.me), self.level, self.seed)

    def show_hand(self, exclude: tuple[int, ...] = ()) -> None:
        cards = [c for c in sort_for_display(self.game.hand_cards(self.me)) if c not in exclude]
        self.say("Ваши карты: " + " ".join(card_label(c) for c in cards))

    def human_bid(self) -> int:
        g = self.game
        if g.blind_allowed(self.me):
            self.say("Вам доступен слепой ноль (±200): его объявляют, не глядя в карты.")
            while True:
                ans = self.ask("Объявить слепой ноль? (да/нет): ").lower()
                if ans in ("да", "д", "y", "yes"):
                    return BLIND
                if ans in ("нет", "н", "n", "no", ""):
                    break
                self.say("Ответьте «да» или «нет».")
        self.show_hand()
        bids = [
            f"{self.name(s)}: {bid_text(g.bids[s], g.blind[s])}"
            for s in range(g.n)
            if g.bids[s] is not None
        ]
        if bids:
            self.say("Заявки: " + "; ".join(bids))
        allowed = g.allowed_bids(self.me)
        self.say("Можно заявить: " + ", ".join("ноль" if b == 0 else str(b) for b in allowed))
        while True:
            ans = self.ask("Ваша заявка (число, 0 — ноль, ? — подсказка): ").lower()
            if ans == "?":
                a = self.hint()
                self.say(f"Подсказка: {bid_text(a - BID if a != BLIND else 0, a == BLIND)}")
                continue
            if ans == "ноль":
                ans = "0"
            if ans.isdigit() and int(ans) in allowed:
                return BID + int(ans)
            self.say("Такую заявку сейчас сделать нельзя.")

    def human_card(self, legal: list[int], prompt: str) -> int:
        shown = sort_for_display(legal)
        self.say(
            "Можно сыграть: " + "  ".join(f"{i}) {card_label(c)}" for i, c in enumerate(shown, 1))
        )
        while True:
            ans = self.ask(prompt)
            if ans == "?":
                self.say(f"Подсказка: {card_label(self.hint())}")
                continue
            if ans.isdigit() and 1 <= int(ans) <= len(shown):
                return shown[int(ans) - 1]
            try:
                c = parse_typed_card(ans)
            except CardParseError:
                self.say("Не понял карту: введите её номер из списка или, например, QS, 10♦, Д♠.")
                continue
            if c in legal:
                return c
            self.say("Этой картой сейчас ходить нельзя.")

    def human_turn(self) -> int:
        g = self.game
        if g.phase == BIDDING:
            return self.human_bid()
        if g.phase == EXCHANGE:
            self.show_hand(tuple(g.exchange_pick))
            taker = g.exchange_queue[0][1]
            return self.human_card(
                [c for c in g.legal_actions()],
                f"Какую карту отдать ({self.name(taker)}), {len(g.exchange_pick) + 1}-ю из двух? ",
            )
        self.show_table()
        self.show_hand()
        return self.human_card(g.legal_actions(), "Ваш ход: ")

    def show_table(self) -> None:
        g = self.game
        if g.trick:
            on_table = [
                f"{self.name((g.trick_leader + i) % g.n)}: {card_label(c)}"
                for i, c in enumerate(g.trick)
            ]
            self.say("На столе: " + ", ".join(on_table))
        else:
            self.say(f"Взятка {len(g.tricks) + 1}: вы заходите.")

    def announce(self, seat: int, action: int, phase: str) -> None:
        if phase == BIDDING:
            self.say(
                f"{self.name(seat)} заявляет: {bid_text(action - BID if action != BLIND else 0, action == BLIND)}"
            )
        elif phase == EXCHANGE:
            pass
        else:
            self.say(f"{self.name(seat)}: {card_label(action)}")

    def after_action(self, tricks: list, count: int, sheet_before: int) -> None:
        """Report a finished trick and a finished hand (``tricks`` is the old list object)."""
        g = self.game
        if len(tricks) > count:
            self.say(f"Взятку берёт {self.name(tricks[-1][2])}.")
            self.say()
        if len(g.sheet) > sheet_before:
            line = g.sheet[-1]
            self.say(f"=== Раздача {line['hand'] + 1} сыграна ===")
            for s in range(g.n):
                self.say(
                    f"  {self.name(s)}: заявка {bid_text(line['bids'][s], line['blind'][s])}, "
                    f"взяток {line['tricks'][s]}"
                )
            for i, sd in enumerate(line["sides"]):
                self.say(
                    f"  {side_name(i, self.me, g.n)}: {sd['score']:+d} за раздачу, "
                    f"всего {sd['total']}, мешков {sd['bags']}"
                )
            self.say()

    def run(self) -> int:
        g = self.game
        self.say(f"Пики: {g.n} игрока(ов), правила «{self.args.preset}», сид {self.seed}.")
        where = SEATS4[self.me] if g.n == 4 else f"игрок {self.me + 1}"
        self.say(f"Ваше место: {where}. Уровень компьютера: {self.level}.")
        hands_limit = self.args.hands
        try:
            while not g.finished:
                if hands_limit and len(g.sheet) >= hands_limit:
                    break
                if g.phase == BIDDING and g.bid_count == 0:
                    self.say(f"--- Раздача {g.hand_no + 1}, сдаёт {self.name(g.dealer)} ---")
                seat = g.to_move
                phase = g.phase
                before = (g.tricks, len(g.tricks), len(g.sheet))
                if seat == self.me:
                    a = self.human_turn()
                else:
                    a = choose_action(view(g, seat), self.level, self.seed + seat)
                    self.announce(seat, a, phase)
                g.apply_action(a, seat)
                if phase == EXCHANGE and len(g.exchanges) and not g.exchange_pick:
                    ex = g.exchanges[-1]
                    if self.me in (ex["from"], ex["to"]):
                        cards = " ".join(card_label(c) for c in ex["cards"])
                        self.say(f"{self.name(ex['from'])} передаёт {self.name(ex['to'])}: {cards}")
                    else:
                        self.say(f"{self.name(ex['from'])} передаёт две карты партнёру.")
                self.after_action(*before)
        except Quit:
            self.say("Игра прервана.")
            return 0
        if g.finished:
            self.say(f"Игра окончена. Победа: {side_name(g.winner or 0, self.me, g.n)}.")
        return 0


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    return Terminal(args, stdin or sys.stdin, stdout or sys.stdout).run()
