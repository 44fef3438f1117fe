"""The 算息 page (/score, docs/web.md) at the tables the apps play: the 留子 pool the winner
takes with the layout chosen with it (RULES §8.5.3), the apps' tiers and their 名堂 (RULES
§7.4), a table of two (RULES §2.5), and the facts of the hand (RULES §7.4.4: a dealt 坎 of the
winning face, the faces a 胡 was declined on), each entered through the page and checked against
the worked examples of RULES and RULES-VARIANTS, on a computer and on a phone held sideways with
nothing to scroll. Set ``WMQ_DOC_SHOTS=1`` to refresh the screenshots of docs/web.md."""

from __future__ import annotations

import pytest

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    Page,
    new_page,
    pytestmark,
)
from tests.browser.test_table import LANDSCAPE, doc_shot, shot

VIEWPORTS = [(DESKTOP, "desktop"), (LANDSCAPE, "phone-landscape")]

# RULES §8.5.3's example: 二三四 ×3 (硬息 10, total 160) or 二二二 三三三 四四四 (硬息 20, 70)
CHOICE = "偎:七七七 偎:贰贰贰 吃:八九十 手:二二二三三三四四四柒 胡:柒"
# RULES-VARIANTS V3 Q1 (the seed-002 hand), Q2 (全求人, 单吊, 顶对) and Q4 (鸡丁)
Q1 = "偎:十十十 手:八九十七 碰:贰贰贰 碰:柒柒柒 碰:二二二 碰:拾拾拾 胡:七"
Q2 = "碰:二二二 碰:七七七 碰:十十十 碰:贰贰贰 碰:柒柒柒 碰:三三三 手:拾 胡:拾"
Q4 = "碰:七七七 偎:拾拾拾 碰:贰贰贰 吃:肆伍陆 手:一二二三四五六 胡:二"


def open_score(browser: Browser, errors: list[str], viewport: dict[str, int], base: str) -> Page:
    page = new_page(browser, errors, viewport)
    page.goto(f"{base}/score")
    page.get_by_test_id("score-rules").wait_for()
    return page


def go(page: Page) -> None:
    """Score what the form holds and wait for this answer (the out panel counts them)."""
    out = page.get_by_test_id("score-out")
    seen = int(out.get_attribute("data-answers") or "0")
    page.get_by_test_id("score-go").click()
    page.wait_for_selector(f"[data-testid=score-out][data-answers='{seen + 1}']")


def total(page: Page) -> int:
    return int(page.get_by_test_id("total").inner_text().split()[-1])


def gain(page: Page) -> tuple[int, int, int]:
    g = page.get_by_test_id("score-gain")
    attrs = ("data-players", "data-take", "data-gain")
    players, take, gained = (int(g.get_attribute(a) or "") for a in attrs)
    return players, take, gained


def patterns(page: Page) -> dict[str, str]:
    """Each 名堂 of the breakdown by key, with its one-line explanation."""
    rows = page.get_by_test_id("pattern")
    return {
        rows.nth(i).get_attribute("data-key") or "": rows.nth(i)
        .get_by_test_id("pattern-about")
        .inner_text()
        for i in range(rows.count())
    }


def fits(page: Page, viewport: dict[str, int]) -> None:
    """Nothing to scroll on the page: the form and the answer scroll each in itself."""
    assert page.evaluate("document.documentElement.scrollHeight") <= viewport["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    for testid in ("score-go", "score-out"):
        box = page.get_by_test_id(testid).bounding_box()
        assert box is not None and box["y"] + min(box["height"], 40) <= viewport["height"], testid


@pytest.mark.parametrize(("viewport", "name"), VIEWPORTS)
def test_pool_chooses_the_layout_of_the_largest_gain(
    server: str, browser: Browser, page_errors: list[str], viewport: dict[str, int], name: str
) -> None:
    """RULES §8.5.3: a pool of 240 at 1 等 = 80 makes 二二二 三三三 四四四 (70, 3 等) the
    winner's best, 2 × 70 + 240 = 380; a pool of 100 leaves 二三四 ×3 (160, 2 × 160 = 320)."""
    page = open_score(browser, page_errors, viewport, server)
    page.get_by_test_id("score-input").fill(CHOICE)
    page.get_by_test_id("score-pool").fill("240")
    page.get_by_test_id("score-deng").fill("80")
    go(page)
    assert gain(page) == (3, 240, 380)
    assert total(page) == 70 and page.get_by_test_id("hard-xi").inner_text() == "20"
    assert "70 × 2 + 留子 240 = 380" in page.get_by_test_id("score-gain").inner_text()
    fits(page, viewport)
    doc_shot(page, f"score-pool-{name}")
    page.get_by_test_id("score-pool").fill("100")
    go(page)
    assert gain(page) == (3, 0, 320) and total(page) == 160
    assert set(patterns(page)) >= {"manyuan", "dandiao"}
    # Bad input: the server's refusal, quoting what was typed, in either language.
    page.get_by_test_id("score-pool").fill("-5")
    go(page)
    err = page.get_by_test_id("score-error")
    assert err.get_attribute("data-code") == "bad_request"
    assert "留子池" in err.inner_text() and "-5" in err.inner_text()
    page.get_by_test_id("lang-toggle").click()
    assert "pool must be an integer 0..1000000, not -5" in err.inner_text()
    assert "the 留子 the winner may take" in page.get_by_test_id("field-pool").inner_text()
    assert page_errors == []


@pytest.mark.parametrize(("viewport", "name"), VIEWPORTS)
def test_app_tiers_score_their_own_mingtang(
    server: str, browser: Browser, page_errors: list[str], viewport: dict[str, int], name: str
) -> None:
    """RULES-VARIANTS V3 Q2 from another seat: 全名堂 19 × 10 + 红 160 + 单吊 50 + 全求人 150 +
    顶对 50 = 600; 钻石 adds 美女踩单车: 730; the seed preset anxiang: 214. Each 名堂 explained."""
    page = open_score(browser, page_errors, viewport, server)
    assert page.get_by_test_id("score-rules").locator("optgroup option").count() == 3
    page.get_by_test_id("score-input").fill(Q2)
    page.get_by_test_id("score-source").select_option("other")
    page.get_by_test_id("score-rules").select_option("quanmingtang")
    assert "全名堂" in page.get_by_test_id("score-preset-desc").inner_text()
    go(page)
    assert total(page) == 600
    about = patterns(page)
    assert set(about) == {"duizi", "hong", "dandiao", "quanqiuren", "dingdui"}
    assert all(about.values()), about
    assert "胡前只剩一张手牌" in about["quanqiuren"]
    fits(page, viewport)
    doc_shot(page, f"score-app-tier-{name}")
    page.get_by_test_id("score-rules").select_option("zuanshi")
    go(page)
    assert total(page) == 730 and "meinv" in patterns(page)
    page.get_by_test_id("score-rules").select_option("anxiang")
    go(page)
    assert total(page) == 214 and "quanqiuren" not in patterns(page)
    assert page_errors == []


def test_a_preset_mingtang_turned_off_is_not_scored(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    """RULES §7.3: a room may turn off one of its preset's 名堂, and 算息 may too. Q2 from
    another seat under 全名堂 is 600 with 全求人 150 (RULES-VARIANTS V3); unticked, 450, and
    ticked again, 600."""
    page = open_score(browser, page_errors, DESKTOP, server)
    page.get_by_test_id("score-input").fill(Q2)
    page.get_by_test_id("score-source").select_option("other")
    page.get_by_test_id("score-rules").select_option("quanmingtang")
    page.get_by_test_id("score-options").click()
    box = page.get_by_test_id("score-disable-quanqiuren")
    assert box.is_checked() and "全求人" in page.get_by_test_id("score-disable").inner_text()
    box.uncheck()
    with page.expect_request("**/api/score") as sent:
        go(page)
    assert (sent.value.post_data_json or {})["options"] == {"disable_patterns": ["quanqiuren"]}
    assert total(page) == 450 and "quanqiuren" not in patterns(page)
    shot(page, "score-mingtang-off-desktop")
    page.get_by_test_id("score-disable-quanqiuren").check()
    go(page)
    assert total(page) == 600 and "quanqiuren" in patterns(page)
    # Another preset starts with all its own 名堂 in play.
    page.get_by_test_id("score-disable-hong").uncheck()
    page.get_by_test_id("score-rules").select_option("zuanshi")
    assert page.get_by_test_id("score-disable-hong").is_checked()
    assert page_errors == []


def test_two_players_one_loser_pays(server: str, browser: Browser, page_errors: list[str]) -> None:
    """RULES-VARIANTS V1's settlement: at two, Q1 from another seat (anxiang) is 242, paid by
    the one loser; with a 留子 of 30 at 1 等 = 80 the winner takes it too: +272."""
    page = open_score(browser, page_errors, LANDSCAPE, server)
    page.get_by_test_id("score-input").fill(Q1)
    page.get_by_test_id("score-source").select_option("other")
    go(page)
    assert gain(page) == (3, 0, 484) and total(page) == 242
    page.get_by_test_id("score-players").select_option("2")
    go(page)
    assert gain(page) == (2, 0, 242)
    page.get_by_test_id("score-pool").fill("30")
    page.get_by_test_id("score-deng").fill("80")
    go(page)
    assert gain(page) == (2, 30, 272) and total(page) == 242
    assert "242 × 1 + 留子 30 = 272" in page.get_by_test_id("score-gain").inner_text()
    fits(page, LANDSCAPE)
    doc_shot(page, "score-two-players-phone-landscape")
    assert page_errors == []


@pytest.mark.parametrize(("viewport", "name"), VIEWPORTS)
def test_dealt_kan_and_declined_faces_change_the_score(
    server: str, browser: Browser, page_errors: list[str], viewport: dict[str, int], name: str
) -> None:
    """RULES-VARIANTS V3 Q4 under 全名堂 from another seat: 13 + 红 60 + 鸡丁 100 = 173.
    Dealt three 二 (§7.4.4 --dealt-kan) adds 圆圆丁 100: 273; a 胡 declined on 二 earlier
    (--declined) adds 啫啫胡 30: 203."""
    page = open_score(browser, page_errors, viewport, server)
    page.get_by_test_id("score-rules").select_option("quanmingtang")
    page.get_by_test_id("score-input").fill(Q4)
    page.get_by_test_id("score-source").select_option("other")
    go(page)
    assert total(page) == 173 and set(patterns(page)) == {"hong", "jiding"}
    assert "圆圆丁" in page.get_by_test_id("field-dealt-kan").inner_text()
    page.get_by_test_id("score-dealt-kan").check()
    go(page)
    about = patterns(page)
    assert total(page) == 273 and set(about) == {"hong", "jiding", "yuanyuanding"}
    assert "起手有三张" in about["yuanyuanding"]
    fits(page, viewport)
    doc_shot(page, f"score-dealt-kan-{name}")
    page.get_by_test_id("score-dealt-kan").uncheck()
    page.get_by_test_id("score-declined").fill("二")
    go(page)
    assert total(page) == 203 and "zhezhe" in patterns(page)
    # A face that is no card: the scorer's error quotes it.
    page.get_by_test_id("score-declined").fill("猫")
    go(page)
    err = page.get_by_test_id("score-error")
    assert err.get_attribute("data-code") == "unknown_card" and "猫" in err.inner_text()
    assert page_errors == []


def test_own_chi_tianhu_and_the_deal(server: str, browser: Browser, page_errors: list[str]) -> None:
    """RULES §7.4.4 under 全名堂: a 吃 of one's own drawn card (自吃:, tapped on the pad) is no
    全求人 (357 → 207); the dealer's 20 dealt cards as 天胡 (18 × 15 + 250 = 520); RULES-VARIANTS
    V3 Q10's dealt cards for the deal 名堂: the single best, 红炸弹 200."""
    page = open_score(browser, page_errors, DESKTOP, server)
    page.get_by_test_id("score-rules").select_option("quanmingtang")
    page.get_by_test_id("score-source").select_option("other")
    melds = "碰:二二二 碰:七七七 碰:十十十 碰:贰贰贰 碰:柒柒柒"
    page.get_by_test_id("score-input").fill(f"{melds} 吃:三四五 手:拾 胡:拾")
    go(page)
    assert total(page) == 357 and "quanqiuren" in patterns(page)
    page.get_by_test_id("score-input").fill(melds)
    for token, faces in (("自吃:", "三四五"), ("手:", "拾"), ("胡:", "拾")):
        page.locator(f"[data-testid=pad-token][data-token='{token}']").click()
        for f in faces:
            page.locator(f"[data-testid=pad-card][data-face='{f}']").click()
    assert page.get_by_test_id("score-input").input_value().endswith("自吃:三四五 手:拾 胡:拾")
    assert "自吃" in page.get_by_test_id("score-form").inner_text()
    go(page)
    assert total(page) == 207 and "quanqiuren" not in patterns(page)
    # 天胡: no 胡:, and what only a win has (source, 留子, a dealt 坎) goes away.
    page.get_by_test_id("score-kind").select_option("tianhu")
    assert page.get_by_test_id("score-pool").count() == 0
    assert page.get_by_test_id("score-dealt-kan").count() == 0
    page.get_by_test_id("score-input").fill("手:一一一三三三四四四五五五六六六八八八九九")
    go(page)
    about = patterns(page)
    assert total(page) == 520 and set(about) == {"wudui", "xiaozi", "tianhu"}
    assert "庄家起手二十张就胡" in about["tianhu"]
    page.get_by_test_id("score-kind").select_option("deal")
    page.get_by_test_id("score-input").fill("手:一一一一二二二二五五八九壹叁伍柒捌玖拾")
    go(page)
    about = patterns(page)
    assert total(page) == 200 and set(about) == {"hongzhadan"} and about["hongzhadan"]
    assert page_errors == []
