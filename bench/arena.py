"""Arena: teams of computer players on duplicate deals, with confidence intervals.

Every deal sequence (a game seed) is played twice with the teams swapped, so
the luck of the cards cancels. Players: ``random`` (any legal action),
``rules`` (the rule-based club player), ``novice``/``amateur``/``master``
(the levels of ``engine.ai``), and ``ext:COMMAND`` (any program speaking the
agent protocol of ``python -m engine agent``). A team is one player name or
two joined by ``/`` (``rules/master``: seat 0 or 1 rules, its partner master).

Run: python bench/arena.py master rules --games 200 --workers 2
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import shlex
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ai import LEVELS, choose_action  # noqa: E402
from engine.ai.knowledge import any_world  # noqa: E402
from engine.ai.policy import choose as rule_choose  # noqa: E402
from engine.ai.protocol import request_for  # noqa: E402
from engine.cards import parse_card  # noqa: E402
from engine.game import EXCHANGE, Game, action_from_json  # noqa: E402
from engine.rules import Rules  # noqa: E402
from engine.view import View, view  # noqa: E402


class Player:
    """One seat's decision maker; ``act`` gets the live game only to build requests."""

    def __init__(self, name: str, seed: int, budget_ms: int | None) -> None:
        self.name = name
        self.seed = seed
        self.budget_ms = budget_ms
        self.rng = random.Random(seed)
        self.proc: subprocess.Popen[str] | None = None
        self.pending: list[int] = []
        if name.startswith("ext:"):
            self.proc = subprocess.Popen(
                shlex.split(name[4:]),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
        elif name not in ("random", "rules", *LEVELS):
            raise SystemExit(f"unknown player {name!r}")

    def act(self, game: Game, v: View) -> int:
        if self.name == "random":
            return self.rng.choice(v.legal)
        if self.name == "rules":
            return rule_choose(any_world(v, self.seed), v.seat)
        if self.proc is None:
            return choose_action(v, self.name, self.seed, self.budget_ms)
        if self.pending:
            return self.pending.pop()
        req = request_for(game, v.seat)
        req["seed"] = self.seed
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(req) + "\n")
        ans = json.loads(self.proc.stdout.readline())
        if "action" not in ans:
            raise RuntimeError(f"{self.name}: {ans}")
        a = ans["action"]
        if game.phase == EXCHANGE:
            first, second = (parse_card(c) for c in a)
            self.pending = [second]
            return first
        return action_from_json(a, game.phase)

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=10)


def team_players(team: str) -> tuple[str, str]:
    if team.startswith("ext:"):
        return team, team  # a command line may hold slashes: no mixed teams
    a, _, b = team.partition("/")
    return a, b or a


def play_game(
    rules: Rules, seed: int, teams: tuple[str, str], budget_ms: int | None, max_hands: int = 60
) -> dict:
    """One game; team 0 sits at seats 0 and 2. Stats keyed by the team's label.

    A game cut at ``max_hands`` goes to the higher total (none on a tie)."""
    g = Game(rules, seed)
    names = []
    for seat in range(4):
        first, second = team_players(teams[seat % 2])
        names.append(first if seat < 2 else second)
    players = [Player(names[s], seed * 10 + s, budget_ms) for s in range(4)]
    times: dict[str, list[float]] = defaultdict(list)
    try:
        while not g.finished and len(g.sheet) < max_hands:
            seat = g.to_move
            v = view(g, seat)
            t = time.perf_counter()
            a = players[seat].act(g, v)
            times[names[seat]].append(time.perf_counter() - t)
            g.apply_action(a, seat)
    finally:
        for p in players:
            p.close()
    winner = g.winner
    if winner is None and g.totals[0] != g.totals[1]:
        winner = 0 if g.totals[0] > g.totals[1] else 1
    out: dict[str, Any] = {"teams": teams, "winner": winner, "hands": len(g.sheet)}
    side_stats = []
    for side in (0, 1):
        st = defaultdict(float)
        for line in g.sheet:
            sd = line["sides"][side]
            st["points"] += sd["score"]
            st["bags"] += sd["bags_new"]
            if sd["contract"]:
                st["contracts"] += 1
                st["made"] += sd["taken"] >= sd["contract"]
            for seat in (side, side + 2):
                partner = (seat + 2) % 4
                if line["bids"][seat] == 0:
                    key = f"nil_partner:{names[partner]}"
                    pair = f"nil_pair:{names[seat]}+{names[partner]}"
                    st[pair + ":bid"] += 1
                    st[pair + ":made"] += line["tricks"][seat] == 0
                    st[key + ":bid"] += 1
                    st[key + ":made"] += line["tricks"][seat] == 0
                    st["nils"] += 1
                    st["nils_made"] += line["tricks"][seat] == 0
                    st["blind"] += line["blind"][seat]
                    st["blind_made"] += line["blind"][seat] and line["tricks"][seat] == 0
        st["final"] = g.totals[side]
        side_stats.append(dict(st))
    out["sides"] = side_stats
    out["times"] = dict(times)
    return out


def play_pair(args: tuple[Rules, int, str, str, int | None, int]) -> list[dict]:
    rules, seed, x, y, budget, max_hands = args
    return [
        play_game(rules, seed, (x, y), budget, max_hands),
        play_game(rules, seed, (y, x), budget, max_hands),
    ]


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def report(results: list[list[dict]], x: str, y: str, cmd: str) -> str:
    agg: dict[str, dict[str, float]] = {x: defaultdict(float), y: defaultdict(float)}
    times: dict[str, list[float]] = defaultdict(list)
    pair_scores: list[float] = []
    for pair in results:
        score = 0.0
        for game in pair:
            for side in (0, 1):
                label = game["teams"][side]
                a = agg[label]
                a["games"] += 1
                a["won"] += game["winner"] == side
                a["hands"] += game["hands"]
                for k, val in game["sides"][side].items():
                    a[k] += val
            score += game["winner"] == game["teams"].index(x)
            for name, ts in game["times"].items():
                times[name] += ts
        pair_scores.append(score / 2)
    n = len(pair_scores)
    mean = sum(pair_scores) / n
    var = sum((s - mean) ** 2 for s in pair_scores) / max(1, n - 1)
    half = 1.96 * math.sqrt(var / n)
    lines = [f"rerun: {cmd}", ""]
    lines.append(
        f"{x} vs {y}: {2 * n} games on {n} duplicate deals; "
        f"{x} won {mean:.1%} (95% CI {mean - half:.1%} … {mean + half:.1%})"
    )
    lines.append("")
    hdr = f"{'team':<12}{'games':>6}{'won':>5}{'pts/hand':>9}{'contracts made':>16}"
    hdr += f"{'nils made':>10}{'broken':>7}{'blind made/bid':>15}{'bags':>6}{'/hand':>6}"
    lines.append(hdr)
    for label in (x, y):
        a = agg[label]
        made = f"{a['made']:.0f}/{a['contracts']:.0f} {a['made'] / max(1, a['contracts']):.0%}"
        lines.append(
            f"{label[:12]:<12}{a['games']:>6.0f}{a['won']:>5.0f}"
            f"{a['points'] / a['hands']:>9.1f}{made:>16}"
            f"{a['nils_made']:>10.0f}{a['nils'] - a['nils_made']:>7.0f}"
            f"{a['blind_made']:>11.0f}/{a['blind']:<3.0f}"
            f"{a['bags']:>6.0f}{a['bags'] / a['hands']:>6.2f}"
        )
    lines.append("")
    lines.append("nil success by the nil bidder's partner:")
    keys = sorted(
        {k.rsplit(":", 1)[0] for a in agg.values() for k in a if k.startswith("nil_partner:")}
    )
    for k in keys:
        bid = sum(a.get(k + ":bid", 0) for a in agg.values())
        made = sum(a.get(k + ":made", 0) for a in agg.values())
        lines.append(
            f"  partner {k.split(':', 1)[1]:<14} {made:.0f}/{bid:.0f} = {made / max(1, bid):.1%}"
        )
    pairs = sorted(
        {k.rsplit(":", 1)[0] for a in agg.values() for k in a if k.startswith("nil_pair:")}
    )
    for k in pairs:
        bid = sum(a.get(k + ":bid", 0) for a in agg.values())
        made = sum(a.get(k + ":made", 0) for a in agg.values())
        who = k.split(":", 1)[1].replace("+", " nil, partner ")
        lines.append(f"    {who:<30} {made:.0f}/{bid:.0f} = {made / max(1, bid):.1%}")
    lines.append("")
    lines.append("decision time (ms):      n      p50      p95      max")
    for name, ts in sorted(times.items()):
        ms = [t * 1000 for t in ts]
        lines.append(
            f"  {name:<16}{len(ms):>8}{pct(ms, 0.5):>9.1f}{pct(ms, 0.95):>9.1f}{max(ms):>9.1f}"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("x", help="first team, e.g. master")
    ap.add_argument("y", help="second team, e.g. rules")
    ap.add_argument("--games", type=int, default=200, help="games in all (two per deal)")
    ap.add_argument("--seed", type=int, default=1, help="first deal seed")
    ap.add_argument("--workers", type=int, default=2, help="processes (at most 2 here)")
    ap.add_argument("--rules", default="classic", help='preset name or JSON like {"preset":"club"}')
    ap.add_argument("--budget-ms", type=int, default=None, help="search budget per decision")
    ap.add_argument("--max-hands", type=int, default=60, help="cut a game after this many hands")
    ap.add_argument("--out", default=None, help="also write the table to this file")
    args = ap.parse_args()
    spec = args.rules if not args.rules.startswith("{") else json.loads(args.rules)
    rules = Rules.from_json(spec, 4)
    pairs = max(1, args.games // 2)
    tasks = [
        (rules, args.seed + i, args.x, args.y, args.budget_ms, args.max_hands) for i in range(pairs)
    ]
    cmd = "python bench/arena.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    results: list[list[dict]] = []
    start = time.perf_counter()
    workers = max(1, min(2, args.workers))
    with multiprocessing.Pool(workers) as pool:
        for i, r in enumerate(pool.imap_unordered(play_pair, tasks), 1):
            results.append(r)
            if i % 10 == 0 or i == pairs:
                print(f"… {i}/{pairs} deals, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    text = report(results, args.x, args.y, cmd)
    text += f"\n\nwall time {time.perf_counter() - start:.0f} s, {workers} workers"
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
