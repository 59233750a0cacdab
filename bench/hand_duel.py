"""Hand duel: one part of a player's game against another, on single hands.

Whole games (``bench/arena.py``) are the verdict but slow; this isolates one
skill for quick study. Every deal (with a score state drawn from the range
games pass through) is played four times: side A's bids (``--part bid``) or
cards (``--part play``) by X, then by Y, each with side A as either team.
Everything else is the ``--field`` player (default ``plain``: rule bids, a
plain search for cards). Reported: side A's hand points over the other
side's (bags charged −10 each, as ``pimc.hand_value``), X minus Y per deal
with a 95 % interval, contracts made, the mean bid.

     python -m bench.hand_duel master rules --part bid --deals 200
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from bench.arena import Player, interval
from bench.tuning import apply_sets
from engine.ai.pimc import hand_value
from engine.game import BIDDING, PLAY, Game
from engine.rules import Rules
from engine.view import view


def play_hand(
    seed: int, side_a: int, part: str, who: str, field: str, state: tuple[list[int], list[int]]
) -> dict[str, Any]:
    """One hand: side ``side_a``'s ``part`` by ``who``, all else by ``field``."""
    g = Game(Rules(), seed)
    g.totals, g.bags = list(state[0]), list(state[1])
    players = {name: Player(name, seed * 10 + 7, None) for name in {who, field}}
    while g.phase in (BIDDING, PLAY) or not g.sheet:
        seat = g.to_move
        if seat < 0:
            break
        mine = seat % 2 == side_a and (
            (part == "bid" and g.phase == BIDDING) or (part == "play" and g.phase == PLAY)
        )
        p = players[who if mine else field]
        if g.phase == PLAY and len(g.tricks) == g.hand_size - 1 and len(g.trick) == g.n - 1:
            tricks = list(g.tricks_won)
            before = g.copy()
            g.apply_action(p.act(g, view(g, seat)), seat)
            tricks = g.sheet[-1]["tricks"]
            bids = g.sheet[-1]["bids"]
            side = g.sheet[-1]["sides"][side_a]
            return {
                "value": hand_value(before, side_a, tricks),
                "made": side["contract"] and side["taken"] >= side["contract"],
                "contract": side["contract"],
                "nil": sum(bids[s] == 0 for s in (side_a, side_a + 2)),
            }
        g.apply_action(p.act(g, view(g, seat)), seat)
    raise RuntimeError("the hand did not end")


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.hand_duel", description=__doc__)
    ap.add_argument("x")
    ap.add_argument("y")
    ap.add_argument("--part", choices=("bid", "play"), default="bid")
    ap.add_argument("--field", default="plain")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--bags", default="", metavar="LO-HI", help="both sides' bags drawn from LO..HI"
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="MODULE.NAME=VALUE",
        help="try a constant of engine.ai (e.g. search.PRIOR_Z=2) for this run",
    )
    args = ap.parse_args()
    apply_sets(args.set)
    diffs: list[float] = []
    agg: dict[str, dict[str, float]] = {args.x: {}, args.y: {}}
    start = time.perf_counter()
    for i in range(args.deals):
        seed = args.seed + i
        rng = random.Random(seed)
        # A score state games pass through: mostly early, sometimes late or bagged.
        totals = [rng.choice((0, 0, rng.randrange(-150, 450, 10))) for _ in range(2)]
        bags = [rng.choice((0, rng.randrange(10))) for _ in range(2)]
        if args.bags:
            lo, _, hi = args.bags.partition("-")
            bags = [rng.randint(int(lo), int(hi)) for _ in range(2)]
        d = 0.0
        for side_a in (0, 1):
            for who, sign in ((args.x, 1), (args.y, -1)):
                r = play_hand(seed, side_a, args.part, who, args.field, (totals, bags))
                d += sign * r["value"] / 2
                a = agg[who]
                for k in ("value", "made", "contract", "nil"):
                    a[k] = a.get(k, 0.0) + float(r[k])
                a["hands"] = a.get("hands", 0.0) + 1
        diffs.append(d)
        if (i + 1) % 20 == 0:
            m, h = interval(diffs)
            print(
                f"… {i + 1} deals, {time.perf_counter() - start:.0f} s, {m:+.1f} ±{h:.1f}",
                file=sys.stderr,
            )
    m, h = interval(diffs)
    cmd = "python -m bench.hand_duel " + " ".join(sys.argv[1:])
    print(f"rerun: {cmd}")
    print(
        f"{args.x} over {args.y} ({args.part}), {args.deals} deals × 2 sides: "
        f"{m:+.1f} points a hand (95% CI {m - h:+.1f} … {m + h:+.1f})"
    )
    for who, a in agg.items():
        n = a["hands"]
        print(
            f"  {who:<8} contracts made {a['made'] / n:.1%}"
            f"  mean contract {a['contract'] / n:.2f}  nils {a['nil'] / n:.2f}"
        )


if __name__ == "__main__":
    main()
