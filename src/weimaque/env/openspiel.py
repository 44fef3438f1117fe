"""OpenSpiel games over every hosted game, and an ISMCTS bot for 偎麻雀's arena.

``import weimaque.env.openspiel`` registers one python game per registered game (docs/env.md):
``python_weimaque_<id>`` (``python_weimaque_maque``, ``python_weimaque_sandingguai`` …, parameters
``variant``, ``options`` as JSON text and ``dealer``), and ``python_weimaque``, 偎麻雀 under its
older parameter name ``rules`` (a preset id; ``options`` and ``dealer`` as well). A game
registered later (an entry point, the tests' toy game) gets its OpenSpiel game from
:func:`register`, and :func:`load` registers and loads in one call. GameType and GameInfo come
from the seam: players from the presets' table shapes, actions from ``num_actions``, zero-sum
from ``info.zero_sum``.

The deal is :data:`SEED_BYTES` chance nodes, each a byte of the seed with probability 1/256;
the hand is then ``game.new_hand(variant, options, seed, dealer)``, so a deal is a function of
(rules, seed) as everywhere on the platform (偎麻雀: RULES §2.2), and no player sees the seed.
Then the players act as the hand asks (the first seat of ``to_act()``; a claim window's seats one
after the other, none seeing the others' answers); returns are the points of the hand
(``outcome().net``).

Observation tensor: the seat's flat array (``game.layout``; the observer's ``dict`` holds its named
pieces). Information-state tensor: the same array followed by the count of each action id the
player has taken this hand (``own_actions``). Strings: the seat's view as JSON, and for the
information state the player's own rendering of every event, its own actions and its current
view, as JSON.

``IsmctsBot`` (arena spec ``ismcts``, parameters ``sims``, ``uct`` and ``rollout``) runs
OpenSpiel's own information-set MCTS from a 偎麻雀 seat's view over ``python_weimaque``: each
simulation starts from a world dealt by :func:`weimaque.games.maque.bots.determinize.determinize`,
so the search never sees hidden cards. Leaves are evaluated by OpenSpiel's random rollouts
(``rollout=random``, the default) or by the ``mcts`` bot's playing policy (``rollout=policy``).
Importing this module also registers it with :func:`weimaque.games.maque.bots.register_plugin`, so
``get_bot("ismcts")`` works from then on. It stays 偎麻雀's: an arena bot reads only its seat's
bot view, and the seam builds no hand from a bot view (``resample`` is a hand's), so the worlds
come from 偎麻雀's own ``determinize``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from weimaque.env.core import DEFAULT_GAME, resolve
from weimaque.errors import WeimaqueError, quoted
from weimaque.games import Game, Hand, get_game, list_games
from weimaque.games.maque import MaqueHand

# The ismcts plugin below is 偎麻雀's (see the module docstring): these are the only imports of
# a game's internals in weimaque.env (pyproject.toml, contract ``env-speaks-the-seam``).
from weimaque.games.maque.bots import register_plugin
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import determinize
from weimaque.games.maque.bots.mcts import rollout
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.state import PASS

#: The deal's chance nodes: the seed's bytes, most significant first, each uniform over 256.
SEED_BYTES: Final = 4
#: The name ``python_weimaque`` keeps: 偎麻雀 with its parameter ``rules``.
LEGACY_NAME: Final = "python_weimaque"
#: What OpenSpiel's GameInfo needs and the seam does not declare, kept here: a bound on the
#: decisions of one hand (偎麻雀: at most 22 draws, each opening a few claims; 三丁拐's random
#: hands stay under a hundred; the toy game two per turned card) …
MAX_DECISIONS: Final[Mapping[str, int]] = {"maque": 600}
DEFAULT_MAX_DECISIONS: Final = 2000
#: … and a bound on what one seat pays each other seat in a hand (no preset of a hosted game
#: comes near it), for OpenSpiel's utility range.
MAX_TOTAL: Final = 100_000

#: Game id → the OpenSpiel game class registered for it in this process (pyspiel keeps the
#: class: a class, not a closure, since a closure freed at exit aborts the interpreter).
_REGISTERED: dict[str, type[SeamGame]] = {}


def short_name(game: str | Game) -> str:
    """The OpenSpiel short name of a hosted game: ``python_weimaque_<id>``, any character of the
    id but a lowercase letter, a digit or ``_`` written ``_``."""
    g = get_game(game) if isinstance(game, str) else game
    return "python_weimaque_" + re.sub(r"[^a-z0-9_]", "_", g.info.id.lower())


def _seat_range(game: Game) -> tuple[int, int]:
    seats = [game.shape(v.id).seats for v in game.schema.variants]
    return min(seats), max(seats)


def _game_type(game: Game, name: str) -> Any:
    low, high = _seat_range(game)
    if name == LEGACY_NAME:
        spec: dict[str, Any] = {"rules": game.schema.variants[0].id, "options": "{}", "dealer": 0}
        long_name = "Python Weimaque (安乡偎麻雀)"
    else:
        spec = {"variant": game.schema.variants[0].id, "options": "{}", "dealer": 0}
        long_name = f"Python Weimaque platform: {game.info.names.en} ({game.info.names.zh})"
    utility = pyspiel.GameType.Utility
    return pyspiel.GameType(
        short_name=name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility.ZERO_SUM if game.info.zero_sum else utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec,
    )


def _game_info(game: Game, seats: int) -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=game.num_actions,
        max_chance_outcomes=256,
        num_players=seats,
        min_utility=-float(MAX_TOTAL),
        max_utility=float((seats - 1) * MAX_TOTAL),
        utility_sum=0.0 if game.info.zero_sum else None,
        max_game_length=MAX_DECISIONS.get(game.info.id, DEFAULT_MAX_DECISIONS),
    )


def _options(text: object) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        raise WeimaqueError(f"options is a JSON object as text, not {quoted(text)}")
    return value


class SeamGame(pyspiel.Game):  # type: ignore[misc]
    """One hand of a hosted game for OpenSpiel (see the module docstring)."""

    #: The hosted game's id and the OpenSpiel short name (set by each registered subclass).
    GAME_ID: ClassVar[str]
    NAME: ClassVar[str]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        game_id, name = self.GAME_ID, self.NAME
        params = dict(params or {})
        preset = params.get("rules" if name == LEGACY_NAME else "variant")
        options = _options(params.get("options", "{}"))
        variant = None if preset is None else str(preset)
        game, variant, options = resolve(get_game(game_id), variant=variant, options=options)
        seats = game.shape(variant, options).seats
        dealer = params.get("dealer", 0)
        if isinstance(dealer, bool) or dealer not in range(seats):
            raise WeimaqueError(f"dealer must be a seat 0..{seats - 1}, not {quoted(dealer)}")
        super().__init__(_game_type(game, name), _game_info(game, seats), params)
        self.game, self.variant, self.options = game, variant, options
        self.seats, self.dealer = seats, int(dealer)

    def new_initial_state(self) -> SeamState:
        """The state before the deal: :data:`SEED_BYTES` chance nodes come first."""
        return SeamState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> SeamObserver:
        """The observer for a type: one player's private view, perfect recall or not."""
        if params:
            raise WeimaqueError(f"observer parameters are not supported: {params!r}")
        obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        return SeamObserver(self, obs_type)


class _Box:
    """Holds the hand so that OpenSpiel's deep copy of a state's attributes copies it the
    cheap way (``Hand.clone``)."""

    __slots__ = ("hand",)

    def __init__(self, hand: Hand) -> None:
        self.hand = hand

    def __deepcopy__(self, memo: dict[int, Any]) -> _Box:
        return _Box(self.hand.clone())


class SeamState(pyspiel.State):  # type: ignore[misc]
    """A hand in progress: the seed's bytes drawn so far, then the game's hand."""

    def __init__(self, game: SeamGame) -> None:
        super().__init__(game)
        self.seats = game.seats
        self.seed_bytes: list[int] = []
        self._box: _Box | None = None
        #: per seat: views of events before ``start`` (a world dealt for search)
        self.prefix: list[list[dict[str, Any]]] = [[] for _ in range(game.seats)]
        self.start = 0
        self.own: list[list[int]] = [[] for _ in range(game.seats)]

    @classmethod
    def from_hand(
        cls, game: SeamGame, hand: Hand, prefix: list[list[dict[str, Any]]] | None = None
    ) -> SeamState:
        """A state over a hand already dealt. Without ``prefix`` each player's history is the
        hand's events; with it (a sampled world whose past is not its own), ``prefix[seat]`` is
        what the seat saw before and the hand's own events count from now."""
        st = cls(game)
        st.seed_bytes = [0] * SEED_BYTES
        st.hand = hand
        if prefix is not None:
            st.prefix = prefix
            st.start = len(hand.events())
        return st

    @property
    def hand(self) -> Hand | None:
        """The game's hand once the seed is drawn."""
        return None if self._box is None else self._box.hand

    @hand.setter
    def hand(self, value: Hand | None) -> None:
        self._box = None if value is None else _Box(value)

    # ------------------------------------------------------------------ OpenSpiel API

    def current_player(self) -> int:
        hand = self.hand
        if hand is None:
            return int(pyspiel.PlayerId.CHANCE)
        seats = hand.to_act()
        return seats[0] if seats else int(pyspiel.PlayerId.TERMINAL)

    def _legal_actions(self, player: int) -> list[int]:
        if self.hand is None or player != self.current_player():
            return []
        return list(self.hand.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(b, 1.0 / 256) for b in range(256)]

    def _apply_action(self, action: int) -> None:
        if self.hand is None:
            if not 0 <= action < 256:
                raise WeimaqueError(f"chance outcome {action!r} is not a byte of the seed")
            self.seed_bytes.append(action)
            if len(self.seed_bytes) == SEED_BYTES:
                g = self.get_game()
                seed = int.from_bytes(bytes(self.seed_bytes), "big")
                self.hand = g.game.new_hand(g.variant, g.options, seed, g.dealer)
            return
        player = self.current_player()
        self.hand.apply(player, int(action))
        self.own[player].append(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {action}"
        return str(self.get_game().game.action(action))

    def is_terminal(self) -> bool:
        return self.hand is not None and self.hand.is_terminal()

    def returns(self) -> list[float]:
        outcome = None if self.hand is None else self.hand.outcome()
        if outcome is None:
            return [0.0] * self.seats
        return [float(x) for x in outcome.net]

    def clone(self) -> SeamState:
        st = SeamState(self.get_game())
        st.seed_bytes = list(self.seed_bytes)
        if self.hand is not None:
            st.hand = self.hand.clone()
        st.prefix = self.prefix
        st.start = self.start
        st.own = [list(o) for o in self.own]
        return st

    def __deepcopy__(self, memo: dict[int, Any]) -> SeamState:
        return self.clone()

    def __str__(self) -> str:
        if self.hand is None:
            return f"dealing: seed byte {len(self.seed_bytes)}/{SEED_BYTES}"
        return json.dumps(self.hand.view("all").to_json(), ensure_ascii=False, sort_keys=True)

    # ------------------------------------------------------------------ views

    def history(self, player: int) -> list[dict[str, Any]]:
        """The player's rendering of every event it saw, oldest first."""
        assert self.hand is not None
        later = (e.view(player) for e in self.hand.events()[self.start :])
        return self.prefix[player] + [v for v in later if v is not None]


class SeamObserver:
    """OpenSpiel's observer protocol over a game's per-seat views (private to one player).

    ``dict`` holds the array's named pieces (``game.layout``), each a view of ``tensor`` in its
    shape, and with perfect recall ``own_actions``."""

    def __init__(self, game: SeamGame, iig_obs_type: Any) -> None:
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise WeimaqueError(
                f"{game.get_type().short_name} observes one player's private view only"
            )
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        layout = game.game.layout
        self.size = layout.size
        width = self.size + (game.game.num_actions if self.perfect_recall else 0)
        self.tensor: npt.NDArray[np.float32] = np.zeros(width, np.float32)
        self.dict: dict[str, npt.NDArray[np.float32]] = layout.split(self.tensor[: self.size])
        if self.perfect_recall:
            self.dict["own_actions"] = self.tensor[self.size :]

    def set_from(self, state: SeamState, player: int) -> None:
        """Fill ``tensor`` with ``state`` as ``player`` sees it (zeros before the deal)."""
        self.tensor.fill(0)
        if state.hand is None:
            return
        self.tensor[: self.size] = state.hand.observation(player)
        if self.perfect_recall:
            for a in state.own[player]:
                self.tensor[self.size + a] += 1

    def string_from(self, state: SeamState, player: int) -> str:
        """``state`` as ``player`` sees it, as JSON (before the deal: how far it has come)."""
        if state.hand is None:
            return f"p{player} dealing {len(state.seed_bytes)}/{SEED_BYTES}"
        view = state.hand.view(player).to_json()
        if not self.perfect_recall:
            return json.dumps(view, ensure_ascii=False, sort_keys=True)
        return json.dumps(
            [state.history(player), state.own[player], view], ensure_ascii=False, sort_keys=True
        )


def register(game: str | Game = DEFAULT_GAME) -> str:
    """Register the OpenSpiel game of a hosted game (once per process); its short name."""
    g = get_game(game) if isinstance(game, str) else game
    known = _REGISTERED.get(g.info.id)
    if known is None:
        name = short_name(g)
        attrs = {"GAME_ID": g.info.id, "NAME": name, "__doc__": f"``{name}``: {g.info.names.en}."}
        known = type(f"SeamGame_{g.info.id}", (SeamGame,), attrs)
        pyspiel.register_game(_game_type(g, name), known)
        _REGISTERED[g.info.id] = known
    return known.NAME


def load(
    game: str | Game = DEFAULT_GAME,
    variant: str | None = None,
    options: Mapping[str, Any] | None = None,
    dealer: int = 0,
) -> Any:
    """``pyspiel.load_game`` of a hosted game's OpenSpiel game, registered if need be."""
    g = get_game(game) if isinstance(game, str) else game
    params: dict[str, Any] = {"options": json.dumps(dict(options or {})), "dealer": dealer}
    if variant is not None:
        params["variant"] = variant
    return pyspiel.load_game(register(g), params)


class WeimaqueGame(SeamGame):
    """``python_weimaque``: 偎麻雀, its preset named by the parameter ``rules``."""

    GAME_ID = DEFAULT_GAME
    NAME = LEGACY_NAME


pyspiel.register_game(_game_type(get_game(DEFAULT_GAME), LEGACY_NAME), WeimaqueGame)
for _game in list_games():
    register(_game)


# ---------------------------------------------------------------------- 偎麻雀's ismcts plugin


class PolicyRollouts:
    """An OpenSpiel evaluator: a leaf's value is one play-out by the ``mcts`` bot's policy."""

    def __init__(self, rng: random.Random, epsilon: float = 0.1) -> None:
        self.rng = rng
        self.epsilon = epsilon

    def evaluate(self, state: SeamState) -> npt.NDArray[np.float64]:
        """The returns of one play-out of a copy of the hand."""
        hand = state.hand
        if not isinstance(hand, MaqueHand) or hand.is_terminal():
            return np.array(state.returns(), dtype=np.float64)
        played = rollout(hand.state.copy(), self.rng, self.epsilon)
        return np.array(played, dtype=np.float64)

    def prior(self, state: SeamState) -> list[tuple[int, float]]:
        """Uniform over the legal actions."""
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class IsmctsBot:
    """``ismcts``: OpenSpiel's information-set MCTS over worlds dealt from the seat's view.

    Each simulation starts from a world sampled by ``determinize`` (only what the seat saw); seats
    that answer the open claim before this one (the first of ``to_act()`` decides first) are
    taken to have passed (their answers are hidden). Rollouts are uniformly random (OpenSpiel's
    ``RandomRolloutEvaluator``) or the ``mcts`` bot's policy.
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
        self.game = pyspiel.load_game(LEGACY_NAME)

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

    def world(self, view: BotView, rng: random.Random) -> SeamState:
        """One OpenSpiel state consistent with the seat's view."""
        hand = determinize(view, rng)
        w = hand.window
        if w is not None:  # earlier answers in this window are hidden: take them as 过
            while hand.to_act()[0] != view.seat:
                w.responses[hand.to_act()[0]] = PASS
        game = self.game
        assert isinstance(game, SeamGame)
        prefix: list[list[dict[str, Any]]] = [[] for _ in range(game.seats)]
        prefix[view.seat] = [dict(v) for v in view.events]
        return SeamState.from_hand(game, MaqueHand(hand), prefix)

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
