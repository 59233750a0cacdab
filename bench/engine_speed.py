"""Random legal hands per second on one core, legal moves generated at every step.

Run: python bench/engine_speed.py [--seconds 5]
Two figures: the fast path (legal moves as a bitmask, the way the computer
player's search uses the engine) and the public path (``legal_actions()``
lists and validated ``apply_action``), both playing complete hands with bids.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.game import BID, PLAY, Game  # noqa: E402
from engine.rules import CLASSIC  # noqa: E402


def fast_hands(seconds: float, seed: int = 1) -> tuple[int, float]:
    rng = random.Random(seed)
    rand = rng.getrandbits
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    g = Game(CLASSIC, seed)
    while True:
        # Bids: a random legal bid per seat.
        for _ in range(4):
            legal = g.allowed_bids(g.to_move)
            g.apply_action(BID + legal[rand(16) % len(legal)])
        while g.phase == PLAY:
            m = g.legal_play_mask()
            # Pick a random set bit: the k-th card of the mask.
            k = rand(16) % m.bit_count()
            while k:
                m &= m - 1
                k -= 1
            g.play_unchecked((m & -m).bit_length() - 1)
        hands += 1
        if g.finished or hands % 64 == 0:
            if time.perf_counter() >= deadline:
                break
            if g.finished:
                g = Game(CLASSIC, rng.getrandbits(32))
    return hands, time.perf_counter() - start


def public_hands(seconds: float, seed: int = 2) -> tuple[int, float]:
    rng = random.Random(seed)
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    g = Game(CLASSIC, seed)
    while True:
        hand_no = g.hand_no
        while not g.finished and g.hand_no == hand_no:
            g.apply_action(rng.choice(g.legal_actions()))
        hands += 1
        if hands % 64 == 0 and time.perf_counter() >= deadline:
            break
        if g.finished:
            g = Game(CLASSIC, rng.getrandbits(32))
    return hands, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    for name, fn in (
        ("fast path (bitmask legal moves)", fast_hands),
        ("public API (legal_actions + apply_action)", public_hands),
    ):
        n, dt = fn(args.seconds)
        print(f"{name}: {n / dt:,.0f} random legal hands/s ({n} hands in {dt:.2f} s, one core)")
    print("rerun: python bench/engine_speed.py --seconds", args.seconds)


if __name__ == "__main__":
    main()
