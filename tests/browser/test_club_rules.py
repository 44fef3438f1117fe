"""A 亲友圈's rules chosen on screen (docs/web.md "亲友圈"; docs/protocol.md §7.5 ``PATCH
/api/clubs/{id}``): the owner opens 修改规则, the form of the game's option schema (gameform.js,
the lobby's), changes an int option and a keys option (a multiple select), saves, and the club's
rules line and the club's answer from the server carry them."""

from __future__ import annotations

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    new_page,
    pytestmark,
)
from tests.browser.test_players import sign_up


def test_the_owner_sets_the_clubs_rules_from_the_form(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    owner = new_page(browser, page_errors, DESKTOP)
    sign_up(owner, server, "阿明")
    owner.get_by_test_id("club-new").click()
    owner.get_by_test_id("club-name-input").fill("牌友")
    owner.get_by_test_id("club-create").click()
    owner.wait_for_url("**/clubs/*")
    club_id = owner.url.rsplit("/", 1)[1]
    owner.get_by_test_id("club-rules-edit").click()
    form = owner.get_by_test_id("club-rules-form")
    form.wait_for()
    assert owner.get_by_test_id("club-preset").input_value() == "anxiang"
    min_xi = owner.get_by_test_id("club-opt-min_xi")
    assert min_xi.input_value() == "10"
    min_xi.fill("15")
    min_xi.dispatch_event("change")
    patterns = owner.get_by_test_id("club-opt-enable_patterns")
    assert patterns.evaluate("e => e.multiple") is True
    patterns.select_option(label="hong")
    owner.get_by_test_id("club-rules-save").click()
    owner.wait_for_function("() => !document.querySelector('[data-testid=club-rules-form]')")
    line = owner.get_by_test_id("club-rules")
    line.wait_for()
    club = owner.request.get(f"{server}/api/clubs/{club_id}").json()["club"]
    assert club["rules"]["preset"] == "anxiang"
    assert club["rules"]["options"] == {"min_xi": 15, "enable_patterns": ["hong"]}
    assert "15" in line.inner_text()
    assert page_errors == []


def test_a_sandingguai_club_opens_sandingguai_tables(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    """The club's game is chosen with its rules; its 开桌 then offers a seat per seat of that
    game's table with that game's bots, and the table opens on that game's board."""
    owner = new_page(browser, page_errors, DESKTOP)
    sign_up(owner, server, "阿明")
    owner.get_by_test_id("club-new").click()
    owner.get_by_test_id("club-name-input").fill("捉鸡")
    owner.get_by_test_id("club-create").click()
    owner.wait_for_url("**/clubs/*")
    club_id = owner.url.rsplit("/", 1)[1]
    owner.get_by_test_id("club-rules-edit").click()
    owner.get_by_test_id("club-game").select_option("sandingguai")
    owner.wait_for_function(
        "() => document.querySelector('[data-testid=club-preset]')?.value === 'sandingguai'"
    )
    owner.get_by_test_id("club-preset").select_option("baike-3p")
    owner.get_by_test_id("club-rules-save").click()
    owner.wait_for_function("() => !document.querySelector('[data-testid=club-rules-form]')")
    club = owner.request.get(f"{server}/api/clubs/{club_id}").json()["club"]
    assert club["rules"] == {"game": "sandingguai", "preset": "baike-3p", "options": {}}
    assert "三丁拐" in owner.get_by_test_id("club-rules").inner_text()
    owner.get_by_test_id("table-open").click()
    seats = owner.locator("[data-testid^=table-seat-]")
    assert seats.count() == 2
    values = seats.first.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert values[0] == "" and "greedy" in values and "random" in values
    seats.nth(0).select_option("greedy")
    seats.nth(1).select_option("greedy")
    owner.get_by_test_id("table-create").click()
    owner.wait_for_url("**/r/*")
    owner.locator("[data-testid=board][data-game=sandingguai]").wait_for()
    assert page_errors == []
