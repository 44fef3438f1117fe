"""A 偎麻雀 table of four persons in the browser (RULES §2.1.1, §2.1.2, §8.6.1; docs/web.md): the
lobby's 人数 offers four with the 守醒 rotating; the creator and a friend (two browser contexts)
sit with two bots as the other persons; the friend first sits out as 守醒 and watches the table
seeing the dealer's hand only (``shouxing_sees = "dealer"``), the board marking who sits out;
three hands are played (a few clicks, then 托管) and the result sheet and the match's end show
the ledger of four people, on a desktop and on a phone held sideways (844×390) with no scroll.
Set ``WMQ_DOC_SHOTS=1`` to refresh the screenshots of docs/web.md (docs/img/)."""

from __future__ import annotations

import pytest

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    ASKED_JS,
    DESKTOP,
    Browser,
    Page,
    decide,
    new_page,
    open_menu,
    pytestmark,
)
from tests.browser.test_browser import shot as snap
from tests.browser.test_table import LANDSCAPE, doc_shot, get

#: Taps 托管 if the page offers it now (shown and enabled).
AUTOPLAY_JS = """() => {
  const b = document.querySelector('[data-testid=autoplay-on]');
  if (b && !b.disabled && b.checkVisibility()) b.click();
}"""


def _create(page: Page, server: str, seed: int) -> str:
    """The lobby's form: four persons, the 守醒 seeing the dealer's hand only, persons 1 and 3
    bots, person 2 left for a friend, three hands."""
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    page.get_by_test_id("people").select_option("4")
    page.get_by_test_id("seat-kind-3").wait_for()
    page.get_by_test_id("shouxing_sees").select_option("dealer")
    page.get_by_test_id("seat-kind-1").select_option("greedy")
    page.get_by_test_id("seat-kind-2").select_option("")
    page.get_by_test_id("seat-kind-3").select_option("greedy")
    page.locator("[data-testid=field-hands] input").fill("3")
    # The countdown between hands: the first hand's result is read before it deals the next.
    page.locator("[data-testid=field-next] input").fill("10")
    page.get_by_test_id("more-options").click()
    page.get_by_test_id("bot-speed").select_option("0")
    page.get_by_test_id("seed").fill(str(seed))
    page.get_by_test_id("create-room").click()
    page.wait_for_url("**/r/*")
    return page.url.rsplit("/", 1)[1]


def _no_scroll(page: Page, viewport: dict[str, int]) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert page.evaluate("document.documentElement.scrollHeight") <= viewport["height"]


@pytest.mark.parametrize(("viewport", "name"), [(DESKTOP, "desktop"), (LANDSCAPE, "phone")])
def test_four_people_play_three_hands(
    server: str, browser: Browser, page_errors: list[str], viewport: dict[str, int], name: str
) -> None:
    host = new_page(browser, page_errors, viewport)
    room = _create(host, server, 11)
    # the creator sits at the first person's place left for a person: person 0's, seat 0
    host.locator("[data-testid=seat-chip-0].me").wait_for()
    info = get(server, f"/api/rooms/{room}")["room"]
    assert info["rules"]["overrides"]["shouxing_rotation"] is True
    assert info["rules"]["overrides"]["shouxing_sees"] == "dealer"
    assert [p["seat"] for p in info["persons"]] == [0, 1, "shouxing", 2]
    assert [p["kind"] for p in info["persons"]] == ["human", "bot", "human", "bot"]
    assert info["persons"][0]["taken"]  # the creator sat at person 0's place, seat 0

    friend = new_page(browser, page_errors, viewport)
    friend.goto(f"{server}/r/{room}")
    friend.get_by_test_id("sit-shouxing").click()
    # the deal: the friend sits this hand out as 守醒 and watches the table
    # (the line may show before the page hears its own place: wait for the words, not the line)
    friend.locator("[data-testid=shouxing-line]", has_text="你本局守醒").wait_for()
    friend.get_by_test_id("board").wait_for()
    friend.get_by_test_id("seat-0").wait_for()
    # RULES §2.1.2: the dealer's hand (seat 0, at the bottom) only; the others' are counts
    friend.locator("[data-testid=seat-0] [data-testid=hand]").wait_for()
    assert friend.locator("[data-testid=seat-1] .open-hand").count() == 0
    assert friend.locator("[data-testid=seat-2] .open-hand").count() == 0
    assert friend.locator("[data-testid=actions] .buttons button").count() == 0
    _no_scroll(friend, viewport)
    doc_shot(friend, f"four-people-shouxing-{name}")
    host_line = host.get_by_test_id("shouxing-line")
    assert host_line.get_attribute("data-person") == "2"
    # The one sitting out has a share in the ledger: he may propose 解散, and every person's
    # answer is shown, his too (docs/protocol.md §2.4); the creator refuses and play goes on.
    open_menu(friend)
    friend.get_by_test_id("dissolve").click()
    friend.get_by_test_id("confirm-yes").click()
    host.get_by_test_id("vote").wait_for()
    rows = host.locator("[data-testid=vote] li").evaluate_all(
        "rows => rows.map(r => [r.dataset.testid, r.dataset.answer])"
    )
    assert rows == [
        ["vote-0", "null"],
        ["vote-1", "true"],  # a bot agrees without answering
        ["vote-2", "true"],
        ["vote-shouxing", "true"],
    ]
    proposer = host.get_by_test_id("vote-shouxing").inner_text().split(" · ")[0]
    assert proposer in host.locator("[data-testid=vote] h2").inner_text()
    snap(host, f"four-people-vote-{name}")
    host.get_by_test_id("vote-refuse").click()
    friend.get_by_test_id("vote").wait_for(state="detached")
    friend.locator("[data-testid=error]", has_text="拒绝").wait_for()
    host.get_by_test_id("vote").wait_for(state="detached")
    if friend.get_by_test_id("drawer").count():
        friend.get_by_test_id("menu-close").click()
    host.wait_for_function(ASKED_JS)
    _no_scroll(host, viewport)
    snap(host, f"four-people-table-{name}")

    clicked = 0
    while clicked < 2:  # our own decisions, by clicking
        state = decide(host)
        if state == "end":
            break
        if state != "retry":
            clicked += 1
    if host.get_by_test_id("hand-end").count() == 0:
        # 托管 plays on, to the match's end (on a phone an open 吃 choice may lie over the
        # tool row: the button's own click event)
        host.get_by_test_id("autoplay-on").dispatch_event("click")
    host.get_by_test_id("hand-end").wait_for(timeout=120_000)
    sheet = host.get_by_test_id("ledger").first
    for p in range(4):
        assert sheet.locator(f"[data-testid=ledger-{p}]").count() == 1
    # the person who sat the first hand out (person 2) is marked so in its result
    assert sheet.locator("[data-testid=ledger-row-2] [data-testid=sat-out]").count() == 1
    snap(host, f"four-people-hand-end-{name}")

    # The friend plays whenever seated (托管 once at a seat), until the match ends: the button
    # looked for and tapped in one go, as it goes whenever the friend's place changes.
    for _ in range(600):
        if host.get_by_test_id("match-end").count():
            break
        friend.evaluate(AUTOPLAY_JS)
        host.wait_for_timeout(200)
    host.get_by_test_id("match-end").wait_for(timeout=180_000)
    doc_shot(host, f"four-people-match-end-{name}")
    for p in range(4):
        assert host.get_by_test_id(f"final-{p}").count() == 1
    assert host.evaluate("document.documentElement.scrollWidth") <= viewport["width"]

    hands = get(server, f"/api/rooms/{room}/hands")
    ledger = hands["ledger"]
    assert len(ledger["seats"]) == 4 and len(hands["hands"]) == 3
    assert sum(ledger["seats"]) + ledger["shouxing"] + ledger["pool"] == 0
    shown = {}
    for p in range(4):
        text = host.get_by_test_id(f"final-{p}").inner_text().split()[-1]
        shown[p] = int(text)
    assert [shown[p] for p in range(4)] == ledger["seats"]
    # the role moved with the deal: each hand's 守醒 sits opposite its dealer person
    for hand in hands["hands"]:
        settlement = hand["settlement"]
        assert len(settlement["persons"]) == 4
    assert page_errors == []
