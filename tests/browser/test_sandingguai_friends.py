"""Three friends play a 三丁拐 match in three browsers (docs/web.md "三丁拐", docs/protocol.md §2,
§2.4, §7): each signs up in the lobby in a browser context of their own; 阿明 creates the room
through the lobby's game choice (三丁拐, three people, 局数 4 in the rule form, no turn timer and
no countdown between hands, seeded), 小芳 and 老王 open it and sit, and the four hands are played
by clicking the boards (the last legal tile, else the first claim button), everyone pressing
下一局 between hands. In the second hand 小芳 closes her tab and comes back in a new tab of the
same context: her seat and her hand are hers again and the hand goes on. In the third hand all
three hand their seats to 托管 at the deal: nobody presses 下一局, and 托管 presses it for them
(no countdown runs), so the fourth hand is dealt by itself; they take their seats back and play
it. The match's end shows the ledger, which sums to zero; each player's 战绩 lists the match as
三丁拐 with its four hands, and each hand's 回放码 resolves through the API to that hand.
阿明 and 老王 play at desktop size, 小芳 on a phone held sideways (844×390), where the board fits
without scrolling.

A 亲友圈 whose game is 三丁拐 opens a table for three people; the members sit at it from the
club's page and the hand is dealt to all three.

Screenshots go to out/screenshots/; ``WMQ_DOC_SHOTS=1`` refreshes the ones docs/web.md shows.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from typing import Any

import pytest

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    Page,
    close_menu,
    new_page,
    open_menu,
    pytestmark,
)
from tests.browser.test_players import CODE, sign_up
from tests.browser.test_sandingguai_board import DOCS, PHONE_LANDSCAPE, SHOTS, fits

NAMES = ("阿明", "小芳", "老王")
VIEWS = (DESKTOP, PHONE_LANDSCAPE, DESKTOP)
HANDS = 4
SEED = 23
CLOSING_SEAT = 1  # 小芳 closes her tab ...
CLOSING_HAND = 2  # ... in the second hand
AUTO_HAND = 3  # everyone hands this hand to 托管 at its deal

# The pictures docs/web.md shows (the others stay in out/screenshots/ for a person to check).
DOC_PICTURES = {
    "sandingguai-friends-back-phone-landscape",
    "sandingguai-friends-end-phone-landscape",
}

# What the page asks of its player now: "over" (the match's end), "result" (a hand's result
# with 下一局 to press), "ready" (the result, nothing to press), "button", "tile", "wait".
STATE_JS = """() => {
  if (document.querySelector('[data-testid=match-end]')) return 'over';
  if (document.querySelector('[data-testid=next-hand]:not([disabled])')) return 'result';
  if (document.querySelector('[data-testid=result-host]')) return 'ready';
  if (document.body.dataset.busy === 'true') return 'wait';
  const act = '[data-testid=actions] .buttons button.act:not([disabled])';
  if (document.querySelector(act)) return 'button';
  if (document.querySelector('[data-testid=hand-tile][data-legal=true]')) return 'tile';
  return 'wait';
}"""


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    if os.environ.get("WMQ_DOC_SHOTS") == "1" and name in DOC_PICTURES:
        # The felt drawn flat keeps the PNGs small (as test_sandingguai_board.py's pictures).
        DOCS.mkdir(parents=True, exist_ok=True)
        style = page.add_style_tag(content="body { background: #24573f !important; }")
        page.screenshot(path=str(DOCS / f"{name}.png"))
        style.evaluate("node => node.remove()")


def _watch(page: Page, errors: list[str]) -> Page:
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(30_000)
    return page


def _click_decision(page: Page, state: str) -> str:
    """Click what the board offers: the first enabled claim button, else the last legal tile."""
    if state == "button":
        button = page.locator("[data-testid=actions] .buttons button.act:not([disabled])").first
        what = button.get_attribute("data-testid") or "button"
        button.click(timeout=5_000)
        return what
    tile = page.locator("[data-testid=hand-tile][data-legal=true]").last
    what = f"tile {tile.get_attribute('data-tile')}"
    tile.click(timeout=5_000)
    raised = page.locator("[data-testid=hand-tile][data-raised=true]")
    if raised.count():  # the second tap of a touch screen
        raised.click(timeout=5_000)
    return what


def _tiles(page: Page) -> list[str]:
    """The concealed tiles the board shows its player, read in one go (the hand may be redrawn
    between two reads of a tile at a time)."""
    tiles = page.eval_on_selector_all(
        "[data-testid=hand-tile]", "nodes => nodes.map((n) => n.dataset.tile || '')"
    )
    return [str(t) for t in tiles]


class Table:
    """The three players' pages, the room as the server says it is, and what each did."""

    def __init__(self, pages: list[Page], room: str, base: str, errors: list[str]) -> None:
        self.pages = pages
        self.room = room
        self.base = base
        self.errors = errors
        self.hand = 1
        self.clicked = [0, 0, 0]
        #: hand number → how many players pressed 下一局 after it
        self.pressed: Counter[int] = Counter()
        self.back: list[str] = []
        self.log: list[str] = []

    def info(self) -> dict[str, Any]:
        """RoomInfo (docs/protocol.md §1), from the server."""
        res = self.pages[0].request.get(f"{self.base}/api/rooms/{self.room}")
        assert res.ok, res.text()
        return dict(res.json()["room"])

    def state(self, seat: int) -> str:
        try:
            return str(self.pages[seat].evaluate(STATE_JS))
        except Exception:  # the page is between two documents (a navigation, a redraw)
            return "wait"

    def step(self, seat: int, state: str) -> bool:
        """Do what seat's page asks, if anything; True when something was done."""
        page = self.pages[seat]
        if state in ("button", "tile") and self.hand != AUTO_HAND:
            if self.clicked[seat] == 0 and seat == CLOSING_SEAT:
                shot(page, f"sandingguai-friends-hand{self.hand}-phone-landscape")
                assert fits(page), f"hand {self.hand}: 小芳's board scrolls at 844×390"
            try:
                what = _click_decision(page, state)
            except Exception as exc:  # the decision went (a claim decided it) meanwhile
                self.log.append(f"hand {self.hand} seat {seat}: {state} missed ({exc})"[:200])
                return False
            self.log.append(f"hand {self.hand} seat {seat}: {what}")
            self.clicked[seat] += 1
            return True
        if state == "result":
            if seat == CLOSING_SEAT:
                shot(page, f"sandingguai-friends-result{self.hand}-phone-landscape")
                assert fits(page), f"hand {self.hand}: the result scrolls at 844×390"
            page.get_by_test_id("next-hand").click()
            # 已准备 ✓, or the next hand at once when this was the press the deal waited for.
            page.wait_for_function(
                "() => document.querySelector('[data-testid=ready-done]')"
                " || !document.querySelector('[data-testid=result-host]')"
            )
            self.pressed[self.hand] += 1
            self.log.append(f"hand {self.hand} seat {seat}: 下一局")
            return True
        return False

    def dealt(self, number: int) -> None:
        """Hand ``number`` is dealt: in the 托管 hand everyone turns 托管 on at once; in the next
        one everyone takes their seat back (取消托管)."""
        self.hand = number
        self.clicked = [0, 0, 0]
        self.log.append(f"hand {number} dealt")
        for page in self.pages:
            page.wait_for_function(
                "() => document.querySelectorAll('[data-testid=hand-tile]').length > 0"
            )
            if number == AUTO_HAND:
                page.get_by_test_id("autoplay-on").click()
                page.get_by_test_id("autoplay-banner").wait_for()
            elif page.get_by_test_id("autoplay-off").count():
                page.get_by_test_id("autoplay-off").click()
                page.get_by_test_id("autoplay-banner").wait_for(state="detached")

    def reopen(self, seat: int) -> None:
        """Close seat's tab mid-hand; a new tab of the same context sits back at the seat,
        with the hand as it was."""
        old = self.pages[seat]
        before = sorted(_tiles(old))
        context = old.context
        old.close()
        # The others see the seat go offline (after its grace, docs/protocol.md §3).
        self.wait_seat(seat, lambda x: x["offline"] and not x["connected"])
        page = _watch(context.new_page(), self.errors)
        page.goto(f"{self.base}/r/{self.room}")
        page.locator("[data-testid=board][data-game=sandingguai]").wait_for()
        # Same player, same seat: no join panel; the hand under way on the board, with her
        # tiles (托管 may have played one decision of the seat while she was away).
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=hand-tile]').length > 0"
        )
        assert page.get_by_test_id("join").count() == 0
        after = sorted(_tiles(page))
        assert sum((Counter(before) & Counter(after)).values()) >= len(before) - 1, (before, after)
        self.wait_seat(seat, lambda x: x["connected"] and not x["offline"])
        self.pages[seat] = page
        shot(page, "sandingguai-friends-back-phone-landscape")
        self.back.append(f"hand {self.hand}")
        self.log.append(f"hand {self.hand} seat {seat}: back")

    def wait_seat(self, seat: int, ok: Any, limit: float = 60) -> None:
        deadline = time.monotonic() + limit
        while not ok(self.info()["seats"][seat]):
            assert time.monotonic() < deadline, self.info()["seats"][seat]
            time.sleep(0.1)

    def play(self, stall: float = 60) -> None:
        """Play until every page shows the match's end; fail when nothing changed for ``stall``
        seconds (no page, no move, no deal)."""
        closed = False
        seen: tuple[Any, ...] = ()
        changed = time.monotonic()
        while True:
            states = [self.state(s) for s in range(3)]
            if all(st == "over" for st in states):
                return
            info = self.info()
            now = (states, info["hand_number"], info["status"], len(self.log), info["seats"])
            if now != seen:
                seen, changed = now, time.monotonic()
            elif time.monotonic() - changed > stall:
                raise AssertionError(f"the match stalled: {states} {info} {self.log[-8:]}")
            if info["status"] == "playing" and info["hand_number"] > self.hand:
                self.dealt(info["hand_number"])
                continue
            if (
                not closed
                and self.hand == CLOSING_HAND
                and self.clicked[CLOSING_SEAT] >= 1
                and states[CLOSING_SEAT] in ("button", "tile", "wait")
                and info["status"] == "playing"
            ):
                self.reopen(CLOSING_SEAT)
                closed = True
                continue
            progressed = False
            for seat in range(3):
                progressed = self.step(seat, states[seat]) or progressed
            if not progressed:
                time.sleep(0.05)


@pytest.mark.timeout(600)
def test_three_friends_play_a_sandingguai_match(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    pages = [new_page(browser, page_errors, v) for v in VIEWS]
    for page in pages:
        page.set_default_timeout(30_000)
    for page, who in zip(pages, NAMES, strict=True):
        sign_up(page, server, who)

    # 阿明 creates the room in the lobby: 三丁拐, people at the three seats, a 4-hand match,
    # no turn timer and no countdown between hands.
    a = pages[0]
    a.goto(server + "/")
    a.get_by_test_id("create-form").wait_for()
    a.get_by_test_id("game").select_option("sandingguai")
    a.wait_for_selector("[data-testid=create-form][data-game=sandingguai]")
    a.get_by_test_id("create-options").click()
    hands = a.get_by_test_id("create-opt-match_hands")
    assert hands.input_value() == "8"
    hands.fill(str(HANDS))
    hands.dispatch_event("change")
    a.get_by_test_id("seat-kind-1").select_option("")
    a.get_by_test_id("seat-kind-2").select_option("")
    a.locator("input[name=turn_seconds]").fill("0")
    a.locator("input[name=next_seconds]").fill("0")
    a.get_by_test_id("more-options").click()
    a.get_by_test_id("seed").fill(str(SEED))
    a.get_by_test_id("create-room").click()
    a.wait_for_url("**/r/*")
    room = a.url.rsplit("/", 1)[1]
    a.get_by_test_id("waiting").wait_for()

    # 小芳 and 老王 open it and sit.
    for seat in (1, 2):
        page = pages[seat]
        page.goto(f"{server}/r/{room}")
        page.get_by_test_id(f"sit-{seat}").click()
        page.get_by_test_id("join").wait_for(state="detached")
        # Both agree to play without a turn timer, as 阿明 did by creating the room so.
        open_menu(page)
        page.get_by_test_id("no-timer").click()
        page.wait_for_function(
            "() => document.querySelector('[data-testid=no-timer]')?.ariaPressed === 'true'"
        )
        close_menu(page)
    for page in pages:
        page.wait_for_function("() => document.querySelectorAll('[data-testid=hand-tile]').length")
    table = Table(pages, room, server, page_errors)
    info = table.info()
    assert (info["game"], info["next_seconds"], info["match_hands"]) == ("sandingguai", None, 4)
    assert info["turn_seconds"] is None, info
    assert [s["name"] for s in info["seats"]] == list(NAMES)

    table.play()
    pages = table.pages
    assert table.hand == HANDS, table.log[-12:]
    assert table.back == [f"hand {CLOSING_HAND}"], table.log[-12:]
    # Every player pressed 下一局 after hands 1 and 2; after the hand all three left to 托管
    # nobody did, and the next hand was dealt all the same (docs/protocol.md §2.4).
    assert table.pressed == Counter({1: 3, 2: 3}), table.pressed

    # The match's end: the ledger, which sums to zero, the same on every page.
    totals: dict[str, int] = {}
    for page in pages:
        end = page.get_by_test_id("match-end")
        assert end.get_attribute("data-dissolved") == "false"
        for s in range(3):
            final = page.get_by_test_id(f"final-{s}")
            assert NAMES[s] in final.inner_text()
            points = int(final.locator(".num").inner_text().replace("+", ""))
            assert totals.setdefault(NAMES[s], points) == points
    assert sum(totals.values()) == 0, totals
    info = table.info()
    assert info["match_over"] and info["hands_played"] == HANDS
    shot(pages[CLOSING_SEAT], "sandingguai-friends-end-phone-landscape")
    shot(pages[0], "sandingguai-friends-end-desktop")

    # Each player's 战绩 lists the match as 三丁拐 with its four hands, each 荒庄 or who won it
    # (三丁拐's words, not 偎麻雀's 臭), and their 回放码.
    hands_api = pages[0].request.get(f"{server}/api/rooms/{room}/hands").json()["hands"]
    assert len(hands_api) == HANDS
    said = ["荒庄" if h["winner"] is None else f"{NAMES[h['winner']]}" for h in hands_api]
    assert "荒庄" in said and any(s in NAMES for s in said), said  # seed 23: both kinds
    codes: list[list[str]] = []
    for seat, page in enumerate(pages):
        page.goto(server + "/me")
        match = page.locator(f"[data-testid=match-entry][data-room='{room}']")
        match.wait_for()
        assert "三丁拐" in match.inner_text(), match.inner_text()
        assert int(match.get_attribute("data-total") or "x") == totals[NAMES[seat]]
        match.get_by_test_id("match-hands-toggle").click()
        match.get_by_test_id("match-hands").wait_for()
        entries = match.get_by_test_id("match-hand").all()
        assert len(entries) == HANDS
        for entry, what in zip(entries, said, strict=True):
            text = entry.inner_text()
            assert what in text and "臭" not in text, (what, text)
        links = match.get_by_test_id("hand-code").all()
        mine = [link.get_attribute("data-code") or "" for link in links]
        assert all(re.fullmatch(f"{CODE}{{8}}", c) for c in mine), mine
        assert [link.get_attribute("href") for link in links] == [f"/p/{c}" for c in mine]
        codes.append(mine)
        if seat == CLOSING_SEAT:
            shot(page, "sandingguai-friends-me-phone-landscape")
    assert codes[0] == codes[1] == codes[2] and len(set(codes[0])) == HANDS

    # Each 回放码 resolves to its 三丁拐 hand: its number in the match, the three friends.
    assert [h["code"] for h in hands_api] == codes[0]
    for number, code in enumerate(codes[0], 1):
        replay = pages[CLOSING_SEAT].request.get(f"{server}/api/replays/{code}")
        assert replay.ok, replay.text()
        body = replay.json()
        assert (body["code"], body["number"], body["match"]) == (code, number, 1)
        assert [s["name"] for s in body["seats"]] == list(NAMES), body["seats"]
        record = pages[0].request.get(f"{server}/api/rooms/{room}/hands/{number}").json()
        assert body["record"]["actions"] == record["record"]["actions"]
    assert page_errors == []


def test_a_sandingguai_club_opens_a_table_its_members_sit_at(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    owner, friend, third = (new_page(browser, page_errors, v) for v in VIEWS)
    for page, who in zip((owner, friend, third), NAMES, strict=True):
        sign_up(page, server, who)

    # 阿明 creates the club, chooses 三丁拐 as its game, and invites the other two.
    owner.get_by_test_id("club-new").click()
    owner.get_by_test_id("club-name-input").fill("捉鸡牌友")
    owner.get_by_test_id("club-create").click()
    owner.wait_for_url("**/clubs/*")
    club_id = owner.url.rsplit("/", 1)[1]
    owner.get_by_test_id("club-rules-edit").click()
    owner.get_by_test_id("club-game").select_option("sandingguai")
    owner.wait_for_function(
        "() => document.querySelector('[data-testid=club-preset]')?.value === 'sandingguai'"
    )
    owner.get_by_test_id("club-rules-save").click()
    owner.wait_for_function("() => !document.querySelector('[data-testid=club-rules-form]')")
    assert "三丁拐" in owner.get_by_test_id("club-rules").inner_text()
    owner.get_by_test_id("invite-uses").select_option("5")
    owner.get_by_test_id("invite-create").click()
    link = owner.get_by_test_id("invite-link").input_value()
    for page in (friend, third):
        page.goto(link)
        page.get_by_test_id("club-join").click()
        page.wait_for_url(f"**/clubs/{club_id}")
        page.get_by_test_id("club-name").wait_for()

    # 开桌: people at the other two seats, a 2-hand match; 阿明 sits at once.
    owner.reload()
    owner.get_by_test_id("table-open").click()
    assert owner.locator("[data-testid^=table-seat-]").count() == 2
    owner.get_by_test_id("table-seat-1").select_option("")
    owner.get_by_test_id("table-seat-2").select_option("")
    owner.get_by_test_id("table-hands").fill("2")
    owner.get_by_test_id("table-create").click()
    owner.wait_for_url("**/r/*")
    room = owner.url.rsplit("/", 1)[1]
    owner.get_by_test_id("waiting").wait_for()

    # The two friends find the table on the club's page and sit with one tap each.
    for page in (friend, third):
        page.reload()
        entry = page.locator(f"[data-testid=table-entry][data-room='{room}']")
        entry.get_by_test_id("table-join").click()
        page.wait_for_url(f"**/r/{room}")
        page.get_by_test_id("join").wait_for(state="detached")
    for page in (owner, friend, third):
        page.locator("[data-testid=board][data-game=sandingguai]").wait_for()
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=hand-tile]').length > 0"
        )
    assert fits(friend), "the club's 三丁拐 table scrolls at 844×390"
    shot(friend, "sandingguai-club-table-phone-landscape")
    info = owner.request.get(f"{server}/api/rooms/{room}").json()["room"]
    assert (info["game"], info["status"], info["match_hands"]) == ("sandingguai", "playing", 2)
    assert info["club"] == club_id, info["club"]
    assert [(s["kind"], s["name"]) for s in info["seats"]] == [("human", n) for n in NAMES]
    # The club's page lists the table as played, its three seats taken by the members.
    owner.goto(f"{server}/clubs/{club_id}")
    entry = owner.locator(f"[data-testid=table-entry][data-room='{room}']")
    entry.wait_for()
    assert all(name in entry.inner_text() for name in NAMES), entry.inner_text()
    assert entry.get_by_test_id("table-back").count() == 1
    assert page_errors == []
