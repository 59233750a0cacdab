"""Playing a game: starting it, one move at a time, and the computer's seats.

Every accepted move is one transaction: the action row (its (game, seq) key
makes a double press lose cleanly), the table's new look and the private
hands queued in the outbox, and the end of the hand or game if it came.
Only after the commit is the in-memory game replaced and the press answered.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import sqlite3
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from bot.i18n import esc
from bot.model import COMPUTER, UNREACHABLE, LiveTable, TableStatus, VoterOut, rules_to_json
from bot.outbox import enqueue_send
from bot.pace import is_daily, next_reminder, reminder_times
from bot.services import pings, render
from bot.services.errors import UserError, paused_error
from bot.services.live import Ctx, Registry
from bot.services.stats import game_results
from bot.services.thinking import RULE_PLAYER, Thinkers
from bot.storage import repo
from bot.storage.db import Conn
from bot.tasks import cancel_and_wait
from bot.views.common import Tr, card, duration, player_name
from bot.views.hand import blind_pending
from bot.views.record import record_button
from bot.views.results import LastTrick, game_over, hand_result, private_result
from bot.views.social import over_keyboard, rematch_keyboard
from engine import BID, BLIND, CLAIM, EngineError, Game, apply, concede, view
from engine.ai import DEFAULT_BUDGET_MS
from engine.game import EXCHANGE, PLAY
from engine.view import public_view

log = logging.getLogger(__name__)

Chooser = Callable[..., int]
R = TypeVar("R")
Extra = Callable[[Conn], Awaitable[None]]


def _default_chooser() -> Chooser:
    from engine.ai import choose_action

    return choose_action


class ClaimVoteEnds(Protocol):
    """How a claim's vote ends without a press (``bot.services.claims.ClaimVotes``),
    called under the table's lock: its deadline came, or a voter's answer can
    no longer come. Built before this service, from the registry alone."""

    async def expire(self, live: LiveTable) -> None: ...

    async def voter_out(self, live: LiveTable, seat: int, why: VoterOut) -> None: ...

    async def remind(self, live: LiveTable, left: float) -> None: ...


#: Run inside the transaction that ends a game (the partners' record, the afterword, the chart).
FinishHook = Callable[[Conn, LiveTable], Awaitable[None]]


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


def timeout_move(tr: Tr, action: int) -> str:
    """What the club player did for a player whose time ran out: «сыграл 7♦», «заявил 3»."""
    if action == BLIND:
        return tr("timeout-bid", bid=tr("bid-blind"))
    if action >= BID:
        bid = action - BID
        return tr("timeout-bid", bid=tr("bid-nil") if bid == 0 else str(bid))
    return tr("timeout-played", card=card(action))


class PlayService:
    def __init__(
        self,
        reg: Registry,
        chooser: Chooser | None = None,
        *,
        votes: ClaimVoteEnds,
        on_change: Callable[[], None] | None = None,
        finish_hooks: Sequence[FinishHook] = (),
    ) -> None:
        """``on_change``: called after every committed change (wakes the
        outbox, the deadline loop, the charts; the outbox alone by default).
        ``votes``: a claim's vote ended by its deadline or an unreachable voter."""
        self.reg = reg
        self.ctx = reg.ctx
        self._chooser = chooser
        # The club player's searches run in other processes: in a thread they
        # would hold the GIL, and every table would wait while one thinks.
        # An injected chooser (tests) may not pickle: it runs in a thread.
        # The quick levels do not search: sending them to a process costs more
        # than their decision.
        settings = self.ctx.settings
        # A table may pick a searching level whatever the bot's own is: the pool
        # is there for it, started at its first search.
        self._searches = DEFAULT_BUDGET_MS.get(settings.ai_level, 0) > 0
        self.thinkers = Thinkers(settings.ai_workers if chooser is None else 0)
        # How the searching level decided: its full budget, a share, the rule player.
        self.decisions: Counter[str] = Counter()
        self._warned_at: float | None = None
        self._runners: dict[int, asyncio.Task[None]] = {}
        self._stopped = False  # set by stop(): no new computer turns from then on
        self._ping_after = settings.turn_ping_after
        self.on_change: Callable[[], None] = on_change or self.ctx.outbox.wake
        self.finish_hooks = tuple(finish_hooks)
        # A claim's vote holding the move whose deadline passed ends instead
        # of the club player moving; a voter refused to the bot ends it too.
        self.votes = votes

    @property
    def chooser(self) -> Chooser:
        if self._chooser is None:
            self._chooser = _default_chooser()
        return self._chooser

    # ------------------------------------------------------------- start
    async def start_game(self, live: LiveTable) -> None:
        """Called under the table lock by the set-up service."""
        seed = secrets.randbits(62)
        game = Game(live.rules, seed)
        async with self.ctx.db.tx() as conn:
            game_id = await repo.create_game(
                conn, live.table_id, seed, rules_to_json(live.rules), game.first_dealer
            )
            await repo.update_table(conn, live.table_id, status="playing")
            live.status = TableStatus.PLAYING
            live.game_id = game_id
            live.game = game
            live.looked = set()
            await self.schedule(conn, live)
            await render.table_message(conn, self.reg, live)
            await render.hands(conn, self.reg, live, new_hand=True)
        self.on_change()
        self.kick(live.table_id)

    # ------------------------------------------------------------- moves
    async def human_move(self, table_id: int, user_id: int, seq: int, action: int) -> None:
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
            await self._commit(live, seat, action, user_id)
        self.kick(table_id)

    async def _made_already(
        self, live: LiveTable, seq: int, seat: int, action: int, user_id: int
    ) -> bool:
        """Whether this very press is move ``seq`` already: a press handled
        again after a restart (its move committed, the update not yet marked
        done), or a double press. It is told the move stands, not that the
        button is stale."""
        if live.game_id is None or not 0 <= seq < live.seq:
            return False
        made = await repo.action_at(self.ctx.db, live.game_id, seq)
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
                await repo.add_look(conn, live.game_id, live.game.hand_no, seat)
                live.looked.add(seat)
                await render.hands(conn, self.reg, live, only={seat})
        self.on_change()

    async def show_hand(self, table_id: int, user_id: int) -> None:
        """The ping's button: the hand anew at the bottom of the private chat,
        and the ping gone."""
        async with self.reg.lock(table_id):
            live = await self.playing(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("err-not-at-table")
            async with self.ctx.db.tx() as conn:
                if live.pinged == seat:
                    await pings.clear(conn, live)
                await render.hands(conn, self.reg, live, only={seat}, fresh=True)
        self.on_change()

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

    async def _my_playing_tables(
        self, user_id: int, table_id: int | None = None
    ) -> AsyncIterator[tuple[LiveTable, int]]:
        """Each running table where the user sits, with the seat, under its lock."""
        for row in await repo.live_tables_of_user(self.ctx.db, user_id):
            if row.status != "playing" or (table_id is not None and row.table_id != table_id):
                continue
            async with self.reg.lock(row.table_id):
                live = await self.reg.get(row.table_id)
                seat = live.seat_of(user_id) if live is not None else None
                if live is not None and live.game is not None and seat is not None:
                    yield live, seat

    async def user_returned(self, user_id: int) -> None:
        """The user pressed Start again (e.g. after blocking the bot): resend their hands."""
        async for live, seat in self._my_playing_tables(user_id):
            live.blocked.discard(seat)
            async with self.ctx.db.tx() as conn:
                await render.table_message(conn, self.reg, live)
                await render.hands(conn, self.reg, live, only={seat})
        self.on_change()

    async def on_forbidden(
        self, chat_id: int, description: str, sent_at: float | None = None
    ) -> None:
        """Telegram refused a message (403): a player blocked the bot or never
        started it, or the bot left a group. The game waits; the group is told.
        ``sent_at`` is when the refused message went out (None: the refusal is
        news now): one sent before the user's latest Start changes nothing."""
        if chat_id < 0:
            log.warning("group %s refused messages: %s", chat_id, description)
            return
        async with self.ctx.db.tx() as conn:
            blocked = await repo.set_blocked(conn, chat_id, sent_at)
        if not blocked:
            log.info("chat %s: a refusal from before the user's latest Start; ignored", chat_id)
            return
        rows = await repo.live_tables_of_user(self.ctx.db, chat_id)
        for row in rows:
            if row.status != "playing":
                continue
            async with self.reg.lock(row.table_id):
                live = await self.reg.get(row.table_id)
                if live is None:
                    continue
                seat = live.seat_of(chat_id)
                if seat is None or seat in live.blocked:
                    continue
                user = await repo.get_user(self.ctx.db, chat_id)
                if user is None or not user.blocked:
                    continue  # they pressed Start meanwhile: user_returned has run or will
                live.blocked.add(seat)
                tr = self.reg.tr_group(live)
                async with self.ctx.db.tx() as conn:
                    await render.group_note(
                        conn,
                        live,
                        tr(
                            "blocked-note",
                            name=esc(live.names.get(chat_id, "")),
                            bot=self.ctx.bot_username,
                        ),
                    )
                    await render.table_message(conn, self.reg, live)
                # A voter on a claim who cannot be asked: the vote ends at once.
                await self.votes.voter_out(live, seat, UNREACHABLE)
            self.kick(row.table_id)
        self.on_change()

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

    async def _commit(
        self,
        live: LiveTable,
        seat: int,
        action: int,
        user_id: int | None,
        extra: Extra | None = None,
        conceded: bool = False,
    ) -> None:
        """Validate against the engine, then write the move and its messages
        atomically. ``conceded``: the move is a claim proved or accepted."""
        g = live.game
        assert g is not None and live.game_id is not None
        try:
            after = concede(g, seat) if conceded else apply(g, action, seat)
        except EngineError as e:
            raise UserError(f"err-{e.code}") from None
        hands_before = len(g.sheet)
        new_hand = len(after.sheet) > hands_before
        # A new hand brings the table message back into view if it has sunk.
        repost = await render.buried(self.reg, live) if new_hand and not after.finished else None
        saved = live.snapshot()
        try:
            async with self.ctx.db.tx() as conn:
                await repo.append_action(conn, live.game_id, len(g.actions), seat, action, user_id)
                live.game = after
                if user_id is not None and live.timeouts.get(seat):
                    live.timeouts.pop(seat)
                    await repo.set_timeouts(conn, live.table_id, seat, 0)
                if extra is not None:
                    await extra(conn)
                if new_hand:
                    live.looked = set()
                    line = after.sheet[-1]
                    last = last_trick(g, seat, action, line)
                    tr = self.reg.tr_group(live)
                    await render.group_note(
                        conn,
                        live,
                        hand_result(tr, live, line, last),
                        record_button(tr, live.table_id, line["hand"]),
                    )
                    await render.closed_hands(conn, self.reg, live, g.hand_no, line, last)
                if live.pinged is not None and (after.finished or after.to_move != live.pinged):
                    await pings.clear(conn, live)
                if after.finished:
                    await self._finish(conn, live)
                else:
                    await self.schedule(conn, live)
                await render.table_message(conn, self.reg, live, repost=repost)
                if not after.finished:
                    turn = after.to_move if (after.to_move != g.to_move or new_hand) else None
                    await render.hands(conn, self.reg, live, new_hand=new_hand, turn=turn)
        except BaseException as e:
            live.restore(saved)
            if isinstance(e, sqlite3.IntegrityError):
                raise UserError("err-stale") from None
            raise
        self.on_change()
        if live.status == "finished":
            self.reg.forget(live.table_id)

    async def commit(
        self, live: LiveTable, seat: int, action: int, user_id: int | None, extra: Extra
    ) -> None:
        """A move decided outside a press (a claim conceded), under the
        table's lock: written and shown like one, ``extra`` in its transaction."""
        await self._commit(live, seat, action, user_id, extra, conceded=action == CLAIM)
        self.kick(live.table_id)

    async def _finish(self, conn: Conn, live: LiveTable) -> None:
        g = live.game
        assert g is not None and live.game_id is not None
        await repo.end_game(conn, live.game_id, "finished", g.winner, json.dumps(g.totals))
        results = game_results(live)
        await repo.save_results(conn, live.game_id, results)
        await repo.update_table(conn, live.table_id, status="finished")
        live.status = TableStatus.FINISHED
        live.due_at = None
        tr = self.reg.tr_group(live)
        await render.group_note(conn, live, game_over(tr, live), over_keyboard(tr, live))
        for seat, uid in live.humans():
            if seat not in live.blocked:
                ut = self.reg.tr_user(uid, live.lang)
                await enqueue_send(
                    conn, uid, private_result(ut, live, results[seat]), rematch_keyboard(ut, live)
                )
        for hook in self.finish_hooks:
            await hook(conn, live)

    async def schedule(self, conn: Conn, live: LiveTable) -> None:
        """The deadline of whoever must move now; none while the computer moves.
        A claim's vote keeps the deadline it runs to (someone coming back or
        stepping away does not give it a move's time anew); after a pause it
        gets a fresh one, as a move does."""
        if live.voting and live.due_at is not None and not live.paused:
            return
        await schedule_turn(self.ctx, conn, live)

    # ---------------------------------------------------------- deadlines
    async def on_deadline(self, d: repo.Deadline, now: float) -> None:
        """A reminder or a missed move, as the deadline loop found it due."""
        table_id = await repo.game_table(self.ctx.db, d.game_id)
        if table_id is None:
            async with self.ctx.db.tx() as conn:
                await repo.clear_deadline(conn, d.game_id)
            return
        async with self.reg.lock(table_id):
            live = await self.reg.get(table_id)
            current = await repo.get_deadline(self.ctx.db, d.game_id)
            if current is None or (current.seq, current.seat, current.due_at) != (
                d.seq,
                d.seat,
                d.due_at,
            ):
                return  # moved on meanwhile
            g = live.game if live else None
            if (
                live is None
                or g is None
                or live.game_id != d.game_id
                or live.status != "playing"
                or live.seq != d.seq
                or g.to_move != d.seat
            ):
                async with self.ctx.db.tx() as conn:
                    await repo.clear_deadline(conn, d.game_id)
                return
            if now < d.due_at:
                await self._remind(live, d)
            else:
                await self._timeout(live, d.seat)
        self.on_change()

    async def _remind(self, live: LiveTable, d: repo.Deadline) -> None:
        """Daily: a reminder line. Real time: a ping that goes when they move
        (none for people who asked for /quiet)."""
        sent = d.reminders + 1
        after = next_reminder(live.pace, d.due_at - live.pace, d.due_at, sent, self._ping_after)
        if live.voting:
            await self._remind_voters(live, d, sent, after)
            return
        uid = live.seats[d.seat]
        user = await repo.get_user(self.ctx.db, uid) if uid is not None else None
        async with self.ctx.db.tx() as conn:
            await repo.reminder_sent(conn, d.game_id, sent, after)
            if uid is not None and d.seat not in live.blocked:
                tr = self.reg.tr_user(uid, live.lang)
                left = duration(tr, d.due_at - self.ctx.clock.now())
                if is_daily(live.pace):
                    text = tr("reminder", group=esc(live.chat_title), left=left)
                    await enqueue_send(conn, uid, text)
                elif user is None or not user.quiet:
                    await pings.send(conn, self.reg, live, d.seat, left)
            await render.table_message(conn, self.reg, live)

    async def _remind_voters(
        self, live: LiveTable, d: repo.Deadline, sent: int, after: float | None
    ) -> None:
        """A claim's vote runs to this deadline: the voters who have not
        answered are reminded, not the claimer (who cannot move meanwhile);
        in real time only with a third of the time left (the early ping is
        for a mover, and the voters have just been asked)."""
        async with self.ctx.db.tx() as conn:
            await repo.reminder_sent(conn, d.game_id, sent, after)
        # Recorded first: a crash in between costs a reminder, never doubles one.
        if is_daily(live.pace) or after is None:
            await self.votes.remind(live, d.due_at - self.ctx.clock.now())

    async def _timeout(self, live: LiveTable, seat: int) -> None:
        """The club player makes this one move; three in a row hand it the seat."""
        g = live.game
        assert g is not None
        if live.voting:  # the vote's own deadline
            await self.votes.expire(live)
            self.kick(live.table_id)  # the claimer may have left the seat to the computer
            return
        action = await self._decide(g, seat, live.ai_level)
        missed = live.timeouts.get(seat, 0) + 1
        uid = live.seats[seat]

        async def notes(conn: Conn) -> None:
            tr = self.reg.tr_group(live)
            name = player_name(tr, live, seat)
            move = timeout_move(tr, action)
            live.timeouts[seat] = missed
            await repo.set_timeouts(conn, live.table_id, seat, missed)
            if missed >= 3 and uid is not None:
                live.away.add(seat)
                await repo.set_away(conn, live.table_id, seat, True)
                await render.group_note(conn, live, tr("timeout-away", name=name, move=move))
                ut = self.reg.tr_user(uid, live.lang)
                await enqueue_send(
                    conn,
                    uid,
                    ut("away-private", group=esc(live.chat_title)),
                    render.back_keyboard(ut, live),
                )
            else:
                await render.group_note(conn, live, tr("timeout-move", name=name, move=move))

        await self._commit(live, seat, action, None, notes)
        self.kick(live.table_id)

    async def seat_to_computer(self, live: LiveTable, seat: int) -> None:
        """After ``seat`` passed to the computer (/leave, /forget_me), under the
        table's lock: a claim's vote it had to answer ends, as a computer refuses."""
        await self.votes.voter_out(live, seat, COMPUTER)

    async def come_back(self, user_id: int, table_id: int | None = None) -> int:
        """``/back`` or the button: the player takes the seat back from the computer."""
        count = 0
        async for live, seat in self._my_playing_tables(user_id, table_id):
            if seat not in live.away:
                continue
            async with self.ctx.db.tx() as conn:
                live.away.discard(seat)
                live.timeouts.pop(seat, None)
                await repo.set_away(conn, live.table_id, seat, False)
                await repo.set_timeouts(conn, live.table_id, seat, 0)
                tr = self.reg.tr_group(live)
                await render.group_note(
                    conn, live, tr("back-note", name=player_name(tr, live, seat))
                )
                await self.schedule(conn, live)
                await render.table_message(conn, self.reg, live)
                await render.hands(conn, self.reg, live, only={seat}, fresh=True)
            count += 1
        self.on_change()
        return count

    # ---------------------------------------------------------- computer
    def kick(self, table_id: int) -> None:
        """Make sure the computer seats of this table get to move."""
        if self._stopped:
            return  # shutting down: the next start resumes every table
        task = self._runners.get(table_id)
        if task is None or task.done():
            self._runners[table_id] = asyncio.create_task(self._run(table_id))

    async def _run(self, table_id: int) -> None:
        delay = self.ctx.settings.ai_move_delay
        while True:
            live = self.reg.cached(table_id) or await self.reg.get(table_id)
            if not self._computer_to_move(live):
                return
            if delay > 0:
                await asyncio.sleep(delay)
            async with self.reg.lock(table_id):
                live = await self.reg.get(table_id)
                if not self._computer_to_move(live):
                    return
                assert live is not None and live.game is not None
                g = live.game
                seat = g.to_move
                try:
                    action = await self._decide(g, seat, live.ai_level)
                    await self._commit(live, seat, action, None)
                except Exception:
                    log.exception("computer move failed at table %s", table_id)
                    return

    async def _decide(self, g: Game, seat: int, table_level: str = "") -> int:
        """The club player's move for ``seat``, from that seat's view only, at
        the table's level (``''``: the bot's); off the event loop so that
        other tables keep moving while it thinks."""
        level = table_level if table_level in DEFAULT_BUDGET_MS else self.ctx.settings.ai_level
        decision_seed = (g.seed or 0) ^ (len(g.actions) * 0x9E3779B1)
        # Card exchanges are rule-based at every level: nothing to search.
        full = DEFAULT_BUDGET_MS[level] if g.phase != EXCHANGE else 0
        budget = self.thinkers.budget(full)
        if full > 0:
            self.decisions["full" if budget == full else "shared" if budget else "rules"] += 1
            if budget != full:
                self._warn_short_of_cores()
        if budget <= 0:  # no search here, or too many searches queued
            quick: str = RULE_PLAYER if full > 0 else level
            return await asyncio.to_thread(self.chooser, view(g, seat), quick, decision_seed)
        return await self.thinkers.run(self.chooser, view(g, seat), level, decision_seed, budget)

    def _warn_short_of_cores(self) -> None:
        """At most once an hour: searches are being cut short, AI_WORKERS is too low."""
        now = asyncio.get_running_loop().time()
        if self._warned_at is not None and now - self._warned_at < 3600:
            return
        self._warned_at = now
        log.warning(
            "the computer player is short of cores: %d searches queued for %d worker(s); so far %s",
            self.thinkers.searching,
            self.thinkers.workers,
            self._decisions_summary(),
        )

    def _decisions_summary(self) -> str:
        d = self.decisions
        return (
            f"{d['full']} with the full search, {d['shared']} with a shared budget,"
            f" {d['rules']} by the rule player (too many searches queued)"
        )

    async def think(self, fn: Callable[..., R], *args: Any) -> R:
        """``fn(*args)`` where the computer player thinks (its worker processes,
        else a thread), counted among its searches so a busy pool shares out
        its time: teaching's hints and reviews. ``fn`` and ``args`` must pickle."""
        return await self.thinkers.run(fn, *args)

    @staticmethod
    def _computer_to_move(live: LiveTable | None) -> bool:
        if live is None or live.status != "playing" or live.game is None or live.paused:
            return False
        g = live.game
        return (
            not g.finished
            and g.to_move >= 0
            and live.is_computer(g.to_move)
            and not live.voting  # a claimer who left the seat: the vote decides first
        )

    async def resume_all(self) -> None:
        """After a restart: bring every running table's messages up to date and
        let the computer seats continue."""
        if self._searches:
            self.thinkers.warm()
        for row in await repo.tables_with_status(self.ctx.db, "playing"):
            live = await self.reg.get(row.table_id)
            if live is None or live.game is None:
                continue
            async with self.ctx.db.tx() as conn:
                await render.table_message(conn, self.reg, live)
                await render.hands(conn, self.reg, live)
            self.kick(row.table_id)
        self.on_change()

    async def stop(self) -> None:
        if self.decisions:
            d = self.decisions
            # Searches cut short mean the machine was short of cores for its tables.
            level = logging.WARNING if d["shared"] or d["rules"] else logging.INFO
            log.log(level, "computer decisions: %s", self._decisions_summary())
        self._stopped = True
        await cancel_and_wait(self._runners.values())  # none is added now: _stopped
        self._runners.clear()
        self.thinkers.shutdown()


async def schedule_turn(ctx: Ctx, conn: Conn, live: LiveTable, left: float | None = None) -> None:
    """The deadline of whoever must move now, none while the computer moves:
    a move's time, or the ``left`` seconds the move still had (given back
    after a claim's vote), with only the reminders still ahead. While a
    claim is voted on it is the vote's deadline, whoever sits at the seat."""
    g = live.game
    assert g is not None and live.game_id is not None
    mover_waits = live.is_computer(g.to_move) and not live.voting
    if live.status != "playing" or g.finished or live.paused or mover_waits:
        await repo.clear_deadline(conn, live.game_id)
        live.due_at = None
        return
    now = ctx.clock.now()
    due = now + (live.pace if left is None else max(0.0, left))
    times = reminder_times(live.pace, due - live.pace, due, ctx.settings.turn_ping_after)
    sent = next((i for i, t in enumerate(times) if t > now), len(times))
    remind = times[sent] if sent < len(times) else None
    await repo.set_deadline(conn, live.game_id, len(g.actions), g.to_move, due, remind)
    if sent:
        await repo.reminder_sent(conn, live.game_id, sent, remind)
    live.due_at = due
