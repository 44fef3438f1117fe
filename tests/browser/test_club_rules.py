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
    patterns.select_option(label="红胡")  # each 名堂 by its name, sent as its key
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


def test_a_quanmingtang_club_of_two_opens_tables_of_two(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    """偎麻雀's club form offers what a room may set (``GET /api/presets`` ``room_options``):
    人数 (RULES §2.5), 逗溜子时机 (§8.5.1) and the apps' tiers (§7.4) among the presets, and
    nothing the server would refuse; a 全名堂 club of two then opens tables of two."""
    owner = new_page(browser, page_errors, DESKTOP)
    sign_up(owner, server, "阿明")
    owner.get_by_test_id("club-new").click()
    owner.get_by_test_id("club-name-input").fill("二人全名堂")
    owner.get_by_test_id("club-create").click()
    owner.wait_for_url("**/clubs/*")
    club_id = owner.url.rsplit("/", 1)[1]
    owner.get_by_test_id("club-rules-edit").click()
    owner.get_by_test_id("club-rules-form").wait_for()
    preset = owner.get_by_test_id("club-preset")
    offered = preset.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert {"quanmingtang", "zuanshi", "zhizun", "anxiang-2p", "quanmingtang-2p"} <= set(offered)
    preset.select_option("quanmingtang")
    # Only a room's options: none the server refuses a room (docs/protocol.md §1).
    for key in ("hand_cap", "maque_zhuanwan_black", "shouxing_rotation", "liuzi_choice"):
        assert owner.get_by_test_id(f"club-opt-{key}").count() == 0, key
    players = owner.get_by_test_id("club-opt-players")
    assert players.input_value() == "3"
    assert players.get_attribute("min") == "2" and players.get_attribute("max") == "3"
    players.fill("2")
    players.dispatch_event("change")
    owner.get_by_test_id("club-opt-liuzi").check()
    owner.get_by_test_id("club-opt-liuzi_when").select_option(label="臭局后")
    owner.get_by_test_id("club-rules-save").click()
    owner.wait_for_function("() => !document.querySelector('[data-testid=club-rules-form]')")
    club = owner.request.get(f"{server}/api/clubs/{club_id}").json()["club"]
    assert club["rules"] == {
        "preset": "quanmingtang",
        "options": {"players": 2, "liuzi": True, "liuzi_when": "chou"},
    }
    line = owner.get_by_test_id("club-rules").inner_text()
    assert "全名堂" in line and "人数 2" in line and "臭局后" in line, line
    owner.get_by_test_id("table-open").click()
    seats = owner.locator("[data-testid^=table-seat-]")
    assert seats.count() == 1  # seat 2 of two: the admin sits at seat 1
    seats.first.select_option("greedy")
    owner.get_by_test_id("table-create").click()
    owner.wait_for_url("**/r/*")
    board = owner.get_by_test_id("board")
    board.wait_for()
    assert board.get_attribute("data-seats") == "2"
    room_id = owner.url.rsplit("/", 1)[1]
    room = owner.request.get(f"{server}/api/rooms/{room_id}").json()
    room = room.get("room", room)
    assert room["rules"]["id"] == "quanmingtang" and len(room["seats"]) == 2
    assert room["rules"]["overrides"] == {"players": 2, "liuzi": True, "liuzi_when": "chou"}
    assert page_errors == []
