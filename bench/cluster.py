"""A local cluster under load, and its failover: PostgreSQL, Redis, ``wmq serve`` × N, HAProxy.

Run: ``.venv/bin/python bench/cluster.py [--tables 50] [--hands 1] [--trials 5]``.

(a) Scaling: the clients of ``bench/server.py`` (three WebSocket seats per table, each from a
loopback address of its own, answering every decision with a random legal action) play
``--tables`` tables through the balancer of a cluster of one ``wmq serve`` process, then of
two, with the same seeds. Reported for each: actions per second, the p50/p99 latency from
``act`` to its ``ack``, and the CPU time of the servers and of the balancer; then the ratios.
On a machine whose cores the clients, the balancer, PostgreSQL, Redis and the servers all
share, the ratio is bounded by the cores; ``core_each_bound_actions_per_s`` is what a core per
process would allow (the actions over the busiest server's CPU seconds), and its ratio.

(b) Failover: a table of three seats through the balancer of a two-process cluster, whose
clients reconnect when their socket drops, with their seat tokens, as the browser does
(docs/protocol.md §2). Mid-hand, the room's owner (the process whose lease on the room Redis
holds) is killed with SIGKILL; reported is the time from the kill to the first ``ack`` after
it, over ``--trials`` trials (median and range). The killed process is started again between
trials. What bounds it: the balancer noticing (a refused connection is sent to the other
process at once), the lease running out (``--lease-seconds``, docs/scale.md), the room being
restored from the store. Each trial then reads the room back from PostgreSQL and counts the
acknowledged actions it does not hold (``acked_not_stored``: it must be 0).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server import Stats, client_address, create_room, play, prepare, process_cpu, table_arguments
from weimaque.deploy.local import LocalCluster, scratch_folder


def p99(latencies: list[float]) -> float:
    """The 99th percentile, in ms."""
    lat = sorted(latencies) or [0.0]
    return 1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))]


def load(folder: Path, servers: int, args: argparse.Namespace) -> dict[str, Any]:
    """Part (a) for one cluster size: the figures of one run."""
    with LocalCluster(folder, servers=servers, lease_seconds=args.lease_seconds) as cluster:
        pids = [s.pid for s in cluster.servers if s.pid is not None]
        if cluster.haproxy is not None and cluster.haproxy.pid is not None:
            pids.append(cluster.haproxy.pid)
        before = [process_cpu(p) or 0.0 for p in pids]
        start = time.perf_counter()
        rooms, _ = prepare(cluster.port, args.tables, args.hands, args.seed)
        stats: Stats = asyncio.run(
            play(cluster.port, rooms, args.hands, args.max_seconds, args.seed, True)
        )
        elapsed = time.perf_counter() - start
        after = [process_cpu(p) or 0.0 for p in pids]
    cpu = [round(a - b, 2) for a, b in zip(after, before, strict=True)]
    lat = stats.latencies or [0.0]
    return {
        "servers": servers,
        "tables_done": stats.tables_done,
        "hands": stats.hands,
        "actions": stats.actions,
        "errors": stats.errors,
        "seconds": round(elapsed, 2),
        "actions_per_s": round(stats.actions / elapsed, 1),
        "latency_p50_ms": round(1000 * statistics.median(lat), 2),
        "latency_p99_ms": round(p99(stats.latencies), 2),
        "servers_cpu_s": cpu[:servers],
        "haproxy_cpu_s": cpu[servers] if len(cpu) > servers else None,
    }


@dataclass
class Trial:
    """What the seats of one failover trial share."""

    acks: int = 0
    killed_at: float | None = None
    first_ack: float | None = None
    reconnects: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    #: Every acknowledged action: (hand number, seat, action).
    acked: list[tuple[int, int, str]] = field(default_factory=list)


async def reconnecting_seat(
    port: int, room_id: str, seat: int, rng: random.Random, trial: Trial, address: str
) -> None:
    """One seat that plays random legal actions and, whenever its socket drops, opens another
    through the balancer after the browser's delay and sends ``join`` with its seat token
    (docs/protocol.md §2.1)."""
    token: str | None = None
    uri = f"ws://127.0.0.1:{port}/ws/{room_id}"
    retry = 0
    while trial.first_ack is None:
        try:
            async with connect(uri, max_queue=None, local_addr=(address, 0), open_timeout=5) as ws:
                retry = 0
                n = 0

                async def send(**fields: Any) -> int:
                    nonlocal n
                    n += 1
                    await ws.send(json.dumps({"v": 1, "id": n, **fields}, ensure_ascii=False))
                    return n

                if token is None:
                    await send(type="sit", seat=seat)
                else:
                    await send(type="join", token=token)
                pending: int | None = None
                sent = 0.0
                hand = 0
                async for raw in ws:
                    msg = orjson.loads(raw)
                    kind = msg["type"]
                    if kind == "welcome" and msg.get("token"):
                        token = msg["token"]
                    elif kind == "ack" and msg.get("ack") == pending:
                        pending = None
                        trial.acks += 1
                        actor = msg["actor"]
                        trial.acked.append((hand, int(actor["seat"]), str(actor["action"])))
                        # Only an act sent after the kill counts: an ack already on its way
                        # (in a socket's buffer) was written by the killed owner.
                        killed = trial.killed_at
                        if killed is not None and sent >= killed and trial.first_ack is None:
                            trial.first_ack = time.perf_counter()
                            return
                    elif kind == "error":
                        code = str(msg.get("code"))
                        trial.errors[code] = trial.errors.get(code, 0) + 1
                        if msg.get("re") == pending:
                            # Refused (stale, storage_unavailable while the room moves): a
                            # fresh snapshot, then answer what it offers.
                            pending = None
                            await asyncio.sleep(0.05)
                            await send(type="join", token=token)
                    elif kind == "hand_end":
                        await send(type="next")
                    if (
                        kind in ("snapshot", "events")
                        and msg.get("to_act")
                        and msg["legal_actions"]
                        and pending is None
                    ):
                        choice = rng.choice(msg["legal_actions"])
                        sent = time.perf_counter()
                        hand = int(msg["hand_number"])
                        pending = await send(
                            type="act", action=choice["text"], decision=msg["decision"]
                        )
        except (OSError, TimeoutError, WebSocketException):
            pass
        if trial.first_ack is None:
            # The browser's delay (web/js/net.js): 0.5 s, doubling to 8 s, reset by an open.
            trial.reconnects += 1
            await asyncio.sleep(min(8.0, 0.5 * 2**retry))
            retry += 1


async def failover_trial(cluster: LocalCluster, seed: int, max_seconds: float) -> dict[str, Any]:
    """Part (b), once: a table, its owner killed mid-hand, the time to the first ack after."""
    rng = random.Random(seed)
    room_id = create_room(cluster.port, seed, 8, client_address(900))
    trial = Trial()
    seats = [
        asyncio.create_task(
            reconnecting_seat(
                cluster.port,
                room_id,
                seat,
                random.Random(rng.getrandbits(64)),
                trial,
                client_address(900 + seat),
            )
        )
        for seat in range(3)
    ]
    try:
        mid = rng.randrange(6, 20)
        deadline = time.monotonic() + max_seconds
        while trial.acks < mid:
            if time.monotonic() > deadline:
                raise RuntimeError(f"room {room_id}: {trial.acks} acks before the kill")
            await asyncio.sleep(0.005)
        owner = cluster.owner(room_id)
        if owner is None:
            raise RuntimeError(f"room {room_id}: Redis names no owner (wmq:room:{room_id})")
        trial.killed_at = time.perf_counter()
        owner.kill()
        while trial.first_ack is None:
            if time.monotonic() > deadline:
                raise RuntimeError(f"room {room_id}: no ack within {max_seconds} s of the kill")
            await asyncio.sleep(0.005)
        return {
            "seconds": trial.first_ack - trial.killed_at,
            "owner": cluster.servers.index(owner) + 1,
            "acks_before": mid,
            "acks": len(trial.acked),
            "acked_not_stored": not_stored(cluster, room_id, trial.acked),
            "reconnects": trial.reconnects,
            "errors": trial.errors,
        }
    finally:
        for task in seats:
            task.cancel()
        await asyncio.gather(*seats, return_exceptions=True)
        for server in cluster.servers:
            if not server.running:
                server.start()


def not_stored(cluster: LocalCluster, room_id: str, acked: list[tuple[int, int, str]]) -> int:
    """How many acknowledged actions the store does not hold (it must hold them all): the
    finished hands' records and the action log of the hand in progress, read from PostgreSQL."""
    import psycopg

    stored: Counter[tuple[int, int, str]] = Counter()
    with psycopg.connect(cluster.postgres.url) as db:
        for number, record in db.execute(
            "SELECT number, record FROM hands WHERE room_id = %s", (room_id,)
        ):
            stored.update((int(number), int(s), str(a)) for s, a in json.loads(record)["actions"])
        for number, seat, action in db.execute(
            "SELECT number, seat, action FROM actions WHERE room_id = %s", (room_id,)
        ):
            stored[(int(number), int(seat), str(action))] += 1
    return sum((Counter(acked) - stored).values())


def failover(folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Part (b): ``--trials`` trials on one two-process cluster."""
    trials = []
    with LocalCluster(folder, servers=2, lease_seconds=args.lease_seconds) as cluster:
        for k in range(args.trials):
            trials.append(asyncio.run(failover_trial(cluster, args.seed + k, args.max_seconds)))
            print(
                f"  failover trial {k + 1}: {trials[-1]['seconds']:.2f} s "
                f"(killed server {trials[-1]['owner']}; {trials[-1]['acks']} acks, "
                f"{trials[-1]['acked_not_stored']} of them not in the store)",
                file=sys.stderr,
            )
    times = [t["seconds"] for t in trials]
    return {
        "trials": len(times),
        "kill_to_ack_median_s": round(statistics.median(times), 2),
        "kill_to_ack_min_s": round(min(times), 2),
        "kill_to_ack_max_s": round(max(times), 2),
        "acked_not_stored": sum(t["acked_not_stored"] for t in trials),
        "each": [{**t, "seconds": round(t["seconds"], 2)} for t in trials],
    }


def main() -> None:
    """Parse arguments, run both parts, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    table_arguments(parser)
    parser.add_argument("--trials", type=int, default=5, help="failover trials")
    parser.add_argument("--lease-seconds", type=float, default=None, help="wmq serve's lease")
    parser.add_argument("--no-load", action="store_true", help="skip part (a)")
    parser.add_argument("--no-failover", action="store_true", help="skip part (b)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report: dict[str, Any] = {"cpus": os.cpu_count()}
    with scratch_folder("wmq-bench-cluster-") as tmp:
        if not args.no_load:
            one = load(Path(tmp) / "one", 1, args)
            two = load(Path(tmp) / "two", 2, args)
            report["tables"] = args.tables
            report["one_server"] = one
            report["two_servers"] = two
            report["ratio_actions_per_s"] = round(
                two["actions_per_s"] / max(one["actions_per_s"], 1e-9), 2
            )
            report["ratio_p99"] = round(two["latency_p99_ms"] / max(one["latency_p99_ms"], 1e-9), 2)
            # With a core per process, a run lasts at least its busiest server's CPU time: the
            # actions per second that bound allows, for each size, and their ratio.
            for size in (one, two):
                busiest = max(size["servers_cpu_s"], default=0.0)
                size["core_each_bound_actions_per_s"] = (
                    round(size["actions"] / busiest, 1) if busiest > 0 else None
                )
                size["server_cpu_ms_per_action"] = round(
                    1000 * sum(size["servers_cpu_s"]) / max(1, size["actions"]), 2
                )
            if one["core_each_bound_actions_per_s"] and two["core_each_bound_actions_per_s"]:
                report["ratio_core_each_bound"] = round(
                    two["core_each_bound_actions_per_s"] / one["core_each_bound_actions_per_s"], 2
                )
        if not args.no_failover:
            report["failover"] = failover(Path(tmp) / "failover", args)
    own = resource.getrusage(resource.RUSAGE_SELF)
    report["clients_cpu_s"] = round(own.ru_utime + own.ru_stime, 2)
    report["load_average_1min"] = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps(report))
        return
    for key, value in report.items():
        if isinstance(value, dict):
            print(f"{key}:")
            for k, v in value.items():
                print(f"{k:>22}: {v}")
        else:
            print(f"{key:>24}: {value}")


if __name__ == "__main__":
    main()
