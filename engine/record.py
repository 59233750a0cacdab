"""The record of a finished hand: the deal, the bids, every trick, the score.

Built by replaying a game's actions from its start, so it holds exactly what
was played. Only a finished hand has a record: while a hand is in play its
cards are secret, and :func:`hand_record` refuses to look at it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import EngineError
from engine.game import BID, BIDDING, BLIND, CLAIM, PLAY, Game


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """One trick: who led, the cards as (seat, card) in the order played, who
    took it (None: a claim cut it short, its cards went with the claim)."""

    leader: int
    cards: tuple[tuple[int, int], ...]
    winner: int | None


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A finished hand as it was played (``hand_no`` 0-based).

    ``dealt``: each seat's cards as dealt, ascending; ``bids``: (seat, bid)
    in the order made, 0 for nil, ``blind`` marking blind nils;
    ``exchanges``: the club's blind-nil passes (giver, taker, cards);
    ``line``: the hand's line of the score sheet (``Game.sheet``);
    ``claim``: (claimer, tricks it gave) when a claim ended the hand."""

    hand_no: int
    players: int
    dealer: int
    dealt: tuple[tuple[int, ...], ...]
    bids: tuple[tuple[int, int], ...]
    blind: tuple[bool, ...]
    exchanges: tuple[tuple[int, int, tuple[int, ...]], ...]
    tricks: tuple[TrickRecord, ...]
    line: dict[str, Any]
    claim: tuple[int, int] | None = None

    @property
    def totals(self) -> tuple[int, ...]:
        """Each side's score after this hand."""
        return tuple(int(side["total"]) for side in self.line["sides"])


def hands_finished(game: Game) -> int:
    """How many hands of the game are over (and so may be shown)."""
    return len(game.sheet)


def hand_record(game: Game, hand_no: int) -> HandRecord:
    """The record of hand ``hand_no`` (0-based) of ``game``, replayed from
    its seed and actions. A hand not finished (or never dealt) is refused
    with ``hand_not_finished``: its cards may still be in someone's hand."""
    if not 0 <= hand_no < len(game.sheet) or game.seed is None:
        raise EngineError("hand_not_finished", "only a finished hand has a record")
    g = Game(game.rules, game.seed, game.first_dealer)
    actions = game.actions
    i = 0
    while g.hand_no < hand_no:
        g.replay_action(actions[i])
        i += 1
    dealer, dealt = g.dealer, tuple(tuple(h) for h in g.dealt)
    n = g.n
    bids: list[tuple[int, int]] = []
    plays: list[tuple[int, int]] = []
    winners: list[int] = []
    exchanges: tuple[tuple[int, int, tuple[int, ...]], ...] = ()
    claim: tuple[int, int] | None = None
    while len(g.sheet) <= hand_no:
        seat, phase, action = g.to_move, g.phase, actions[i]
        if action == CLAIM:  # the rest of the hand went to the claimer
            claim = (seat, g.hand_size - len(g.tricks))
            g.replay_action(action)
            break
        if phase is BIDDING:
            bids.append((seat, 0 if action == BLIND else action - BID))
        elif phase is PLAY and not plays:  # the passes, if any, are all made
            exchanges = tuple((e["from"], e["to"], tuple(e["cards"])) for e in g.exchanges)
        g.replay_action(action)
        i += 1
        if phase is PLAY:
            plays.append((seat, action))
            if len(plays) % n == 0 and len(g.sheet) <= hand_no:
                winners.append(g.tricks[-1][2])
    line = g.sheet[hand_no]
    if claim is None:
        # The last trick ended the hand (the state moved on): its taker is whose
        # count of tricks in the sheet's line the earlier tricks do not explain.
        taken = [0] * n
        for w in winners:
            taken[w] += 1
        winners.append(next(s for s in range(n) if line["tricks"][s] > taken[s]))
    tricks = [
        TrickRecord(plays[k * n][0], tuple(plays[k * n : (k + 1) * n]), winners[k])
        for k in range(len(winners))
    ]
    cut = plays[len(winners) * n :]
    if cut:  # the trick on the table when the claim was made
        tricks.append(TrickRecord(cut[0][0], tuple(cut), None))
    return HandRecord(
        hand_no=hand_no,
        players=n,
        dealer=dealer,
        dealt=dealt,
        bids=tuple(bids),
        blind=tuple(bool(b) for b in line["blind"]),
        exchanges=exchanges,
        tricks=tuple(tricks),
        line=line,
        claim=claim,
    )
