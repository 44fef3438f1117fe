"""The bot protocol: a bot sees only its seat's view and legal actions, and returns one action.

``BotView.of(state, seat)`` is the one way a bot's input is built, from the per-seat observation
and the seat's own rendering of the events, so a bot can never see hidden information.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from weimaque.errors import WeimaqueError
from weimaque.games.maque.bots.history import Seen, parse_history
from weimaque.games.maque.cards import Counts, counts_of
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.observation import Observation, view_of
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.rules.config import RuleConfig


@dataclass(frozen=True, slots=True)
class BotView:
    """What one seat may know at a decision: its observation, its event history, its options."""

    seat: int
    rules: RuleConfig
    obs: Observation
    #: the seat's events as the engine renders them for it (``Event.view(seat)``): the JSON
    #: that programs are sent (docs/bot-protocol.md)
    events: tuple[Mapping[str, Any], ...]
    legal: tuple[Action, ...]
    #: the 留子 pool a winner could take, public at the table, where the rules choose the
    #: winning reading with it (RULES §8.5.3); else None
    pool: int | None = None
    #: the same events as typed records, parsed once here: what the bots read
    history: tuple[Seen, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "history", parse_history(self.events))

    @staticmethod
    def of(state: GameState, seat: int) -> BotView:
        """Build the view of ``seat`` from the engine's per-seat observation and event views."""
        events = tuple(v for e in state.events if (v := e.view(seat)) is not None)
        return BotView(
            seat=seat,
            rules=state.rules,
            obs=view_of(state, seat),
            events=events,
            legal=tuple(state.legal_actions(seat)),
            pool=state.pool,
        )

    def hand(self) -> Counts:
        """The seat's concealed hand as a count vector."""
        return counts_of(self.obs.hand or ())

    def obvious(self) -> Action | None:
        """The action every bot here takes without thinking: the only legal one, or a winning
        胡 (taken at once: a win scores now, passing it only risks another seat's, RULES §4.7)."""
        legal = self.legal
        if len(legal) == 1:
            return legal[0]
        return next((a for a in legal if a.kind == "hu"), None)

    def claim_card(self) -> int | None:
        """The face under claim, if a claim is open and its face is visible."""
        claim = self.obs.claim
        return None if claim is None else claim.card


class Bot(Protocol):
    """A player: given a view and its own RNG, choose one of ``view.legal``."""

    name: str

    def act(self, view: BotView, rng: random.Random) -> Action:
        """Choose an action; it must be one of ``view.legal``."""
        ...


class RandomBot:
    """``random``: uniform over the legal actions."""

    name = "random"

    def act(self, view: BotView, rng: random.Random) -> Action:
        return rng.choice(view.legal)


def choose(bots: Sequence[Bot], state: GameState, seat: int, rng: random.Random) -> Action:
    """Ask the bot of ``seat`` for an action on the current state (through its view only)."""
    return bots[seat].act(BotView.of(state, seat), rng)


def parse_params(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"mcts:ms=300,iters=50"`` into ``("mcts", {"ms": "300", "iters": "50"})``.

    Parameters are separated by commas or semicolons (``mcts:ms=300;iters=50``, the form that
    fits in a comma-separated list of bots).
    """
    name, _, rest = spec.partition(":")
    params: dict[str, str] = {}
    for item in filter(None, rest.replace(";", ",").split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise WeimaqueError(f"bad bot parameter {item!r} in {spec!r}; expected key=value")
        params[key.strip()] = value.strip()
    return name.strip(), params
