"""Players, 亲友圈, 战绩 and 回放码 in the browser (docs/protocol.md §7, docs/web.md).

Two friends sign up in the lobby, in two browser contexts. 阿明 creates a 亲友圈 and an
invitation; 小芳 opens it and joins. 阿明 opens a club table (开桌: a one-hand match, a bot at
the third seat, bots at speed 0), both sit and the hand is played to its end through the pages.
Both then find the match in their 战绩 and on the club's leaderboard; 小芳 opens the hand's
回放码 page; 阿明 moves to two more devices with transfer codes (typed in the lobby, and opened as
/me?code=…) and signs them out again. Set ``WMQ_DOC_SHOTS=1`` to refresh docs/web.md's pictures.
"""

from __future__ import annotations

import re
import time
from typing import Any

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    Page,
    new_page,
    pytestmark,
    shot,
)
from tests.browser.test_table import ACT_JS, LANDSCAPE, doc_shot

# The letters and digits of codes (§7.1): no 0/O, 1/I/L.
CODE = "[A-HJKMNP-Z2-9]"


def both_shots(page: Page, name: str) -> None:
    """The page as a phone held sideways shows it, and as a computer does."""
    size = page.viewport_size
    for viewport, suffix in ((LANDSCAPE, "phone-landscape"), (DESKTOP, "desktop")):
        page.set_viewport_size(viewport)
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
        doc_shot(page, f"{name}-{suffix}")
    if size:
        page.set_viewport_size(size)


def sign_up(page: Page, base: str, name: str) -> None:
    """Create a player through the lobby's player bar."""
    page.goto(base + "/")
    page.get_by_test_id("player-name-input").fill(name)
    page.get_by_test_id("player-create").click()
    page.get_by_test_id("player-name").wait_for()
    assert page.get_by_test_id("player-name").inner_text() == name


def play_the_hand(pages: tuple[Page, ...], limit: float = 120) -> None:
    """The pages answer every decision until each shows the hand's result (a bound for a
    loaded machine, where a hand played by clicks may take a minute)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        states = [p.evaluate(ACT_JS) for p in pages]
        if all(s == "end" for s in states):
            return
        time.sleep(0.03)
    raise AssertionError(f"the hand did not end within {limit} s")


def test_friends_sign_up_play_at_their_club_and_find_the_match(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    a = new_page(browser, page_errors, DESKTOP)
    b = new_page(browser, page_errors, LANDSCAPE)

    # Signed out, the lobby's bar offers a name and 创建玩家, or another device's code.
    b.goto(server + "/")
    b.get_by_test_id("player-name-input").wait_for()
    assert b.get_by_test_id("player-bar").get_attribute("data-signed-in") == "false"
    doc_shot(b, "players-lobby-signed-out-phone-landscape")
    sign_up(a, server, "阿明")
    sign_up(b, server, "小芳")
    assert b.get_by_test_id("nav-me").count() == 1  # 战绩 in the header once signed in

    # 阿明 creates a 亲友圈 and an invitation.
    a.get_by_test_id("club-new").click()
    a.get_by_test_id("club-name-input").fill("周末牌友")
    a.get_by_test_id("club-create").click()
    a.wait_for_url("**/clubs/*")
    club = a.url.rsplit("/", 1)[1]
    assert a.get_by_test_id("club-name").inner_text() == "周末牌友"
    assert a.get_by_test_id("club-role").get_attribute("data-role") == "owner"
    a.get_by_test_id("invite-create").click()
    code = a.get_by_test_id("invite-code").get_attribute("data-code") or ""
    link = a.get_by_test_id("invite-link").input_value()
    assert link.endswith(f"/c/{code}"), link

    # 小芳 opens it and joins (no approval asked): she lands on the club's page.
    b.goto(link)
    b.get_by_test_id("club-join").click()
    b.wait_for_url(f"**/clubs/{club}")
    b.get_by_test_id("club-name").wait_for()
    assert b.get_by_test_id("club-role").get_attribute("data-role") == "member"
    assert b.get_by_test_id("table-open").count() == 0  # 开桌 is the admins'
    a.reload()
    a.get_by_test_id("member-list").wait_for()
    assert a.locator("[data-testid=member-entry]").count() == 2

    # 开桌: a one-hand match with a bot at the third seat; 阿明 sits at once.
    a.get_by_test_id("table-open").click()
    a.get_by_test_id("table-seat-2").select_option("random")
    a.get_by_test_id("table-speed").select_option("0")
    a.get_by_test_id("table-hands").fill("1")
    a.get_by_test_id("table-create").click()
    a.wait_for_url("**/r/*")
    room = a.url.rsplit("/", 1)[1]
    a.get_by_test_id("waiting").wait_for()

    # 小芳 sees the open table on the club's page and joins it with one tap.
    b.reload()
    entry = b.locator(f"[data-testid=table-entry][data-room='{room}']")
    entry.get_by_test_id("table-join").click()
    b.wait_for_url(f"**/r/{room}")
    for page in (a, b):
        page.get_by_test_id("hand").wait_for()
        # Both seats are held from this machine's address (§7.2).
        page.get_by_test_id("same-network").wait_for()
    # The warning sits in the middle of the table, which still fits a phone held sideways.
    doc_shot(b, "players-same-network-phone-landscape")
    assert b.evaluate("document.documentElement.scrollHeight") <= LANDSCAPE["height"]
    play_the_hand((a, b))

    # Both find the match in their 战绩, with its totals.
    totals = {}
    for page, name in ((a, "阿明"), (b, "小芳")):
        page.goto(server + "/me")
        match = page.locator(f"[data-testid=match-entry][data-room='{room}']")
        match.wait_for()
        assert page.get_by_test_id("me-name").inner_text() == name
        text = match.inner_text()
        assert "阿明" in text and "小芳" in text and "周末牌友" in text
        totals[name] = int(match.get_attribute("data-total") or "x")
        page.wait_for_function(
            "() => document.querySelector('[data-testid=stat-hands]')?.dataset.value === '1'"
        )
        assert page.get_by_test_id("stat-matches").get_attribute("data-value") == "1"

    # ...and on the club's leaderboard, with the same points.
    a.goto(f"{server}/clubs/{club}")
    a.get_by_test_id("board-row").first.wait_for()
    rows = {
        r.locator(".who").inner_text(): int(r.get_attribute("data-points") or "x")
        for r in a.get_by_test_id("board-row").all()
    }
    assert rows == totals, (rows, totals)
    both_shots(a, "players-club")

    # 小芳 opens the hand's 回放码 from her 战绩 and steps to its end.
    b.locator(f"[data-testid=match-entry][data-room='{room}']").get_by_test_id(
        "match-hands-toggle"
    ).click()
    replay = b.get_by_test_id("hand-code").first
    replay_code = replay.get_attribute("data-code") or ""
    assert re.fullmatch(f"{CODE}{{8}}", replay_code), replay_code
    replay.click()
    b.wait_for_url(f"**/p/{replay_code}")
    b.get_by_test_id("replay").wait_for()
    b.get_by_test_id("replay-last").click()
    b.wait_for_function(
        "() => document.querySelector('[data-testid=replay-last]')?.disabled === true"
    )
    assert "小芳" in b.get_by_test_id("replay-scores").inner_text()
    both_shots(b, "players-replay")

    # 阿明 moves to another device: 换设备 shows the code and its QR code.
    a.goto(server + "/me")
    a.get_by_test_id("transfer-start").click()
    shown = a.get_by_test_id("transfer-code").inner_text()
    assert re.fullmatch(f"{CODE}{{4}}-{CODE}{{4}}", shown), shown
    qr = a.get_by_test_id("transfer-qr").get_attribute("src") or ""
    assert qr.startswith("data:image/svg+xml")
    both_shots(a, "players-me")
    # The third device types it in the lobby (case and dashes do not matter)...
    c = new_page(browser, page_errors, LANDSCAPE)
    c.goto(server + "/")
    c.get_by_test_id("player-code-toggle").click()
    c.get_by_test_id("player-code-input").fill(shown.lower())
    c.get_by_test_id("player-code-submit").click()
    c.get_by_test_id("player-name").wait_for()
    assert c.get_by_test_id("player-name").inner_text() == "阿明"
    assert c.locator(f"[data-testid=club-entry][data-club='{club}']").count() == 1
    both_shots(c, "players-lobby")
    # ...a fourth opens the QR code's page, /me?code=CODE, which signs it in at once.
    a.get_by_test_id("transfer-start").click()  # another code: the first is spent
    a.wait_for_function(
        "(old) => document.querySelector('[data-testid=transfer-code]')?.textContent !== old",
        arg=shown,
    )
    second = a.get_by_test_id("transfer-code").inner_text()
    d = new_page(browser, page_errors, DESKTOP)
    d.goto(f"{server}/me?code={second.replace('-', '')}")
    d.get_by_test_id("me-name").wait_for()
    assert d.get_by_test_id("me-name").inner_text() == "阿明"
    assert d.url.endswith("/me")  # the spent code is not kept in the address

    # Devices: the fourth signs itself out; 阿明 signs the third out from his own list.
    d.locator("[data-testid=device-entry][data-current=true]").get_by_test_id(
        "device-signout"
    ).click()
    d.get_by_test_id("confirm-yes").click()
    d.get_by_test_id("me-signed-out").wait_for()
    a.reload()
    devices = a.get_by_test_id("device-entry")
    devices.first.wait_for()
    assert devices.count() == 2
    a.locator("[data-testid=device-entry][data-current=false]").get_by_test_id(
        "device-signout"
    ).click()
    a.get_by_test_id("confirm-yes").click()
    a.wait_for_function(
        "() => document.querySelectorAll('[data-testid=device-entry]').length === 1"
    )
    c.reload()
    c.get_by_test_id("player-name-input").wait_for()  # a guest again
    assert page_errors == []


def test_a_club_that_asks_for_approval_and_what_strangers_see(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    owner = new_page(browser, page_errors, DESKTOP)
    friend = new_page(browser, page_errors, LANDSCAPE)
    sign_up(owner, server, "老王")
    owner.get_by_test_id("club-new").click()
    owner.get_by_test_id("club-name-input").fill("老同学")
    owner.get_by_test_id("club-approval").check()
    owner.get_by_test_id("club-create").click()
    owner.wait_for_url("**/clubs/*")
    club = owner.url.rsplit("/", 1)[1]
    owner.get_by_test_id("invite-uses").select_option("5")  # she uses it twice (§7.5)
    owner.get_by_test_id("invite-create").click()
    link = owner.get_by_test_id("invite-link").input_value()

    # A guest opens the invitation: the page signs her up first, then she asks to join.
    friend.goto(link)
    friend.get_by_test_id("player-name-input").fill("小李")
    friend.get_by_test_id("player-create").click()
    friend.get_by_test_id("club-join").click()
    friend.get_by_test_id("club-pending").wait_for()
    friend.goto(server + "/")
    pending = friend.locator(f"[data-testid=club-entry][data-club='{club}']")
    assert pending.get_attribute("data-role") == "pending"

    # The owner approves her (同意); she is a member, and leaves again.
    owner.reload()
    owner.get_by_test_id("pending-approve").click()
    owner.wait_for_function(
        "() => document.querySelectorAll('[data-testid=member-entry]').length === 2"
    )
    friend.goto(f"{server}/clubs/{club}")
    friend.get_by_test_id("club-board").wait_for()
    assert friend.get_by_test_id("club-role").get_attribute("data-role") == "member"
    friend.get_by_test_id("club-leave").click()
    friend.get_by_test_id("confirm-yes").click()
    friend.wait_for_url(server + "/")
    friend.get_by_test_id("player-name").wait_for()
    assert friend.locator(f"[data-testid=club-entry][data-club='{club}']").count() == 0

    # She asks again and the owner turns her away (移除): the club is nothing to her now.
    friend.goto(link)
    friend.get_by_test_id("club-join").click()
    friend.get_by_test_id("club-pending").wait_for()
    owner.reload()
    owner.get_by_test_id("pending-remove").click()
    owner.get_by_test_id("pending-list").wait_for(state="detached")
    friend.goto(f"{server}/clubs/{club}")
    friend.get_by_test_id("not-found").wait_for()

    # A guest is asked to sign in; a wrong invitation or 回放码 says so.
    guest = new_page(browser, page_errors, LANDSCAPE)
    guest.goto(f"{server}/clubs/{club}")
    guest.get_by_test_id("player-name-input").wait_for()
    guest.goto(f"{server}/p/ZZZZ2222")
    guest.get_by_test_id("not-found").wait_for()
    friend.goto(f"{server}/c/ZZZZ2222")
    friend.get_by_test_id("club-join").click()
    friend.get_by_test_id("invite-error").wait_for()

    # 改名 on /me, the totals of another period, and the page in English.
    owner.goto(server + "/me")
    owner.get_by_test_id("rename").click()
    owner.get_by_test_id("rename-input").fill("王师傅")
    owner.get_by_test_id("rename-save").click()
    owner.wait_for_function(
        "() => document.querySelector('[data-testid=me-name]')?.textContent === '王师傅'"
    )
    owner.get_by_test_id("stats-period").select_option("7")
    owner.get_by_test_id("matches-none").wait_for()
    owner.get_by_test_id("lang-toggle").click()
    assert "Totals" in owner.get_by_test_id("me-stats").inner_text()
    owner.get_by_test_id("lang-toggle").click()
    assert page_errors == []


def virtual_authenticator(page: Page) -> tuple[Any, str]:
    """Chromium's virtual authenticator in the page's tab (CDP): a platform authenticator that
    keeps discoverable passkeys and says yes at once, as a fingerprint would."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    options = {
        "protocol": "ctap2",
        "transport": "internal",
        "hasResidentKey": True,
        "hasUserVerification": True,
        "isUserVerified": True,
        "automaticPresenceSimulation": True,
    }
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})
    return cdp, made["authenticatorId"]


def test_a_passkey_added_on_me_signs_the_player_in_again(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    # A passkey's relying party is the page's host, a domain name (docs/protocol.md §7.1): the
    # same server by the name localhost.
    port = server.rsplit(":", 1)[1]
    base = f"http://localhost:{port}"

    # By its IP address the lobby offers no passkey: to one signing in with a player made
    # before (another device's code), it says how to open it, with the link.
    other = new_page(browser, page_errors, LANDSCAPE)
    other.goto(server + "/")
    other.get_by_test_id("player-name-input").wait_for()
    assert other.get_by_test_id("passkey-unavailable").count() == 0
    other.get_by_test_id("player-code-toggle").click()
    other.get_by_test_id("passkey-unavailable").wait_for()
    assert other.get_by_test_id("passkey-sign-in").count() == 0
    assert other.get_by_test_id("passkey-localhost").get_attribute("href") == base + "/"
    shot(other, "players-passkey-by-address-phone-landscape")

    page = new_page(browser, page_errors, DESKTOP)
    cdp, authenticator = virtual_authenticator(page)
    sign_up(page, base, "阿青")

    # 添加通行密钥 on /me: the authenticator now holds one discoverable passkey.
    page.goto(base + "/me")
    page.get_by_test_id("passkey-add").click()
    page.get_by_test_id("passkey-added").wait_for()
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert len(held) == 1 and held[0]["isResidentCredential"], held
    part = page.get_by_test_id("me-passkeys")
    for viewport, suffix in ((LANDSCAPE, "phone-landscape"), (DESKTOP, "desktop")):
        page.set_viewport_size(viewport)
        part.scroll_into_view_if_needed()
        doc_shot(page, f"players-passkeys-{suffix}", part)

    # This device signs out (its own 退出), then signs in again from the lobby with the passkey.
    page.locator("[data-testid=device-entry][data-current=true]").get_by_test_id(
        "device-signout"
    ).click()
    page.get_by_test_id("confirm-yes").click()
    page.get_by_test_id("me-signed-out").wait_for()
    page.goto(base + "/")
    page.get_by_test_id("passkey-sign-in").click()
    page.get_by_test_id("player-name").wait_for()
    assert page.get_by_test_id("player-name").inner_text() == "阿青"
    assert page.get_by_test_id("player-bar").get_attribute("data-signed-in") == "true"

    # The other browser, whose authenticator holds no passkey of this site, is told it came to
    # nothing (in both languages), and stays a guest.
    virtual_authenticator(other)
    other.goto(base + "/")
    other.get_by_test_id("passkey-sign-in").click()
    said = other.get_by_test_id("player-error")
    said.wait_for()
    assert "已取消" in said.inner_text()
    shot(other, "players-passkey-refused-phone-landscape")
    other.get_by_test_id("lang-toggle").click()
    other.get_by_test_id("passkey-sign-in").click()
    other.wait_for_function(
        "() => document.querySelector('[data-testid=player-error]')?.textContent"
        ".startsWith('Cancelled')"
    )
    assert other.get_by_test_id("player-bar").get_attribute("data-signed-in") == "false"
    assert other.get_by_test_id("player-name-input").count() == 1
    assert page_errors == []
