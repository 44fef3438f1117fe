"""Standard reinforcement-learning environments over any hosted game (optional extra ``env``).

They speak to a game through :mod:`weimaque.games` alone (docs/new-game.md); ``game=`` names it
(偎麻雀 by default), ``variant=`` (or ``rules=``) its preset and ``options=`` its rule options.

- ``weimaque.env.env(...)``: a PettingZoo AEC environment, agents ``seat_0..seat_{n-1}``.
- ``weimaque.env.gym_env(...)``: a Gymnasium single-seat environment, the other seats played by
  the game's bots.
- ``import weimaque.env.openspiel`` registers the OpenSpiel games ``python_weimaque`` (偎麻雀)
  and ``python_weimaque_<id>`` for every registered game.

The third-party packages are imported only when an environment is built, so the engine works
without them (``pip install -e '.[env]'`` installs them). Layouts and seeds: docs/env.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from weimaque.env.core import DEFAULT_GAME, HandTable, agent_seat, agents

if TYPE_CHECKING:
    from weimaque.env.aec import WeimaqueAEC
    from weimaque.env.gym import WeimaqueGym


def env(**kwargs: Any) -> Any:
    """The PettingZoo AEC environment wrapped as PettingZoo's ``env()`` convention expects."""
    from weimaque.env.aec import env as make

    return make(**kwargs)


def raw_env(**kwargs: Any) -> WeimaqueAEC:
    """The PettingZoo AEC environment without wrappers."""
    from weimaque.env.aec import WeimaqueAEC

    return WeimaqueAEC(**kwargs)


def gym_env(**kwargs: Any) -> WeimaqueGym:
    """The Gymnasium single-seat environment (see :class:`weimaque.env.gym.WeimaqueGym`)."""
    from weimaque.env.gym import WeimaqueGym

    return WeimaqueGym(**kwargs)


__all__ = ["DEFAULT_GAME", "HandTable", "agent_seat", "agents", "env", "gym_env", "raw_env"]
