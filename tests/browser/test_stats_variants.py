"""战绩 and the club's leaderboard per variant in the browser (docs/protocol.md §7.3, §7.5,
docs/web.md).

阿明, 小红 and 老王 play, at their club's tables of a real ``wmq serve``, a hand of 安乡 at a table
of three and 阿明 and 小红 one of 全名堂 at a table of two (through the sockets, as
tests/test_store_variants.py does). 阿明's /me shows every variant's totals summed and each
variant's line; 玩法 chooses one and the totals, the matches and, on the club's page, the
leaderboard become that variant's alone; in English too. Pictures at 1280×800 and 844×390
(``WMQ_DOC_SHOTS=1`` refreshes docs/web.md's).
"""

from __future__ import annotations

from pathlib import Path

from tests import serverkit
from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    Page,
    new_page,
    pytestmark,
)
from tests.browser.test_players import both_shots
from tests.browser.test_table import LANDSCAPE, doc_shot
from tests.test_store_variants import ok, two_contests


def figure(page: Page, testid: str) -> str:
    return str(page.get_by_test_id(testid).get_attribute("data-value"))


def wait_for_figure(page: Page, testid: str, value: object) -> None:
    page.wait_for_function(
        "([id, v]) => document.querySelector(`[data-testid=${id}]`)?.dataset.value === v",
        arg=[testid, str(value)],
    )


def test_the_record_and_the_leaderboard_choose_a_variant(
    browser: Browser, page_errors: list[str], tmp_path: Path
) -> None:
    server = serverkit.Server(tmp_path)
    try:
        ids, heads, club, three, two = two_contests(server)
        base = f"http://127.0.0.1:{server.port}"
        mine = ok(server, "/api/me/matches", heads[0])["matches"]
        totals = {m["room_id"]: m["total"] for m in mine}
        board = ok(server, f"/api/clubs/{club}/leaderboard?variant=quanmingtang-2p", heads[0])
        two_board = {r["player"]["id"] for r in board["rows"]}
        assert two_board == set(ids[:2])

        page = new_page(browser, page_errors, DESKTOP)
        key = heads[0]["Authorization"].removeprefix("Bearer ")
        page.context.add_cookies([{"name": "wmq_player", "value": key, "url": base}])
        page.goto(base + "/me")

        # Every variant summed, and each variant's own line.
        wait_for_figure(page, "stat-hands", 2)
        assert int(figure(page, "stat-points")) == totals[two] + totals[three]
        rows = page.get_by_test_id("stats-variant-row")
        assert rows.count() == 2
        lines = {
            rows.nth(k).get_attribute("data-variant"): int(
                rows.nth(k).get_attribute("data-points") or 0
            )
            for k in range(2)
        }
        assert lines == {"anxiang|": totals[three], "quanmingtang-2p|": totals[two]}
        choice = page.get_by_test_id("stats-variant")
        labels = choice.locator("option").all_inner_texts()
        assert labels[0] == "全部玩法" and "全名堂 二人" in labels
        assert page.get_by_test_id("match-entry").count() == 2
        both_shots(page, "players-me-variants")

        # 全名堂 at a table of two alone: its totals and its match.
        choice.select_option("quanmingtang-2p|")
        wait_for_figure(page, "stat-hands", 1)
        assert int(figure(page, "stat-points")) == totals[two]
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=match-entry]').length === 1"
        )
        assert page.get_by_test_id("match-entry").get_attribute("data-room") == two
        assert page.get_by_test_id("stats-variants").count() == 0

        # In English, the choice names the variants in English and keeps the chosen one.
        page.get_by_test_id("lang-toggle").click()
        page.wait_for_function(
            "() => document.querySelector('[data-testid=stats-variant] option')?.textContent"
            " === 'All variants'"
        )
        labels = choice.locator("option").all_inner_texts()
        assert "All patterns (app tier), two players" in labels
        choice.select_option("anxiang|")
        page.wait_for_function(
            "(room) => document.querySelector('[data-testid=match-entry]')?.dataset.room === room",
            arg=three,
        )
        assert figure(page, "stat-hands") == "1"
        assert int(figure(page, "stat-points")) == totals[three]
        choice.select_option("")
        wait_for_figure(page, "stat-hands", 2)
        page.get_by_test_id("lang-toggle").click()

        # The club's leaderboard: every variant, then the table of two's (老王 is not on it).
        page.set_viewport_size(LANDSCAPE)
        page.goto(f"{base}/clubs/{club}")
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=board-row]').length === 3"
        )
        page.get_by_test_id("board-variant").select_option("quanmingtang-2p|")
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=board-row]').length === 2"
        )
        shown = {
            page.get_by_test_id("board-row").nth(k).get_attribute("data-player") for k in range(2)
        }
        assert shown == two_board
        for viewport, suffix in ((LANDSCAPE, "phone-landscape"), (DESKTOP, "desktop")):
            page.set_viewport_size(viewport)
            doc_shot(page, f"players-club-variant-{suffix}", page.get_by_test_id("club-board"))
        assert page_errors == []
    finally:
        server.stop()
