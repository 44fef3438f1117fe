"""Between hands as the apps do it (docs/web.md), with three friends in three browser contexts.

One scripted hand (match seed 454: seat 0 wins) is played by the three pages; then the result's
countdown and ready marks, a 解散 vote that fails and one that passes, 再来一局 for two of the
three, and a closed tab whose seat 托管 plays after a short grace, in claim windows too.
"""

from __future__ import annotations

import time

from playwright.sync_api import expect

from tests.browser.test_browser import (
    DESKTOP,
    PHONE,
    Browser,
    Page,
    decide,
    new_page,
    open_menu,
    pytestmark,
    shot,
)
from tests.browser.test_table import LANDSCAPE, doc_shot, get, page_act, post
from tests.test_server_table import SCRIPTED, SCRIPTED_SEED

__all__ = ["pytestmark"]  # skipped, as the other browser tests, without Chromium

NAMES = ("阿明", "小芳", "老王")


def _seat(page: Page, base: str, room: str, seat: int) -> None:
    page.goto(f"{base}/r/{room}")
    page.get_by_test_id("name-input").fill(NAMES[seat])
    page.get_by_test_id(f"sit-{seat}").click()
    page.get_by_test_id("join").wait_for(state="detached")


def test_countdown_ready_marks_votes_and_a_rematch(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    # The countdown and the vote leave time for three pages to be read and shot on a loaded
    # machine before they run out (a 解散 not answered in time counts as 同意).
    room = post(
        server,
        "/api/rooms",
        {"seed": SCRIPTED_SEED, "turn_seconds": None, "next_seconds": 15, "vote_seconds": 12},
    )["room_id"]
    pages = [
        new_page(browser, page_errors, LANDSCAPE),
        new_page(browser, page_errors, DESKTOP),
        new_page(browser, page_errors, PHONE),
    ]
    for seat, page in enumerate(pages):
        _seat(page, server, room, seat)
    for page in pages:
        page.get_by_test_id("hand").wait_for()
    for seat, text in SCRIPTED:
        page_act(pages[seat], text)
    for page in pages:
        page.get_by_test_id("hand-end").wait_for()

    # The result shows the countdown to the next deal and who is ready, on every page.
    a, b, c = pages
    for page in pages:
        countdown = page.get_by_test_id("next-countdown")
        countdown.wait_for()
        assert 0 < int(countdown.get_attribute("data-left") or 0) <= 15
        assert page.get_by_test_id("ready-0").get_attribute("data-ready") == "false"
    doc_shot(a, "between-hands-phone-landscape")
    # 阿明 presses 下一局: his page says so at once, the others see him ready and who is awaited.
    a.get_by_test_id("next-hand").click()
    a.get_by_test_id("ready-done").wait_for()
    for page in (b, c):
        page.wait_for_function(
            "() => document.querySelector('[data-testid=ready-0]')?.dataset.ready === 'true'"
        )
        expect(page.get_by_test_id("waiting-for")).to_contain_text("小芳")
    # Nobody else presses: the countdown deals the next hand, and the result goes only then.
    for page in pages:
        page.get_by_test_id("result-host").wait_for(state="detached", timeout=30_000)
        page.get_by_test_id("hand").wait_for()
    assert get(server, f"/api/rooms/{room}")["room"]["hand_number"] == 2

    # 解散 by vote: 小芳 asks, 老王 refuses; the match goes on and everyone sees who refused.
    open_menu(b)
    b.get_by_test_id("dissolve").click()
    b.get_by_test_id("confirm-yes").click()
    for page in pages:
        page.get_by_test_id("vote").wait_for()
    assert b.get_by_test_id("vote-agree").count() == 0  # the proposer agrees by asking
    assert b.get_by_test_id("vote-1").get_attribute("data-answer") == "true"
    shot(c, "vote-phone")
    c.get_by_test_id("vote-refuse").click()
    for page in pages:
        page.get_by_test_id("vote").wait_for(state="detached")
        expect(page.get_by_test_id("error")).to_contain_text("老王")
    assert not get(server, f"/api/rooms/{room}")["room"]["match_over"]

    # 阿明 asks; 小芳 agrees and 老王 says nothing: no answer counts as 同意 at the deadline.
    open_menu(a)
    a.get_by_test_id("dissolve").click()
    a.get_by_test_id("confirm-yes").click()
    b.get_by_test_id("vote-agree").click()
    b.wait_for_function(
        "() => document.querySelector('[data-testid=vote-1]')?.dataset.answer === 'true'"
    )
    for page in pages:
        page.get_by_test_id("match-end").wait_for(timeout=30_000)
        assert page.get_by_test_id("match-end").get_attribute("data-dissolved") == "true"
        assert "房间已解散" in page.get_by_test_id("match-end").inner_text()
        assert page.get_by_test_id("final-totals").locator("li").count() == 3
        # 比赛结束 is said once: the dissolved match's panel, not a second match-over line.
        assert page.get_by_text("比赛结束").count() == 0
    doc_shot(a, "dissolved-phone-landscape")
    info = get(server, f"/api/rooms/{room}")["room"]
    assert info["match_over"] and info["dissolved"]

    # 再来一局: 阿明 and 小芳 choose it, 老王 does not. When the window ends the new match
    # begins with their seats; 老王's seat is open again and his page offers it.
    a.get_by_test_id("rematch-button").click()
    b.get_by_test_id("rematch-button").click()
    for page in (a, b):
        page.wait_for_function(
            "() => document.querySelector('[data-testid=rematch-1]')?.textContent.includes('✓')"
        )
    c.get_by_test_id("sit-2").wait_for(timeout=30_000)
    info = get(server, f"/api/rooms/{room}")["room"]
    assert info["match_number"] == 2 and not info["match_over"]
    assert [s["taken"] for s in info["seats"]] == [True, True, False]
    for page in (a, b):
        page.get_by_test_id("waiting").wait_for()
        page.get_by_test_id("match-end").wait_for(state="detached")
    # 老王 sits again: the new match deals its first hand, 第 1 局 of match 2.
    c.get_by_test_id("name-input").fill("老王")
    c.get_by_test_id("sit-2").click()
    for page in pages:
        page.get_by_test_id("hand").wait_for()
    info = get(server, f"/api/rooms/{room}")["room"]
    assert info["first_hand"] == info["hand_number"] == 2  # the dissolved hand 2 never counted
    assert page_errors == []


def test_a_closed_tab_is_played_by_autoplay_after_a_short_grace(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    # The default turn timer (20 s) stays on: the closed tab's seat must not cost it per decision.
    room = post(server, "/api/rooms", {"bots": {"2": "random"}, "bot_delay_ms": 0, "seed": 40})
    rid = room["room_id"]
    a = new_page(browser, page_errors, LANDSCAPE)
    b = new_page(browser, page_errors, PHONE)
    _seat(a, server, rid, 0)
    _seat(b, server, rid, 1)
    a.get_by_test_id("hand").wait_for()
    b.get_by_test_id("hand").wait_for()
    badge = a.locator("[data-testid=seat-1] [data-testid=autoplay-badge]")
    # 小芳's network drops: after the grace everyone sees 离线 · 托管 at her seat; when it comes
    # back her page reconnects by itself and she plays her own seat again.
    b.context.set_offline(True)
    badge.wait_for(timeout=15_000)
    b.context.set_offline(False)
    b.wait_for_function("() => !document.querySelector('[data-testid=offline]')", timeout=20_000)
    badge.wait_for(state="detached", timeout=10_000)
    b.context.close()  # then she closes her tab for good
    closed = time.monotonic()
    badge.wait_for(timeout=12_000)
    assert a.locator("[data-testid=seat-1] [data-testid=offline-badge]").count() == 1
    marked = time.monotonic() - closed
    doc_shot(a, "offline-autoplay-phone-landscape")
    # 阿明 plays on; 小芳's decisions, her claim windows included, are made for her.
    decisions = 0
    while decide(a) != "end":
        decisions += 1
    a.get_by_test_id("hand-end").wait_for()
    took = time.monotonic() - closed
    windows = get(server, f"/api/rooms/{rid}/hands/1")["record"]["actions"]
    hers = sum(1 for seat, _ in windows if int(seat) == 1)
    # With a 20 s timer per decision her part alone would take 20 s × her decisions.
    assert hers >= 3 and took < 20 * hers, (marked, took, hers, decisions)
    assert page_errors == []
