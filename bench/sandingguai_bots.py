"""三丁拐 bots: GreedyBot's points per hand against two RandomBots, and its decision time.

Run: ``.venv/bin/python bench/sandingguai_bots.py [--hands 1200] [--seed 1] [--preset ID]
[--search-hands 1200 --jobs 2]``.
Duplicate deals (:func:`weimaque.games.sandingguai.bots.duplicate_match`): each seeded deal is
played three times, GreedyBot in seat 0, 1 and 2 (the dealer is seat 0), two RandomBots in the
other seats; ``--hands`` counts hands played (deals × 3). The 95% interval is the normal one over
the per-deal means (a deal's three seatings averaged, so the deal's luck cancels in part). The
decision time is the median and p90 of GreedyBot's ``act`` on decisions with more than one legal
action (one core, wall clock; ``observe`` not included).

The same run then measures SearchBot (:mod:`weimaque.games.sandingguai.search`, its default
budget unless ``--sims``/``--ms`` say otherwise) against two GreedyBots the same way over
``--search-hands`` hands (0: skip), in tasks of five deals (task ``i`` seeded ``seed * 1000 +
i``) handed one by one to ``--jobs`` processes; with ``--search-minutes`` no task starts after
that time, and the figures are over the tasks played. It prints the search seat's mean points
per hand, which is
its gain over a GreedyBot in its place (a deal played by three GreedyBots nets zero over its
three seatings), with its 95% interval, and the median and p90 of its decision time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

from weimaque.games.sandingguai import get_rules
from weimaque.games.sandingguai.bots import GreedyBot, RandomBot, duplicate_match
from weimaque.games.sandingguai.observation import View
from weimaque.games.sandingguai.rules import RuleConfig
from weimaque.games.sandingguai.search import SearchBot


class TimedGreedy(GreedyBot):
    """GreedyBot recording the wall time of each non-trivial decision."""

    __slots__ = ("times",)

    def __init__(self, rules: RuleConfig, times: list[float]) -> None:
        super().__init__(rules)
        self.times = times

    def act(self, view: View, rng: random.Random) -> int:
        start = time.perf_counter()
        action = super().act(view, rng)
        if len(view.legal) > 1:
            self.times.append((time.perf_counter() - start) * 1000)
        return action


class TimedSearch(SearchBot):
    """SearchBot recording the wall time of each non-trivial decision."""

    __slots__ = ("times",)

    def __init__(self, rules: RuleConfig, times: list[float], **params: float) -> None:
        super().__init__(rules, **params)
        self.times = times

    def act(self, view: View, rng: random.Random) -> int:
        start = time.perf_counter()
        action = super().act(view, rng)
        if len(view.legal) > 1:
            self.times.append((time.perf_counter() - start) * 1000)
        return action


def _search_share(
    preset: str, deals: int, seed: int, params: dict[str, float]
) -> tuple[list[float], list[float], list[int]]:
    """One process's share: per-deal means of the search seat, its decision times, and its
    points per hand played."""
    rules = get_rules(preset)
    times: list[float] = []
    result = duplicate_match(
        rules, deals, seed, lambda: TimedSearch(rules, times, **params), lambda: GreedyBot(rules)
    )
    return result.per_deal(), times, [net[seat] for _, seat, net in result.rows]


#: Deals per task of the search part: tasks are handed to the processes one by one.
CHUNK = 5


def _search(args: argparse.Namespace) -> None:
    deals = max(1, args.search_hands // 3)
    params: dict[str, float] = {}
    if args.sims is not None:
        params["sims"] = args.sims
    if args.ms is not None:
        params["ms"] = args.ms
    tasks = [min(CHUNK, deals - i) for i in range(0, deals, CHUNK)]
    limit = args.search_minutes * 60 if args.search_minutes else float("inf")
    start = time.perf_counter()
    parts = []
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        running: set[Future[tuple[list[float], list[float], list[int]]]] = set()
        i = 0
        while i < len(tasks) or running:
            while i < len(tasks) and len(running) < args.jobs:
                if time.perf_counter() - start > limit:
                    tasks = tasks[:i]  # out of time: no new task
                    break
                seed = args.seed * 1000 + i
                running.add(pool.submit(_search_share, args.preset, tasks[i], seed, params))
                i += 1
            done, running = wait(running, return_when=FIRST_COMPLETED)
            parts += [f.result() for f in done]
            so_far = [x for p in parts for x in p[0]]
            print(
                f"  {len(so_far)} deals, {statistics.fmean(so_far):+.2f} points/hand so far "
                f"({time.perf_counter() - start:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    elapsed = time.perf_counter() - start
    per_deal = [x for p in parts for x in p[0]]
    times = sorted(x for p in parts for x in p[1])
    points = [x for p in parts for x in p[2]]
    mean = statistics.fmean(per_deal)
    half = 1.96 * statistics.stdev(per_deal) / len(per_deal) ** 0.5 if len(per_deal) > 1 else 0.0
    label = ", ".join(f"{k}={v:g}" for k, v in params.items()) or "default budget"
    print(
        f"search ({label}) vs 2 greedy: {len(per_deal)} deals x 3 seatings = {len(points)} "
        f"hands, {len(tasks)} tasks of {CHUNK} deals seeded {args.seed * 1000}.."
        f"{args.seed * 1000 + len(tasks) - 1}"
    )
    print(
        f"search vs 2 greedy: {mean:+.2f} points/hand over greedy in its seat "
        f"(95% CI {mean - half:+.2f} .. {mean + half:+.2f}); "
        f"{1.5 * mean:+.2f} over the greedy seats' mean"
    )
    wins = sum(1 for p in points if p > 0)
    print(f"search hands won on points: {wins}/{len(points)}")
    print(
        f"search decision time: median {statistics.median(times):.1f} ms, "
        f"p90 {times[int(0.9 * (len(times) - 1))]:.1f} ms over {len(times)} decisions"
    )
    print(f"search wall time {elapsed:.1f} s in {args.jobs} processes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=1200, help="hands played (deals x 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="sandingguai")
    parser.add_argument("--search-hands", type=int, default=0, help="search vs greedy hands")
    parser.add_argument("--jobs", type=int, default=1, help="processes for the search part")
    parser.add_argument("--sims", type=int, default=None, help="search rollouts per decision")
    parser.add_argument("--ms", type=float, default=None, help="search ms per decision")
    parser.add_argument(
        "--search-minutes", type=float, default=0, help="start no search task after this"
    )
    args = parser.parse_args()
    rules = get_rules(args.preset)
    deals = max(1, args.hands // 3)
    times: list[float] = []
    start = time.perf_counter()
    result = duplicate_match(rules, deals, args.seed, lambda: TimedGreedy(rules, times), RandomBot)
    elapsed = time.perf_counter() - start
    per_deal = result.per_deal()
    mean = statistics.fmean(per_deal)
    half = 1.96 * statistics.stdev(per_deal) / len(per_deal) ** 0.5 if len(per_deal) > 1 else 0.0
    greedy_seats = [net[seat] for _, seat, net in result.rows]
    wins = sum(1 for p in greedy_seats if p > 0)
    times.sort()
    hands = len(result.rows)
    print(f"preset {rules.id}, {deals} deals x 3 seatings = {hands} hands, seed {args.seed}")
    low, high = mean - half, mean + half
    print(f"greedy vs 2 random: {mean:+.2f} points/hand (95% CI {low:+.2f} .. {high:+.2f})")
    print(f"greedy hands won on points: {wins}/{len(greedy_seats)}; ledger {result.ledger()}")
    print(
        f"greedy decision time: median {statistics.median(times):.3f} ms, "
        f"p90 {times[int(0.9 * (len(times) - 1))]:.3f} ms over {len(times)} decisions"
    )
    print(f"wall time {elapsed:.1f} s")
    if args.search_hands > 0:
        _search(args)


if __name__ == "__main__":
    main()
