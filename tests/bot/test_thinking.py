"""How long the club player thinks when many computer seats wait at once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.services.thinking import QUEUE_PER_WORKER, search_budget

FULL = 120


def test_short_queue_gets_the_full_budget() -> None:
    for workers in (0, 1, 3):
        for ahead in range(QUEUE_PER_WORKER * max(1, workers)):
            assert search_budget(FULL, ahead, workers) == FULL


def test_long_queue_shares_the_work_out() -> None:
    room = QUEUE_PER_WORKER
    assert search_budget(FULL, room, 1) == FULL * room // (room + 1)
    assert search_budget(FULL, 10 * room - 1, 1) == FULL // 10
    assert search_budget(FULL, 10_000, 1) == 1  # the search's own floor does the rest


def test_levels_that_do_not_search_stay_at_zero() -> None:
    assert search_budget(0, 1_000, 1) == 0


@given(
    full=st.integers(1, 1_000),
    ahead=st.integers(0, 5_000),
    workers=st.integers(0, 16),
)
def test_budget_is_bounded_and_shrinks_with_the_queue(full: int, ahead: int, workers: int) -> None:
    b = search_budget(full, ahead, workers)
    assert 1 <= b <= full
    assert search_budget(full, ahead + 1, workers) <= b
    room = QUEUE_PER_WORKER * max(1, workers)
    if b > 1:  # above the floor, the whole queue costs no more than a short one
        assert b * (ahead + 1) <= full * max(room, ahead + 1)
        if ahead >= room:
            assert b * (ahead + 1) <= full * room
