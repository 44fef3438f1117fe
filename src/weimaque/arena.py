"""The arena: bots play duplicate deals of any game, and each bot's points per hand get a 95%
interval.

It speaks only :mod:`weimaque.games` (docs/new-game.md): a game by id, a preset and options, the
line-up of bot specs built with ``game.bot(spec, variant, options)``, each acting on
``hand.bot_view(seat)``; hands through ``game.new_hand`` / ``apply`` / ``outcome``; the seat count
from ``game.shape(variant, options).seats``. Nothing here knows a card or a seat count.

Duplicate deals. Deal ``d`` has its own hand seed, derived from (seed, d), and is played once in
every *seating* (which bot sits in which seat) with seat 0 as dealer, so every bot holds every
seat's cards of that deal. The seatings are the permutations of the line-up over the seats, in
cyclic classes: the identity's ``n`` rotations first, then the reversed order's, then the other
classes (:func:`seatings`). By default all ``n!`` are played (3 seats: 6, 2 seats: 2). For 偎麻雀
the 3 cyclic rotations alone keep the turn order fixed (the same bot would always be the 上家 of
the same other bot, and the 上家 feeds the 吃, RULES §4.6), so the other 3 reverse it and cancel
that luck too; ``rotations=3`` plays the cyclic rotations only, enough when two of the bots are
equal. Any multiple of ``n`` up to ``n!`` plays that many whole classes, so every bot sits in
every seat equally often.

Counting. ``hands`` played = deals × rotations. A bot's points per hand is the mean of the
outcome's ``net`` over its hands (偎麻雀: each loser pays the winner the total, RULES §8.3); its
95% interval is over the per-deal means (each deal's hands are paired, so the luck of the deal
stays inside one sample), with Student's t for ``deals - 1`` degrees of freedom. A hand's winners
are the outcome's; a hand without one is 臭 (流局). The total per win is the outcome summary's
``total`` where the game gives one (偎麻雀's, RULES §8.3), else the winner's points.

Decision times. Every call of a bot's ``act`` is timed twice, in the process that plays the
deal: wall clock (``time.perf_counter_ns``) and the CPU time of the deciding thread
(``time.thread_time_ns``). On a shared machine the wall clock counts the time other programs
held the core; the CPU time does not, so it is the figure such a machine measures honestly (an
external ``cmd:`` bot thinks in its own process: only its wall clock is the bot's). Each bot's
median and p90 of both are in :class:`BotStats` (p90: nearest rank below, :func:`p90`).

Reproducibility. Each seat's bot gets ``random.Random`` seeded from (seed, deal, rotation, seat);
workers play whole deals and results are merged in deal order, so the same seed gives the same
figures whatever the number of workers (decision times aside).
"""

from __future__ import annotations

import importlib
import itertools
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from weimaque.errors import WeimaqueError
from weimaque.games import Game, Hand, get_game


def seatings(seats: int, rotations: int = 0) -> tuple[tuple[int, ...], ...]:
    """The seatings played for every deal at a table of ``seats``: ``seating[seat]`` is the
    index in the line-up of the bot in that seat.

    The permutations come in cyclic classes of ``seats`` rotations each: the identity's, then
    the reversed turn order's, then the others' (their first seat holding bot 0, in
    lexicographic order). ``rotations`` plays that many seatings, a whole number of classes;
    0 plays every permutation. For 3 seats: the 3 cyclic rotations, or all 6.
    """
    if seats < 1:
        raise WeimaqueError(f"a table has at least one seat, not {seats!r}")
    everything = math.factorial(seats)
    if rotations == 0:
        rotations = everything
    if (
        isinstance(rotations, bool)
        or not isinstance(rotations, int)
        or rotations < seats
        or rotations > everything
        or rotations % seats
    ):
        allowed = " or ".join(str(k) for k in range(seats, everything + 1, seats))
        if everything // seats > 4:
            allowed = f"a multiple of {seats} from {seats} to {everything}"
        raise WeimaqueError(f"rotations must be {allowed} ({seats} seats), not {rotations!r}")
    identity = tuple(range(seats))
    reverse = (0, *range(seats - 1, 0, -1))
    others = [(0, *p) for p in itertools.permutations(range(1, seats))]
    bases = list(dict.fromkeys([identity, reverse, *others]))
    out = [
        tuple(base[(s + k) % seats] for s in range(seats))
        for base in bases[: rotations // seats]
        for k in range(seats)
    ]
    return tuple(out)


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

    seats: list[int]
    points: int = 0
    hands: int = 0
    wins: int = 0
    win_totals: int = 0
    chou: int = 0
    deal_means: list[float] = field(default_factory=list)
    times_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class DealResult:
    """One deal played in every seating: per bot, points per hand and the rest."""

    deal: int
    points: tuple[tuple[int, ...], ...]  # [bot][seating]
    winners: tuple[tuple[int, ...], ...]  # the winning bots per seating (none on 臭)
    totals: tuple[tuple[int, ...], ...]  # each winner's total per seating
    seats: tuple[tuple[int, ...], ...]  # seating per hand
    times_ms: tuple[tuple[float, ...], ...]  # [bot] decision wall-clock times
    cpu_ms: tuple[tuple[float, ...], ...] = ()  # [bot] the deciding thread's CPU times
    #: decisions an external bot did not make itself (crash, timeout, garbage, illegal): (bot, what)
    faults: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """What to play: a game, one bot spec per seat, the number of deals, the preset (``rules``)
    and options, seed, seatings per deal."""

    bots: tuple[str, ...]
    deals: int
    #: the preset (variant) id or alias; "" is the game's first preset
    rules: str = ""
    seed: int = 0
    #: seatings per deal (:func:`seatings`); 0 plays every permutation of the seats
    rotations: int = 0
    workers: int = 1
    #: "local" (a process pool of ``workers``) or "ray" (Ray tasks; see weimaque.scale)
    backend: str = "local"
    #: the Ray cluster to join (``ray.init(address=...)``); None starts a local Ray
    address: str | None = None
    #: modules each worker imports before it builds the bots: those that register the plugin
    #: bots named in ``bots`` (``weimaque.games.maque.bots.register_plugin``), e.g.
    #: weimaque.env.openspiel, or a game from outside the package (``weimaque.games.register``)
    plugins: tuple[str, ...] = ()
    #: the game's id or alias (``weimaque.games.get_game``)
    game: str = "maque"
    #: rule options on top of the preset, checked against the game's schema
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Table:
    """An arena's game with its preset, options and seatings, looked up once per deal."""

    game: Game
    variant: str
    options: Mapping[str, Any]
    seats: int
    plays: tuple[tuple[int, ...], ...]


def table_of(config: ArenaConfig) -> Table:
    """The game, preset, seat count and seatings of ``config``, every name and option checked:
    a ``WeimaqueError`` quoting what is wrong (an unknown game, preset or option, a line-up of
    the wrong size, a seating count the table does not allow; :func:`run_arena` builds every
    bot once too, so an unknown bot fails before any deal)."""
    for module in config.plugins:
        importlib.import_module(module)
    game = get_game(config.game)
    variant = config.rules or game.schema.variants[0].id
    options = dict(config.options)
    seats = game.shape(variant, options).seats
    if len(config.bots) != seats:
        raise WeimaqueError(
            f"the arena of {game.info.id} needs exactly {seats} bots (one per seat), "
            f"got {len(config.bots)}: {list(config.bots)}"
        )
    return Table(game, variant, options, seats, seatings(seats, config.rotations))


def resolved(config: ArenaConfig) -> ArenaConfig:
    """``config`` with its preset and seatings per deal filled in, checked (:func:`table_of`):
    the game's id, the preset it names, the number of seatings."""
    table = table_of(config)
    return replace(config, game=table.game.info.id, rules=table.variant, rotations=len(table.plays))


def play_deal(config: ArenaConfig, deal: int) -> DealResult:
    """Play one deal in every seating (the deal from the derived seed, dealer seat 0)."""
    table = table_of(config)
    game, variant, options, n = table.game, table.variant, table.options, table.seats
    hand_seed = deal_seed(config.seed, deal)
    points: list[list[int]] = [[] for _ in range(n)]
    times: list[list[float]] = [[] for _ in range(n)]
    cpu: list[list[float]] = [[] for _ in range(n)]
    winners: list[tuple[int, ...]] = []
    totals: list[tuple[int, ...]] = []
    faults: list[tuple[int, str]] = []
    for rotation, seating in enumerate(table.plays):
        bots = [game.bot(config.bots[seating[s]], variant, options) for s in range(n)]
        rngs = [bot_rng(config.seed, deal, rotation, s) for s in range(n)]
        hand = game.new_hand(variant, options, hand_seed, dealer=0)
        try:
            while not hand.is_terminal():
                seat = hand.to_act()[0]
                view = hand.bot_view(seat)
                start = time.perf_counter_ns()
                start_cpu = time.thread_time_ns()
                action = bots[seat].act(view, rngs[seat])
                cpu[seating[seat]].append((time.thread_time_ns() - start_cpu) / 1e6)
                times[seating[seat]].append((time.perf_counter_ns() - start) / 1e6)
                try:
                    hand.apply(seat, action)
                except WeimaqueError as exc:
                    raise WeimaqueError(
                        f"bot {config.bots[seating[seat]]!r} chose illegal "
                        f"{action_text(game, action)} (deal {deal}, seed {hand_seed}, "
                        f"seat {seat}): {exc}"
                    ) from exc
        finally:
            finish_hand(bots, hand, seating, faults, f"deal {deal} seating {rotation}")
        outcome = hand.outcome()
        assert outcome is not None
        for s in range(n):
            points[seating[s]].append(outcome.net[s])
        winners.append(tuple(seating[w] for w in outcome.winners))
        total = outcome.summary.get("total")
        totals.append(
            tuple(
                total if isinstance(total, int) and not isinstance(total, bool) else outcome.net[w]
                for w in outcome.winners
            )
        )
    return DealResult(
        deal,
        tuple(tuple(p) for p in points),
        tuple(winners),
        tuple(totals),
        table.plays,
        tuple(tuple(t) for t in times),
        faults=tuple(faults),
        cpu_ms=tuple(tuple(t) for t in cpu),
    )


def action_text(game: Game, action: object) -> str:
    """An action id's text form (``出三``), or the value quoted when it is no action id."""
    if isinstance(action, int) and not isinstance(action, bool):
        try:
            return f"{game.action(action)!s} ({action})"
        except (WeimaqueError, ValueError, IndexError, KeyError):
            pass  # no action of this game: quoted as it came
    return repr(action)


def finish_hand(
    bots: Sequence[Any],
    hand: Hand,
    seating: Sequence[int],
    faults: list[tuple[int, str]],
    where: str,
) -> None:
    """Close bots that hold a resource (``close(view)``, e.g. an external program) and collect
    the decisions they did not make themselves (``faults``)."""
    for seat, bot in enumerate(bots):
        close = getattr(bot, "close", None)
        if close is not None:
            close(hand.bot_view(seat))
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
    """One bot's summary; decision times are over every call of its ``act``, in ms: wall clock
    and the deciding thread's CPU time (module doc), each as median and p90."""

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
    seats: tuple[int, ...]
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
            "game": c.game,
            "rules": c.rules,
            "options": {k: list(v) if isinstance(v, tuple) else v for k, v in c.options.items()},
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
    """Merge deal results (in deal order) into per-bot statistics; the result's config is
    :func:`resolved` (its preset and seatings per deal filled in)."""
    config = resolved(config)
    n = len(config.bots)
    tallies = [BotTally([0] * n) for _ in range(n)]
    names = bot_names(config.bots)
    fault_counts = [0] * n
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
        for winners, totals, seating in zip(d.winners, d.totals, d.seats, strict=True):
            for seat, b in enumerate(seating):
                tallies[b].seats[seat] += 1
            if not winners:
                for t in tallies:
                    t.chou += 1
            for winner, total in zip(winners, totals, strict=True):
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
                seats=tuple(t.seats),
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
    config = resolved(config)
    table = table_of(config)
    for spec in config.bots:
        table.game.bot(spec, table.variant, table.options)  # fail before any worker starts
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
    "Table",
    "action_text",
    "bot_names",
    "deals_for_hands",
    "mean_ci95",
    "play_deal",
    "resolved",
    "run_arena",
    "seatings",
    "split_bot_specs",
    "summarize",
    "t_quantile_975",
    "table_of",
]
