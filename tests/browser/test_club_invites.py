"""A club's invitations in the browser (docs/protocol.md §7.5, docs/web.md): the owner makes
one for five joins, sees it among the invitations still good with its uses, revokes it, and a
friend who opens its link is told it no longer works."""

from __future__ import annotations

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    new_page,
    pytestmark,
)
from tests.browser.test_players import sign_up
from tests.browser.test_table import LANDSCAPE


def test_an_invitation_is_listed_with_its_uses_and_revoked(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    owner = new_page(browser, page_errors, DESKTOP)
    friend = new_page(browser, page_errors, LANDSCAPE)
    sign_up(owner, server, "阿明")
    owner.get_by_test_id("club-new").click()
    owner.get_by_test_id("club-name-input").fill("牌友")
    owner.get_by_test_id("club-create").click()
    owner.wait_for_url("**/clubs/*")
    owner.get_by_test_id("invite-uses").select_option("5")
    owner.get_by_test_id("invite-create").click()
    link = owner.get_by_test_id("invite-link").input_value()
    entry = owner.get_by_test_id("invite-entry")
    entry.wait_for()
    assert entry.count() == 1
    assert "0" in entry.inner_text() and "5" in entry.inner_text()
    owner.get_by_test_id("invite-revoke").click()
    owner.wait_for_function("() => !document.querySelector('[data-testid=invite-entry]')")

    sign_up(friend, server, "小芳")
    friend.goto(link)
    friend.get_by_test_id("club-join").click()
    error = friend.get_by_test_id("invite-error")
    error.wait_for()
    assert "撤销" in error.inner_text() or "revoked" in error.inner_text()
    assert page_errors == []
