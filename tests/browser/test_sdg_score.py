"""The 三丁拐 算番 page (/score?game=sandingguai, docs/sandingguai.md §12): reached from the
算息 page's game switch, it scores a hand tapped in and settles a worked example of SDG §12 as
POST /api/score explains them; a bad table is refused, quoting it."""

from __future__ import annotations

import json

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    new_page,
    pytestmark,
)


def test_sdg_score_page(server: str, browser: Browser, page_errors: list[str]) -> None:
    page = new_page(browser, page_errors, DESKTOP)
    page.goto(f"{server}/score")
    page.get_by_test_id("score-form").wait_for()
    page.get_by_test_id("score-game-sandingguai").click()
    page.get_by_test_id("sdg-form").wait_for()
    assert page.url.endswith("/score?game=sandingguai")
    # SDG §12.1 V6 tapped in: 111m222m333m555m77m is 清大对, 15 番.
    for tile in [f"{r}m" for r in "11122233355577"]:
        page.locator(f"[data-testid=sdg-tile][data-tile='{tile}']").click()
    assert page.get_by_test_id("sdg-input").input_value() == "1m1m1m2m2m2m3m3m3m5m5m5m7m7m"
    page.get_by_test_id("sdg-go").click()
    page.get_by_test_id("sdg-result").wait_for()
    assert page.get_by_test_id("sdg-fan").get_attribute("data-fan") == "15"
    assert page.get_by_test_id("sdg-set").count() == 5
    patterns = page.get_by_test_id("sdg-patterns").inner_text()
    assert "大对子" in patterns and "清一色" in patterns
    # SDG §12.3 E8, picked: 金鸡, 冲锋鸡 kept by a 叫 seat, 包鸡; NET [−34, +12, +22].
    page.locator("[data-testid=sdg-example][data-example=E8]").click()
    assert page.get_by_test_id("sdg-mode-table").is_checked()
    page.get_by_test_id("sdg-go").click()
    net = page.get_by_test_id("sdg-net")
    net.wait_for()
    assert json.loads(net.get_attribute("data-net") or "") == [-34, 12, 22]
    assert "-34 / 12 / 22" in net.inner_text()
    assert page.get_by_test_id("sdg-chickens-1").get_attribute("data-total") == "4"
    assert page.get_by_test_id("sdg-chickens-0").get_attribute("data-role") == "baoji"
    assert "金鸡" in page.get_by_test_id("sdg-chicken-kinds").inner_text()
    assert page.get_by_test_id("sdg-transfers").locator("tbody tr").count() == 7
    # In English the names follow.
    page.get_by_test_id("lang-toggle").click()
    assert "golden chicken" in page.get_by_test_id("sdg-chicken-kinds").inner_text()
    # A table that does not parse: the error quotes it.
    page.get_by_test_id("sdg-input").fill("flip:4m\ns0 hand:1x")
    page.get_by_test_id("sdg-go").click()
    err = page.get_by_test_id("sdg-error")
    err.wait_for()
    assert err.get_attribute("data-code") == "bad_table" and "1x" in err.inner_text()
    assert page_errors == []
