"""Decision quality against an oracle: how much each search's choices cost, position by position.

An arena of 1,200 hands tells two searches apart only when they differ by 2–3 points per hand
(its 95% interval is ±2.3). This experiment asks a sharper question on fewer hands. At every
fourth decision of greedy self-play that is not obvious (more than one candidate, no 胡 to take),
every given bot spec chooses from the seat's view; then an *oracle* rates each candidate, and
each choice, by ``--rollouts`` paired rollouts from the **true** state (the opponents' hands and
face-down 偎 as they are, the stock's order shuffled; every candidate played out in the same
worlds with the same seeds). A choice's *regret* is the best candidate's mean return minus the
choice's. All specs are rated by the same oracle values at the same positions, so differences
of mean regret are paired, and their standard errors are printed.

Regret is measured in the rollout model that the search plans in, so it says how close a search
comes to what it would choose if it knew the hands. Calibration (research/bots-log.md): greedy's
choices cost about 1.0–1.2 points a decision more than ``mcts:iters=300;keep=2``'s, which is +2.6
per hand in the arena; the search that reads the true hands (``oracle:``) 3.5–5 less, which is +10
per hand in the arena (``research/oracle.py``).
It is a proxy: its players after the decision are the rollout policy, the arena's are not, so a
search that gains here must still be confirmed in the arena (a chain setting that gained on one
set of hands gained nothing on another, and lost in the arena: research/bots-log.md, row 21).

Spec prefixes for analysis (worlds built by ``research/_truth.py``; never players): ``oracle:SPEC``
searches the true state; ``stock:SPEC`` knows which cards are in the stock and which in the
opponents' hands, but deals the latter between them at random; ``waits:SPEC`` (give it
``infer=N``) weighs the chain of ``mcts:infer`` towards the opponents' real waits.

Run: ``.venv/bin/python research/regret.py --hands 60 --bots
'mcts:iters=300;keep=2|mcts:iters=300;keep=2;infer=5;beta=4'`` (specs separated by ``|``; the
first is the reference of the paired differences; ``--out FILE`` keeps every position as JSON).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import weimaque.games.maque.bots.mcts as mcts
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.mcts import MctsBot
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.state import GameState

sys.path.insert(0, str(Path(__file__).parent))
from _truth import stock_truth, true_returns, truth, wait_match

#: What a spec prefix patches into the search for one decision, given the true state.
_PREFIXES: dict[str, Callable[[GameState], tuple[str, Any]]] = {
    "oracle": lambda st: ("Knowledge", truth(lambda _: st)),
    "stock": lambda st: ("Knowledge", stock_truth(lambda _: st)),
    "waits": lambda st: ("seat_loglik", wait_match(lambda _: st)),
}


def _split(spec: str) -> tuple[str | None, str]:
    head, _, rest = spec.partition(":")
    return (head, rest) if head in _PREFIXES else (None, spec)


def oracle_values(
    state: GameState, seat: int, actions: list[Action], rollouts: int, rng: random.Random
) -> dict[Action, float]:
    """Mean return of each action over paired rollouts from the true state."""
    return {
        a: sum(r) / rollouts for a, r in true_returns(state, seat, actions, rollouts, rng).items()
    }


def choose(spec: str, bot: MctsBot, view: BotView, state: GameState, seed: int) -> Action:
    """The spec's choice at ``view``, with its prefix's patch in place for this call only."""
    prefix, _ = _split(spec)
    if prefix is None:
        return bot.search(view, random.Random(seed)).choice
    name, value = _PREFIXES[prefix](state)
    saved = getattr(mcts, name)
    setattr(mcts, name, value)
    try:
        return bot.search(view, random.Random(seed)).choice
    finally:
        setattr(mcts, name, saved)


def positions(job: tuple[int, list[str], int, int]) -> list[dict[str, Any]]:
    """Every rated position of one hand of greedy self-play (hand seed ``seed + n``)."""
    n, specs, seed, rollouts = job
    greedy = get_bot("greedy")
    bots: dict[str, MctsBot] = {}
    for spec in specs:
        bot = get_bot(_split(spec)[1])
        if not isinstance(bot, MctsBot):
            raise SystemExit(f"{spec!r} is not an mcts spec: only searches can be compared here")
        bots[spec] = bot
    state = GameState.new("anxiang", seed + n, dealer=n % 3)
    rng = random.Random(n)
    out: list[dict[str, Any]] = []
    step = 0
    while not state.is_terminal():
        seat = state.current_player()
        view = BotView.of(state, seat)
        taken = greedy.act(view, rng)
        if step % 4 == 0 and view.obvious() is None:
            cands = bots[specs[0]].candidates(state, seat, list(view.legal))
            if taken not in cands:
                cands.append(taken)
            rec: dict[str, Any] = {"hand": n, "step": step, "phase": state.phase}
            choices = {"greedy": taken}
            for spec, bot in bots.items():
                start = time.process_time()
                choices[spec] = choose(spec, bot, view, state, step * 7 + n)
                rec["ms " + spec] = (time.process_time() - start) * 1000
            rated = cands + [c for c in choices.values() if c not in cands]
            values = oracle_values(
                state, seat, rated, rollouts, random.Random(f"regret:{seed}:{n}:{step}")
            )
            best = max(values.values())
            for spec, choice in choices.items():
                rec[spec] = best - values[choice]
            out.append(rec)
        state.apply(seat, taken)
        step += 1
    return out


def _line(name: str, recs: list[dict[str, Any]], ref: str) -> str:
    xs = [r[name] for r in recs]
    se = statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else 0.0
    d = [r[name] - r[ref] for r in recs]
    dse = statistics.stdev(d) / len(d) ** 0.5 if len(d) > 1 else 0.0
    timed = [r["ms " + name] for r in recs if "ms " + name in r]
    ms = f"median {statistics.median(timed):5.0f} ms CPU" if timed else "(not timed)"
    return (
        f"  {name:44} regret {statistics.mean(xs):6.3f} ± {se:.3f}   "
        f"vs first {statistics.mean(d):+6.3f} ± {dse:.3f}   {ms}"
    )


def report(recs: list[dict[str, Any]], specs: list[str]) -> None:
    """Mean regret per spec, and paired differences to the first spec (± standard errors)."""
    groups = {
        "all": recs,
        "discards": [r for r in recs if r["phase"] == "discard"],
        "claims": [r for r in recs if r["phase"] != "discard"],
    }
    for label, rs in groups.items():
        print(f"{label}: {len(rs)} positions")
        if rs:
            for name in ["greedy", *specs]:
                print(_line(name, rs, specs[0]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", required=True, help="mcts specs separated by '|'")
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--seed", type=int, default=5000)
    parser.add_argument("--rollouts", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None, help="write every rated position here (JSON)")
    args = parser.parse_args()
    specs = args.bots.split("|")
    jobs = [(n, specs, args.seed, args.rollouts) for n in range(args.hands)]
    start = time.perf_counter()
    recs: list[dict[str, Any]] = []
    with Pool(args.workers) as pool:
        for part in pool.imap(positions, jobs):
            recs += part
    if args.out:
        Path(args.out).write_text(json.dumps(recs) + "\n", "utf-8")
    print(f"{len(recs)} positions of {args.hands} hands, {time.perf_counter() - start:.0f} s")
    report(recs, specs)


if __name__ == "__main__":
    main()
