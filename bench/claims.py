"""How many positions the exact claim check needs: how NODE_LIMIT was chosen.

Run from the checkout's root:
    python -m bench.claims [--deals 200] [--seed 0]

Claims at the first lead of a full hand where the claimer's side was dealt
the eight top spades: claims worth checking, and the slowest to decide
(late claims, where people make them, take far fewer). Each is searched
without a limit; printed: the positions needed (median, 90th percentile,
most), the share decided within ``engine.claim.NODE_LIMIT``, and the
positions a CPU-second.
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
from engine.game import Game
from engine.rules import Rules


def strong_claim(rng: random.Random) -> Game:
    """A deal, bid, at the first lead: seat 0's side holds the eight top spades."""
    cards = deck(4)
    rng.shuffle(cards)
    spades = sorted((c for c in cards if c >= 39), reverse=True)
    rest = [c for c in cards if c < 39]
    strong, weak = spades[:8] + rest[:18], spades[8:] + rest[18:]
    rng.shuffle(strong)
    rng.shuffle(weak)
    g = Game(Rules(), None, 3)
    g.deal([sorted(h) for h in (strong[:13], weak[:13], strong[13:], weak[13:])])
    for _ in range(4):
        g.apply_action(g.legal_actions()[-1])
    return g


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.claims", description=__doc__.split("\n")[0])
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    rng = random.Random(args.seed)
    nodes: list[float] = []
    spent = 0.0
    for _ in range(args.deals):
        g = strong_claim(rng)
        t0 = time.process_time()
        nodes.append(check_claim(g, 0, 10**9).nodes)
        spent += time.process_time() - t0
    within = sum(n <= NODE_LIMIT for n in nodes) / len(nodes)
    print(f"command: python -m bench.claims {shlex.join(sys.argv[1:])}".rstrip())
    print(
        f"{args.deals} claims at the first lead: positions p50 {percentile(nodes, 0.5):,.0f},"
        f" p90 {percentile(nodes, 0.9):,.0f}, most {max(nodes):,.0f};"
        f" decided within NODE_LIMIT ({NODE_LIMIT:,}): {within:.0%};"
        f" {sum(nodes) / max(spent, 1e-9):,.0f} positions a CPU-second"
    )


if __name__ == "__main__":
    main()
