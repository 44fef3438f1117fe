"""How much the seat's view tells about *who holds what*: the hidden cards' places, predicted.

``research/regret.py`` finds the search's missing points in knowing which opponent holds which
cards. This experiment asks how much of that any reading of the view could recover. At sampled
decisions of greedy self-play, every hidden card (in the opponents' hands, in their face-down
偎, in the stock) has a true place: the 下家, the 上家 or the stock. Each model gives every
hidden face a probability of each place, and is scored by the log loss of the true places, in
nats per hidden card (an oracle that reads the deal scores 0):

- ``sizes``: each place in proportion to how many hidden cards it has;
- ``sampler``: the frequencies in ``--worlds`` worlds of the search's own sampler
  (``Knowledge.sample``, which already obeys every hard constraint of the view);
- ``learned``: the sampler's log odds plus a logistic correction fitted on the first 80% of the
  hands from features of the view (what each opponent discarded of the face and of its
  neighbours, the claims it passed on it, its melds), scored on the last 20%.

It also splits the sampler's loss into *stock or hand* and *which opponent, given a hand*.

    python research/who_holds.py --hands 300      # about 5 minutes on one core
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import Knowledge
from weimaque.games.maque.bots.greedy import GreedyBot
from weimaque.games.maque.bots.net import Array
from weimaque.games.maque.cards import NUM_FACES, RED_FACES
from weimaque.games.maque.game.state import NUM_SEATS, GameState
from weimaque.games.maque.notation import parse_cards

#: Feature columns of one (face, opponent) pair.
FEATURES = (
    "threw_face",
    "threw_near",
    "chi_banned",
    "peng_banned",
    "meld_near",
    "face_down_wei",
    "face_down_wei_if_3",
    "red",
)
EPS = 1e-3


def places(state: GameState, seat: int) -> Array:
    """True count of each face at the 下家, the 上家 and in the stock (hidden cards only)."""
    out = np.zeros((NUM_FACES, 3))
    for k, s in enumerate(((seat + 1) % NUM_SEATS, (seat - 1) % NUM_SEATS)):
        for f in range(NUM_FACES):
            out[f, k] += state.hands[s][f]
        for m in state.melds[s]:
            if m.face_down:
                out[m.faces[0], k] += 3
    for f in state.stock[state.pos :]:
        out[f, 2] += 1
    return out


def sampler_places(knowledge: Knowledge, worlds: int, rng: random.Random) -> Array:
    """Mean count of each face at each place over sampled deals of the hidden cards."""
    seat = knowledge.seat
    out = np.zeros((NUM_FACES, 3))
    for _ in range(worlds):
        hands, wei, stock = knowledge.deal(rng)
        for k, s in enumerate(((seat + 1) % NUM_SEATS, (seat - 1) % NUM_SEATS)):
            out[:, k] += hands[s]
            for (owner, _), face in wei.items():
                if owner == s:
                    out[face, k] += 3
        for f in stock:
            out[f, 2] += 1
    return out / worlds


def features(view: BotView, hidden: Array) -> Array:
    """``FEATURES`` for every face and both opponents (下家, 上家), from the view alone.

    ``hidden`` is the number of hidden copies of each face, which the view gives
    (``Knowledge.unseen``).
    """
    obs = view.obs.to_json()
    seat = view.seat
    out = np.zeros((NUM_FACES, 2, len(FEATURES)))
    for k, s in enumerate(((seat + 1) % NUM_SEATS, (seat - 1) % NUM_SEATS)):
        row = parse_cards(obs["rows"][s]) if obs["rows"][s] else []
        thrown = np.bincount(row, minlength=NUM_FACES) if row else np.zeros(NUM_FACES)
        bans = obs["bans"][s] or {}
        chi = set(parse_cards(bans["chi"])) if bans.get("chi") else set()
        peng = set(parse_cards(bans["peng"])) if bans.get("peng") else set()
        melded = np.zeros(NUM_FACES)
        down = 0
        for m in obs["melds"][s]:
            if m["cards"]:
                for f in parse_cards(m["cards"]):
                    melded[f] += 1
            elif m["face_down"]:
                down += 1
        for f in range(NUM_FACES):
            near = [
                g for g in range(NUM_FACES) if g != f and g // 10 == f // 10 and abs(g - f) <= 2
            ]
            out[f, k] = (
                thrown[f],
                sum(thrown[g] for g in near),
                float(f in chi),
                float(f in peng),
                sum(melded[g] for g in near),
                down,
                down * float(hidden[f] >= 3),
                float(f in RED_FACES),
            )
    return out


def collect(hands: int, seed: int, worlds: int) -> list[tuple[Array, Array, Array]]:
    """(true places, sampler places, features) at every third real decision of greedy self-play."""
    greedy = GreedyBot()
    rng = random.Random(f"who-holds:{seed}")
    out = []
    for n in range(hands):
        state = GameState.new("anxiang", seed * 10_000 + n, dealer=n % NUM_SEATS)
        step = 0
        while not state.is_terminal():
            seat = state.current_player()
            view = BotView.of(state, seat)
            if step % 3 == 0 and view.obvious() is None:
                knowledge = Knowledge.of(view)
                hidden = np.bincount(knowledge.unseen, minlength=NUM_FACES)
                guess = sampler_places(knowledge, worlds, rng)
                out.append((places(state, seat), guess, features(view, hidden)))
            state.apply(seat, greedy.act(view, rng))
            step += 1
    return out


def _probs(guess: Array) -> Array:
    hidden = guess.sum(axis=1, keepdims=True)
    p = np.where(hidden > 0, guess / np.maximum(hidden, 1e-9), 1 / 3)
    p = p + EPS
    out: Array = p / p.sum(axis=1, keepdims=True)
    return out


def loss(true: Array, p: Array) -> float:
    """Nats per hidden card of the true places under per-face place probabilities ``p``."""
    return float(-(true * np.log(p)).sum())


def fit(data: list[tuple[Array, Array, Array]], steps: int = 300, lr: float = 0.05) -> Array:
    """Weights of the logistic correction (one per feature, shared by both opponents)."""
    true = np.concatenate([t for t, _, _ in data])
    base = np.log(np.concatenate([_probs(g) for _, g, _ in data]))
    x = np.concatenate([f for _, _, f in data])
    scale = x.reshape(-1, x.shape[-1]).std(axis=0) + 1e-9
    x = x / scale
    w = np.zeros(x.shape[-1])
    m, v = np.zeros_like(w), np.zeros_like(w)
    cards = true.sum()
    for t in range(1, steps + 1):
        logits = base.copy()
        logits[:, :2] += x @ w
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        # d(-Σ true·log p)/d logit = p·n − true, with n the face's hidden count
        d = p * true.sum(axis=1, keepdims=True) - true
        g = np.einsum("fk,fkj->j", d[:, :2], x) / cards
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g**2
        w -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    out: Array = w / scale
    return out


def corrected(guess: Array, feats: Array, w: Array) -> Array:
    """The sampler's place probabilities with the fitted correction."""
    logits = np.log(_probs(guess))
    logits[:, :2] += feats @ w
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: Array = p / p.sum(axis=1, keepdims=True)
    return out


def report(data: list[tuple[Array, Array, Array]], w: Array) -> None:
    """Nats per hidden card on ``data`` for each model, and the sampler's loss split."""
    cards = sum(t.sum() for t, _, _ in data)
    sizes = sampler = learned = stock_part = 0.0
    for true, guess, feats in data:
        held = true.sum(axis=0)  # hidden cards at each place
        sizes += loss(true, np.tile((held + EPS) / (held + EPS).sum(), (NUM_FACES, 1)))
        p = _probs(guess)
        sampler += loss(true, p)
        learned += loss(true, corrected(guess, feats, w))
        # stock or hand: the two opponents' probabilities pooled
        two = np.stack([p[:, 0] + p[:, 1], p[:, 2]], axis=1)
        stock_part += loss(np.stack([true[:, 0] + true[:, 1], true[:, 2]], axis=1), two)
    print(f"{len(data)} positions, {int(cards)} hidden cards")
    print(f"  sizes    {sizes / cards:.4f} nats per hidden card")
    print(
        f"  sampler  {sampler / cards:.4f}  (stock or hand {stock_part / cards:.4f},"
        f" which opponent {(sampler - stock_part) / cards:.4f})"
    )
    print(
        f"  learned  {learned / cards:.4f}  ({(sampler - learned) / sampler:.1%} of the sampler's"
        " uncertainty removed; an oracle removes 100%)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=200)
    args = parser.parse_args()
    data = collect(args.hands, args.seed, args.worlds)
    cut = int(len(data) * 0.8)
    w = fit(data[:cut])
    print("weights: " + ", ".join(f"{n} {x:+.3f}" for n, x in zip(FEATURES, w, strict=True)))
    print("fitted on (first 80%):")
    report(data[:cut], w)
    print("held out (last 20%):")
    report(data[cut:], w)


if __name__ == "__main__":
    main()
