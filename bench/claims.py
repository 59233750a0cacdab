"""How many positions the exact claim check needs: how NODE_LIMIT was chosen.

Run from the checkout's root:
    python -m bench.claims [--deals 200] [--seed 0]

Two kinds of claims, each searched without a limit. Claims at the first
lead of a full hand where the claimer was dealt the eight top spades:
claims worth checking, and the slowest to decide. And the claim of the
player to move in random positions of random games with 4, 6 and 8 tricks
left, where people claim. Printed for each: the positions needed (median,
90th percentile, most), how many were proved, the share decided within
``engine.claim.NODE_LIMIT``, and the positions a CPU-second.
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import time

from bench.stats import percentile
from engine.cards import deck
from engine.claim import NODE_LIMIT, check_claim
from engine.game import PLAY, Game
from engine.rules import Rules


def strong_claim(rng: random.Random) -> Game:
    """A deal, bid, at the first lead: seat 0 holds the eight top spades."""
    cards = deck(4)
    rng.shuffle(cards)
    spades = sorted((c for c in cards if c >= 39), reverse=True)
    rest = spades[8:] + [c for c in cards if c < 39]
    rng.shuffle(rest)
    hands = [spades[:8] + rest[:5], rest[5:18], rest[18:31], rest[31:]]
    g = Game(Rules(), None, 3)
    g.deal([sorted(h) for h in hands])
    for _ in range(4):
        g.apply_action(g.legal_actions()[-1])
    return g


def late_claim(rng: random.Random, left: int) -> Game:
    """A random game played at random until ``left`` tricks remain (and a
    random part of the next trick): the player to move claims."""
    g = Game(Rules(), rng.randrange(1 << 30))
    while g.phase is not PLAY:
        g.apply_action(rng.choice(g.legal_actions()))
    while g.hand_size - len(g.tricks) > left:
        g.apply_action(rng.choice(g.legal_actions()))
    for _ in range(rng.randrange(4)):
        g.apply_action(rng.choice(g.legal_actions()))
    return g


def measure(name: str, games: list[Game]) -> str:
    nodes: list[float] = []
    proved = 0
    spent = 0.0
    for g in games:
        t0 = time.process_time()
        got = check_claim(g, g.to_move, 10**9)
        spent += time.process_time() - t0
        nodes.append(got.nodes)
        proved += got.holds is True
    within = sum(n <= NODE_LIMIT for n in nodes) / len(nodes)
    return (
        f"{len(games)} {name}: positions p50 {percentile(nodes, 0.5):,.0f},"
        f" p90 {percentile(nodes, 0.9):,.0f}, most {max(nodes):,.0f}; proved {proved};"
        f" decided within NODE_LIMIT ({NODE_LIMIT:,}): {within:.0%};"
        f" {sum(nodes) / max(spent, 1e-9):,.0f} positions a CPU-second"
    )


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.claims", description=__doc__.split("\n")[0])
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    rng = random.Random(args.seed)
    print(f"command: python -m bench.claims {shlex.join(sys.argv[1:])}".rstrip())
    strong = [strong_claim(rng) for _ in range(args.deals)]
    print(measure("claims at the first lead, eight top spades", strong))
    for left in (4, 6, 8):
        games = [late_claim(rng, left) for _ in range(args.deals)]
        print(measure(f"claims with {left} tricks left", games))


if __name__ == "__main__":
    main()
