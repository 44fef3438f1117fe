"""``RuleConfig`` of 三丁拐 and its presets (SANDINGGUAI §11)."""

from __future__ import annotations

import pytest

from weimaque.errors import RuleConfigError
from weimaque.games.sandingguai.rules import PRESET_IDS, RuleConfig, get_rules, parse_preset


def test_presets_load_and_default_matches_sandingguai_toml() -> None:
    assert get_rules("sandingguai").options() == RuleConfig().options()
    baike = get_rules("百科")
    assert baike.id == "baike-3p" and baike.max_suits == 3 and baike.fan_mode == "highest"
    assert baike.gang_bu == 3 and baike.zeren_multiplier == 1 and baike.qianggang_burn == "all"
    assert set(PRESET_IDS) == {"sandingguai", "baike-3p"}


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        pytest.param({"wugu_value": "2"}, "'2'", id="wrong-type"),
        pytest.param({"fanji": "sideways"}, "'sideways'", id="bad-choice"),
        pytest.param({"zimo_bonus": -1}, "-1", id="out-of-range"),
        pytest.param({"no_such": 1}, "'no_such'", id="unknown-key"),
        pytest.param({"max_suits": 4}, "4", id="max-suits"),
        pytest.param({"multi_ron": 1}, "1", id="int-for-bool"),
    ],
)
def test_bad_options_are_quoted(overrides: dict[str, object], fragment: str) -> None:
    with pytest.raises(RuleConfigError) as err:
        get_rules("sandingguai", **overrides)
    assert fragment in str(err.value)


def test_unknown_preset_and_bad_toml() -> None:
    with pytest.raises(RuleConfigError, match="'guiyang-9p'"):
        get_rules("guiyang-9p")
    with pytest.raises(RuleConfigError, match="unknown keys"):
        parse_preset('id = "x"\nname = "x"\nname_en = "x"\nsource = ""\nfoo = 1')
    with pytest.raises(RuleConfigError, match="not valid TOML"):
        parse_preset("id = ")


def test_overrides_round_trip() -> None:
    rules = get_rules("sandingguai", wugu_value=2, fanji="both")
    assert rules.overrides() == {"wugu_value": 2, "fanji": "both"}
    assert get_rules(rules.id, **rules.overrides()) == rules
