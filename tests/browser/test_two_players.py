"""A 偎麻雀 table of two in the browser (RULES §2.5; docs/web.md): a 全名堂 room of one person and
one bot, the 留子 pool fed on 臭 (``liuzi_when = "chou"``, RULES §8.5.1), played to the match's
end by the page's own controls (a few clicked decisions, then 托管), on a desktop and on a phone
held sideways. Set ``WMQ_DOC_SHOTS=1`` to refresh the screenshots of docs/web.md (docs/img/)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    ASKED_JS,
    DESKTOP,
    Browser,
    Page,
    decide,
    new_page,
    pytestmark,
)
from tests.browser.test_browser import shot as snap
from tests.browser.test_table import LANDSCAPE, doc_shot, get, in_view, post

OPTIONS = {"liuzi": True, "liuzi_when": "chou", "match_hands": 2}


def _room(server: str, seed: int) -> str:
    body = {
        "variant": "quanmingtang-2p",
        "options": OPTIONS,
        "bots": {"1": "greedy"},
        "bot_delay_ms": 0,
        "next_seconds": 3,
        "seed": seed,
    }
    created = post(server, "/api/rooms", body)
    room = created["room"]
    assert room["variant"] == "quanmingtang-2p" and len(room["seats"]) == 2
    assert room["rules"]["overrides"]["liuzi_when"] == "chou"
    return str(created["room_id"])


def _two_seat_board(page: Page) -> None:
    """The board of a table of two: our seat at the bottom, the other across (对家), no third."""
    board = page.get_by_test_id("board")
    assert board.get_attribute("data-seats") == "2"
    assert page.locator("[data-testid=board] .seat:not(.bottom)").count() == 1
    across = page.get_by_test_id("seat-1")
    assert across.get_attribute("data-rel") == "top"
    assert "对家" in across.inner_text() and "机器人" in across.inner_text()
    assert page.get_by_test_id("seat-2").count() == 0


def _play_match(server: str, page: Page, viewport: dict[str, int], name: str) -> dict[str, Any]:
    room = _room(server, 5)
    page.goto(f"{server}/r/{room}")
    page.get_by_test_id("sit-0").click()
    page.get_by_test_id("hand").wait_for()
    page.get_by_test_id("board").wait_for()
    _two_seat_board(page)
    page.wait_for_function(ASKED_JS)
    # docs/web.md shows the table on the phone and the match's end on the computer
    (doc_shot if name == "phone" else snap)(page, f"two-players-{name}")
    if viewport is LANDSCAPE:
        in_view(page, "[data-testid=hand]", viewport)
        in_view(page, "[data-testid=seat-1]", viewport)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    clicked = 0
    while clicked < 3:  # our own decisions, by clicking
        state = decide(page)
        if state == "end":
            break
        if state != "retry":
            clicked += 1
    if page.get_by_test_id("hand-end").count() == 0:
        page.get_by_test_id("autoplay-on").click()  # 托管 plays on, to the match's end
        page.get_by_test_id("autoplay-banner").wait_for()
    page.get_by_test_id("hand-end").wait_for(timeout=120_000)
    ledger = page.get_by_test_id("ledger").first
    assert ledger.locator("[data-testid=ledger-0]").count() == 1
    assert ledger.locator("[data-testid=ledger-1]").count() == 1
    assert ledger.locator("[data-testid=ledger-2]").count() == 0
    page.get_by_test_id("match-end").wait_for(timeout=180_000)
    (doc_shot if name == "desktop" else snap)(page, f"two-players-match-end-{name}")
    assert page.get_by_test_id("final-0").count() == 1
    assert page.get_by_test_id("final-1").count() == 1
    assert page.get_by_test_id("final-2").count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert get(server, f"/api/rooms/{room}")["room"]["match_over"]
    return dict(get(server, f"/api/rooms/{room}/hands"))


@pytest.mark.parametrize(("viewport", "name"), [(DESKTOP, "desktop"), (LANDSCAPE, "phone")])
def test_a_room_of_two_plays_to_the_match_end(
    server: str, browser: Browser, page_errors: list[str], viewport: dict[str, int], name: str
) -> None:
    page = new_page(browser, page_errors, viewport)
    played = _play_match(server, page, viewport, name)
    ledger, hands = played["ledger"], played["hands"]
    assert len(ledger["seats"]) == 2 and len(hands) == 2
    # zero-sum, the pool shared out at the match's end (RULES §8.5, §8.5.4)
    assert sum(ledger["seats"]) == 0 and ledger["pool"] == 0
    assert all(len(hand["settlement"]["seats"]) == 2 for hand in hands)
    # match seed 5, our clicks and 托管: the first hand is 臭, and its players feed the pool
    # (liuzi_when = "chou", RULES §8.5.1: the dealer 2, the other 1); the win after it feeds
    # nothing, and the pool left at the end is shared, the odd unit to the next dealer (§8.5.4)
    first, second = (hand["settlement"] for hand in hands)
    assert hands[0]["chou"] and first["seats"] == [-2, -1] and first["pool"] == 3
    assert not hands[1]["chou"] and second["pool"] == 0
    share = [1, 1]
    share[second["next_dealer"]] += 1
    paid = zip(first["seats"], second["seats"], share, strict=True)
    assert ledger["seats"] == [a + b + c for a, b, c in paid]
    totals = [page.get_by_test_id(f"final-{s}").inner_text().split()[-1] for s in (0, 1)]
    assert [int(x) for x in totals] == ledger["seats"]
    assert page_errors == []
