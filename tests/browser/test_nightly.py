"""The table as a group of friends uses it night after night, on phones held sideways (844×390)
and on computers: every seat sees whose clock runs, 自动理牌 keeps each 坎, the result's payments
and the replay fit the phone's screen, 复盘's figures agree, a discard on a touch screen is raised
and then confirmed. Set ``WMQ_DOC_SHOTS=1`` to refresh the screenshots of docs/web.md.
"""

from __future__ import annotations

from typing import Any

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    WINNING_SEED,
    Browser,
    Page,
    create_room,
    host_for_a_friend,
    new_page,
    open_menu,
    play_until_end,
    pytestmark,
    shot,
    sync_api,
)
from tests.browser.test_motion import COLUMNS_JS, seated_page
from tests.browser.test_sound import HOOKS
from tests.browser.test_table import LANDSCAPE, doc_shot, post

#: Seat 0 deals (seat 0 is the first dealer) and holds 四四四 under 二三四 and 一一一: the
#: grouping that takes the lowest face first would make 二三四 of one 四 (found by searching
#: the first hands of match seeds 1…400 with analysis/tidy.py as it was).
KAN_SEED = 2


#: Keeps the type of every message the page sends on its sockets (``window.__sent``).
SENT_JS = """(() => {
  window.__sent = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    window.__sent.push(JSON.parse(data).type);
    return send.call(this, data);
  };
})();"""


def in_viewport(page: Page, box: dict[str, float] | None) -> bool:
    """Whether a bounding box lies wholly inside the page's viewport."""
    size = page.viewport_size
    assert box is not None and size is not None
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"] + 0.5
        and box["y"] + box["height"] <= size["height"] + 0.5
    )


def test_every_seat_sees_the_clock_of_the_seat_that_must_discard(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    # Three friends and a watcher, each in a browser of their own: seat 0 deals and must 出.
    room_id = post(server, "/api/rooms", {"turn_seconds": 90, "seed": 5})["room_id"]
    pages: list[Page] = []
    for seat in range(3):
        page = new_page(browser, page_errors, LANDSCAPE)
        page.goto(f"{server}/r/{room_id}")
        page.get_by_test_id("name-input").fill(f"友{seat}")
        page.get_by_test_id(f"sit-{seat}").click()
        pages.append(page)
    watcher = new_page(browser, page_errors, LANDSCAPE)
    watcher.goto(f"{server}/r/{room_id}")
    for page in [*pages, watcher]:
        page.get_by_test_id("board").wait_for()
        clock = page.locator("[data-testid=seat-0] [data-testid=seat-clock]")
        clock.wait_for()
        assert 0 < int(clock.get_attribute("data-left") or 0) <= 90
        assert in_viewport(page, clock.bounding_box())
        # Only the seat that must 出 shows a clock.
        assert page.locator("[data-testid=seat-clock]").count() == 1
    doc_shot(pages[1], "turn-clock-phone-landscape")
    # The discard ends seat 0's clock at every seat.
    pages[0].locator("[data-testid=hand-face][data-legal=true]").first.click()
    for page in [*pages, watcher]:
        page.locator("[data-testid=seat-0] [data-testid=seat-clock]").wait_for(state="detached")
    for page in [*pages, watcher]:
        page.context.close()
    assert page_errors == []


def test_auto_tidy_keeps_every_kan(server: str, browser: Browser, page_errors: list[str]) -> None:
    page, _ = seated_page(server, browser, page_errors, LANDSCAPE, seed=KAN_SEED)
    page.locator("[data-testid=hand-face][data-legal=true]").first.wait_for()
    hand = page.get_by_test_id("hand").get_attribute("data-cards") or ""
    kans = sorted({f for f in hand if hand.count(f) >= 3})
    assert len(kans) >= 2
    page.get_by_test_id("auto-tidy").click()
    page.wait_for_function(f"(k) => k.every(f => ({COLUMNS_JS})().includes(f.repeat(3)))", arg=kans)
    columns: list[str] = page.evaluate(COLUMNS_JS)
    for face in kans:
        # The 坎 is one column, and no other column takes a card of it.
        assert face * 3 in columns
        assert sum(c.count(face) for c in columns) == hand.count(face)
        assert all(face not in c for c in columns if c != face * 3) or hand.count(face) == 4
    # A 坎 may not be discarded: it is dimmed, and still drawn opaque over the card beneath.
    blocked = page.locator(f"[data-testid=hand-face][data-face='{kans[0]}']").first
    assert blocked.get_attribute("data-legal") == "false"
    assert blocked.evaluate("n => getComputedStyle(n).opacity") == "1"
    doc_shot(page, "hand-auto-tidy-phone-landscape")
    page.context.close()
    assert page_errors == []


def _room(**over: Any) -> dict[str, Any]:
    return {"bots": {"1": "random", "2": "random"}, "bot_delay_ms": 0, **over}


def test_a_phone_shows_the_payments_and_a_replay_that_fits(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, LANDSCAPE)
    create_room(page, server, seed=WINNING_SEED, hands=2)
    play_until_end(page)
    page.get_by_test_id("hand-end").wait_for()
    page.wait_for_function("() => !Number(document.body.dataset.anim || 0)")
    # Who pays what and the match totals, in view as the sheet opens: nothing to scroll.
    for s in range(3):
        for cell in (f"pay-{s}", f"ledger-{s}"):
            assert in_viewport(page, page.get_by_test_id(cell).bounding_box()), cell
    assert page.get_by_test_id("next-hand").is_visible()
    assert page.locator(".result-sheet").evaluate("n => n.scrollTop") == 0
    doc_shot(page, "hand-end-payments-phone-landscape")

    # The replay of the hand fits the screen: the board with our hand, the step buttons.
    page.get_by_test_id("result-hide").click()
    open_menu(page)
    page.get_by_test_id("history-toggle").click()
    page.get_by_test_id("replay-button").first.click()
    page.get_by_test_id("replay").wait_for()
    page.get_by_test_id("replay-next").click()
    page.get_by_test_id("replay-next").click()
    shot(page, "replay-phone-landscape-full")
    size = page.viewport_size
    assert size is not None
    assert page.evaluate("document.documentElement.scrollHeight") <= size["height"]
    for testid in ("replay-next", "replay-prev", "replay-play", "replay-step", "replay-close"):
        assert in_viewport(page, page.get_by_test_id(testid).bounding_box()), testid
    own = page.locator("[data-testid=replay] [data-rel=bottom]")
    assert in_viewport(page, own.bounding_box())
    doc_shot(page, "replay-phone-landscape")
    # The title and every word follow the language switch.
    title = page.get_by_test_id("replay-title")
    assert "第 1 局" in title.inner_text()
    page.get_by_test_id("lang-toggle").click()
    assert "Hand 1" in title.inner_text() and "第" not in title.inner_text()
    assert page.get_by_test_id("replay-step").inner_text().startswith("step ")
    page.get_by_test_id("lang-toggle").click()
    # With 复盘 open the page may grow, but the step buttons stay in reach when it scrolls.
    page.get_by_test_id("review-button").click()
    page.get_by_test_id("review-timeline").wait_for(timeout=120_000)
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    for testid in ("replay-next", "replay-prev", "replay-step"):
        assert in_viewport(page, page.get_by_test_id(testid).bounding_box()), testid
    page.get_by_test_id("replay-next").click()
    doc_shot(page, "replay-review-phone-landscape")
    page.context.close()
    assert page_errors == []


def test_quick_start_keeps_the_tap_and_the_lobby_one_name_box(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, LANDSCAPE)
    page.add_init_script(HOOKS)
    page.goto(server + "/")
    page.get_by_test_id("player-name-input").wait_for()
    # One name box, and no word about passkeys to a newcomer typing a name (127.0.0.1).
    assert page.locator("main input.name").count() == 1
    assert page.get_by_test_id("lobby-name").count() == 0
    assert page.get_by_test_id("passkey-unavailable").count() == 0
    page.get_by_test_id("player-name-input").fill("阿明")
    page.evaluate("window.__samePage = true")
    page.get_by_test_id("quick-start").click()
    page.wait_for_url("**/r/*")
    page.get_by_test_id("hand").wait_for()
    # The room came up in the same document, the tap still its gesture: with no tap at the
    # table, our turn's bell sounds (and the name typed in the lobby is the seat's).
    assert page.evaluate("window.__samePage") is True
    page.wait_for_function("() => window.__cues.sources > 0")
    assert page.evaluate("window.__cues.contexts") == 1
    assert "阿明（你）" in page.locator("[data-testid=seat-name]").all_inner_texts()
    # Back goes back to the lobby.
    page.go_back()
    page.get_by_test_id("quick-start").wait_for()
    page.context.close()
    assert page_errors == []


#: Bad hands for 算息 and what the Chinese error must name: as much as the English one says.
SCORE_ERRORS = [
    ("碰:七七 胡:九", ["3 张", "2 张", "碰:七七"]),
    ("手:一一一一一 胡:九", ["一", "5 张", "4 张"]),
    ("碰:七七七", ["胡:", "碰:七七七"]),
    ("碰:七七八 胡:九", ["碰", "三张一样", "碰:七七八"]),
    ("吃:一二四 胡:九", ["吃", "顺子", "吃:一二四"]),
    ("手:一二三 胡:九", ["20 张", "4 张"]),
    ("x:一 胡:九", ["“x”", "x:一"]),
]


def test_the_score_pages_chinese_errors_say_as_much_as_the_english(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, LANDSCAPE)
    page.goto(server + "/score")
    for hand, parts in SCORE_ERRORS:
        page.get_by_test_id("score-input").fill(hand)
        page.get_by_test_id("score-go").click()
        err = page.get_by_test_id("score-error")
        page.wait_for_function(
            "(h) => document.querySelector('[data-testid=score-error]')?.dataset.hand === h",
            arg=hand,
        )
        text = err.inner_text()
        assert all(p in text for p in parts), (hand, text)
    # In English the scorer's own sentence, as before.
    page.get_by_test_id("lang-toggle").click()
    page.get_by_test_id("score-input").fill("碰:七七 胡:九")
    page.get_by_test_id("score-go").click()
    page.get_by_test_id("score-error").filter(
        has_text="a meld has exactly 3 cards, got 2 in '碰:七七'"
    ).wait_for()
    page.context.close()
    assert page_errors == []


def test_a_touch_screen_raises_a_card_then_discards_it(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    room = post(server, "/api/rooms", {**_room(bot_delay_ms=300), "seed": 11})["room_id"]
    context = browser.new_context(viewport=LANDSCAPE, locale="zh-CN", has_touch=True)
    page = context.new_page()
    page.on("pageerror", lambda exc: page_errors.append(str(exc)))
    page.set_default_timeout(15_000)
    page.add_init_script(SENT_JS)
    page.goto(f"{server}/r/{room}")
    page.get_by_test_id("sit-0").tap()
    card = page.locator("[data-testid=hand-face][data-legal=true]").first
    card.wait_for()
    assert "再点一下" in page.get_by_test_id("discard-hint").inner_text()
    size = len(page.get_by_test_id("hand").get_attribute("data-cards") or "")
    # The first tap raises the card and sends nothing (the page's keep-alive ping aside, which
    # it sends on a clock of its own).
    sent = int(page.evaluate("window.__sent.length"))
    card.tap()
    raised = page.locator("[data-testid=hand-face][data-raised=true]")
    raised.wait_for()
    doc_shot(page, "discard-raised-phone-landscape")
    assert len(page.get_by_test_id("hand").get_attribute("data-cards") or "") == size
    assert page.evaluate(f"window.__sent.slice({sent}).filter((t) => t !== 'ping')") == []
    # The second tap on it plays it.
    raised.tap()
    page.wait_for_function(
        f"() => document.querySelector('[data-testid=hand]').dataset.cards.length === {size - 1}"
    )
    assert page.evaluate(f"window.__sent.slice({sent}).filter((t) => t !== 'ping')") == ["act"]
    # The drawer switches it off: one tap plays, remembered on this device.
    open_menu(page)
    toggle = page.get_by_test_id("discard-confirm")
    assert toggle.get_attribute("aria-pressed") == "true"
    toggle.tap()  # its click may follow the tap's return: wait for the redraw
    sync_api.expect(toggle).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("localStorage.getItem('wmq.discardConfirm')") == "off"
    context.close()
    assert page_errors == []


def overlaps(a: dict[str, float] | None, b: dict[str, float] | None) -> bool:
    """Whether two bounding boxes share any area."""
    assert a is not None and b is not None
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_our_chat_line_stays_clear_of_the_side_seats_and_the_hand(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page, _ = seated_page(server, browser, page_errors, LANDSCAPE, seed=5)
    page.locator("[data-testid=hand-face][data-legal=true]").first.wait_for()
    page.get_by_test_id("chat-toggle").click()
    page.locator("[data-testid=chat-phrase][data-phrase=hurry]").click()
    mine = page.locator("[data-rel=bottom] [data-testid=chat-bubble]")
    mine.wait_for()
    # The bubble's pop has ended (its box is its own): its animations finished, however long a
    # loaded machine took to start them.
    mine.evaluate("n => Promise.all(n.getAnimations().map(a => a.finished)).then(() => true)")
    box = mine.bounding_box()
    # Clear of the side seats (their melds and rows) and of our hand.
    for other in ("[data-rel=left]", "[data-rel=right]", "[data-testid=hand]"):
        assert not overlaps(box, page.locator(other).first.bounding_box()), other
    assert in_viewport(page, box)
    page.context.close()
    assert page_errors == []


def test_the_creators_buttons_stay_inside_their_seats_chip(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    # The creator's 交给机器人 lies inside the chip of the seat it is for.
    host = new_page(browser, page_errors, LANDSCAPE)
    # The creator is seated by the lobby's request: the room never offers them a seat to take
    # (its join panel, with a second set of seat chips) while the server answers it.
    host.add_init_script(
        "new MutationObserver(() => { if (document.querySelector('[data-testid=join]'))"
        " window.joinShown = true; }).observe(document, {childList: true, subtree: true});"
    )
    host_for_a_friend(host, server)
    chip = host.get_by_test_id("seat-chip-1")
    give = chip.get_by_test_id("seat-bot")
    give.wait_for()
    outer, inner = chip.bounding_box(), give.bounding_box()
    assert outer is not None and inner is not None
    # Inside it, with the chip's own edge around it (2 px at least), not flush with it.
    assert outer["y"] + 2 <= inner["y"]
    assert inner["y"] + inner["height"] + 2 <= outer["y"] + outer["height"]
    assert outer["x"] + 2 <= inner["x"]
    assert inner["x"] + inner["width"] + 2 <= outer["x"] + outer["width"]
    assert host.evaluate("window.joinShown === undefined")
    host.context.close()
    assert page_errors == []
