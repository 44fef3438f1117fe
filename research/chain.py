"""Worlds that *read* the opponents' play: a Metropolis chain over the hidden deal.

An experiment, not part of the product (``mcts`` deals its worlds uniformly,
:meth:`weimaque.games.maque.bots.determinize.Knowledge.worlds`; the chain cost 3.2 points per hand
over 1,200 hands, bots-log.md). :func:`worlds` gives the states of a chain that swaps a card between
an opponent's hand and the other opponent's or the stock and accepts by the change of ``weigh``, a
log-likelihood of what each opponent did given its sampled hand (``inference.seat_loglik``, which
walks the hand back through ``inference.outflow``), so hands that explain the opponents'
discards come up more often.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator

from weimaque.games.maque.bots.determinize import Knowledge
from weimaque.games.maque.cards import NUM_FACES, faces_of
from weimaque.games.maque.game.state import NUM_SEATS, GameState

#: A log-likelihood of one opponent's play so far given its sampled concealed hand of now and the
#: deal's face-down 偎 faces: ``weigh(knowledge, seat, hand, wei_faces)``.
Weigh = Callable[[Knowledge, int, list[int], dict[tuple[int, int], int]], float]


def worlds(
    k: Knowledge, rng: random.Random, weigh: Weigh, burn: int = 200, thin: int = 10
) -> Iterator[GameState]:
    """States without end of a Metropolis chain over the hidden deal whose stationary law is the
    uniform one weighted by ``exp`` of the opponents' log-likelihoods (see :class:`Chain`), one
    state after ``burn`` steps and then one every ``thin`` steps."""
    chain = Chain(k, rng, weigh)
    chain.run(burn)
    while True:
        yield chain.world()
        chain.run(thin)


class Chain:
    """A Metropolis chain over the deals of the hidden cards (see :func:`worlds`).

    A step picks a random card of a random opponent and a random card of the other opponent's
    hand or of the stock (each with probability one half) and proposes to swap them: a symmetric
    proposal that keeps every hand's size, so the uniform law over deals is the prior. A swap that
    would break a constraint of :meth:`Knowledge.deal` (an opponent holding two of a face
    it turned up without 偎) is refused; otherwise it is accepted with probability
    ``min(1, exp(change of the log-likelihood))``. One step in five (when an opponent has a
    face-down 偎) instead proposes a new face for one such 偎 among the faces with three copies in
    the stock, the 偎's three cards traded with those three, accepted by the Metropolis-Hastings
    ratio: :meth:`_wei_prior` (the law in which :meth:`Knowledge.deal` deals the 偎 faces
    and the rest), the likelihoods, and the proposal's own asymmetry.
    """

    def __init__(self, k: Knowledge, rng: random.Random, weigh: Weigh) -> None:
        hands, wei_faces, stock = k.deal(rng)
        self.k = k
        self.rng = rng
        self.weigh = weigh
        self.hands = hands
        self.wei_faces = wei_faces
        self.stock = [0] * NUM_FACES
        for f in stock:
            self.stock[f] += 1
        self.opponents = [s for s in range(NUM_SEATS) if s != k.seat]
        self.ll = {s: weigh(k, s, hands[s], wei_faces) for s in self.opponents}
        self.unseen = [0] * NUM_FACES
        for f in k.unseen:
            self.unseen[f] += 1
        #: the face-down 偎 slots, in the order :meth:`Knowledge.deal` deals their faces
        self.face_down = sorted(wei_faces)

    def _wei_prior(self) -> float:
        """Log of the dealing law's terms that a 偎 face changes: each 偎 face is drawn among the
        faces with three copies left (``1/|ok|``), then the rest are shuffled (a multinomial in
        which the stock's counts and the cards left after the 偎 appear)."""
        pool = list(self.unseen)
        total = 0.0
        for key in self.face_down:
            barred = self.k.drew_up[key[0]]
            ok = sum(1 for f, n in enumerate(pool) if n >= 3 and f not in barred)
            total -= math.log(max(1, ok))
            pool[self.wei_faces[key]] -= 3
        for f in range(NUM_FACES):
            total += math.lgamma(pool[f] + 1) - math.lgamma(self.stock[f] + 1)
        return total

    def _wei_faces_open(self, s: int, face: int) -> list[int]:
        """Faces that a face-down 偎 of ``s`` now of ``face`` may become: three in the stock."""
        barred = self.k.drew_up[s]
        return [g for g, n in enumerate(self.stock) if n >= 3 and g != face and g not in barred]

    def _wei_move(self) -> None:
        rng = self.rng
        key = rng.choice(self.face_down)
        s = key[0]
        f = self.wei_faces[key]
        forward = self._wei_faces_open(s, f)
        if not forward:
            return
        g = rng.choice(forward)
        before = self._wei_prior()
        self.stock[g] -= 3
        self.stock[f] += 3
        self.wei_faces[key] = g
        backward = self._wei_faces_open(s, g)  # f is among them: its three cards are back
        new_s = self.weigh(self.k, s, self.hands[s], self.wei_faces)
        change = self._wei_prior() - before + new_s - self.ll[s]
        change += math.log(len(forward)) - math.log(len(backward))  # Hastings: the proposal
        if change >= 0 or rng.random() < math.exp(change):
            self.ll[s] = new_s
        else:
            self.stock[g] += 3
            self.stock[f] -= 3
            self.wei_faces[key] = f

    def _pick(self, counts: list[int], size: int) -> int:
        i = self.rng.randrange(size)
        for f, n in enumerate(counts):
            if i < n:
                return f
            i -= n
        raise AssertionError("a count vector smaller than its size")

    def run(self, steps: int) -> None:
        k = self.k
        rng = self.rng
        for _ in range(steps):
            if self.face_down and rng.random() < 0.2:
                self._wei_move()
                continue
            s = rng.choice(self.opponents)
            size_s = k.hand_sizes[s]
            other = self.opponents[0] if s == self.opponents[1] else self.opponents[1]
            t = other if rng.random() < 0.5 else -1
            pool = self.hands[t] if t >= 0 else self.stock
            size_t = k.hand_sizes[t] if t >= 0 else k.stock_left
            if not size_s or not size_t:
                continue
            hand = self.hands[s]
            f = self._pick(hand, size_s)
            g = self._pick(pool, size_t)
            if f == g or (g in k.drew_up[s] and hand[g] >= 1):
                continue
            if t >= 0 and f in k.drew_up[t] and pool[f] >= 1:
                continue
            hand[f] -= 1
            hand[g] += 1
            pool[g] -= 1
            pool[f] += 1
            new_s = self.weigh(k, s, hand, self.wei_faces)
            change = new_s - self.ll[s]
            new_t = 0.0
            if t >= 0:
                new_t = self.weigh(k, t, pool, self.wei_faces)
                change += new_t - self.ll[t]
            if change >= 0 or rng.random() < math.exp(change):
                self.ll[s] = new_s
                if t >= 0:
                    self.ll[t] = new_t
            else:
                hand[f] += 1
                hand[g] -= 1
                pool[g] += 1
                pool[f] -= 1

    def world(self) -> GameState:
        """The chain's current deal as a state, the stock in a fresh random order."""
        stock = faces_of(self.stock)
        self.rng.shuffle(stock)
        hands = [list(h) for h in self.hands]
        hands[self.k.seat] = list(self.k.hand)
        return self.k.build(hands, dict(self.wei_faces), stock)
