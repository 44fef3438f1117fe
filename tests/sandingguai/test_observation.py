"""What each seat may see (SANDINGGUAI §10): one observer, JSON, a flat array; hidden tiles
permuted leave every view unchanged."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from tests.sandingguai.test_state import deal, policy
from weimaque.games.sandingguai.actions import ACTIONS, Action
from weimaque.games.sandingguai.observation import OBS_SIZE, observation_array, observe
from weimaque.games.sandingguai.rules import get_rules
from weimaque.games.sandingguai.state import State


@pytest.mark.parametrize(
    ("seed", "options"),
    [(1, {}), (2, {}), (3, {}), (4, {}), (5, {"dingque": True}), (6, {"angang_public": True})],
)
def test_views_do_not_depend_on_hidden_tiles(seed: int, options: dict[str, object]) -> None:
    rng = random.Random(seed)
    state = State(get_rules("sandingguai", **options), seed)
    steps = 0
    while not state.is_terminal():
        for viewer in range(3):
            view = observe(state, viewer)
            for _ in range(2):
                other = state.resample(viewer, rng)
                assert observe(other, viewer) == view
                assert np.array_equal(
                    observation_array(observe(other, viewer)), observation_array(view)
                )
        state.apply(policy(state, rng))
        steps += 1
    assert steps > 10


def test_resample_really_moves_hidden_tiles() -> None:
    state = State(None, 3)
    other = state.resample(0, random.Random(1))
    assert other.hands[0] == state.hands[0]
    assert other.hands[1] != state.hands[1] or other.wall != state.wall


def test_angang_face_down_to_others() -> None:
    s = deal("5555s123m456m78m99s", "1359m2468s13469p", "2469m13678s2479p", tail="1p")
    s.apply(next(a for a in s.legal_actions() if a >= 55))
    own = observe(s, 0).seats[0].melds[0]
    other = observe(s, 1).seats[0].melds[0]
    assert own.tile is not None and other.tile is None
    assert "5s" not in json.dumps(observe(s, 1).to_dict())
    public = State(get_rules(angang_public=True), None, 0, 1, s.deck)
    public.apply(next(a for a in public.legal_actions() if a >= 55))
    assert observe(public, 1).seats[0].melds[0].tile is not None
    arr = observation_array(observe(s, 1))
    assert arr.shape == (OBS_SIZE,) and arr.dtype == np.float32


def test_json_and_end_view() -> None:
    rng = random.Random(9)
    state = State(None, 9)
    view = observe(state, 0)
    doc = json.loads(json.dumps(view.to_dict()))
    assert len(doc["hand"]) > 0 and doc["to_act"] is True and doc["drawn"] is not None
    assert observe(state, 1).to_dict()["drawn"] is None
    while not state.is_terminal():
        state.apply(policy(state, rng))
    end = observe(state, 2).to_dict()["end"]
    assert end is not None and sum(end["net"]) == 0 and len(end["hands"]) == 3


def test_own_pass_locks_and_claim_in_view() -> None:
    s = deal("13579m12345678s5p", "123456789m99s68p", "234p567p999p34p11p", head="5p5p")
    s.apply(Action.parse("出5p").id)
    view = observe(s, 2)
    assert view.phase == "claims" and view.claim_tile == 22 and view.to_act
    assert [str(ACTIONS[a]) for a in view.legal] == ["胡", "过"]
    assert observe(s, 1).legal == () and not observe(s, 1).to_act
    s.apply(Action.parse("过").id, 2)
    assert observe(s, 2).locks == (22,)
    assert observe(s, 1).locks == () and observe(s, 0).locks == ()


def test_event_views_hide_what_they_must() -> None:
    s = deal("5555s123m456m78m99s", "1359m2468s13469p", "2469m13678s2479p", tail="1p")
    events = s.apply(Action.parse("暗杠5s").id)
    angang, drew = events
    assert "tile" in angang.view(0) and "tile" not in angang.view(1)  # type: ignore[operator]
    assert "tile" in drew.view(0) and "tile" not in drew.view("public")  # type: ignore[operator]
    dealt = s.events[1]
    assert "tiles" not in dealt.view(0) and "tiles" in dealt.view("all")  # type: ignore[operator]
