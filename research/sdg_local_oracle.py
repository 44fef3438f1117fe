"""三丁拐: how much is there to gain over GreedyBot one decision at a time, even knowing the deal?

The search bot of 三丁拐 (docs/sandingguai.md §13) plays GreedyBot's choice unless its rollouts
show another candidate better by more than ``z`` standard errors. This asks what the best such
search could find. In hands of three GreedyBots, at each decision of a kind (``--kind``), every
candidate is rated from the **true** state — the hands as they are, only the wall's order
reshuffled — played on by three GreedyBots (``greedy_policy``, the same choices as GreedyBot on
each seat's view), all candidates on the same shuffles (common random numbers). That is an oracle:
it knows every hidden tile, and its rollout players are the real opponents.

- ``claim``: every window with a 碰 or 明杠 offered (not a 胡): each option against GreedyBot's,
  averaged by what GreedyBot chose, and the positions where another option is better by more
  than 2.5 standard errors.
- ``discard``: GreedyBot's close calls on its own turn (no 胡 offered): its choice and the
  ``--width`` best discards by its own rating. The oracle picks the best candidate on
  ``--shuffles`` shuffles and is credited with its gain over GreedyBot's choice on as many *other*
  shuffles, so the figure is what choosing by that many oracle rollouts is worth, without the
  selection's own luck. With ``--choose view`` the choice is made as a search can make it: on as
  many worlds dealt from the seat's view (``Knowledge``, the tiles it has not seen dealt
  uniformly), played on by three GreedyBots (``search:greedy=1``'s rollouts), and measured on
  the true-state shuffles as before.

    python research/sdg_local_oracle.py --kind claim --hands 120 --shuffles 16    # ~3 min
    python research/sdg_local_oracle.py --kind discard --hands 30 --shuffles 12   # ~7 min
    python research/sdg_local_oracle.py --kind discard --hands 30 --shuffles 12 --choose view
"""

from __future__ import annotations

import argparse
import collections
import math
import random
from collections.abc import Iterator

from weimaque.games.sandingguai import State, get_rules, observe
from weimaque.games.sandingguai.actions import DISCARD, GANG, HU, PASS, PENG, TING
from weimaque.games.sandingguai.bots import GreedyBot, _table
from weimaque.games.sandingguai.determinize import Knowledge
from weimaque.games.sandingguai.search import rollout
from weimaque.games.sandingguai.state import CLAIMS, ROB, SELF

NAMES = {PENG: "碰", GANG: "明杠", PASS: "过"}


def positions(kind: str, seeds: range, width: int) -> Iterator[tuple[State, int, int, list[int]]]:
    """(state, seat, GreedyBot's action, candidates) at each decision of ``kind`` in hands of
    three GreedyBots, one per seed."""
    rules = get_rules("sandingguai")
    greedy = GreedyBot(rules)
    for seed in seeds:
        st = State(rules, seed=seed)
        rng = random.Random(seed)
        while st.phase != 3:
            p = st.current_player()
            view = observe(st, p)
            legal = view.legal
            a = greedy.act(view, rng)
            cands: list[int] = []
            if HU in legal:
                pass
            elif kind == "claim" and st.phase in (CLAIMS, ROB):
                if PENG in legal or GANG in legal:
                    cands = list(legal)
            elif kind == "discard" and st.phase == SELF and DISCARD <= a < TING:
                table = _table(view)
                tiles = [x - DISCARD for x in legal if DISCARD <= x < TING]
                rated = greedy._rate_discards(table.hand, table.melds, table, tiles)
                near = [t for t in rated if rated[t][1] != float("-inf")]
                order = sorted(near, key=lambda t: rated[t], reverse=True)[:width]
                cands = list(dict.fromkeys([a, *(DISCARD + t for t in order)]))
            if len(cands) > 1:
                yield st.clone(), p, a, cands
            st.apply(a, p)


def rate(
    st: State,
    seat: int,
    cands: list[int],
    shuffles: int,
    salt: int,
    view: bool = False,
    first: int = 0,
) -> dict[int, list[int]]:
    """Each candidate's points for ``seat`` over ``shuffles`` reshuffles of the wall (with
    ``view``: worlds dealt from the seat's view instead), played on by three GreedyBots (the
    same world and the same random numbers for every candidate); ``first``: the index of the
    first shuffle."""
    greedy = GreedyBot(st.rules)
    knowledge = Knowledge.of(observe(st, seat), st.rules) if view else None
    out: dict[int, list[int]] = {c: [] for c in cands}
    for k in range(first, first + shuffles):
        if knowledge is not None:
            base = knowledge.sample(random.Random(salt * 1000 + k))
        else:
            base = st.clone()
            wall = base.wall[base.head : base.tail + 1]
            random.Random(salt * 1000 + k).shuffle(wall)
            base.wall[base.head : base.tail + 1] = wall
        for c in cands:
            world = base.clone()
            world.apply(c, seat)
            out[c].append(rollout(world, random.Random(k), greedy)[seat])
    return out


def mean_se(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, math.inf
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1) / n)


def claims(seeds: range, shuffles: int) -> None:
    by: dict[tuple[int, int], list[float]] = collections.defaultdict(list)
    better = []
    n = 0
    for i, (st, seat, a, cands) in enumerate(positions("claim", seeds, 0)):
        n += 1
        outs = rate(st, seat, cands, shuffles, i)
        for c in cands:
            if c == a:
                continue
            diff = [x - y for x, y in zip(outs[c], outs[a], strict=True)]
            m, se = mean_se(diff)
            by[(a, c)].append(m)
            if m > 2.5 * se:
                better.append(m)
    hands = len(seeds)
    print(f"{n} claim windows in {hands} hands ({shuffles} shuffles each)")
    for (a, c), ms in sorted(by.items()):
        m, se = mean_se(ms)
        print(
            f"  GreedyBot {NAMES.get(a, a)}, instead {NAMES.get(c, c)}: {len(ms)} windows,"
            f" {m:+.2f} ± {se:.2f} points"
        )
    gain = sum(better) / (3 * hands)
    print(
        f"  another option better by more than 2.5 standard errors: {len(better)} windows,"
        f" {sum(better) / max(1, len(better)):+.2f} points each, {gain:+.3f} a seat-hand"
    )


def discards(seeds: range, shuffles: int, width: int, choose: str = "true") -> None:
    gains = []
    for i, (st, seat, a, cands) in enumerate(positions("discard", seeds, width)):
        if choose == "view":
            chosen = rate(st, seat, cands, shuffles, 10**6 + i, view=True)
            pick = max(cands, key=lambda c: sum(chosen[c]))
        else:
            chosen = rate(st, seat, cands, shuffles, i)
            pick = max(cands, key=lambda c: sum(chosen[c]))
        outs = rate(st, seat, [a, pick] if pick != a else [a], shuffles, i, first=shuffles)
        held_out = [x - y for x, y in zip(outs[pick], outs[a], strict=True)]
        gains.append(sum(held_out) / shuffles)
    hands = len(seeds)
    m, se = mean_se(gains)
    share = len(gains) / (3 * hands)
    print(f"{len(gains)} close calls in {hands} hands (GreedyBot's and {width} more discards)")
    on = f"{shuffles} worlds from the view" if choose == "view" else f"{shuffles} shuffles"
    print(
        f"  choosing on {on}, measured on {shuffles} true-state shuffles:"
        f" {m:+.3f} ± {se:.3f} a decision, {m * share:+.3f} ± {se * share:.3f} a seat-hand"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=("claim", "discard"), required=True)
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--shuffles", type=int, default=16)
    parser.add_argument("--width", type=int, default=2)
    parser.add_argument("--choose", choices=("true", "view"), default="true")
    args = parser.parse_args()
    seeds = range(args.seed, args.seed + args.hands)
    if args.kind == "claim":
        claims(seeds, args.shuffles)
    else:
        discards(seeds, args.shuffles, args.width, args.choose)


if __name__ == "__main__":
    main()
