"""A player's passkeys on /me (docs/protocol.md §7.1, docs/web.md): added with Chromium's
virtual authenticator, listed with when each was made and last used, named, removed; 全部退出
signs every other device out and removes every passkey, this browser staying signed in. The
page's own requests pass the server's Origin rule (docs/protocol.md §6).
"""

from __future__ import annotations

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    Page,
    new_page,
    pytestmark,
)
from tests.browser.test_players import sign_up, virtual_authenticator


def add_passkey(page: Page, count: int) -> None:
    page.get_by_test_id("passkey-add").click()
    page.wait_for_function(
        f"() => document.querySelectorAll('[data-testid=passkey-entry]').length === {count}"
    )


def test_passkeys_are_listed_named_removed_and_revoked_on_me(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    base = f"http://localhost:{server.rsplit(':', 1)[1]}"
    page = new_page(browser, page_errors, DESKTOP)
    virtual_authenticator(page)
    sign_up(page, base, "阿蓝")
    page.goto(base + "/me")
    page.get_by_test_id("passkeys-none").wait_for()
    add_passkey(page, 1)
    entry = page.get_by_test_id("passkey-entry")
    assert entry.get_by_test_id("passkey-used").inner_text() == "还没用过"

    # Named here.
    entry.get_by_test_id("passkey-rename").click()
    page.get_by_test_id("passkey-name-input").fill("我的电脑")
    page.get_by_test_id("passkey-name-save").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=passkey-entry] [data-testid=passkey-name]')"
        "?.textContent === '我的电脑'"
    )

    # Used to sign in again, its last use shows.
    page.locator("[data-testid=device-entry][data-current=true]").get_by_test_id(
        "device-signout"
    ).click()
    page.get_by_test_id("confirm-yes").click()
    page.get_by_test_id("me-signed-out").wait_for()
    page.goto(base + "/")
    page.get_by_test_id("passkey-sign-in").click()
    page.get_by_test_id("player-name").wait_for()
    page.goto(base + "/me")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=passkey-used]')?.textContent.startsWith('最近')"
    )

    # Removed (after asking), it is gone from the list.
    page.get_by_test_id("passkey-entry").get_by_test_id("passkey-remove").click()
    assert "我的电脑" in page.get_by_test_id("confirm").inner_text()
    page.get_by_test_id("confirm-yes").click()
    page.get_by_test_id("passkeys-none").wait_for()

    # Another passkey, another device by a transfer code; then 全部退出.
    add_passkey(page, 1)
    page.get_by_test_id("transfer-start").click()
    code = page.get_by_test_id("transfer-code").inner_text()
    other = new_page(browser, page_errors, DESKTOP)
    other.goto(f"{base}/me?code={code}")
    other.get_by_test_id("me-player").wait_for()
    page.reload()
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=device-entry]').length === 2"
    )
    page.get_by_test_id("signout-all").click()
    page.get_by_test_id("confirm-yes").click()
    page.get_by_test_id("signout-all-done").wait_for()
    page.get_by_test_id("passkeys-none").wait_for()
    assert page.get_by_test_id("device-entry").count() == 1
    # This browser is still the player (its new key in its cookie); the other is a guest.
    page.reload()
    page.get_by_test_id("me-player").wait_for()
    other.reload()
    other.get_by_test_id("me-signed-out").wait_for()
    # The removed passkey signs nobody in.
    page.locator("[data-testid=device-entry][data-current=true]").get_by_test_id(
        "device-signout"
    ).click()
    page.get_by_test_id("confirm-yes").click()
    page.get_by_test_id("me-signed-out").wait_for()
    page.goto(base + "/")
    page.get_by_test_id("passkey-sign-in").click()
    page.get_by_test_id("player-error").wait_for()
    assert page.get_by_test_id("player-bar").get_attribute("data-signed-in") == "false"
    assert page_errors == []
