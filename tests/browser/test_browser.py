"""Browser tests: the real ``wmq serve`` driven through Debian's Chromium with Playwright.

Each test creates a room through the lobby page and plays through the page only: clicks the
first legal claim button or a legal card whenever the seat must decide. Screenshots go to
``out/screenshots/`` (gitignored) so a person can check how the table looks.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="browser tests need Debian's Chromium at /usr/bin/chromium (apt-get install chromium)",
)
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is in the dev extra: pip install -e '.[dev]'"
)
Browser = sync_api.Browser
Page = sync_api.Page

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "out" / "screenshots"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# What the page offers at this moment, read in one go so a redraw cannot split the answer:
# "end" (hand over), "button" (a claim button), "choice" (吃 runs to pick), "card" (a legal
# discard), or "wait" (someone else decides).
STATE_JS = """() => {
  if (document.querySelector('[data-testid=hand-end]')) return 'end';
  if (document.querySelector('[data-testid=chi-option]')) return 'choice';
  if (document.querySelector('[data-testid=actions] .buttons button')) return 'button';
  if (document.querySelector('[data-testid=hand-face][data-legal=true]')) return 'card';
  return 'wait';
}"""
# Resolves (truthy) once the page asks something of us or the hand has ended.
ASKED_JS = f"() => {{ const s = ({STATE_JS})(); return s !== 'wait' && s; }}"


def new_page(browser: Browser, errors: list[str], viewport: dict[str, int]) -> Page:
    """A page in a fresh context (own localStorage), recording uncaught script errors."""
    context = browser.new_context(viewport=viewport, locale="zh-CN")
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(15_000)
    return page


def open_menu(page: Page) -> None:
    """Open the room's drawer (seats, rules, invite link, hands played), if it is closed."""
    if page.get_by_test_id("drawer").count() == 0:
        page.get_by_test_id("menu").click()
    page.get_by_test_id("drawer").wait_for()


def close_menu(page: Page) -> None:
    """Close the room's drawer, if it is open."""
    if page.get_by_test_id("drawer").count():
        page.get_by_test_id("menu-close").click()
    page.get_by_test_id("drawer").wait_for(state="detached")


def dissolve_alone(page: Page) -> None:
    """解散 at a table where only bots are left to agree: the match ends at once, its end (or
    the hand's result before it) shown."""
    page.get_by_test_id("menu").click()
    page.get_by_test_id("dissolve").click()
    page.get_by_test_id("confirm-yes").click()
    page.get_by_test_id("match-end").or_(page.get_by_test_id("result-show")).first.wait_for()
    if page.get_by_test_id("result-show").count():
        page.get_by_test_id("result-show").click()


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


# With this match seed, two `random` bots (seeded by the room) and the first-legal clicks below,
# the first hand ends in a 胡 by our seat (checked by replaying the policy against the engine).
WINNING_SEED = 29


def create_room(
    page: Page,
    base: str,
    *,
    bots: tuple[str, str] = ("random", "random"),
    seed: int | None = None,
    hands: int | None = None,
    turn_seconds: int | None = None,
) -> str:
    """Create a room against two bots through the lobby; returns the room id."""
    page.goto(base + "/")
    page.get_by_test_id("create-form").wait_for()
    page.get_by_test_id("seat-kind-1").select_option(bots[0])
    page.get_by_test_id("seat-kind-2").select_option(bots[1])
    if hands is not None:
        page.locator("[data-testid=field-hands] input").fill(str(hands))
    if turn_seconds is not None:
        page.locator("[data-testid=field-timer] input").fill(str(turn_seconds))
    page.get_by_test_id("more-options").click()
    page.get_by_test_id("bot-speed").select_option("0")
    if seed is not None:
        page.get_by_test_id("seed").fill(str(seed))
    page.get_by_test_id("create-room").click()
    page.wait_for_url("**/r/*")
    page.get_by_test_id("board").wait_for()
    return page.url.rsplit("/", 1)[1]


def host_for_a_friend(host: Page, base: str, turn_seconds: int | None = None) -> str:
    """Create through the lobby a room with seat 1 for a friend and a quick bot at seat 2
    (and a turn timer of ``turn_seconds``, else the form's)."""
    host.goto(base + "/")
    host.get_by_test_id("create-form").wait_for()
    host.get_by_test_id("seat-kind-1").select_option("")  # seat 1 for a friend
    host.get_by_test_id("seat-kind-2").select_option("random")
    if turn_seconds is not None:
        host.locator("[data-testid=field-timer] input").fill(str(turn_seconds))
    host.get_by_test_id("more-options").click()
    host.get_by_test_id("bot-speed").select_option("0")
    host.get_by_test_id("create-room").click()
    host.wait_for_url("**/r/*")
    host.get_by_test_id("waiting").wait_for()
    return host.url.rsplit("/", 1)[1]


def decide(page: Page) -> str:
    """Wait until something is asked of us (or the hand ends) and answer it; returns what."""
    handle = page.wait_for_function(ASKED_JS)
    state = str(handle.json_value())
    try:
        if state == "choice":
            page.get_by_test_id("chi-option").first.click(timeout=3000)
        elif state == "button":
            page.locator("[data-testid=actions] .buttons button").first.click(timeout=3000)
        elif state == "card":
            page.locator("[data-testid=hand-face][data-legal=true]").first.click(timeout=3000)
    except sync_api.TimeoutError:
        return "retry"  # the table moved on while we clicked: look again
    return state


def play_until_end(page: Page, *, max_steps: int = 200, stop_after: int | None = None) -> int:
    """Answer every decision until the hand-end panel shows; returns the decisions made."""
    made = 0
    for _ in range(max_steps):
        state = decide(page)
        if state == "end":
            return made
        if state != "retry":
            made += 1
            if stop_after is not None and made >= stop_after:
                return made
            # No wait needed here: our click disables the controls until the server answers.
    pytest.fail(f"the hand did not end after {max_steps} decisions")


def test_lobby_lists_presets_and_switches_language(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, DESKTOP)
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    preset = page.get_by_test_id("preset")
    assert preset.locator("option").count() >= 5
    assert "开房间" in page.get_by_test_id("create-form").inner_text()
    # The 留子 stakes are only editable with the pool on.
    assert page.locator("input[name=liuzi_dealer]").is_disabled()
    page.get_by_test_id("liuzi").check()
    assert page.locator("input[name=liuzi_dealer]").is_enabled()
    shot(page, "lobby-desktop-zh")
    page.get_by_test_id("lang-toggle").click()
    assert "New room" in page.get_by_test_id("create-form").inner_text()
    shot(page, "lobby-desktop-en")
    assert page_errors == []


def test_play_a_hand_to_the_breakdown(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, DESKTOP)
    room = create_room(page, server, seed=WINNING_SEED)
    open_menu(page)
    assert page.get_by_test_id("share-link").input_value().endswith(f"/r/{room}")
    assert page.get_by_test_id("commitment").count() == 1  # published before the hand
    close_menu(page)
    hand = page.get_by_test_id("hand")
    assert len(hand.get_attribute("data-cards") or "") in (19, 20)
    # Red faces are drawn red, the others black (RULES §1.1).
    colours = page.locator("[data-testid=hand] [data-testid=card]").evaluate_all(
        "cs => cs.map(c => [c.dataset.face, getComputedStyle(c).color])"
    )
    for face, colour in colours:
        assert (colour == "rgb(195, 33, 26)") == (face in "二七十贰柒拾"), (face, colour)
    shot(page, "table-desktop-start")

    made = play_until_end(page)
    assert made > 0
    end = page.get_by_test_id("hand-end")
    end.wait_for()
    shot(page, "hand-end-desktop")
    text = end.inner_text()
    assert page.get_by_test_id("breakdown").count() == 1, f"expected a win with seed 29:\n{text}"
    assert "硬息" in text and "合计" in text
    assert page.get_by_test_id("group").count() >= 6  # 6 groups + the 麻雀 (RULES §4.7)
    total = int(page.get_by_test_id("total").inner_text().split()[-1])
    assert page.get_by_test_id("ledger").count() == 1
    ledger = [int(page.get_by_test_id(f"ledger-{s}").inner_text() or 0) for s in range(3)]
    assert sum(ledger) == 0  # no 留子 in this room: the three seats sum to zero (RULES §8.5)
    assert ledger[0] == 2 * total  # each loser pays the winner the total (RULES §8.3)

    # The finished hand is in the history and its replay steps through to the end.
    open_menu(page)
    page.get_by_test_id("history-toggle").click()
    page.get_by_test_id("history-hand").first.wait_for()
    page.get_by_test_id("replay-button").first.click()
    page.get_by_test_id("replay").wait_for()
    # The browser checks the revealed secret and seed against the commitment it was shown.
    check = page.get_by_test_id("deal-check")
    check.wait_for()
    assert check.get_attribute("data-result") == "verified"
    step = page.get_by_test_id("replay-step")
    first = step.inner_text()
    page.get_by_test_id("replay-next").click()
    page.get_by_test_id("replay-next").click()
    assert step.inner_text() != first
    # The replay shows every seat's hand face up.
    assert page.locator("[data-testid=replay] .open-hand [data-testid=card]").count() > 0
    shot(page, "replay-desktop")
    page.get_by_test_id("replay-close").click()

    # The next hand is dealt when we are ready (the bots always are). The result lies over the
    # table, its 下一局 in reach at the top.
    page.get_by_test_id("next-hand").click()
    page.wait_for_function("() => !document.querySelector('[data-testid=hand-end]')")
    assert page.get_by_test_id("hand").count() == 1
    assert page_errors == []


def test_reload_mid_hand_keeps_the_seat_on_a_phone(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, PHONE)
    # A long turn timer: 托管 does not answer the decision held across the reload, however
    # long a loaded machine takes to reload the page (the default is 20 s).
    room = create_room(page, server, hands=1, turn_seconds=600)
    play_until_end(page, stop_after=3)
    # Wait for our next decision, so nothing about our hand changes across the reload.
    handle = page.wait_for_function(ASKED_JS)
    if handle.json_value() == "end":
        pytest.skip("the hand ended within three decisions; nothing left to reload into")
    before = page.get_by_test_id("hand").get_attribute("data-cards")
    token = page.evaluate(f"localStorage.getItem('wmq.token.{room}')")
    assert token
    shot(page, "table-phone")
    # Nothing may stick out sideways on a phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    page.reload()
    page.get_by_test_id("hand").wait_for()
    assert page.get_by_test_id("hand").get_attribute("data-cards") == before
    open_menu(page)
    assert page.locator("[data-testid=seat-chip-0].me").count() == 1
    close_menu(page)
    shot(page, "table-phone-after-reload")

    play_until_end(page)
    page.get_by_test_id("hand-end").wait_for()
    # A one-hand match: the hand's end is the match's end, with the final ranking, said once.
    page.get_by_test_id("match-end").wait_for()
    assert page.get_by_test_id("next-hand").count() == 0
    assert page.get_by_text("比赛结束").count() == 1
    assert page.get_by_test_id("rematch-button").count() == 1
    shot(page, "hand-end-phone")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page_errors == []


def test_friend_joins_by_share_link_and_spectator_sees_no_hand(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    host = new_page(browser, page_errors, DESKTOP)
    host_for_a_friend(host, server)
    link = host.get_by_test_id("share-link").input_value()

    friend = new_page(browser, page_errors, PHONE)
    friend.goto(link)
    friend.get_by_test_id("name-input").fill("小李")
    friend.get_by_test_id("name-input").press("ArrowLeft")  # the caret between 小 and 李
    # Someone opens the link while the friend is typing: the redraw that follows keeps the name.
    watcher = new_page(browser, page_errors, PHONE)
    watcher.goto(link)
    watcher.get_by_test_id("sit-1").wait_for()
    # The friend's page has redrawn (two spectators now).
    sync_api.expect(friend.locator(".spectators")).to_have_text("旁观 2")
    assert friend.get_by_test_id("name-input").input_value() == "小李"
    # ...and the focus and the caret where they were.
    assert friend.evaluate(
        "() => [document.activeElement.dataset.testid, document.activeElement.selectionStart]"
    ) == ["name-input", 1]
    friend.get_by_test_id("sit-1").click()

    # Three seats filled: the hand is dealt at once, both players see their own hand.
    host.get_by_test_id("hand").wait_for()
    friend.get_by_test_id("hand").wait_for()
    open_menu(host)
    assert "小李" in host.get_by_test_id("seat-list").inner_text()
    # The spectator sees the table but no concealed hand, and has no seat left to take.
    watcher.get_by_test_id("board").wait_for()
    assert watcher.get_by_test_id("hand").count() == 0
    assert watcher.get_by_test_id("sit-1").count() == 0
    shot(watcher, "spectator-phone")
    assert page_errors == []


def test_shouxing_sees_the_three_hands(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    host = new_page(browser, page_errors, DESKTOP)
    host.goto(server + "/")
    host.get_by_test_id("create-form").wait_for()
    host.locator("[data-testid=field-shouxing] input").check()
    host.get_by_test_id("seat-kind-1").select_option("random")
    host.get_by_test_id("seat-kind-2").select_option("random")
    # A long turn timer: the table waits for the host's first discard however long the 守醒's
    # page takes to come up, so both pages show the same hand (with the default 20 s, 托管
    # could discard for the host first, and the table play on, on a loaded machine).
    host.locator("[data-testid=field-timer] input").fill("600")
    host.get_by_test_id("create-room").click()
    host.get_by_test_id("hand").wait_for()
    # The 守醒 sits only by the creator's invitation link (docs/web.md).
    open_menu(host)
    link = host.get_by_test_id("shouxing-link").input_value()
    close_menu(host)
    assert "#invite=" in link

    # RULES §2.1: the 守醒 plays no cards but sees the three hands (never the stock).
    watcher = new_page(browser, page_errors, PHONE)
    watcher.goto(link)
    watcher.get_by_test_id("sit-shouxing").click()
    watcher.locator(".open-hand").first.wait_for()
    assert watcher.locator(".open-hand").count() == 2
    bottom = watcher.get_by_test_id("hand").get_attribute("data-cards")
    assert bottom == host.get_by_test_id("hand").get_attribute("data-cards")
    assert watcher.locator("[data-testid=hand-face][data-legal=true]").count() == 0
    assert watcher.get_by_test_id("actions").count() == 0
    shot(watcher, "shouxing-phone")
    # He settles with the table (RULES §8.4), so he has a say in 解散 (docs/protocol.md §2.4):
    # his proposal reaches the host, named as the 守醒, and the host may refuse it.
    open_menu(watcher)
    watcher.get_by_test_id("dissolve").click()
    watcher.get_by_test_id("confirm-yes").click()
    row = host.get_by_test_id("vote-shouxing")
    row.wait_for()
    assert row.get_attribute("data-answer") == "true" and row.inner_text().startswith("守醒")
    assert host.get_by_test_id("vote-0").get_attribute("data-answer") == "null"
    shot(host, "shouxing-vote-desktop")
    host.get_by_test_id("vote-refuse").click()
    watcher.locator("[data-testid=error]", has_text="拒绝").wait_for()
    host.get_by_test_id("vote").wait_for(state="detached")
    assert page_errors == []


def test_turn_timer_counts_down_and_autoplays_in_english(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, PHONE)
    page.goto(server + "/")
    page.get_by_test_id("lang-toggle").click()
    page.get_by_test_id("seat-kind-1").select_option("random")
    page.get_by_test_id("seat-kind-2").select_option("random")
    # A short timer, yet one the page's first sight of the hand beats on a loaded machine.
    page.locator("[data-testid=field-timer] input").fill("5")
    page.get_by_test_id("create-room").click()
    page.wait_for_url("**/r/*")
    # We deal, so the first decision is ours: the countdown shows, then 托管 plays for us. Both
    # read as the hand first shows, in one go: 5 s on, 托管 has played and they have changed.
    first = page.wait_for_function(
        """() => {
          const [hand, timer, status] = ['hand', 'timer', 'status'].map(
            (t) => document.querySelector(`[data-testid=${t}]`));
          return hand && timer && status && [timer.innerText, status.innerText];
        }"""
    ).json_value()
    assert "left" in first[0]
    assert "Your discard" in first[1]
    shot(page, "table-phone-english-timer")
    page.locator("[data-testid=seat-0] .badge.auto").wait_for(timeout=15_000)
    assert page_errors == []


def test_rule_options_reach_the_room(server: str, browser: Browser, page_errors: list[str]) -> None:
    # RULES §7.3: a room changes some options of its preset and turns an optional 名堂 on.
    page = new_page(browser, page_errors, DESKTOP)
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    page.get_by_test_id("preset").select_option("xiaozhuo")
    page.get_by_test_id("rule-options").click()
    assert page.get_by_test_id("min_xi").input_value() == "10"  # the preset's value
    page.get_by_test_id("min_xi").fill("15")
    page.get_by_test_id("dealer_rotation").select_option("winner_deals")
    page.get_by_test_id("enable-zimo").check()
    page.get_by_test_id("seat-kind-1").select_option("random")
    page.get_by_test_id("seat-kind-2").select_option("random")
    shot(page, "lobby-options")
    page.get_by_test_id("create-room").click()
    page.wait_for_url("**/r/*")
    room = page.url.rsplit("/", 1)[1]
    with urllib.request.urlopen(f"{server}/api/rooms/{room}") as res:
        rules = json.load(res)["room"]["rules"]
    # Only what differs from the preset is sent, so the overrides are exactly the three changes.
    assert rules["id"] == "xiaozhuo"
    assert rules["overrides"] == {
        "min_xi": 15,
        "dealer_rotation": "winner_deals",
        "enable_patterns": ["zimo"],
    }
    open_menu(page)
    header = page.get_by_test_id("room-rules")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=room-rules]')?.textContent.includes('自摸')"
    )
    assert "15" in header.inner_text() and "谁胡谁坐庄" in header.inner_text()

    # On a phone the open section fits the width; another preset resets the options.
    phone = new_page(browser, page_errors, PHONE)
    phone.goto(server + "/")
    phone.get_by_test_id("create-form").wait_for()
    phone.get_by_test_id("preset").select_option("xiaozhuo")
    phone.get_by_test_id("rule-options").click()
    phone.get_by_test_id("enable-zimo").check()
    phone.get_by_test_id("liuzi").check()
    shot(phone, "lobby-options-phone")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.get_by_test_id("preset").select_option("anxiang")
    assert phone.get_by_test_id("enable-patterns").count() == 0  # anxiang has no optional 名堂
    assert not phone.get_by_test_id("liuzi").is_checked()
    assert page_errors == []
