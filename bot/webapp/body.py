"""What the Mini App API reads from a request, with care, since the page can
be anyone's: the table asked for, and the JSON body. A body is one small
object as a move could be; what the parser would choke on (deep nesting: a
RecursionError; integers SQLite cannot store; NaN) is no body at all,
answered 400 by the server."""

from __future__ import annotations

import json
import math
from typing import Any

from aiohttp import web

from bot.storage.db import storable

# What a move's body may hold; anything longer is not a move.
MAX_BODY = 1024
# How deep a body may nest: a move is one flat object; a little room beyond.
MAX_DEPTH = 4


def json_int(value: object) -> int | None:
    """A JSON integer (not a bool, not a string of digits)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def table_id_of(raw: object, start_param: str | None) -> int | None:
    """From the request, else from the group link's ``startapp=t<id>``."""
    if isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) < 19:
        return int(raw)
    value = json_int(raw)
    if value is not None:
        return value
    if start_param and start_param.startswith("t") and start_param[1:].isdigit():
        return int(start_param[1:]) if len(start_param) < 20 else None
    return None


async def json_object(request: web.Request) -> dict[str, Any] | None:
    """A call's JSON body: one object, or None. Only what a move could be gets
    through: nothing nested deeper than ``MAX_DEPTH`` (Python's parser
    recurses, and ~1,000 levels fit in ``MAX_BODY``: a RecursionError, a
    500), no integer past 64 bits (SQLite cannot take one: OverflowError),
    no NaN or infinity."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        return None
    raw = await request.content.read(MAX_BODY + 1)
    data = _parsed(raw) if len(raw) <= MAX_BODY else None
    return data if isinstance(data, dict) else None


def _parsed(raw: bytes) -> object:
    """The JSON value of ``raw``; None when it is none, or holds more than a
    move's body may (above)."""
    try:
        text = raw.decode()
        if _depth(text) > MAX_DEPTH:
            return None
        return json.loads(text, parse_int=_int64, parse_float=_finite, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None


def _depth(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (brackets inside strings
    not counted), read before the parser, which would recurse as deep."""
    deepest = depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _int64(digits: str) -> int:
    """A JSON integer that fits SQLite's INTEGER; ValueError past 64 bits."""
    value = int(digits)
    if not storable(value):
        raise ValueError("an integer past 64 bits")
    return value


def _finite(digits: str) -> float:
    """A JSON number with a fraction or exponent; ValueError for ``1e999``."""
    value = float(digits)
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    return value


def _no_constant(name: str) -> object:
    """``NaN``, ``Infinity``, ``-Infinity``: Python's parser takes them, JSON has none."""
    raise ValueError(f"{name} is not JSON")
