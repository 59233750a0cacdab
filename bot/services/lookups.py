"""Quick answers that change nothing: the score, the rules."""

from __future__ import annotations

from functools import partial

from bot.services.live import Registry
from bot.views.common import preset_label
from bot.views.table import rules_lines, score_lines
from engine.rules import CLASSIC


class LookupService:
    def __init__(self, reg: Registry) -> None:
        self.reg = reg

    async def score_in_chat(self, chat_id: int, locale: str) -> str:
        tr = partial(self.reg.ctx.texts, locale)
        live = await self.reg.live_in_chat(chat_id)
        if live is None or live.game is None:
            return tr("score-no-game")
        g = live.game
        lines = [tr("score-title", target=str(live.rules.target), hands=len(g.sheet))]
        lines += score_lines(tr, live)
        return "\n".join(lines)

    async def rules_in_chat(self, chat_id: int, locale: str) -> str:
        tr = partial(self.reg.ctx.texts, locale)
        live = await self.reg.live_in_chat(chat_id)
        rules = live.rules if live is not None else CLASSIC
        lines = [tr("rules-title", rules=preset_label(tr, rules))]
        lines += rules_lines(tr, rules)
        lines.append("")
        lines.append(tr("rules-summary"))
        return "\n".join(lines)
