"""Server load: N concurrent tables, three WebSocket clients each, through a real ``wmq serve``.

Run: ``.venv/bin/python bench/server.py [--tables 50] [--hands 1] [--rounds N] [--max-seconds S]``.
The server runs in a subprocess on 127.0.0.1 with a temporary database and every limit at its
default; every seat is a client from a loopback address of its own (127.0.x.y) that asks for
听 hints as the browser does (``--no-hints``: not) and answers with a random legal action over
its WebSocket (``--chat``: each seat also says a quick-chat phrase every 10 or so of its actions,
within the chat rate limit; ``--players``: every seat is a signed-in player, docs/protocol.md
§7, whose socket carries its key, and every hand is counted for its 战绩). Reported: actions per
second, the p50/p99 latency from sending ``act`` to receiving its answer (the ``ack``), and the
server's CPU time per action, all over the play alone (the server's start and the making of the
rooms and players excluded). With ``--rounds N`` the bench runs N times
(seeds ``--seed`` onwards, a fresh server each) and gives each figure's median and range: one
round's p99 is the 15th-worst of about 1,500 answers, and moves with the machine's load.

The peer, measured in the same run: an echo server (``websockets``, one Python process, no game)
answering the same number of clients with messages of the same size, in the same lock-step
rounds. Its p99 is the floor this machine (and its current load) puts under any one-process
Python server; the ratio says how far above that floor the game server is.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _serve import free_port, start_server
from weimaque.server.wire.quickchat import CHAT_INTERVAL, PHRASES


@dataclass
class Stats:
    """What the clients measured."""

    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    hands: int = 0
    errors: int = 0
    tables_done: int = 0


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) a process has used, from /proc; None where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def client_address(k: int) -> str:
    """The loopback address of the ``k``-th client: every player comes from an address of its
    own, as at real tables, so the server's per-address limits stay on and never throttle the
    bench as one client (Linux routes all of 127.0.0.0/8 to the loopback)."""
    return f"127.0.{k // 250}.{k % 250 + 2}"


def create_room(port: int, seed: int, hands: int, address: str) -> str:
    """A room of three human seats, no bot delay, created from ``address``."""
    body = {"seed": seed, "bot_delay_ms": 0, "options": {"match_hands": hands}}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(address, 0))
    try:
        conn.request(
            "POST", "/api/rooms", json.dumps(body), headers={"Content-Type": "application/json"}
        )
        res = conn.getresponse()
        data = res.read()
        if res.status not in (200, 201):
            raise SystemExit(f"room creation refused: {res.status} {data[:200]!r}")
        return str(json.loads(data)["room_id"])
    finally:
        conn.close()


def create_player(port: int, name: str, address: str) -> str:
    """A signed-in player made from ``address``: its key."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(address, 0))
    try:
        body = json.dumps({"name": name})
        conn.request("POST", "/api/players", body, headers={"Content-Type": "application/json"})
        res = conn.getresponse()
        data = res.read()
        if res.status != 201:
            raise SystemExit(f"player creation refused: {res.status} {data[:200]!r}")
        return str(json.loads(data)["key"])
    finally:
        conn.close()


async def seat_client(
    port: int,
    room_id: str,
    seat: int,
    hands: int,
    rng: random.Random,
    stats: Stats,
    address: str,
    hints: bool,
    chat: bool = False,
    key: str | None = None,
) -> None:
    """One seat (of the player of ``key``, else a guest): sit, then answer every decision with
    a random legal action until the end."""
    ws: ClientConnection
    uri = f"ws://127.0.0.1:{port}/ws/{room_id}"
    headers = None if key is None else {"Authorization": f"Bearer {key}"}
    async with connect(
        uri, max_queue=None, local_addr=(address, 0), additional_headers=headers
    ) as ws:
        n = 0

        async def send(**fields: Any) -> int:
            nonlocal n
            n += 1
            await ws.send(json.dumps({"v": 1, "id": n, **fields}, ensure_ascii=False))
            return n

        await send(type="sit", seat=seat, hints=hints)  # as the browser asks (on by default)
        pending: dict[int, float] = {}
        finished = 0
        acted = 0
        chatted = -CHAT_INTERVAL
        async for raw in ws:
            msg = orjson.loads(raw)  # the clients share a core with the server: parse fast
            kind = msg["type"]
            # The server's answer to an act: the immediate ``ack`` (docs/protocol.md §2.1; the
            # ``events`` with ``re`` may wait for the other seats to close a claim window), or,
            # from a server without acks, that ``events`` message.
            re = msg.get("ack") if kind == "ack" else msg.get("re")
            if re in pending:
                sent = pending.pop(re)
                if kind in ("ack", "events"):
                    stats.latencies.append(time.perf_counter() - sent)
                    stats.actions += 1
                elif kind == "error":
                    stats.errors += 1
            if kind == "hand_end":
                finished += 1
                if seat == 0:
                    stats.hands += 1
                if finished >= hands:
                    break
                await send(type="next")
            elif kind in ("snapshot", "events") and msg["legal_actions"] and not pending:
                choice = rng.choice(msg["legal_actions"])
                i = await send(type="act", action=choice["text"], decision=msg["decision"])
                pending[i] = time.perf_counter()
                acted += 1
                now = time.monotonic()
                if chat and acted % 10 == 0 and now - chatted >= CHAT_INTERVAL:
                    chatted = now  # one every CHAT_INTERVAL s: never past the server's limit
                    await send(type="chat", phrase=rng.choice(PHRASES))
        if seat == 0:
            stats.tables_done += 1


ECHO_SERVER = """
import asyncio, sys
from websockets.asyncio.server import serve

PAD = "x" * int(sys.argv[2])

async def answer(ws):
    async for raw in ws:
        await ws.send(PAD)

async def main():
    async with serve(answer, "127.0.0.1", int(sys.argv[1]), compression=None, max_queue=None):
        await asyncio.Future()

asyncio.run(main())
"""


async def echo_client(port: int, rounds: int, latencies: list[float]) -> None:
    """One client of the peer: ``rounds`` requests, each sent as soon as the last is answered."""
    uri = f"ws://127.0.0.1:{port}/"
    async with connect(uri, max_queue=None, compression=None) as ws:
        for _ in range(rounds):
            sent = time.perf_counter()
            await ws.send('{"v":1,"type":"act","action":"过"}')
            await ws.recv()
            latencies.append(time.perf_counter() - sent)


def peer_p99(clients: int, rounds: int, size: int) -> float | None:
    """p99 latency (ms) of the echo peer for ``clients`` concurrent clients."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", ECHO_SERVER, str(port), str(size)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    latencies: list[float] = []
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    return None
                time.sleep(0.05)

        async def all_clients() -> None:
            await asyncio.gather(*(echo_client(port, rounds, latencies) for _ in range(clients)))

        asyncio.run(all_clients())
    finally:
        proc.terminate()
        proc.wait(10)
    lat = sorted(latencies)
    return 1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else None


def prepare(
    port: int, tables: int, hands: int, seed: int, players: bool = False
) -> tuple[list[str], list[str | None]]:
    """The rooms, and with ``players`` a signed-in player per seat (their keys; else None)."""
    rooms = [create_room(port, seed + t, hands, client_address(3 * t)) for t in range(tables)]
    keys: list[str | None] = [None] * (3 * tables)
    if players:
        keys = [create_player(port, f"p{k}", client_address(k)) for k in range(3 * tables)]
    return rooms, keys


async def play(
    port: int,
    rooms: list[str],
    hands: int,
    max_seconds: float,
    seed: int,
    hints: bool = True,
    chat: bool = False,
    keys: list[str | None] | None = None,
) -> Stats:
    """Play the rooms all at once, three seat clients each (seat ``k`` of the player of
    ``keys[k]``, if given)."""
    tables = len(rooms)
    if keys is None:
        keys = [None] * (3 * tables)
    stats = Stats()
    rng = random.Random(seed)
    tasks = [
        seat_client(
            port,
            room_id,
            seat,
            hands,
            random.Random(rng.getrandbits(64)),
            stats,
            client_address(3 * t + seat),
            hints,
            chat,
            keys[3 * t + seat],
        )
        for t, room_id in enumerate(rooms)
        for seat in range(3)
    ]
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=max_seconds)
    except TimeoutError:
        print(f"stopped after {max_seconds} s", file=sys.stderr)
    return stats


def one_round(args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """One round: a fresh server and database, the tables played, the peer measured after."""
    port = free_port()
    own_start = resource.getrusage(resource.RUSAGE_SELF)
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(Path(tmp) / "bench.db", port)
        try:
            rooms, keys = prepare(port, args.tables, args.hands, seed, args.players)
            cpu_start = process_cpu(proc.pid)
            start = time.perf_counter()
            stats = asyncio.run(
                play(
                    port,
                    rooms,
                    args.hands,
                    args.max_seconds,
                    seed,
                    not args.no_hints,
                    args.chat,
                    keys,
                )
            )
            elapsed = time.perf_counter() - start
            server_cpu = process_cpu(proc.pid)
        finally:
            proc.terminate()
            proc.wait(10)
    own = resource.getrusage(resource.RUSAGE_SELF)
    clients_cpu = own.ru_utime + own.ru_stime - own_start.ru_utime - own_start.ru_stime
    lat = sorted(stats.latencies) or [0.0]
    per_action = None
    if server_cpu is not None and cpu_start is not None and stats.actions:
        per_action = round(1000 * (server_cpu - cpu_start) / stats.actions, 3)
    # The peer: as many clients as seats, each making its seat's share of the requests.
    peer = None
    if not args.no_peer:
        rounds = max(1, stats.actions // max(1, 3 * args.tables))
        peer = peer_p99(3 * args.tables, rounds, 1500)
    p99 = 1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))]
    return {
        "seed": seed,
        "tables": args.tables,
        "hints": not args.no_hints,
        "chat": args.chat,
        "players": args.players,
        "tables_done": stats.tables_done,
        "hands": stats.hands,
        "actions": stats.actions,
        "errors": stats.errors,
        "seconds": round(elapsed, 2),
        "actions_per_s": round(stats.actions / elapsed, 1),
        "latency_p50_ms": round(1000 * statistics.median(lat), 2),
        "latency_p99_ms": round(p99, 2),
        "peer_echo_p99_ms": None if peer is None else round(peer, 2),
        "ratio_p99_to_peer": None if not peer else round(p99 / peer, 2),
        "server_cpu_ms_per_action": per_action,
        "server_cpu_s": None if server_cpu is None else round(server_cpu, 2),
        "clients_cpu_s": round(clients_cpu, 2),
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def spread(values: list[float]) -> str:
    """``median [min, max]`` of a figure over the rounds."""
    return f"{statistics.median(values):.2f} [{min(values):.2f}, {max(values):.2f}]"


def table_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a load of tables, shared with bench/cluster.py."""
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--hands", type=int, default=1, help="hands per table")
    parser.add_argument("--max-seconds", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=1)


def main() -> None:
    """Parse arguments, run the rounds, report each and, over several, the spread."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    table_arguments(parser)
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="rounds, seeds --seed, --seed + 1, …: each figure's median and range over them",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-peer", action="store_true", help="skip the echo-server peer")
    parser.add_argument(
        "--no-hints", action="store_true", help="clients do not ask for 听 hints (the browser does)"
    )
    parser.add_argument(
        "--chat", action="store_true", help="each seat sends a chat phrase every ~10 actions"
    )
    parser.add_argument(
        "--players", action="store_true", help="every seat is a signed-in player (its key)"
    )
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, not {args.rounds}")
    reports = []
    for k in range(args.rounds):
        report = one_round(args, args.seed + k)
        reports.append(report)
        if args.json:
            print(json.dumps(report))
        elif args.rounds == 1:
            for key, value in report.items():
                print(f"{key:>16}: {value}")
        else:
            figures = ("latency_p99_ms", "peer_echo_p99_ms", "server_cpu_ms_per_action")
            shown = "  ".join(f"{key} {report[key]}" for key in figures)
            print(
                f"round {k + 1} seed {report['seed']}: {shown}  load {report['load_average_1min']}"
            )
    if args.rounds > 1 and not args.json:
        print(f"over {args.rounds} rounds, median [min, max]:")
        for key in (
            "latency_p50_ms",
            "latency_p99_ms",
            "peer_echo_p99_ms",
            "ratio_p99_to_peer",
            "server_cpu_ms_per_action",
        ):
            values = [r[key] for r in reports if r[key] is not None]
            if values:
                print(f"{key:>24}: {spread(values)}")


if __name__ == "__main__":
    main()
