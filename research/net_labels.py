"""What the learned bot's features can learn at best: departures from greedy rated by the true deal.

The advantage-trained net (research/bots-log.md, "The learned bot's phases") learns the search
teacher's gains, which are estimated in worlds sampled from the seat's view, so they carry the
teacher's model of the opponents. This experiment labels the same kind of decisions without that
model: in greedy self-play, every candidate the search would consider (the claim options and the
best few discards) is rated by ``--rollouts`` paired rollouts from the **true** state (the stock's
order shuffled), as a gain over greedy's own move. Regressed on features of the seat's view, such
labels estimate what a candidate is worth *given what the seat can see*, averaged over the deals
that look alike — the target of any view-based scorer (a hand's self-play result is one such
rollout). The labels are analysis only: no bot plays with them, and the net's inputs stay the
view's features.

The report, on held-out hands (every fifth job), for each fit and each margin (depart from
greedy only where the predicted gain exceeds it): the mean true gain per decision of the
departures, its standard error and how many departures. A scorer whose departures do not gain
here cannot beat greedy by departing from it.

Fits: the package's perceptron (``fit_advantage`` of ``train_phases.py``) on the net's features,
and a ridge regression on those features plus a few that read the opponents' discards and bans
(:func:`reading`), both with gains clipped to ``--clip`` points (a few hands worth hundreds of
points otherwise steer the fit).

    python research/net_labels.py --jobs 60 --workers 2    # 1,200 hands, about an hour on 2 cores

Each job (20 hands) is kept under ``--cache``, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from _truth import true_returns
from train_phases import VALUE_SCALE, Advantages, fit_advantage
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.features import NAMES, candidate_features
from weimaque.games.maque.bots.greedy import GreedyBot
from weimaque.games.maque.bots.mcts import MctsBot
from weimaque.games.maque.bots.net import Array
from weimaque.games.maque.bots.train import Dataset, greedy_decisions, init_params
from weimaque.games.maque.cards import NUM_FACES
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.notation import parse_cards

JOB_HANDS = 20
#: Names of the columns of :func:`reading`.
READING = (
    "next_threw_face",
    "prev_threw_face",
    "next_threw_near",
    "next_chi_banned",
    "next_peng_banned",
    "prev_peng_banned",
    "next_row",
    "prev_row",
)


def reading(view: BotView, actions: list[Action]) -> Array:
    """Per candidate: what the opponents' rows and bans say about the face it discards.

    Only a discard shows a face here (a claim's follow-up discard is in the net's own ``feed``);
    the columns are 0 for claims.
    """
    obs = view.obs.to_json()
    seat = view.seat
    nxt, prv = (seat + 1) % 3, (seat - 1) % 3
    rows = [parse_cards(r) if r else [] for r in obs["rows"]]
    counts = [[0] * NUM_FACES for _ in range(3)]
    for s in range(3):
        for f in rows[s]:
            counts[s][f] += 1

    def banned(s: int, kind: str) -> set[int]:
        text = (obs["bans"][s] or {}).get(kind) or ""
        return set(parse_cards(text)) if text else set()

    chi_ban, peng_n, peng_p = banned(nxt, "chi"), banned(nxt, "peng"), banned(prv, "peng")
    out = np.zeros((len(actions), len(READING)))
    for k, a in enumerate(actions):
        if a.kind != "discard" or a.face is None:
            continue
        f = a.face
        near = sum(
            counts[nxt][g]
            for g in range(NUM_FACES)
            if g != f and g // 10 == f // 10 and abs(g - f) <= 2
        )
        out[k] = (
            counts[nxt][f] / 2,
            counts[prv][f] / 2,
            near / 4,
            float(f in chi_ban),
            float(f in peng_n),
            float(f in peng_p),
            len(rows[nxt]) / 10,
            len(rows[prv]) / 10,
        )
    return out


def rate(
    state: GameState,
    seat: int,
    cands: list[Action],
    base: Action,
    rollouts: int,
    rng: random.Random,
) -> dict[Action, tuple[float, float]]:
    """Each candidate's mean paired gain over ``base`` from the true state, and its error."""
    returns = true_returns(state, seat, cands, rollouts, rng)
    ref = np.array(returns[base])
    out = {}
    for a, r in returns.items():
        d = np.array(r) - ref
        out[a] = (float(d.mean()), float(d.std(ddof=1) / np.sqrt(rollouts)) if a != base else 0.0)
    return out


def job(args: tuple[int, int, int, Path]) -> Path:
    """Rate every real decision of ``JOB_HANDS`` greedy self-play hands (job ``j``)."""
    j, seed, rollouts, cache = args
    path = cache / f"labels-seed{seed}-r{rollouts}-job{j:04d}.npz"
    if path.exists():
        return path
    greedy = GreedyBot()
    search = get_bot("mcts:iters=300;keep=2")
    assert isinstance(search, MctsBot)
    rng = random.Random(f"net-labels:{seed}:{j}")
    xs, rs, gains, ses, starts, bases = [], [], [], [], [0], []
    for k in range(JOB_HANDS):
        state = GameState.new("anxiang", rng.getrandbits(63), dealer=(j * JOB_HANDS + k) % 3)
        for view, action in greedy_decisions(state, greedy, rng):
            legal = list(view.legal)
            cands = search.candidates(state, view.seat, legal)
            if action not in cands:
                cands.append(action)
            rated = rate(
                state, view.seat, cands, action, rollouts, random.Random(rng.getrandbits(64))
            )
            xs.append(candidate_features(view, legal))
            rs.append(reading(view, legal))
            g = np.full(len(legal), np.nan)
            e = np.full(len(legal), np.nan)
            for i, a in enumerate(legal):
                if a in rated:
                    g[i], e[i] = rated[a]
            gains.append(g)
            ses.append(e)
            bases.append(legal.index(action))
            starts.append(starts[-1] + len(legal))
    part = path.with_name(path.stem + ".part.npz")
    np.savez(
        part,
        x=np.concatenate(xs),
        r=np.concatenate(rs),
        gains=np.concatenate(gains),
        ses=np.concatenate(ses),
        starts=np.array(starts),
        base=np.array(bases),
    )
    part.replace(path)
    return path


def load(paths: list[Path]) -> tuple[Advantages, list[Array]]:
    """The rated decisions of some jobs, and the reading columns of each decision."""
    data = Advantages([], [], [], [])
    extra: list[Array] = []
    for p in paths:
        with np.load(p) as z:  # read each array once: ``z[key]`` reads the file again
            x, r, gains, ses, st, base = (
                z[k] for k in ("x", "r", "gains", "ses", "starts", "base")
            )
        for g, b in enumerate(base):
            a, c = st[g], st[g + 1]
            data.rows.append(x[a:c])
            data.gains.append(gains[a:c])
            data.ses.append(ses[a:c])
            data.base.append(int(b))
            extra.append(r[a:c])
    return data, extra


def evaluate(scores: list[Array], data: Advantages, margin: float) -> tuple[float, float, int]:
    """True gain per decision of departing where a candidate scores ``margin`` above greedy's."""
    picked = []
    departures = 0
    for s, b, g in zip(scores, data.base, data.gains, strict=True):
        i = int(np.argmax(s))
        if i == b or s[i] - s[b] <= margin or not np.isfinite(g[i]):
            picked.append(0.0)
            continue
        departures += 1
        picked.append(float(g[i]))
    arr = np.array(picked)
    return float(arr.mean()), float(arr.std(ddof=1) / np.sqrt(len(arr))), departures


_KINDS = ("discard", "peng", "chi", "pass")


def kinds(data: Advantages) -> dict[tuple[str, str], Array]:
    """True gains of every rated departure, by greedy's kind of move and the candidate's."""
    cols = [NAMES.index(f"is_{k}") for k in _KINDS]
    out: dict[tuple[str, str], list[float]] = {}
    for x, b, g in zip(data.rows, data.base, data.gains, strict=True):
        kb = _KINDS[int(np.argmax(x[b, cols]))]
        for i in range(len(x)):
            if i != b and np.isfinite(g[i]):
                out.setdefault((kb, _KINDS[int(np.argmax(x[i, cols]))]), []).append(float(g[i]))
    return {k: np.array(v) for k, v in sorted(out.items())}


def ridge(rows: list[Array], data: Advantages, lam: float) -> Array:
    """Weights w with (x_cand − x_base)·w ≈ gain, least squares with an l2 penalty ``lam``."""
    dx, y = [], []
    for x, b, g in zip(rows, data.base, data.gains, strict=True):
        for i in range(len(x)):
            if i != b and np.isfinite(g[i]):
                dx.append(x[i] - x[b])
                y.append(g[i])
    a = np.array(dx)
    scale = a.std(axis=0) + 1e-9
    a = a / scale
    w = np.linalg.solve(a.T @ a + lam * len(a) * np.eye(a.shape[1]), a.T @ np.array(y))
    out: Array = w / scale
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=60, help="jobs of 20 hands")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rollouts", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--clip", type=float, default=10.0)
    parser.add_argument("--cache", type=Path, default=Path("out/net-labels"))
    parser.add_argument("--fit-only", action="store_true", help="fit the jobs already cached")
    parser.add_argument(
        "--save", type=Path, help="write each perceptron here (PATH-HIDDEN.npz), for net:weights="
    )
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    jobs = [(j, args.seed, args.rollouts, args.cache) for j in range(args.jobs)]
    paths: list[Path] = []
    if args.fit_only:
        paths = [
            p
            for j, *_ in jobs
            if (
                p := args.cache / f"labels-seed{args.seed}-r{args.rollouts}-job{j:04d}.npz"
            ).exists()
        ]
    else:
        start = time.time()
        with ProcessPoolExecutor(args.workers) as pool:
            for n, p in enumerate(pool.map(job, jobs), 1):
                paths.append(p)
                print(f"job {n}/{len(jobs)} rated, {time.time() - start:.0f} s", flush=True)
    held = [p for p in paths if int(p.stem[-4:]) % 5 == 0]
    train, extra_tr = load([p for p in paths if p not in held])
    test, extra_te = load(held)
    train.gains = [np.clip(g, -args.clip, args.clip) for g in train.gains]
    print(f"{len(train)} decisions to fit, {len(test)} held out ({len(paths)} jobs)")
    best = np.mean([max(0.0, float(np.nanmax(g))) for g in test.gains])
    print(f"held out, the best candidate's gain (an oracle's choice, noise included): +{best:.2f}")
    every, _ = load(paths)
    print(
        "every rated departure from greedy's move, by kind (greedy's → the candidate's), true gain:"
    )
    for (kb, kc), v in kinds(every).items():
        se = v.std(ddof=1) / np.sqrt(len(v))
        print(
            f"  {kb:>7} → {kc:<7} {len(v):6d}  {v.mean():+6.2f} ± {se:.2f}"
            f"  better than greedy's in {np.mean(v > 0):.0%}"
        )
    fits: dict[str, list[Array]] = {}
    for hidden, l2 in ((16, 1e-3), (4, 1e-2)):
        p0 = init_params(Dataset(train.rows, train.base), hidden, 0)
        p, _ = fit_advantage(p0, train, 900, l2=l2)
        if args.save is not None:
            p.save(args.save.with_name(f"{args.save.stem}-{hidden}.npz"))
        fits[f"perceptron, net features, {hidden} hidden, l2 {l2:g}"] = [
            p.scores(x) * VALUE_SCALE for x in test.rows
        ]
    for name, tr_rows, te_rows in (
        ("ridge, net features", train.rows, test.rows),
        (
            "ridge, net features + reading",
            [np.hstack(z) for z in zip(train.rows, extra_tr, strict=True)],
            [np.hstack(z) for z in zip(test.rows, extra_te, strict=True)],
        ),
    ):
        w = ridge(tr_rows, train, 0.01)
        fits[name] = [x @ w for x in te_rows]
    for name, scores in fits.items():
        print(name)
        for margin in (0.0, 1.0, 2.0, 4.0):
            m, se, dep = evaluate(scores, test, margin)
            print(
                f"  margin {margin:g}: {m:+.3f} ± {se:.3f} per decision,"
                f" {dep} departures ({dep / len(test):.1%})"
            )


if __name__ == "__main__":
    main()
