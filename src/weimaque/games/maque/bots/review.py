"""复盘: replay a recorded hand from one seat's view and let a search bot grade its decisions.

For every decision of the seat (a point where it had more than one legal action) the review
rebuilds the seat's :class:`~weimaque.games.maque.bots.base.BotView` (nothing else: the other hands,
face-down 偎 and the stock stay hidden, exactly as at the table), runs the search bot's paired
comparison with the action actually taken added to the candidates, and reports:

* ``best``: the action the search bot would choose;
* ``cost``: the loss of the decision (docs/bots.md "The loss of a decision"): the points of
  the hand for the seat (``GameState.returns``, RULES §8.3, the unit of the result's 合计)
  expected after ``best`` minus after the action taken, both played on by the search's rollout
  policy in the same sampled worlds (the mean paired difference), with its standard error ``se``;
* ``value``: the points the seat was expected to get on ``best``'s line;
* ``mistake``: the cost is at least :data:`MISTAKE_POINTS` and at least two standard errors;
* ``reason``: what kind of mistake — a declined 胡 worth taking, a discard that fed an opponent's
  碰 or 吃 when another discard was preferred, a 听 given up — or the plain preference.

A hand's points lost add its clear mistakes' costs, bounded by what the hand could plausibly
have cost the seat: the most the bot's line was expected to bring at one of its decisions, less
what the seat got (never below 0). Each decision's cost assumes the bot's play from there on,
so the mistakes of one hand overlap and their sum may pass that bound; the summary then counts
the bound, and says so (``capped``) with the figures that explain it.

Each decision's random numbers come from its hand and step numbers alone, so the review of a seat
depends only on what that seat saw: a different hidden deal with the same visible history gives
the same review (a test holds this).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from weimaque.errors import RecordError, WeimaqueError, quoted
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.mcts import MctsBot, SearchResult
from weimaque.games.maque.cards import Counts
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.record import check_hand_record, start_from_record
from weimaque.games.maque.notation import Meld, parse_cards
from weimaque.games.maque.scoring.waits import waits

#: A decision is a clear mistake when it costs at least this many points and two standard errors.
MISTAKE_POINTS: Final = 3.0
#: The default reviewer: the search bot with an iteration budget, so a review is reproducible.
DEFAULT_BOT: Final = "mcts:iters=600"


@dataclass(frozen=True, slots=True)
class Decision:
    """One graded decision of the reviewed seat."""

    hand: int
    step: int
    taken: str
    best: str
    cost: float
    se: float
    mistake: bool
    reason: str
    #: The reason as data: ``{"kind": ..., ...}`` with the numbers and actions it names, so a
    #: reader can say it in any language (the browser's 复盘 does).
    why: Mapping[str, Any]
    #: The points of the hand the seat was expected to get on ``best``'s line.
    value: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (one entry of ``"decisions"``)."""
        return {
            "hand": self.hand,
            "step": self.step,
            "taken": self.taken,
            "best": self.best,
            "cost": round(self.cost, 2),
            "se": round(self.se, 2),
            "mistake": self.mistake,
            "reason": self.reason,
            "why": dict(self.why),
            "value": round(self.value, 2),
        }


@dataclass(frozen=True, slots=True)
class Review:
    """The review of one seat over the hands of a record."""

    seat: int
    bot: str
    decisions: tuple[Decision, ...]
    hands: tuple[int, ...]
    #: The points each reviewed hand brought the seat (RULES §8.3), by hand number.
    results: Mapping[int, int] | None = None

    def hand_losses(self) -> list[dict[str, Any]]:
        """Per hand with a clear mistake: the points lost, bounded (docs/bots.md)."""
        out = []
        for number in self.hands:
            ds = [d for d in self.decisions if d.hand == number]
            mistakes = [d for d in ds if d.mistake]
            if not mistakes:
                continue
            added = sum(d.cost for d in mistakes)
            got = (self.results or {}).get(number)
            expected = max(d.value for d in ds)
            # The mistakes' costs overlap (each assumes the bot's play after it): past what the
            # bot's line was expected to bring less what the hand brought, they are not counted.
            bound = added if got is None else max(0.0, expected - got)
            out.append(
                {
                    "hand": number,
                    "lost": round(min(added, bound), 2),
                    "added": round(added, 2),
                    "expected": round(expected, 2),
                    "result": got,
                    "capped": added > bound,
                }
            )
        return out

    def summary(self) -> dict[str, Any]:
        """Counts, agreement with the bot, the estimated points lost, the worst decisions."""
        n = len(self.decisions)
        mistakes = [d for d in self.decisions if d.mistake]
        losses = self.hand_losses()
        lost = sum(x["lost"] for x in losses)
        agree = sum(1 for d in self.decisions if d.taken == d.best)
        worst = sorted(mistakes, key=lambda d: -d.cost)[:3]
        kinds: dict[str, int] = {}
        for d in mistakes:
            kind = str(d.why["kind"])
            kinds[kind] = kinds.get(kind, 0) + 1
        worst_one = max(mistakes, key=lambda d: d.cost) if mistakes else None
        return {
            "hands": list(self.hands),
            "decisions": n,
            "agreement": round(agree / n, 3) if n else 1.0,
            "mistakes": len(mistakes),
            "points_lost": round(lost, 2),
            "hand_losses": losses,
            "capped": any(x["capped"] for x in losses),
            "kinds": kinds,
            "worst": [{"hand": d.hand, "step": d.step, "cost": round(d.cost, 2)} for d in worst],
            # The replay's step of the worst decision: the view after its action (step + 1).
            "agree": agree,
            "worst_decision": None
            if worst_one is None
            else {
                "hand": worst_one.hand,
                "step": worst_one.step,
                "taken": worst_one.taken,
                "best": worst_one.best,
            },
            "text": summary_text(n, agree, mistakes, lost, losses),
        }

    def to_dict(self) -> dict[str, Any]:
        """The JSON object printed by ``wmq review --json``."""
        return {
            "seat": self.seat,
            "bot": self.bot,
            "decisions": [d.to_dict() for d in self.decisions],
            "summary": self.summary(),
        }


def summary_text(
    n: int,
    agree: int,
    mistakes: Sequence[Decision],
    lost: float,
    losses: Sequence[Mapping[str, Any]] = (),
) -> str:
    """A short closing sentence for a review. Steps are the replay's: the view after the
    decision's action, ``step + 1`` (``step`` counts the hand's actions from 0)."""
    if n == 0:
        return "No decisions to review: this seat never had a choice."
    head = f"{n} decisions, {agree} as the bot would play."
    if not mistakes:
        return head + " No clear mistakes."
    worst = max(mistakes, key=lambda d: d.cost)
    text = (
        f"{head} {len(mistakes)} clear mistake(s), about {lost:.1f} points lost; the worst at "
        f"hand {worst.hand} step {worst.step + 1}: {worst.taken} instead of {worst.best}."
    )
    capped = [x for x in losses if x["capped"]]
    if capped:
        x = capped[0]
        text += (
            f" Their costs overlap (each assumes the bot's play after it): {x['added']:.1f} "
            f"added, counted as {x['lost']:.1f}, the bot's line expected {x['expected']:+.1f} "
            f"and the hand paid {x['result']:+d}."
        )
    return text


def record_hands(record: Mapping[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """The (number, hand record) pairs of a hand record, a match record or a server response."""
    if not isinstance(record, Mapping):
        raise RecordError(f"not a hand or match record: expected a JSON object: {quoted(record)}")
    if "hands" in record and isinstance(record["hands"], list):
        return [(k, check_hand_record(h, f"hand {k}")) for k, h in enumerate(record["hands"], 1)]
    if "record" in record and isinstance(record["record"], Mapping):
        number = record.get("number", 1)
        if type(number) is not int or not 1 <= number <= 10**9:
            raise RecordError(f"number must be a hand number, not {quoted(number)}")
        return [(number, check_hand_record(dict(record["record"]), f"hand {number}"))]
    if "actions" in record:
        return [(1, check_hand_record(dict(record)))]
    raise RecordError(
        "not a hand or match record: no 'actions', 'hands' or 'record' key "
        f"(keys: {quoted(sorted(record)[:8])})"
    )


def _melds(view: BotView) -> tuple[Meld, ...]:
    return tuple(Meld(m.kind, m.faces) for m in view.obs.melds[view.seat] if m.faces is not None)


def _waits_after(view: BotView, action: Action) -> bool:
    """Whether discarding with ``action`` leaves the seat waiting (听牌)."""
    if action.kind != "discard" or action.face is None:
        return False
    hand = list(view.hand())
    hand[action.face] -= 1
    counts: Counts = tuple(hand)
    return bool(waits(_melds(view), counts, view.rules))


def _fed(seen_after: Sequence[Mapping[str, Any]], seat: int, face: int) -> str | None:
    """The claim ("碰" or "吃") an opponent made of the seat's discard, from the seat's view."""
    for e in seen_after:
        kind = e["type"]
        if kind in ("peng", "chi") and e["seat"] != seat and parse_cards(e["card"])[0] == face:
            return "碰" if kind == "peng" else "吃"
        if kind in ("drew", "discard", "hu", "chou"):
            break
    return None


def _why(
    view: BotView,
    taken: Action,
    best: Action,
    result: SearchResult,
    seen_after: Sequence[Mapping[str, Any]],
    cost: float,
    se: float,
) -> dict[str, Any]:
    """What kind of decision this was, with what the sentence about it names."""
    seat = view.seat
    if taken == best:
        return {"kind": "agrees"}
    if best.kind == "hu" and taken.kind != "hu":
        return {"kind": "declined_hu", "score": round(result.mean(best))}
    if taken.kind == "discard" and taken.face is not None and best.kind == "discard":
        claim = _fed(seen_after, seat, taken.face)
        if claim is not None:
            return {"kind": "fed", "claim": claim, "taken": str(taken), "best": str(best)}
        if _waits_after(view, best) and not _waits_after(view, taken):
            return {"kind": "gave_up_ting", "taken": str(taken), "best": str(best)}
    numbers = {"best": str(best), "cost": round(cost, 1), "se": round(se, 1)}
    if cost >= 2 * se and cost > 0:
        return {"kind": "preference", **numbers}
    return {"kind": "close_call", **numbers}


def reason_text(why: Mapping[str, Any]) -> str:
    """The reason in English, for the terminal (``wmq review``)."""
    kind = why["kind"]
    if kind == "agrees":
        return "agrees with the bot"
    if kind == "declined_hu":
        return f"declined 胡: the 胡 scored {why['score']:+d} here"
    if kind == "fed":
        taken, best = why["taken"], why["best"]
        return f"fed a {why['claim']}: {taken} was claimed, {best} was the safer discard"
    if kind == "gave_up_ting":
        return f"gave up 听: {why['best']} kept the hand waiting, {why['taken']} did not"
    if kind == "preference":
        return f"preference: {why['best']} is ahead by {why['cost']:.1f} ± {why['se']:.1f}"
    return (
        f"close call: {why['best']} preferred, difference {why['cost']:+.1f} ± {why['se']:.1f} "
        "is within the noise"
    )


def review_hand(
    record: Mapping[str, Any], seat: int, bot: MctsBot, number: int = 1
) -> list[Decision]:
    """Grade every decision of ``seat`` in one hand record (RULES §3-§5 replayed)."""
    return _review_hand(record, seat, bot, number)[0]


def _review_hand(
    record: Mapping[str, Any], seat: int, bot: MctsBot, number: int
) -> tuple[list[Decision], int | None]:
    """The graded decisions and, for a finished hand, the points it brought the seat."""
    state = start_from_record(dict(record))
    if not 0 <= seat < state.n:  # two or three seats (RULES §2.5)
        names = "0 or 1" if state.n == 2 else "0, 1 or 2"
        raise WeimaqueError(f"seat must be {names}, not {seat!r}")
    actions = record["actions"]
    out: list[Decision] = []
    pending: list[tuple[int, BotView, Action, Action, SearchResult, int]] = []
    for step, (who, text) in enumerate(actions):
        try:
            action = Action.parse(text)
            state.verify(who, action)  # the search plays the action taken: it must be legal
        except WeimaqueError as exc:
            raise WeimaqueError(f"hand {number}, action {step + 1} {quoted(text)}: {exc}") from exc
        if who == seat:
            view = BotView.of(state, seat)
            if len(view.legal) > 1:
                rng = random.Random(f"review:{number}:{step}")
                result = bot.search(view, rng, include=(action,))
                best = result.choice
                pending.append((step, view, action, best, result, len(state.events)))
        state.apply(who, action)
    seen_all = [e.view(seat) for e in state.events]
    for step, view, taken, best, result, n_events in pending:
        cost, se = result.gain(best, taken)
        seen_after = [v for v in seen_all[n_events:] if v is not None][1:]
        mistake = taken != best and cost >= MISTAKE_POINTS and cost >= 2 * se
        why = _why(view, taken, best, result, seen_after, cost, se)
        decision = Decision(
            number,
            step,
            str(taken),
            str(best),
            cost,
            se,
            mistake,
            reason_text(why),
            why,
            result.mean(best),
        )
        out.append(decision)
    got = state.returns()[seat] if state.is_terminal() else None
    return out, got


def review(
    record: Mapping[str, Any], seat: int, bot_spec: str = DEFAULT_BOT, hand: int | None = None
) -> Review:
    """Review ``seat`` over every hand of a record (or only hand number ``hand``)."""
    bot = get_bot(bot_spec)
    if not isinstance(bot, MctsBot):
        raise WeimaqueError(f"review needs a search bot such as 'mcts:iters=600', not {bot_spec!r}")
    hands = record_hands(record)
    if not hands:
        raise RecordError("the record holds no hand")
    if hand is not None:
        hands = [(n, h) for n, h in hands if n == hand]
        if not hands:
            raise WeimaqueError(f"no hand {hand} in this record")
    decisions: list[Decision] = []
    results: dict[int, int] = {}
    for number, h in hands:
        try:
            graded, got = _review_hand(h, seat, bot, number)
        except (KeyError, TypeError, ValueError) as exc:
            raise WeimaqueError(f"hand {number}: not a valid hand record ({exc})") from exc
        decisions.extend(graded)
        if got is not None:
            results[number] = got
    return Review(seat, bot_spec, tuple(decisions), tuple(n for n, _ in hands), results)


__all__ = [
    "DEFAULT_BOT",
    "MISTAKE_POINTS",
    "Decision",
    "Review",
    "reason_text",
    "review",
    "review_hand",
]
