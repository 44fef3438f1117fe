"""Engine and environment throughput on one core, against RLCard's mahjong in the same run.

Run: ``.venv/bin/python bench/engine.py [--games N]``. Four figures, each beside its peer:

- random hands/s: uniformly random legal actions on the engine (``GameState``), against RLCard's
  mahjong games/s with its random agents (``env.run``); beside it the same at a table of two
  (``anxiang`` with ``players = 2``, RULES §2.5: 19 cards buried, one hand fewer to play);
- 三丁拐 random hands/s: the same on the second game's engine (``games.sandingguai.State``,
  its default rules), against the same RLCard figure;
- 三丁拐 win checks/s: on random 14-tile hands of two suits, the engine's 胡 check (the 叫 of
  the first 13 tiles, ``hands.wait_bits`` of the suit keys and odd kinds the engine keeps,
  holding the 14th) and the win check of 14 plain counts (``hands.is_legal_win``), each
  against the ``mahjong`` package's ``Agari().is_agari`` on the same hands (its 34 counts);
- env steps/s: the PettingZoo AEC environment (``weimaque.env``, observation arrays and masks built
  at every step) with random masked actions, against RLCard's mahjong environment stepped the
  same way (``env.step`` with a random legal action, its observation built at every step).

Times are CPU seconds of this process (``time.process_time``), so a busy shared machine slows
both sides alike; each figure is the best of ``--repeat`` rounds, and every round plays hands
no other round has played (RLCard's random agents draw from numpy's unseeded generator, so its
games differ from round to round anyway). The peers need
``pip install -e '.[bench]'`` (RLCard, mahjong) and the environment ``.[env]``; a missing one is
skipped.

``--instructions`` gives the two hand figures and their peer as machine instructions instead of
seconds, counted by valgrind's callgrind (Debian's ``valgrind``): a count that moves by less
than 1% from run to run whatever else the machine is doing, where CPU seconds move with the
load by a tenth. Each side runs twice in a fresh interpreter (``PYTHONHASHSEED=0``, one
OpenBLAS thread), with few and with many units, and the difference is divided by the
difference of units, which takes start-up and imports out. Instructions are not time (the two
sides retire them at different rates: on new hands the timed ratio has come out at 70–80% of
the counted one), so the ratio is a second opinion on the timed one, not a replacement. It
takes a few minutes.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.rules.registry import get_rules, rules_with
from weimaque.games.sandingguai.hands import is_legal_win, odd_bits, suit_keys, wait_bits
from weimaque.games.sandingguai.rules import RuleConfig
from weimaque.games.sandingguai.state import State


def best_rate(fn: Callable[[int], tuple[int, float]], repeat: int) -> float:
    """The best of ``repeat`` rounds of ``fn`` (round ``r`` is ``fn(r)``, which returns (units,
    seconds)), in units/s."""
    rates = []
    for r in range(repeat):
        units, seconds = fn(r)
        rates.append(units / seconds)
    return max(rates)


def ours(games: int, seed: int, players: int = 3) -> tuple[int, float]:
    """Random legal hands on the engine at a table of ``players``: (hands, CPU seconds)."""
    rules = get_rules("anxiang") if players == 3 else rules_with("anxiang", {"players": players})
    rng = random.Random(seed)
    start = time.process_time()
    for k in range(games):
        state = GameState.new(rules, seed + k, dealer=k % players)
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    return games, time.process_time() - start


def sandingguai(games: int, seed: int) -> tuple[int, float]:
    """Random legal hands on the 三丁拐 engine, default rules: (hands, CPU seconds)."""
    rules = RuleConfig()
    rng = random.Random(seed)
    start = time.process_time()
    for k in range(games):
        state = State(rules, seed + k, dealer=k % 3)
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(rng.choice(state.legal_actions(seat)), seat)
    return games, time.process_time() - start


#: Where each kind of ours lies in the ``mahjong`` package's 34 kinds: 万 0..8, 条 (its sou)
#: 18..26, 筒 (its pin) 9..17.
_TO_34 = (*range(9), *range(18, 27), *range(9, 18))


Hand = tuple[list[int], int, list[int]]


def two_suit_hands(n: int, seed: int) -> list[Hand]:
    """``n`` random 14-tile hands of two suits (no honours), each as (our counts of the first
    13 tiles, the 14th tile, the ``mahjong`` package's 34 counts of all 14)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        suits = rng.sample(range(3), 2)
        wall = [9 * s + r for s in suits for r in range(9) for _ in range(4)]
        tiles = rng.sample(wall, 14)
        counts = [0] * 27
        for t in tiles[:13]:
            counts[t] += 1
        theirs = [0] * 34
        for t in tiles:
            theirs[_TO_34[t]] += 1
        out.append((counts, tiles[13], theirs))
    return out


def win_checks(hands: list[Hand]) -> tuple[int, float]:
    """The engine's 胡 check: the 叫 of 13 tiles (from the suit keys and odd kinds a seat keeps
    as its tiles come and go) holding the 14th: (hands, CPU seconds)."""
    kept = [(suit_keys(counts), odd_bits(counts), last) for counts, last, _ in hands]
    start = time.process_time()
    for keys, odd, last in kept:
        _ = wait_bits(keys, odd, True, (), 2, -1) >> last & 1
    return len(hands), time.process_time() - start


def full_win_checks(hands: list[Hand]) -> tuple[int, float]:
    """The win check of 14 plain counts: (hands, CPU seconds)."""
    fourteen = []
    for counts, last, _ in hands:
        c = list(counts)
        c[last] += 1
        fourteen.append(c)
    start = time.process_time()
    for c in fourteen:
        is_legal_win(c, (), 2)
    return len(hands), time.process_time() - start


def agari_checks(hands: list[Hand]) -> tuple[int, float]:
    """``mahjong``'s ``Agari().is_agari`` on the same hands: (hands, CPU seconds)."""
    from mahjong.agari import Agari

    agari = Agari()
    start = time.process_time()
    for _, _, theirs in hands:
        agari.is_agari(theirs)
    return len(hands), time.process_time() - start


def ours_env(steps: int, seed: int) -> tuple[int, float]:
    """PettingZoo AEC steps with random masked actions: (steps, CPU seconds)."""
    import weimaque.env

    env = weimaque.env.raw_env()
    rng = np.random.default_rng(seed)
    done = 0
    hand = seed
    start = time.process_time()
    while done < steps:
        env.reset(seed=hand)
        hand += 1
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            done += 1
    return done, time.process_time() - start


def rlcard_env(seed: int) -> Any:
    """RLCard's mahjong environment, or None if RLCard is not installed."""
    try:
        import rlcard
    except ImportError:
        return None
    return rlcard.make("mahjong", config={"seed": seed})


def quiet_peer() -> contextlib.AbstractContextManager[Any]:
    """Standard output set aside while the peer plays: RLCard's mahjong prints a block of
    debugging lines when a player has no legal action (and plays on), which would break this
    script's figures apart."""
    return contextlib.redirect_stdout(io.StringIO())


def rlcard_games(env: Any, games: int) -> tuple[int, float]:
    """RLCard mahjong games with its random agents: (games, CPU seconds)."""
    from rlcard.agents import RandomAgent

    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    with quiet_peer():
        start = time.process_time()
        for _ in range(games):
            env.run(is_training=False)
        return games, time.process_time() - start


def rlcard_steps(env: Any, steps: int, seed: int) -> tuple[int, float]:
    """RLCard mahjong env steps with random legal actions: (steps, CPU seconds)."""
    rng = random.Random(seed)
    done = 0
    with quiet_peer():
        start = time.process_time()
        while done < steps:
            state, _ = env.reset()
            while not env.is_over():
                action = rng.choice(list(state["legal_actions"]))
                state, _ = env.step(action)
                done += 1
        return done, time.process_time() - start


#: What one side runs under callgrind: ``ours`` hands, 三丁拐 hands or RLCard games, their
#: number in argv.
_COUNTED = {
    "ours": "import engine, sys; engine.ours(int(sys.argv[1]), 0)",
    "sandingguai": "import engine, sys; engine.sandingguai(int(sys.argv[1]), 0)",
    "peer": "import engine, sys, numpy; numpy.random.seed(0); "
    "engine.rlcard_games(engine.rlcard_env(0), int(sys.argv[1]))",
}


def instructions(side: str, units: int) -> int:
    """Machine instructions of one fresh interpreter running ``units`` of ``side``."""
    code = f"import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
    out = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            code + _COUNTED[side],
            str(units),
        ],
        capture_output=True,
        text=True,
        # OpenBLAS's idle threads spin for a while after numpy's work, retiring instructions
        # that depend on the machine's load, not on the side measured: one thread for both
        env={**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"},
        check=True,
    )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count: {out.stderr[-500:]!r}")
    return int(found.group(1))


def per_unit(side: str, few: int, many: int) -> float:
    """Instructions per unit of ``side``: the difference of a run of ``many`` and one of
    ``few``, divided by ``many - few`` (start-up and imports cancel out)."""
    return (instructions(side, many) - instructions(side, few)) / (many - few)


def count_instructions(args: argparse.Namespace) -> None:
    """The ``--instructions`` figures: instructions per hand, per peer game, and the ratio."""
    if shutil.which("valgrind") is None:
        print("valgrind not installed: apt-get install valgrind to count instructions")
        return
    # The two runs at least 400 hands (8 games) apart: a run's start-up alone varies by some
    # million instructions (0.5%), which a short difference would divide into a false figure.
    ours_per_hand = per_unit("ours", 100, 100 + max(400, args.games // 4))
    print(f"weimaque instructions/hand   : {ours_per_hand:12,.0f}")
    sdg_per_hand = per_unit("sandingguai", 50, 50 + max(200, args.games // 8))
    print(f"三丁拐 instructions/hand     : {sdg_per_hand:12,.0f}")
    if importlib.util.find_spec("rlcard") is None:
        print("rlcard not installed: pip install -e '.[bench]' to measure the peer")
        return
    peer_per_game = per_unit("peer", 2, 2 + max(8, args.peer_games // 10))
    print(f"rlcard instructions/game     : {peer_per_game:12,.0f}")
    print(f"ratio                        : {peer_per_game / ours_per_hand:12.1f}x")
    print(f"三丁拐 ratio                 : {peer_per_game / sdg_per_hand:12.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--peer-games", type=int, default=200)
    parser.add_argument("--checks", type=int, default=50000, help="14-tile hands per round")
    parser.add_argument("--steps", type=int, default=20000, help="env steps per round")
    parser.add_argument("--peer-steps", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions under callgrind instead of timing (slow, but steady)",
    )
    args = parser.parse_args()
    if args.instructions:
        count_instructions(args)
        return
    # each round deals new hands (its seeds follow the last round's): a round that replayed the
    # same hands and random choices would find every position in the engine's caches
    hands_per_s = best_rate(lambda r: ours(args.games, args.seed + r * args.games), args.repeat)
    print(f"weimaque random hands/s      : {hands_per_s:9.1f}")
    two_per_s = best_rate(lambda r: ours(args.games, args.seed + r * args.games, 2), args.repeat)
    print(f"weimaque 2-player hands/s    : {two_per_s:9.1f}")
    sdg_per_s = best_rate(
        lambda r: sandingguai(args.games, args.seed + r * args.games), args.repeat
    )
    print(f"三丁拐 random hands/s        : {sdg_per_s:9.1f}")
    peer = rlcard_env(args.seed)
    if peer is None:
        print("rlcard not installed: pip install -e '.[bench]' to measure the peer")
    else:
        games_per_s = best_rate(lambda _: rlcard_games(peer, args.peer_games), args.repeat)
        print(f"rlcard mahjong games/s       : {games_per_s:9.1f}")
        print(f"ratio                        : {hands_per_s / games_per_s:9.1f}x")
        print(f"三丁拐 ratio                 : {sdg_per_s / games_per_s:9.1f}x")
    # each round checks hands of its own, as each round of play deals new ones
    rounds = [two_suit_hands(args.checks, args.seed + r) for r in range(args.repeat)]
    checks_per_s = best_rate(lambda r: win_checks(rounds[r]), args.repeat)
    full_per_s = best_rate(lambda r: full_win_checks(rounds[r]), args.repeat)
    print(f"三丁拐 胡 checks (叫 bits)/s : {checks_per_s:9.0f}")
    print(f"三丁拐 14-tile win checks/s  : {full_per_s:9.0f}")
    if importlib.util.find_spec("mahjong") is None:
        print("mahjong not installed: pip install -e '.[bench]' to measure the peer")
    else:
        agari_per_s = best_rate(lambda r: agari_checks(rounds[r]), args.repeat)
        print(f"mahjong Agari.is_agari/s     : {agari_per_s:9.0f}")
        print(f"ratio 胡 check / agari       : {checks_per_s / agari_per_s:9.1f}x")
        print(f"ratio 14-tile win / agari    : {full_per_s / agari_per_s:9.1f}x")
    try:
        # a round plays fewer hands than it has steps: seeds r * steps on are its own
        steps_per_s = best_rate(
            lambda r: ours_env(args.steps, args.seed + r * args.steps), args.repeat
        )
    except ImportError:
        print("pettingzoo not installed: pip install -e '.[env]' to measure the environment")
        return
    print(f"weimaque PettingZoo steps/s  : {steps_per_s:9.1f}")
    if peer is not None:
        peer_steps = best_rate(
            lambda r: rlcard_steps(peer, args.peer_steps, args.seed + r), args.repeat
        )
        print(f"rlcard mahjong env steps/s   : {peer_steps:9.1f}")
        print(f"ratio                        : {steps_per_s / peer_steps:9.1f}x")


if __name__ == "__main__":
    main()
