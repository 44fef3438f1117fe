"""Determinization: a full ``GameState`` consistent with what one seat knows (information sets).

``Knowledge.of(view)`` reads a :class:`~weimaque.games.maque.bots.base.BotView` once: the seat's
hand, every visible meld with its owner and source, the discard rows, the stock count, the 死手
flags, the open claim window, and what the seat's own event history tells (faces each seat discarded
or released → ``thrown``, 碰/吃 claims → ``no_discard``, 死手 skips, its own declined 胡). The
hidden cards — 80 minus everything the seat can see — are the opponents' concealed hands (sizes
known), their face-down 偎 (three of one face each) and the stock (size known).

``Knowledge.sample(rng)`` deals the hidden cards at random, under constraints any real deal obeys:

- an opponent who turned up a face from the stock without 偎 held fewer than two of it then, and
  hands only shrink (RULES §3.1.1), so it holds at most one now and cannot 偎 that face later;
- a face-down 偎 is three of one face with at least three copies unseen (RULES §4.3).

``Knowledge.worlds(rng)`` is an endless stream of such samples, each drawn independently.
:meth:`Knowledge.deal` (the hidden cards only) and :meth:`Knowledge.build` (the state of a deal)
let other samplers reuse the parts (research/chain.py's Metropolis chain over the hidden deal).

It then builds the state without replaying (``GameState.position``), derives each
seat's 碰-过张 (RULES §5.3: a 碰 window on X went by while the seat held two X; since hands only
shrink, holding two now means it held two then) and reopens the claim window with each seat's
options computed by the engine's own checks. The opponents' declined-胡 flags are unknown and left
unset (they only matter for 蛰一蛰 and 啫啫胡). The seat's own options always equal ``view.legal``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.history import (
    Chi,
    Dead,
    DeclinedHu,
    Discard,
    Draw,
    Peng,
    Release,
    Wei,
)
from weimaque.games.maque.cards import NUM_FACES, faces_of
from weimaque.games.maque.game.observation import ClaimView
from weimaque.games.maque.game.state import (
    ASK_ORDERS,
    HU,
    PASS,
    GameState,
    Origin,
    TableMeld,
    Window,
    buried_size,
    win_check,
)
from weimaque.games.maque.notation import MeldKind

#: Attempts at a constrained deal before the constraints on opponents' hands are dropped.
_DEAL_TRIES = 20


@dataclass(slots=True)
class _MeldSlot:
    """A meld in table order: known faces, or a face-down 偎 whose face is to be sampled."""

    kind: MeldKind
    faces: tuple[int, int, int] | None
    card: int | None
    from_seat: int
    face_down: bool


#: A deal of the hidden cards: opponents' hands (count vectors), 偎 faces by (seat, meld index),
#: and the stock.
Deal = tuple[list[list[int]], dict[tuple[int, int], int], list[int]]


@dataclass(slots=True)
class Knowledge:
    """Everything one seat knows about the hand, read from its :class:`BotView`."""

    view: BotView
    seat: int
    hand: list[int]
    hand_sizes: list[int]
    melds: list[list[_MeldSlot]]
    rows: list[list[int]]
    thrown: list[set[int]]
    #: per seat, the faces it released (RULES §2.5.4)
    released: list[set[int]]
    no_discard: list[set[int]]
    skipped: list[int]
    dead: list[bool]
    declined: bool
    #: a bit per face on which the seat declined a 胡 this hand (啫啫胡, RULES §7.4.4)
    declined_faces: int
    #: per seat, faces it turned up from the stock without 偎 (at most one held now)
    drew_up: list[set[int]]
    #: per seat, faces of closed 碰 windows on another seat's card (candidates for 碰-过张)
    peng_seen: list[set[int]]
    unseen: list[int]
    stock_left: int
    phase: str
    turn: int
    claim: ClaimView | None
    claim_card: int | None
    #: per seat, the faces drawn face up (and the drawer) since its hand last changed: each was
    #: offered to it for 胡 and not won on (RULES §4.7)
    passed: list[list[tuple[int, int]]]
    #: whether the last sample's own options differed from ``view.legal`` (a bug if ever True)
    mismatch: bool = False
    #: the buried cards of the last deal of the hidden cards (RULES §2.5.2: two players, 埋牌)
    buried: tuple[int, ...] = ()

    @staticmethod
    def of(view: BotView) -> Knowledge:
        """Read a seat's view and event history once (no hidden information is touched)."""
        obs = view.obs
        seat = view.seat
        hand = list(view.hand())
        n = view.rules.players  # RULES §2.5
        melds: list[list[_MeldSlot]] = [[] for _ in range(n)]
        thrown: list[set[int]] = [set() for _ in range(n)]
        released: list[set[int]] = [set() for _ in range(n)]
        no_discard: list[set[int]] = [set() for _ in range(n)]
        skipped = [0] * n
        drew_up: list[set[int]] = [set() for _ in range(n)]
        peng_seen: list[set[int]] = [set() for _ in range(n)]
        declined = False
        declined_faces = 0
        passed: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        history = view.history
        claim = obs.claim
        open_claim = obs.phase == "claim" and claim is not None
        last_index = len(history) - 1
        for i, ev in enumerate(history):
            s = ev.seat
            if isinstance(ev, Discard | Release):
                face = ev.card
                if isinstance(ev, Discard):
                    passed[s] = []
                # The open window's card enters ``thrown`` only when it closes (state._resolve).
                if not (open_claim and i == last_index):
                    thrown[s].add(face)
                    if isinstance(ev, Release):
                        released[s].add(face)
                    else:
                        for q in range(n):
                            if q != s:
                                peng_seen[q].add(face)
            elif isinstance(ev, Draw):
                is_wei = i < last_index and isinstance(history[i + 1], Wei)
                if not is_wei and ev.card is not None:
                    face = ev.card
                    drew_up[s].add(face)
                    if not (open_claim and i == last_index):
                        for q in range(n):
                            passed[q].append((face, s))
                            if q != s:
                                peng_seen[q].add(face)
            elif isinstance(ev, Wei):
                card = ev.card
                faces = None if card is None else (card, card, card)
                passed[s] = []
                melds[s].append(_MeldSlot("wei", faces, card, s, faces is None or s == seat))
            elif isinstance(ev, Peng):
                face = ev.card
                passed[s] = []
                melds[s].append(_MeldSlot("peng", (face,) * 3, face, ev.from_seat, False))
                no_discard[s].add(face)
            elif isinstance(ev, Chi):
                face = ev.card
                passed[s] = []
                melds[s].append(_MeldSlot("chi", ev.faces, face, ev.from_seat, False))
                no_discard[s].add(face)
            elif isinstance(ev, Dead):
                skipped[s] += 1
            elif isinstance(ev, DeclinedHu) and s == seat:
                declined = True
                declined_faces |= 1 << ev.card
        # A 偎's face_down flag follows the table, not the viewer: the observation says which.
        for s in range(n):
            for slot, m in zip(melds[s], obs.melds[s], strict=True):
                if slot.kind == "wei":
                    slot.face_down = m.face_down
        rows = [list(r) for r in obs.rows]
        claim_card = None if claim is None else claim.card
        unseen = faces_of(obs.unseen_counts())
        return Knowledge(
            view=view,
            seat=seat,
            hand=hand,
            hand_sizes=list(obs.hand_sizes),
            melds=melds,
            rows=rows,
            thrown=thrown,
            released=released,
            no_discard=no_discard,
            skipped=skipped,
            dead=list(obs.dead),
            declined=declined,
            declined_faces=declined_faces,
            drew_up=drew_up,
            peng_seen=peng_seen,
            unseen=unseen,
            stock_left=obs.stock_left,
            phase=obs.phase,
            turn=obs.turn if obs.turn is not None else -1,
            claim=claim,
            claim_card=claim_card,
            passed=passed,
        )

    # ----------------------------------------------------------------- sampling

    def _deal_hidden(self, rng: random.Random, constrained: bool) -> Deal | None:
        """Opponents' hands (count vectors), 偎 faces by (seat, index), and the stock."""
        pool = [0] * NUM_FACES
        for f in self.unseen:
            pool[f] += 1
        wei_faces: dict[tuple[int, int], int] = {}
        n = self.view.rules.players
        opponents = [s for s in range(n) if s != self.seat]
        for s in opponents:
            for k, slot in enumerate(self.melds[s]):
                if slot.faces is None:
                    ok = [
                        f
                        for f in range(NUM_FACES)
                        if pool[f] >= 3 and not (constrained and f in self.drew_up[s])
                    ]
                    if not ok:
                        return None
                    f = rng.choice(ok)
                    pool[f] -= 3
                    wei_faces[(s, k)] = f
        cards = faces_of(pool)
        rng.shuffle(cards)
        hands = [[0] * NUM_FACES for _ in range(n)]
        rest: list[int] = []
        for s in opponents:
            need = self.hand_sizes[s]
            h = hands[s]
            cap = self.drew_up[s] if constrained else set()
            for f in cards:
                if need and not (f in cap and h[f] >= 1):
                    h[f] += 1
                    need -= 1
                else:
                    rest.append(f)
            if need:
                return None
            cards, rest = rest, []
        # with two players and 埋牌 the buried cards are unseen too (RULES §2.5.2, §2.5.6): the
        # stock takes its count of the rest, the buried pile (never drawn) the others
        buried = buried_size(self.view.rules)
        if len(cards) != self.stock_left + buried:
            raise ValueError(
                f"{len(cards)} hidden cards left for a stock of {self.stock_left}"
                f" and {buried} buried"
            )
        self.buried = tuple(sorted(cards[self.stock_left :]))
        return hands, wei_faces, cards[: self.stock_left]

    def deal(self, rng: random.Random) -> Deal:
        """The hidden cards dealt at random under the constraints (dropped after ``_DEAL_TRIES``
        failed attempts): opponents' hands, face-down 偎 faces and the stock."""
        dealt = None
        for _ in range(_DEAL_TRIES):
            dealt = self._deal_hidden(rng, constrained=True)
            if dealt is not None:
                return dealt
        dealt = self._deal_hidden(rng, constrained=False)
        if dealt is None:
            raise ValueError("no deal of the hidden cards fits the seat's view")
        return dealt

    def sample(self, rng: random.Random) -> GameState:
        """One full state consistent with the seat's knowledge, hidden cards dealt at random."""
        hands, wei_faces, stock = self.deal(rng)
        hands[self.seat] = list(self.hand)
        return self.build(hands, wei_faces, stock)

    def worlds(self, rng: random.Random) -> Iterator[GameState]:
        """Sampled states without end, each drawn independently (as :meth:`sample`)."""
        while True:
            yield self.sample(rng)

    def build(
        self, hands: list[list[int]], wei_faces: dict[tuple[int, int], int], stock: list[int]
    ) -> GameState:
        """The full state of a deal of the hidden cards (``hands`` with the seat's own), the
        seat's view and the event history's facts, built without replaying."""
        view = self.view
        melds: list[list[TableMeld]] = []
        n = view.rules.players
        for s in range(n):
            row: list[TableMeld] = []
            for k, slot in enumerate(self.melds[s]):
                if slot.faces is None:
                    f = wei_faces[(s, k)]
                    row.append(TableMeld("wei", (f, f, f), f, s, True))
                else:
                    assert slot.card is not None
                    row.append(
                        TableMeld(slot.kind, slot.faces, slot.card, slot.from_seat, slot.face_down)
                    )
            melds.append(row)
        st = GameState.position(
            view.rules,
            dealer=view.obs.dealer,
            hands=hands,
            stock=stock,
            melds=melds,
            rows=[list(r) for r in self.rows],
            thrown=[set(t) for t in self.thrown],
            released=[set(t) for t in self.released],
            no_discard=[set(n) for n in self.no_discard],
            # 碰-过张 (RULES §5.3): the seat's own comes with its view; for the others, a 碰
            # window on X went by while the seat held two or more X.
            peng_guo=[
                set(view.obs.bans[s].peng or ())
                if s == self.seat
                else {f for f in self.peng_seen[s] if hands[s][f] >= 2}
                for s in range(n)
            ],
            dead=list(self.dead),
            skipped=list(self.skipped),
            declined=[s == self.seat and self.declined for s in range(n)],
            declined_faces=[self.declined_faces if s == self.seat else 0 for s in range(n)],
            scores=list(view.obs.scores),
            turn=self.turn if self.phase == "discard" else view.obs.dealer,
        )
        st.buried = self.buried
        st.pool = view.pool  # the public 留子 pool, for the winning reading (RULES §8.5.3)
        if self.phase == "claim":
            st.phase = "claim"
            st.window = self._window(st)
        return st

    def _window(self, st: GameState) -> Window:
        """The open claim window, each seat's options computed by the engine's checks."""
        claim = self.claim
        if claim is None:  # the deal window (RULES §7.2 deal patterns)
            window = st.deal_window()
            self._own_options(window)
            return window
        origin = cast(Origin, claim.origin)
        src = claim.from_seat
        last = self.stock_left == 0 and origin != "discard"
        card = self.claim_card
        if card is None:  # an opponent's face-down 偎: the sampled face
            card = st.melds[src][-1].faces[0]
        if origin != "wei":
            window = st.claim_window(card, origin, src, last)
        else:  # a 偎: the win was computed before the 偎 took two hand cards (RULES §4.3)
            window = Window(card, origin, src, last, {})
            before = list(st.hands[src])
            before[card] += 2
            melds = [m.meld() for m in st.melds[src][:-1]]
            win = None
            if not st.dead[src] and st.win_facts:  # the facts of RULES §7.4.4
                zichi, dealt_kan, declined = st.facts_of_win(src, card)
                win = win_check(
                    melds,
                    before,
                    card,
                    "self",
                    last,
                    st.rules,
                    st.declined[src],
                    zichi=zichi,
                    dealt_kan=dealt_kan,
                    declined_faces=declined,
                )
            elif not st.dead[src]:
                win = win_check(melds, before, card, "self", last, st.rules, st.declined[src])
            # The window is open, so the drawer may 胡 (else it would have closed at once).
            window.options[src] = [HU, PASS] if win is not None else [PASS]
            if win is not None:
                window.wins[src] = win
        self._own_options(window)
        return window

    def _own_options(self, window: Window) -> None:
        """Check the seat's computed options against its view, which always wins."""
        legal = list(self.view.legal)
        self.mismatch = window.options.get(self.seat, []) != legal
        options = dict(window.options)
        if legal:
            options[self.seat] = legal
        else:
            options.pop(self.seat, None)
        # keyed in asking order, as the engine keys them (``Window.options``)
        order = ASK_ORDERS[self.view.rules.players][window.from_seat]
        window.options = {s: options[s] for s in order if s in options}


def determinize(view: BotView, rng: random.Random) -> GameState:
    """One full state consistent with ``view`` (see :class:`Knowledge`)."""
    return Knowledge.of(view).sample(rng)
