"""Claiming the rest of a hand («Остальные мои»).

On their turn a player claims every remaining trick (their side's, or their
own when the side has a nil). The engine's exact check decides with all four
hands: proved, the hand ends at once as if played out. Not proved, the other
side's people vote in private; a computer among them refuses, and so does one
refusal or the move's deadline, and play goes on. Meanwhile no card is played.

Everything is one transaction with its messages, like a move: the claim row
(its key is the move number, so a double press loses), its votes, and the
CLAIM action when the claim is conceded. A vote open at a restart is read
back with the table (``Registry.get``) and its deadline is the move's own.
"""

from __future__ import annotations

import sqlite3

from bot.model import CLAIMS_PER_HAND, LiveTable
from bot.outbox import enqueue_put, enqueue_send
from bot.services import render
from bot.services.errors import UserError, paused_error
from bot.services.live import Registry
from bot.services.play import PlayService
from bot.storage import repo_claims
from bot.storage.db import Conn
from bot.storage.repo_claims import ACCEPTED, EXPIRED, PROVED, REFUSED, VOTE, ClaimRow
from bot.views.claim import (
    ask,
    ask_accepted,
    ask_closed,
    claim_note,
    proved_note,
    voters_note,
)
from bot.views.common import player_name
from engine import CLAIM, view
from engine.claim import check_claim, claim_possible, takers, tricks_left
from engine.scoring import side_of


def vote_key(row: ClaimRow, voter: int) -> str:
    """The private question of a claim to ``voter``."""
    return f"claim:{row.game_id}:{row.hand_no}:{row.seat}:{row.n}:{voter}"


def opponents(live: LiveTable, seat: int) -> list[int]:
    """Who decides an unproved claim: the other side (in an individual game,
    everybody else)."""
    n = live.players
    mine = side_of(n, seat)
    return [s for s in range(n) if side_of(n, s) != mine]


def voting(live: LiveTable) -> bool:
    """A claim is being voted on: it holds the very move it was made at."""
    return live.claim_vote is not None and live.claim_vote == live.seq


class ClaimService:
    def __init__(self, reg: Registry, play: PlayService) -> None:
        self.reg = reg
        self.ctx = reg.ctx
        self.play = play
        play.claim_timeout = self.expire

    async def _playing(self, table_id: int) -> LiveTable:
        live = await self.reg.get(table_id)
        if live is None or live.status != "playing" or live.game is None:
            raise UserError("err-stale")
        if live.game.finished:
            raise UserError("err-game_over")
        if live.paused:
            raise paused_error(live)
        return live

    # ------------------------------------------------------------ claim
    async def claim(self, table_id: int, user_id: int, seq: int, n: int) -> None:
        async with self.reg.lock(table_id):
            live = await self._playing(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("err-not-at-table")
            if voting(live):
                raise UserError("err-claim-voting")
            if seq != live.seq:
                raise UserError("err-stale")
            g = live.game
            assert g is not None and live.game_id is not None
            if g.to_move != seat:
                raise UserError("err-not_your_turn")
            if not claim_possible(g, seat) or live.is_computer(seat):
                raise UserError("err-claim-not-now")
            hand_no = g.hand_no
            made = live.claims.get((hand_no, seat), 0)
            if made >= CLAIMS_PER_HAND:
                raise UserError("err-claim-limit", limit=CLAIMS_PER_HAND)
            if n != made + 1:
                raise UserError("err-stale")  # a press of a claim already decided
            # Where the computer thinks: a hard claim is a search of its own.
            check = await self.play.think(check_claim, g, seat)
            cards = view(g, seat).hand
            left = tricks_left(g)
            side = len(takers(g, seat)) > 1
            tr = self.reg.tr_group(live)
            note = claim_note(tr, live, seat, cards, left, side)
            game_id = live.game_id

            voters = opponents(live, seat)
            row = ClaimRow(game_id, hand_no, seat, made + 1, seq, voters, VOTE, set())

            if check.holds:

                async def proved(conn: Conn) -> None:
                    row.status = PROVED
                    await repo_claims.add(conn, row)
                    live.claims[(hand_no, seat)] = row.n
                    await render.group_note(
                        conn, live, f"{note}\n{proved_note(tr, live, seat, side)}"
                    )

                await self.play.commit(live, seat, CLAIM, user_id, proved)
                return

            saved = live.snapshot()
            try:
                async with self.ctx.db.tx() as conn:
                    live.claims[(hand_no, seat)] = row.n
                    if any(live.is_computer(s) for s in voters):
                        row.status = REFUSED
                        await repo_claims.add(conn, row)
                        text = f"{note}\n{tr('claim-computer-refuses')}"
                        await render.group_note(conn, live, text)
                    else:
                        await repo_claims.add(conn, row)
                        live.claim_vote = seq
                        text = f"{note}\n{voters_note(tr, live, voters)}"
                        await render.group_note(conn, live, text)
                        for s in voters:
                            uid = live.seats[s]
                            if uid is None or s in live.blocked:
                                continue
                            ut = self.reg.tr_user(uid, live.lang)
                            q, markup = ask(ut, live, seat, cards, left, seq, row.n)
                            await enqueue_send(conn, uid, q, markup, key=vote_key(row, s))
                    await render.hands(conn, self.reg, live, only={seat})
            except BaseException as e:
                live.restore(saved)
                if isinstance(e, sqlite3.IntegrityError):
                    raise UserError("err-stale") from None
                raise
        self.play.on_change()

    # ------------------------------------------------------------- vote
    async def vote(self, table_id: int, user_id: int, seq: int, n: int, yes: bool) -> None:
        async with self.reg.lock(table_id):
            live = await self._playing(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("err-not-at-table")
            if not voting(live) or seq != live.seq or live.game_id is None:
                raise UserError("err-stale")
            row = await repo_claims.open_claim(self.ctx.db, live.game_id)
            if row is None or (row.seq, row.n) != (seq, n):
                raise UserError("err-stale")
            if seat not in row.voters:
                raise UserError("err-claim-not-voter")
            if seat in row.accepted:
                raise UserError("err-claim-voted")
            if not yes:
                await self._close(live, row, REFUSED, seat)
            elif row.accepted | {seat} >= set(row.voters):
                await self._concede(live, row, seat)
            else:
                saved = live.snapshot()
                try:
                    async with self.ctx.db.tx() as conn:
                        await repo_claims.add_vote(conn, row, seat)
                        ut = self.reg.tr_user(user_id, live.lang)
                        await enqueue_put(
                            conn, user_id, vote_key(row, seat), ask_accepted(ut, live)
                        )
                except BaseException as e:
                    live.restore(saved)
                    if isinstance(e, sqlite3.IntegrityError):
                        raise UserError("err-claim-voted") from None
                    raise
        self.play.on_change()

    async def expire(self, live: LiveTable) -> None:
        """The move's deadline came with the vote still open: refused. Called
        by the deadline loop under the table's lock; the claimer gets the
        move's time anew."""
        if live.game_id is None or not voting(live):
            return
        row = await repo_claims.open_claim(self.ctx.db, live.game_id)
        if row is None or row.seq != live.seq:
            # Nothing to close after all: the move gets its time anew rather
            # than the deadline coming round again and again.
            live.claim_vote = None
            async with self.ctx.db.tx() as conn:
                await self.play.schedule(conn, live)
            return
        await self._close(live, row, EXPIRED, None)

    async def _close_questions(self, conn: Conn, live: LiveTable, row: ClaimRow) -> None:
        """Each question, decided, without the claimer's cards or buttons."""
        for s in row.voters:
            uid = live.seats[s]
            if uid is None or s in live.blocked:
                continue
            ut = self.reg.tr_user(uid, live.lang)
            await enqueue_put(conn, uid, vote_key(row, s), ask_closed(ut, live))

    async def _close(self, live: LiveTable, row: ClaimRow, status: str, by: int | None) -> None:
        """Refused (by ``by``) or expired: play goes on from the same move."""
        tr = self.reg.tr_group(live)
        saved = live.snapshot()
        try:
            async with self.ctx.db.tx() as conn:
                await repo_claims.set_status(conn, row, status)
                live.claim_vote = None
                if by is not None:
                    text = tr("claim-refused", name=player_name(tr, live, by))
                else:
                    text = tr("claim-expired")
                await render.group_note(conn, live, text)
                await self._close_questions(conn, live, row)
                if status == EXPIRED:
                    await self.play.schedule(conn, live)
                await render.table_message(conn, self.reg, live)
                await render.hands(conn, self.reg, live, only={row.seat})
        except BaseException:
            live.restore(saved)
            raise

    async def _concede(self, live: LiveTable, row: ClaimRow, seat: int) -> None:
        """The last acceptance: the hand ends as if played out."""
        tr = self.reg.tr_group(live)

        async def accepted(conn: Conn) -> None:
            await repo_claims.add_vote(conn, row, seat)
            await repo_claims.set_status(conn, row, ACCEPTED)
            live.claim_vote = None
            await render.group_note(conn, live, tr("claim-accepted"))
            await self._close_questions(conn, live, row)

        await self.play.commit(live, row.seat, CLAIM, live.seats[row.seat], accepted)
