"""理牌 (docs/web.md, docs/protocol.md ``POST /api/tidy``): a hand grouped into 坎, 句 and pairs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from tests.test_server_bounds import HOSTILE, PLACE, body_with
from weimaque.games.maque.analysis.decompose import PAIR, RUN, TRIPLE
from weimaque.games.maque.analysis.tidy import tidy
from weimaque.games.maque.cards import counts_of, faces_str
from weimaque.games.maque.notation import parse_cards
from weimaque.server.app import create_app


def grouped(text: str) -> tuple[list[tuple[int, str]], str]:
    found = tidy(counts_of(parse_cards(text) if text else []))
    return [(k, faces_str([f])) for k, f in found.groups], faces_str(found.loose)


@pytest.mark.parametrize(
    ("hand", "groups", "loose"),
    [
        pytest.param(
            "一一一二三四五五十",
            [(TRIPLE, "一"), (RUN, "二"), (PAIR, "五")],
            "十",
            id="kan-run-pair",
        ),
        # A 坎 stays whole (RULES §4.4), even where 七八九 七七 would group more.
        pytest.param("七七七八九", [(TRIPLE, "七")], "八九", id="kan-kept"),
        pytest.param(
            "一一一二二二三三三", [(TRIPLE, "一"), (TRIPLE, "二"), (TRIPLE, "三")], "", id="kans"
        ),
        # Four alike: the 坎 and one card for the rest.
        pytest.param("五五五五六七", [(TRIPLE, "五"), (RUN, "五")], "", id="four"),
        pytest.param("一一二二三三四", [(RUN, "一"), (RUN, "一")], "四", id="two-runs"),
        # Small and big never share a group (RULES §1.2), 二七十 is no run.
        pytest.param("二七十九十壹", [(PAIR, "十")], "二七九壹", id="no-mixed"),
        pytest.param("拾拾玖捌", [(RUN, "捌")], "拾", id="big-run"),
        # The most cards in runs, then in pairs.
        pytest.param("三三四四五六", [(PAIR, "三"), (RUN, "四")], "四", id="run-and-pair"),
        pytest.param("", [], "", id="empty"),
    ],
)
def test_tidy_groups_as_a_player_reads(
    hand: str, groups: list[tuple[int, str]], loose: str
) -> None:
    assert grouped(hand) == (groups, loose)


def test_tidy_keeps_a_kan_a_lower_run_would_take() -> None:
    # 五六七 八九十 would take one 十 of 十十十, 陆柒捌 one 柒 of 柒柒柒 (RULES §4.4: a 坎
    # stays whole).
    groups, loose = grouped("五六七八九十十十陆柒柒柒捌")
    assert (TRIPLE, "十") in groups and (TRIPLE, "柒") in groups
    assert groups == [(RUN, "五"), (TRIPLE, "十"), (TRIPLE, "柒")]
    assert loose == "八九陆捌"


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 19), min_size=0, max_size=21).map(sorted))
def test_tidy_never_splits_a_kan(faces: list[int]) -> None:
    counts = counts_of(faces)
    if any(n > 4 for n in counts):  # more copies than the deck holds (RULES §1.1)
        return
    found = tidy(counts)
    kans = {f for f, n in enumerate(counts) if n >= 3}
    # Every 坎 is one group of its own; its face is in no run, pair or loose card unless a
    # fourth copy is left over.
    assert {f for k, f in found.groups if k == TRIPLE} == kans
    used = [0] * len(counts)
    size = {TRIPLE: 3, RUN: 3, PAIR: 2}
    for kind, face in found.groups:
        for f in (face, face + 1, face + 2) if kind == RUN else (face,) * size[kind]:
            used[f] += 1
    for f in found.loose:
        used[f] += 1
    assert tuple(used) == tuple(counts)
    for kind, face in found.groups:
        if kind != TRIPLE:
            members = (face, face + 1, face + 2) if kind == RUN else (face,)
            assert all(counts[m] == 4 or m not in kans for m in members)
    assert all(counts[f] == 4 for f in found.loose if f in kans)


def test_tidy_keeps_every_card() -> None:
    text = "一一二三四五五六七八九十壹贰叁叁叁陆柒捌拾"
    found = tidy(counts_of(parse_cards(text)))
    size = {TRIPLE: 3, RUN: 3, PAIR: 2}
    assert sum(size[k] for k, _ in found.groups) + len(found.loose) == len(text)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(":memory:")) as c:
        yield c


def test_tidy_api_answers_the_groups(client: TestClient) -> None:
    res = client.post("/api/tidy", json={"hand": "五五十一一一二三四"})
    assert res.status_code == 200
    assert res.json() == {
        "v": 1,
        "groups": [
            {"kind": "kan", "cards": "一一一"},
            {"kind": "run", "cards": "二三四"},
            {"kind": "pair", "cards": "五五"},
        ],
        "loose": "十",
    }


@pytest.mark.parametrize(
    ("body", "code", "quote"),
    [
        pytest.param({"hand": "一二猫"}, "unknown_card", "'猫'", id="unknown"),
        pytest.param({"hand": "123x"}, "unknown_card", "'1'", id="ascii-refused"),
        pytest.param({"hand": "一一一一一"}, "too_many_copies", "一 appears 5 times", id="fifth"),
        pytest.param({"hand": "一二三四五六七八九十" * 3}, "too_many_cards", "not 30", id="long"),
        pytest.param({"hand": 3}, "bad_request", "not 3", id="not-text"),
        pytest.param({"hand": "一", "rules": "x"}, "bad_request", "'rules'", id="unknown-field"),
        pytest.param([1], "bad_request", "not [1]", id="not-object"),
        # 理牌 is a game's service through the seam (``Tidier``): a game without one is named.
        pytest.param({"game": "sandingguai", "hand": "一"}, "bad_game", "'sandingguai'", id="sdg"),
        pytest.param({"game": "chess", "hand": "一"}, "bad_game", "'chess'", id="no-game"),
        pytest.param({"game": 7, "hand": "一"}, "bad_game", "7", id="game-not-text"),
    ],
)
def test_tidy_api_refuses_bad_input_quoting_it(
    client: TestClient, body: object, code: str, quote: str
) -> None:
    res = client.post("/api/tidy", json=body)
    assert res.status_code == 400
    err = res.json()["error"]
    assert err["code"] == code and quote in err["message"], err


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_tidy_api_refuses_hostile_values(client: TestClient, name: str) -> None:
    text = body_with("hand").replace(PLACE, HOSTILE[name])
    res = client.post(
        "/api/tidy", content=text.encode(), headers={"Content-Type": "application/json"}
    )
    assert res.status_code == 400, (name, res.text[:200])
    error = res.json()["error"]
    assert error["code"] != "internal" and len(error["message"]) <= 300, error
