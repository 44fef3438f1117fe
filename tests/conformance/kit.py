"""Helpers of the conformance kit: the registered games and variants, a random walk through a
hand using the protocol alone."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from weimaque.games import Game, Hand, Playout, list_games

VIEWERS_EXTRA: tuple[Any, ...] = ("public", "all")


def games() -> list[Any]:
    """One parameter per registered game."""
    return [pytest.param(g, id=g.info.id) for g in list_games()]


def variants() -> list[Any]:
    """One parameter per (game, preset)."""
    return [
        pytest.param(g, v.id, id=f"{g.info.id}-{v.id}")
        for g in list_games()
        for v in g.schema.variants
    ]


def seats_of(game: Game, variant: str) -> int:
    """The variant's number of seats, as the game declares it."""
    return game.schema.variant(variant).shape.seats


def step(
    hand: Hand, rng: random.Random, game: Game | None = None
) -> tuple[int, int, tuple[Any, ...]]:
    """One decision of one seat among those to act: (seat, action, events). Uniformly random,
    or the game's own ``playout`` policy when ``game`` is given."""
    seat = rng.choice(hand.to_act())
    if game is not None and isinstance(game, Playout):
        action = game.playout(hand, seat, rng)
    else:
        action = rng.choice(hand.legal_actions(seat))
    return seat, action, hand.apply(seat, action)


def json_round_trip(doc: Any) -> Any:
    """The document through JSON text and back."""
    return json.loads(json.dumps(doc, ensure_ascii=False))


def is_frozen(obj: object) -> bool:
    """Whether ``obj`` is an instance of a frozen dataclass."""
    params = getattr(type(obj), "__dataclass_params__", None)
    return dataclasses.is_dataclass(obj) and params is not None and bool(params.frozen)
