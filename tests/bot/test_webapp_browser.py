"""The Mini App in a real browser: Debian's chromium, driven by Playwright,
against the real bot and the fake Bot API.

Telegram's own script (``telegram-web-app.js``) is the one thing the page
loads from outside; here it is answered by a stand-in that gives the page a
signed ``initData`` and a theme, as Telegram would, and records the haptic
feedback. Every other request must go to the bot. Screenshots (light and
dark, bidding and mid-trick) are saved under the test's tmp dir; with
``PIKI_SCREENSHOTS=1`` the two that docs/ shows are written there too
(``docs/webapp-bidding-light.png``, ``docs/webapp-mid-trick-dark.png``), or
into the directory ``$PIKI_SCREENSHOTS`` names::

    PIKI_SCREENSHOTS=1 pytest -p no:cacheprovider tests/bot/test_webapp_browser.py -k whole_hand
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from fake_telegram import FakeTelegram, FakeUser
from fake_telegram.webapp import free_port, sign_init_data, table_of_url, web_app_url
from harness import MakeBot, Table, action_of, move_buttons, open_table, settings_for
from scenarios import claim_rows, to_first_claim

from bot.config import Settings
from bot.webapp.state import plain

playwright_api = pytest.importorskip("playwright.async_api")

TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
GROUP = -1006161

# Telegram's own default themes (Telegram Desktop / Web A).
LIGHT = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#999999",
    "link_color": "#2481cc",
    "button_color": "#2481cc",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#efeff3",
    "section_bg_color": "#ffffff",
    "accent_text_color": "#2481cc",
    "destructive_text_color": "#ff3b30",
}
DARK = {
    "bg_color": "#212121",
    "text_color": "#ffffff",
    "hint_color": "#aaaaaa",
    "link_color": "#8774e1",
    "button_color": "#8774e1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#0f0f0f",
    "section_bg_color": "#212121",
    "accent_text_color": "#8774e1",
    "destructive_text_color": "#ff595a",
}


def telegram_stand_in(init_data: str, user: FakeUser, theme: dict[str, str]) -> str:
    """What telegram-web-app.js gives a page, for this person."""
    unsafe = {
        "user": {"id": user.id, "first_name": user.first_name, "language_code": "ru"},
        "auth_date": int(time.time()),
    }
    return f"""
window.__haptics = [];
// The test's own: the clicks that reach the page, and room for every
// request's timing (what a failed wait prints).
window.__clicks = 0;
addEventListener('click', () => {{ window.__clicks += 1; }}, true);
performance.setResourceTimingBufferSize(2000);
window.Telegram = {{ WebApp: {{
  initData: {json.dumps(init_data)},
  initDataUnsafe: {json.dumps(unsafe)},
  version: "8.0",
  platform: "android",
  colorScheme: "light",
  themeParams: {json.dumps(theme)},
  _handlers: {{}},
  isVersionAtLeast(v) {{ return true; }},
  ready() {{}},
  expand() {{}},
  setHeaderColor() {{}},
  setBackgroundColor() {{}},
  onEvent(name, fn) {{ (this._handlers[name] = this._handlers[name] || []).push(fn); }},
  HapticFeedback: {{
    impactOccurred(style) {{ window.__haptics.push("impact:" + style); }},
    notificationOccurred(type) {{ window.__haptics.push("notification:" + type); }},
    selectionChanged() {{ window.__haptics.push("selection"); }},
  }},
}} }};
window.__setTheme = (scheme, theme) => {{
  const app = window.Telegram.WebApp;
  app.colorScheme = scheme;
  app.themeParams = theme;
  (app._handlers.themeChanged || []).forEach((fn) => fn());
}};
"""


# The shots docs/ shows (docs/webapp.md, README.md), by the names they have there.
DOCS = Path(__file__).resolve().parents[2] / "docs"
DOCS_SHOTS = {
    "bidding-light": "webapp-bidding-light.png",
    "mid-trick-dark": "webapp-mid-trick-dark.png",
}


class Screens:
    def __init__(self, tmp_path: Path) -> None:
        self.dir = tmp_path / "screens"
        self.dir.mkdir()
        extra = os.environ.get("PIKI_SCREENSHOTS", "")
        self.extra = None if extra in ("", "0") else DOCS if extra == "1" else Path(extra)

    async def shoot(self, page: Any, name: str) -> Path:
        path = self.dir / f"{name}.png"
        await page.screenshot(path=str(path))
        if self.extra is not None and name in DOCS_SHOTS:
            self.extra.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, self.extra / DOCS_SHOTS[name])
        return path

    async def both_themes(self, page: Any, name: str) -> None:
        await self.shoot(page, f"{name}-light")
        await page.evaluate(f"window.__setTheme('dark', {json.dumps(DARK)})")
        await page.wait_for_function("() => document.documentElement.dataset.scheme === 'dark'")
        await self.shoot(page, f"{name}-dark")
        await page.evaluate(f"window.__setTheme('light', {json.dumps(LIGHT)})")
        await page.wait_for_function("() => document.documentElement.dataset.scheme === 'light'")


def webapp_settings(fake: FakeTelegram, tmp_path: Path, port: int, **extra: Any) -> Settings:
    return settings_for(
        fake,
        tmp_path / "spades.db",
        webapp_url=f"http://127.0.0.1:{port}/app",
        webapp_listen="127.0.0.1",
        webapp_port=port,
        **extra,
    )


async def seated_pair(fake: FakeTelegram) -> tuple[Table, FakeUser, FakeUser]:
    """Анна (North, in the app) and Борис (East, with the chat's buttons)."""
    anna, boris = fake.add_user(601, "Анна"), fake.add_user(602, "Борис")
    table = await open_table(fake, GROUP, [anna, boris], seats=["Восток"], title="Пики по пятницам")
    await fake.wait_for(lambda: hand_message(fake, anna) is not None)
    return table, anna, boris


def hand_message(fake: FakeTelegram, user: FakeUser) -> Any:
    for m in reversed(fake.chat_messages(user.id)):
        if web_app_url(m):
            return m
    return None


def table_of(fake: FakeTelegram, user: FakeUser) -> int:
    """The table of the user's «🃏 Стол» button (its ``?t=``)."""
    url = web_app_url(hand_message(fake, user))
    assert url is not None
    return table_of_url(url)


async def open_app(
    context: Any, fake: FakeTelegram, user: FakeUser, init_data: str
) -> tuple[Any, list[str]]:
    """The page of the user's «🃏 Стол» button, with Telegram's stand-in; and
    the requests that went anywhere but the bot (refused)."""
    url = web_app_url(hand_message(fake, user))
    assert url is not None
    outside: list[str] = []

    async def route(r: Any) -> None:
        if r.request.url == TELEGRAM_SCRIPT:
            await r.fulfill(
                status=200,
                content_type="text/javascript",
                body=telegram_stand_in(init_data, user, LIGHT),
            )
        elif r.request.url.startswith("http://127.0.0.1:"):
            await r.continue_()
        else:
            outside.append(r.request.url)
            await r.abort()

    await context.route("**/*", route)
    page = context.pages[0] if context.pages else await context.new_page()
    await page.goto(url)
    return page, outside


# The point of an element a finger would choose: of the points where the
# element is on top (a fanned card is mostly under its neighbour, and turned),
# the one farthest from anything else, so that a pixel's rounding or the
# finger's size cannot take a neighbour.
FINGER_POINT = """(el) => {
    const r = el.getBoundingClientRect();
    const mine = (x, y) => { const hit = document.elementFromPoint(x, y);
                             return hit !== null && (hit === el || el.contains(hit)); };
    let best = null;
    let room = -1;
    for (let y = r.top + 2; y < r.bottom; y += 3)
      for (let x = r.left + 2; x < r.right; x += 2) {
        if (!mine(x, y)) continue;
        let d = 2;
        while (d <= 24 && mine(x - d, y) && mine(x + d, y) && mine(x, y - d) && mine(x, y + d)) d += 2;
        if (d > room) { room = d; best = [x, y]; }
      }
    return best;
}"""


async def finger_point(page: Any, locator: Any) -> tuple[float, float]:
    """Where a finger goes down on the element (FINGER_POINT). A state
    arriving meanwhile may draw the element anew: the locator is resolved
    again."""
    for _ in range(20):
        with contextlib.suppress(playwright_api.Error):
            point = await page.evaluate(FINGER_POINT, await locator.element_handle(timeout=5_000))
            if point is not None:
                return float(point[0]), float(point[1])
        await asyncio.sleep(0.05)
    raise AssertionError(f"the element is nowhere on top: {await page_dump(page)}")


async def tap(page: Any, locator: Any) -> None:
    """A finger on the element (finger_point). The tap must reach the page
    as a click; what the page does with it is then the page's to answer for."""
    clicks = await page.evaluate("window.__clicks")
    x, y = await finger_point(page, locator)
    await page.touchscreen.tap(x, y)
    try:
        await page.wait_for_function("(n) => window.__clicks > n", arg=clicks, timeout=10_000)
    except playwright_api.TimeoutError:
        raise AssertionError(f"a tap at {x, y} made no click: {await page_dump(page)}") from None


async def settled(page: Any) -> None:
    """Until the page is still as a person sees it: no move of its own on
    its way, and no card of the hand moved a moment ago (the page takes no
    tap on a card that just moved: the finger was aimed at what lay there)."""
    await page.wait_for_function(
        "() => !document.getElementById('app').dataset.busy"
        " && !document.getElementById('hand').dataset.settling"
    )


async def tap_card(page: Any, card: int) -> None:
    """A finger on this card of the hand (found by the card, wherever it
    lies), once the hand is still. A state can still move the hand between
    the look and the touch: the page then takes no tap (no move sent, its
    "selection" haptic missing), and the person taps again."""
    locator = page.locator(f"#hand .card[data-card='{card}']")
    for _ in range(5):
        await settled(page)
        sent = await page.evaluate("window.__haptics.filter((h) => h === 'selection').length")
        await tap(page, locator)
        if await page.evaluate(
            "(n) => window.__haptics.filter((h) => h === 'selection').length > n", sent
        ):
            return
    raise AssertionError(f"card {card} was tapped five times, never taken: {await page_dump(page)}")


async def seq_above(page: Any, seq: int) -> None:
    """Until the page shows a state after move ``seq`` and has the answer to
    its own move (the stream may bring the new state first; a tap while a
    move is on its way is dropped, as a double tap should be)."""
    try:
        await page.wait_for_function(
            "(seq) => { const app = document.getElementById('app');"
            " return Number(app.dataset.seq) > seq && !app.dataset.busy; }",
            arg=seq,
        )
    except playwright_api.TimeoutError:
        raise AssertionError(f"no state after move {seq}: {await page_dump(page)}") from None


async def page_dump(page: Any) -> Any:
    """What the page shows and did, for a wait that failed: its state, its
    last toast (a refusal's reason stays in it after it hides), whose turn
    it shows, the clicks that reached it, its haptics (a move sent is a
    "selection") and its last requests to the bot with their timings."""
    return await page.evaluate(
        """() => ({
            dataset: {...document.getElementById('app').dataset},
            toast: document.getElementById('toast').textContent,
            toast_shown: !document.getElementById('toast').hidden,
            turn: [...document.querySelectorAll('.seat.turn')].map((e) => e.dataset.seat),
            clicks: window.__clicks,
            haptics: window.__haptics.slice(-6),
            requests: performance.getEntriesByType('resource')
                .filter((e) => e.name.includes('/api/')).slice(-6)
                .map((e) => [e.name.split('/api/')[1], Math.round(e.startTime),
                             Math.round(e.responseEnd), e.responseStatus]),
            now: Math.round(performance.now()),
        })"""
    )


# What the page shows at every moment, watched from inside it (every change
# of its DOM, the clock's ticks included): a toast still up when the table
# changed under it (a new move or phase: the toast was about the table before),
# and how many countdowns (a time such as 0:59) are visible at once.
WATCH = r"""() => {
  const app = document.getElementById('app');
  const toast = document.getElementById('toast');
  const shown = (el) => el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== 'hidden';
  const timers = () => [...app.querySelectorAll('*')].filter((el) => shown(el)
    && [...el.childNodes].some((n) => n.nodeType === 3 && /\d:\d\d/.test(n.textContent)));
  const w = window.__watch = {stale: [], most: 0, timers: [], by_turn: 0};
  new MutationObserver((records) => {
    let changed = -1;
    let told = -1;
    records.forEach((r, i) => {
      if (r.target === app && ['data-seq', 'data-phase'].includes(r.attributeName)
          && r.oldValue !== app.getAttribute(r.attributeName)) changed = i;
      if (toast.contains(r.target)) told = i;
    });
    // A toast shown in the same batch after the change is about the new table.
    if (changed >= 0 && shown(toast) && told < changed) {
      w.stale.push([app.dataset.seq, app.dataset.phase, toast.textContent]);
    }
    const now = timers();
    if (now.length > w.most) {
      w.most = now.length;
      w.timers = now.map((el) => (el.id || el.className) + ': ' + el.textContent);
    }
    if (now.length === 1 && now[0].closest('.seat.turn')) w.by_turn += 1;
  }).observe(app, {attributes: true, attributeOldValue: true, childList: true,
                   characterData: true, subtree: true});
}"""


async def page_state(page: Any) -> dict[str, Any]:
    return dict(
        await page.evaluate(
            """() => { const app = document.getElementById('app');
                return {state: app.dataset.state, seq: Number(app.dataset.seq || -1),
                        phase: app.dataset.phase, mine: app.classList.contains('my-turn'),
                        hand: Number(app.dataset.hand || 0)}; }"""
        )
    )


@pytest.mark.slow
async def test_a_whole_hand_in_the_app(
    fake: FakeTelegram, tmp_path: Path, browser: Any, make_bot: MakeBot
) -> None:
    port = free_port()
    bot = await make_bot(webapp_settings(fake, tmp_path, port, ai_move_delay=0.1))
    screens = Screens(tmp_path)
    table, anna, boris = await seated_pair(fake)
    init_data = sign_init_data(fake.token, anna, time.time())
    page, outside = await open_app(browser, fake, anna, init_data)
    loads = []
    page.on("load", lambda _: loads.append(1))
    await page.wait_for_selector("#app[data-state='ready']")
    assert await page.title() == "Пики"
    assert await page.locator("#hand .card").count() == 13
    assert await page.locator(".seat").count() == 4
    await page.evaluate(WATCH)
    toast = page.locator("#toast")

    live_seen = 0  # Boris's chat moves that reached the page without a reload
    refused = None
    shots: set[str] = set()
    app_card = None
    for _ in range(2000):
        await fake.wait_idle(quiet=0.05)
        st = await page_state(page)
        if st["hand"] > 0:  # the first hand is over
            break
        offers = [m for u, m in table.actionable() if u is boris]
        if offers:
            msg = offers[0]
            data = move_buttons(msg)[0] if move_buttons(msg) else None
            if data is None:
                continue
            await (await fake.press(boris, boris.id, msg.message_id, data)).answer()
            await seq_above(page, st["seq"])
            action = action_of(data)
            if action < 52:  # a card: it lies on the table by Boris's seat
                # In the trick, or (the computers led on at once) in the last one.
                here = f"[data-seat='1'][data-card='{action}']"
                last_of_hand = len(msg.buttons()) <= 2  # his only card, and 🃏 Стол
                if not last_of_hand:
                    await page.locator(
                        f"#trick .card{here}, #last-trick .mini{here}"
                    ).first.wait_for(state="attached")
            else:
                bid = page.locator(f".seat[data-seat='1'] .bid[data-bid='{action - 52}']")
                await bid.wait_for(state="attached")
            live_seen += 1
            continue
        if not st["mine"]:
            await asyncio.sleep(0.05)  # the computers, or the stream, are still going
            continue
        if st["phase"] == "bid":
            if "bidding" not in shots:
                await screens.both_themes(page, "bidding")
                shots.add("bidding")
            bid = page.locator("#choices .bids button:not(.dim)")
            assert await page.locator("#choices .bids button").count() == 14
            await tap(page, bid.nth(min(3, await bid.count() - 1)))
            await seq_above(page, st["seq"])
            continue
        dim = page.locator("#hand .card.dim")
        refusing = refused is None and await dim.count() > 0
        if refusing:
            haptics = await page.evaluate("window.__haptics.length")
            await tap_card(page, int(await dim.first.get_attribute("data-card") or -1))
            await toast.wait_for(state="visible")
            refused = await toast.text_content()
            assert (await page_state(page))["seq"] == st["seq"]
            assert "notification:error" in await page.evaluate(f"window.__haptics.slice({haptics})")
        if (
            "mid-trick" not in shots
            and not refusing  # the refusal's toast is still up: a later turn
            and await page.locator("#trick .card").count() >= 2
        ):
            await screens.both_themes(page, "mid-trick")
            shots.add("mid-trick")
        card = page.locator("#hand .card.playable").first
        app_card = int(await card.get_attribute("data-card") or -1)
        chat_before = hand_message(fake, anna).text
        await tap_card(page, app_card)
        await seq_above(page, st["seq"])
        if refusing:  # the table moved on: the reason for the old one is gone
            assert await toast.is_hidden(), await page_dump(page)
        # The chat follows the app: the private hand message changes too.
        await fake.wait_for(
            lambda before=chat_before: (m := hand_message(fake, anna)) is None or m.text != before
        )
    else:
        raise AssertionError("the hand did not end")

    # The bot's own reason, in Russian, as its locales have it now.
    assert refused in (
        plain(bot.app.texts("ru", "err-must_follow_suit")),
        plain(bot.app.texts("ru", "err-spades_not_broken")),
    )
    assert app_card is not None and live_seen >= 13
    assert shots == {"bidding", "mid-trick"}
    watch = await page.evaluate("window.__watch")
    assert not watch["stale"], watch  # no toast outlived the table it was about
    assert watch["most"] <= 1, watch  # one countdown on the screen, not two
    assert watch["by_turn"] > 0, watch  # and it is by the seat to move
    assert not loads  # everything arrived over the stream, no reload
    assert "impact:medium" in await page.evaluate("window.__haptics")
    assert not outside, outside  # no CDN: the bot served everything
    assert any("Сдача 1 сыграна" in t for t in fake.sent_texts(GROUP))
    for name in ("bidding-light", "bidding-dark", "mid-trick-light", "mid-trick-dark"):
        assert (screens.dir / f"{name}.png").stat().st_size > 10_000


@pytest.mark.slow
async def test_the_page_reconnects_and_catches_up(
    fake: FakeTelegram, tmp_path: Path, browser: Any, make_bot: MakeBot
) -> None:
    port = free_port()
    settings = webapp_settings(fake, tmp_path, port)
    bot = await make_bot(settings)
    table, anna, boris = await seated_pair(fake)
    page, _ = await open_app(browser, fake, anna, sign_init_data(fake.token, anna, time.time()))
    table_id = table_of(fake, anna)
    await page.wait_for_selector("#app[data-state='ready']")
    await fake.wait_idle(quiet=0.05)
    seq = (await page_state(page))["seq"]
    # The bot goes away: the page says so and keeps trying.
    await bot.stop()
    await page.locator("#conn").wait_for(state="visible")
    assert await page.locator("#conn").text_content() == ("Связь прервалась — подключаемся снова…")
    bot = await make_bot(settings)
    await page.locator("#conn").wait_for(state="hidden")
    # Moves made now (by the chat, and the computers after them) reach the page.
    for _ in range(100):
        await fake.wait_idle(quiet=0.05)
        offers = [m for u, m in table.actionable() if u is boris]
        if offers:
            msg = offers[0]
            await (await fake.press(boris, boris.id, msg.message_id, move_buttons(msg)[0])).answer()
            break
        st = await page_state(page)
        if st["mine"]:
            await settled(page)
            bid = page.locator("#choices .bids button:not(.dim)")
            if await bid.count():
                await tap(page, bid.first)
            else:
                card = page.locator("#hand .card.playable").first
                await tap_card(page, int(await card.get_attribute("data-card") or -1))
            await seq_above(page, st["seq"])
    # The page catches up with the bot: the computers may still be moving
    # (a second apart), so the bot's table is read again until the page
    # shows it as it is.
    live = await bot.app.services.registry.get(table_id)
    shown = -1
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        live = await bot.app.services.registry.get(table_id)
        assert live is not None
        shown = (await page_state(page))["seq"]
        if shown == live.seq and not bot.app.services.registry.busy(table_id):
            break
        await asyncio.sleep(0.05)
    assert live is not None and shown == live.seq, (live.seq, await page_dump(page))
    assert shown > seq


async def card_at(page: Any, x: float, y: float) -> int | None:
    """The card of the hand a finger at (x, y) is on, if any."""
    found = await page.evaluate(
        """([x, y]) => { const hit = document.elementFromPoint(x, y);
            const card = hit && hit.closest('#hand .card');
            return card ? Number(card.dataset.card) : null; }""",
        [x, y],
    )
    return None if found is None else int(found)


async def resize(page: Any, width: int) -> None:
    """The viewport made ``width`` wide (a phone turned, Telegram's panel
    expanded), once the page has had the resize event."""
    before = await page.evaluate("window.__resizes")
    await page.set_viewport_size({"width": width, "height": 844})
    await page.wait_for_function("(n) => window.__resizes > n", arg=before)


@pytest.mark.slow
async def test_the_card_played_is_the_card_touched(
    fake: FakeTelegram, tmp_path: Path, browser: Any, make_bot: MakeBot
) -> None:
    """A finger goes down on a card, the hand is laid out anew (the viewport
    changes) before it lifts: the card played is the one touched, not the
    one the new layout put under the finger. Just after a relayout a tap is
    not taken (the finger was aimed at what lay there before); once the hand
    is still, it is."""
    await make_bot(webapp_settings(fake, tmp_path, free_port(), ai_move_delay=0.1))
    _, anna, _ = await seated_pair(fake)
    page, _ = await open_app(browser, fake, anna, sign_init_data(fake.token, anna, time.time()))
    # The computers have bid: the table waits for Анна or Борис (who does
    # not move), so no state moves the hand meanwhile.
    await page.wait_for_selector(
        "#app[data-state='ready'] :is(.seat[data-seat='0'], .seat[data-seat='1']).turn"
    )
    await page.evaluate(
        "() => { window.__resizes = 0;"
        " addEventListener('resize', () => { window.__resizes += 1; }); }"
    )
    sent: list[int] = []

    async def record(route: Any) -> None:
        sent.append(int(json.loads(route.request.post_data)["action"]))
        await route.continue_()

    await page.route("**/api/move", record)
    await settled(page)
    touched = int(await page.locator("#hand .card").nth(4).get_attribute("data-card") or -1)
    x, y = await finger_point(page, page.locator(f"#hand .card[data-card='{touched}']"))
    # Narrower, the hand lies otherwise: another card is where the finger is.
    await resize(page, 320)
    await settled(page)
    moved_in = await card_at(page, x, y)
    assert moved_in is not None and moved_in != touched, (touched, moved_in)
    await resize(page, 390)
    await settled(page)
    assert await card_at(page, x, y) == touched

    cdp = await browser.new_cdp_session(page)
    clicks = await page.evaluate("window.__clicks")
    await cdp.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}
    )
    await resize(page, 320)  # while the finger is down
    await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    await page.wait_for_function("(n) => window.__clicks > n", arg=clicks)
    await settled(page)
    assert sent == [touched], (touched, moved_in, await page_dump(page))
    # Drawn as it is now once the finger lifted: the other card is there.
    assert await card_at(page, x, y) == moved_in

    # Just after a relayout (the page's clock stopped there) a tap is not taken.
    await page.clock.install()
    await page.clock.pause_at(time.time() + 3600)
    await resize(page, 390)
    assert await card_at(page, x, y) == touched
    await tap(page, page.locator(f"#hand .card[data-card='{touched}']"))
    assert await page.evaluate("!!document.getElementById('hand').dataset.settling")
    await asyncio.sleep(0.3)
    assert sent == [touched], (touched, await page_dump(page))
    await page.clock.run_for(1000)  # the hand is still: the tap is taken
    await tap(page, page.locator(f"#hand .card[data-card='{touched}']"))
    await page.clock.resume()
    await settled(page)
    assert sent == [touched, touched], (touched, await page_dump(page))


async def test_a_stale_sign_in_is_told_in_the_page(
    fake: FakeTelegram, tmp_path: Path, browser: Any, make_bot: MakeBot
) -> None:
    await make_bot(webapp_settings(fake, tmp_path, free_port()))
    _, anna, _ = await seated_pair(fake)
    old = sign_init_data(fake.token, anna, time.time() - 2 * 86400)
    page, _ = await open_app(browser, fake, anna, old)
    await page.wait_for_selector("#app[data-state='message']")
    assert await page.locator("#message").text_content() == (
        "Вход устарел. Закройте стол и откройте его заново кнопкой «🃏 Стол»."
    )
    assert await page.locator("#hand .card").count() == 0


async def test_a_move_the_network_holds_is_given_up_and_said(
    fake: FakeTelegram, tmp_path: Path, browser: Any, make_bot: MakeBot
) -> None:
    """A phone's request can hang for minutes. Meanwhile the page shows the
    move pending and takes no other; after 15 s it gives the move up, says
    there is no connection, and shows the bot's state again (the move was
    never made), and the next tap plays."""
    bot = await make_bot(webapp_settings(fake, tmp_path, free_port(), ai_move_delay=0.1))
    held: list[Any] = []
    try:
        table, anna, boris = await seated_pair(fake)
        page, _ = await open_app(browser, fake, anna, sign_init_data(fake.token, anna, time.time()))
        table_id = table_of(fake, anna)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # Борис bids from the chat until it is Анна's turn
            await fake.wait_idle(quiet=0.05)
            if (await page_state(page))["mine"]:
                break
            await asyncio.sleep(0.05)
            for msg in [m for u, m in table.actionable() if u is boris][:1]:
                await (
                    await fake.press(boris, boris.id, msg.message_id, move_buttons(msg)[0])
                ).answer()
        st = await page_state(page)
        assert st["mine"] and st["phase"] == "bid", await page_dump(page)
        seq = st["seq"]
        await page.clock.install()

        async def hold(route: Any) -> None:
            held.append(route)  # never answered: the network holds it

        await page.route("**/api/move", hold)
        bids = page.locator("#choices .bids button:not(.dim)")
        bid = int(await bids.nth(3).get_attribute("data-a") or -1) - 52
        await tap(page, bids.nth(3))
        await page.wait_for_function("() => document.getElementById('app').dataset.busy === '1'")
        assert len(held) == 1
        # Pending: shown once the answer is slow, and a second tap is no second move.
        await page.wait_for_function(
            "() => getComputedStyle(document.getElementById('choices')).opacity === '0.6'"
        )
        await tap(page, bids.nth(4))
        await asyncio.sleep(0.3)
        assert len(held) == 1

        await page.clock.run_for(16_000)
        toast = page.locator("#toast")
        await toast.wait_for(state="visible")
        assert await toast.text_content() == "Нет связи с ботом. Попробуйте ещё раз."
        await page.wait_for_function("() => !document.getElementById('app').dataset.busy")
        assert "notification:error" in await page.evaluate("window.__haptics")
        assert (await page_state(page))["seq"] == seq
        assert await page.locator(".seat.me .bid[data-bid]").count() == 0
        live = await bot.app.services.registry.get(table_id)
        assert live is not None and live.seq == seq  # the bot never had it

        await page.unroute("**/api/move")
        await tap(page, bids.nth(3))
        await seq_above(page, seq)
        assert await page.locator(f".seat.me .bid[data-bid='{bid}']").count() == 1
    finally:
        for route in held:
            with contextlib.suppress(Exception):
                await route.abort()


async def test_the_claim_asks_first_and_is_sent_once_confirmed(
    fake: FakeTelegram, tmp_path: Path, browser: Any, make_bot: MakeBot
) -> None:
    """«Остальные мои» on Анна's turn in play: the browser's confirm where
    Telegram has no dialog (declined: nothing sent), Telegram's own where it
    has one; sent, the computer among the other side refuses it at once, and
    after two claims the button is gone."""
    await make_bot(webapp_settings(fake, tmp_path, free_port()))
    db = tmp_path / "spades.db"
    table, anna, _ = await seated_pair(fake)
    await to_first_claim(fake, table, [anna], db)
    page, _ = await open_app(browser, fake, anna, sign_init_data(fake.token, anna, time.time()))
    await page.wait_for_selector("#app[data-state='ready']")
    button = page.locator("#choices .action.claim")
    await button.wait_for(state="visible")
    assert await button.text_content() == "🙌 Остальные мои"
    question = "Сказать «Остальные мои» — все оставшиеся взятки берёте вы?"
    asked: list[str] = []

    async def decline(dialog: Any) -> None:
        asked.append(dialog.message)
        await dialog.dismiss()

    page.once("dialog", decline)
    await tap(page, button)
    await page.wait_for_function("() => !document.getElementById('app').dataset.busy")
    assert len(asked) == 1 and asked[0].startswith(question)
    assert "selection" not in await page.evaluate("window.__haptics")  # nothing sent
    await fake.wait_idle(quiet=0.05)
    assert claim_rows(db) == []

    await page.evaluate(
        """() => { window.__confirms = [];
            window.Telegram.WebApp.showConfirm = (text, done) => {
                window.__confirms.push(text); setTimeout(() => done(true), 0); }; }"""
    )
    for n in (1, 2):
        await tap(page, button)
        await fake.wait_for(lambda n=n: len(claim_rows(db)) == n, timeout=60)
        # Recorded, so sent: the page is busy with it until its answer is drawn.
        await page.wait_for_function("() => !document.getElementById('app').dataset.busy")
    await button.wait_for(state="detached")
    confirms = await page.evaluate("window.__confirms")
    assert len(confirms) == 2 and all(c.startswith(question) for c in confirms)
    assert [st for st, _ in claim_rows(db)] == ["refused", "refused"]
    assert len(asked) == 1  # the browser's dialog no more
    assert await page.locator("#hand .card.playable").count() > 0
