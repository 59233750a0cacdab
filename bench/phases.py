"""The Mini App open against closed, within runs, pooled over several runs.

Run: python bench/phases.py [--runs 3] [-- load.py options]
(by default each run is ``load.py --app --app-phases 20 --seconds 320``).

Each run is a whole ``bench/load.py --app --app-phases`` (its own bot,
database and fake Telegram) in which the pages are open in half of the
phases and closed in the others (see load.py): both sides meet the machine
at the same speed, which separate runs minutes apart do not (this VM drifts
by a third within the hour). Printed: every run's comparison, then moves/s
over all the runs' phases and the p50 and p99 of all their presses pooled,
open against closed. Figures only: nothing here fails on a goal.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from app_clients import percentile

HERE = Path(__file__).resolve().parent
DEFAULT = ["--app", "--app-phases", "20", "--seconds", "320"]
MOVES = re.compile(r"moves/s: open ([\d.]+), closed ([\d.]+)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("options", nargs=argparse.REMAINDER, help="-- then load.py options")
    args = p.parse_args()
    options = [o for o in args.options if o != "--"] or DEFAULT
    print(f"command: python bench/phases.py {shlex.join(sys.argv[1:])}".rstrip())
    print(f"each run: load.py {shlex.join(options)}")
    pooled: dict[str, list[float]] = {"open": [], "closed": []}
    rates: dict[str, list[float]] = {"open": [], "closed": []}
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "phases.json"
            cmd = [sys.executable, str(HERE / "load.py"), *options, "--phase-latencies", str(path)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            got = json.loads(path.read_text())
        found = MOVES.search(out)
        if found is None:
            raise RuntimeError(f"no phases in the output of {shlex.join(cmd)}")
        rates["open"].append(float(found[1]))
        rates["closed"].append(float(found[2]))
        print(f"run {run + 1}:")
        print("\n".join(line for line in out.splitlines() if line.startswith(("app", "  "))))
        for kind in pooled:
            pooled[kind].extend(got[kind])
    print()
    o, c = pooled["open"], pooled["closed"]
    mo, mc = sum(rates["open"]) / args.runs, sum(rates["closed"]) / args.runs
    print(f"all runs: moves/s open {mo:.1f}, closed {mc:.1f}: {mo / mc - 1:+.1%}")
    for q, name in ((0.5, "p50"), (0.99, "p99")):
        a, b = percentile(o, q), percentile(c, q)
        print(
            f"all runs, {name} of {len(o)} and {len(c)} presses pooled:"
            f" open {a:.1f} ms, closed {b:.1f} ms: {a / b - 1:+.1%}"
        )


if __name__ == "__main__":
    main()
