"""Moves: a game's start, a person's press, and the one way a move is written.

Every accepted move is one transaction: the action row (its (game, seq) key
makes a double press lose cleanly), the deadline of whoever moves next, what
the move changed, shown through the render pass (the table's new look, the
private hands, the end of the hand or the game if it came) and queued in the
outbox, and the finish hooks when the game ends. The in-memory table takes
the move inside that transaction and is put back if it does not commit; the
press is answered after the commit.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from bot.model import LiveTable, SeatResult, TableStatus, rules_to_json
from bot.pace import reminder_times
from bot.services.computer import Chooser, Computer
from bot.services.errors import UserError, paused_error
from bot.services.live import Ctx, Registry, undone_on_failure
from bot.services.render import buried, publish
from bot.services.stats import game_results
from bot.storage import repo_games, repo_moves, repo_tables
from bot.storage.db import Conn
from bot.views.hand import blind_pending
from bot.views.outcome import Change, Event, GameOver, HandClosed, Hands, PingDone
from bot.views.results import LastTrick
from engine import BID, BLIND, EngineError, Game, apply, concede
from engine.game import PLAY
from engine.view import public_view

#: More writes in a move's transaction, made before its messages are rendered.
Extra = Callable[[Conn], Awaitable[None]]

#: Run inside the transaction that ends a game, after its messages (the
#: partners' record, the afterword, the chart owed).
FinishHook = Callable[[Conn, LiveTable], Awaitable[None]]


def _nothing() -> None:
    """Nobody waits for a game's end."""


def last_trick(g: Game, seat: int, action: int, line: dict[str, Any]) -> LastTrick | None:
    """The trick a hand's last card completed: the cards before it, that card,
    and who took it (whose tricks grew in the hand's sheet line). None when
    the hand ended otherwise (no card was played: a hand thrown in)."""
    if g.phase != PLAY or action >= BID:  # not a card: a claim conceded
        return None
    v = public_view(g)
    pairs = (*v.trick, (seat, action))
    grew = [s for s in range(v.players) if line["tricks"][s] > v.tricks_won[s]]
    return (pairs, grew[0]) if len(grew) == 1 else None


async def schedule_turn(ctx: Ctx, conn: Conn, live: LiveTable, left: float | None = None) -> None:
    """The deadline of whoever must move now, none while the computer moves:
    a move's time, or the ``left`` seconds the move still had (given back
    after a claim's vote), with only the reminders still ahead. While a
    claim is voted on it is the vote's deadline, whoever sits at the seat."""
    g = live.game
    assert g is not None and live.game_id is not None
    mover_waits = live.is_computer(g.to_move) and not live.voting
    if live.status != "playing" or g.finished or live.paused or mover_waits:
        await repo_moves.clear_deadline(conn, live.game_id)
        live.due_at = None
        return
    now = ctx.clock.now()
    due = now + (live.pace if left is None else max(0.0, left))
    times = reminder_times(live.pace, due - live.pace, due, ctx.settings.turn_ping_after)
    sent = next((i for i, t in enumerate(times) if t > now), len(times))
    remind = times[sent] if sent < len(times) else None
    await repo_moves.set_deadline(conn, live.game_id, len(g.actions), g.to_move, due, remind)
    if sent:
        await repo_moves.reminder_sent(conn, live.game_id, sent, remind)
    live.due_at = due


class Moves:
    """The moves of running games, and the computer that makes its seats'."""

    def __init__(
        self,
        reg: Registry,
        chooser: Chooser | None = None,
        *,
        finish_hooks: Sequence[FinishHook] = (),
        after_finish: Callable[[], None] = _nothing,
    ) -> None:
        """``chooser``: the computer's decision (tests inject one; the engine's
        by default). ``after_finish``: called once a game's end is committed
        (the chart its finish hook owes is drawn then)."""
        self.reg = reg
        self.ctx = reg.ctx
        self.finish_hooks = tuple(finish_hooks)
        self.after_finish = after_finish
        # The computer's moves are written here too: it is handed the one way.
        self.computer = Computer(reg, self.commit, chooser)

    # ------------------------------------------------------------- start
    async def start(self, live: LiveTable) -> None:
        """The game begins: called under the table's lock by the set-up service."""
        seed = secrets.randbits(62)
        game = Game(live.rules, seed)
        async with self.ctx.db.tx() as conn:
            game_id = await repo_games.create_game(
                conn, live.table_id, seed, rules_to_json(live.rules), game.first_dealer
            )
            await repo_tables.update_table(conn, live.table_id, status="playing")
            live.status = TableStatus.PLAYING
            live.game_id = game_id
            live.game = game
            live.looked = set()
            await self.schedule(conn, live)
            await publish(conn, self.reg, live, Change(table=True, hands=Hands(new_hand=True)))
        self.ctx.changed()
        self.computer.kick(live.table_id)

    # ------------------------------------------------------------ presses
    async def human_move(self, table_id: int, user_id: int, seq: int, action: int) -> None:
        """A bid, a card or blind nil pressed (in the chat or the Mini App)."""
        async with self.reg.lock(table_id):
            live = await self.playing(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("err-not-at-table")
            if seq != live.seq:
                if await self._made_already(live, seq, seat, action, user_id):
                    raise UserError("err-move-made")
                raise UserError("err-stale")
            g = live.game
            assert g is not None
            if g.to_move != seat:
                raise UserError("err-not_your_turn")
            if live.voting:  # a claim of this move is voted on
                raise UserError("err-claim-voting")
            if action == BLIND and seat in live.looked:
                raise UserError("err-looked")
            await self.commit(live, seat, action, user_id)
            computer_next = live.computer_turn
        if computer_next:  # else whoever moves next presses a button
            self.computer.kick(table_id)

    async def _made_already(
        self, live: LiveTable, seq: int, seat: int, action: int, user_id: int
    ) -> bool:
        """Whether this very press is move ``seq`` already: a press handled
        again after a restart (its move committed, the update not yet marked
        done), or a double press. It is told the move stands, not that the
        button is stale."""
        if live.game_id is None or not 0 <= seq < live.seq:
            return False
        made = await repo_moves.action_at(self.ctx.db, live.game_id, seq)
        return made == (seat, action, user_id)

    async def look(self, table_id: int, user_id: int) -> None:
        """Open one's cards: blind nil is given up for this hand."""
        async with self.reg.lock(table_id):
            live = await self.playing(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("err-not-at-table")
            if seat in live.looked or not blind_pending(live, seat):
                return
            assert live.game is not None and live.game_id is not None
            async with self.ctx.db.tx() as conn:
                await repo_moves.add_look(conn, live.game_id, live.game.hand_no, seat)
                live.looked.add(seat)
                await publish(conn, self.reg, live, Change(hands=Hands(only=frozenset({seat}))))
        self.ctx.changed()

    async def show_hand(self, table_id: int, user_id: int) -> None:
        """The ping's button: the hand anew at the bottom of the private chat,
        and the ping gone."""
        async with self.reg.lock(table_id):
            live = await self.playing(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("err-not-at-table")
            events: tuple[Event, ...] = ()
            if live.pinged == seat:
                events, live.pinged = (PingDone(seat),), None
            hands = Hands(only=frozenset({seat}), fresh=True)
            async with self.ctx.db.tx() as conn:
                await publish(conn, self.reg, live, Change(events, hands=hands))
        self.ctx.changed()

    async def why(self, table_id: int, user_id: int, seq: int, action: int) -> str:
        """Why a marked card cannot be played: the engine's own refusal, as a locale key."""
        live = await self.playing(table_id)
        seat = live.seat_of(user_id)
        if seat is None:
            return "err-not-at-table"
        if seq != live.seq or live.game is None:
            return "err-stale"
        try:
            apply(live.game, action, seat)
        except EngineError as e:
            return f"err-{e.code}"
        return "err-stale"

    async def playing(self, table_id: int) -> LiveTable:
        """The running table a press is for, or the refusal a press gets."""
        live = await self.reg.get(table_id)
        if live is None or live.status != "playing" or live.game is None:
            raise UserError("err-stale")
        if live.game.finished:
            raise UserError("err-game_over")
        if live.paused:
            raise paused_error(live)
        return live

    # ------------------------------------------------------------- commit
    async def commit(
        self,
        live: LiveTable,
        seat: int,
        action: int,
        user_id: int | None,
        *,
        extra: Extra | None = None,
        events: Sequence[Event] = (),
        conceded: bool = False,
    ) -> None:
        """Under the table's lock: validate against the engine, then write the
        move and its messages atomically. ``extra``: more writes of the same
        transaction; ``events``: what else it tells (a timeout, a claim),
        shown before the move's own. ``conceded``: the move is a claim proved
        or accepted. Whoever calls lets the computer move next (``kick``)."""
        g = live.game
        assert g is not None and live.game_id is not None
        try:
            after = concede(g, seat) if conceded else apply(g, action, seat)
        except EngineError as e:
            raise UserError(f"err-{e.code}") from None
        new_hand = len(after.sheet) > len(g.sheet)
        # A new hand brings the table message back into view if it has sunk.
        repost = await buried(self.reg, live) if new_hand and not after.finished else None
        with undone_on_failure(live, duplicate="err-stale"):
            async with self.ctx.db.tx() as conn:
                await repo_moves.append_action(
                    conn, live.game_id, len(g.actions), seat, action, user_id
                )
                live.game = after
                if user_id is not None and live.timeouts.get(seat):
                    live.timeouts.pop(seat)
                    await repo_moves.set_timeouts(conn, live.table_id, seat, 0)
                if extra is not None:
                    await extra(conn)
                told = list(events)
                if new_hand:
                    live.looked = set()
                    line = after.sheet[-1]
                    told.append(HandClosed(g.hand_no, line, last_trick(g, seat, action, line)))
                if live.pinged is not None and (after.finished or after.to_move != live.pinged):
                    told.append(PingDone(live.pinged))
                    live.pinged = None
                hands = None
                if after.finished:
                    told.append(GameOver(await self._finish(conn, live)))
                else:
                    await self.schedule(conn, live)
                    turn = after.to_move if (after.to_move != g.to_move or new_hand) else None
                    hands = Hands(new_hand=new_hand, turn=turn)
                change = Change(tuple(told), table=True, repost=repost, hands=hands)
                await publish(conn, self.reg, live, change)
                if after.finished:
                    for hook in self.finish_hooks:
                        await hook(conn, live)
        self.ctx.changed()
        if live.status == TableStatus.FINISHED:
            self.reg.forget(live.table_id)
            self.after_finish()

    async def _finish(self, conn: Conn, live: LiveTable) -> tuple[SeatResult, ...]:
        """The game's end written: its result, each seat's record, the table closed."""
        g = live.game
        assert g is not None and live.game_id is not None
        await repo_games.end_game(conn, live.game_id, "finished", g.winner, json.dumps(g.totals))
        results = game_results(live)
        await repo_games.save_results(conn, live.game_id, results)
        await repo_tables.update_table(conn, live.table_id, status="finished")
        live.status = TableStatus.FINISHED
        live.due_at = None
        return tuple(results)

    async def schedule(self, conn: Conn, live: LiveTable) -> None:
        """The deadline of whoever must move now; none while the computer moves.
        A claim's vote keeps the deadline it runs to (someone coming back or
        stepping away does not give it a move's time anew); after a pause it
        gets a fresh one, as a move does."""
        if live.voting and live.due_at is not None and not live.paused:
            return
        await schedule_turn(self.ctx, conn, live)
