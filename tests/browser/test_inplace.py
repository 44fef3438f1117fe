"""The room page updates in place (docs/web.md): what a player holds survives other people's news.

An element that still stands for the same thing stays the same node: the hand, the result panel
and the log are held as element handles across another seat's messages, a spectator's arrival and
a ping, and must still be attached, with the log's scroll position and a text selection kept. On
a phone held sideways (844×390) the table needs no scrolling at the deal, at a claim, with the 吃
runs open.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from websockets.sync.client import ClientConnection, connect

from tests.browser.test_browser import (
    ASKED_JS,
    DESKTOP,
    Browser,
    Page,
    close_menu,
    decide,
    new_page,
    open_menu,
    pytestmark,
)
from tests.browser.test_table import LANDSCAPE, LONG_TURN, doc_shot, post

__all__ = ["pytestmark"]  # skipped, as the other browser tests, without Chromium


class Client:
    """A WebSocket client of a room that reads every message on a thread of its own."""

    def __init__(self, base: str, room_id: str) -> None:
        self.ws: ClientConnection = connect(base.replace("http", "ws") + f"/ws/{room_id}")
        self.ws.__enter__()
        self.messages: list[dict[str, Any]] = []
        self.n = 0
        self.mark = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for text in self.ws:
                self.messages.append(json.loads(text))
        except Exception:  # the socket closed: the test is over with it
            return

    def send(self, **fields: Any) -> int:
        self.n += 1
        self.mark = len(self.messages)
        self.ws.send(json.dumps({"v": 1, "id": self.n, **fields}, ensure_ascii=False))
        return self.n

    def wait(self, test: Any, timeout: float = 10) -> dict[str, Any]:
        """The first message since the last ``send`` for which ``test(msg)`` holds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for msg in self.messages[self.mark :]:
                if test(msg):
                    return msg
            time.sleep(0.02)
        raise AssertionError(f"no such message in {self.messages[-5:]}")

    def close(self) -> None:
        self.ws.close()


# Marks nodes and a selection in the page, to be checked after other people's messages.
HOLD_JS = """(sel) => {
  const nodes = sel.map((s) => document.querySelector(s));
  window.__held = nodes;
  return nodes.map((n) => Boolean(n));
}"""
ATTACHED_JS = "() => window.__held.map((n) => n.isConnected)"
SELECT_JS = """(sel) => {
  const node = document.querySelector(sel);
  const range = document.createRange();
  range.selectNodeContents(node);
  const s = window.getSelection();
  s.removeAllRanges();
  s.addRange(range);
  window.__selected = [node, s.toString()];
  return s.toString();
}"""
SELECTION_KEPT_JS = """() => {
  const s = window.getSelection();
  const [node, text] = window.__selected;
  return node.isConnected && s.rangeCount === 1 && s.toString() === text
    && s.getRangeAt(0).intersectsNode(node);
}"""


def test_the_hand_the_log_and_the_result_survive_other_peoples_messages(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    room = post(
        server,
        "/api/rooms",
        {"bots": {"2": "random"}, "bot_delay_ms": 0, "seed": 21, "turn_seconds": LONG_TURN},
    )["room_id"]
    page = new_page(browser, page_errors, DESKTOP)
    page.goto(f"{server}/r/{room}")
    page.get_by_test_id("sit-0").click()
    friend = Client(server, room)
    friend.send(type="sit", seat=1, name="友")
    friend.wait(lambda m: m["type"] == "welcome" and m.get("seat") == 1)
    # The friend lets 托管 play: the page gets its moves as another seat's messages.
    friend.send(type="autoplay", on=True)
    page.get_by_test_id("hand").wait_for()
    watchers: list[Client] = []
    try:
        # Play until the log is long enough to scroll, then hold what a player is looking at.
        for _ in range(60):
            if page.locator("[data-testid=log-toggle]").count():
                count = page.get_by_test_id("log-toggle").inner_text()
                if int(count.split("(")[1].rstrip(")")) >= 30:
                    break
            if decide(page) == "end":
                break
        assert page.get_by_test_id("hand-end").count() == 0, "the hand ended too soon"
        page.get_by_test_id("log-toggle").click()
        page.wait_for_function(ASKED_JS)
        assert page.evaluate(
            HOLD_JS,
            ["[data-testid=hand]", "[data-testid=log]", "[data-testid=log] li", "#app header"],
        ) == [True, True, True, True]
        scroll = page.evaluate(
            "() => { const l = document.querySelector('[data-testid=log]');"
            " l.scrollTop = 40; return l.scrollTop; }"
        )
        assert scroll > 0, "the open log should scroll"
        selected = page.evaluate(SELECT_JS, "[data-testid=log] li")
        assert selected
        # Other people's news: the friend takes 托管 off and on (room broadcasts), a spectator
        # arrives, and the page's own ping is answered.
        before = int(page.evaluate("document.body.dataset.received"))
        friend.send(type="autoplay", on=False)
        friend.wait(lambda m: m["type"] == "room" and not m["room"]["seats"][1]["autoplay"])
        friend.send(type="autoplay", on=True)
        friend.wait(lambda m: m["type"] == "room" and m["room"]["seats"][1]["autoplay"])
        watchers.append(Client(server, room))
        watchers[-1].send(type="join")
        page.wait_for_function(
            "() => document.querySelector('[data-testid=menu]') && "
            f"Number(document.body.dataset.received) >= {before + 2}"
        )
        assert page.evaluate(ATTACHED_JS) == [True, True, True, True]
        assert page.evaluate(SELECTION_KEPT_JS)
        assert page.evaluate("document.querySelector('[data-testid=log]').scrollTop") == scroll

        # Play on to the hand's end; hold the result panel and select its headline.
        for _ in range(200):
            if decide(page) == "end":
                break
        end = page.get_by_test_id("hand-end")
        end.wait_for()
        page.evaluate(HOLD_JS, ["[data-testid=hand-end]", "[data-testid=breakdown], h2"])
        text = page.evaluate(SELECT_JS, "[data-testid=hand-end] h2")
        assert "第 1 局" in text
        # The friend is ready (a room broadcast right after the hand's end), a second spectator
        # arrives: the panel the player holds stays, and so does the selection.
        friend.send(type="next")
        friend.wait(lambda m: m["type"] == "room" and m["room"]["seats"][1]["ready"])
        watchers.append(Client(server, room))
        watchers[-1].send(type="join")
        page.wait_for_function(
            "() => document.querySelector('[data-testid=ready-1]')?.dataset.ready === 'true'"
        )
        page.evaluate("() => new Promise((r) => setTimeout(r, 300))")
        assert page.evaluate(ATTACHED_JS) == [True, True]
        assert page.evaluate(SELECTION_KEPT_JS)
        end.click(position={"x": 5, "y": 5}, trial=True)  # still there to act on
        # An open replay stays open and where it was while the table's news comes in.
        open_menu(page)
        page.get_by_test_id("history-toggle").click()
        page.get_by_test_id("replay-button").first.click()
        page.get_by_test_id("replay").wait_for()
        page.get_by_test_id("replay-next").click()
        page.get_by_test_id("replay-next").click()
        step = page.get_by_test_id("replay-step").inner_text()
        page.evaluate(HOLD_JS, ["[data-testid=replay]", "[data-testid=replay-events]"])
        before = int(page.evaluate("document.body.dataset.received"))
        friend.send(type="autoplay", on=False)
        page.wait_for_function(f"() => Number(document.body.dataset.received) > {before}")
        assert page.evaluate(ATTACHED_JS) == [True, True]
        assert page.get_by_test_id("replay-step").inner_text() == step
    finally:
        friend.close()
        for w in watchers:
            w.close()
    assert page_errors == []


# What the page offers at this moment (as test_browser.STATE_JS), with the 吃 chooser apart.
LANDSCAPE_STATE_JS = """() => {
  if (document.querySelector('[data-testid=hand-end]')) return 'end';
  if (document.body.dataset.busy === 'true') return 'wait';
  if (document.querySelector('[data-testid=chi-option]')) return 'chi-open';
  if (document.querySelector('[data-testid=action-chi][data-action=choose]')) return 'chi';
  if (document.querySelector('[data-testid=actions] .buttons button')) return 'claim';
  if (document.querySelector('[data-testid=hand-face][data-legal=true]')) return 'discard';
  return 'wait';
}"""


def _fits(page: Page) -> tuple[int, int]:
    size = page.evaluate(
        "[document.documentElement.scrollHeight, document.documentElement.scrollWidth]"
    )
    return int(size[0]), int(size[1])


def test_a_phone_held_sideways_needs_no_scroll(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    # Seed 11 with two 普通 bots and the page playing its first option reaches a 吃 with several
    # runs (checked below: each state must be seen).
    room = post(
        server,
        "/api/rooms",
        {"bots": {"1": "greedy", "2": "greedy"}, "bot_delay_ms": 0, "seed": 11},
    )["room_id"]
    page = new_page(browser, page_errors, LANDSCAPE)
    page.goto(f"{server}/r/{room}")
    page.get_by_test_id("sit-0").click()
    page.get_by_test_id("hand").wait_for()
    seen: dict[str, tuple[int, int]] = {"deal": _fits(page)}
    # The room's bar lives in a drawer over the table.
    open_menu(page)
    doc_shot(page, "room-drawer-phone-landscape")
    close_menu(page)
    for _ in range(300):
        state = page.evaluate(LANDSCAPE_STATE_JS)
        if state != "wait" and state not in seen:
            seen[state] = _fits(page)
            if state == "chi-open":
                # Every run is on the screen, above the fold, and leaves the hand in view.
                hand = page.get_by_test_id("hand").bounding_box()
                assert hand is not None
                for run in page.get_by_test_id("chi-option").all():
                    box = run.bounding_box()
                    assert box is not None and box["y"] + box["height"] <= LANDSCAPE["height"]
                    assert box["y"] >= 0
                    assert (
                        box["y"] + box["height"] <= hand["y"]
                        or box["y"] >= hand["y"] + hand["height"]
                    ), (box, hand)
                doc_shot(page, "chi-open-phone-landscape")
        if state == "end":
            break
        if state == "chi":
            page.get_by_test_id("action-chi").click()
        elif state == "chi-open":
            page.get_by_test_id("chi-option").first.click()
        elif state == "claim":
            page.locator("[data-testid=actions] .buttons button").first.click()
        elif state == "discard":
            page.locator("[data-testid=hand-face][data-legal=true]").first.click()
        else:
            page.wait_for_timeout(30)
    assert {"deal", "discard", "claim", "chi", "chi-open"} <= set(seen), seen
    for state, (height, width) in seen.items():
        assert height <= LANDSCAPE["height"] and width <= LANDSCAPE["width"], (state, seen)
    # Between hands the result lies over the table and 下一局 is in reach without scrolling.
    page.get_by_test_id("hand-end").wait_for()
    nxt = page.get_by_test_id("next-hand")
    box = nxt.bounding_box()
    assert box is not None and box["y"] + box["height"] <= LANDSCAPE["height"]
    assert page_errors == []
