"""Watching and the hand record in a real browser (chromium, Playwright): a
member of the group opens the group's link, watches a hand played from the
chat with no card of anyone's hand on the page, then steps through the
finished hand's record trick by trick."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fake_telegram import FakeTelegram
from fake_telegram.webapp import free_port, sign_init_data
from harness import MakeBot, open_table, play_moves
from test_webapp_browser import (
    LIGHT,
    TELEGRAM_SCRIPT,
    hand_message,
    table_of,
    telegram_stand_in,
    webapp_settings,
)

playwright_api = pytest.importorskip("playwright.async_api")

GROUP = -1006262


async def dataset(page: Any) -> dict[str, str]:
    return dict(await page.evaluate("() => ({...document.getElementById('app').dataset})"))


@pytest.mark.slow
async def test_a_member_watches_and_steps_through_the_record(
    fake: FakeTelegram, tmp_path: Path, browser: Any, make_bot: MakeBot
) -> None:
    port = free_port()
    await make_bot(webapp_settings(fake, tmp_path, port))
    anna, boris = fake.add_user(801, "Анна"), fake.add_user(802, "Борис")
    cyril = fake.add_user(803, "Кирилл")
    table = await open_table(
        fake, GROUP, [anna, boris], seats=["Восток"], others=[cyril], title="Пики"
    )
    await fake.wait_for(lambda: hand_message(fake, anna) is not None)
    table_id = table_of(fake, anna)
    # The group's link opens the app with the table in start_param.
    init_data = sign_init_data(fake.token, cyril, time.time(), start_param=f"t{table_id}")
    outside: list[str] = []

    async def route(r: Any) -> None:
        if r.request.url == TELEGRAM_SCRIPT:
            body = telegram_stand_in(init_data, cyril, LIGHT)
            await r.fulfill(status=200, content_type="text/javascript", body=body)
        elif r.request.url.startswith("http://127.0.0.1:"):
            await r.continue_()
        else:
            outside.append(r.request.url)
            await r.abort()

    await browser.route("**/*", route)
    page = browser.pages[0] if browser.pages else await browser.new_page()
    await page.goto(f"http://127.0.0.1:{port}/app/?tgWebAppStartParam=t{table_id}")
    await page.wait_for_selector("#app[data-state='ready']")
    assert (await dataset(page))["spectator"] == "1"
    assert await page.locator(".seat").count() == 4
    assert await page.locator("#prompt").text_content() == "Вы смотрите игру как зритель"
    assert await page.locator("#record-open").is_hidden()  # no hand over yet

    # Count the cards the page ever shows in a hand or as a choice: none.
    await page.evaluate(
        """() => { window.__cards = 0;
          new MutationObserver(() => {
            window.__cards += document.querySelectorAll(
              '#hand .card, #choices button').length;
          }).observe(document.getElementById('app'), {childList: true, subtree: true}); }"""
    )
    await play_moves(
        table, until=lambda: any("Сдача 1 сыграна" in t for t in fake.sent_texts(GROUP))
    )
    await page.wait_for_function("() => document.getElementById('app').dataset.hand === '1'")
    assert await page.evaluate("window.__cards") == 0
    await page.screenshot(path=str(tmp_path / "watching.png"))

    # The record: the deal and the bids, then trick by trick to the score.
    opener = page.locator("#record-open")
    await opener.wait_for(state="visible")
    await opener.click()
    await page.wait_for_selector("#record:not([hidden])")
    assert (await dataset(page))["record"] == "1"
    seats = page.locator("#record-seats .record-seat")
    assert await seats.count() == 4
    for i in range(4):
        assert await seats.nth(i).locator(".mini").count() == 13
    assert await page.locator("#record-step").text_content() == "Заявки и карты при раздаче"
    assert await page.locator("#record-prev").is_disabled()
    for k in range(1, 14):
        await page.locator("#record-next").click()
        await page.wait_for_selector(f"#record[data-step='{k}']")
        assert await page.locator("#record-trick .mini").count() == 4
        assert await page.locator("#record-step").text_content() == f"Взятка {k} из 13"
        for i in range(4):
            assert await seats.nth(i).locator(".mini").count() == 13 - k
    assert await page.locator("#record-next").is_disabled()
    assert "итого" in (await page.locator("#record-score").text_content() or "")
    await page.screenshot(path=str(tmp_path / "record.png"))
    await page.locator("#record-prev").click()
    await page.wait_for_selector("#record[data-step='12']")
    await page.locator("#record-close").click()
    await page.wait_for_selector("#record[hidden]", state="attached")
    assert "record" not in await dataset(page)
    assert not outside, outside
