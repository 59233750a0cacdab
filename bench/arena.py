"""Arena: whole games between computer players on duplicate deals, with intervals.

Four players: two teams; every deal sequence (a game seed) is played twice
with the teams swapped, so the luck of the cards cancels. Three, five or six
players (``--players N``): the first player sits at one seat against the
second at every other seat, and each deal sequence is played N times with the
first player moved round every seat; a player as strong as the field wins
1/N of the games.

Players: ``random`` (any legal action), ``rules`` (the rule-based club
player), ``novice``/``amateur``/``master`` (the levels of ``engine.ai``),
``pimc`` (the search baseline of ``engine.ai.pimc``: 24 weighted deals, rule
rollouts, the hand's points with bags at −10), ``plain`` (the plain search
player of issue 38, ``engine.ai.plain``: the same kind of search for cards
only, rule bids, the conventional card kept unless beaten by 3 points a deal;
``plain:N`` searches N deals instead of 24)
and ``ext:COMMAND`` (any program
speaking the agent protocol of ``python -m engine agent``). With four
players a team is one name or two joined by ``/`` (``rules/master``: seat 0
or 1 rules, its partner master).

Reported: games won with a 95 % interval over the deal sequences, the first
player's points per hand over the second's (a 95 % interval over the deal
sequences), points per hand, contracts made, nils made, blind nils, bags per
hand, decision time p50/p95/max per player, and where the points go: points
per hand by the side's bags before the hand (0–4, 5–7, 8–9), by the score
before it (behind, ahead, near the target: within 100 of it), in hands the
side bid a nil, and by whether the side made its contract.

Run from the checkout's root (it measures that checkout's engine):
     python -m bench.arena master pimc --games 200 --workers 1
     python -m bench.arena master rules --players 3 --games 120
Long runs in parts: ``--save a.jsonl.gz`` on each part (other ``--seed``), then
     python -m bench.arena master plain:240 --merge a.jsonl.gz b.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
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

from bench.stats import percentile
from engine.ai import LEVELS, choose_action
from engine.ai import pimc as pimc_player
from engine.ai import plain as plain_player
from engine.ai.clock import thread_cpu
from engine.ai.knowledge import any_world
from engine.ai.policy import choose as rule_choose
from engine.ai.protocol import request_for
from engine.cards import parse_card
from engine.game import EXCHANGE, Game, action_from_json
from engine.rules import Rules
from engine.view import View, view

BUILT_IN = ("random", "rules", "pimc", "plain", *LEVELS)
NEAR_TARGET = 100  # a side this close to the target is "near" it


class Player:
    """One seat's decision maker; ``act`` gets the live game only to build requests."""

    def __init__(self, name: str, seed: int, budget_ms: int | None) -> None:
        self.name = name
        self.seed = seed
        self.budget_ms = budget_ms
        self.rng = random.Random(seed)
        self.proc: subprocess.Popen[str] | None = None
        self.pending: list[int] = []
        self.deals = plain_player.DEALS
        if name.startswith("plain:") and name[6:].isdigit():
            self.deals = int(name[6:])
            return
        if name.startswith("ext:"):
            self.proc = subprocess.Popen(
                shlex.split(name[4:]),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
        elif name not in BUILT_IN:
            raise SystemExit(f"unknown player {name!r}; one of {BUILT_IN} or ext:COMMAND")

    def act(self, game: Game, v: View) -> int:
        if self.name == "random":
            return self.rng.choice(v.legal)
        if self.name == "rules":
            return rule_choose(any_world(v, self.seed), v.seat)
        if self.name == "pimc":
            return pimc_player.choose(v, self.seed)
        if self.name.startswith("plain"):
            return plain_player.choose(v, self.seed, self.deals)
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
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=10)


def team_players(team: str) -> tuple[str, str]:
    if team.startswith("ext:"):
        return team, team  # a command line may hold slashes: no mixed teams
    a, _, b = team.partition("/")
    return a, b or a


def seat_names(players: int, labels: list[str]) -> list[str]:
    """The player name at each seat; ``labels`` is the label of each side."""
    if players != 4:
        return list(labels)
    names = []
    for seat in range(4):
        first, second = team_players(labels[seat % 2])
        names.append(first if seat < 2 else second)
    return names


def buckets(g: Game, side: int, line: dict[str, Any], before: dict[str, Any] | None) -> list[str]:
    """The breakdown rows a hand of ``side`` counts in (``before``: the previous line)."""
    sd = line["sides"][side]
    bags = before["sides"][side]["bags"] if before else 0
    out = ["bags 0-4" if bags <= 4 else "bags 5-7" if bags <= 7 else "bags 8-9"]
    totals = [s["total"] for s in before["sides"]] if before else [0] * len(line["sides"])
    mine = totals[side]
    best_other = max(t for i, t in enumerate(totals) if i != side)
    if max(totals) >= g.rules.target - NEAR_TARGET:
        out.append("near target")
    else:
        out.append("ahead" if mine > best_other else "behind" if mine < best_other else "level")
    members = (side, side + 2) if g.n == 4 else (side,)
    if any(line["bids"][s] == 0 for s in members):
        out.append("nil bid")
    if sd["contract"]:
        out.append("contract made" if sd["taken"] >= sd["contract"] else "contract set")
    return out


def side_stats(g: Game, side: int, names: list[str]) -> dict[str, float]:
    """Counts for one side over the game's score sheet."""
    members = (side, side + 2) if g.n == 4 else (side,)
    st: dict[str, float] = defaultdict(float)
    others = [i for i in range(len(g.totals)) if i != side]
    for i, line in enumerate(g.sheet):
        sd = line["sides"][side]
        st["points"] += sd["score"]
        st["bags"] += sd["bags_new"]
        # The hand's points over the others' mean: what the side gained.
        gain = sd["score"] - sum(line["sides"][o]["score"] for o in others) / len(others)
        for b in buckets(g, side, line, g.sheet[i - 1] if i else None):
            st[f"by:{b}:hands"] += 1
            st[f"by:{b}:points"] += sd["score"]
            st[f"by:{b}:gain"] += gain
        if sd["contract"]:
            st["contracts"] += 1
            st["made"] += sd["taken"] >= sd["contract"]
        for seat in members:
            if line["bids"][seat] != 0:
                continue
            made = line["tricks"][seat] == 0
            st["nils"] += 1
            st["nils_made"] += made
            st["blind"] += line["blind"][seat]
            st["blind_made"] += line["blind"][seat] and made
            if g.n == 4:
                partner = names[(seat + 2) % 4]
                st[f"nil_partner:{partner}:bid"] += 1
                st[f"nil_partner:{partner}:made"] += made
    st["final"] = g.totals[side]
    return dict(st)


def play_game(
    rules: Rules, seed: int, labels: list[str], budget_ms: int | None, max_hands: int
) -> dict[str, Any]:
    """One game; ``labels[i]`` plays side i. A game cut at ``max_hands`` goes to
    the single highest total (none on a shared top)."""
    g = Game(rules, seed)
    names = seat_names(rules.players, labels)
    players = [Player(names[s], seed * 10 + s, budget_ms) for s in range(g.n)]
    times: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)
    try:
        while not g.finished and len(g.sheet) < max_hands:
            seat = g.to_move
            v = view(g, seat)
            t, c = time.perf_counter(), thread_cpu()
            a = players[seat].act(g, v)
            times[names[seat]].append(time.perf_counter() - t)
            cpu[names[seat]].append(thread_cpu() - c)
            g.apply_action(a, seat)
    finally:
        for p in players:
            p.close()
    winner = g.winner
    if winner is None:
        top = max(g.totals)
        leaders = [i for i, t in enumerate(g.totals) if t == top]
        winner = leaders[0] if len(leaders) == 1 else None
    return {
        "labels": labels,
        "winner": winner,
        "hands": len(g.sheet),
        "cut": not g.finished,
        "sides": [side_stats(g, side, names) for side in range(len(labels))],
        "times": dict(times),
        "cpu": dict(cpu),
    }


def deal_labels(players: int, x: str, y: str) -> list[list[str]]:
    """The seatings of one deal sequence: teams swapped, or ``x`` at every seat."""
    if players == 4:
        return [[x, y], [y, x]]
    return [[x if s == i else y for s in range(players)] for i in range(players)]


def play_deal(args: tuple[Rules, int, str, str, int | None, int]) -> list[dict[str, Any]]:
    rules, seed, x, y, budget, max_hands = args
    return [
        play_game(rules, seed, labels, budget, max_hands)
        for labels in deal_labels(rules.players, x, y)
    ]


def interval(scores: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % normal interval."""
    n = len(scores)
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / max(1, n - 1)
    return mean, 1.96 * math.sqrt(var / n)


BUCKETS = (
    "bags 0-4",
    "bags 5-7",
    "bags 8-9",
    "behind",
    "level",
    "ahead",
    "near target",
    "nil bid",
    "contract made",
    "contract set",
)


def breakdown(agg: dict[str, dict[str, float]], x: str, y: str) -> list[str]:
    """Where the points go: per hand of each kind, the share of hands, the side's
    points and its gain (points over the others' mean), for both players."""
    lines = ["", "where the points go (per hand of the kind; gain = points over the others' mean):"]
    hdr = f"  {'hands':<14}"
    for label in (x, y):
        hdr += f"{label[:10] + ' share':>18}{'pts':>7}{'gain':>7}"
    lines.append(hdr)
    for b in BUCKETS:
        row = f"  {b:<14}"
        for label in (x, y):
            a = agg[label]
            n = a.get(f"by:{b}:hands", 0.0)
            share = n / max(1.0, a["hands"])
            pts = a.get(f"by:{b}:points", 0.0) / max(1.0, n)
            gain = a.get(f"by:{b}:gain", 0.0) / max(1.0, n)
            row += f"{n:>9.0f} {share:>7.1%}{pts:>7.1f}{gain:>7.1f}"
        lines.append(row)
    return lines


def report(results: list[list[dict[str, Any]]], x: str, y: str, cmd: str, players: int) -> str:
    agg: dict[str, dict[str, float]] = {x: defaultdict(float), y: defaultdict(float)}
    times: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)
    deal_scores: list[float] = []
    deal_gains: list[float] = []
    games = cut = 0
    for deal in results:
        score = gain = 0.0
        for game in deal:
            xs = [i for i, lab in enumerate(game["labels"]) if lab == x]
            ys = [i for i, lab in enumerate(game["labels"]) if lab != x]
            hands = max(1, game["hands"])
            gain += (
                sum(game["sides"][i].get("points", 0.0) for i in xs) / len(xs)
                - sum(game["sides"][i].get("points", 0.0) for i in ys) / max(1, len(ys))
            ) / hands
            games += 1
            cut += game["cut"]
            for side, label in enumerate(game["labels"]):
                a = agg[label]
                a["games"] += 1
                a["won"] += game["winner"] == side
                a["hands"] += game["hands"]
                for k, val in game["sides"][side].items():
                    a[k] += val
            w = game["winner"]
            score += w is not None and game["labels"][w] == x
            for name, ts in game.get("times", {}).items():
                times[name] += ts
            for name, ts in game.get("cpu", {}).items():
                cpu[name] += ts
        deal_scores.append(score / len(deal))
        deal_gains.append(gain / len(deal))
    mean, half = interval(deal_scores)
    gmean, ghalf = interval(deal_gains)
    lines = [f"rerun: {cmd}", ""]
    fair = "" if players == 4 else f"; an equal player wins {1 / players:.1%}"
    seats = "teams" if players == 4 else f"{x} at one seat of {players}, {y} at the others"
    lines.append(
        f"{x} vs {y} ({seats}): {games} games on {len(results)} duplicate deal sequences; "
        f"{x} won {mean:.1%} (95% CI {mean - half:.1%} … {mean + half:.1%}){fair}"
    )
    lines.append(
        f"{x}'s points per hand over {y}'s: {gmean:+.1f} (95% CI {gmean - ghalf:+.1f} … "
        f"{gmean + ghalf:+.1f})"
    )
    if cut:
        lines.append(f"({cut} games cut at the hand limit, won by the higher total)")
    lines.append("")
    hdr = f"{'player':<12}{'seat-games':>11}{'won':>6}{'pts/hand':>9}{'contracts made':>18}"
    hdr += f"{'nils made/bid':>15}{'blind made/bid':>15}{'bags/hand':>10}"
    lines.append(hdr)
    for label in (x, y):
        a = agg[label]
        hands = max(1.0, a["hands"])
        made = f"{a['made']:.0f}/{a['contracts']:.0f} {a['made'] / max(1, a['contracts']):.0%}"
        nils = f"{a['nils_made']:.0f}/{a['nils']:.0f}"
        blind = f"{a['blind_made']:.0f}/{a['blind']:.0f}"
        lines.append(
            f"{label[:12]:<12}{a['games']:>11.0f}{a['won']:>6.0f}{a['points'] / hands:>9.1f}"
            f"{made:>18}{nils:>15}{blind:>15}{a['bags'] / hands:>10.2f}"
        )
    lines += breakdown(agg, x, y)
    keys = sorted(
        {k.rsplit(":", 1)[0] for a in agg.values() for k in a if k.startswith("nil_partner:")}
    )
    if keys:
        lines.append("")
        lines.append("nil success by the nil bidder's partner:")
        for k in keys:
            bid = sum(a.get(k + ":bid", 0) for a in agg.values())
            made_n = sum(a.get(k + ":made", 0) for a in agg.values())
            lines.append(
                f"  partner {k.split(':', 1)[1]:<14} {made_n:.0f}/{bid:.0f}"
                f" = {made_n / max(1, bid):.1%}"
            )
    if not times:
        lines.append("")
        lines.append("(decision times are not kept in saved runs: see each part's own table)")
        return "\n".join(lines)
    lines.append("")
    lines.append(
        "decision time (ms):        n   wall p50      p95      max    cpu p50      p95      max"
    )
    for name, ts in sorted(times.items()):
        ms = [t * 1000 for t in ts]
        line = f"  {name[:16]:<16}{len(ms):>9}"
        line += f"{percentile(ms, 0.5):>11.1f}{percentile(ms, 0.95):>9.1f}{max(ms):>9.1f}"
        if not name.startswith("ext:"):  # another process's CPU is not measured
            cs = [t * 1000 for t in cpu[name]]
            line += f"{percentile(cs, 0.5):>11.1f}{percentile(cs, 0.95):>9.1f}{max(cs):>9.1f}"
        lines.append(line)
    lines.append(
        "(wall: on this machine as loaded; cpu: the deciding thread's CPU time on one core,"
        " in scheduler ticks of a few ms)"
    )
    return "\n".join(lines)


def save(path: str, deal: list[dict[str, Any]]) -> None:
    """Append one deal, gzipped and without its decision times (kilobytes, not
    megabytes): a run's parts can be pooled across machines and sessions."""
    kept = [{k: v for k, v in game.items() if k not in ("times", "cpu")} for game in deal]
    with gzip.open(path, "at", encoding="utf-8") as f:
        f.write(json.dumps(kept) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(
        prog="python -m bench.arena",
        description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    ap.add_argument("x", help="first player (team), e.g. master")
    ap.add_argument("y", help="second player (team), e.g. pimc")
    ap.add_argument("--games", type=int, default=200, help="games in all (rounded to whole deals)")
    ap.add_argument("--players", type=int, default=4, choices=(3, 4, 5, 6))
    ap.add_argument("--seed", type=int, default=1, help="first deal seed")
    ap.add_argument("--workers", type=int, default=1, help="processes (at most 2 here)")
    ap.add_argument("--rules", default="classic", help='preset name or JSON like {"preset":"club"}')
    ap.add_argument("--budget-ms", type=int, default=None, help="search budget per decision")
    ap.add_argument("--max-hands", type=int, default=80, help="cut a game after this many hands")
    ap.add_argument(
        "--out",
        default=None,
        help="also write the table to this file (rewritten after every deal: a long run cut"
        " short leaves the table of the deals played)",
    )
    ap.add_argument(
        "--save",
        default=None,
        help="append each deal's results to this gzipped JSON-lines file, to pool runs later",
    )
    ap.add_argument(
        "--merge",
        nargs="+",
        default=None,
        metavar="FILE",
        help="print one table for the deals saved by earlier runs (--save) and play nothing",
    )
    args = ap.parse_args()
    cmd = "python -m bench.arena " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    if args.merge:
        pooled = [
            json.loads(line)
            for name in args.merge
            for line in gzip.decompress(Path(name).read_bytes()).decode("utf-8").splitlines()
            if line.strip()
        ]
        print(report(pooled, args.x, args.y, cmd, args.players))
        return
    if args.players != 4 and ("/" in args.x or "/" in args.y):
        raise SystemExit("mixed teams need four players")
    spec = args.rules if not args.rules.startswith("{") else json.loads(args.rules)
    rules = Rules.from_json(spec, args.players)
    per_deal = len(deal_labels(args.players, args.x, args.y))
    deals = max(1, round(args.games / per_deal))
    tasks = [
        (rules, args.seed + i, args.x, args.y, args.budget_ms, args.max_hands) for i in range(deals)
    ]
    results: list[list[dict[str, Any]]] = []
    start = time.perf_counter()
    workers = max(1, min(2, args.workers))
    with multiprocessing.Pool(workers) as pool:
        for i, r in enumerate(pool.imap_unordered(play_deal, tasks), 1):
            results.append(r)
            if args.save:
                save(args.save, r)
            if args.out and i < deals:
                so_far = report(results, args.x, args.y, cmd, args.players)
                Path(args.out).write_text(
                    f"(so far: {i} of {deals} deals)\n{so_far}\n", encoding="utf-8"
                )
            if i % 5 == 0 or i == deals:
                print(f"… {i}/{deals} deals, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    text = report(results, args.x, args.y, cmd, args.players)
    text += f"\n\nwall time {time.perf_counter() - start:.0f} s, {workers} worker(s)"
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
