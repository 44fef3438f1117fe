"""What every environment shares: one hand of a game through the seam, seeds, observation, mask.

The environments speak to a game only through :mod:`weimaque.games` (docs/new-game.md): the hand
is ``get_game(game).new_hand(variant, options, seed, dealer)``, the agents are the seats of
``game.shape(variant, options)``, the observation is the seat's flat float32 array
(``hand.observation(seat)``, ``game.layout.size`` entries, named pieces: ``game.layout``) and a
separate ``action_mask`` of ``game.num_actions`` int8 entries (``legal_mask``'s, as 0/1). Rewards
are each seat's points when the hand ends (``hand.outcome().net``), 0 before. A seed deals
exactly the hand ``new_hand`` deals from it (偎麻雀: RULES §2.2).

Who acts: the first of ``hand.to_act()``. In a claim window several seats must decide; they
answer one at a time in that order, none seeing the others' answers, and the game resolves the
window once all have answered (偎麻雀 by priority, RULES §5.1), so the order changes no outcome.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from weimaque.errors import WeimaqueError, quoted
from weimaque.games import Game, Hand, ObservationLayout, TableShape, get_game

#: The game an environment plays when none is named (its first preset, ``anxiang``, by default).
DEFAULT_GAME: Final = "maque"


def agents(seats: int) -> tuple[str, ...]:
    """The agent names of a table of ``seats``: ``seat_0 .. seat_{seats-1}``."""
    return tuple(f"seat_{s}" for s in range(seats))


def agent_seat(agent: str, seats: int) -> int:
    """The seat of an agent name ``seat_N`` at a table of ``seats``."""
    names = agents(seats)
    if agent not in names:
        raise WeimaqueError(f"no agent {quoted(agent)}; agents are {', '.join(names)}")
    return names.index(agent)


def resolve(
    game: str | Game,
    rules: object = None,
    variant: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> tuple[Game, str, dict[str, Any]]:
    """The game, its preset id and the options, checked against the game's schema.

    ``rules`` is the older name of ``variant`` (a preset id or alias of 偎麻雀); an object with
    an ``id`` and an ``options()`` mapping (a 偎麻雀 ``RuleConfig``) stands for its preset with
    those options, ``options`` applied over them.
    """
    g = get_game(game) if isinstance(game, str) else game
    merged: dict[str, Any] = {}
    if rules is not None and not isinstance(rules, str):
        rule_id, rule_options = getattr(rules, "id", None), getattr(rules, "options", None)
        if not isinstance(rule_id, str) or not callable(rule_options):
            raise WeimaqueError(f"rules is a preset id or a rule set, not {quoted(rules)}")
        merged.update(rule_options())
        rules = rule_id
    if rules is not None and variant is not None and rules != variant:
        raise WeimaqueError(f"rules {quoted(rules)} and variant {quoted(variant)} disagree")
    name = variant if variant is not None else rules
    preset = g.schema.variants[0] if name is None else g.schema.variant(str(name))
    merged.update(options or {})
    checked = dict(g.schema.validate(merged))
    g.shape(preset.id, checked)
    return g, preset.id, checked


def count_words(n: int) -> str:
    """A small count in words, for messages (``two opponent bots``)."""
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
    return words[n] if 0 <= n < len(words) else str(n)


class HandTable:
    """One hand at a time of one game under fixed rules; seeds for unseeded resets come from the
    last seed given."""

    def __init__(
        self,
        rules: object = None,
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        *,
        game: str | Game = DEFAULT_GAME,
        variant: str | None = None,
    ) -> None:
        """``rules`` (or ``variant``): a preset of ``game``; ``options``: rule options changed."""
        self.game, self.variant, self.options = resolve(game, rules, variant, options)
        self.shape: TableShape = self.game.shape(self.variant, self.options)
        self.seats = self.shape.seats
        self.agents = agents(self.seats)
        self._seat_of = {a: s for s, a in enumerate(self.agents)}
        if isinstance(dealer, bool) or dealer not in range(self.seats):
            raise WeimaqueError(f"dealer must be a seat 0..{self.seats - 1}, not {quoted(dealer)}")
        self.dealer = dealer
        self._seeds = random.Random()
        self.seed = 0
        self.hand: Hand = self.game.new_hand(self.variant, self.options, 0, dealer)

    @property
    def layout(self) -> ObservationLayout:
        """The observation array's named pieces (``layout.split(obs["observation"])``)."""
        return self.game.layout

    @property
    def num_actions(self) -> int:
        """Action ids run ``0..num_actions - 1``."""
        return self.game.num_actions

    def reset(self, seed: int | None = None) -> Hand:
        """Deal a new hand: ``seed`` fixes it; without one the next seed is drawn."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise WeimaqueError(f"seed must be a non-negative int, not {quoted(seed)}")
            self._seeds.seed(seed)
            self.seed = seed
        else:
            self.seed = self._seeds.getrandbits(63)
        self.hand = self.game.new_hand(self.variant, self.options, self.seed, self.dealer)
        return self.hand

    def seat_of(self, agent: str) -> int:
        """The seat of an agent name ``seat_N`` at this table."""
        seat = self._seat_of.get(agent)
        return agent_seat(agent, self.seats) if seat is None else seat

    def to_act(self) -> int:
        """The seat that decides next (the first of ``to_act()``), or -1 when the hand is over."""
        seats = self.hand.to_act()
        return seats[0] if seats else -1

    def observe(self, seat: int) -> dict[str, npt.NDArray[Any]]:
        """``{"observation": flat float32 array, "action_mask": int8 mask}`` for one seat."""
        hand = self.hand
        # legal_mask's entries as 0/1 bytes, set one by one: a handful of legal ids is quicker
        # so than through numpy's fancy indexing (the env steps of bench/engine.py)
        mask = np.zeros(self.game.num_actions, np.int8)
        for a in hand.legal_actions(seat):
            mask[a] = 1
        return {"observation": hand.observation(seat), "action_mask": mask}

    def step(self, seat: int, action_id: int) -> None:
        """Apply an action id for ``seat``; an illegal one raises ``IllegalAction``, unchanged."""
        self.hand.apply(seat, int(action_id))

    def returns(self) -> tuple[float, ...]:
        """Each seat's points for the finished hand (zeros before it ends)."""
        outcome = self.hand.outcome()
        if outcome is None:
            return (0.0,) * self.seats
        return tuple(float(x) for x in outcome.net)

    def result(self) -> dict[str, Any]:
        """How the hand ended, for ``infos``: ``net``, ``winners``, ``winner`` (the one winner,
        or None) and the game's own summary (偎麻雀: ``total``, ``chou``, ``source`` …)."""
        outcome = self.hand.outcome()
        if outcome is None:
            return {}
        out = outcome.to_json()
        out["winner"] = outcome.winners[0] if len(outcome.winners) == 1 else None
        return out

    def render(self) -> str:
        """The table as a spectator sees it (no hidden card): its public view as JSON text."""
        return json.dumps(self.hand.view("public").to_json(), ensure_ascii=False, indent=1)


class TableView:
    """What each environment shows of its :class:`HandTable` (``self.table``) beyond the
    agents' API: the game, the observation's layout, and the hand itself."""

    table: HandTable

    @property
    def game(self) -> Game:
        """The game played."""
        return self.table.game

    @property
    def layout(self) -> ObservationLayout:
        """The observation array's named pieces: ``env.layout.split(obs["observation"])``."""
        return self.table.layout

    @property
    def hand(self) -> Hand:
        """The hand being played (for tests and tools, not for agents: it holds every card)."""
        return self.table.hand


__all__ = [
    "DEFAULT_GAME",
    "HandTable",
    "TableView",
    "agent_seat",
    "agents",
    "count_words",
    "resolve",
]
