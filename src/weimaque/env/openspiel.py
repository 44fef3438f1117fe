"""The OpenSpiel game ``python_weimaque`` and an ISMCTS bot for the arena.

``import weimaque.env.openspiel`` registers the game, so ``pyspiel.load_game("python_weimaque")``
(parameters ``rules``, a preset id, and ``dealer``) works. The deal is 80 chance nodes: the deck is
drawn card by card, each face with probability (copies left) / (cards left), and the hand starts
from that deck order exactly as a seeded deal does (RULES §2.2: the first 22 cards are the stock,
the rest are dealt one by one from the dealer on). Then the players act as the engine asks
(``current_player()``); returns are the points of the hand (RULES §8.3), zero-sum.

Observation tensor: the engine's flat array (``OBS_SIZE``). Information-state tensor: the same array
followed by the count of each action id the player has taken this hand. Strings: the observation
text, and for the information state the player's own rendering of every event, its own actions and
its current view, as JSON.

``IsmctsBot`` (arena spec ``ismcts``, parameters ``sims``, ``uct`` and ``rollout``) runs
OpenSpiel's own information-set MCTS from a seat's view: each simulation starts from a world dealt
by :func:`weimaque.bots.determinize.determinize`, so the search never sees hidden cards. Leaves are
evaluated by OpenSpiel's random rollouts (``rollout=random``, the default) or by the ``mcts`` bot's
playing policy (``rollout=policy``). Importing this module also registers it with
:func:`weimaque.bots.register_plugin`, so ``get_bot("ismcts")`` works from then on.
"""

from __future__ import annotations

import json
import random
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from weimaque.bots import register_plugin
from weimaque.bots.base import BotView
from weimaque.bots.determinize import determinize
from weimaque.bots.mcts import rollout
from weimaque.cards import COPIES, NUM_FACES, faces_str
from weimaque.errors import WeimaqueError
from weimaque.game.actions import NUM_ACTIONS, Action
from weimaque.game.observation import OBS_SIZE, observation, observation_array, observation_text
from weimaque.game.state import DEALER_CARDS, NUM_SEATS, PASS, STOCK_SIZE, GameState
from weimaque.rules.registry import get_rules

NUM_CARDS: Final = NUM_FACES * COPIES
#: Decisions in one hand never exceed this (a hand has at most 22 draws, each opening a few claims).
MAX_DECISIONS: Final = 600
#: A bound on a hand's winning total, for OpenSpiel's utility range (no preset comes near it).
MAX_TOTAL: Final = 100_000

_GAME_TYPE: Final = pyspiel.GameType(
    short_name="python_weimaque",
    long_name="Python Weimaque (安乡偎麻雀)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=NUM_SEATS,
    min_num_players=NUM_SEATS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rules": "anxiang", "dealer": 0},
)


def _game_info() -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=NUM_FACES,
        num_players=NUM_SEATS,
        min_utility=-float(MAX_TOTAL),
        max_utility=2.0 * MAX_TOTAL,
        utility_sum=0.0,
        max_game_length=MAX_DECISIONS,
    )


class WeimaqueGame(pyspiel.Game):  # type: ignore[misc]
    """One hand of 安乡偎麻雀 for OpenSpiel (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        super().__init__(_GAME_TYPE, _game_info(), params)
        self.rules = get_rules(str(params.get("rules", "anxiang")))
        self.dealer = int(params.get("dealer", 0))
        if self.dealer not in range(NUM_SEATS):
            raise WeimaqueError(f"dealer must be 0, 1 or 2, not {self.dealer!r}")

    def new_initial_state(self) -> WeimaqueState:
        """The state before the deal: 80 chance nodes come first."""
        return WeimaqueState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> WeimaqueObserver:
        """The observer for a type: one player's private view, perfect recall or not."""
        if params:
            raise WeimaqueError(f"observer parameters are not supported: {params!r}")
        obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        return WeimaqueObserver(obs_type)


def _dealt_to(position: int, dealer: int) -> int | None:
    """The seat a deck position is dealt to (None for the stock), as ``GameState.new`` deals."""
    if position < STOCK_SIZE:
        return None
    return (dealer + position - STOCK_SIZE) % NUM_SEATS


def copy_hand(hand: GameState) -> GameState:
    """An independent copy of a hand that keeps its events and actions (views need them)."""
    out = hand.copy()
    out.events = list(hand.events)
    out.actions = list(hand.actions)
    return out


class _Hand:
    """Holds the engine state so that OpenSpiel's deep copy of a state copies it the cheap way."""

    __slots__ = ("state",)

    def __init__(self, state: GameState) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Hand:
        return _Hand(copy_hand(self.state))


class WeimaqueState(pyspiel.State):  # type: ignore[misc]
    """A hand in progress: the deck drawn so far, then the engine's state."""

    def __init__(self, game: WeimaqueGame) -> None:
        super().__init__(game)
        self.dealer = game.dealer
        self.deck: list[int] = []
        self.left = [COPIES] * NUM_FACES
        self._box: _Hand | None = None
        #: per seat: views of events before ``start`` (a world dealt for search), then own actions
        self.prefix: list[list[dict[str, Any]]] = [[] for _ in range(NUM_SEATS)]
        self.start = 0
        self.own: list[list[int]] = [[] for _ in range(NUM_SEATS)]

    @classmethod
    def from_hand(
        cls, game: WeimaqueGame, hand: GameState, prefix: list[list[dict[str, Any]]]
    ) -> WeimaqueState:
        """A state over a hand already dealt (a sampled world); ``prefix`` is each seat's past."""
        st = cls(game)
        st.deck = [-1] * NUM_CARDS
        st.left = [0] * NUM_FACES
        st.hand = hand
        st.prefix = prefix
        st.start = len(hand.events)
        return st

    @property
    def hand(self) -> GameState | None:
        """The engine state once the deal is complete."""
        return None if self._box is None else self._box.state

    @hand.setter
    def hand(self, value: GameState | None) -> None:
        self._box = None if value is None else _Hand(value)

    # ------------------------------------------------------------------ OpenSpiel API

    def current_player(self) -> int:
        if self.hand is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.hand.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return self.hand.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        assert self.hand is not None
        return sorted(a.id for a in self.hand.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        remaining = NUM_CARDS - len(self.deck)
        return [(f, n / remaining) for f, n in enumerate(self.left) if n]

    def _apply_action(self, action: int) -> None:
        if self.hand is None:
            if not 0 <= action < NUM_FACES or self.left[action] == 0:
                raise WeimaqueError(f"chance outcome {action!r} is not a card left in the deck")
            self.deck.append(action)
            self.left[action] -= 1
            if len(self.deck) == NUM_CARDS:
                self._deal()
            return
        player = self.hand.current_player()
        self.hand.apply(player, Action.from_id(int(action)))
        self.own[player].append(int(action))

    def _deal(self) -> None:
        hands: list[list[int]] = [[] for _ in range(NUM_SEATS)]
        for k, card in enumerate(self.deck[STOCK_SIZE:]):
            hands[(self.dealer + k) % NUM_SEATS].append(card)
        assert len(hands[self.dealer]) == DEALER_CARDS
        game = self.get_game()
        self.hand = GameState(game.rules, hands, self.deck[:STOCK_SIZE], self.dealer)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {faces_str((action,))}"
        return str(Action.from_id(action))

    def is_terminal(self) -> bool:
        return self.hand is not None and self.hand.is_terminal()

    def returns(self) -> list[float]:
        if self.hand is None:
            return [0.0] * NUM_SEATS
        return [float(r) for r in self.hand.returns()]

    def clone(self) -> WeimaqueState:
        st = WeimaqueState(self.get_game())
        st.deck = list(self.deck)
        st.left = list(self.left)
        if self.hand is not None:
            st.hand = copy_hand(self.hand)
        st.prefix = self.prefix
        st.start = self.start
        st.own = [list(o) for o in self.own]
        return st

    def __deepcopy__(self, memo: dict[int, Any]) -> WeimaqueState:
        return self.clone()

    def __str__(self) -> str:
        if self.hand is None:
            return f"dealing: {len(self.deck)}/{NUM_CARDS} cards"
        return observation_text(self.hand, "all")

    # ------------------------------------------------------------------ views

    def dealt_so_far(self, player: int) -> list[int]:
        """During the deal: the cards already dealt to ``player``."""
        return [c for k, c in enumerate(self.deck) if _dealt_to(k, self.dealer) == player]

    def history(self, player: int) -> list[dict[str, Any]]:
        """The player's rendering of every event it saw, oldest first."""
        assert self.hand is not None
        later = (e.view(player) for e in self.hand.events[self.start :])
        return self.prefix[player] + [v for v in later if v is not None]


class WeimaqueObserver:
    """OpenSpiel's observer protocol over the engine's per-seat views (private to one player)."""

    def __init__(self, iig_obs_type: Any) -> None:
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise WeimaqueError("python_weimaque observes one player's private view only")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        size = OBS_SIZE + (NUM_ACTIONS if self.perfect_recall else 0)
        self.tensor: npt.NDArray[np.float32] = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[:OBS_SIZE]}
        if self.perfect_recall:
            self.dict["own_actions"] = self.tensor[OBS_SIZE:]

    def set_from(self, state: WeimaqueState, player: int) -> None:
        """Fill ``tensor`` with ``state`` as ``player`` sees it."""
        self.tensor.fill(0)
        if state.hand is None:
            for c in state.dealt_so_far(player):
                self.tensor[c] += 1  # the hand block comes first in the flat array
            return
        self.tensor[:OBS_SIZE] = observation_array(state.hand, player)
        if self.perfect_recall:
            for a in state.own[player]:
                self.tensor[OBS_SIZE + a] += 1

    def string_from(self, state: WeimaqueState, player: int) -> str:
        """``state`` as ``player`` sees it, as text (JSON for the information state)."""
        if state.hand is None:
            mine = faces_str(sorted(state.dealt_so_far(player)))
            return f"p{player} dealing {len(state.deck)}/{NUM_CARDS}: {mine}"
        if not self.perfect_recall:
            return observation_text(state.hand, player)
        return json.dumps(
            [state.history(player), state.own[player], observation(state.hand, player)],
            ensure_ascii=False,
            sort_keys=True,
        )


pyspiel.register_game(_GAME_TYPE, WeimaqueGame)


class PolicyRollouts:
    """An OpenSpiel evaluator: a leaf's value is one play-out by the ``mcts`` bot's policy."""

    def __init__(self, rng: random.Random, epsilon: float = 0.1) -> None:
        self.rng = rng
        self.epsilon = epsilon

    def evaluate(self, state: WeimaqueState) -> npt.NDArray[np.float64]:
        """The returns of one play-out of a copy of the hand."""
        if state.hand is None or state.is_terminal():
            return np.array(state.returns(), dtype=np.float64)
        played = rollout(state.hand.copy(), self.rng, self.epsilon)
        return np.array(played, dtype=np.float64)

    def prior(self, state: WeimaqueState) -> list[tuple[int, float]]:
        """Uniform over the legal actions."""
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class IsmctsBot:
    """``ismcts``: OpenSpiel's information-set MCTS over worlds dealt from the seat's view.

    Each simulation starts from a world sampled by ``determinize`` (only what the seat saw); seats
    that answered the open claim before this one are taken to have passed (their answers are
    hidden). Rollouts are uniformly random (OpenSpiel's ``RandomRolloutEvaluator``).
    """

    name = "ismcts"

    def __init__(self, sims: int = 100, uct: float = 40.0, rollout: str = "random") -> None:
        if sims < 1:
            raise WeimaqueError(f"ismcts needs sims >= 1, not {sims!r}")
        if rollout not in ("random", "policy"):
            raise WeimaqueError(f"ismcts rollout must be 'random' or 'policy', not {rollout!r}")
        self.sims = sims
        self.uct = uct
        self.rollout = rollout
        self.game = pyspiel.load_game("python_weimaque")

    @classmethod
    def from_params(cls, params: dict[str, str]) -> IsmctsBot:
        """From ``ismcts:sims=100,uct=40,rollout=policy``."""
        unknown = set(params) - {"sims", "uct", "rollout"}
        if unknown:
            raise WeimaqueError(
                f"unknown ismcts parameters {sorted(unknown)}; known: sims, uct, rollout"
            )
        try:
            return cls(
                int(params.get("sims", 100)),
                float(params.get("uct", 40.0)),
                params.get("rollout", "random"),
            )
        except ValueError as exc:
            raise WeimaqueError(f"bad ismcts parameters {params!r}: {exc}") from exc

    def world(self, view: BotView, rng: random.Random) -> WeimaqueState:
        """One OpenSpiel state consistent with the seat's view."""
        hand = determinize(view, rng)
        w = hand.window
        if w is not None:  # earlier answers in this window are hidden: take them as 过
            while hand.current_player() != view.seat:
                w.responses[hand.current_player()] = PASS
        prefix: list[list[dict[str, Any]]] = [[] for _ in range(NUM_SEATS)]
        prefix[view.seat] = [dict(v) for v in view.history]
        game = self.game
        assert isinstance(game, WeimaqueGame)
        return WeimaqueState.from_hand(game, hand, prefix)

    def act(self, view: BotView, rng: random.Random) -> Action:
        if len(view.legal) == 1:
            return view.legal[0]
        np_rng = np.random.RandomState(rng.getrandbits(32))
        evaluator: Any = (
            PolicyRollouts(random.Random(rng.getrandbits(64)))
            if self.rollout == "policy"
            else mcts.RandomRolloutEvaluator(1, np_rng)
        )
        bot = ismcts.ISMCTSBot(
            self.game,
            evaluator,
            self.uct,
            self.sims,
            random_state=np_rng,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        )
        bot.set_resampler(lambda state, player: self.world(view, rng))
        root = self.world(view, rng)
        action = int(bot.step(root))
        chosen = Action.from_id(action)
        if chosen not in view.legal:
            raise WeimaqueError(f"ismcts chose {chosen}, not among {list(map(str, view.legal))}")
        return chosen


register_plugin("ismcts", IsmctsBot.from_params)
