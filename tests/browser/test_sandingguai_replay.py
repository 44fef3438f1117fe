"""A 三丁拐 hand's replay and 复盘 in Debian's Chromium against the real ``wmq serve``
(docs/web.md "Replay", docs/sandingguai.md §14): a seeded hand played to its end by bots (our
seat under 托管), its replay opened from the room's list of hands and from its 回放码, stepped
through to its end (the 翻牌, the chickens, every payment), its 复盘 drawn on the timeline; the
header names 三丁拐 in both languages; at desktop size and on a phone held sideways with nothing
to scroll. The match then ends (解散) and 再来一局 offers a new room at the game's own rules
form."""

from __future__ import annotations

import json
import os

import pytest
from playwright.sync_api import Page

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    dissolve_alone,
    new_page,
    pytestmark,
)
from tests.browser.test_sandingguai_board import DOCS, PHONE_LANDSCAPE, fits
from tests.browser.test_sandingguai_board import doc_shot as out_shot

SEED = 23
#: The pictures docs/web.md and docs/sandingguai.md show (``WMQ_DOC_SHOTS=1`` refreshes them).
PICTURES = {
    "sandingguai-replay-phone-landscape",
    "sandingguai-replay-end-desktop",
    "sandingguai-replay-review-phone-landscape",
    "sandingguai-replay-code-desktop",
    "sandingguai-rematch-rules-desktop",
}


def doc_shot(page: Page, name: str) -> None:
    """A screenshot in out/screenshots/, and in docs/img/ for the docs' pictures."""
    out_shot(page, name)
    if os.environ.get("WMQ_DOC_SHOTS") == "1" and name in PICTURES:
        style = page.add_style_tag(content="body { background: #24573f !important; }")
        page.screenshot(path=str(DOCS / f"{name}.png"))
        style.evaluate("node => node.remove()")


def _play_a_hand(page: Page, server: str) -> str:
    """A 三丁拐 room from the lobby (two greedy bots, a seed), our seat under 托管 until the hand
    ends; the room's id."""
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    page.get_by_test_id("game").select_option("sandingguai")
    page.wait_for_selector("[data-testid=create-form][data-game=sandingguai]")
    page.get_by_test_id("seat-kind-1").select_option("greedy")
    page.get_by_test_id("seat-kind-2").select_option("greedy")
    page.get_by_test_id("more-options").click()
    page.get_by_test_id("bot-speed").select_option("0")
    page.get_by_test_id("seed").fill(str(SEED))
    page.get_by_test_id("create-room").click()
    page.wait_for_url("**/r/*")
    page.locator("[data-testid=board][data-game=sandingguai]").wait_for()
    page.get_by_test_id("autoplay-on").click()
    page.get_by_test_id("result-host").wait_for(timeout=60_000)
    return page.url.rsplit("/r/", 1)[1]


def _header_says(page: Page, zh: str, en: str) -> None:
    brand = page.get_by_test_id("brand")
    assert brand.inner_text() == zh
    assert page.title() == zh
    page.get_by_test_id("lang-toggle").click()
    assert brand.inner_text() == en
    assert page.title() == en
    page.get_by_test_id("lang-toggle").click()
    assert brand.inner_text() == zh


def _step_through(page: Page) -> int:
    """Step the open replay forward to its end, one step at a time; the steps seen."""
    steps = 0
    while page.get_by_test_id("replay-next").is_enabled():
        page.get_by_test_id("replay-next").click()
        steps += 1
        assert fits(page), f"the replay scrolled at step {steps}"
    return steps


def _check_end(page: Page) -> None:
    """The last step: the hand's result by 三丁拐's board, then the table as it ended."""
    end = page.get_by_test_id("replay-end")
    end.wait_for()
    assert end.get_by_test_id("net").count() == 1
    assert end.get_by_test_id("transfers").locator("tbody tr").count() >= 1
    huang = "荒" in end.locator("h2").inner_text()
    if not huang:
        assert end.get_by_test_id("result-flip").locator("[data-testid=tile]").count() == 1
        assert end.get_by_test_id("result-chickens").locator("[data-testid=tile]").count() >= 2
    # The scores strip says what the hand paid, and they sum to zero (SDG §9).
    paid = [
        int(page.get_by_test_id(f"replay-score-{s}").get_attribute("data-score") or "x")
        for s in range(3)
    ]
    assert sum(paid) == 0
    page.get_by_test_id("replay-see-table").click()
    board = page.locator("[data-testid=replay] [data-testid=board][data-game=sandingguai]")
    assert board.get_attribute("data-phase") == "over"
    assert board.get_by_test_id("open-hand").count() == 3  # every hand turned up at the end
    page.get_by_test_id("replay-see-result").click()
    end.wait_for()


def _review(page: Page) -> None:
    """复盘 of the bottom seat: the timeline's marks, the summary, a decision's note."""
    page.get_by_test_id("review-button").click()
    page.get_by_test_id("review-timeline").wait_for(timeout=120_000)
    marks = page.locator("[data-testid=review-mark], [data-testid=review-mistake]")
    assert marks.count() >= 1
    assert page.get_by_test_id("review-summary").inner_text()
    step = int(marks.first.get_attribute("data-step") or "0")
    marks.first.click()
    assert page.get_by_test_id("replay-step").inner_text().startswith(f"第 {step} ")
    note = page.get_by_test_id("review-note")
    assert note.get_by_test_id("review-step").get_attribute("data-step") == str(step)
    assert note.get_by_test_id("review-reason").inner_text()


@pytest.mark.parametrize(
    ("viewport", "name"), [(DESKTOP, "desktop"), (PHONE_LANDSCAPE, "phone-landscape")]
)
def test_a_sandingguai_hand_replayed_and_reviewed(
    server: str, browser: Browser, page_errors: list[str], viewport: dict[str, int], name: str
) -> None:
    page = new_page(browser, page_errors, viewport)
    room = _play_a_hand(page, server)
    _header_says(page, "三丁拐", "Sandingguai")

    # The room's list of hands: a replay button for the 三丁拐 hand.
    page.get_by_test_id("result-hide").click()
    page.get_by_test_id("menu").click()
    page.get_by_test_id("history-toggle").click()
    page.get_by_test_id("history-hand").first.wait_for()
    assert page.get_by_test_id("replay-button").count() == 1
    page.get_by_test_id("replay-button").click()
    replay = page.get_by_test_id("replay")
    replay.wait_for()
    board = replay.locator("[data-testid=board][data-game=sandingguai]")
    board.wait_for()
    assert fits(page)
    # From above: every hand face up from the deal on.
    assert board.get_by_test_id("open-hand").count() == 3
    # From one seat: only that seat's tiles; the others' are backs.
    page.get_by_test_id("replay-view").select_option("1")
    assert board.get_by_test_id("open-hand").count() == 1
    assert board.get_by_test_id("hand-count").count() == 2
    page.get_by_test_id("replay-view").select_option("all")
    page.get_by_test_id("replay-next").click()
    page.get_by_test_id("replay-next").click()
    doc_shot(page, f"sandingguai-replay-{name}")
    # Play and pause, then seek to the end.
    page.get_by_test_id("replay-speed").select_option("200")
    page.get_by_test_id("replay-play").click()
    page.get_by_test_id("replay-pause").click()
    page.get_by_test_id("replay-first").click()
    assert page.get_by_test_id("replay-prev").is_disabled()
    steps = _step_through(page)
    assert steps >= 20
    assert page.get_by_test_id("replay-step").inner_text() == f"第 {steps} / {steps} 步"
    _check_end(page)
    doc_shot(page, f"sandingguai-replay-end-{name}")
    assert fits(page)
    _review(page)
    assert fits(page)
    doc_shot(page, f"sandingguai-replay-review-{name}")
    page.get_by_test_id("replay-close").click()

    # The same hand from its 回放码 (/p/{code}): the same viewer, the header naming the game.
    listed = page.evaluate(
        "async (room) => (await (await fetch(`/api/rooms/${room}/hands`)).json()).hands",
        room,
    )
    code = listed[0]["code"]
    assert code, json.dumps(listed)
    viewer = new_page(browser, page_errors, viewport)
    viewer.goto(f"{server}/p/{code}")
    viewer.locator("[data-testid=replay] [data-testid=board][data-game=sandingguai]").wait_for()
    _header_says(viewer, "三丁拐", "Sandingguai")
    viewer.get_by_test_id("replay-last").click()
    _check_end(viewer)
    assert fits(viewer)
    _review(viewer)
    assert fits(viewer)
    doc_shot(viewer, f"sandingguai-replay-code-{name}")
    viewer.close()

    # The match ends (解散, only bots to agree): 再来一局, and beside it a new room at the
    # game's own rule form (gameform.js), filled in at this room's rules.
    dissolve_alone(page)
    page.get_by_test_id("rematch-button").wait_for()
    page.get_by_test_id("rematch-rules-open").click()
    form = page.locator("[data-testid=rematch-form][data-game=sandingguai]")
    form.wait_for()
    assert form.get_by_test_id("rematch-preset").input_value() == "sandingguai"
    assert form.locator("[data-testid^=rematch-opt-]").count() >= 20  # the schema's options
    form.get_by_test_id("rematch-options").click()
    # The options lie in pages that fit the screen (rematch.js optionsLayout): 局数's page.
    at = form.locator("label.option:has([data-testid=rematch-opt-match_hands])")
    if at.get_attribute("data-page") is not None:
        form.get_by_test_id(f"rematch-page-{at.get_attribute('data-page')}").click()
    hands = form.get_by_test_id("rematch-opt-match_hands")
    hands.fill("2")
    hands.dispatch_event("change")
    assert fits(page)  # the dialog fits the screen, the page never scrolls
    doc_shot(page, f"sandingguai-rematch-rules-{name}")
    form.get_by_test_id("rematch-create").click()
    page.wait_for_url(lambda url: "/r/" in url and not url.endswith(f"/r/{room}"))
    fresh = page.url.rsplit("/r/", 1)[1]
    info = page.evaluate(
        "async (room) => (await (await fetch(`/api/rooms/${room}`)).json()).room", fresh
    )
    assert (info["game"], info["rules"]["overrides"]) == ("sandingguai", {"match_hands": 2})
    assert [x["kind"] for x in info["seats"]] == ["human", "bot", "bot"]
    page.locator("[data-testid=board][data-game=sandingguai]").wait_for()
    assert page_errors == []
