"""Register the toy game of tests/toygame.py (a game from outside the package) through the
registry before the kit collects its parameters from it."""

from __future__ import annotations

from tests import toygame
from weimaque.games import register

register(toygame.GAME, replace=True)
