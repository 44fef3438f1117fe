"""Bots from beginner to strong, all seeing only their seat's view."""

from __future__ import annotations

from collections.abc import Callable

from weimaque.bots.base import Bot, BotView, RandomBot, choose, parse_params
from weimaque.bots.greedy import GreedyBot
from weimaque.bots.mcts import MctsBot, PolicyBot
from weimaque.bots.net import NetBot
from weimaque.errors import WeimaqueError

#: Bot name → factory taking the ``name:key=value`` parameters.
REGISTRY: dict[str, Callable[[dict[str, str]], Bot]] = {
    "random": lambda params: RandomBot(),
    "greedy": lambda params: GreedyBot(),
    "mcts": lambda params: MctsBot.from_params(params),
    "net": lambda params: NetBot.from_params(params),
    "policy": lambda params: PolicyBot(),
}


def get_bot(spec: str) -> Bot:
    """A bot from its CLI name, with parameters: ``random``, ``greedy``, ``mcts:ms=300``."""
    name, params = parse_params(spec)
    factory = REGISTRY.get(name)
    if factory is None:
        raise WeimaqueError(f"unknown bot {spec!r}; known: {', '.join(sorted(REGISTRY))}")
    return factory(params)


__all__ = ["REGISTRY", "Bot", "BotView", "RandomBot", "choose", "get_bot", "parse_params"]
