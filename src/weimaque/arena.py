"""The arena: three bots play duplicate deals, and each bot's points per hand get a 95% interval.

Duplicate deals. Deal ``d`` has its own hand seed, derived from (seed, d), and is played once in
every *seating* (which bot sits in which seat) with seat 0 as dealer, so every bot holds every
seat's cards of that deal. With ``rotations=6`` (default) all 6 permutations are played: the 3
cyclic rotations alone keep the turn order fixed (the same bot would always be the 上家 of the
same other bot, and the 上家 feeds the 吃, RULES §4.6), so the other 3 reverse it and cancel that
luck too. ``rotations=3`` plays the cyclic rotations only, enough when two of the bots are equal.

Counting. ``hands`` played = deals × rotations. A bot's points per hand is the mean of
``GameState.returns()`` over its hands (each loser pays the winner the total, RULES §8.3); its
95% interval is over the per-deal means (each deal's hands are paired, so the luck of the deal
stays inside one sample), with Student's t for ``deals - 1`` degrees of freedom.

Reproducibility. Each seat's bot gets ``random.Random`` seeded from (seed, deal, rotation, seat);
workers play whole deals and results are merged in deal order, so the same seed gives the same
figures whatever the number of workers (decision times aside).
"""

from __future__ import annotations

import importlib
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from weimaque.bots import BotView, get_bot
from weimaque.errors import WeimaqueError
from weimaque.game.state import NUM_SEATS, GameState
from weimaque.rules.registry import get_rules

#: The seatings of one deal: ``seating[seat]`` is the index of the bot in that seat.
CYCLIC: Final = ((0, 1, 2), (1, 2, 0), (2, 0, 1))
ALL_SIX: Final = (*CYCLIC, (0, 2, 1), (2, 1, 0), (1, 0, 2))


def seatings(rotations: int) -> tuple[tuple[int, int, int], ...]:
    """The seatings played for every deal: the 3 cyclic rotations, or all 6 permutations."""
    if rotations == 3:
        return CYCLIC
    if rotations == 6:
        return ALL_SIX
    raise WeimaqueError(f"rotations must be 3 or 6, not {rotations!r}")


def split_bot_specs(text: str) -> list[str]:
    """Split ``"mcts:ms=300,iters=50,greedy,random"`` into bot specs.

    Bots are separated by commas; inside a spec, parameters follow ``name:`` and are separated by
    ``;`` or by commas (a comma-separated piece with ``=`` and no ``:`` continues the spec before
    it). ``mcts:ms=300;iters=50,greedy,random`` is the same list.
    """
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            raise WeimaqueError(f"empty bot spec in {text!r}")
        if "=" in piece and ":" not in piece and specs:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return [s.replace(";", ",") for s in specs]


def deal_seed(seed: int, deal: int) -> int:
    """The hand seed of deal ``deal`` in an arena run with ``seed``."""
    return random.Random(f"arena:{seed}:{deal}").getrandbits(63)


def bot_rng(seed: int, deal: int, rotation: int, seat: int) -> random.Random:
    """The RNG of the bot in ``seat`` for one hand."""
    return random.Random(f"arena:{seed}:{deal}:{rotation}:{seat}")


def t_quantile_975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError("t needs at least one degree of freedom")
    exact = {
        1: 12.706204736,
        2: 4.302652730,
        3: 3.182446305,
        4: 2.776445105,
        5: 2.570581836,
        6: 2.446911851,
        7: 2.364624252,
        8: 2.306004135,
        9: 2.262157163,
    }
    if df in exact:
        return exact[df]
    # Cornish-Fisher expansion around the normal quantile; error below 1e-4 for df >= 10.
    z = statistics.NormalDist().inv_cdf(0.975)
    n = float(df)
    return (
        z
        + (z**3 + z) / (4 * n)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * n**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * n**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * n**4)
    )


def mean_ci95(samples: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95% t interval ``mean ± t(n-1) · s / √n``; one sample gives a zero-width one."""
    n = len(samples)
    if n == 0:
        return (0.0, 0.0, 0.0)
    mean = statistics.fmean(samples)
    if n == 1:
        return (mean, mean, mean)
    half = t_quantile_975(n - 1) * statistics.stdev(samples) / math.sqrt(n)
    return (mean, mean - half, mean + half)


@dataclass
class BotTally:
    """One bot's results over some hands."""

    points: int = 0
    hands: int = 0
    wins: int = 0
    win_totals: int = 0
    chou: int = 0
    seats: list[int] = field(default_factory=lambda: [0, 0, 0])
    deal_means: list[float] = field(default_factory=list)
    times_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class DealResult:
    """One deal played in every seating: per bot, points per hand and the rest."""

    deal: int
    points: tuple[tuple[int, ...], ...]  # [bot][seating]
    winners: tuple[int | None, ...]  # winning bot per seating
    totals: tuple[int, ...]  # the winner's total per seating (0 on 臭)
    seats: tuple[tuple[int, int, int], ...]  # seating per hand
    times_ms: tuple[tuple[float, ...], ...]  # [bot] decision times
    cpu_ms: tuple[tuple[float, ...], ...] = ((), (), ())  # [bot] decision CPU times
    #: decisions an external bot did not make itself (crash, timeout, garbage, illegal): (bot, what)
    faults: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """What to play: three bot specs, the number of deals, rules, seed, seatings per deal."""

    bots: tuple[str, str, str]
    deals: int
    rules: str = "anxiang"
    seed: int = 0
    rotations: int = 6
    workers: int = 1
    #: "local" (a process pool of ``workers``) or "ray" (Ray tasks; see weimaque.scale)
    backend: str = "local"
    #: the Ray cluster to join (``ray.init(address=...)``); None starts a local Ray
    address: str | None = None
    #: modules each worker imports before it builds the bots: those that register the plugin
    #: bots named in ``bots`` (``weimaque.bots.register_plugin``), e.g. weimaque.env.openspiel
    plugins: tuple[str, ...] = ()


def play_deal(config: ArenaConfig, deal: int) -> DealResult:
    """Play one deal in every seating (RULES §2.2 deal from the derived seed, dealer seat 0)."""
    for module in config.plugins:
        importlib.import_module(module)
    rules = get_rules(config.rules)
    hand_seed = deal_seed(config.seed, deal)
    points: list[list[int]] = [[] for _ in range(NUM_SEATS)]
    times: list[list[float]] = [[] for _ in range(NUM_SEATS)]
    cpu: list[list[float]] = [[] for _ in range(NUM_SEATS)]
    winners: list[int | None] = []
    totals: list[int] = []
    plays = seatings(config.rotations)
    faults: list[tuple[int, str]] = []
    for rotation, seating in enumerate(plays):
        bots = [get_bot(config.bots[seating[s]]) for s in range(NUM_SEATS)]
        rngs = [bot_rng(config.seed, deal, rotation, s) for s in range(NUM_SEATS)]
        state = GameState.new(rules, hand_seed, dealer=0)
        try:
            while not state.is_terminal():
                seat = state.current_player()
                view = BotView.of(state, seat)
                start = time.perf_counter()
                start_cpu = time.process_time()
                action = bots[seat].act(view, rngs[seat])
                times[seating[seat]].append((time.perf_counter() - start) * 1000)
                cpu[seating[seat]].append((time.process_time() - start_cpu) * 1000)
                if action not in view.legal:
                    raise WeimaqueError(
                        f"bot {config.bots[seating[seat]]!r} chose illegal {action} "
                        f"(deal {deal}, seed {hand_seed}, seat {seat})"
                    )
                state.apply(seat, action)
        finally:
            finish_hand(bots, state, seating, faults, f"deal {deal} seating {rotation}")
        returns = state.returns()
        for s in range(NUM_SEATS):
            points[seating[s]].append(returns[s])
        result = state.result
        assert result is not None
        winner = result.winner
        winners.append(None if winner is None else seating[winner])
        totals.append(0 if result.breakdown is None else result.breakdown.total)
    return DealResult(
        deal,
        tuple(tuple(p) for p in points),
        tuple(winners),
        tuple(totals),
        plays,
        tuple(tuple(t) for t in times),
        faults=tuple(faults),
        cpu_ms=tuple(tuple(t) for t in cpu),
    )


def finish_hand(
    bots: Sequence[Any],
    state: GameState,
    seating: Sequence[int],
    faults: list[tuple[int, str]],
    where: str,
) -> None:
    """Close bots that hold a resource (``close(view)``, e.g. an external program) and collect
    the decisions they did not make themselves (``faults``)."""
    for seat, bot in enumerate(bots):
        close = getattr(bot, "close", None)
        if close is not None:
            close(BotView.of(state, seat))
        for fault in getattr(bot, "faults", ()):
            faults.append((seating[seat], f"{where}, seat {seat}: {fault}"))


def _play_deal_job(job: tuple[ArenaConfig, int]) -> DealResult:
    return play_deal(*job)


def iter_deals(config: ArenaConfig) -> Iterator[DealResult]:
    """Play every deal, in deal order, on ``config.workers`` processes (spawned)."""
    jobs = [(config, d) for d in range(config.deals)]
    if config.backend == "ray":
        from weimaque.scale import ray_map

        yield from ray_map(play_deal, jobs, config.workers, config.address)
        return
    if config.workers <= 1 or config.deals <= 1:
        yield from (play_deal(c, d) for c, d in jobs)
        return
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(min(config.workers, config.deals)) as pool:
        yield from pool.imap(_play_deal_job, jobs, chunksize=1)


@dataclass(frozen=True, slots=True)
class BotStats:
    """One bot's summary."""

    name: str
    spec: str
    hands: int
    points_per_hand: float
    ci95: tuple[float, float]
    win_rate: float
    mean_total_per_win: float
    chou_rate: float
    median_decision_ms: float
    decisions: int
    seats: tuple[int, int, int]
    p90_decision_ms: float = 0.0
    median_decision_cpu_ms: float = 0.0
    p90_decision_cpu_ms: float = 0.0
    faults: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (one entry of ``"bots"``)."""
        return {
            "name": self.name,
            "spec": self.spec,
            "hands": self.hands,
            "points_per_hand": round(self.points_per_hand, 4),
            "ci95": [round(self.ci95[0], 4), round(self.ci95[1], 4)],
            "win_rate": round(self.win_rate, 4),
            "mean_total_per_win": round(self.mean_total_per_win, 3),
            "chou_rate": round(self.chou_rate, 4),
            "median_decision_ms": round(self.median_decision_ms, 4),
            "decisions": self.decisions,
            "seats": list(self.seats),
            "p90_decision_ms": round(self.p90_decision_ms, 4),
            "median_decision_cpu_ms": round(self.median_decision_cpu_ms, 4),
            "p90_decision_cpu_ms": round(self.p90_decision_cpu_ms, 4),
            "faults": self.faults,
        }


@dataclass(frozen=True, slots=True)
class ArenaResult:
    """The figures of one arena run."""

    config: ArenaConfig
    bots: tuple[BotStats, ...]
    seconds: float
    #: every decision an external bot did not make itself, "bot: deal …, seat …: kind: why"
    faults: tuple[str, ...] = ()

    @property
    def hands(self) -> int:
        """Hands played in all."""
        return self.config.deals * self.config.rotations

    def to_dict(self) -> dict[str, Any]:
        """The JSON object printed by ``wmq arena --json``."""
        c = self.config
        return {
            "rules": c.rules,
            "seed": c.seed,
            "deals": c.deals,
            "rotations": c.rotations,
            "hands": self.hands,
            "workers": c.workers,
            "backend": c.backend,
            "seconds": round(self.seconds, 3),
            "bots": [b.to_dict() for b in self.bots],
            "faults": list(self.faults),
        }


def bot_names(specs: Sequence[str]) -> list[str]:
    """Display names: the spec, with ``#2``/``#3`` added to repeated ones."""
    names: list[str] = []
    for k, spec in enumerate(specs):
        n = specs[:k].count(spec)
        names.append(spec if n == 0 else f"{spec}#{n + 1}")
    return names


def p90(values: Sequence[float]) -> float:
    """The 90th percentile (nearest rank below), 0 for no values."""
    if not values:
        return 0.0
    return sorted(values)[int(0.9 * (len(values) - 1))]


def summarize(config: ArenaConfig, deals: Sequence[DealResult], seconds: float) -> ArenaResult:
    """Merge deal results (in deal order) into per-bot statistics."""
    tallies = [BotTally() for _ in range(NUM_SEATS)]
    names = bot_names(config.bots)
    fault_counts = [0] * NUM_SEATS
    faults: list[str] = []
    for d in sorted(deals, key=lambda r: r.deal):
        for b, what in d.faults:
            fault_counts[b] += 1
            faults.append(f"{names[b]}: {what}")
        for b, tally in enumerate(tallies):
            pts = d.points[b]
            tally.points += sum(pts)
            tally.hands += len(pts)
            tally.deal_means.append(sum(pts) / len(pts))
            tally.times_ms.extend(d.times_ms[b])
            tally.cpu_ms.extend(d.cpu_ms[b])
        for winner, total, seating in zip(d.winners, d.totals, d.seats, strict=True):
            for seat, b in enumerate(seating):
                tallies[b].seats[seat] += 1
            if winner is None:
                for t in tallies:
                    t.chou += 1
            else:
                tallies[winner].wins += 1
                tallies[winner].win_totals += total
    stats = []
    for b, (name, spec, t) in enumerate(zip(names, config.bots, tallies, strict=True)):
        _, lo, hi = mean_ci95(t.deal_means)
        stats.append(
            BotStats(
                name=name,
                spec=spec,
                hands=t.hands,
                points_per_hand=t.points / t.hands if t.hands else 0.0,
                ci95=(lo, hi),
                win_rate=t.wins / t.hands if t.hands else 0.0,
                mean_total_per_win=t.win_totals / t.wins if t.wins else 0.0,
                chou_rate=t.chou / t.hands if t.hands else 0.0,
                median_decision_ms=statistics.median(t.times_ms) if t.times_ms else 0.0,
                decisions=len(t.times_ms),
                seats=(t.seats[0], t.seats[1], t.seats[2]),
                p90_decision_ms=p90(t.times_ms),
                median_decision_cpu_ms=statistics.median(t.cpu_ms) if t.cpu_ms else 0.0,
                p90_decision_cpu_ms=p90(t.cpu_ms),
                faults=fault_counts[b],
            )
        )
    return ArenaResult(config, tuple(stats), seconds, tuple(faults))


def run_arena(
    config: ArenaConfig, progress: Callable[[DealResult], None] | None = None
) -> ArenaResult:
    """Play the arena and summarize it; ``progress`` is called after each deal, in order."""
    for spec in config.bots:
        get_bot(spec)  # unknown names fail before any worker starts
    seatings(config.rotations)
    if config.backend not in ("local", "ray"):
        raise WeimaqueError(f"backend must be 'local' or 'ray', not {config.backend!r}")
    if config.deals < 1:
        raise WeimaqueError("the arena needs at least one deal")
    start = time.perf_counter()
    results: list[DealResult] = []
    for r in iter_deals(config):
        results.append(r)
        if progress is not None:
            progress(r)
    return summarize(config, results, time.perf_counter() - start)


def deals_for_hands(hands: int, rotations: int) -> int:
    """Deals needed to play at least ``hands`` hands: a whole number of deals, at least one."""
    return max(1, -(-hands // rotations))


__all__ = [
    "ArenaConfig",
    "ArenaResult",
    "BotStats",
    "DealResult",
    "bot_names",
    "deals_for_hands",
    "mean_ci95",
    "play_deal",
    "run_arena",
    "seatings",
    "split_bot_specs",
    "summarize",
    "t_quantile_975",
]
