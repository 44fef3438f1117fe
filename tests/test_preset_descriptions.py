"""Every rule preset describes itself in both languages (docs/rules.md §7.3, docs/sandingguai.md
§10): ``description`` in English and ``description_zh`` in Chinese, read from the preset files,
carried by the games' rule sets and presets, by ``GET /api/presets`` and ``GET /api/games``
against a real ``wmq serve`` (docs/protocol.md §1) and by ``wmq rules show``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from tests import toygame
from tests.serverkit import Server, running
from weimaque.cli import app
from weimaque.errors import RuleConfigError
from weimaque.games import Game, get_game, list_games, register
from weimaque.games.maque.rules.registry import list_rules
from weimaque.games.maque.rules.registry import parse_preset as parse_maque
from weimaque.games.sandingguai.rules import PRESET_IDS as SDG_PRESETS
from weimaque.games.sandingguai.rules import get_rules as sdg_rules
from weimaque.games.sandingguai.rules import parse_preset as parse_sdg

register(toygame.GAME, replace=True)

CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")


def check_pair(where: str, en: object, zh: object) -> None:
    """Both descriptions given, the English one in English, the Chinese one in Chinese."""
    assert isinstance(en, str) and en.strip(), f"{where}: no English description"
    assert isinstance(zh, str) and zh.strip(), f"{where}: no Chinese description"
    assert LATIN_WORD.search(en), f"{where}: {en!r} is no English sentence"
    assert CJK.search(zh) and zh != en, f"{where}: {zh!r} is no Chinese sentence"
    # The Chinese text is written in Chinese: no English word of three letters or more in it
    # but the RULES of a section the text cites (RULES §2.5).
    stray = set(LATIN_WORD.findall(zh)) - {"RULES"}
    assert not stray, f"{where}: English words {sorted(stray)} in {zh!r}"


def squeeze(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("game", list_games(), ids=lambda g: g.info.id)
def test_every_preset_of_every_registered_game_has_both_descriptions(game: Game) -> None:
    assert game.schema.variants
    for variant in game.schema.variants:
        check_pair(f"{game.info.id}/{variant.id}", variant.description, variant.description_zh)
        doc = variant.to_json()
        assert (doc["description"], doc["description_zh"]) == (
            variant.description,
            variant.description_zh,
        )


def test_the_rule_sets_carry_the_preset_files_descriptions() -> None:
    for rules in list_rules(app=True):
        check_pair(f"maque/{rules.id}", rules.description, rules.description_zh)
    for preset in SDG_PRESETS:
        rules = sdg_rules(preset)
        check_pair(f"sandingguai/{rules.id}", rules.description, rules.description_zh)
    # A room's overrides keep the preset's descriptions.
    sdg = sdg_rules("baike-3p", tiles=72)
    assert sdg.description_zh == sdg_rules("baike-3p").description_zh
    # The two-player table of a preset says so in both languages (RULES §2.5).
    maque = get_game("maque").schema
    two = maque.variant("anxiang-2p")
    assert two.description_zh.startswith(maque.variant("anxiang").description_zh)
    assert "二人" in two.description_zh and "two" in two.description


HEAD = 'id = "x"\nname = "甲"\nname_en = "X"\nsource = "s"\n'


@pytest.mark.parametrize("parse", [parse_maque, parse_sdg], ids=["maque", "sandingguai"])
def test_a_preset_file_reads_description_zh_and_refuses_a_non_string(
    parse: Callable[..., Any],
) -> None:
    rules = parse(HEAD + 'description = "Plain."\ndescription_zh = "平常。"\n')
    assert (rules.description, rules.description_zh) == ("Plain.", "平常。")
    with pytest.raises(RuleConfigError) as caught:
        parse(HEAD + "description_zh = 7\n", "presets/x.toml")
    assert "presets/x.toml" in str(caught.value) and "'description_zh'" in str(caught.value)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(tmp_path_factory.mktemp("desc")) as s:
        yield s


def test_api_presets_gives_both_descriptions(server: Server) -> None:
    body = server.get("/api/presets")
    by_id = {r.id: r for r in list_rules(app=True)}
    assert [p["id"] for p in body["presets"]] == list(by_id)
    for preset in body["presets"]:
        rules = by_id[preset["id"]]
        assert (preset["description"], preset["description_zh"]) == (
            rules.description,
            rules.description_zh,
        )
        check_pair(f"/api/presets {preset['id']}", preset["description"], preset["description_zh"])


def test_api_games_gives_both_descriptions_for_every_preset(server: Server) -> None:
    body = server.get("/api/games")
    assert {"maque", "sandingguai"} <= {g["info"]["id"] for g in body["games"]}
    for entry in body["games"]:
        for preset in entry["schema"]["presets"]:
            where = f"/api/games {entry['info']['id']}/{preset['id']}"
            check_pair(where, preset["description"], preset["description_zh"])
    sdg = next(g for g in body["games"] if g["info"]["id"] == "sandingguai")
    first = sdg["schema"]["presets"][0]
    assert first["id"] == "sandingguai"
    assert first["description_zh"] == sdg_rules("sandingguai").description_zh


def test_rules_cli_shows_and_lists_both_descriptions() -> None:
    runner = CliRunner()
    rules = list_rules()[0]
    result = runner.invoke(app, ["rules", "show", rules.id])
    assert result.exit_code == 0, result.output
    out = squeeze(result.stdout)
    assert squeeze(rules.description_zh) in out and squeeze(rules.description) in out
    result = runner.invoke(app, ["rules", "list", "--json", "--app"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == len(list_rules(app=True))
    for row in rows:
        check_pair(f"wmq rules list {row['id']}", row["description"], row["description_zh"])
