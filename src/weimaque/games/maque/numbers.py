"""The numbers a 偎麻雀 table shows: 明息 of every seat, one's own 息 and 听 hints (RULES §6.4, §7),
and a result's breakdown; what the server adds to its messages for this game through the
``"table"`` capability (:class:`~weimaque.games.protocol.TableExtras`, docs/protocol.md §2.2).

Everything here is computed from one viewer's view (``game.observation.Observation``) only,
never from the game state, so a number or a hint cannot carry information the viewer may not
see (RULES §2.1, §4.3).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final

from weimaque.games.maque.analysis.arrange import triple_xi
from weimaque.games.maque.cards import FACE_CHARS, NUM_FACES, counts_of
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.events import Event, Won
from weimaque.games.maque.game.observation import Observation, observation, shown_xi, view_of
from weimaque.games.maque.game.record import start_from_record
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.match import Match
from weimaque.games.maque.notation import Meld, MeldKind
from weimaque.games.maque.rules.config import RuleConfig
from weimaque.games.maque.scoring.explain import breakdown_json, group_tags
from weimaque.games.maque.scoring.waits import Wait, _lone_singles, waits

_CACHE_SIZE: Final = 512
#: The 息 of a 坎 of each face in hand (RULES §6.4), looked up for every view a table shows.
_KAN_XI: Final = tuple(triple_xi("kan", f) for f in range(NUM_FACES))


def table_xi(obs: Observation, rules: RuleConfig) -> dict[str, Any]:
    """明息 of every seat's visible melds, and for a seated viewer its own 息 and distance to 起胡.

    A face-down 偎 the viewer may not see is counted in ``hidden`` (3 or 4 息 each, unknown).
    """
    seats = len(obs.melds)  # three, or two (RULES §2.5)
    shown = [0] * seats
    hidden = [0] * seats
    for s in range(seats):
        melds = obs.melds[s]
        shown[s] = shown_xi(melds)
        hidden[s] = sum(1 for m in melds if m.faces is None)
    out: dict[str, Any] = {"melds": shown, "hidden": hidden, "min_xi": rules.min_xi}
    viewer = obs.viewer
    if isinstance(viewer, int) and obs.hand is not None:
        counts = counts_of(obs.hand)
        kan = sum(_KAN_XI[f] for f, n in enumerate(counts) if n >= 3)
        own = shown[viewer] + kan
        out["own"] = {
            "melds": shown[viewer],
            "hand": kan,
            "total": own,
            "to_min": max(0, rules.min_xi - own),
        }
    return out


def seen_counts(obs: Observation) -> list[int]:
    """How many copies of each face the viewer can see (``Observation.seen_counts``)."""
    return obs.seen_counts()


#: A meld as a hint's cache keys it: (kind, faces), hashed and compared without Python code.
MeldKey = tuple[MeldKind, tuple[int, int, int]]


class HintCache:
    """Waits by (melds, hand), bounded: the same position is often asked many times."""

    def __init__(self) -> None:
        """An empty cache."""
        self._data: OrderedDict[tuple[Any, ...], list[Wait]] = OrderedDict()

    def waits(
        self, melds: tuple[MeldKey, ...], hand: tuple[int, ...], rules: RuleConfig
    ) -> list[Wait]:
        """``scoring.waits`` of a 19-card position (its melds as ``(kind, faces)``),
        remembered."""
        key = (rules.id, id(rules), melds, hand)
        data = self._data
        found = data.get(key)
        if found is None:
            found = waits(tuple(Meld(kind, faces) for kind, faces in melds), hand, rules)
            data[key] = found
            if len(data) > _CACHE_SIZE:
                data.popitem(last=False)
        else:
            data.move_to_end(key)
        return found


def _wait_json(w: Wait, unseen: list[int]) -> dict[str, Any]:
    return {
        "face": FACE_CHARS[w.face],
        "self": w.self_total,
        "other": w.other_total,
        "left": unseen[w.face],
    }


#: Each face's index by its character (``出`` actions name the face).
_FACE_OF: Final = {c: f for f, c in enumerate(FACE_CHARS)}


def hints(obs: Observation, rules: RuleConfig, cache: HintCache) -> dict[str, Any] | None:
    """听 hints of a seated viewer (RULES §6, §7): the waits after each legal 出, or now.

    ``discards`` maps each legal discard to the faces that would then win (with the totals by
    自摸 / by another's card and the unseen copies left); ``waits`` lists the faces that win now
    when the viewer holds 19 cards. None for a viewer without a hand.

    A server asks this of every message to a seat that wants hints, so it does no work whose
    answer it can tell beforehand: a discard that leaves two lone cards has no waits (the
    scorer's own first test, ``_lone_singles``: taking a card away never gives a lone card
    company, so any lone card of the 20 but the one discarded stays lone), and the unseen
    copies are counted only once there is a wait to show them for.
    """
    viewer = obs.viewer
    if not isinstance(viewer, int) or obs.hand is None or obs.phase == "over":
        return None
    own = tuple((m.kind, m.faces) for m in obs.melds[viewer] if m.faces is not None)
    hand = counts_of(obs.hand)
    size = len(obs.hand) + 3 * len(own)
    out: dict[str, Any] = {"discards": [], "waits": []}
    unseen: list[int] | None = None
    if size == 20:
        lone = _lone_singles(hand)
        for action in obs.legal_actions:
            if not action.startswith("出"):
                continue
            face_char = action[1:]
            f = _FACE_OF[face_char]
            if len(lone) - (f in lone) > 1:
                continue  # two lone cards stay: nothing wins (scoring.waits)
            after = list(hand)
            after[f] -= 1
            found = cache.waits(own, tuple(after), rules)
            if found:
                if unseen is None:
                    unseen = obs.unseen_counts()
                out["discards"].append(
                    {"discard": face_char, "waits": [_wait_json(w, unseen) for w in found]}
                )
    elif size == 19:
        found = cache.waits(own, tuple(hand), rules)
        if found:
            unseen = obs.unseen_counts()
            out["waits"] = [_wait_json(w, unseen) for w in found]
    return out


def replay_steps(record: dict[str, Any]) -> list[dict[str, Any]]:
    """A finished hand as steps: each action with its events, the full view after it and the
    numbers as they stood then (明息 of each seat; ``observation.scores`` holds the match scores
    before the hand, the last step adds what the hand paid)."""
    state = start_from_record(record)

    def step(action: str | None, seat: int | None, events: list[Event]) -> dict[str, Any]:
        view = view_of(state, "all")
        return {
            "action": action,
            "seat": seat,
            "events": [v for e in events if (v := e.view("all")) is not None],
            "observation": view.to_json(),
            "numbers": table_xi(view, state.rules),
        }

    steps = [step(None, None, list(state.events))]
    for seat, text in record["actions"]:
        events = state.apply(int(seat), Action.parse(text))
        steps.append(step(text, int(seat), events))
    if state.result is not None and state.result.breakdown is not None:
        steps[-1]["breakdown"] = breakdown_json(state.result.breakdown)
    steps[-1]["settlement"] = record.get("settlement")
    return steps


def hand_end_json(state: GameState, match: Match) -> dict[str, Any]:
    """What a finished, booked hand shows at its end (docs/protocol.md §2.2 ``hand_end``): the
    result, every seat's cards face up, the breakdown, its settlement and the 留子 pool shared
    out if the match ended with it."""
    r = state.result
    assert r is not None
    won = next((e for e in reversed(state.events) if isinstance(e, Won)), None)
    shown = observation(state, "all")
    return {
        "result": {
            "winner": r.winner,
            "chou": r.chou,
            "card": None if won is None else won.view("public")["card"],
            "source": r.source,
            "origin": r.origin,
            "from": _card_from(state) if won is not None else None,
            "deal_pattern": r.deal_pattern,
            "total": 0 if r.breakdown is None else r.breakdown.total,
            "hand": None if won is None else won.view("public")["hand"],
            # RULES §8.1: a hand ends 臭 when a draw is needed and the stock is empty.
            "chou_reason": "stock_empty" if r.chou else None,
        },
        # Every seat's cards face up, as the table turns them over at the end.
        "hands": shown["hands"],
        "melds": shown["melds"],
        "dead": shown["dead"],
        "breakdown": None if r.breakdown is None else breakdown_json(r.breakdown),
        "settlement": match.settlements[-1].to_dict(),
        "final_pool_share": None if match.final_share is None else list(match.final_share),
    }


def _card_from(state: GameState) -> int | None:
    """The seat that turned up or discarded the winning card (the winner on a 自摸)."""
    for e in reversed(state.events):
        if isinstance(e, Won):
            continue
        if getattr(e, "card", None) is not None and e.kind in (
            "drew",
            "discard",
            "release",
            "wei",
        ):
            return e.seat
    return None


__all__ = [
    "HintCache",
    "breakdown_json",
    "group_tags",
    "hand_end_json",
    "hints",
    "replay_steps",
    "seen_counts",
    "table_xi",
]
