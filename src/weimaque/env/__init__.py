"""Standard reinforcement-learning environments over the engine (optional extra ``env``).

- ``weimaque.env.env(...)``: a PettingZoo AEC environment, agents ``seat_0..seat_2``.
- ``weimaque.env.gym_env(...)``: a Gymnasium single-seat environment, the other seats played by
  project bots.
- ``import weimaque.env.openspiel`` registers the OpenSpiel game ``python_weimaque``.

The third-party packages are imported only when an environment is built, so the engine works
without them (``pip install -e '.[env]'`` installs them). Layouts and seeds: docs/env.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from weimaque.env.core import AGENTS, HandTable, action_mask, agent_seat

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


__all__ = ["AGENTS", "HandTable", "action_mask", "agent_seat", "env", "gym_env", "raw_env"]
