"""The computer player's tests compare decisions made twice on the same view.

A search stops by its budget of work, so a view and a seed give one
decision; only its safety stops, the thread's CPU time far past the budget
and the wall clock (``engine.ai.clock.Deadline``), can cut one short, and
where they do depends on the machine of the moment: on a CI machine running
four test workers, bot processes and their worker pools on two cores,
``test_review_finds_a_wild_overbid`` reviewed 205.2 against 205.4 (its
review hit the CPU cap twice on that machine, alone, as on the commit before
this session's). Those clocks lie outside what these tests check, so here
they never stop a search; the searches still end by their budget of work.
"""

from __future__ import annotations

import pytest

from engine.ai import clock


@pytest.fixture(autouse=True)
def no_clock_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock.Deadline, "passed", lambda self: False)
