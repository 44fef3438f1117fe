"""The experiments' worlds (research/_truth.py), the regret experiment (research/regret.py) and
the analyses of research/net_labels.py, who_holds.py and decline_hu.py.

The worlds are built from the true state, for measuring what information is worth; they are never
players. What they must get right: each world knows exactly what its name says, and nothing is
lost or invented (every card accounted for, the seat's own view unchanged).

Run with ``python -m pytest research/``; ``make test`` does not collect it.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

from weimaque.games.maque.analysis.decompose import completions
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import Knowledge
from weimaque.games.maque.cards import NUM_FACES
from weimaque.games.maque.game.invariants import check_step
from weimaque.games.maque.game.observation import observation
from weimaque.games.maque.game.state import NUM_SEATS, GameState

RESEARCH = Path(__file__).parent


def _load(name: str) -> ModuleType:
    if str(RESEARCH) not in sys.path:
        sys.path.insert(0, str(RESEARCH))
    spec = importlib.util.spec_from_file_location(name, RESEARCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _positions(hands: int) -> list[tuple[GameState, int, BotView]]:
    """Every fifth decision of seeded greedy self-play (copies of the true state)."""
    greedy = get_bot("greedy")
    out = []
    for n in range(hands):
        state = GameState.new("anxiang", 8100 + n, dealer=n % NUM_SEATS)
        rng = random.Random(n)
        step = 0
        while not state.is_terminal():
            seat = state.current_player()
            view = BotView.of(state, seat)
            if step % 5 == 0:
                out.append((state.copy(), seat, view))
            state.apply(seat, greedy.act(view, rng))
            step += 1
    return out


def _stock(state: GameState) -> Counter[int]:
    return Counter(state.stock[state.pos :])


def _held(state: GameState, seats: list[int]) -> Counter[int]:
    """The concealed cards of ``seats``, together."""
    return Counter(f for s in seats for f in range(NUM_FACES) for _ in range(state.hands[s][f]))


def test_truth_worlds_are_the_true_state_with_the_stock_reshuffled() -> None:
    truth = _load("_truth")
    rng = random.Random(1)
    for state, seat, view in _positions(3):
        world = next(truth.truth(lambda _, st=state: st).of(view).worlds(rng))
        assert world.hands == state.hands
        assert world.melds == state.melds
        assert _stock(world) == _stock(state)
        assert world.phase == state.phase and world.turn == state.turn
        assert observation(world, seat) == view.obs.to_json()


def test_stock_truth_knows_the_stock_but_not_who_holds_what() -> None:
    truth = _load("_truth")
    rng = random.Random(2)
    moved = 0
    for state, seat, view in _positions(3):
        opponents = [s for s in range(NUM_SEATS) if s != seat]
        held = _held(state, opponents)
        stand_in = truth.stock_truth(lambda _, st=state: st).of(view)
        worlds = stand_in.worlds(rng)
        for _ in range(3):
            world = next(worlds)
            assert check_step(world) == []
            assert observation(world, seat) == view.obs.to_json()
            assert not stand_in.k.mismatch  # the seat's own options are its view's
            assert world.hands[seat] == state.hands[seat]
            assert _stock(world) == _stock(state)
            assert [m.faces for s in opponents for m in world.melds[s]] == [
                m.faces for s in opponents for m in state.melds[s]
            ]
            assert _held(world, opponents) == held
            moved += any(world.hands[s] != state.hands[s] for s in opponents)
    assert moved > 10  # the opponents' cards really are dealt between them anew


def test_wait_match_is_zero_only_for_the_real_waits() -> None:
    truth = _load("_truth")
    checked = 0
    for state, seat, view in _positions(4):
        weigh = truth.wait_match(lambda _, st=state: st)
        k = Knowledge.of(view)
        for s in range(NUM_SEATS):
            if s == seat:
                continue
            real = state.hands[s]
            assert weigh(k, s, list(real), {}) == 0.0
            if completions(tuple(real)):
                other = k.sample(random.Random(s)).hands[s]
                same = set(completions(tuple(other))) == set(completions(tuple(real)))
                assert (weigh(k, s, other, {}) == 0.0) == same
                checked += 1
    assert checked > 0


def test_regret_positions_rate_every_choice_against_the_best() -> None:
    regret = _load("regret")
    specs = ["mcts:iters=12;keep=2", "oracle:mcts:iters=12;keep=2", "stock:mcts:iters=12"]
    recs = regret.positions((0, specs, 5000, 6))
    assert recs, "no position rated"
    for rec in recs:
        for name in ("greedy", *specs):
            assert rec[name] >= -1e-9  # the best candidate's mean is at least the choice's
            assert name == "greedy" or rec["ms " + name] >= 0.0
    assert any(rec[name] == 0.0 for rec in recs for name in specs)


def test_net_labels_reading_depends_on_the_view_only() -> None:
    labels = _load("net_labels")
    checked = 0
    for _state, seat, view in _positions(4):
        legal = list(view.legal)
        cols = labels.reading(view, legal)
        assert cols.shape == (len(legal), len(labels.READING))
        for a, row in zip(legal, cols, strict=True):
            if a.kind != "discard":
                assert not row.any()  # claims show no face of their own here
        # any deal behind the same view reads the same
        world = Knowledge.of(view).sample(random.Random(seat))
        assert (labels.reading(BotView.of(world, seat), legal) == cols).all()
        checked += int(any(a.kind == "discard" for a in legal))
    assert checked > 5


def test_net_labels_rate_candidates_against_greedys_move() -> None:
    labels = _load("net_labels")
    state, seat, view = next(
        (s, t, v) for s, t, v in _positions(2) if len(v.legal) > 2 and v.obvious() is None
    )
    legal = list(view.legal)
    rated = labels.rate(state, seat, legal, legal[0], 6, random.Random(3))
    assert set(rated) == set(legal)
    assert rated[legal[0]] == (0.0, 0.0)  # greedy's move against itself
    assert rated == labels.rate(state, seat, legal, legal[0], 6, random.Random(3))


def test_net_labels_fit_finds_a_gain_the_features_predict() -> None:
    import numpy as np

    from train_phases import Advantages

    labels = _load("net_labels")
    gen = np.random.default_rng(0)
    data = Advantages([], [], [], [])
    for _ in range(300):
        x = gen.normal(size=(3, 4))
        gains = 5.0 * (x[:, 0] - x[0, 0])  # the first column is all there is to know
        data.rows.append(x)
        data.base.append(0)
        data.gains.append(gains)
        data.ses.append(np.ones(3))
    w = labels.ridge(data.rows, data, 0.01)
    assert abs(w[0] - 5.0) < 0.5 and np.abs(w[1:]).max() < 0.5
    mean, se, departures = labels.evaluate([x @ w for x in data.rows], data, 0.0)
    assert departures > 150 and mean > 3.0 and se > 0
    # a margin no prediction reaches keeps greedy's move everywhere: no gain, no loss
    assert labels.evaluate([x @ w for x in data.rows], data, 1e9)[:3:2] == (0.0, 0)


def test_who_holds_accounts_for_every_hidden_card() -> None:
    import numpy as np

    who = _load("who_holds")
    for state, seat, view in _positions(3)[::3]:
        knowledge = Knowledge.of(view)
        true = who.places(state, seat)
        guess = who.sampler_places(knowledge, 20, random.Random(seat))
        # the same hidden cards, face by face, in the deal and in the sampler's worlds
        hidden = np.bincount(knowledge.unseen, minlength=NUM_FACES)
        assert (true.sum(axis=1) == hidden).all()
        assert np.allclose(guess.sum(axis=1), hidden)
        assert true[:, 2].sum() == len(state.stock) - state.pos
        # the features read the view only: any deal behind it reads the same
        world = knowledge.sample(random.Random(7))
        assert (who.features(BotView.of(world, seat), hidden) == who.features(view, hidden)).all()
        assert who.loss(true, who._probs(true)) < who.loss(true, who._probs(guess)) + 1e-9


def test_decline_hu_rates_every_offered_win(monkeypatch: Any, capsys: Any) -> None:
    decline = _load("decline_hu")
    argv = ["decline_hu.py", "--hands", "6", "--rollouts", "8", "--bots", "mcts:iters=40"]
    monkeypatch.setattr(sys, "argv", argv)
    decline.main()
    out = capsys.readouterr().out
    offers = int(out.split("hands of greedy self-play, ")[1].split()[0])
    assert offers > 0  # six hands offer some 胡 beside a 碰, 吃 or pass
    assert "mcts:iters=40: declines" in out and "per offered 胡" in out


def test_sdg_local_oracle_rates_greedys_choice_among_the_candidates(capsys: Any) -> None:
    oracle = _load("sdg_local_oracle")
    claims = list(oracle.positions("claim", range(40, 44), 0))
    assert claims and all(oracle.PENG in c or oracle.GANG in c for _, _, _, c in claims)
    for kind in ("claim", "discard"):
        st, seat, greedy, cands = next(oracle.positions(kind, range(200, 201), 2))
        assert greedy in cands and len(cands) > 1
        assert set(cands) <= set(st.legal_actions(seat))
        before = (list(st.wall), [list(h) for h in st.hands])
        outs = oracle.rate(st, seat, cands, 3, 0)
        assert {len(v) for v in outs.values()} == {3}
        assert (list(st.wall), [list(h) for h in st.hands]) == before  # the position untouched
        # the same shuffles: a candidate rated twice gets the same points
        assert oracle.rate(st, seat, cands[:1], 3, 0)[cands[0]] == outs[cands[0]]
    # a world dealt from the seat's view holds the seat's own tiles
    st, seat, _, cands = next(oracle.positions("discard", range(200, 201), 2))
    world = oracle.Knowledge.of(oracle.observe(st, seat), st.rules).sample(random.Random(1))
    assert world.hands[seat] == st.hands[seat]
    for choose in ("true", "view"):
        oracle.discards(range(200, 201), 2, 1, choose)
        out = capsys.readouterr().out
        assert "close calls in 1 hands" in out and "measured on 2 true-state shuffles" in out
