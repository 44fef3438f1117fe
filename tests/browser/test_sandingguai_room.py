"""A 三丁拐 room in Debian's Chromium against the real ``wmq serve`` (docs/web.md "三丁拐"):
created through the lobby's game choice with two bots, its hand played by clicking the board
(the last legal tile, else the first claim button) until it ends, at desktop size and on a phone
held sideways with nothing to scroll; the result lies over the table."""

from __future__ import annotations

import pytest

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    new_page,
    pytestmark,
)
from tests.browser.test_sandingguai_board import PHONE_LANDSCAPE, doc_shot, fits

# What the page asks of us now, read at once: "end", "button", "tile" or "wait".
STATE_JS = """() => {
  if (document.querySelector('[data-testid=result-host]')) return 'end';
  const act = '[data-testid=actions] .buttons button.act:not([disabled])';
  if (document.querySelector(act)) return 'button';
  if (document.querySelector('[data-testid=hand-tile][data-legal=true]')) return 'tile';
  return 'wait';
}"""
ASKED_JS = f"() => {{ const s = ({STATE_JS})(); return s !== 'wait' && s; }}"


@pytest.mark.parametrize(
    ("viewport", "name"), [(DESKTOP, "desktop"), (PHONE_LANDSCAPE, "phone-landscape")]
)
def test_a_sandingguai_room_played_by_clicking(
    server: str, browser: Browser, page_errors: list[str], viewport: dict[str, int], name: str
) -> None:
    page = new_page(browser, page_errors, viewport)
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    page.get_by_test_id("game").select_option("sandingguai")
    page.wait_for_selector("[data-testid=create-form][data-game=sandingguai]")
    page.get_by_test_id("seat-kind-1").select_option("greedy")
    page.get_by_test_id("seat-kind-2").select_option("greedy")
    page.get_by_test_id("more-options").click()
    page.get_by_test_id("bot-speed").select_option("0")
    page.get_by_test_id("seed").fill("19")
    page.get_by_test_id("create-room").click()
    page.wait_for_url("**/r/*")
    board = page.locator("[data-testid=board][data-game=sandingguai]")
    board.wait_for()
    decisions: list[str] = []
    shot = False
    for _ in range(200):
        handle = page.wait_for_function(ASKED_JS, timeout=30_000)
        state = handle.json_value()
        if state == "end":
            break
        assert fits(page), f"the table scrolled at decision {len(decisions)}"
        page.wait_for_function("() => document.body.dataset.busy !== 'true'")
        if state == "button":
            button = page.locator("[data-testid=actions] .buttons button.act:not([disabled])").first
            decisions.append(button.get_attribute("data-testid") or "")
            if not shot and decisions[-1] != "action-ting":
                doc_shot(page, f"sandingguai-room-claim-{name}")
                shot = True
            button.click()
        else:
            tile = page.locator("[data-testid=hand-tile][data-legal=true]").last
            decisions.append(f"tile {tile.get_attribute('data-tile')}")
            tile.click()
            raised = page.locator("[data-testid=hand-tile][data-raised=true]")
            if raised.count():  # two taps on a touch screen
                raised.click()
        page.wait_for_function("() => document.body.dataset.busy !== 'true'")
    else:
        raise AssertionError(f"the hand never ended: {decisions[-10:]}")
    assert decisions, "the page never asked us anything"
    page.get_by_test_id("result").wait_for()
    assert page.get_by_test_id("net").count() == 1
    doc_shot(page, f"sandingguai-room-end-{name}")
    # The drawer: the rules named as the game's schema names them, 三丁拐's legend, the hand
    # played listed with its replay (test_sandingguai_replay.py opens it).
    page.get_by_test_id("result-hide").click()
    page.get_by_test_id("menu").click()
    page.get_by_test_id("drawer").wait_for()
    assert "三丁拐" in page.get_by_test_id("room-rules").inner_text()
    assert page.get_by_test_id("meld-legend").locator("[data-testid=tile]").count() == 3
    page.get_by_test_id("history-toggle").click()
    page.get_by_test_id("history-hand").first.wait_for()
    assert page.get_by_test_id("history-hand").count() == 1
    assert page.get_by_test_id("replay-button").count() == 1
    doc_shot(page, f"sandingguai-room-drawer-{name}")
    assert page_errors == []
