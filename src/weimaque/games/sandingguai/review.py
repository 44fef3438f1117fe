"""Replay steps and 复盘 of a finished 三丁拐 hand (docs/sandingguai.md §14).

:func:`replay_steps` turns a hand's record into the steps a replay shows: the deal, then each
action with its events and the all-seeing view after it (``"all"``: every hand face up, which
a replay of a *finished* hand may show, as 偎麻雀's does); the last step holds the hand's end
(the 翻牌, the transfers, each seat's net) in its view, and the settlement.

:func:`review` grades one seat's decisions. For every point where the seat had more than one
legal action, it rebuilds that seat's own view (:func:`.observation.observe`: the other hands
and the wall stay hidden, exactly as at the table) and races the search bot's candidates
(:meth:`.search.SearchBot.candidates`, in a window every option, at 定缺 every suit) with the
action actually taken added, over ``worlds`` determinized deals of what the seat could not see
(:class:`.determinize.Knowledge`), every candidate in every world played out by the search's
rollout policy with the same random numbers (common random numbers, no pruning). It reports:

* ``best``: the bot's choice, by its own rule (:meth:`.search.SearchBot._choose`: its base's,
  GreedyBot with the settlement's chicken costs, unless another candidate beats it by ``z``
  standard errors; a legal 胡 always, SDG §6.2);
* ``cost``: the seat's points of the hand (SDG §9) expected after ``best`` less after the action
  taken, the mean paired difference over the worlds, with its standard error ``se``;
* ``value``: the points expected on ``best``'s line;
* ``mistake``: a cost of at least :data:`MISTAKE_POINTS` and two standard errors;
* ``why``: ``agrees``, ``declined_hu`` (a legal 胡 passed: it scored at least the floor, SDG
  §6.2), ``preference`` (the cost is clear) or ``close_call`` (within the noise).

The output has the shape of 偎麻雀's review (``weimaque.games.maque.bots.review``), so the page
draws either. Each decision's random numbers come from its step number alone, so a review
depends only on what the seat saw. At the server's default of 15 worlds a decision costs a few
dozen rollouts of a few milliseconds at most; a seat's 10 to 25 decisions take a few seconds in
all (docs/sandingguai.md §14).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Final

from weimaque.errors import WeimaqueError, quoted
from weimaque.games.sandingguai.actions import HU, QUE, Action
from weimaque.games.sandingguai.determinize import Knowledge
from weimaque.games.sandingguai.observation import observe, observe_table
from weimaque.games.sandingguai.record import replayed
from weimaque.games.sandingguai.search import Arm, SearchBot, paired, rollout
from weimaque.games.sandingguai.state import NUM_SEATS

#: A decision is a clear mistake when it costs at least this many points and two standard errors.
MISTAKE_POINTS: Final = 3.0
#: The worlds a decision is weighed in by default (``review:worlds=N``); bounds of the parameter.
DEFAULT_WORLDS: Final = 15
MAX_WORLDS: Final = 400


def replay_steps(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A finished hand's record as replay steps (module doc); ``RecordError`` quoting what is
    wrong with the record."""
    steps: list[dict[str, Any]] = []
    state = None
    for state, taken, events in replayed(dict(record)):
        steps.append(
            {
                "action": None if taken is None else str(Action.from_id(taken[1])),
                "seat": None if taken is None else taken[0],
                "events": [v for e in events if (v := e.view("all")) is not None],
                "observation": observe_table(state, "all").to_dict(),
            }
        )
    assert state is not None
    settlement = record.get("settlement")
    if settlement is None and state.result is not None:
        settlement = {"seats": list(state.result.net)}
    steps[-1]["settlement"] = settlement
    return steps


def parse_spec(spec: str) -> int:
    """The worlds of a reviewer spec: ``review`` or ``review:worlds=N`` (1..:data:`MAX_WORLDS`);
    a ``WeimaqueError`` quoting anything else."""
    name, _, rest = spec.strip().partition(":")
    if name.strip() != "review":
        raise WeimaqueError(f"a 三丁拐 review takes 'review:worlds=N', not {quoted(spec)}")
    worlds = DEFAULT_WORLDS
    for item in rest.split(","):
        if not item.strip():
            continue
        key, _, value = item.partition("=")
        if key.strip() != "worlds" or not value.strip().isdecimal():
            raise WeimaqueError(f"a 三丁拐 review takes 'review:worlds=N', not {quoted(spec)}")
        worlds = int(value)
    if not 1 <= worlds <= MAX_WORLDS:
        raise WeimaqueError(f"worlds must be 1..{MAX_WORLDS}, not {quoted(spec)}")
    return worlds


def _race(
    knowledge: Knowledge, seat: int, candidates: list[int], worlds: int, rng: random.Random
) -> list[Arm]:
    """Every candidate played in every one of ``worlds`` sampled deals, the same rollout seed
    for all in a world (common random numbers)."""
    arms = [Arm(a) for a in candidates]
    seed = rng.getrandbits(64)
    for n in range(worlds):
        world = knowledge.sample(random.Random(seed + 2 * n))
        for arm in arms:
            st = world.clone()
            st.apply(arm.action, seat)
            arm.returns.append(rollout(st, random.Random(seed + 2 * n + 1))[seat])
    return arms


def _why(taken: int, best: int, value: float, cost: float, se: float) -> dict[str, Any]:
    if taken == best:
        return {"kind": "agrees"}
    if best == HU:
        return {"kind": "declined_hu", "score": round(value)}
    numbers = {"best": str(Action.from_id(best)), "cost": round(cost, 1), "se": round(se, 1)}
    if cost >= 2 * se and cost > 0:
        return {"kind": "preference", **numbers}
    return {"kind": "close_call", **numbers}


def _reason(why: Mapping[str, Any]) -> str:
    kind = why["kind"]
    if kind == "agrees":
        return "agrees with the bot"
    if kind == "declined_hu":
        return f"declined 胡: the 胡 scored about {why['score']:+d} here"
    if kind == "preference":
        return f"preference: {why['best']} is ahead by {why['cost']:.1f} ± {why['se']:.1f}"
    return (
        f"close call: {why['best']} preferred, difference {why['cost']:+.1f} ± {why['se']:.1f} "
        "is within the noise"
    )


def _decision(
    bot: SearchBot, view: Any, taken: int, step: int, worlds: int, rules: Any
) -> dict[str, Any]:
    """One graded decision of the seat whose view ``view`` is (module doc)."""
    rng = random.Random(f"review:{step}")
    legal = view.legal
    if legal[0] >= QUE:
        default = bot.base.choose_que(view, rng)
        candidates = list(dict.fromkeys((default, *legal)))
    elif HU in legal:
        default = HU  # SDG §6.2: the bot always takes a legal 胡
        candidates = [HU] if taken == HU else [HU, taken]
    else:
        default = bot.base.act(view, rng)
        candidates = bot.candidates(view, default)
    if taken not in candidates:
        candidates.append(taken)
    if len(candidates) == 1:
        arms = [Arm(taken)]
        best = taken
    else:
        arms = _race(Knowledge.of(view, rules), view.viewer, candidates, worlds, rng)
        best = default if default == HU else bot._choose(arms, default)
    by = {a.action: a for a in arms}
    cost, se = paired(by[best].returns, by[taken].returns) if best != taken else (0.0, 0.0)
    se = 0.0 if se == float("inf") else se
    why = _why(taken, best, by[best].mean(), cost, se)
    mistake = taken != best and cost >= MISTAKE_POINTS and cost >= 2 * se
    return {
        "hand": 1,
        "step": step,
        "taken": str(Action.from_id(taken)),
        "best": str(Action.from_id(best)),
        "cost": round(cost, 2),
        "se": round(se, 2),
        "mistake": mistake,
        "reason": _reason(why),
        "why": why,
        "value": round(by[best].mean(), 2),
    }


def _summary(decisions: list[dict[str, Any]], got: int | None) -> dict[str, Any]:
    """Counts, agreement, the points lost (bounded as 偎麻雀's review bounds them:
    docs/bots.md "The loss of a decision") and the worst decision, with a closing sentence."""
    n = len(decisions)
    agree = sum(1 for d in decisions if d["taken"] == d["best"])
    mistakes = [d for d in decisions if d["mistake"]]
    losses: list[dict[str, Any]] = []
    if mistakes:
        added = sum(d["cost"] for d in mistakes)
        expected = max(d["value"] for d in decisions)
        bound = added if got is None else max(0.0, expected - got)
        losses.append(
            {
                "hand": 1,
                "lost": round(min(added, bound), 2),
                "added": round(added, 2),
                "expected": round(expected, 2),
                "result": got,
                "capped": added > bound,
            }
        )
    lost = sum(x["lost"] for x in losses)
    worst = max(mistakes, key=lambda d: d["cost"]) if mistakes else None
    kinds: dict[str, int] = {}
    for d in mistakes:
        kinds[d["why"]["kind"]] = kinds.get(d["why"]["kind"], 0) + 1
    if n == 0:
        text = "No decisions to review: this seat never had a choice."
    else:
        text = f"{n} decisions, {agree} as the bot would play."
        if worst is None:
            text += " No clear mistakes."
        else:
            text += (
                f" {len(mistakes)} clear mistake(s), about {lost:.1f} points lost; the worst at "
                f"step {worst['step'] + 1}: {worst['taken']} instead of {worst['best']}."
            )
    return {
        "hands": [1],
        "decisions": n,
        "agreement": round(agree / n, 3) if n else 1.0,
        "mistakes": len(mistakes),
        "points_lost": round(lost, 2),
        "hand_losses": losses,
        "capped": any(x["capped"] for x in losses),
        "kinds": kinds,
        "worst": [
            {"hand": 1, "step": d["step"], "cost": d["cost"]}
            for d in sorted(mistakes, key=lambda d: -d["cost"])[:3]
        ],
        "agree": agree,
        "worst_decision": None
        if worst is None
        else {"hand": 1, "step": worst["step"], "taken": worst["taken"], "best": worst["best"]},
        "text": text,
    }


def review(record: Mapping[str, Any], seat: int, spec: str = "review") -> dict[str, Any]:
    """复盘 of ``seat`` (0..2) in one hand record, by ``spec`` (``review:worlds=N``): its
    decisions graded and a summary (module doc); ``WeimaqueError`` quoting a bad seat or spec,
    ``RecordError`` a bad record."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < NUM_SEATS:
        raise WeimaqueError(f"seat must be 0, 1 or 2, not {quoted(seat)}")
    worlds = parse_spec(spec)
    # The seat's own view before each of its decisions; the record's steps are checked as they
    # are replayed (a bad one is a RecordError quoting it).
    pending: list[tuple[int, Any, int]] = []
    gen = replayed(dict(record))
    state, _, _ = next(gen)
    view = observe(state, seat) if len(state.legal_actions(seat)) > 1 else None
    for step, (_, moved, _) in enumerate(gen):
        assert moved is not None
        if view is not None and moved[0] == seat:
            pending.append((step, view, moved[1]))
        mine = not state.is_terminal() and len(state.legal_actions(seat)) > 1
        view = observe(state, seat) if mine else None
    # The bot's own rule for leaving its base's line, over two halves of the worlds; every
    # discard as near 叫 is graded, a clear call too (docs/sandingguai.md §13, ``gap``).
    bot = SearchBot(state.rules, batch=max(1, worlds // 2), gap=1000)
    decisions: list[dict[str, Any]] = []
    for step, seen, taken in pending:
        decisions.append(_decision(bot, seen, taken, step, worlds, state.rules))
    got = state.result.net[seat] if state.result is not None else None
    return {
        "seat": seat,
        "bot": f"review:worlds={worlds}",
        "decisions": decisions,
        "summary": _summary(decisions, got),
    }


__all__ = ["DEFAULT_WORLDS", "MISTAKE_POINTS", "parse_spec", "replay_steps", "review"]
