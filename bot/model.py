"""The live table the services keep in memory and the views render.

It is a cache of what the database holds (the table row, the seats, the
action log folded into a ``Game``); it is rebuilt from the database after a
restart, so nothing here is the truth on its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from enum import IntEnum, StrEnum
from typing import Literal, NamedTuple

from engine import Game, Rules
from engine.claim import claim_possible
from engine.rules import PRESETS


class TableStatus(StrEnum):
    """A table's life; the values are what the ``tables`` rows hold."""

    OPEN = "open"  # seats being taken, rules being chosen
    PLAYING = "playing"
    FINISHED = "finished"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class Place:
    """Where a group command was written: the chat, and its forum topic.

    ``thread_id`` 0 is the group itself (no topics) or a forum's General;
    ``topic`` is the topic's name when the message told it."""

    chat_id: int
    thread_id: int = 0
    topic: str = ""


#: Claims of the rest of a hand each seat may make in one hand.
CLAIMS_PER_HAND = 2

#: Why a claim's voter cannot answer: the bot cannot write to them, or the
#: computer plays their seat now (and a computer refuses).
VoterOut = Literal["unreachable", "computer"]
UNREACHABLE: VoterOut = "unreachable"
COMPUTER: VoterOut = "computer"

#: ``tables.creator_id`` of a table opened by an anonymous admin or a channel.
NO_CREATOR = 0


class Pause(IntEnum):
    """Why a running game waits (the ``tables.paused`` column)."""

    NONE = 0
    BOT_REMOVED = 1  # the group removed the bot
    TOPIC_CLOSED = 2  # the table's forum topic was closed
    TOPIC_DELETED = 3  # the table's forum topic was deleted


class SeatResult(NamedTuple):
    """One seat's record in a finished game (a row of ``results``)."""

    seat: int
    user: int | None
    won: bool
    hands: int
    contracts_bid: int
    contracts_made: int
    nils_bid: int
    nils_made: int


@dataclass(frozen=True, slots=True)
class HintAnswer:
    """The master's choice for the seat's move. ``blind_call``: the choice
    was asked with the cards face down, so it is only «blind nil» or «look
    first» (the bid the master would make is not said: it tells the cards)."""

    phase: str
    action: int
    reason: str
    blind_call: bool


@dataclass(slots=True)
class LiveTable:
    table_id: int
    chat_id: int
    chat_title: str
    creator_id: int
    status: TableStatus
    rules: Rules
    lang: str
    seats: list[int | None]  # user id per seat; None: empty (open) or computer (playing)
    names: dict[int, str] = field(default_factory=dict)  # user id -> display name (raw)
    game_id: int | None = None
    game: Game | None = None
    # Seats that opened their cards this hand (blind nil no longer possible).
    looked: set[int] = field(default_factory=set)
    # Seats whose owner blocked the bot: the game waits for them.
    blocked: set[int] = field(default_factory=set)
    # Seats whose owner left the game: the computer plays them.
    away: set[int] = field(default_factory=set)
    # Seconds per move, and missed deadlines in a row per seat.
    pace: int = 60
    timeouts: dict[int, int] = field(default_factory=dict)
    # When the player to move must have moved (None: nobody is waited for).
    due_at: float | None = None
    # Why the game waits (the bot removed, its topic closed): it is kept as it is.
    paused: Pause = Pause.NONE
    # Authority of the seated people (gestures received), shown by their names.
    authority: dict[int, int] = field(default_factory=dict)
    # The seat whose "your turn" ping is out (deleted when that seat moves).
    pinged: int | None = None
    # The table option «Подсказки» (a 💡 in each hand), and the hints each
    # seat was shown in this game (the results show them).
    hints: bool = False
    hint_counts: dict[int, int] = field(default_factory=dict)
    # The forum topic the table lives in; everything for it is sent there (0: none).
    thread_id: int = 0
    # The computer's strength at this table (an engine.ai level; '': the bot's AI_LEVEL).
    ai_level: str = ""
    # Claims of the rest («Остальные мои») made per (hand, seat), and the move
    # number of the claim the other side is voting on (None: none; no card is
    # played meanwhile).
    claims: dict[tuple[int, int], int] = field(default_factory=dict)
    claim_vote: int | None = None

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def seq(self) -> int:
        return len(self.game.actions) if self.game else 0

    @property
    def ended(self) -> bool:
        """Finished or cancelled: only looked at any more."""
        return self.status not in (TableStatus.OPEN, TableStatus.PLAYING)

    @property
    def voting(self) -> bool:
        """A claim is being voted on: it holds the very move it was made at."""
        return self.claim_vote is not None and self.claim_vote == self.seq

    def claims_made(self, seat: int) -> int:
        """Claims of the rest ``seat`` has made in the hand being played."""
        return self.claims.get((self.game.hand_no, seat), 0) if self.game is not None else 0

    def claim_refusal(self, seat: int, seq: int | None = None) -> str | None:
        """Why ``seat`` may not claim the rest of the hand now, as the locale
        key of the refusal (``err-claim-limit`` takes ``limit``), or None: it
        may. The one rule behind the chat's button, the Mini App's and
        ``ClaimService.claim``: its turn in play with two tricks or more left
        (``engine.claim.claim_possible``), no claim being voted on, a person
        at the seat, fewer than ``CLAIMS_PER_HAND`` claims in this hand.
        ``seq``: the move number a press carries; another than the current
        one is stale (told after the vote, which holds the move)."""
        g = self.game
        if g is None:
            return "err-stale"
        if self.voting:
            return "err-claim-voting"
        if seq is not None and seq != self.seq:
            return "err-stale"
        if g.to_move != seat:
            return "err-not_your_turn"
        if not claim_possible(g, seat) or self.is_computer(seat):
            return "err-claim-not-now"
        if self.claims_made(seat) >= CLAIMS_PER_HAND:
            return "err-claim-limit"
        return None

    def claim_number(self, seat: int) -> int | None:
        """The number of the claim ``seat`` may make now (its next in this
        hand), or None when it may make none (:meth:`claim_refusal`)."""
        return None if self.claim_refusal(seat) is not None else self.claims_made(seat) + 1

    def seat_of(self, user_id: int) -> int | None:
        for seat, uid in enumerate(self.seats):
            if uid == user_id:
                return seat
        return None

    def humans(self) -> list[tuple[int, int]]:
        """Seats played by their own person now (not away)."""
        return [
            (s, uid) for s, uid in enumerate(self.seats) if uid is not None and s not in self.away
        ]

    def is_computer(self, seat: int) -> bool:
        return self.seats[seat] is None or seat in self.away

    @property
    def computer_turn(self) -> bool:
        """A computer seat is to move in this running game, and no claim's
        vote holds the move (a claimer who left the seat: the vote decides first)."""
        g = self.game
        if g is None or g.finished or g.to_move < 0 or self.paused:
            return False
        return (
            self.status == TableStatus.PLAYING and self.is_computer(g.to_move) and not self.voting
        )

    def snapshot(self) -> LiveTable:
        """A copy to roll back to if a change does not commit.

        Every field, whatever fields are added later: containers (list, dict,
        set) are copied one level, other values are immutable or replaced whole
        (the services never change a ``Game`` in place, they swap in a new one).
        """
        saved = LiveTable.__new__(LiveTable)
        for name in _FIELDS:
            value = getattr(self, name)
            if isinstance(value, list | dict | set):
                value = value.copy()
            setattr(saved, name, value)
        return saved

    def restore(self, saved: LiveTable) -> None:
        """Put back every field of a ``snapshot``."""
        for name in _FIELDS:
            setattr(self, name, getattr(saved, name))


_FIELDS = tuple(f.name for f in fields(LiveTable))


def paused_key(live: LiveTable) -> str:
    """Why the table's game waits, as the locale key that says so."""
    if live.paused == Pause.TOPIC_CLOSED:
        return "err-paused-topic"
    if live.paused == Pause.TOPIC_DELETED:
        return "err-paused-topic-deleted"
    return "err-paused"


def preset_name(rules: Rules) -> str | None:
    """``classic`` / ``club`` when the rules are exactly a preset, else None."""
    for name, preset in PRESETS.items():
        if preset == rules:
            return name
    return None


def rules_to_json(rules: Rules) -> str:
    return json.dumps(rules.diff_from_preset(), sort_keys=True)


def rules_from_json(text: str) -> Rules:
    return Rules.from_json(json.loads(text))
