"""Claiming the rest of a hand («Остальные мои»).

On their turn a player claims every remaining trick (their side's, or their
own when the side has a nil). The engine's exact check decides on what the
claimer can see (``engine.claim``: never on the hidden cards, so its answer
tells nobody anything): proved, the hand ends at once as if played out. Not proved, the other
side's people vote in private; a computer among them refuses, and so does one
refusal, a voter the bot cannot write to, or the vote's deadline, and play
goes on. Meanwhile no card is played.

What the claim shows: the claimer's cards go to the group only when the
claim ends the hand (proved, or accepted). While the other side votes they
go only to the voters, in their private questions: the group's claim
message names the voters without the cards, so the claimer's partner never
sees the hand (two claims a hand would otherwise be a legal way to show it).
Once play goes on that message says so, and each voter's question becomes a
closed line without cards or buttons; a claim refused at once (a computer,
or a voter the bot cannot write to among the other side) shows no cards.

The vote has its own deadline, a move's time from the claim; the claimer's
time left on the move is kept with the claim and given back when play goes on.

Everything is one transaction with its messages, like a move: the claim row
(its key is the move number, so a double press loses), its votes, and the
CLAIM action when the claim is conceded. A vote open at a restart is read
back with the table (``Registry.get``), its deadline with the table's.

Wiring: :class:`ClaimVotes` (a vote's end without a press) needs only the
registry, so the deadlines and the absence services are built with it and
call it when the vote's deadline comes or a voter's answer can no longer
come (unreachable, or their seat passed to the computer);
:class:`ClaimService` (the presses) is built after them. What a claim shows
is said as events (``bot.views.outcome``), rendered by ``bot.views.claim``.
"""

from __future__ import annotations

from bot.model import CLAIMS_PER_HAND, LiveTable, VoterOut
from bot.services.errors import UserError
from bot.services.live import Registry, undone_on_failure
from bot.services.moves import schedule_turn
from bot.services.play import PlayService
from bot.services.render import publish
from bot.storage import repo_claims, repo_moves, repo_users
from bot.storage.db import Conn
from bot.storage.repo_claims import ACCEPTED, EXPIRED, PROVED, REFUSED, VOTE, ClaimRow
from bot.views.outcome import (
    Change,
    Claim,
    ClaimAccepted,
    ClaimClosed,
    ClaimProved,
    ClaimPut,
    ClaimRefused,
    Event,
    Hands,
    Question,
    VotersReminded,
    VoteTaken,
)
from engine import CLAIM, view
from engine.claim import check_claim, takers, tricks_left
from engine.scoring import side_of


def vote_key(row: ClaimRow, voter: int) -> str:
    """The private question of a claim to ``voter``."""
    return f"claim:{row.game_id}:{row.hand_no}:{row.seat}:{row.n}:{voter}"


def note_key(row: ClaimRow) -> str:
    """The group's message of a claim put to the vote (without the cards)."""
    return f"claimnote:{row.game_id}:{row.hand_no}:{row.seat}:{row.n}"


def opponents(live: LiveTable, seat: int) -> list[int]:
    """Who decides an unproved claim: the other side (in an individual game,
    everybody else)."""
    n = live.players
    mine = side_of(n, seat)
    return [s for s in range(n) if side_of(n, s) != mine]


def _claim(live: LiveTable, seat: int, cards: tuple[int, ...] | None = None) -> Claim:
    """The claim of ``seat`` as it is told now (``cards``: where they may be shown)."""
    assert live.game is not None
    side = len(takers(live.game, seat)) > 1
    return Claim(seat, tricks_left(live.game), side, cards)


def _questions(row: ClaimRow) -> tuple[Question, ...]:
    return tuple((s, vote_key(row, s)) for s in row.voters)


class ClaimVotes:
    """How a vote ends without anyone's press: its deadline passed, or a voter
    the bot cannot write to. Play goes on from the same move, the claimer's
    time given back. Called under the table's lock (by the play services, or
    by :class:`ClaimService`); the caller wakes the outbox."""

    def __init__(self, reg: Registry) -> None:
        self.reg = reg
        self.ctx = reg.ctx

    async def _open_row(self, live: LiveTable) -> ClaimRow | None:
        """The claim voted on at this very move, as the database holds it."""
        if live.game_id is None or not live.voting:
            return None
        row = await repo_claims.open_claim(self.ctx.db, live.game_id)
        return row if row is not None and row.seq == live.seq else None

    async def expire(self, live: LiveTable) -> None:
        """The vote's deadline came with the vote still open: refused."""
        if not live.voting:
            return
        row = await self._open_row(live)
        if row is None:
            # Nothing to close after all: the move gets its time anew rather
            # than the deadline coming round again and again.
            with undone_on_failure(live):
                async with self.ctx.db.tx() as conn:
                    live.claim_vote = None
                    await schedule_turn(self.ctx, conn, live)
            return
        await self.close(live, row, EXPIRED, None)

    async def voter_out(self, live: LiveTable, seat: int, why: VoterOut) -> None:
        """A voter whose answer can no longer come: Telegram refused the bot
        their private chat (``unreachable``), or their seat passed to the
        computer, which refuses (``computer``: /leave, /forget_me). A refusal,
        unless they have accepted already."""
        row = await self._open_row(live)
        if row is not None and seat in row.voters and seat not in row.accepted:
            await self.close(live, row, REFUSED, seat, why=why)

    async def remind(self, live: LiveTable, left: float) -> None:
        """Before the vote's deadline: each voter who has not answered is
        reminded, ``left`` seconds before it (the bot writes to them anyway)."""
        row = await self._open_row(live)
        if row is None:
            return
        seats = tuple(
            s
            for s in row.voters
            if live.seats[s] is not None and s not in row.accepted and s not in live.blocked
        )
        async with self.ctx.db.tx() as conn:
            await publish(conn, self.reg, live, Change((VotersReminded(seats, left),)))

    async def close(
        self,
        live: LiveTable,
        row: ClaimRow,
        status: str,
        by: int | None,
        *,
        why: VoterOut | None = None,
    ) -> None:
        """Refused (by ``by``, or for them: ``why``) or expired: play goes on
        from the same move, and what the claim showed is shown no more."""
        assert live.game is not None
        with undone_on_failure(live):
            async with self.ctx.db.tx() as conn:
                await repo_claims.set_status(conn, row, status)
                live.claim_vote = None
                closed = ClaimClosed(
                    _claim(live, row.seat), note_key(row), _questions(row), by, why
                )
                await schedule_turn(self.ctx, conn, live, row.time_left)
                hands = Hands(only=frozenset({row.seat}))
                await publish(conn, self.reg, live, Change((closed,), table=True, hands=hands))


class ClaimService:
    """The presses: a claim, and each vote on it."""

    def __init__(self, reg: Registry, play: PlayService, votes: ClaimVotes) -> None:
        self.reg = reg
        self.ctx = reg.ctx
        self.play = play
        self.votes = votes

    async def _unreachable(self, live: LiveTable, voters: list[int]) -> int | None:
        """The first voter the bot cannot write to (blocked, or never started
        in private), if any: their answer could never come."""
        uids = [uid for s in voters if (uid := live.seats[s]) is not None]
        users = await repo_users.get_users(self.ctx.db, uids)
        for s in voters:
            uid = live.seats[s]
            if uid is None or live.is_computer(s):
                continue
            user = users.get(uid)
            if s in live.blocked or user is None or not user.started or user.blocked:
                return s
        return None

    # ------------------------------------------------------------ claim
    async def claim(self, table_id: int, user_id: int, seq: int, n: int) -> None:
        async with self.reg.lock(table_id):
            live = await self.play.playing(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("err-not-at-table")
            why = live.claim_refusal(seat, seq)
            if why is not None:
                raise UserError(why, limit=CLAIMS_PER_HAND)
            g = live.game
            assert g is not None and live.game_id is not None
            hand_no = g.hand_no
            made = live.claims_made(seat)
            if n != made + 1:
                raise UserError("err-stale")  # a press of a claim already decided
            game_id = live.game_id
            # The claimer's time left on the move, counted at the press: the
            # check below is the bot's time, not theirs.
            deadline = await repo_moves.get_deadline(self.ctx.db, game_id)
            pressed = self.ctx.clock.now()
            time_left = (
                max(0.0, deadline.due_at - pressed)
                if deadline is not None and deadline.seq == seq
                else None
            )
            # Where the computer thinks: a hard claim is a search of its own.
            check = await self.play.think(check_claim, g, seat)
            cards = view(g, seat).hand
            voters = opponents(live, seat)
            row = ClaimRow(game_id, hand_no, seat, made + 1, seq, voters, VOTE, set(), time_left)

            if check.holds:

                async def proved(conn: Conn) -> None:
                    row.status = PROVED
                    await repo_claims.add(conn, row)
                    live.claims[(hand_no, seat)] = row.n

                told = (ClaimProved(_claim(live, seat, cards)),)
                await self.play.commit(
                    live, seat, CLAIM, user_id, extra=proved, events=told, conceded=True
                )
                self.play.kick(table_id)
                return

            computer = any(live.is_computer(s) for s in voters)
            cannot = None if computer else await self._unreachable(live, voters)
            with undone_on_failure(live, duplicate="err-stale"):
                async with self.ctx.db.tx() as conn:
                    live.claims[(hand_no, seat)] = row.n
                    bare = _claim(live, seat)
                    event: Event
                    if computer or cannot is not None:
                        # Refused at once: the claim never stands, its cards
                        # are not shown; the move's own time runs on.
                        row.status = REFUSED
                        await repo_claims.add(conn, row)
                        event = ClaimRefused(bare, cannot)
                    else:
                        await repo_claims.add(conn, row)
                        live.claim_vote = seq
                        # The vote's own deadline: a move's time from now.
                        await schedule_turn(self.ctx, conn, live)
                        # The group is told who decides, not the cards: the
                        # claimer's partner reads the group too.
                        event = ClaimPut(bare, note_key(row), cards, seq, row.n, _questions(row))
                    # The table shows the vote; a claim refused at once changes nothing there.
                    table = isinstance(event, ClaimPut)
                    hands = Hands(only=frozenset({seat}))
                    await publish(conn, self.reg, live, Change((event,), table=table, hands=hands))
        self.play.on_change()

    # ------------------------------------------------------------- vote
    async def vote(self, table_id: int, user_id: int, seq: int, n: int, yes: bool) -> None:
        async with self.reg.lock(table_id):
            live = await self.play.playing(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("err-not-at-table")
            if not live.voting or seq != live.seq or live.game_id is None:
                raise UserError("err-stale")
            row = await repo_claims.open_claim(self.ctx.db, live.game_id)
            if row is None or (row.seq, row.n) != (seq, n):
                raise UserError("err-stale")
            if seat not in row.voters:
                raise UserError("err-claim-not-voter")
            if seat in row.accepted:
                raise UserError("err-claim-voted")
            if not yes:
                await self.votes.close(live, row, REFUSED, seat)
            elif row.accepted | {seat} >= set(row.voters):
                await self._concede(live, row, seat)
            else:
                with undone_on_failure(live, duplicate="err-claim-voted"):
                    async with self.ctx.db.tx() as conn:
                        await repo_claims.add_vote(conn, row, seat)
                        taken = VoteTaken((seat, vote_key(row, seat)))
                        await publish(conn, self.reg, live, Change((taken,)))
        self.play.kick(table_id)  # a claimer who left the seat: the computer moves now
        self.play.on_change()

    async def _concede(self, live: LiveTable, row: ClaimRow, seat: int) -> None:
        """The last acceptance: the hand ends as if played out, and now the
        group sees the claimer's cards, as for a proved claim."""
        assert live.game is not None
        cards = view(live.game, row.seat).hand
        told = (ClaimAccepted(_claim(live, row.seat, cards), _questions(row)),)

        async def accepted(conn: Conn) -> None:
            await repo_claims.add_vote(conn, row, seat)
            await repo_claims.set_status(conn, row, ACCEPTED)
            live.claim_vote = None

        await self.play.commit(
            live, row.seat, CLAIM, live.seats[row.seat], extra=accepted, events=told, conceded=True
        )
