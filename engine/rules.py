"""The rule set: every option of docs/rules.md as one frozen value, plus the presets.

Option names and values are exactly those of docs/rules.md («Options»), because
the replay format, the agent protocol and the bot's stored tables use them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal, get_args

from engine.errors import EngineError

TARGETS = (500, 1000, 1500, 2000)
LOSING_FLOORS = (None, -200)
# The string options: their type lists the values (default first), so a
# comparison with a misspelt value is a type error.
FailedNil = Literal["ignored", "bags", "help_partner"]
BlindNil = Literal["off", "chicago", "club"]
BidSum = Literal["free", "club", "no_hell"]
FAILED_NIL: tuple[FailedNil, ...] = get_args(FailedNil)
BLIND_NIL: tuple[BlindNil, ...] = get_args(BlindNil)
BID_SUM: tuple[BidSum, ...] = get_args(BidSum)
PLAYER_COUNTS = (3, 4, 5, 6)
BOOL_OPTIONS = ("exact_bonus", "big_bid_bonus", "quicksand", "suicide", "bicycle", "bag_penalty")

# Big-bid bonus: +10 per trick bid and made beyond this many, by player count.
BIG_BID_THRESHOLD = {3: 10, 4: 8, 5: 7, 6: 6}


@dataclass(frozen=True, slots=True)
class Rules:
    players: int = 4
    target: int = 500
    losing_floor: int | None = None
    failed_nil: FailedNil = "ignored"
    blind_nil: BlindNil = "off"
    bid_sum: BidSum = "free"
    exact_bonus: bool = False
    big_bid_bonus: bool = False
    quicksand: bool = False
    suicide: bool = False
    bicycle: bool = False
    bag_penalty: bool = True

    @property
    def partnership(self) -> bool:
        return self.players == 4

    def validate(self) -> Rules:
        """Refuse values outside docs/rules.md and combinations the rules do not
        define (reading 12)."""

        def bad(msg: str) -> EngineError:
            return EngineError("bad_rules", msg)

        if self.players not in PLAYER_COUNTS:
            raise bad(f"players must be one of {PLAYER_COUNTS}")
        if self.target not in TARGETS:
            raise bad(f"target must be one of {TARGETS}")
        if self.losing_floor not in LOSING_FLOORS:
            raise bad("losing_floor must be null or -200")
        if self.failed_nil not in FAILED_NIL:
            raise bad(f"failed_nil must be one of {FAILED_NIL}")
        if self.blind_nil not in BLIND_NIL:
            raise bad(f"blind_nil must be one of {BLIND_NIL}")
        if self.bid_sum not in BID_SUM:
            raise bad(f"bid_sum must be one of {BID_SUM}")
        for name in BOOL_OPTIONS:
            if not isinstance(getattr(self, name), bool):
                raise bad(f"{name} must be true or false")
        if self.suicide and self.players != 4:
            raise bad("suicide needs 4 players in partnerships")
        if self.blind_nil == "club" and self.players != 4:
            raise bad("club blind nil needs 4 players in partnerships")
        if self.bicycle and self.blind_nil != "off":
            raise bad("bicycle has no nil of any kind: blind_nil must be off")
        if self.bicycle and self.suicide:
            raise bad("bicycle has no nil, suicide needs one")
        if self.bicycle and self.quicksand:
            raise bad("bicycle and quicksand score failed contracts differently")
        if self.bicycle and self.bid_sum == "club":
            raise bad("bicycle cannot be combined with the club sum cap")
        if self.suicide and self.bid_sum == "no_hell":
            raise bad("suicide cannot be combined with no_hell")
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, value: Any, players: int | None = None) -> Rules:
        """Build from ``"classic"``, ``"club"`` or ``{"preset": ..., option: value}``."""
        if value is None:
            value = "classic"
        if isinstance(value, str):
            value = {"preset": value}
        if not isinstance(value, dict):
            raise EngineError("bad_rules", "rules must be a preset name or an object")
        opts = dict(value)
        preset_name = opts.pop("preset", "classic")
        if not isinstance(preset_name, str) or preset_name not in PRESETS:
            raise EngineError("bad_rules", f"unknown preset {preset_name!r}")
        base = PRESETS[preset_name]
        known = {f.name for f in fields(cls)}
        unknown = set(opts) - known
        if unknown:
            raise EngineError("bad_rules", f"unknown option(s): {', '.join(sorted(unknown))}")
        if players is not None:
            if "players" in opts and opts["players"] != players:
                raise EngineError("bad_rules", "players given twice with different values")
            opts["players"] = players
        for name in ("players", "target", "losing_floor"):
            v = opts.get(name)
            if name in opts and (isinstance(v, bool) or (v is not None and not isinstance(v, int))):
                raise EngineError("bad_rules", f"{name} must be a number")
        return replace(base, **opts).validate()

    def diff_from_preset(self, with_players: bool = True) -> dict[str, Any]:
        """Shortest JSON form: the closest preset plus the options that differ
        (``players`` left out when the caller writes it beside the rules)."""
        best: dict[str, Any] | None = None
        for name, preset in PRESETS.items():
            d = {"preset": name}
            for f in fields(self):
                if f.name == "players" and not with_players:
                    continue
                if getattr(self, f.name) != getattr(preset, f.name):
                    d[f.name] = getattr(self, f.name)
            if best is None or len(d) < len(best):
                best = d
        assert best is not None
        return best


CLASSIC = Rules()
CLUB = Rules(losing_floor=-200, blind_nil="club", bid_sum="club")
PRESETS: dict[str, Rules] = {"classic": CLASSIC, "club": CLUB}
