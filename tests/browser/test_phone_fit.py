"""Everything in view, nothing over anything, on a phone held sideways (844×390) and on a
computer (1280×800) (docs/web.md "At the table", "三丁拐", "Between hands"): against the real
``wmq serve`` in Debian's Chromium.

- A seeded 三丁拐 room (seed 19, two greedy bots) played by clicking the board: at every
  decision the document does not scroll, no seat's content is cut off, the board takes the
  screen's height with the hand's tiles large and the discards readable, and the claim buttons
  lie over nothing; at the hand's end the result shows whole without scrolling in itself (every
  payment a chip, none over another), and the table as it ended keeps 看本局结果 off the hand,
  the 翻牌 and the chickens.
- The same room dissolved: 换规则再来's rule form fits the screen without scrolling in itself,
  its options in pages (each page's options inside the dialog, none over another), and a room
  made from an option of the last page has it.
- 偎麻雀 tables of three (seed 29) and of two (全名堂 二人, seed 8; seed 5, a 臭) played to the
  hand's end under 托管: the result's winning cards lie over no heading of the breakdown, in both
  languages, and neither the result nor the table as it ended makes the document scroll; the
  log under the table leaves 看本局结果's corner.

Screenshots go to out/screenshots/ (``phone-fit-*``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    Page,
    dissolve_alone,
    new_page,
    pytestmark,
    shot,
    sync_api,
)
from tests.browser.test_table import LANDSCAPE, LONG_TURN, get, post

VIEWS = [(LANDSCAPE, "phone"), (DESKTOP, "desktop")]
FORM = "form[data-testid=rematch-form]"

# What the 三丁拐 page asks of us now, read at once: "end", "button", "tile" or "wait".
SDG_STATE_JS = """() => {
  if (document.querySelector('[data-testid=result-host]')) return 'end';
  if (document.body.dataset.busy === 'true') return 'wait';
  const act = '[data-testid=actions] .buttons button.act:not([disabled])';
  if (document.querySelector(act)) return 'button';
  if (document.querySelector('[data-testid=hand-tile][data-legal=true]')) return 'tile';
  return 'wait';
}"""

# The boxes of what matches each selector (visible ones only), in CSS pixels.
BOXES_JS = """(sels) => sels.map((sel) => [...document.querySelectorAll(sel)]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .map((e) => { const b = e.getBoundingClientRect();
    return { sel, left: b.left, top: b.top, right: b.right, bottom: b.bottom }; }))"""

# Elements whose content is taller or wider than their box: cut off, or scrolling in itself.
OVERFLOW_JS = """(sels) => sels.flatMap((sel) => [...document.querySelectorAll(sel)]
  .filter((e) => e.getClientRects().length
    && (e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1))
  .map((e) => `${sel}: ${e.scrollWidth}×${e.scrollHeight}`
    + ` in ${e.clientWidth}×${e.clientHeight}`))"""


def no_scroll(page: Page) -> None:
    """The document shows everything without scrolling."""
    size = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight,"
        " innerWidth, innerHeight]"
    )
    assert size[0] <= size[2] and size[1] <= size[3], f"the page scrolls: {size}"


def not_cut(page: Page, *selectors: str) -> None:
    """No element of ``selectors`` scrolls in itself or cuts its content off."""
    assert page.evaluate(OVERFLOW_JS, list(selectors)) == []


def boxes(page: Page, selector: str) -> list[dict[str, Any]]:
    return list(page.evaluate(BOXES_JS, [selector])[0])


def overlapping(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return (
        a["left"] < b["right"] - 1
        and b["left"] < a["right"] - 1
        and a["top"] < b["bottom"] - 1
        and b["top"] < a["bottom"] - 1
    )


def apart(page: Page, first: str, second: str | None = None) -> None:
    """No box of ``first`` overlaps a box of ``second`` (or another of ``first``): both read
    in one go, so a redraw between two reads cannot set one layout's boxes against another's."""
    one, other = page.evaluate(BOXES_JS, [first, second or first])
    for i, a in enumerate(one):
        for j, b in enumerate(other):
            if second is None and j <= i:
                continue
            assert not overlapping(a, b), (a, b)


def in_viewport(page: Page, selector: str) -> None:
    width, height = page.evaluate("() => [innerWidth, innerHeight]")
    for b in boxes(page, selector):
        assert b["left"] >= 0 and b["top"] >= 0, b
        assert b["right"] <= width + 0.5 and b["bottom"] <= height + 0.5, b


def inside(page: Page, selector: str, container: str) -> None:
    """Every box of ``selector`` lies within the box of ``container``."""
    (outer,), inner = page.evaluate(BOXES_JS, [container, selector])
    for b in inner:
        assert b["left"] >= outer["left"] - 0.5 and b["right"] <= outer["right"] + 0.5, (b, outer)
        assert b["top"] >= outer["top"] - 0.5 and b["bottom"] <= outer["bottom"] + 0.5, (b, outer)


def sandingguai_room(page: Page, server: str, seed: int = 19) -> str:
    """A 三丁拐 room of two greedy bots (seeded, a 600 s turn timer: 托管 never answers for us
    while the page is measured on a loaded machine), our seat taken; its id."""
    body = {
        "game": "sandingguai",
        "bots": {"1": "greedy", "2": "greedy"},
        "bot_delay_ms": 0,
        "seed": seed,
        "turn_seconds": LONG_TURN,
    }
    room = str(post(server, "/api/rooms", body)["room_id"])
    page.goto(f"{server}/r/{room}")
    page.get_by_test_id("name-input").fill("小王")
    page.get_by_test_id("sit-0").click()
    page.locator("[data-testid=board][data-game=sandingguai]").wait_for()
    return room


def check_sandingguai_table(page: Page, phone: bool) -> None:
    """The 三丁拐 table as it stands: nothing scrolls, nothing cut off, buttons over nothing."""
    no_scroll(page)
    not_cut(page, "[data-testid=board] .seat", "[data-testid=board]")
    apart(page, "[data-testid=actions] button.act", "[data-testid=hand-tile]")
    apart(page, "[data-testid=board] > .seat")
    in_viewport(page, "[data-testid=actions] button.act")
    in_viewport(page, "[data-testid=hand-tile]")
    if phone:
        # The board takes the height: larger tiles in hand, readable discards and melds.
        (board,) = boxes(page, "[data-testid=board]")
        assert board["bottom"] >= 390 - 12, board
        for tile in boxes(page, "[data-testid=hand-tile] .tile"):
            assert tile["right"] - tile["left"] >= 44, tile
        for tile in boxes(page, "[data-testid=row] .tile, [data-testid=meld] .tile"):
            assert tile["right"] - tile["left"] >= 19, tile


@pytest.mark.parametrize(("viewport", "name"), VIEWS)
def test_a_sandingguai_hand_and_its_result_fit_the_screen(
    server: str, browser: Browser, page_errors: list[str], viewport: dict[str, int], name: str
) -> None:
    phone = viewport is LANDSCAPE
    page = new_page(browser, page_errors, viewport)
    sandingguai_room(page, server)
    seen: set[str] = set()
    for _ in range(300):
        page.wait_for_function(f"() => ({SDG_STATE_JS})() !== 'wait'", timeout=30_000)
        state = str(page.evaluate(SDG_STATE_JS))
        if state == "end":
            break
        if state == "wait":
            continue
        check_sandingguai_table(page, phone)
        try:
            if state == "button":
                button = page.locator("[data-testid=actions] .buttons button.act:not([disabled])")
                kinds = set(button.evaluate_all("bs => bs.map((b) => b.dataset.testid)"))
                if not kinds <= seen:
                    shot(page, f"phone-fit-sdg-{'-'.join(sorted(kinds))}-{name}")
                seen |= kinds
                button.first.click(timeout=3_000)
            else:
                seen.add("tile")
                tile = page.locator("[data-testid=hand-tile][data-legal=true]").last
                tile.click(timeout=3_000)
                raised = page.locator("[data-testid=hand-tile][data-raised=true]")
                if raised.count():  # the second tap of a touch screen
                    raised.click(timeout=3_000)
        except sync_api.TimeoutError:
            continue  # the table moved on while we clicked: look again
    else:
        raise AssertionError(f"the hand never ended: {sorted(seen)}")
    # Seed 19 and these clicks: 碰 and 过 were offered, and tiles discarded.
    assert {"action-peng", "action-pass", "tile"} <= seen, seen

    # The result: whole, without scrolling in itself; every payment a row, none over another.
    page.get_by_test_id("result").wait_for()
    shot(page, f"phone-fit-sdg-result-{name}")
    no_scroll(page)
    not_cut(page, ".result-sheet")
    rows = page.locator("[data-testid=transfers] tbody tr")
    assert rows.count() >= 10  # seed 19: the 胡, the kongs, the chickens and 包鸡
    apart(page, "[data-testid=transfers] tbody tr")
    apart(page, "[data-testid=result] > *")
    in_viewport(page, "[data-testid=transfers] tbody tr")
    in_viewport(page, "[data-testid=next-hand]")

    # The table as it ended: every hand face up, the 翻牌 and the chickens, 看本局结果 over none.
    page.get_by_test_id("result-hide").click()
    page.get_by_test_id("result-show").wait_for()
    shot(page, f"phone-fit-sdg-ended-{name}")
    no_scroll(page)
    not_cut(page, "[data-testid=board] .seat", "[data-testid=board]")
    assert page.get_by_test_id("end-strip").locator("[data-testid=tile]").count() >= 3
    in_viewport(page, "[data-testid=end-strip] [data-testid=tile]")
    for part in ("[data-testid=hand-tile]", "[data-testid=end-strip] > *", ".seat-head"):
        apart(page, "[data-testid=result-show]", part)
    assert page_errors == []


@pytest.mark.parametrize(("viewport", "name"), VIEWS)
def test_the_rematch_rule_form_fits_the_screen_in_pages(
    server: str, browser: Browser, page_errors: list[str], viewport: dict[str, int], name: str
) -> None:
    page = new_page(browser, page_errors, viewport)
    room = sandingguai_room(page, server)
    # 解散 with only bots to agree: the match ends, and 换规则再来 is offered.
    dissolve_alone(page)
    no_scroll(page)
    not_cut(page, ".result-sheet")
    page.get_by_test_id("rematch-rules-open").click()
    form = page.locator("form[data-testid=rematch-form]")
    form.wait_for()
    form.get_by_test_id("rematch-options").click()
    options = form.locator("label.option")
    total = options.count()
    assert total >= 50  # 三丁拐's schema: every option is in the form
    tabs = form.locator("[data-testid^=rematch-page-]")
    pages = tabs.count()
    assert pages >= 2
    shown: list[str] = []
    for i in range(pages):
        tabs.nth(i).click()
        assert tabs.nth(i).get_attribute("aria-selected") == "true"
        shot(page, f"phone-fit-rematch-page{i + 1}-{name}")
        no_scroll(page)
        not_cut(page, FORM)
        visible = form.locator("label.option:visible")
        assert visible.count() >= 1
        shown += [visible.nth(k).get_attribute("title") or "" for k in range(visible.count())]
        inside(page, f"{FORM} label.option", FORM)
        apart(page, f"{FORM} label.option")
        in_viewport(page, "[data-testid=rematch-create]")
        in_viewport(page, "[data-testid=rematch-cancel]")
    # Every option on exactly one page.
    assert len(shown) == total == len(set(shown)), (len(shown), total)

    # 局数, on the last page: changed there, the page's tab says so, the new room has it.
    last = tabs.nth(pages - 1)
    last.click()
    hands = form.get_by_test_id("rematch-opt-match_hands")
    hands.fill("2")
    hands.dispatch_event("change")
    assert "(1)" in last.inner_text()
    form.get_by_test_id("rematch-create").click()
    page.wait_for_url(lambda url: "/r/" in url and not url.endswith(f"/r/{room}"))
    fresh = page.url.rsplit("/r/", 1)[1]
    info = get(server, f"/api/rooms/{fresh}")["room"]
    assert (info["game"], info["rules"]["overrides"]) == ("sandingguai", {"match_hands": 2})
    assert page_errors == []


# Under 托管: seed 29 (three) and seed 8 (two) end in a win, seed 5 (two) in a 臭.
MAQUE_ROOMS = [
    ({"seed": 29, "bots": {"1": "greedy", "2": "greedy"}}, "three"),
    ({"variant": "quanmingtang-2p", "seed": 8, "bots": {"1": "greedy"}}, "two"),
    ({"variant": "quanmingtang-2p", "seed": 5, "bots": {"1": "greedy"}}, "two-chou"),
]


def check_maque_result(page: Page) -> None:
    """The hand's result over the table: the page does not scroll under it; the winning cards
    lie over none of the breakdown's headings and rows, nor any part of the sheet over another."""
    no_scroll(page)
    apart(page, "[data-testid=hand-end] > *")
    apart(page, "[data-testid=win-hand] .card", "[data-testid=breakdown] caption")
    apart(page, "[data-testid=win-hand] .card", "[data-testid=group]")
    apart(page, "[data-testid=breakdown] > *")


@pytest.mark.parametrize(("viewport", "name"), VIEWS)
@pytest.mark.parametrize(("body", "seats"), MAQUE_ROOMS)
def test_a_maque_result_and_the_table_it_ended_fit_the_screen(
    server: str,
    browser: Browser,
    page_errors: list[str],
    viewport: dict[str, int],
    name: str,
    body: dict[str, Any],
    seats: str,
) -> None:
    room = post(server, "/api/rooms", {"bot_delay_ms": 0, "turn_seconds": None, **body})
    page = new_page(browser, page_errors, viewport)
    page.goto(f"{server}/r/{room['room_id']}")
    page.get_by_test_id("sit-0").click()
    page.get_by_test_id("board").wait_for()
    page.get_by_test_id("autoplay-on").dispatch_event("click")
    page.get_by_test_id("autoplay-banner").wait_for()
    no_scroll(page)
    page.get_by_test_id("hand-end").wait_for(timeout=120_000)
    shot(page, f"phone-fit-maque-{seats}-result-{name}")
    won = page.get_by_test_id("win-hand").locator(".card").count()
    assert (won > 0) == (seats != "two-chou"), won
    check_maque_result(page)
    page.get_by_test_id("lang-toggle").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=lang-toggle]')?.textContent === '中文'"
    )
    check_maque_result(page)
    page.get_by_test_id("lang-toggle").click()

    # The table as it ended, under 托管: one screen; the log leaves 看本局结果's corner.
    page.get_by_test_id("result-hide").click()
    page.get_by_test_id("result-show").wait_for()
    shot(page, f"phone-fit-maque-{seats}-ended-{name}")
    no_scroll(page)
    in_viewport(page, "[data-testid=hand]")
    for part in ("main.room button:not(.result-show)", "[data-testid=hand] .card"):
        apart(page, "[data-testid=result-show]", part)
    assert page_errors == []
