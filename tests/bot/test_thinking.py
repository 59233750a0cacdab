"""How long the club player thinks when many computer seats wait at once."""

from __future__ import annotations

import gc

from hypothesis import given
from hypothesis import strategies as st

from bot.services.thinking import MIN_SEARCH_MS, QUEUE_PER_WORKER, search_budget, worker_pool

FULL = 120


def test_short_queue_gets_the_full_budget() -> None:
    for workers in (0, 1, 3):
        for ahead in range(QUEUE_PER_WORKER * max(1, workers)):
            assert search_budget(FULL, ahead, workers) == FULL


def test_long_queue_shares_the_work_out() -> None:
    room = QUEUE_PER_WORKER
    assert search_budget(FULL, room, 1) == FULL * room // (room + 1)
    assert search_budget(FULL, 2 * room - 1, 1) == FULL // 2
    assert search_budget(FULL, 2 * (2 * room) - 1, 2) == FULL // 2


def test_past_the_smallest_useful_search_the_rule_player_moves() -> None:
    ahead = FULL * QUEUE_PER_WORKER // MIN_SEARCH_MS  # the share just under the floor
    assert search_budget(FULL, ahead - 1, 1) >= MIN_SEARCH_MS
    assert search_budget(FULL, ahead, 1) == 0
    assert search_budget(FULL, 10_000, 1) == 0


def test_levels_that_do_not_search_stay_at_zero() -> None:
    assert search_budget(0, 0, 1) == 0
    assert search_budget(0, 1_000, 1) == 0


@given(
    full=st.integers(1, 1_000),
    ahead=st.integers(0, 5_000),
    workers=st.integers(0, 16),
)
def test_budget_is_full_shared_or_none(full: int, ahead: int, workers: int) -> None:
    b = search_budget(full, ahead, workers)
    room = QUEUE_PER_WORKER * max(1, workers)
    if ahead < room:
        assert b == full
    elif b:
        # A search, never a useless one, and the queue costs no more than a short one.
        assert min(MIN_SEARCH_MS, full) <= b <= full
        assert b * (ahead + 1) <= full * room
    nxt = search_budget(full, ahead + 1, workers)
    assert nxt <= b  # a longer queue never thinks longer


def test_a_worker_sets_its_imports_aside() -> None:
    """A full collection of what a worker imported would land inside a search
    (~150 ms against its CPU cap): the worker freezes its heap at start."""
    with worker_pool(1) as pool:
        assert pool.submit(gc.get_freeze_count).result(timeout=120) > 0
