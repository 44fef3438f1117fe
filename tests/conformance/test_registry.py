"""The registry: lookup by id and alias, refusals that quote, lazy loading of the built-in
games, and discovery of a game packaged elsewhere through the ``weimaque.games`` entry points
(a distribution's metadata on ``sys.path``, read by ``importlib.metadata``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests import toygame
from weimaque.games import (
    ENTRY_POINT_GROUP,
    UnknownGame,
    get_game,
    list_games,
    load_entry_points,
    register,
    unregister,
)
from weimaque.games.registry import entry_point


def test_games_by_id_and_alias() -> None:
    ids = [g.info.id for g in list_games()]
    assert {"maque", "sandingguai", "toy"} <= set(ids)
    assert get_game("偎麻雀") is get_game("maque") is get_game("MAQUE")
    assert get_game("sdg") is get_game("sandingguai")
    with pytest.raises(UnknownGame, match="'no-such-game'"):
        get_game("no-such-game")
    with pytest.raises(UnknownGame, match="42"):
        get_game(42)  # type: ignore[arg-type]


def test_a_name_taken_by_another_game_is_refused() -> None:
    class Impostor:
        info = toygame.Toy.info.__class__("impostor", toygame.Toy.info.names, ("sdg",))

    with pytest.raises(ValueError, match="'sdg'"):
        register(Impostor())  # type: ignore[arg-type]
    with pytest.raises(UnknownGame):
        get_game("impostor")


def test_the_seam_imports_no_game_until_asked() -> None:
    code = (
        "import sys, weimaque.games as g\n"
        "assert not any(m.startswith(('weimaque.games.maque.game.', 'weimaque.games.sandingguai', "
        "'weimaque.games.maque')) for m in sys.modules), sorted(sys.modules)\n"
        "g.get_game('sandingguai')\n"
        "assert 'weimaque.games.sandingguai.game' in sys.modules\n"
        "assert 'weimaque.games.maque.game.state' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_entry_point_objects_register_their_game() -> None:
    unregister("toy")
    try:
        found = [entry_point("toy", "tests.toygame:GAME"), entry_point("bad", "tests.nowhere:X")]
        assert load_entry_points(found) == ["toy"]
        assert get_game("grab") is toygame.GAME
    finally:
        register(toygame.GAME, replace=True)


def test_a_distribution_on_sys_path_is_discovered(tmp_path: Path) -> None:
    info = tmp_path / "weimaque_toy-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: weimaque-toy\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\ntoy = tests.toygame:GAME\n")
    unregister("toy")
    sys.path.insert(0, str(tmp_path))
    try:
        assert load_entry_points() == ["toy"]
        assert get_game("toy") is toygame.GAME
    finally:
        sys.path.remove(str(tmp_path))
        register(toygame.GAME, replace=True)
