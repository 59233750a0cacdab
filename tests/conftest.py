"""What every test run starts with: the markers, and the fixtures
(tests/shared_fixtures.py) loaded in the processes that run tests.

The parallel run's controller (``-n`` in pyproject's addopts) hands tests
out and runs none; the fixtures import aiogram and the bot (about 6 s of CPU
here), which would hold every worker's start back by as much."""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: takes half a minute or more; handed to a worker first"
    )
    # xdist sets PYTEST_XDIST_WORKER in its workers; its controller has a
    # distribution mode (--dist) and no such variable; -n 0 runs tests here.
    controller = config.getoption("dist", "no") != "no" and "PYTEST_XDIST_WORKER" not in os.environ
    if not controller:
        config.pluginmanager.import_plugin("shared_fixtures")
