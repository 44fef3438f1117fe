"""The option schema of every game: each preset validates and deals, bad values are refused by
an error quoting the key and the value, the schema renders as JSON."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conformance.kit import games, json_round_trip
from weimaque.errors import RuleConfigError
from weimaque.games import Game, OptionSpec


def bad_values(spec: OptionSpec) -> list[Any]:
    """Values no option of this kind takes."""
    if spec.type == "bool":
        return [1, "yes", None]
    if spec.type == "int":
        out: list[Any] = [True, "7", 2.5]
        if spec.low is not None:
            out.append(spec.low - 1)
        if spec.high is not None:
            out.append(spec.high + 1)
        return out
    if spec.type == "choice":
        return ["no-such-choice", True, [spec.choices[0]]]
    return ["no-such-key", ["no-such-key"], [spec.choices[0], spec.choices[0]]]


@pytest.mark.parametrize("game", games())
def test_every_preset_validates_and_deals(game: Game) -> None:
    assert game.schema.variants, "a game has at least one preset"
    ids = [v.id for v in game.schema.variants]
    assert len(set(ids)) == len(ids)
    for variant in game.schema.variants:
        assert game.schema.validate(dict(variant.options)) == dict(variant.options)
        assert game.shape(variant.id, dict(variant.options)) == variant.shape
        for name in (variant.id, *variant.aliases):
            assert game.schema.variant(name) is variant
            assert game.schema.variant(name.upper()) is variant
        hand = game.new_hand(variant.id, dict(variant.options), seed=1)
        assert hand.to_act()
    for spec in game.schema.options:
        assert spec.check(spec.default) == spec.default
        assert spec.label.zh and spec.label.en
        if spec.choice_names:  # named choices: one name each, in both languages
            assert len(spec.choice_names) == len(spec.choices)
            assert all(n.zh and n.en for n in spec.choice_names)
    doc = game.schema.to_json()
    assert json_round_trip(doc) == doc
    assert json_round_trip(game.info.to_json()) == game.info.to_json()
    assert json_round_trip(game.layout.to_json())["size"] == game.layout.size


@pytest.mark.parametrize("game", games())
def test_bad_options_are_refused_with_a_quote(game: Game) -> None:
    variant = game.schema.variants[0].id
    for spec in game.schema.options:
        for value in bad_values(spec):
            with pytest.raises(RuleConfigError) as caught:
                game.schema.validate({spec.key: value})
            assert repr(spec.key) in str(caught.value)
            with pytest.raises(RuleConfigError):
                game.new_hand(variant, {spec.key: value})
    with pytest.raises(RuleConfigError, match="no_such_option"):
        game.schema.validate({"no_such_option": 1})
    with pytest.raises(RuleConfigError, match="no-such-preset"):
        game.new_hand("no-such-preset")
    with pytest.raises(RuleConfigError):
        game.schema.validate(["not", "a", "dict"])
