"""A running game's services in one handle, for the handlers, the Mini App and
the other services: each name here is the method of the module whose one
job it is, bound as it is (no wrapper between the caller and the work).

- :mod:`bot.services.moves`: the start, a person's presses, writing a move;
- :mod:`bot.services.computer`: the computer's seats, its thinking, resuming;
- :mod:`bot.services.deadlines`: reminders, pings, a missed move;
- :mod:`bot.services.absence`: a player the bot cannot reach, /back, a seat
  handed to the computer.
"""

from __future__ import annotations

from bot.services.absence import Absence
from bot.services.deadlines import Deadlines
from bot.services.moves import Moves


class PlayService:
    def __init__(self, moves: Moves, deadlines: Deadlines, absence: Absence) -> None:
        computer = moves.computer
        self.moves = moves
        self.computer = computer
        self.deadlines = deadlines
        self.absence = absence
        # A claim's vote ended without a press (its deadline, a voter out of reach).
        self.votes = deadlines.votes
        # After every committed change: the outbox, the deadline loop.
        self.on_change = moves.ctx.changed
        # Moves.
        self.start_game = moves.start
        self.human_move = moves.human_move
        self.look = moves.look
        self.show_hand = moves.show_hand
        self.why = moves.why
        self.playing = moves.playing
        self.commit = moves.commit
        self.schedule = moves.schedule
        # The computer.
        self.kick = computer.kick
        self.think = computer.think
        self.decisions = computer.decisions
        self.resume_all = computer.resume_all
        self.stop = computer.stop
        # Deadlines.
        self.on_deadline = deadlines.on_deadline
        # Absence.
        self.on_forbidden = absence.on_forbidden
        self.user_returned = absence.user_returned
        self.come_back = absence.come_back
        self.seat_to_computer = absence.seat_to_computer
