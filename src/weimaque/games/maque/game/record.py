"""Hand records as JSON, and replay (the hand is fully described by rules, deal and actions).

A record read from a file or a request is checked before it is used (docs/terminal.md): its
text by :func:`parse_record` (size, JSON, nesting, string lengths, numbers), each hand by
:func:`check_hand_record` (every field's type and range), so a hostile file is refused with one
message that quotes what is wrong, never replayed into an error nobody wrote.
"""

from __future__ import annotations

from typing import Any, Final

from weimaque.errors import RecordError, WeimaqueError, quoted
from weimaque.games.maque.cards import faces_str
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.observation import observation
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.notation import parse_cards
from weimaque.games.maque.rules.registry import overrides_of, rules_with

# A record file's bounds are every game's (docs/terminal.md, "Record files"): the seam's.
from weimaque.games.records import MAX_NUMBER as MAX_NUMBER
from weimaque.games.records import MAX_RECORD_BYTES as MAX_RECORD_BYTES
from weimaque.games.records import check_bounds as check_bounds
from weimaque.games.records import parse_record as parse_record

RECORD_VERSION: Final = 1

#: The most actions a hand record may hold (a hand has a few hundred at most).
MAX_ACTIONS: Final = 2000
#: The players of a record that does not say (every record before two-player tables, RULES §2.5).
NUM_SEATS_RECORDED: Final = 3


def _int_in(record: dict[str, Any], key: str, low: int, high: int, where: str) -> int:
    value = record.get(key)
    if type(value) is not int or not low <= value <= high:
        raise RecordError(f"{where}: {key} must be an integer {low}..{high}, not {quoted(value)}")
    return value


def check_hand_record(record: Any, where: str = "hand") -> dict[str, Any]:
    """``record`` if it has the fields of a hand record, each of its type and range.

    Only the form is checked; whether the deal, the actions and the result hold is the replay's
    and ``wmq verify``'s to say.
    """
    if not isinstance(record, dict):
        raise RecordError(f"{where}: not a hand record: expected an object, not {quoted(record)}")
    for key in ("rules", "dealer", "actions"):
        if key not in record:
            raise RecordError(f"{where}: not a hand record: no {key!r}")
    if not isinstance(record["rules"], str):
        raise RecordError(f"{where}: rules must be a preset id, not {quoted(record['rules'])}")
    if not isinstance(record.get("overrides") or {}, dict):
        raise RecordError(
            f"{where}: overrides must be an object, not {quoted(record['overrides'])}"
        )
    players = record.get("players", NUM_SEATS_RECORDED)
    if type(players) is not int or players not in (2, 3):
        raise RecordError(f"{where}: players must be 2 or 3 (RULES §2.5), not {quoted(players)}")
    _int_in(record, "dealer", 0, players - 1, where)
    if record.get("seed") is not None:
        _int_in(record, "seed", 0, MAX_NUMBER, where)
    if record.get("pool") is not None:
        _int_in(record, "pool", 0, MAX_NUMBER, where)
    deal = record.get("deal")
    if deal is not None or record.get("seed") is None:
        hands = deal.get("hands") if isinstance(deal, dict) else None
        stock = deal.get("stock") if isinstance(deal, dict) else None
        buried = deal.get("buried", "") if isinstance(deal, dict) else None
        if (
            not isinstance(hands, list)
            or len(hands) != players
            or not all(isinstance(h, str) for h in hands)
            or not isinstance(stock, str)
            or not isinstance(buried, str)
        ):
            count = "two" if players == 2 else "three"
            raise RecordError(
                f"{where}: deal must be {{'hands': {count} strings, 'stock': a string"
                f"{', buried: a string' if players == 2 else ''}}}"
                f"{'' if record.get('seed') is not None else ' (the hand has no seed)'}, "
                f"not {quoted(deal)}"
            )
    actions = record["actions"]
    if not isinstance(actions, list) or len(actions) > MAX_ACTIONS:
        raise RecordError(
            f"{where}: actions must be a list of at most {MAX_ACTIONS}, not {quoted(actions)}"
        )
    for step, item in enumerate(actions, 1):
        if (
            not isinstance(item, list)
            or len(item) != 2
            or type(item[0]) is not int
            or not 0 <= item[0] < players
            or not isinstance(item[1], str)
        ):
            raise RecordError(
                f"{where}, action {step}: expected [seat 0..{players - 1}, action text], "
                f"not {quoted(item)}"
            )
    for key in ("result", "fairness", "settlement"):
        if record.get(key) is not None and not isinstance(record[key], dict):
            raise RecordError(f"{where}: {key} must be an object, not {quoted(record[key])}")
    settlement = record.get("settlement")
    if settlement is not None:
        seats = settlement.get("seats")
        persons = settlement.get("persons", [])
        if (
            not isinstance(seats, list)
            or len(seats) != players
            or not all(type(v) is int for v in seats)
            or not isinstance(persons, list)
            or len(persons) not in (0, 4)
            or not all(type(v) is int for v in persons)
            or not all(
                type(settlement.get(k)) is int
                for k in ("shouxing", "pool", "dealer", "next_dealer")
            )
        ):
            raise RecordError(
                f"{where}: settlement must hold seats (one integer per player), shouxing, pool, "
                f"dealer and next_dealer, not {quoted(settlement)}"
            )
    return record


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
    if state.n != NUM_SEATS_RECORDED:
        record["players"] = state.n  # RULES §2.5; a record without it has three
    if state.pool is not None:
        record["pool"] = state.pool  # the 留子 pool the winning layout was chosen with (§8.5.3)
    if state.seed is None:
        record["deal"] = {
            "hands": [faces_str(h) for h in state.initial_hands],
            "stock": faces_str(state.stock),
        }
        if state.buried:
            record["deal"]["buried"] = faces_str(state.buried)
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
    """The hand of a record as dealt, before any action; ``RecordError`` if it cannot be dealt."""
    check_hand_record(record)
    try:
        rules = rules_with(record["rules"], record.get("overrides") or {})
        dealer = int(record["dealer"])
        if rules.players != record.get("players", NUM_SEATS_RECORDED):
            raise RecordError(
                f"not a hand record: it says {record.get('players', NUM_SEATS_RECORDED)} players, "
                f"its rules seat {rules.players}"
            )
        pool = record.get("pool")
        if record.get("seed") is not None:
            return GameState.new(rules, int(record["seed"]), dealer, pool)
        deal = record["deal"]
        hands = [parse_cards(h) for h in deal["hands"]]
        buried = parse_cards(deal["buried"]) if deal.get("buried") else []
        return GameState(rules, hands, parse_cards(deal["stock"]), dealer, None, buried, pool)
    except (KeyError, TypeError) as exc:
        raise RecordError(f"not a hand record: missing or bad {exc}") from exc
    except WeimaqueError as exc:  # rules that cannot be, a deal that is no deal
        raise RecordError(f"not a hand record: {exc}") from exc


def replay(record: dict[str, Any]) -> GameState:
    """Replay a record's actions on its deal; the result must match the recorded one."""
    state = start_from_record(record)
    for seat, text in record["actions"]:
        state.apply(seat, Action.parse(text))
    recorded = record.get("result")
    if recorded is not None:
        result = hand_record(state)["result"]
        # Records written before a field existed (e.g. "haidi", "melds") lack it: compare the rest.
        if result is None or any(result.get(k) != v for k, v in recorded.items()):
            raise WeimaqueError("replay does not reproduce the recorded result")
    return state
