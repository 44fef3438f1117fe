"""The lobby's game choice and the rule form drawn from a game's option schema (docs/web.md
"The lobby"; docs/protocol.md §1 ``GET /api/games``), in Debian's Chromium against the real
``wmq serve``: 偎麻雀 stays the default with its own form; choosing 三丁拐 draws its presets, its
options by type and a seat per seat of its table, and 创建 sends the game, the preset and only
the options changed. The preset's description shows in the page's language (docs/protocol.md §1:
``description`` in English, ``description_zh`` in Chinese)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from weimaque.games.sandingguai.rules import get_rules

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium")
sync_api = pytest.importorskip("playwright.sync_api")
Page = sync_api.Page

DESKTOP = {"width": 1280, "height": 800}


def new_page(browser: Any, errors: list[str]) -> Page:
    context = browser.new_context(viewport=DESKTOP, locale="zh-CN")
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(15_000)
    return page


def test_the_lobby_offers_each_game_with_its_rule_form(
    server: str, browser: Any, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors)
    page.goto(server + "/")
    form = page.get_by_test_id("create-form")
    form.wait_for()
    # 偎麻雀 first, with its own form as before.
    assert form.get_attribute("data-game") == "maque"
    game = page.get_by_test_id("game")
    assert game.input_value() == "maque"
    labels = game.locator("option").all_inner_texts()
    assert "偎麻雀" in labels and "三丁拐" in labels
    page.get_by_test_id("field-liuzi").wait_for()

    game.select_option("sandingguai")
    page.wait_for_selector("[data-testid=create-form][data-game=sandingguai]")
    preset = page.get_by_test_id("create-preset")
    assert preset.input_value() == "sandingguai"
    # The preset's description in the page's language: Chinese here.
    desc = page.get_by_test_id("create-preset-desc")
    assert desc.inner_text() == get_rules("sandingguai").description_zh
    assert set(preset.locator("option").evaluate_all("os => os.map(o => o.value)")) >= {
        "sandingguai",
        "baike-3p",
    }
    # Three seats (the preset's table), each a person or one of the game's bots.
    assert page.locator("[data-testid^=seat-kind-]").count() == 3
    assert "random" in page.get_by_test_id("seat-kind-1").locator("option").evaluate_all(
        "os => os.map(o => o.value)"
    )
    # Every option by its type, at the preset's values.
    page.get_by_test_id("create-options").click()
    max_suits = page.get_by_test_id("create-opt-max_suits")
    assert max_suits.evaluate("e => e.tagName") == "SELECT"
    # Each choice by its name in the page's language, never the value sent (SDG §11).
    assert max_suits.locator("option:checked").inner_text() == "两门"
    rotation = page.get_by_test_id("create-opt-dealer_rotation")
    assert rotation.locator("option").all_inner_texts() == ["赢家坐庄", "轮流坐庄"]
    dingque = page.get_by_test_id("create-opt-dingque")
    assert dingque.get_attribute("type") == "checkbox" and not dingque.is_checked()
    shabao = page.get_by_test_id("create-opt-shabao")
    assert shabao.get_attribute("type") == "number" and shabao.input_value() == "10"
    # Another preset brings its own values (三色 on 百科's table).
    preset.select_option("baike-3p")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=create-opt-max_suits] option:checked')"
        ".textContent === '三门'"
    )
    assert desc.inner_text() == get_rules("baike-3p").description_zh
    # Change an int (bounded: a value past its high is brought back within it) and a choice.
    shabao = page.get_by_test_id("create-opt-shabao")
    high = int(shabao.get_attribute("max") or "0")
    shabao.fill(str(high + 50))
    shabao.dispatch_event("change")
    assert page.get_by_test_id("create-opt-shabao").input_value() == str(high)
    shabao = page.get_by_test_id("create-opt-shabao")
    shabao.fill("5")
    shabao.dispatch_event("change")
    page.get_by_test_id("create-opt-pass_lock").select_option(label="任何牌")
    page.get_by_test_id("seat-kind-1").select_option("random")
    page.get_by_test_id("seat-kind-2").select_option("random")
    with page.expect_request("**/api/rooms") as sent:
        page.get_by_test_id("create-room").click()
    body = json.loads(sent.value.post_data or "{}")
    assert body["game"] == "sandingguai"
    assert body["preset"] == "baike-3p"
    assert body["options"] == {"shabao": 5, "pass_lock": "any"}
    assert body["bots"] == {"1": "random", "2": "random"}
    assert page_errors == []


def test_the_rule_form_speaks_english(server: str, browser: Any, page_errors: list[str]) -> None:
    page = new_page(browser, page_errors)
    page.goto(server + "/")
    page.get_by_test_id("create-form").wait_for()
    page.get_by_test_id("lang-toggle").click()
    page.get_by_test_id("game").select_option("sandingguai")
    page.get_by_test_id("create-options").click()
    labels = page.locator("[data-testid=create-form] .option > span").all_inner_texts()
    assert "declare a lacking suit" in labels
    rotation = page.get_by_test_id("create-opt-dealer_rotation")
    assert rotation.locator("option").all_inner_texts() == [
        "the winner deals",
        "the next seat deals",
    ]
    assert page.get_by_test_id("create-preset").locator("option:checked").inner_text() == (
        "Sandingguai"
    )
    # The preset's description in English, and in Chinese again when the page switches back.
    desc = page.get_by_test_id("create-preset-desc")
    assert desc.inner_text() == get_rules("sandingguai").description
    page.get_by_test_id("create-preset").select_option("baike-3p")
    page.wait_for_function(
        "text => document.querySelector('[data-testid=create-preset-desc]').textContent === text",
        arg=get_rules("baike-3p").description,
    )
    page.get_by_test_id("lang-toggle").click()
    page.wait_for_function(
        "text => document.querySelector('[data-testid=create-preset-desc]').textContent === text",
        arg=get_rules("baike-3p").description_zh,
    )
    assert page_errors == []
