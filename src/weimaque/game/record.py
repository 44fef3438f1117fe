"""Hand records as JSON, and replay (the hand is fully described by rules, deal and actions)."""

from __future__ import annotations

from typing import Any, Final

from weimaque.cards import faces_str
from weimaque.errors import WeimaqueError
from weimaque.game.actions import Action
from weimaque.game.observation import observation
from weimaque.game.state import GameState
from weimaque.notation import parse_cards
from weimaque.rules.registry import overrides_of, rules_with

RECORD_VERSION: Final = 1


def hand_record(state: GameState) -> dict[str, Any]:
    """The JSON-ready record of a hand: rules (+ overrides), deal, actions, result."""
    record: dict[str, Any] = {
        "version": RECORD_VERSION,
        "rules": state.rules.id,
        "overrides": overrides_of(state.rules),
        "dealer": state.dealer,
        "seed": state.seed,
        "actions": [[seat, str(action)] for seat, action in state.actions],
        "result": None,
    }
    if state.seed is None:
        record["deal"] = {
            "hands": [faces_str(h) for h in state.initial_hands],
            "stock": faces_str(state.stock),
        }
    r = state.result
    if r is not None:
        record["result"] = {
            "winner": r.winner,
            "card": None if r.card is None else faces_str((r.card,)),
            "source": r.source,
            "deal_pattern": r.deal_pattern,
            "haidi": r.haidi,
            "total": 0 if r.breakdown is None else r.breakdown.total,
            "breakdown": None if r.breakdown is None else r.breakdown.to_dict(),
            # every seat's melds as they lay at the end, each 吃 with the card it claimed
            "melds": observation(state, "all")["melds"],
        }
    return record


def start_from_record(record: dict[str, Any]) -> GameState:
    """The hand of a record as dealt, before any action."""
    try:
        rules = rules_with(record["rules"], record.get("overrides") or {})
        dealer = int(record["dealer"])
        if record.get("seed") is not None:
            return GameState.new(rules, int(record["seed"]), dealer)
        deal = record["deal"]
        hands = [parse_cards(h) for h in deal["hands"]]
        return GameState(rules, hands, parse_cards(deal["stock"]), dealer)
    except (KeyError, TypeError) as exc:
        raise WeimaqueError(f"not a hand record: missing or bad {exc}") from exc


def replay(record: dict[str, Any]) -> GameState:
    """Replay a record's actions on its deal; the result must match the recorded one."""
    state = start_from_record(record)
    for seat, text in record["actions"]:
        state.apply(int(seat), Action.parse(text))
    recorded = record.get("result")
    if recorded is not None:
        result = hand_record(state)["result"]
        # Records written before a field existed (e.g. "haidi", "melds") lack it: compare the rest.
        if result is None or any(result.get(k) != v for k, v in recorded.items()):
            raise WeimaqueError("replay does not reproduce the recorded result")
    return state
