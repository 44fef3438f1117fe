"""The lobby offers the apps' 名堂 tiers (RULES §7.4) in their own group of the preset select, a
room created at one shows it in its rules line, and the result sheet names its 名堂
(docs/web.md, the lobby)."""

from __future__ import annotations

from tests.browser.test_browser import (
    DESKTOP,
    Browser,
    close_menu,
    new_page,
    open_menu,
    play_until_end,
    pytestmark,
    shot,
)
from weimaque.games.maque.rules.registry import get_rules

__all__ = ["pytestmark"]

# A 全名堂 hand (greedy bots) that ends at the deal with seat 1's 黑炸弹 (RULES §7.4.1).
DEAL_PATTERN_SEED = 10


def test_lobby_offers_the_app_tiers_and_a_room_plays_one(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, DESKTOP)
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    group = page.get_by_test_id("preset-app-tiers")
    assert group.get_attribute("label") == "软件名堂档"
    assert group.locator("option").all_inner_texts() == ["全名堂", "钻石", "至尊"]
    # The presets of RULES §7.3 stay outside the group, first.
    first = page.get_by_test_id("preset").locator(":scope > option").first
    assert first.get_attribute("value") == "anxiang"
    page.get_by_test_id("preset").select_option("quanmingtang")
    # The preset's description in the page's language (docs/protocol.md §1).
    desc = page.get_by_test_id("preset-desc")
    assert desc.inner_text() == get_rules("quanmingtang").description_zh
    page.get_by_test_id("lang-toggle").click()
    assert group.get_attribute("label") == "App 名堂 tiers"
    assert desc.inner_text() == get_rules("quanmingtang").description
    assert "All patterns (app tier)" in group.locator("option").all_inner_texts()
    page.get_by_test_id("lang-toggle").click()

    page.get_by_test_id("seat-kind-1").select_option("greedy")
    page.get_by_test_id("seat-kind-2").select_option("greedy")
    page.get_by_test_id("more-options").click()
    page.get_by_test_id("bot-speed").select_option("0")
    page.get_by_test_id("seed").fill(str(DEAL_PATTERN_SEED))
    page.get_by_test_id("create-room").click()
    page.wait_for_url("**/r/*")
    page.get_by_test_id("board").wait_for()
    play_until_end(page)
    end = page.get_by_test_id("hand-end")
    end.wait_for()
    names = end.get_by_test_id("pattern").all_inner_texts()
    assert any("黑炸弹" in n for n in names), names
    shot(page, "hand-end-app-tier")
    open_menu(page)
    assert page.get_by_test_id("room-rules").inner_text().count("全名堂") == 1
    close_menu(page)
    page.get_by_test_id("lang-toggle").click()
    open_menu(page)
    assert "All patterns (app tier)" in page.get_by_test_id("room-rules").inner_text()
    assert page_errors == []
