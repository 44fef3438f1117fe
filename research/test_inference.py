"""Reading the opponents' play (research/inference.py, research/chain.py): outflow, the likelihood
and the chain."""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass

import pytest

import chain
import inference
from inference import seat_loglik
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import Knowledge
from weimaque.games.maque.bots.policy import discard_values
from weimaque.games.maque.cards import NUM_FACES
from weimaque.games.maque.game.invariants import check_step
from weimaque.games.maque.game.observation import observation
from weimaque.games.maque.game.state import NUM_SEATS, GameState


@dataclass(frozen=True)
class Position:
    """A seat's view in greedy self-play, with the hidden truth kept aside for checking."""

    view: BotView
    hands: list[list[int]]
    wei: dict[tuple[int, int], int]
    dealt: list[list[int]]


def _wei_faces(state: GameState) -> dict[tuple[int, int], int]:
    return {
        (s, i): m.faces[0]
        for s in range(NUM_SEATS)
        for i, m in enumerate(state.melds[s])
        if m.kind == "wei"
    }


@pytest.fixture(scope="module")
def positions() -> list[Position]:
    """Every third decision of eight hands of greedy self-play."""
    greedy = get_bot("greedy")
    out: list[Position] = []
    for seed in range(8):
        state = GameState.new("anxiang", 900 + seed, dealer=seed % 3)
        rng = random.Random(seed)
        dealt = [[0] * NUM_FACES for _ in range(NUM_SEATS)]
        for s in range(NUM_SEATS):
            for f in state.initial_hands[s]:
                dealt[s][f] += 1
        step = 0
        while not state.is_terminal():
            seat = state.current_player()
            view = BotView.of(state, seat)
            if step % 3 == 0:
                hands = [list(h) for h in state.hands]
                out.append(Position(view, hands, _wei_faces(state), dealt))
            state.apply(seat, greedy.act(view, rng))
            step += 1
    return out


def test_outflow_walks_every_hand_back_to_the_deal(positions: list[Position]) -> None:
    """A seat's hand now plus everything that left it is its dealt hand (RULES §3.1.1)."""
    checked = 0
    for p in positions:
        gone = inference.outflow(p.view)
        for s in range(NUM_SEATS):
            if s == p.view.seat:
                continue
            hand = list(p.hands[s])
            for out in reversed(gone[s]):
                if out.discard is not None:
                    hand[out.discard] += 1
                else:
                    for f in out.taken or (p.wei[(s, out.meld)],) * 2:
                        hand[f] += 1
            assert hand == p.dealt[s]
            checked += 1
    assert checked > 150


def test_the_true_hands_never_make_an_impossible_discard(
    positions: list[Position], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walked back, the real hands held every discarded face, never as a 砍, never banned."""
    monkeypatch.setattr(inference, "_IMPOSSIBLE", -1e6)
    scored = 0
    for p in positions:
        k = Knowledge.of(p.view)
        for s in range(NUM_SEATS):
            if s != p.view.seat and inference.outflow(p.view)[s]:
                ll = seat_loglik(k, s, list(p.hands[s]), p.wei)
                assert -1e5 < ll <= 0.0
                scored += 1
    assert scored > 100


def test_the_chain_keeps_every_world_valid_and_explains_the_discards_better(
    positions: list[Position],
) -> None:
    """Chain worlds obey every invariant and the seat's view, and their hands explain the
    opponents' discards better than independently dealt ones."""
    gains = []
    for n, p in enumerate(positions[::3]):
        view = p.view
        seat = view.seat
        k = Knowledge.of(view)
        chained = chain.worlds(k, random.Random(n), seat_loglik, burn=60, thin=5)
        plain = k.worlds(random.Random(n))
        lls: dict[str, list[float]] = {"chain": [], "plain": []}
        for _ in range(4):
            for name, stream in (("chain", chained), ("plain", plain)):
                world = next(stream)
                assert check_step(world) == []
                assert observation(world, seat) == view.obs.to_json()
                assert world.legal_actions(seat) == list(view.legal)
                wei = _wei_faces(world)
                lls[name].append(
                    sum(
                        seat_loglik(k, s, world.hands[s], wei)
                        for s in range(NUM_SEATS)
                        if s != seat
                    )
                )
        gains.append(statistics.mean(lls["chain"]) - statistics.mean(lls["plain"]))
    assert len(gains) > 20
    assert statistics.mean(gains) > 5.0  # nats: the chain finds hands that fit the discards


def test_the_discard_model_is_the_policys_softmax() -> None:
    """``_discard_logp`` is the log-softmax of :func:`discard_values` (its fast form)."""
    rng = random.Random(1)
    deck = [f for f in range(NUM_FACES) for _ in range(4)]
    for _ in range(500):
        hand = [0] * NUM_FACES
        for card in rng.sample(deck, 14):
            hand[card] += 1
        faces = [g for g in range(NUM_FACES) if hand[g] and hand[g] != 3]
        f = rng.choice(faces)
        n = rng.randrange(3)
        mxi = float(rng.randrange(8))
        values = discard_values(hand, faces, n, mxi, 10)
        top = max(v for v, _ in values)
        log_z = math.log(sum(math.exp(12.0 * (v - top)) for v, _ in values))
        expected = 12.0 * (next(v for v, g in values if g == f) - top) - log_z
        assert inference._discard_logp(hand, faces, f, n, mxi, 10, 12.0) == pytest.approx(expected)


def test_the_chain_redraws_face_down_wei_faces(positions: list[Position]) -> None:
    """A face-down 偎's face is hidden, so the chain's worlds must not all share one guess of it:
    where uniform sampling gives it several faces over a decision's worlds, so does the chain in
    most positions (it moves a 偎 only to a face with three copies in the stock; RULES §4.3)."""
    varied = agreed = 0
    for n, p in enumerate(positions):
        k = Knowledge.of(p.view)
        hidden = [
            (s, i)
            for s in range(NUM_SEATS)
            if s != p.view.seat
            for i, slot in enumerate(k.melds[s])
            if slot.faces is None
        ]
        if not hidden:
            continue
        s, i = hidden[0]
        seen: dict[str, set[int]] = {"uniform": set(), "chain": set()}
        streams = {
            "uniform": k.worlds(random.Random(n)),
            "chain": chain.worlds(k, random.Random(n), lambda *_: 0.0, burn=20, thin=5),
        }
        for name, stream in streams.items():
            for _ in range(40):
                seen[name].add(next(stream).melds[s][i].faces[0])
        if len(seen["uniform"]) > 1:
            varied += 1
            agreed += len(seen["chain"]) > 1
    assert varied > 10
    assert agreed >= 0.7 * varied
