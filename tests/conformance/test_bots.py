"""Every bot a game offers plays every preset through the protocol: it reads only its seat's
bot view and answers a legal action id (docs/new-game.md, "Bots")."""

from __future__ import annotations

import random
from typing import Any

import pytest

from weimaque.errors import WeimaqueError
from weimaque.games import Game

from .kit import games, variants


@pytest.mark.parametrize(("game", "variant"), variants())
def test_every_bot_plays_a_hand_legally(game: Game, variant: str) -> None:
    assert game.bots, "a game offers at least one bot"
    assert "random" in {b.name for b in game.bots}
    for info in game.bots:
        if info.slow:
            continue  # search bots have their own tests and bench; one hand is too slow here
        bot = game.bot(info.name, variant)
        hand = game.new_hand(variant, seed=11)
        rng = random.Random(5)
        steps = 0
        while not hand.is_terminal():
            seat = rng.choice(hand.to_act())
            action = bot.act(hand.bot_view(seat), rng)
            assert action in hand.legal_actions(seat), (info.name, seat, action)
            hand.apply(seat, action)
            steps += 1
            assert steps < 2000
        assert hand.outcome() is not None


@pytest.mark.parametrize("game", games())
def test_bot_infos_are_json_and_unknown_bots_are_refused(game: Game) -> None:
    variant = game.schema.variants[0].id
    docs: list[Any] = [b.to_json() for b in game.bots]
    assert all(d["names"]["zh"] and d["about"]["en"] for d in docs)
    with pytest.raises(WeimaqueError, match="no-such-bot"):
        game.bot("no-such-bot", variant)
