"""The terminal game: you sit at one seat, the club player takes the others.

Cards are typed by their number in the list of playable cards or in notation
(``QS``, ``10♦``, Russian rank letters such as ``Д♠``); ``?`` asks the
computer for a hint; a quit word (or the end of input) leaves. Like the bot,
it reads the game through the engine's views and asks the engine why a move
is refused; every word comes from ``locales/``.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any, TextIO

from engine.ai import choose_action
from engine.cards import CardParseError, card_label, parse_card, sort_for_display
from engine.errors import EngineError
from engine.game import BID, BIDDING, BLIND, EXCHANGE, Game, Phase, action_from_json
from engine.rules import Rules
from engine.scoring import partner, sides
from engine.view import PublicView, View, public_view, view
from terminal.texts import Texts


class Quit(Exception):
    """The player left (a quit word or the end of input)."""


class Terminal:
    def __init__(self, args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
        self.tr = Texts(args.lang)
        self.stdin = stdin
        self.stdout = stdout
        rules = Rules.from_json(args.preset, args.players)
        self.preset: str = args.preset
        self.seed: int = (
            args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
        )
        self.game = Game(rules, self.seed)
        self.me: int = args.seat % rules.players
        self.level: str = args.level
        self.hands_limit: int = args.hands
        self.yes = self.tr.words("term-words-yes")
        self.no = self.tr.words("term-words-no")
        self.quit = self.tr.words("term-words-quit")
        self.ranks = dict(pair.split("=") for pair in self.tr("term-rank-letters").split())

    # ------------------------------------------------------------ words
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
        if text.lower() in self.quit:
            raise Quit
        return text

    def seat(self, seat: int) -> str:
        return self.tr("seat", players=self.game.n, seat=seat, num=seat + 1)

    def name(self, seat: int) -> str:
        if seat == self.me:
            return self.tr("term-you", name=self.seat(seat))
        if seat == partner(self.game.n, self.me):
            return self.tr("term-partner", name=self.seat(seat))
        return self.seat(seat)

    def side_name(self, side: int) -> str:
        members = sides(self.game.n)[side]
        if len(members) == 1:
            return self.name(members[0])
        names = self.tr("join-names", a=self.seat(members[0]), b=self.seat(members[1]))
        return self.tr("term-you", name=names) if self.me in members else names

    def bid_word(self, bid: int, blind: bool) -> str:
        if blind:
            return self.tr("bid-blind")
        return self.tr("bid-nil") if bid == 0 else str(bid)

    def action_word(self, action: int) -> str:
        if action >= BID:
            return self.bid_word(action - BID if action != BLIND else 0, action == BLIND)
        return card_label(action)

    def parse_typed_card(self, text: str) -> int:
        t = text.strip()
        for ru, en in self.ranks.items():
            if t.upper().startswith(ru):
                t = en + t[len(ru) :]
        return parse_card(t)

    # ------------------------------------------------------------ your turn
    def hint(self) -> int:
        return choose_action(view(self.game, self.me), self.level, self.seed)

    def show_hand(self, v: View, exclude: tuple[int, ...] = ()) -> None:
        cards = [c for c in sort_for_display(list(v.hand)) if c not in exclude]
        self.say(self.tr("term-your-cards", cards=" ".join(card_label(c) for c in cards)))

    def human_bid(self, v: View) -> int:
        if v.may_blind:
            self.say(self.tr("term-blind-offer"))
            while True:
                ans = self.ask(self.tr("term-blind-ask")).lower()
                if ans in self.yes:
                    return BLIND
                if ans in self.no or not ans:
                    break
                self.say(self.tr("term-yes-or-no"))
        self.show_hand(v)
        bids = [
            self.tr("term-bid-of", name=self.name(s), bid=self.bid_word(b, v.blind[s]))
            for s, b in enumerate(v.bids)
            if b is not None
        ]
        if bids:
            self.say(self.tr("term-bids", bids="; ".join(bids)))
        allowed = ", ".join(self.bid_word(b, False) for b in v.bids_allowed)
        self.say(self.tr("term-bids-allowed", bids=allowed))
        while True:
            ans = self.ask(self.tr("term-bid-ask")).lower()
            if ans == "?":
                self.say(self.tr("term-hint", action=self.action_word(self.hint())))
                continue
            if ans == self.tr("bid-nil").lower():
                ans = "0"
            if not ans.isdigit():
                self.say(self.tr("err-bid_not_allowed"))
                continue
            try:
                action = action_from_json(int(ans), BIDDING)
            except EngineError as e:
                self.say(self.tr(f"err-{e.code}"))
                continue
            refusal = self.game.refusal(action, self.me)
            if refusal is None:
                return action
            self.say(self.tr(f"err-{refusal}"))

    def human_card(self, allowed: tuple[int, ...], prompt: str) -> int:
        shown = sort_for_display(list(allowed))
        numbered = "  ".join(f"{i}) {card_label(c)}" for i, c in enumerate(shown, 1))
        self.say(self.tr("term-playable", cards=numbered))
        while True:
            ans = self.ask(prompt)
            if ans == "?":
                self.say(self.tr("term-hint", action=card_label(self.hint())))
                continue
            if ans.isdigit() and 1 <= int(ans) <= len(shown):
                return shown[int(ans) - 1]
            try:
                c = self.parse_typed_card(ans)
            except CardParseError:
                self.say(self.tr("term-card-unknown"))
                continue
            refusal = self.game.refusal(c, self.me)
            if refusal is None:
                return c
            self.say(self.tr(f"err-{refusal}"))

    def human_turn(self) -> int:
        v = view(self.game, self.me)
        if v.phase is BIDDING:
            return self.human_bid(v)
        if v.phase is EXCHANGE:
            self.show_hand(v, v.picking)
            prompt = self.tr("term-pass-ask", name=self.name(v.pass_to), n=len(v.picking) + 1)
            return self.human_card(v.cards_allowed, prompt)
        self.show_table(v)
        self.show_hand(v)
        return self.human_card(v.cards_allowed, self.tr("term-play-ask"))

    def show_table(self, v: View) -> None:
        if v.trick:
            cards = ", ".join(
                self.tr("term-card-played", name=self.name(s), card=card_label(c))
                for s, c in v.trick
            )
            self.say(self.tr("term-on-table", cards=cards))
        else:
            self.say(self.tr("term-your-lead", n=len(v.tricks) + 1))

    # ------------------------------------------------------------ what happened
    def announce(self, seat: int, action: int, phase: Phase) -> None:
        if phase is BIDDING:
            self.say(self.tr("term-bid-said", name=self.name(seat), bid=self.action_word(action)))
        elif phase is not EXCHANGE:
            self.say(self.tr("term-card-played", name=self.name(seat), card=card_label(action)))

    def after_action(self, before: PublicView) -> None:
        """What the move just made finished: a pass, a trick, a hand."""
        after = public_view(self.game)
        passed = after.to_move != before.to_move or after.phase is not EXCHANGE
        if before.phase is EXCHANGE and passed:
            giver, taker = self.name(before.to_move), self.name(before.pass_to)
            if self.me in (before.to_move, before.pass_to):
                cards = view(self.game, self.me).exchanges[-1]["cards"]
                shown = " ".join(card_label(c) for c in cards)
                self.say(self.tr("term-passes-to", **{"from": giver}, to=taker, cards=shown))
            else:
                self.say(self.tr("term-passes-hidden", **{"from": giver}))
        hand_over = len(after.sheet) > len(before.sheet)
        # Tricks per seat after the move; a new hand starts at zero, so its
        # predecessor's count is on the score sheet.
        new_hand = hand_over and after.hand_no != before.hand_no
        won = after.sheet[-1]["tricks"] if new_hand else after.tricks_won
        takers = [s for s in range(after.players) if won[s] > before.tricks_won[s]]
        if takers:
            self.say(self.tr("term-trick-won", name=self.name(takers[0])))
            self.say()
        if hand_over:
            self.report_hand(after.sheet[-1])

    def report_hand(self, line: dict[str, Any]) -> None:
        self.say(self.tr("term-hand-over", hand=line["hand"] + 1))
        for s in range(self.game.n):
            bid = bid_text(self.tr, line["bids"][s], line["blind"][s])
            self.say(
                self.tr("term-hand-seat", name=self.name(s), bid=bid, tricks=line["tricks"][s])
            )
        for i, side in enumerate(line["sides"]):
            self.say(
                self.tr(
                    "term-hand-side",
                    side=self.side_name(i),
                    score=f"{side['score']:+d}",
                    total=side["total"],
                    bags=side["bags"],
                )
            )
        self.say()

    # ------------------------------------------------------------ the game
    def run(self) -> int:
        g = self.game
        rules = self.tr(f"preset-{self.preset}")
        self.say(self.tr("term-start", players=g.n, rules=rules, seed=self.seed))
        self.say(
            self.tr(
                "term-your-seat",
                seat=self.seat(self.me),
                level=self.tr(f"ai-level-{self.level}"),
            )
        )
        try:
            while not g.finished:
                before = public_view(g)
                if self.hands_limit and len(before.sheet) >= self.hands_limit:
                    break
                if before.phase is BIDDING and all(b is None for b in before.bids):
                    dealer = self.name(before.dealer)
                    self.say(self.tr("term-hand-start", hand=before.hand_no + 1, dealer=dealer))
                seat = before.to_move
                if seat == self.me:
                    action = self.human_turn()
                else:
                    action = choose_action(view(g, seat), self.level, self.seed + seat)
                    self.announce(seat, action, before.phase)
                g.apply_action(action, seat)
                self.after_action(before)
        except Quit:
            self.say(self.tr("term-quit"))
            return 0
        if g.winner is not None:
            self.say(self.tr("term-over", winner=self.side_name(g.winner)))
        return 0


def bid_text(tr: Texts, bid: int, blind: bool) -> str:
    """A bid as a score sheet names it (the bot's words)."""
    if blind:
        return tr("bid-blind")
    return tr("bid-nil") if bid == 0 else tr("bid-n", n=bid)


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    return Terminal(args, stdin or sys.stdin, stdout or sys.stdout).run()
