"""Random legal hands per CPU-second, this engine beside OpenSpiel's spades.

Run from the checkout's root (it measures that checkout's engine):
    python -m bench.engine_speed [--seconds 5] [--rounds 5]

The same work on each side: deal, four random legal bids, 52 random legal
plays, score. Three figures:

* the fast path: legal moves as a bitmask (``legal_play_mask``) and
  ``play_unchecked``, the way the computer player's search uses the engine;
* the public path: ``legal_actions()`` lists and validated ``apply_action``;
* OpenSpiel (``pyspiel``, game ``"spades"``): ``legal_actions()`` and
  ``apply_action`` through its Python binding, the deal as 52 chance moves.

CPU time, not wall time, so other work on the machine weighs less: each
round's CPU time is read once (``getrusage``; on virtual machines a CPU clock
can cost a millisecond a read, so the loops watch the wall clock). The sides
take turns in rounds, so a load that comes and goes falls on both. The
ratio printed is fast path / OpenSpiel. OpenSpiel is an optional extra:
``pip install -e '.[bench]'`` (or ``pip install open-spiel``).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from engine.ai.clock import thread_cpu
from engine.game import BID, PLAY, Game
from engine.rules import CLASSIC

Runner = Callable[[float, random.Random], int]
INSTALL_HINT = "pip install -e '.[bench]'  (or: pip install open-spiel)"


def fast_hands(seconds: float, rng: random.Random) -> int:
    """Hands played on the fast path for about ``seconds``."""
    rand = rng.getrandbits
    hands = 0
    deadline = time.perf_counter() + seconds
    g = Game(CLASSIC, rng.getrandbits(32))
    while True:
        for _ in range(4):
            legal = g.allowed_bids(g.to_move)
            g.apply_action(BID + legal[rand(16) % len(legal)])
        while g.phase == PLAY:
            m = g.legal_play_mask()
            k = rand(16) % m.bit_count()  # the k-th card of the mask
            while k:
                m &= m - 1
                k -= 1
            g.play_unchecked((m & -m).bit_length() - 1)
        hands += 1
        if g.finished:
            g = Game(CLASSIC, rng.getrandbits(32))
        if hands % 32 == 0 and time.perf_counter() >= deadline:
            return hands


def public_hands(seconds: float, rng: random.Random) -> int:
    """Hands played through the validated public API."""
    hands = 0
    deadline = time.perf_counter() + seconds
    g = Game(CLASSIC, rng.getrandbits(32))
    while True:
        hand_no = g.hand_no
        while not g.finished and g.hand_no == hand_no:
            g.apply_action(rng.choice(g.legal_actions()))
        hands += 1
        if g.finished:
            g = Game(CLASSIC, rng.getrandbits(32))
        if hands % 32 == 0 and time.perf_counter() >= deadline:
            return hands


def openspiel_runner() -> Runner | None:
    """OpenSpiel's spades, or ``None`` when pyspiel is not installed."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game: Any = pyspiel.load_game("spades")

    def run(seconds: float, rng: random.Random) -> int:
        choice = rng.choice
        hands = 0
        deadline = time.perf_counter() + seconds
        while True:
            s = game.new_initial_state()
            while s.is_chance_node():  # the deal: one chance move per card
                s.apply_action(choice(s.legal_actions()))
            while not s.is_terminal():  # four bids, 52 plays
                s.apply_action(choice(s.legal_actions()))
            s.returns()
            hands += 1
            if hands % 32 == 0 and time.perf_counter() >= deadline:
                return hands

    return run


def measure(runners: dict[str, Runner], seconds: float, rounds: int) -> dict[str, float]:
    """Hands per CPU-second of each runner, the runners taking turns."""
    done = dict.fromkeys(runners, 0)
    spent = dict.fromkeys(runners, 0.0)
    rngs = {name: random.Random(i + 1) for i, name in enumerate(runners)}
    for _ in range(rounds):
        for name, run in runners.items():
            t = thread_cpu()
            done[name] += run(seconds / rounds, rngs[name])
            spent[name] += thread_cpu() - t
    return {name: done[name] / spent[name] for name in runners}


def main() -> None:
    ap = argparse.ArgumentParser(
        prog="python -m bench.engine_speed",
        description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per side")
    ap.add_argument("--rounds", type=int, default=5, help="turns the sides take")
    args = ap.parse_args()
    runners: dict[str, Runner] = {
        "fast path (bitmask legal moves)": fast_hands,
        "public API (legal_actions + apply_action)": public_hands,
    }
    spiel = openspiel_runner()
    if spiel is not None:
        runners["OpenSpiel spades (pyspiel)"] = spiel
    rates = measure(runners, args.seconds, max(1, args.rounds))
    for name, rate in rates.items():
        print(f"{name:<44}{rate:>10,.0f} random legal hands per CPU-second")
    if spiel is None:
        print(f"OpenSpiel is not installed, no comparison: {INSTALL_HINT}")
    else:
        fast = rates["fast path (bitmask legal moves)"]
        ratio = fast / rates["OpenSpiel spades (pyspiel)"]
        print(f"fast path / OpenSpiel: {ratio:.2f}x")
    print(f"rerun: python -m bench.engine_speed --seconds {args.seconds} --rounds {args.rounds}")


if __name__ == "__main__":
    main()
