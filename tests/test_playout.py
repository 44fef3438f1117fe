"""The engine's fast step (``game.playout``) plays every preset and rule option exactly as the
engine's own turn flow (``GameState.apply_trusted``, every claim window opened and answered).

One chooser decides both: each decision is a hash of what the deciding seat holds and is asked
(its hand, 明息, the card, the options), half the time the default policy's choice, half the time
any option, so the 碰, 吃, 过 and discard branches of RULES §3-§5 are all taken. The two plays
start from the same position (a real hand played on at random, or a world determinized from a
seat's view, as the search bot rolls out) and must end with the same returns and the same hands,
melds (a 偎 face down or up, RULES §4.3), discard and release sets, 碰-过张, 死手 flags and skips,
and stock position; the winner's hand and melds aside, as the fast step stops at a 胡 before the
drawn card's 偎 is laid.
"""

from __future__ import annotations

import random
import zlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from weimaque.games.maque.analysis.arrange import melds_xi
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import determinize
from weimaque.games.maque.bots.policy import best_discard, claim_choice
from weimaque.games.maque.cards import COPIES, NUM_FACES
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.playout import MAX_STEPS, Chooser, playout
from weimaque.games.maque.game.state import CHIS, HU, PASS, PENG, GameState, discardable
from weimaque.games.maque.notation import Source
from weimaque.games.maque.rules import rules_with
from weimaque.games.maque.rules.registry import APP_PRESET_IDS, PRESET_IDS

#: Every preset, the turn-flow options on top (RULES §2.5, §4.3, §4.6(3)), seeds and dealers.
OPTIONS = st.fixed_dictionaries(
    {
        "wei_face_up": st.booleans(),
        "holder_may_not_chi": st.booleans(),
        "players": st.sampled_from((2, 3)),
        "chi_opponent_discard": st.booleans(),
        "maipai": st.booleans(),
        "min_xi": st.sampled_from((6, 10, 15)),
    }
)


class HashChooser:
    """Decisions that depend only on what the seat is asked, not on when: the engine's windows
    and the fast step may ask in different orders and still get the same answers."""

    def __init__(self, salt: int) -> None:
        self.salt = salt

    def _roll(self, *key: object) -> int:
        return zlib.crc32(repr((self.salt, *key)).encode())

    def discard(self, state: GameState, seat: int, faces: list[int], mxi: int) -> int:
        hand = state.hands[seat]
        roll = self._roll("d", seat, tuple(hand), tuple(faces), mxi)
        if roll % 2:
            return faces[roll // 2 % len(faces)]
        melds = len(state.melds[seat])
        return best_discard(hand, faces, melds, mxi, state.rules.min_xi)[1]

    def claim(
        self, state: GameState, seat: int, card: int, peng: bool, runs: list[int], mxi: int
    ) -> int | None:
        hand = state.hands[seat]
        roll = self._roll("c", seat, tuple(hand), card, peng, tuple(runs), mxi)
        if roll % 2:
            choices: list[int | None] = [None, *([-1] if peng else []), *runs]
            return choices[roll // 2 % len(choices)]
        melds = len(state.melds[seat])
        no_discard = state.no_discard[seat]
        return claim_choice(hand, melds, mxi, no_discard, card, peng, runs, state.rules.min_xi)


def engine_play(state: GameState, chooser: Chooser) -> list[int]:
    """The hand played to its end through the engine's windows, asking ``chooser`` for every
    decision that is not forced, and taking every 胡 (as the fast step does)."""
    for _ in range(MAX_STEPS):
        if state.phase == "over":
            break
        if state.phase == "discard":
            seat = state.turn
            hand = state.hands[seat]
            faces = discardable(hand, state.no_discard[seat])
            mxi = melds_xi(state.melds[seat])
            state.apply_trusted(seat, Action.discard(chooser.discard(state, seat, faces, mxi)))
            continue
        w = state.window
        assert w is not None
        seat = next(s for s in w.options if s not in w.responses)
        options = w.options[seat]
        if HU in options:
            state.apply_trusted(seat, HU)
            continue
        runs = [a.face for a in options if a.kind == "chi" and a.face is not None]
        mxi = melds_xi(state.melds[seat])
        choice = chooser.claim(state, seat, w.card, PENG in options, runs, mxi)
        action = PASS if choice is None else PENG if choice == -1 else CHIS[choice]
        state.apply_trusted(seat, action)
    return state.returns()


def table_of(state: GameState) -> dict[str, Any]:
    """What a hand's play changes: hands, melds, the sets of RULES §5.3, 死手, the stock."""
    return {
        "hands": [list(h) for h in state.hands],
        "melds": [list(m) for m in state.melds],
        "thrown": [set(t) for t in state.thrown],
        "released": [set(t) for t in state.released],
        "no_discard": [set(t) for t in state.no_discard],
        "peng_guo": [set(t) for t in state.peng_guo],
        "dead": list(state.dead),
        "skipped": list(state.skipped),
        "pos": state.pos,
    }


def start(preset: str, options: dict[str, object], seed: int, steps: int, world: bool) -> GameState:
    """A position at a seat's discard with no window open: a hand of ``preset`` played on at
    random for about ``steps`` actions, or a world sampled from the view of the seat to act."""
    players = options["players"]
    assert isinstance(players, int)
    if players == 3:  # the options of a table of two stay as they are (RULES §2.5)
        options = {k: v for k, v in options.items() if k not in ("chi_opponent_discard", "maipai")}
    state = GameState.new(rules_with(preset, options), seed, dealer=seed % players)
    rng = random.Random(seed)
    taken = 0
    while not state.is_terminal():
        if state.phase == "discard" and taken >= steps:
            break
        seat = state.current_player()
        legal = state.legal_actions(seat)
        state.apply(seat, next((a for a in legal if a.kind == "hu"), None) or rng.choice(legal))
        taken += 1
    if world and state.phase == "discard":
        return determinize(BotView.of(state, state.turn), rng)
    return state


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    preset=st.sampled_from(PRESET_IDS + APP_PRESET_IDS),
    options=OPTIONS,
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 60),
    world=st.booleans(),
    salt=st.integers(0, 2**16),
)
def test_playout_plays_as_the_engine(
    preset: str, options: dict[str, object], seed: int, steps: int, world: bool, salt: int
) -> None:
    state = start(preset, options, seed, steps, world)
    if state.phase != "discard":
        return  # the hand ended before a discard (a 胡 at the deal or on a draw)
    by_engine, fast = state.copy(), state.copy()
    engine_returns = engine_play(by_engine, HashChooser(salt))
    assert playout(fast, fast.turn, HashChooser(salt)) == engine_returns
    fast_table, engine_table = table_of(fast), table_of(by_engine)
    result = by_engine.result
    if result is not None and result.winner is not None:
        # the fast step stops at the 胡, the engine has made the drawn card's 偎 first (§4.3)
        for key in ("hands", "melds"):
            del fast_table[key][result.winner], engine_table[key][result.winner]
    assert fast_table == engine_table


class Passer:
    """Discards ``face`` once, then the default policy; passes every claim."""

    def __init__(self, face: int) -> None:
        self.face = face

    def discard(self, state: GameState, seat: int, faces: list[int], mxi: int) -> int:
        if self.face in faces:
            face, self.face = self.face, -1
            return face
        return best_discard(state.hands[seat], faces, len(state.melds[seat]), mxi, 6)[1]

    def claim(
        self, state: GameState, seat: int, card: int, peng: bool, runs: list[int], mxi: int
    ) -> int | None:
        return None


def crafted(hands: list[list[int]], top: int) -> GameState:
    """Seat 0 to discard from ``hands`` (faces), the stock ``top`` first, then the other cards."""
    counts = [[0] * NUM_FACES for _ in hands]
    for count, faces in zip(counts, hands, strict=True):
        for f in faces:
            count[f] += 1
    left = [COPIES - sum(c[f] for c in counts) for f in range(NUM_FACES)]
    left[top] -= 1
    stock = [top, *(f for f in range(NUM_FACES) for _ in range(left[f]))]
    return GameState.position(
        rules_with("anxiang", {"min_xi": 6}),
        dealer=0,
        hands=counts,
        stock=stock,
        melds=[[], [], []],
        rows=[[], [], []],
        thrown=[set(), set(), set()],
        no_discard=[set(), set(), set()],
        peng_guo=[set(), set(), set()],
        dead=[False] * 3,
        skipped=[0] * 3,
        declined=[False] * 3,
        scores=[0] * 3,
        turn=0,
    )


#: Two seats win on one drawn card (柒, 16): the drawer and his 下家, or the 下家 and the 上家.
#: Seat 0 discards (拾/二/柒 …), seat 1 draws.
DRAWER_AND_XIAJIA = (
    [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 8, 8, 17, 17, 18, 18, 13, 14],
    [10, 10, 10, 11, 11, 11, 0, 1, 2, 3, 4, 5, 12, 13, 14, 19, 19, 17, 18],
    [6, 6, 6, 7, 7, 7, 0, 1, 2, 3, 4, 5, 9, 9, 9, 8, 8, 15, 17],
)
XIAJIA_AND_SHANGJIA = (
    [10, 10, 10, 11, 11, 11, 0, 1, 2, 3, 4, 5, 12, 13, 14, 19, 19, 17, 18, 6],
    [0, 0, 1, 1, 2, 2, 3, 3, 4, 8, 18, 18, 19, 19, 12, 13, 14, 10, 11],
    [6, 6, 6, 7, 7, 7, 0, 1, 2, 3, 4, 5, 9, 9, 9, 8, 8, 15, 17],
)


def test_two_wins_on_one_draw_go_by_the_asking_order() -> None:
    """RULES §3, §5.1: of two seats that may 胡 one drawn card, the first asked wins (the
    drawer, then his 下家, then his 上家), in the fast step as in the engine's window."""
    for hands, discard, winner in ((DRAWER_AND_XIAJIA, 13, 1), (XIAJIA_AND_SHANGJIA, 6, 2)):
        state = crafted([list(h) for h in hands], 16)
        probe = state.copy()
        probe.hands[0][discard] -= 1  # the hands when seat 1 draws
        asked: tuple[tuple[int, Source], ...] = ((1, "self"), (2, "other"), (0, "other"))
        winners = [s for s, source in asked if probe.win_on(s, 16, source, False) is not None]
        assert len(winners) == 2 and winners[0] == winner
        by_engine, fast = state.copy(), state.copy()
        engine_returns = engine_play(by_engine, Passer(discard))
        assert by_engine.result is not None and by_engine.result.winner == winner
        assert playout(fast, 0, Passer(discard)) == engine_returns
