"""What the 守醒 may see (RULES §2.1.2, option ``shouxing_sees``): the three hands (``"all"``,
the seeds' "可以看正在游戏的三人手中的牌") or the dealer's only (``"dealer"``, SY's server), never
the stock. Seeded hands played by the greedy bot are checked at every step: the 守醒 who sees
the dealer's hand sees exactly what the dealer's seat sees of the table (no other hand, no
other seat's face-down 偎 or face-down draw, no other seat's private bans), and the one who sees
all three sees every hand and nothing of the stock's order."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from weimaque.cli import app
from weimaque.errors import RuleConfigError
from weimaque.games import get_game
from weimaque.games.maque import MaqueHand
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.cards import faces_str
from weimaque.games.maque.game.events import ShouxingOf, Weied
from weimaque.games.maque.game.observation import settled, shouxing_viewer, view_of
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.match import Match
from weimaque.games.maque.rules.registry import rules_with

GAME = get_game("maque")
ROTATING = {"shouxing": True, "shouxing_rotation": True}


def test_the_option_and_its_values() -> None:
    """RULES §2.1.2: ``"all"`` (default) or ``"dealer"``; anything else is refused, quoted; it
    means something only where a 守醒 sits, so elsewhere it keeps its default."""
    assert rules_with("anxiang", {"shouxing": True}).shouxing_sees == "all"
    spec = GAME.schema.spec("shouxing_sees")
    assert spec.type == "choice" and spec.choices == ("all", "dealer") and spec.default == "all"
    with pytest.raises(RuleConfigError, match="'behind'"):
        rules_with("anxiang", {"shouxing": True, "shouxing_sees": "behind"})
    with pytest.raises(RuleConfigError, match="shouxing_sees"):
        rules_with("anxiang", {"shouxing_sees": "dealer"})
    rules_with("anxiang", {**ROTATING, "shouxing_sees": "dealer"})


def _hands(seed: int, options: dict[str, object], dealer: int = 0) -> MaqueHand:
    return GAME.new_hand("anxiang", options, seed, dealer)


def _play(hand: MaqueHand, seed: int) -> list[GameState]:
    """Play the hand out with the greedy bot; the position before each action and the end."""
    bot = get_bot("greedy")
    rng = random.Random(seed)
    state = hand.state
    positions = [state.copy()]
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(seat, bot.act(BotView.of(state, seat), rng))
        positions.append(state.copy())
    return positions


def test_all_sees_the_three_hands_and_no_stock() -> None:
    """``"all"``: the 守醒's view holds each seat's hand (RULES §2.1), every face-down 偎 and
    every seat's complete bans; nothing in it names the stock's cards."""
    hand = _hands(11, {"shouxing": True})
    view = hand.view("shouxing").to_json()
    state = hand.state
    assert view["viewer"] == "shouxing"
    assert view["hands"] == [faces_str(state.hand_faces(s)) for s in range(3)]
    assert "stock" not in view and "hand" not in view and "legal_actions" not in view
    assert all(b["peng"] is not None for b in view["bans"])


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_dealer_sees_the_dealers_hand_only(dealer: int) -> None:
    """``"dealer"`` (RULES §2.1.2): the dealer's hand, the others' None; the dealt events show
    the dealer's cards only. Without rotation the dealer moves round the three seats, and the
    守醒 follows him."""
    hand = _hands(11, {"shouxing": True, "shouxing_sees": "dealer"}, dealer)
    view = hand.view("shouxing").to_json()
    hands = view["hands"]
    assert view["viewer"] == "shouxing"
    assert hands[dealer] == faces_str(hand.state.hand_faces(dealer))
    assert [h for s, h in enumerate(hands) if s != dealer] == [None, None]
    events = [e.view(GAME.event_viewer(hand, "shouxing")) for e in hand.events()]
    dealt = {e["seat"]: e for e in events if e is not None and e["type"] == "dealt"}
    assert "cards" in dealt[dealer]
    assert all("cards" not in e for s, e in dealt.items() if s != dealer)
    assert [b["peng"] is None for b in view["bans"]] == [s != dealer for s in range(3)]


def _without_own(view: dict[str, object]) -> dict[str, object]:
    """A seat's view less what only an actor has (its hand, decision and viewer)."""
    return {k: v for k, v in view.items() if k not in ("viewer", "hand", "to_act", "legal_actions")}


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6, 7, 8])
def test_dealer_sees_what_the_dealers_seat_sees_at_every_step(seed: int) -> None:
    """Hidden information (RULES §2.1.2, §4.3): at every step of a played hand, the 守醒 who
    sees the dealer's hand is shown exactly the dealer seat's table (melds, face-down 偎, claim,
    rows, bans) and the dealer's hand, and each event as the dealer sees it; the one who sees
    all three is shown each seat's hand. Hands where a non-dealer 偎s face down are among them."""
    options = {**ROTATING, "shouxing_sees": "dealer"}
    hand = _hands(seed, options)
    positions = _play(hand, seed)
    for state in positions:
        dealer = state.dealer
        sx = view_of(state, "shouxing").to_json()
        seat = view_of(state, dealer).to_json()
        assert _without_own(sx) == {**_without_own(seat), "hands": sx["hands"]}
        assert sx["hands"][dealer] == seat["hand"]
        assert all(h is None for s, h in enumerate(sx["hands"]) if s != dealer)
        assert settled(state, "shouxing") == settled(state, dealer)
    viewer = GAME.event_viewer(hand, "shouxing")
    assert viewer == ShouxingOf((0,))
    for event in hand.events():
        assert event.view(viewer) == event.view(0)


def test_a_non_dealers_face_down_wei_is_hidden_from_the_dealer_only_shouxing() -> None:
    """RULES §4.3 with §2.1.2: a 偎 face down at seat 1 or 2 shows its cards to the 守醒 who sees
    all three, and not to the one who sees the dealer's hand only (as a spectator sees it)."""
    found = 0
    for seed in range(1, 60):
        hand = _hands(seed, {**ROTATING, "shouxing_sees": "dealer"})
        _play(hand, seed)
        weis = [e for e in hand.events() if isinstance(e, Weied) and e.seat != 0]
        if not weis:
            continue
        found += 1
        owner = weis[0].seat
        dealer_only = GAME.event_viewer(hand, "shouxing")
        assert "card" not in weis[0].view(dealer_only)
        assert "card" in weis[0].view("shouxing")
        state = hand.state
        hidden = view_of(state, ShouxingOf((0,))).to_json()["melds"][owner]
        shown = view_of(state, "all").to_json()["melds"][owner]
        assert any(m["cards"] is None for m in hidden)
        assert all(m["cards"] is not None for m in shown)
        if found == 3:
            break
    assert found == 3


def test_the_dealer_only_shouxing_waits_as_the_dealer_waits() -> None:
    """docs/protocol.md §2.3: in a claim window the dealer has no option in, the 守醒 who sees
    only the dealer's hand is held like the dealer (else the wait would tell him another seat
    may claim); the one who sees all three is never held."""
    checked = 0
    for seed in range(1, 30):
        hand = _hands(seed, {**ROTATING, "shouxing_sees": "dealer"})
        for state in _play(hand, seed):
            if state.phase == "claim" and not state._must_act(0):
                assert not settled(state, "shouxing")
                all_rules = rules_with("anxiang", ROTATING)
                other = state.copy()
                other.rules = all_rules
                assert shouxing_viewer(other) == "shouxing" and settled(other, "shouxing")
                checked += 1
        if checked >= 3:
            break
    assert checked >= 3


def test_wmq_replay_as_the_dealer_only_shouxing_shows_the_dealers_hand_only(
    tmp_path: Path,
) -> None:
    """``wmq replay --seat shouxing`` shows the 守醒 what the hand's ``shouxing_sees`` lets him
    (RULES §2.1.2): under ``"dealer"`` the dealer's dealt cards, and no other seat's; the dealer
    moves with the hands, and so do the cards shown."""
    rules = rules_with("anxiang", {"shouxing": True, "shouxing_sees": "dealer", "match_hands": 3})
    match = Match.new(rules, 5)
    rng = random.Random(1)
    while not match.is_over():
        state = match.start_hand()
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        match.finish_hand()
    save = tmp_path / "match.json"
    save.write_text(json.dumps(match.record(), ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(save), "--all", "--seat", "shouxing"])
    assert result.exit_code == 0, result.output
    dealt = re.findall(r"^座(\d)( \(庄\))? 起手 (\d+) 张(: \S+)?$", result.stdout, re.M)
    assert len(dealt) == 3 * 3
    for _seat, dealer, _count, cards in dealt:
        assert bool(cards) == bool(dealer), dealt
    assert len({seat for seat, dealer, _c, _x in dealt if dealer}) > 1  # the dealer moved
