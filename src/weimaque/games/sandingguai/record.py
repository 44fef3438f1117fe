"""Hand records of 三丁拐 as JSON, and replay: a hand is fully described by its rules, seed
(or stacked deck), dealer, streak and decisions (SDG §2.2).

A record read from outside is checked field by field before it is replayed; anything wrong is
a ``RecordError`` that quotes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from weimaque.errors import RecordError, WeimaqueError, quoted
from weimaque.games.sandingguai.actions import Action
from weimaque.games.sandingguai.events import Event
from weimaque.games.sandingguai.rules import get_rules
from weimaque.games.sandingguai.state import State

RECORD_VERSION: Final = 1
GAME: Final = "sandingguai"
MAX_ACTIONS: Final = 2000


def hand_record(state: State) -> dict[str, Any]:
    """The JSON record of a hand (finished or not): enough to replay it exactly."""
    doc: dict[str, Any] = {
        "version": RECORD_VERSION,
        "game": GAME,
        "rules": state.rules.id,
        "overrides": state.rules.overrides(),
        "seed": state.seed,
        "dealer": state.dealer,
        "streak": state.streak,
        "actions": [[seat, str(Action.from_id(a))] for seat, a in state.history],
    }
    if state.seed is None:
        doc["deck"] = list(state.deck)
    if state.result is not None:
        doc["net"] = list(state.result.net)
    return doc


def _field(doc: dict[str, Any], name: str, kind: type, allow_none: bool = False) -> Any:
    value = doc.get(name)
    if value is None and allow_none:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RecordError(f"record field {name!r} must be {kind.__name__}, not {quoted(value)}")
    return value


def replay(doc: Any) -> State:
    """Replay a hand record; raise ``RecordError`` quoting what is wrong with it."""
    steps = replayed(doc)
    state, _, _ = next(steps)
    for _ in steps:
        pass
    return state


def replayed(doc: Any) -> Iterator[tuple[State, tuple[int, int] | None, tuple[Event, ...]]]:
    """A hand record replayed step by step, checked as :func:`replay` checks it: the state at
    the deal (with no action and the deal's events), then after each action ``(seat, id)``
    with that action's events. The same ``State`` object is yielded each time, moved on."""
    if not isinstance(doc, dict):
        raise RecordError(f"a hand record is a JSON object, not {quoted(doc)}")
    if doc.get("version") != RECORD_VERSION or doc.get("game") != GAME:
        raise RecordError(
            f"not a {GAME} record of version {RECORD_VERSION}: "
            f"{quoted({k: doc.get(k) for k in ('game', 'version')})}"
        )
    try:
        rules = get_rules(_field(doc, "rules", str), **_field(doc, "overrides", dict))
    except WeimaqueError as exc:
        raise RecordError(f"record rules: {exc}") from exc
    seed = _field(doc, "seed", int, allow_none=True)
    deck = doc.get("deck") if seed is None else None
    if seed is None and not (isinstance(deck, list) and all(isinstance(t, int) for t in deck)):
        raise RecordError(f"a record without a seed needs its deck, not {quoted(deck)}")
    actions = _field(doc, "actions", list)
    if len(actions) > MAX_ACTIONS:
        raise RecordError(f"{len(actions)} actions: a hand has at most {MAX_ACTIONS}")
    try:
        state = State(rules, seed, _field(doc, "dealer", int), _field(doc, "streak", int), deck)
    except WeimaqueError as exc:
        raise RecordError(f"record deal: {exc}") from exc
    yield state, None, tuple(state.events)
    for i, item in enumerate(actions):
        if not (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], int)
            and not isinstance(item[0], bool)
            and isinstance(item[1], str)
        ):
            raise RecordError(f"action {i} must be [seat, action], not {quoted(item)}")
        try:
            action = Action.parse(item[1]).id
            events = state.apply(action, item[0])
        except WeimaqueError as exc:
            raise RecordError(f"action {i} {quoted(item)}: {exc}") from exc
        yield state, (item[0], action), events
    if "net" in doc and (state.result is None or list(state.result.net) != doc["net"]):
        got = None if state.result is None else list(state.result.net)
        raise RecordError(f"replay ends with {got}, the record says {quoted(doc['net'])}")
