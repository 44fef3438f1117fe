"""A table as friends use it, in the browser (docs/web.md, docs/protocol.md §1, §7.2).

阿明 signs up on his laptop and moves to his phone with a transfer code. He opens a table with
two bots and sits on the laptop; the room shows its six-digit number. On the phone he types the
number into the lobby: the room opens, and the phone takes his seat (the laptop says he
continued elsewhere and watches). The phone plays the hand to its end; the laptop takes the seat
back with 在此设备继续, and the phone is told in turn.
"""

from __future__ import annotations

from typing import Any

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    new_page,
    pytestmark,
)
from tests.browser.test_players import play_the_hand, sign_up
from tests.browser.test_table import LANDSCAPE

CREATE_JS = """(body) => fetch('/api/rooms', {method: 'POST',
  headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)}).then(r => r.json())"""


def test_a_seat_follows_its_player_to_the_phone_that_typed_the_room_number(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    laptop = new_page(browser, page_errors, DESKTOP)
    phone = new_page(browser, page_errors, LANDSCAPE)
    sign_up(laptop, server, "阿明")
    laptop.goto(server + "/me")
    laptop.get_by_test_id("transfer-start").click()
    code = laptop.get_by_test_id("transfer-code").inner_text().replace("-", "")
    phone.goto(f"{server}/me?code={code}")
    phone.get_by_test_id("me-name").wait_for()

    body = {"bots": {"1": "random", "2": "random"}, "turn_seconds": None, "bot_delay_ms": 0}
    made: dict[str, Any] = laptop.evaluate(CREATE_JS, body)
    room, number = made["room_id"], made["room"]["number"]
    assert len(number) == 6 and number.isdigit()
    laptop.goto(f"{server}/r/{room}")
    laptop.get_by_test_id("sit-0").click()
    laptop.get_by_test_id("hand").wait_for()
    laptop.get_by_test_id("menu").click()
    assert laptop.get_by_test_id("room-number").get_attribute("data-number") == number
    laptop.get_by_test_id("menu-close").click()

    # The phone types the number read out over the call (spaces do not matter).
    phone.goto(server + "/")
    phone.get_by_test_id("room-number-input").fill(f"{number[:3]} {number[3:]}")
    phone.get_by_test_id("room-number-go").click()
    phone.wait_for_url(f"**/r/{room}")
    # The seat follows its player: the phone plays it, the laptop is told and watches.
    phone.get_by_test_id("hand").wait_for()
    laptop.get_by_test_id("elsewhere").wait_for()
    assert phone.get_by_test_id("elsewhere").count() == 0
    play_the_hand((phone,))

    # 在此设备继续 on the laptop takes the seat back; now the phone is the one told.
    laptop.get_by_test_id("claim-here").click()
    phone.get_by_test_id("elsewhere").wait_for()
    laptop.get_by_test_id("elsewhere").wait_for(state="detached")
    assert page_errors == []


def test_a_wrong_room_number_is_said_in_the_lobby(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, LANDSCAPE)
    page.goto(server + "/")
    page.get_by_test_id("room-number-input").fill("12345")
    page.get_by_test_id("room-number-go").click()
    note = page.get_by_test_id("room-number-note")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=room-number-note]').className === 'error'"
    )
    assert "六位数字" in note.inner_text()
    page.get_by_test_id("room-number-input").fill("000000")
    page.get_by_test_id("room-number-go").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=room-number-note]')"
        ".textContent.includes('没有这个房间')"
    )
    assert page.url.rstrip("/") == server
    assert page_errors == []
