"""HTTP headers every answer of the Mini App carries (pages, API, streams)."""

from __future__ import annotations

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self' https://telegram.org; style-src 'self';"
        " img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
NO_STORE = {"Cache-Control": "no-store"}
EVENT_STREAM = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "X-Accel-Buffering": "no",  # nginx: pass each event on at once
}
