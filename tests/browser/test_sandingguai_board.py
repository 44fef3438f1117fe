"""三丁拐's board and tiles in Debian's Chromium (docs/web.md "Boards").

The board is driven by the real engine: a seeded hand of ``weimaque.games`` 三丁拐 runs here,
its seat-0 view (``hand.view(0).to_json()``) and legal actions are drawn by the page's board
module (``js/boards/sandingguai.js``, through the board interface of ``js/boards/index.js``)
and every decision of seat 0 is made by clicking the board: the tile to 出, or the 碰 / 补杠 /
胡 / 过 button. The action the click sends is applied to the hand; the other seats are the
game's ``greedy`` bot, and seat 0 clicks what that bot would choose, so the hand is won. The
tiles sheet draws every tile of ``js/tiles.js`` and checks each is there and distinct.

Screenshots go to out/screenshots/; ``WMQ_DOC_SHOTS=1`` refreshes docs/img/.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from weimaque.games import get_game

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium")
sync_api = pytest.importorskip("playwright.sync_api")
Page = sync_api.Page

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "out" / "screenshots"
DOCS = ROOT / "docs" / "img"
DESKTOP = {"width": 1280, "height": 800}
PHONE_LANDSCAPE = {"width": 844, "height": 390}
NAMES = ["小王", "普通 2", "普通 3"]
# With this seed the greedy policy at every seat gives seat 0 a 碰, a 补杠 and a 过 to decide
# and ends in seat 0's 胡 (checked by `test_the_hand_offers_what_the_board_is_tested_on`).
SEED = 19

# Draws the board of a view with the room shell's board interface, as room.js calls it.
LAB_JS = """async ({view, legal, history, names, end, me = 0, game = 'sandingguai'}) => {
  const { h, mount } = await import('/static/js/dom.js');
  const { boardFor } = await import('/static/js/boards/index.js');
  const { header } = await import('/static/js/page.js');
  if (!window.__lab) {
    document.body.innerHTML = '<div id="lab"></div>';
    const lab = { acted: [] };
    const app = document.getElementById('lab');
    lab.shell = { roomId: 'lab', app, draw: () => lab.draw(), act: (text) => lab.acted.push(text),
                  label: (seat) => lab.names[seat] };
    lab.board = boardFor(game).create(lab.shell);
    lab.draw = () => {
      const s = lab.s;
      const me = lab.me;
      const env = { mySeat: me, bottom: me ?? 0, seats: lab.names.length, mayAct: s.toAct,
        canAct: s.toAct, online: true, act: lab.shell.act, label: lab.shell.label,
        badges: () => [], score: (seat) => s.obs.seats?.[seat].score ?? 0, clock: () => null,
        bubble: () => null, timer: null, notice: null, banner: null, autoplayOn: null };
      const title = '第 1 局';
      mount(app,
        header([h('span', { class: 'room-id' },
          h('button', { class: 'menu-button' }, '☰ 房间 482 913'))]),
        h('main', { class: 'room' }, lab.board.render(s, env)),
        lab.end ? h('div', { class: 'result-host', 'data-testid': 'result-host' },
          h('div', { class: 'result-sheet' }, h('div', { class: 'result-body' },
            lab.board.handEnd(lab.end, { label: lab.shell.label, s, title })))) : null);
    };
    window.__lab = lab;
  }
  const lab = window.__lab;
  lab.names = names;
  lab.me = me;
  lab.end = end;
  lab.s = { obs: view, legal, toAct: legal.length > 0, history, handNumber: 1, room: null };
  lab.acted = [];
  lab.draw();
}"""

TILES_JS = """async () => {
  const { h, mount } = await import('/static/js/dom.js');
  const { ALL_TILES, tile } = await import('/static/js/tiles.js');
  document.body.innerHTML = '<div id="sheet"></div>';
  const row = (names, size) => h('div', { class: 'tiles-row', style: 'margin: 8px' },
    names.map((n, i) => tile(n, { size, key: i })));
  mount(document.getElementById('sheet'),
    h('main', { style: 'display: inline-block; padding: 4px' },
      ['m', 's', 'p'].map((s) => row(ALL_TILES.filter((n) => n[1] === s), 'l')),
      row([null, '1s', '8p', '5m'], 'l'), row(ALL_TILES, 's')));
  return [...document.querySelectorAll('.tiles-row:nth-child(-n+3) .tile')]
    .map((el) => [el.dataset.tile, el.querySelector('svg').innerHTML]);
}"""


def new_page(browser: Any, errors: list[str], viewport: dict[str, int]) -> Page:
    context = browser.new_context(viewport=viewport, locale="zh-CN")
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(15_000)
    return page


# The pictures docs/web.md shows (the others stay in out/screenshots/ for a person to check).
DOC_PICTURES = {
    "sandingguai-tiles",
    "sandingguai-room-claim-phone-landscape",
    "sandingguai-room-end-desktop",
    "sandingguai-bugang-desktop",
    "sandingguai-room-end-phone-landscape",
}


def doc_shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    if os.environ.get("WMQ_DOC_SHOTS") == "1" and name in DOC_PICTURES:
        # The felt drawn flat keeps the PNGs small (as test_table.py's pictures).
        DOCS.mkdir(parents=True, exist_ok=True)
        style = page.add_style_tag(content="body { background: #24573f !important; }")
        target = page.locator("#sheet main") if name == "sandingguai-tiles" else page
        target.screenshot(path=str(DOCS / f"{name}.png"))
        style.evaluate("node => node.remove()")


def fits(page: Page) -> bool:
    """The page shows everything without scrolling."""
    return bool(
        page.evaluate(
            "() => document.documentElement.scrollHeight <= innerHeight + 1"
            " && document.documentElement.scrollWidth <= innerWidth + 1"
        )
    )


def play(page: Page, *, shots: str, seed: int = SEED) -> dict[str, Any]:
    """Play the seeded hand with seat 0 clicked on the board; returns what was seen."""
    game = get_game("sandingguai")
    hand = game.new_hand("sandingguai", {}, seed, 0)
    bots = [game.bot("greedy", "sandingguai", {}) for _ in range(3)]
    rng = random.Random(seed)
    clicked: list[str] = []
    shot_kinds: set[str] = set()
    history: list[dict[str, Any]] = []
    seen_fit = True
    while not hand.is_terminal():
        seat = hand.to_act()[0]
        choice = bots[seat].act(hand.bot_view(seat), rng)
        if seat == 0:
            text = str(game.action(choice))
            legal = [{"text": str(game.action(a)), "id": a} for a in hand.legal_actions(0)]
            page.evaluate(
                LAB_JS,
                {
                    "view": hand.view(0).to_json(),
                    "legal": legal,
                    "history": history,
                    "names": NAMES,
                    "end": None,
                },
            )
            kind = click(page, text)
            sent = page.evaluate("() => window.__lab.acted")
            assert sent == [text], (sent, text)
            clicked.append(text)
            seen_fit = seen_fit and fits(page)
            if kind not in shot_kinds and kind in ("peng", "bugang", "discard"):
                shot_kinds.add(kind)
                # The decision as it was offered, drawn again before the click for the picture.
                page.evaluate(
                    LAB_JS,
                    {
                        "view": hand.view(0).to_json(),
                        "legal": legal,
                        "history": history,
                        "names": NAMES,
                        "end": None,
                    },
                )
                doc_shot(page, f"sandingguai-{kind}-{shots}")
        for event in hand.apply(seat, choice):
            shown = event.view(0)
            if shown is not None:
                history.append(shown)
    end_view = hand.view(0).to_json()
    page.evaluate(
        LAB_JS,
        {"view": end_view, "legal": [], "history": history, "names": NAMES, "end": {}},
    )
    return {"clicked": clicked, "end": end_view, "fit": seen_fit, "history": history}


def click(page: Page, text: str) -> str:
    """Click what sends ``text`` on the board; returns the kind of decision."""
    for word, kind in (("出", "discard"), ("报听", "ting")):
        if text.startswith(word):
            name = text[len(word) :]
            if kind == "ting":
                page.get_by_test_id("action-ting").click()
            tile = page.locator(f"[data-testid=hand-tile][data-tile='{name}'][data-legal=true]")
            tile.last.click()
            return kind
    kinds = {"碰": "peng", "胡": "hu", "过": "pass", "明杠": "gang"}
    for word, kind in (("暗杠", "angang"), ("补杠", "bugang")):
        if text.startswith(word):
            page.locator(f"[data-testid=action-{kind}][data-action='{text}']").click()
            return kind
    page.get_by_test_id(f"action-{kinds[text]}").click()
    return kinds[text]


def test_the_hand_offers_what_the_board_is_tested_on() -> None:
    """The seed keeps its promise: seat 0 decides a 碰, a 补杠 and a 过, and wins."""
    game = get_game("sandingguai")
    hand = game.new_hand("sandingguai", {}, SEED, 0)
    bots = [game.bot("greedy", "sandingguai", {}) for _ in range(3)]
    rng = random.Random(SEED)
    offered: set[str] = set()
    while not hand.is_terminal():
        seat = hand.to_act()[0]
        if seat == 0:
            offered |= {str(game.action(a))[:2] for a in hand.legal_actions(0)}
        hand.apply(seat, bots[seat].act(hand.bot_view(seat), rng))
    assert {"碰", "补杠", "过", "胡"} <= {o if o[0] not in "出碰胡过" else o[0] for o in offered}
    outcome = hand.outcome()
    assert outcome is not None and outcome.winners == (0,)


@pytest.mark.parametrize(
    ("viewport", "name"), [(DESKTOP, "desktop"), (PHONE_LANDSCAPE, "phone-landscape")]
)
def test_a_hand_played_by_clicking_the_board(
    server: str, browser: Any, page_errors: list[str], viewport: dict[str, int], name: str
) -> None:
    page = new_page(browser, page_errors, viewport)
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    seen = play(page, shots=name)
    kinds = {c[:2] if c[:2] in ("补杠", "暗杠", "明杠", "报听") else c[0] for c in seen["clicked"]}
    assert {"出", "碰", "补杠", "过", "胡"} <= kinds, kinds
    assert seen["fit"], "the board scrolled at a decision"
    # The end: every hand face up, the 翻牌 tile and the chickens, the winner's hand and the
    # payments of the view's end part.
    end = seen["end"]["end"]
    board = page.get_by_test_id("board")
    assert board.get_attribute("data-phase") == "over"
    result = page.get_by_test_id("result")
    result.wait_for()
    assert result.get_by_test_id("win").count() == 1
    assert result.get_by_test_id("win-hand").locator("[data-testid=tile]").count() >= 14
    rows = result.get_by_test_id("transfers").locator("tbody tr")
    assert rows.count() == len(end["transfers"])
    if end["flip"]:
        flip = page.get_by_test_id("result-flip").locator("[data-testid=tile]")
        assert flip.get_attribute("data-tile") == end["flip"]
        chickens = page.get_by_test_id("result-chickens").locator("[data-testid=tile]")
        names = {chickens.nth(i).get_attribute("data-tile") for i in range(chickens.count())}
        rank = int(end["flip"][0]) % 9 + 1
        assert {"1s", f"{rank}{end['flip'][1]}"} <= names
    net = page.get_by_test_id("net").inner_text()
    assert NAMES[0] in net and f"+{end['net'][0]}" in net
    doc_shot(page, f"sandingguai-end-{name}")
    assert page_errors == []


def test_the_board_speaks_english(server: str, browser: Any, page_errors: list[str]) -> None:
    """The board's words follow the language switch (strings.js, both languages)."""
    page = new_page(browser, page_errors, DESKTOP)
    page.goto(server + "/")
    page.get_by_test_id("lang-toggle").click()
    game = get_game("sandingguai")
    hand = game.new_hand("sandingguai", {}, SEED, 0)
    legal = [{"text": str(game.action(a)), "id": a} for a in hand.legal_actions(0)]
    page.evaluate(
        LAB_JS,
        {
            "view": hand.view(0).to_json(),
            "legal": legal,
            "history": [],
            "names": NAMES,
            "end": None,
        },
    )
    assert "Wall 68" in page.get_by_test_id("wall").inner_text()
    assert "Dealer" in page.get_by_test_id("dealer-line").inner_text()
    assert page.get_by_test_id("status").inner_text() == "Your discard"
    assert page.get_by_test_id("discard-hint").inner_text() == "Tap a card to discard it"
    assert page_errors == []


def test_every_tile_is_drawn_and_distinct(
    server: str, browser: Any, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, DESKTOP)
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    drawn = page.evaluate(TILES_JS)
    names = [n for n, _ in drawn]
    assert names == [f"{r}{s}" for s in "msp" for r in range(1, 10)]
    svgs = [svg for _, svg in drawn]
    assert all(svgs) and len(set(svgs)) == 27
    # Each tile is drawn, not left empty: its SVG has more than the tile's face.
    assert all(svg.count("<") > 4 for svg in svgs)
    back = page.locator("[data-tile=back]")
    assert back.count() == 1 and back.locator("svg rect").count() == 2
    doc_shot(page, "sandingguai-tiles")
    assert page_errors == []


def test_dingque_then_a_spectators_table(server: str, browser: Any, page_errors: list[str]) -> None:
    """定缺 (docs/sandingguai.md §2.4) offers its three suits as buttons; a spectator's view
    (``"public"``) shows no tile of anyone's hand, only how many, and every seat's 缺."""
    page = new_page(browser, page_errors, PHONE_LANDSCAPE)
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    game = get_game("sandingguai")
    hand = game.new_hand("sandingguai", {"dingque": True}, 3, 0)
    legal = [{"text": str(game.action(a)), "id": a} for a in hand.legal_actions(0)]
    page.evaluate(
        LAB_JS,
        {
            "view": hand.view(0).to_json(),
            "legal": legal,
            "history": [],
            "names": NAMES,
            "end": None,
        },
    )
    suits = page.get_by_test_id("action-que")
    assert suits.count() == 3
    assert [suits.nth(i).get_attribute("data-suit") for i in range(3)] == ["m", "s", "p"]
    assert "定缺" in page.get_by_test_id("status").inner_text()
    page.locator("[data-testid=action-que][data-suit=s]").click()
    assert page.evaluate("() => window.__lab.acted") == ["定缺条"]
    hand.apply(0, game.parse_action("定缺条").id)
    for seat in (1, 2):
        hand.apply(seat, game.parse_action("定缺万").id)
    page.evaluate(
        LAB_JS,
        {
            "view": hand.view("public").to_json(),
            "legal": [],
            "history": [],
            "names": NAMES,
            "end": None,
            "me": None,
        },
    )
    assert page.get_by_test_id("hand-tile").count() == 0
    assert page.locator("[data-testid=hand] [data-testid=tile]").count() == 0
    ques = page.get_by_test_id("que")
    assert sorted(ques.nth(i).get_attribute("data-que") or "" for i in range(3)) == [
        "m",
        "m",
        "s",
    ]
    counts = page.get_by_test_id("hand-count")
    assert sorted(counts.nth(i).get_attribute("data-n") or "" for i in range(2)) == ["13", "13"]
    assert page.get_by_test_id("actions").count() == 0
    assert fits(page)
    assert page_errors == []


CALLS_JS = """async (events) => {
  const { TableCues } = await import('/static/js/cues.js');
  const { boardFor } = await import('/static/js/boards/index.js');
  const shell = { roomId: 'calls', app: document.createElement('div'), draw: () => {},
                  act: () => {}, label: (seat) => `seat ${seat}` };
  const board = boardFor('sandingguai').create(shell);
  const cues = new TableCues(() => board);
  const out = [];
  for (const e of events) {
    const before = __cues.spoken.length;
    cues.message({ type: 'events', events: [e] }, { you: { seat: null }, toAct: false }, false);
    cues.flush();
    out.push(__cues.spoken.slice(before).map((x) => x.text).join('|'));
  }
  return out;
}"""


def test_the_board_calls_claims_in_the_pages_language(
    server: str, browser: Any, page_errors: list[str]
) -> None:
    """碰, 杠, 胡/自摸, 报听 and the tile discarded are said through voice.js (cues.js asks the
    board), in Chinese and in English; the events are the seeded hand's own views."""
    from tests.browser.test_sound import hooked_page

    game = get_game("sandingguai")
    hand = game.new_hand("sandingguai", {}, SEED, 0)
    bots = [game.bot("greedy", "sandingguai", {}) for _ in range(3)]
    rng = random.Random(SEED)
    seen: dict[str, dict[str, Any]] = {}
    while not hand.is_terminal():
        seat = hand.to_act()[0]
        for event in hand.apply(seat, bots[seat].act(hand.bot_view(seat), rng)):
            shown = event.view("public")
            if shown is not None:
                seen.setdefault(shown["type"], shown)
    assert {"discard", "claim", "bugang", "win"} <= set(seen)
    first = {**seen["discard"]}
    ting = {**first, "baoting": True}
    events = [first, seen["claim"], seen["bugang"], seen["win"], ting]
    page = hooked_page(browser, page_errors, DESKTOP)
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    page.locator("main").click(position={"x": 2, "y": 2})  # the gesture speech waits for
    zh = page.evaluate(CALLS_JS, events)
    names = {"m": "万", "s": "条", "p": "筒"}
    tile = first["tile"]
    rank = "一二三四五六七八九"[int(tile[0]) - 1]
    assert zh[0] == ("幺鸡" if tile == "1s" else rank + names[tile[1]])
    assert zh[1] == ("杠" if seen["claim"]["meld"] == "gang" else "碰")
    assert zh[2] == "杠"
    assert zh[3] == ("自摸" if seen["win"]["way"] in ("zimo", "gangshanghua") else "胡")
    assert zh[4] == "报听"
    page.get_by_test_id("lang-toggle").click()
    en = page.evaluate(CALLS_JS, events)
    suits = {"m": "characters", "s": "bamboo", "p": "dots"}
    assert en[0] == f"{tile[0]} {suits[tile[1]]}"
    assert en[2] == "gang" and en[4] == "bao ting"
    assert page_errors == []


def test_a_game_without_a_board_of_its_own_is_played_on_the_plain_board(
    server: str, browser: Any, page_errors: list[str]
) -> None:
    """A game the page has no board for (the toy game of tests/toygame.py, two seats) is drawn
    by the plain board: its seats, its view as text, its legal actions as buttons that send
    them; a whole hand is played by clicking them."""
    from tests.toygame import GAME as TOY

    page = new_page(browser, page_errors, PHONE_LANDSCAPE)
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    hand = TOY.new_hand("grab", {}, 3, 0)
    clicks = 0
    while not hand.is_terminal():
        for seat in hand.to_act():
            legal = hand.legal_actions(seat)
            if seat == 0:
                page.evaluate(
                    LAB_JS,
                    {
                        "view": hand.view(0).to_json(),
                        "legal": [{"text": str(TOY.action(a)), "id": a} for a in legal],
                        "history": [],
                        "names": NAMES[:2],
                        "end": None,
                        "game": "toy",
                    },
                )
                assert page.locator("section[data-testid^=seat-]").count() == 2
                buttons = page.get_by_test_id("action")
                assert buttons.count() == len(legal)
                buttons.first.click()
                sent = page.evaluate("() => window.__lab.acted")
                assert sent == [str(TOY.action(legal[0]))]
                hand.apply(0, TOY.parse_action(sent[0]).id)
                clicks += 1
            else:
                hand.apply(seat, legal[-1])
    assert clicks >= 3
    assert page_errors == []
