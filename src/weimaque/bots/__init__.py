"""Bots from beginner to strong, all seeing only their seat's view."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from weimaque.bots.base import Bot, BotView, RandomBot, choose, parse_params
from weimaque.bots.external import ExternalBot
from weimaque.bots.greedy import GreedyBot
from weimaque.bots.mcts import MctsBot, PolicyBot
from weimaque.bots.net import NetBot
from weimaque.errors import WeimaqueError


def _plugin(module: str, cls: str, extra: str) -> Callable[[dict[str, str]], Bot]:
    """A factory for a bot that lives outside this package and needs an optional extra."""

    def make(params: dict[str, str]) -> Bot:
        try:
            found = getattr(importlib.import_module(module), cls)
        except ImportError as exc:
            raise WeimaqueError(
                f"this bot needs the optional extra {extra!r}: pip install -e '.[{extra}]' ({exc})"
            ) from exc
        bot: Bot = found.from_params(params)
        return bot

    return make


#: Bot name → factory taking the ``name:key=value`` parameters.
REGISTRY: dict[str, Callable[[dict[str, str]], Bot]] = {
    "random": lambda params: RandomBot(),
    "greedy": lambda params: GreedyBot(),
    "mcts": lambda params: MctsBot.from_params(params),
    "net": lambda params: NetBot.from_params(params),
    "policy": lambda params: PolicyBot(),
}

#: Bots for the arena and research tools that need an optional extra (not offered in rooms).
PLUGINS: dict[str, Callable[[dict[str, str]], Bot]] = {
    "ismcts": _plugin("weimaque.env.openspiel", "IsmctsBot", "env"),
}


def get_bot(spec: str) -> Bot:
    """A bot from its CLI name, with parameters: ``random``, ``greedy``, ``mcts:ms=300``.

    ``cmd:COMMAND`` starts an external program speaking the JSON-lines protocol
    (:mod:`weimaque.bots.external`); ``ismcts`` needs the ``env`` extra.
    """
    if spec.strip().startswith("cmd:"):
        return ExternalBot.from_spec(spec)
    name, params = parse_params(spec)
    factory = REGISTRY.get(name) or PLUGINS.get(name)
    if factory is None:
        known = ", ".join(sorted([*REGISTRY, *PLUGINS, "cmd:COMMAND"]))
        raise WeimaqueError(f"unknown bot {spec!r}; known: {known}")
    return factory(params)


__all__ = [
    "PLUGINS",
    "REGISTRY",
    "Bot",
    "BotView",
    "ExternalBot",
    "RandomBot",
    "choose",
    "get_bot",
    "parse_params",
]
