"""Browser 复盘: after a hand, the replay offers the seat's review on its timeline."""

from __future__ import annotations

import json
import urllib.request

from tests.browser.test_browser import (
    DESKTOP,
    WINNING_SEED,
    Browser,
    create_room,
    new_page,
    open_menu,
    play_until_end,
    pytestmark,
    shot,
)

__all__ = ["pytestmark"]  # skipped, as the other browser tests, without Chromium


def test_review_on_the_replay_timeline(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, DESKTOP)
    room = create_room(page, server, seed=WINNING_SEED)
    play_until_end(page)
    page.get_by_test_id("hand-end").wait_for()
    open_menu(page)
    page.get_by_test_id("history-toggle").click()
    page.get_by_test_id("history-hand").first.wait_for()
    page.get_by_test_id("replay-button").first.click()
    page.get_by_test_id("replay").wait_for()
    page.get_by_test_id("review-button").click()
    timeline = page.get_by_test_id("review-timeline")
    timeline.wait_for(timeout=120_000)
    # The page shows the same review as the API (the content of `wmq review --json`).
    url = f"{server}/api/rooms/{room}/hands/1/review?seat=0"
    with urllib.request.urlopen(url, timeout=60) as res:
        data = json.load(res)
    assert data["seat"] == 0 and data["decisions"]
    marks = page.locator("[data-testid=review-timeline] button")
    assert marks.count() == len(data["decisions"])
    summary = page.get_by_test_id("review-summary")
    n, agree = data["summary"]["decisions"], data["summary"]["agree"]
    assert summary.inner_text().startswith(f"共 {n} 次选择，{agree} 次和机器人一样。")
    # Clicking a mark jumps to the step after that decision and shows its note.
    first = data["decisions"][0]
    marks.first.click()
    note = page.get_by_test_id("review-note")
    note.wait_for()
    assert first["taken"] in note.inner_text() and first["best"] in note.inner_text()
    assert str(first["step"] + 1) in page.get_by_test_id("replay-step").inner_text()
    assert "步" in page.get_by_test_id("replay-step").inner_text()
    # Steps agree: each mark, its note and the summary's worst decision name the step the
    # timeline shows (the view after the decision's action).
    for k in range(min(3, marks.count())):
        marks.nth(k).click()
        step = data["decisions"][k]["step"] + 1
        page.get_by_test_id("replay-step").filter(has_text=f"第 {step} /").wait_for()
        assert marks.nth(k).get_attribute("data-step") == str(step)
        assert page.get_by_test_id("review-step").get_attribute("data-step") == str(step)
    worst = data["summary"]["worst_decision"]
    if worst is not None:
        assert f"第 {worst['hand']} 局第 {worst['step'] + 1} 步" in summary.inner_text()
    # The points lost are bounded by what the hand could cost the seat (docs/bots.md).
    for x in data["summary"]["hand_losses"]:
        assert x["lost"] <= max(0.0, x["expected"] - x["result"]) + 0.01
    lost = sum(x["lost"] for x in data["summary"]["hand_losses"])
    assert abs(data["summary"]["points_lost"] - lost) < 0.02
    marks.first.click()
    shot(page, "review-desktop")
    # The language switches live on the open replay and its 复盘: the same sentences as
    # `wmq review` in English, built from the review's data.
    page.get_by_test_id("lang-toggle").click()
    assert summary.inner_text() == data["summary"]["text"]
    assert page.get_by_test_id("review-reason").inner_text() == first["reason"]
    assert page.get_by_test_id("replay-step").inner_text().startswith("step ")
    assert page.get_by_test_id("replay-next").inner_text() == "Next ▶"
    assert page.get_by_test_id("replay-title").inner_text() == "Replay · Hand 1"
    page.get_by_test_id("lang-toggle").click()
    assert "次选择" in summary.inner_text()
    assert page_errors == []
