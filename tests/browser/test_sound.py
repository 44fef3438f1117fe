"""Sound, voice and quick chat at the table (docs/web.md "Sound and voice", "Quick chat").

The page's audio is counted by hooks the test installs before any script runs: ``AudioContext``
subclassed to count the sources it makes, ``speechSynthesis`` given one Chinese and one English
voice and a ``speak`` that records what would be said, and ``WebSocket`` keeping what the page
received. The scripted hand of tests/test_server_table.py is played with the page at seat 0 on a
phone held sideways; a table of three bots is watched for a face-down 偎 that must never be
named. Set ``WMQ_DOC_SHOTS=1`` to refresh the screenshots of docs/web.md (docs/img/).
"""

from __future__ import annotations

from typing import Any

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    Page,
    new_page,
    pytestmark,
)
from tests.browser.test_table import LANDSCAPE, Seat, doc_shot, page_act, post
from tests.test_server_table import SCRIPTED, SCRIPTED_SEED

HOOKS = """(() => {
  const log = (window.__cues = { contexts: 0, sources: 0, spoken: [], msgs: [] });
  const RealCtx = window.AudioContext;
  if (RealCtx) {
    window.AudioContext = class extends RealCtx {
      constructor(...a) { super(...a); log.contexts++; }
      createOscillator() { log.sources++; return super.createOscillator(); }
      createBufferSource() { log.sources++; return super.createBufferSource(); }
    };
  }
  const voices = [
    { name: "Test 普通话", lang: "zh-CN", voiceURI: "test-zh", localService: true },
    { name: "Test English", lang: "en-US", voiceURI: "test-en", localService: true },
  ];
  window.SpeechSynthesisUtterance = class {
    constructor(text) { this.text = text; this.lang = ""; this.voice = null; }
  };
  let synth = window.speechSynthesis;
  if (!synth) {
    synth = {};
    Object.defineProperty(window, "speechSynthesis", { value: synth, configurable: true });
  }
  synth.getVoices = () => voices;
  synth.cancel = () => {};
  synth.speak = (u) => log.spoken.push({ text: u.text, lang: u.lang, voice: u.voice?.name });
  const RealWS = window.WebSocket;
  window.WebSocket = class extends RealWS {
    constructor(...a) {
      super(...a);
      this.addEventListener("message", (e) => log.msgs.push(JSON.parse(e.data)));
    }
  };
})();"""

#: Resolves once the page has no cue waiting to sound (cues.js gathers a burst first).
SETTLED = "() => document.body.dataset.cuePending !== 'true'"


def hooked_page(browser: Browser, errors: list[str], viewport: dict[str, int]) -> Page:
    page = new_page(browser, errors, viewport)
    page.add_init_script(HOOKS)
    return page


def cues(page: Page) -> dict[str, Any]:
    page.wait_for_function(SETTLED)
    got: dict[str, Any] = page.evaluate(
        "() => ({contexts: __cues.contexts, sources: __cues.sources,"
        " spoken: __cues.spoken.map(s => s.text), langs: __cues.spoken.map(s => s.lang)})"
    )
    return got


def said(page: Page, text: str, after: int) -> None:
    """Wait until ``text`` is among what the page said after its first ``after`` lines."""
    try:
        page.wait_for_function(
            "([text, after]) => __cues.spoken.slice(after).some(s => s.text === text)",
            arg=[text, after],
        )
    except Exception as exc:
        spoken = page.evaluate("__cues.spoken.map(s => s.text)")
        spoken.append(page.evaluate("__cues.msgs.slice(-4)"))
        raise AssertionError(f"{text!r} not said after line {after}; said: {spoken}") from exc


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def still(page: Page, selector: str) -> None:
    """Wait until ``selector`` is shown and its pop-in animation is over (for a screenshot)."""
    page.locator(selector).first.wait_for()
    page.wait_for_function(
        "sel => [...document.querySelectorAll(sel)].every(el =>"
        " el.getAnimations().every(a => a.playState === 'finished'))",
        arg=selector,
    )


def open_chat(page: Page) -> None:
    if page.get_by_test_id("chat-panel").count() == 0:
        page.get_by_test_id("chat-toggle").click()
    page.get_by_test_id("chat-panel").wait_for()


def test_calls_sound_and_speak_muting_stops_them_and_chat_reaches_the_table(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    # A long turn timer, not none: a room created without one plays the default 20 s until
    # every person seated agrees (docs/protocol.md §1, `turn_seconds`), and the chat below,
    # while seats 1 and 2 decide, may take longer than that on a loaded machine.
    room = post(server, "/api/rooms", {"seed": SCRIPTED_SEED, "turn_seconds": 600})["room_id"]
    page = hooked_page(browser, page_errors, LANDSCAPE)
    page.goto(f"{server}/r/{room}")
    page.get_by_test_id("sit-0").click()
    page.get_by_test_id("join").wait_for(state="detached")
    others = {s: Seat(server, room, s) for s in (1, 2)}
    page.get_by_test_id("hand").wait_for()
    try:
        # 出二 by the page: its sound at once, and 小二 in the Chinese voice.
        start = cues(page)
        assert start["contexts"] == 1 and start["spoken"] == []
        page_act(page, SCRIPTED[0][1])
        said(page, "小二", 0)
        after = cues(page)
        assert after["sources"] > start["sources"] and after["langs"] == ["zh-CN"]
        # Seat 1's 碰, then its 出叁 (a big card: 大三).
        others[1].act(SCRIPTED[1][1])
        said(page, "碰", 1)
        others[1].act(SCRIPTED[2][1])
        said(page, "大三", 2)
        # Our 碰 (k = 3): the chat panel opens under the header, clear of the hand and the
        # claim buttons.
        page.get_by_test_id("action-peng").wait_for()
        open_chat(page)
        panel = page.get_by_test_id("chat-panel").bounding_box()
        assert panel is not None
        for part in ("[data-testid=hand]", "[data-testid=actions]"):
            box = page.locator(part).first.bounding_box()
            assert box is not None and not overlaps(panel, box), part
        assert panel["y"] + panel["height"] <= LANDSCAPE["height"]
        doc_shot(page, "chat-panel-phone-landscape")
        page.get_by_test_id("chat-toggle").click()
        page.get_by_test_id("chat-panel").wait_for(state="detached")
        # Our 碰 is heard once the claim window closes (seat 2 answers too).
        page_act(page, SCRIPTED[3][1])
        others[2].act(SCRIPTED[4][1])
        said(page, "碰", 3)
        # Both muted (remembered on this device): our 出贰 and the table's news make no sound
        # and say nothing.
        page.get_by_test_id("sound-toggle").click()
        page.get_by_test_id("voice-toggle").click()
        assert page.evaluate("[localStorage['wmq.sound'], localStorage['wmq.voice']]") == [
            "off",
            "off",
        ]
        muted = cues(page)
        page_act(page, SCRIPTED[5][1])
        page_act(page, SCRIPTED[6][1])
        quiet = cues(page)
        assert quiet["sources"] == muted["sources"] and quiet["spoken"] == muted["spoken"]
        # Sound and voice back: our 出玖 is heard again.
        page.get_by_test_id("sound-toggle").click()
        page.get_by_test_id("voice-toggle").click()
        page_act(page, SCRIPTED[7][1])
        said(page, "大九", len(quiet["spoken"]))
        back = cues(page)
        assert back["sources"] > quiet["sources"] and "大二" not in back["spoken"]

        # Quick chat: our phrase reaches the other seats and shows at our seat, said aloud.
        open_chat(page)
        page.locator("[data-testid=chat-phrase][data-phrase=hurry]").click()
        for c in others.values():
            while (m := c.receive(10))["type"] != "chat":
                pass
            assert (m["seat"], m["phrase"], m["emote"]) == (0, "hurry", None)
        mine = page.locator("[data-rel=bottom] [data-testid=chat-bubble]")
        mine.wait_for()
        assert mine.inner_text() == "快点吧"
        said(page, "快点吧", 0)
        # Seat 1's 表情 shows at its seat (our 下家, on the right), drawn by the page.
        others[1].ws.send('{"v": 1, "type": "chat", "emote": "thumbs"}')
        page.locator("[data-rel=right] [data-testid=chat-bubble] svg[data-emote=thumbs]").wait_for()
        still(page, "[data-testid=chat-bubble]")
        doc_shot(page, "chat-bubble-phone-landscape")
        # Muting seat 1: its next line is neither shown nor said; seat 2's still is.
        open_chat(page)
        page.get_by_test_id("chat-mute-1").click()
        assert page.get_by_test_id("chat-mute-1").get_attribute("aria-pressed") == "true"
        page.get_by_test_id("chat-toggle").click()
        page.locator("[data-rel=right] [data-testid=chat-bubble]").wait_for(state="detached")
        heard = len(cues(page)["spoken"])
        others[1].ws.send('{"v": 1, "type": "chat", "phrase": "sorry"}')
        others[2].ws.send('{"v": 1, "type": "chat", "phrase": "nice"}')
        page.locator("[data-rel=left] [data-testid=chat-bubble]").wait_for()
        said(page, "打得好", heard)
        # Two sockets: seat 1's line may reach the page after seat 2's. Once it has (and been
        # drawn: the page redraws as it takes each message in), it is neither shown nor said.
        page.wait_for_function(
            "() => __cues.msgs.some(m => m.type === 'chat' && m.seat === 1 && m.phrase === 'sorry')"
        )
        page.wait_for_function(SETTLED)
        assert page.locator("[data-rel=right] [data-testid=chat-bubble]").count() == 0
        assert "不好意思" not in cues(page)["spoken"][heard:]
        # A flood from the page is refused with the server's reason; the table plays on. The
        # five lines leave in one go (the page draws synchronously), as from a quick thumb: clicks
        # from here can be slower than the budget's refill on a loaded machine.
        page.evaluate(
            """() => {
                for (let i = 0; i < 5; i++) {
                    if (!document.querySelector('[data-testid=chat-panel]'))
                        document.querySelector('[data-testid=chat-toggle]').click();
                    document.querySelector('[data-testid=chat-phrase][data-phrase=again]').click();
                }
            }"""
        )
        page.locator("[data-testid=error]", has_text="太频繁").wait_for()
        heard = len(cues(page)["spoken"])
        for seat, text in SCRIPTED[8:12]:
            others[seat].act(text)
        page_act(page, SCRIPTED[12][1])
        said(page, "吃", heard)
    finally:
        for c in others.values():
            c.close()
    assert page_errors == []


def test_nothing_sounds_before_a_tap_and_a_face_down_wei_is_never_named(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    # Three bots (seed 3: a spectator sees four face-down 偎 in the first hand), watched.
    bots = {"0": "random", "1": "random", "2": "random"}
    room = post(server, "/api/rooms", {"seed": 3, "bots": bots, "bot_delay_ms": 250})["room_id"]
    page = hooked_page(browser, page_errors, DESKTOP)
    page.goto(f"{server}/r/{room}")
    page.get_by_test_id("board").wait_for()
    page.wait_for_function("() => __cues.msgs.filter(m => m.type === 'events').length >= 3")
    silent = cues(page)
    assert silent == {"contexts": 0, "sources": 0, "spoken": [], "langs": []}
    page.get_by_test_id("centre").click()  # the first gesture
    page.wait_for_function("() => __cues.msgs.some(m => m.type === 'hand_end')", timeout=90_000)
    heard = cues(page)
    msgs: list[dict[str, Any]] = page.evaluate("__cues.msgs")
    events = [e for m in msgs if m["type"] == "events" for e in m["events"]]
    hidden = [e for e in events if e["type"] == "wei" and "card" not in e]
    assert hidden, "the hand showed this spectator no face-down 偎"
    assert heard["contexts"] == 1 and heard["sources"] > 0 and heard["spoken"]
    # What may be said: the calls, and the names of cards that lay face up in a discard.
    names: dict[str, str] = page.evaluate(
        """async (cards) => {
          const v = await import('/static/js/voice.js');
          return Object.fromEntries(cards.map(c => [c, v.cardName(c)]));
        }""",
        sorted({e["card"] for e in events if e["type"] == "discard"}),
    )
    allowed = {"吃", "碰", "偎", "胡", *names.values()}
    assert set(heard["spoken"]) <= allowed, set(heard["spoken"]) - allowed
    # The cue of a hidden 偎 (and of the draw that went into it) names no card.
    said_for: list[str] = page.evaluate(
        """async (events) => {
          const { TableCues } = await import('/static/js/cues.js');
          const cues = new TableCues();
          const before = __cues.spoken.length;
          const s = { you: { seat: null }, toAct: false };
          cues.message({ type: 'events', events }, s, false);
          cues.flush();
          return __cues.spoken.slice(before).map(x => x.text);
        }""",
        [{"type": "drew", "seat": 1, "stock_left": 30}, hidden[0]],
    )
    assert said_for == ["偎"]
    assert page_errors == []


def test_chat_panel_and_bubble_on_a_desktop(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    bots = {"1": "random", "2": "random"}
    body = {"seed": 11, "bots": bots, "turn_seconds": None, "bot_delay_ms": 3000}
    room = post(server, "/api/rooms", body)["room_id"]
    page = hooked_page(browser, page_errors, DESKTOP)
    page.goto(f"{server}/r/{room}")
    page.get_by_test_id("sit-0").click()
    page.get_by_test_id("hand").wait_for()
    open_chat(page)
    assert page.get_by_test_id("chat-phrase").count() == 8
    assert page.get_by_test_id("chat-emote").count() == 6
    doc_shot(page, "chat-panel-desktop")
    page.locator("[data-testid=chat-emote][data-emote=laugh]").click()
    page.locator("[data-rel=bottom] [data-testid=chat-bubble] svg[data-emote=laugh]").wait_for()
    page.get_by_test_id("lang-toggle").click()
    open_chat(page)
    page.locator("[data-testid=chat-phrase][data-phrase=lucky]").click()
    bubble = page.locator("[data-rel=bottom] [data-testid=chat-bubble]")
    bubble.filter(has_text="What luck!").wait_for()
    said(page, "What luck!", 0)
    assert cues(page)["langs"][-1] == "en-US"
    still(page, "[data-testid=chat-bubble]")
    doc_shot(page, "chat-bubble-desktop")
    assert page_errors == []
