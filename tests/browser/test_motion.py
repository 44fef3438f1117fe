"""Cards that move and a hand the player arranges (docs/web.md), on Debian's Chromium.

A flight plays while the page takes the player's input; under ``prefers-reduced-motion`` none
plays. A card dragged to a column of its own (by a mouse, or a finger on a phone) keeps its
place across redraws, a discard and a reload; 理牌 puts the hand back in order and 自动理牌
groups it as ``POST /api/tidy`` says. The animations are slowed (DevTools'
``Animation.setPlaybackRate``) where a test must see one run, so nothing here races a 320 ms
flight. Set ``WMQ_DOC_SHOTS=1`` to refresh docs/img/.
"""

from __future__ import annotations

from typing import Any

from tests.browser.test_browser import (
    ASKED_JS,
    DESKTOP,
    WINNING_SEED,
    Browser,
    Page,
    decide,
    new_page,
    pytestmark,
    shot,
)
from tests.browser.test_table import LANDSCAPE, LONG_TURN, doc_shot, post

__all__ = ["pytestmark"]  # skipped, as the other browser tests, without Chromium

COLUMNS_JS = (
    "() => [...document.querySelectorAll('[data-testid=hand-col]')].map(c => c.dataset.cards)"
)
ANIM_JS = "() => Number(document.body.dataset.anim || 0)"


def seated_page(
    server: str, browser: Browser, errors: list[str], viewport: dict[str, int], **room: Any
) -> tuple[Page, str]:
    """A page at seat 0 of a new room against two bots that take their time (a move a frame),
    under a long turn timer (``LONG_TURN``: 托管 never answers for the page meanwhile)."""
    body = {"bots": {"1": "random", "2": "random"}, "bot_delay_ms": 300, "turn_seconds": LONG_TURN}
    room_id = post(server, "/api/rooms", {**body, **room})["room_id"]
    page = new_page(browser, errors, viewport)
    page.goto(f"{server}/r/{room_id}")
    page.get_by_test_id("sit-0").click()
    page.get_by_test_id("hand").wait_for()
    return page, room_id


def slow_motion(page: Page, rate: float) -> None:
    """Run the page's animations at ``rate`` × their speed (DevTools, no change to the page)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Animation.enable")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": rate})


def test_a_flight_runs_while_the_page_takes_input(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page, _ = seated_page(server, browser, page_errors, DESKTOP, seed=5)
    slow_motion(page, 0.04)  # a 320 ms flight lasts 8 s
    accepted = 0
    for _ in range(40):
        state = page.wait_for_function(ASKED_JS).json_value()
        if state == "end":
            break
        running = page.evaluate(ANIM_JS)
        before = int(page.evaluate("document.body.dataset.received"))
        if decide(page) == "retry":
            continue
        if running:
            # Input taken during a flight: the server answers (ack or events) and the page is
            # no longer busy, while the flight still runs over a card already in its place.
            page.wait_for_function(
                f"() => Number(document.body.dataset.received) > {before}"
                " && document.body.dataset.busy === 'false'"
            )
            assert page.evaluate(ANIM_JS) > 0
            # The flying nodes' style read in the instant they are found: one may end, and its
            # node go, between two reads.
            events = page.wait_for_function(
                "() => { const f = [...document.querySelectorAll('.flying')];"
                " return f.length ? f.map(n => getComputedStyle(n).pointerEvents) : null; }"
            ).json_value()
            assert set(events) == {"none"}, events
            accepted += 1
            if accepted == 1:
                doc_shot(page, "motion-flight-desktop", settled=False)
            if accepted >= 2:
                break
    assert accepted >= 2, "no decision came while a card flew"
    assert int(page.evaluate("document.body.dataset.animPlayed")) > 0
    assert page.get_by_test_id("error").count() == 0
    assert page_errors == []


def test_reduced_motion_plays_nothing(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    body = {"bots": {"1": "random", "2": "random"}, "bot_delay_ms": 300, "turn_seconds": LONG_TURN}
    room_id = post(server, "/api/rooms", {**body, "seed": 5})["room_id"]
    context = browser.new_context(viewport=LANDSCAPE, locale="zh-CN", reduced_motion="reduce")
    page = context.new_page()
    page.on("pageerror", lambda exc: page_errors.append(str(exc)))
    page.set_default_timeout(15_000)
    page.goto(f"{server}/r/{room_id}")
    page.get_by_test_id("sit-0").click()
    page.get_by_test_id("hand").wait_for()
    for _ in range(6):
        if decide(page) == "end":
            break
    page.wait_for_function("() => Number(document.body.dataset.animSkipped) > 2")
    assert page.evaluate("document.body.dataset.animPlayed") == "0"
    assert page.locator(".flying, .hu-burst").count() == 0
    context.close()
    assert page_errors == []


def test_a_hu_bursts_over_the_winner(server: str, browser: Browser, page_errors: list[str]) -> None:
    # WINNING_SEED: with two random bots and first-legal answers our seat wins (test_browser).
    page, _ = seated_page(server, browser, page_errors, LANDSCAPE, seed=WINNING_SEED)
    slow_motion(page, 0.05)
    for _ in range(200):
        if decide(page) == "end":
            break
    page.locator(".hu-burst").wait_for(state="attached")
    page.wait_for_function(
        "() => { const w = document.querySelector('.hu-burst .word');"
        " return w && Number(getComputedStyle(w).opacity) > 0.8; }"
    )
    doc_shot(page, "motion-hu-phone-landscape", settled=False)
    assert page.locator(".hu-burst").get_attribute("data-seat") == "0"
    assert page_errors == []


def drag(page: Page, start: dict[str, float], end: tuple[float, float], hold: bool = False) -> None:
    """Press at the middle of ``start``, move (after holding, to pick up the column) and drop."""
    x = start["x"] + start["width"] / 2
    y = start["y"] + start["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    if hold:
        page.wait_for_function("() => document.body.dataset.dragging === 'column'")
    page.mouse.move(x + 12, y, steps=3)
    page.wait_for_function("() => Boolean(document.body.dataset.dragging)")
    page.mouse.move(end[0], end[1], steps=8)
    page.mouse.up()
    page.wait_for_function("() => !document.body.dataset.dragging")


def test_a_dragged_card_keeps_its_place(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    # Seat 0 deals: the page has 21 cards and is asked to discard at once, so nothing else
    # changes our hand while we arrange it.
    page, _ = seated_page(server, browser, page_errors, LANDSCAPE, seed=11)
    page.locator("[data-testid=hand-face][data-legal=true]").first.wait_for()
    sorted_cols: list[str] = page.evaluate(COLUMNS_JS)
    assert all(len(set(c)) == 1 for c in sorted_cols)
    hand = page.get_by_test_id("hand").bounding_box()
    assert hand is not None
    # The first card of the hand to a new column at its right end.
    first = page.locator("[data-testid=hand-col]").first.locator("[data-pos]").last
    box = first.bounding_box()
    assert box is not None
    last = page.locator("[data-testid=hand-col]").last.bounding_box()
    assert last is not None
    face = sorted_cols[0][0]
    drag(page, box, (last["x"] + last["width"] + 14, last["y"] + last["height"] / 2))
    moved = [*sorted_cols]
    moved[0] = moved[0][1:]
    moved = [c for c in moved if c] + [face]
    assert page.evaluate(COLUMNS_JS) == moved
    doc_shot(page, "hand-arranged-phone-landscape")

    # A whole column, held and dragged, goes before the first.
    third = page.locator("[data-testid=hand-col]").nth(2).bounding_box()
    target = page.locator("[data-testid=hand-col]").first.bounding_box()
    assert third is not None and target is not None
    drag(page, third, (target["x"] + 2, target["y"] + target["height"] / 2), hold=True)
    moved = [moved[2], *moved[:2], *moved[3:]]
    assert page.evaluate(COLUMNS_JS) == moved

    # A tap still discards: a face other than the moved one. The hand keeps its arrangement.
    other = next(
        f
        for f in page.locator("[data-testid=hand-face][data-legal=true]").evaluate_all(
            "ns => ns.map(n => n.dataset.face)"
        )
        if f != face
    )
    page.locator(f"[data-testid=hand-face][data-face='{other}'][data-legal=true]").last.click()
    size = len("".join(moved))
    page.wait_for_function(
        f"() => document.querySelector('[data-testid=hand]').dataset.cards.length === {size - 1}"
    )
    at = max(i for i, c in enumerate(moved) if other in c)
    moved[at] = moved[at].replace(other, "", 1)
    moved = [c for c in moved if c]
    assert page.evaluate(COLUMNS_JS) == moved
    # Redraws: other seats play on (bots), the hints are turned on and off.
    received = int(page.evaluate("document.body.dataset.received"))
    page.get_by_test_id("hints-toggle").click()
    page.get_by_test_id("hints-toggle").click()
    page.wait_for_function(f"() => Number(document.body.dataset.received) > {received}")
    assert page.evaluate(COLUMNS_JS) == moved

    # A reload (a new socket, a snapshot) finds the hand as the player left it.
    page.reload()
    page.get_by_test_id("hand").wait_for()
    page.wait_for_function("() => document.querySelectorAll('[data-testid=hand-col]').length > 0")
    assert page.evaluate(COLUMNS_JS) == moved

    # 理牌: back in order.
    page.get_by_test_id("tidy").click()
    cols = page.evaluate(COLUMNS_JS)
    assert all(len(set(c)) == 1 for c in cols)
    assert "".join(cols) == page.get_by_test_id("hand").get_attribute("data-cards")

    # 自动理牌: the hand as POST /api/tidy groups it, remembered on this device.
    text = page.get_by_test_id("hand").get_attribute("data-cards") or ""
    want = post(server, "/api/tidy", {"hand": text})
    page.get_by_test_id("auto-tidy").click()
    groups = [g["cards"] for g in want["groups"]]
    page.wait_for_function(
        f"(g) => ({COLUMNS_JS})().slice(0, g.length).join('|') === g.join('|')", arg=groups
    )
    assert page.get_by_test_id("auto-tidy").get_attribute("aria-pressed") == "true"
    # docs/img's picture of 自动理牌 is test_nightly's, a hand that holds two 坎.
    shot(page, "hand-auto-tidy-arranged-phone-landscape")
    page.reload()
    page.get_by_test_id("auto-tidy").wait_for()
    assert page.get_by_test_id("auto-tidy").get_attribute("aria-pressed") == "true"
    assert page_errors == []


def test_dragging_on_the_desktop(server: str, browser: Browser, page_errors: list[str]) -> None:
    page, _ = seated_page(server, browser, page_errors, DESKTOP, seed=11)
    page.locator("[data-testid=hand-face][data-legal=true]").first.wait_for()
    before: list[str] = page.evaluate(COLUMNS_JS)
    # A card dropped on another column joins it at the point of the drop (here: on top).
    src = page.locator("[data-testid=hand-col]").nth(1).locator("[data-pos]").last.bounding_box()
    dst = page.locator("[data-testid=hand-col]").nth(4).bounding_box()
    assert src is not None and dst is not None
    x = src["x"] + src["width"] / 2
    y = src["y"] + src["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 20, y - 10, steps=3)
    page.mouse.move(dst["x"] + dst["width"] / 2, dst["y"] + 4, steps=6)
    doc_shot(page, "hand-drag-desktop")
    page.mouse.up()
    page.wait_for_function("() => !document.body.dataset.dragging")
    after = page.evaluate(COLUMNS_JS)
    face = before[1][-1]
    assert after[3 if len(before[1]) == 1 else 4] == face + before[4]
    assert page_errors == []


def touch_drag(page: Page, start: dict[str, float], end: tuple[float, float]) -> None:
    """A finger on the middle of ``start``, moved to ``end`` and lifted: real touch events
    (DevTools' ``Input.dispatchTouchEvent``), which the page gets as pointer events of a touch."""
    cdp = page.context.new_cdp_session(page)
    x, y = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2

    def touch(kind: str, at: tuple[float, float] | None) -> None:
        points = [] if at is None else [{"x": at[0], "y": at[1], "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", (x, y))
    for k in range(1, 11):
        touch("touchMove", (x + (end[0] - x) * k / 10, y + (end[1] - y) * k / 10))
    touch("touchEnd", None)
    page.wait_for_function("() => !document.body.dataset.dragging")


def test_a_finger_drags_a_card_on_a_phone(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    body = {"bots": {"1": "random", "2": "random"}, "bot_delay_ms": 300, "turn_seconds": LONG_TURN}
    room_id = post(server, "/api/rooms", {**body, "seed": 11})["room_id"]
    context = browser.new_context(
        viewport=LANDSCAPE, locale="zh-CN", has_touch=True, is_mobile=True
    )
    page = context.new_page()
    page.on("pageerror", lambda exc: page_errors.append(str(exc)))
    page.goto(f"{server}/r/{room_id}")
    page.get_by_test_id("sit-0").tap()
    page.locator("[data-testid=hand-face][data-legal=true]").first.wait_for()
    before: list[str] = page.evaluate(COLUMNS_JS)
    first = page.locator("[data-testid=hand-col]").first.locator("[data-pos]").last.bounding_box()
    last = page.locator("[data-testid=hand-col]").last.bounding_box()
    assert first is not None and last is not None
    scrolled = page.evaluate("() => [window.scrollX, window.scrollY]")
    page.evaluate(
        "() => { window.kinds = new Set();"
        " addEventListener('pointermove', e => kinds.add(e.pointerType), true); }"
    )
    touch_drag(page, first, (last["x"] + last["width"] + 14, last["y"] + last["height"] / 2))
    moved = [c for c in [before[0][1:], *before[1:]] if c] + [before[0][0]]
    assert page.evaluate(COLUMNS_JS) == moved
    assert page.evaluate("() => [...kinds]") == ["touch"]  # a finger, not a mouse
    # The finger moved the card, not the page, and discarded nothing.
    assert page.evaluate("() => [window.scrollX, window.scrollY]") == scrolled
    assert len("".join(page.evaluate(COLUMNS_JS))) == len("".join(before))
    assert page_errors == []
    context.close()
