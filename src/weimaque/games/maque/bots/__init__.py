"""Bots from beginner to strong, all seeing only their seat's view."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from weimaque.errors import WeimaqueError
from weimaque.games.maque.bots.base import Bot, BotView, RandomBot, choose, parse_params
from weimaque.games.maque.bots.external import ExternalBot
from weimaque.games.maque.bots.greedy import GreedyBot
from weimaque.games.maque.bots.mcts import MctsBot
from weimaque.games.maque.bots.net import NetBot
from weimaque.games.maque.bots.policy import PolicyBot

#: Bot name → factory taking the ``name:key=value`` parameters.
REGISTRY: dict[str, Callable[[dict[str, str]], Bot]] = {
    "random": lambda params: RandomBot(),
    "greedy": lambda params: GreedyBot(),
    "mcts": lambda params: MctsBot.from_params(params),
    "net": lambda params: NetBot.from_params(params),
    "policy": lambda params: PolicyBot(),
}

#: Bots that live above this package and need an optional extra, for the arena and research
#: tools (not offered in rooms): each is put here by its own module when that module is imported
#: (``register_plugin``), e.g. ``ismcts`` by ``weimaque.env.openspiel``.
PLUGINS: dict[str, Callable[[dict[str, str]], Bot]] = {}


def register_plugin(name: str, factory: Callable[[dict[str, str]], Bot]) -> None:
    """Make ``get_bot`` build the bot ``name`` with ``factory``; registering a plugin's name
    again replaces its factory, a built-in bot's name (or ``cmd``) is refused."""
    if name in REGISTRY or name == "cmd":
        raise WeimaqueError(f"bot name {name!r} is taken")
    PLUGINS[name] = factory


#: Bot name → parameter → (type, least, most): what ``check_spec`` accepts (a server's bounds).
#: Every bot a room may seat is here; ``net`` only with its shipped weights (a path never comes
#: from a request).
SPEC_BOUNDS: Final[dict[str, dict[str, tuple[type, float, float]]]] = {
    "random": {},
    "policy": {},
    "greedy": {},
    "net": {},
    "mcts": {
        "ms": (float, 1, 3000),
        "iters": (int, 1, 20_000),
        "top": (int, 1, 20),
        "z": (float, 0, 10),
        "eps": (float, 0, 1),
        "keep": (float, 0, 10),
    },
}
SPEC_LENGTH: Final = 80


def check_spec(spec: object) -> str:
    """A bot spec from an untrusted source, checked: a known bot, known parameters in bounds.

    Raises ``WeimaqueError`` quoting the spec (escaped, cut short) and what is wrong.
    """
    shown = ascii(spec)[:SPEC_LENGTH]
    if not isinstance(spec, str) or not spec.isascii() or len(spec) > SPEC_LENGTH:
        raise WeimaqueError(f"bad bot {shown}: a bot spec is ASCII text of at most {SPEC_LENGTH}")
    name, params = parse_params(spec)
    bounds = SPEC_BOUNDS.get(name)
    if bounds is None or name not in REGISTRY:
        known = ", ".join(sorted(k for k in REGISTRY if k in SPEC_BOUNDS))
        raise WeimaqueError(f"unknown bot {shown}; known: {known}")
    for key, text in params.items():
        if key not in bounds:
            allowed = ", ".join(bounds) or "none"
            raise WeimaqueError(f"bot {shown}: unknown parameter {key!r}; {name} takes {allowed}")
        kind, low, high = bounds[key]
        try:
            value = kind(text)
        except ValueError:
            raise WeimaqueError(f"bot {shown}: {key} must be a {kind.__name__}") from None
        if not (math.isfinite(value) and low <= value <= high):
            raise WeimaqueError(f"bot {shown}: {key} must be within {low:g}..{high:g}")
    return spec


def get_bot(spec: str) -> Bot:
    """A bot from its CLI name, with parameters: ``random``, ``greedy``, ``mcts:ms=300``.

    ``cmd:COMMAND`` starts an external program speaking the JSON-lines protocol
    (:mod:`weimaque.games.maque.bots.external`); a plugin bot (``PLUGINS``, e.g. ``ismcts``) is
    known once the module that registers it has been imported.
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
    "SPEC_BOUNDS",
    "Bot",
    "BotView",
    "ExternalBot",
    "RandomBot",
    "check_spec",
    "choose",
    "get_bot",
    "parse_params",
    "register_plugin",
]
