"""``python -m engine agent``: the computer player's command line.

The agent speaks JSON lines: one request per line in, one answer per line
out, and a bad line gets an error answer while the process keeps serving.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from engine.ai import LEVELS, choose_action
from engine.ai.protocol import answer


def serve(stdin: TextIO, stdout: TextIO, level: str, seed: int, budget_ms: int | None) -> None:
    """Answer requests line by line until end of input."""
    for line in stdin:
        if not line.strip():
            continue
        try:
            req: Any = json.loads(line)
        except json.JSONDecodeError as e:
            out: dict[str, Any] = {"error": {"code": "bad_json", "message": f"not JSON: {e.msg}"}}
        else:
            if isinstance(req, dict):
                req.setdefault("level", level)
                req.setdefault("seed", seed)
            lvl = req.get("level") if isinstance(req, dict) else level
            if isinstance(lvl, str) and lvl not in LEVELS:
                out = {
                    "error": {"code": "bad_request", "message": f"level must be one of {LEVELS}"}
                }
            else:
                out = answer(req, lambda v, lv, sd: choose_action(v, lv, sd, budget_ms=budget_ms))
        stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        stdout.flush()


def _cmd_agent(args: argparse.Namespace) -> int:
    serve(sys.stdin, sys.stdout, args.level, args.seed, args.budget_ms)
    return 0


def add_commands(sub: Any) -> None:
    p = sub.add_parser("agent", help="the computer player over JSON lines on stdin/stdout")
    p.add_argument("--level", choices=LEVELS, default="master")
    p.add_argument("--seed", type=int, default=0, help="default seed of requests without one")
    p.add_argument("--budget-ms", type=int, default=None, help="search budget per decision")
    p.set_defaults(func=_cmd_agent)
