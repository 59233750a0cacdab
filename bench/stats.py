"""The one quantile rule of every bench's figures."""

from __future__ import annotations


def percentile(values: list[float], q: float) -> float:
    """The value ``q`` of the way up ``values`` (NaN for none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
