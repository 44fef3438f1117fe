"""The registry of hosted games: ``register``, ``get_game``, ``list_games`` (docs/new-game.md).

The games of this package are known by module name and imported on first use; a game packaged
elsewhere declares an entry point in the group ``weimaque.games`` (its value: an object
implementing :class:`~weimaque.games.protocol.Game`, or a callable returning one), found through
``importlib.metadata`` and loaded only when the registry is first asked for something it does not
hold. The seam imports no game at module level (an import-linter contract says so).
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterable
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Final, Protocol

from weimaque.errors import quoted
from weimaque.games.protocol import Game, UnknownGame

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP: Final = "weimaque.games"
#: The games of this package by id: the module holding each one's ``GAME``, imported when the
#: game is first asked for (by id; an alias or a listing loads them all).
BUILTIN: Final = {
    "maque": "weimaque.games.maque",
    "sandingguai": "weimaque.games.sandingguai.game",
}

_games: dict[str, Game] = {}
_aliases: dict[str, str] = {}
_loaded_builtin = False
_loaded_plugins = False


class Loadable(Protocol):
    """What an entry point offers: ``name`` and ``load()`` (``importlib.metadata.EntryPoint``)."""

    @property
    def name(self) -> str:
        """The entry point's name."""
        ...

    def load(self) -> object:
        """The object it names."""
        ...


def register(game: Game, *, replace: bool = False) -> Game:
    """Add a game under its id and aliases; a name already taken by another game is refused."""
    info = game.info
    names = [info.id, *info.aliases]
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a game id or alias is a non-empty string, not {quoted(name)}")
        owner = _aliases.get(name.lower())
        if owner is not None and owner != info.id and not replace:
            raise ValueError(f"game name {quoted(name)} is taken by game {owner!r}")
    if info.id in _games and _games[info.id] is not game and not replace:
        raise ValueError(f"game {info.id!r} is already registered")
    _games[info.id] = game
    for name in names:
        _aliases[name.lower()] = info.id
    return game


def unregister(game_id: str) -> None:
    """Remove a game and its aliases (tests, a plugin unloaded)."""
    _games.pop(game_id, None)
    for name in [n for n, owner in _aliases.items() if owner == game_id]:
        del _aliases[name]


def _load_builtin(only: str | None = None) -> None:
    global _loaded_builtin
    if _loaded_builtin:
        return
    for game_id, module in BUILTIN.items():
        if only is not None and game_id != only:
            continue
        if game_id not in _games:
            register(importlib.import_module(module).GAME)
    if only is None:
        _loaded_builtin = True


def load_entry_points(found: Iterable[Loadable] | None = None) -> list[str]:
    """Register the games of the ``weimaque.games`` entry points (or of ``found``); return the
    ids registered. An entry point that fails to load is logged and skipped, never fatal."""
    if found is None:
        found = entry_points(group=ENTRY_POINT_GROUP)
    added: list[str] = []
    for ep in found:
        try:
            obj: Any = ep.load()
            game: Game = obj() if callable(obj) and not hasattr(obj, "info") else obj
            if game.info.id in _games:
                continue
            register(game)
        except Exception:
            log.exception("entry point %r of group %s did not load", ep.name, ENTRY_POINT_GROUP)
            continue
        added.append(game.info.id)
    return added


def _load_plugins() -> None:
    global _loaded_plugins
    if not _loaded_plugins:
        _loaded_plugins = True
        load_entry_points()


def get_game(name: str) -> Game:
    """A game by id or alias (case-insensitive); ``UnknownGame`` quoting an unknown name."""
    if not isinstance(name, str):
        raise UnknownGame(f"a game name is a string, not {quoted(name)}")
    if name in BUILTIN:
        _load_builtin(name)
    game_id = _aliases.get(name.lower())
    if game_id is None:
        _load_builtin()
        game_id = _aliases.get(name.lower())
    if game_id is None:
        _load_plugins()
        game_id = _aliases.get(name.lower())
    if game_id is None:
        known = ", ".join(sorted(_games))
        raise UnknownGame(f"unknown game {quoted(name)} (known: {known})")
    return _games[game_id]


def list_games() -> list[Game]:
    """Every registered game (built-in first, then plugins), in registration order."""
    _load_builtin()
    _load_plugins()
    return list(_games.values())


def entry_point(name: str, value: str) -> EntryPoint:
    """An ``importlib.metadata.EntryPoint`` of the ``weimaque.games`` group (what a
    distribution's metadata declares: ``name = "module:attribute"``)."""
    return EntryPoint(name, value, ENTRY_POINT_GROUP)
