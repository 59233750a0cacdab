"""Search rate: the master's simulated card plays per millisecond of CPU.

Plays whole games (the master on seats 0 and 2, the plain baseline on 1 and
3) and, for every master decision, counts the card plays of its rollouts
against the deciding thread's CPU time; prints the decision CPU time
p50/p95/max (all decisions, then by phase) and the plays per CPU-ms. Use it to
calibrate ``search.PLAYS_PER_MS`` so that a decision takes about its budget.

     python -m bench.search_rate --games 3 [--budget-ms 120] [--set search.PLAYS_PER_MS=380]
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from bench.stats import percentile
from bench.tuning import apply_sets
from engine.ai import plain as plain_player
from engine.ai import player, rollout, search
from engine.ai.clock import thread_cpu
from engine.game import Game
from engine.rules import Rules
from engine.view import view


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.search_rate", description=__doc__)
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--seed", type=int, default=900)
    ap.add_argument("--budget-ms", type=int, default=None)
    ap.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE")
    args = ap.parse_args()
    apply_sets(args.set)
    plays = [0]
    play_out = rollout.play_out

    def counted(g: Game) -> list[int]:
        plays[0] += sum(h.bit_count() for h in g.hands)
        return play_out(g)

    # The search calls the name it imported from rollout: count there.
    vars(search)["play_out"] = counted
    cpu: dict[str, list[float]] = defaultdict(list)
    done: dict[str, int] = defaultdict(int)
    for i in range(args.games):
        g = Game(Rules(), args.seed + i)
        while not g.finished and len(g.sheet) < 40:
            seat = g.to_move
            v = view(g, seat)
            if seat % 2:
                a = plain_player.choose(v, seat)
            else:
                plays[0] = 0
                c = thread_cpu()
                a = player.choose_action(v, "master", seat, args.budget_ms)
                ms = (thread_cpu() - c) * 1000
                cpu["all"].append(ms)
                if plays[0]:
                    cpu[str(v.phase)].append(ms)
                    done[str(v.phase)] += plays[0]
            g.apply_action(a, seat)
    print(f"PLAYS_PER_MS {search.PLAYS_PER_MS}, MAX_WORLDS {search.MAX_WORLDS}, {args.games} games")
    print("decision CPU (ms)        n      p50      p95      max   rollout plays/ms")
    for key, times in cpu.items():
        rate = f"{done[key] / max(1e-9, sum(times)):>10.0f}" if key in done else ""
        print(
            f"  {key:<16}{len(times):>7}{percentile(times, 0.5):>9.1f}"
            f"{percentile(times, 0.95):>9.1f}{max(times):>9.1f}{rate}"
        )


if __name__ == "__main__":
    main()
