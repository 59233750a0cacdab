"""Hand records: a finished hand, trick by trick, in the asker's private chat.

A record shows every card of the hand, so only a finished hand has one
(``engine.record`` refuses any other), and it goes to a private chat only:
to the group's members (the button sits under the group's result) or the
table's players. A press and its message are one transaction, noted in
``record_requests``: a double tap, or the press handled again after a
restart, finds it sent and sends nothing more.
"""

from __future__ import annotations

from bot.model import LiveTable, Place
from bot.outbox import enqueue_send
from bot.services.errors import UserError
from bot.services.live import Registry
from bot.storage import repo_record, repo_users
from bot.views.record import record_app_button, record_text
from engine import EngineError
from engine.record import HandRecord, hand_record, hands_finished

#: Seconds in which the same record is not sent to the same person again.
AGAIN_AFTER = 60.0
#: More digits than any game has hands: anything longer is not a hand number.
MAX_DIGITS = 4


class RecordService:
    def __init__(self, reg: Registry) -> None:
        self.reg = reg
        self.ctx = reg.ctx

    async def button(
        self, table_id: int, hand: int, user_id: int, chat_id: int, locale: str
    ) -> str:
        """The «📜» under a hand's result: the toast's key. Pressed in the
        table's own group (or by one of its players); the hand must be over."""
        live = await self.reg.get(table_id)
        if live is None or live.game is None:
            raise UserError("err-stale")
        if chat_id != live.chat_id and live.seat_of(user_id) is None:
            raise UserError("err-stale")
        return await self._send(live, hand - 1, user_id, locale)

    async def command(self, where: Place, arg: str | None, user_id: int, locale: str) -> str:
        """``/hand N`` in a group: hand N of its topic's running game, else of
        its last one (finished or cancelled); the reply's key."""
        text = (arg or "").strip()
        if not (text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS):
            raise UserError("record-usage")
        table_id = await repo_record.game_table_in(self.ctx.db, where.chat_id, where.thread_id)
        live = await self.reg.get(table_id) if table_id is not None else None
        if live is None or live.game is None:
            raise UserError("lookup-no-table")
        hand, done = int(text), hands_finished(live.game)
        if 1 <= hand <= done:
            return await self._send(live, hand - 1, user_id, locale)
        if hand == done + 1 and live.status == "playing":  # a cancelled one never ends
            raise UserError("record-not-finished")
        if done == 0:
            raise UserError("record-none-yet")
        raise UserError("record-out-of-range", count=done)

    def record(self, live: LiveTable, hand_no: int) -> HandRecord:
        """The record of a finished hand of the table's game (0-based); a hand
        in play, or none such, is refused."""
        g = live.game
        if g is None:
            raise UserError("err-stale")
        try:
            return hand_record(g, hand_no)
        except EngineError:
            in_play = hand_no == g.hand_no and not g.finished
            raise UserError("record-not-finished" if in_play else "err-stale") from None

    async def _send(self, live: LiveTable, hand_no: int, user_id: int, locale: str) -> str:
        rec = self.record(live, hand_no)
        user = await repo_users.get_user(self.ctx.db, user_id)
        if user is None or not user.started or user.blocked:
            raise UserError("lookup-start-first", bot=self.ctx.bot_username)
        tr = self.reg.tr_user(user_id, locale)
        text = record_text(tr, live, rec)
        markup = record_app_button(tr, self.ctx.settings.webapp_url, live.table_id, hand_no)
        now = self.ctx.clock.now()
        async with self.ctx.db.tx() as conn:
            last = await repo_record.sent_at(conn, user_id, live.table_id, hand_no)
            if last is not None and 0 <= now - last < AGAIN_AFTER:
                raise UserError("record-sent-already")
            await repo_record.mark_sent(conn, user_id, live.table_id, hand_no, now)
            await enqueue_send(conn, user_id, text, markup)
        self.ctx.outbox.wake()
        return "record-sent"
