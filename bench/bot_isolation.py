"""Bots and floods must not starve people's tables: a table of three clients, alone, beside
busy bots, and beside a room flooded with joins.

Run: ``.venv/bin/python bench/bot_isolation.py [--bot-rooms 5] [--hands 4]``.

One ``wmq serve``; a table of three WebSocket clients answering at once with a random legal
action plays ``--hands`` hands, first alone (the peer figure), then while ``--bot-rooms`` rooms of
three default ``mcts`` bots (300 ms of search a decision, no delay) play on the same server.
Reported: the p50/p99 latency from ``act`` to the server's answer (``ack``) in both runs, and
the ratio. Bots think in the server's worker process pool (``bot_workers``), not on its event
loop, so the ratio should stay near 1 even though the bots keep a core busy. Then, with the bots
gone, 20 connections flood another room with ``join`` messages as fast as the server takes
them (each join is answered with a snapshot and changes the room): the table's p99 must stay
under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _serve
from _serve import free_port, start_server


def post(port: int, body: dict[str, Any]) -> str:
    """Create a room; its id."""
    return str(_serve.post(port, "/api/rooms", body)["room_id"])


async def seat(port: int, room: str, s: int, hands: int, rng: random.Random) -> list[float]:
    """One client: sit, answer every decision at once, time act → ack."""
    lat: list[float] = []
    async with connect(f"ws://127.0.0.1:{port}/ws/{room}", max_size=2**22) as ws:
        n = 0
        pending: dict[int, float] = {}
        done = 0
        await ws.send(json.dumps({"v": 1, "type": "sit", "seat": s}))
        await ws.send(json.dumps({"v": 1, "type": "no_timer", "agree": True}))
        async for raw in ws:
            msg = json.loads(raw)
            got = msg.get("ack")
            if got in pending:
                lat.append(time.perf_counter() - pending.pop(got))
            if msg["type"] == "hand_end":
                done += 1
                if done >= hands:
                    break
                await ws.send(json.dumps({"v": 1, "type": "next"}))
            elif msg["type"] in ("snapshot", "events") and msg.get("legal_actions") and not pending:
                n += 1
                text = rng.choice(msg["legal_actions"])["text"]
                pending[n] = time.perf_counter()
                act = {"v": 1, "id": n, "type": "act", "action": text, "decision": msg["decision"]}
                await ws.send(json.dumps(act))
    return lat


async def table(port: int, hands: int, seed: int) -> list[float]:
    room = post(port, {"turn_seconds": None, "bot_delay_ms": 0, "options": {"match_hands": 8}})
    rng = random.Random(seed)
    runs = [seat(port, room, s, hands, random.Random(rng.getrandbits(64))) for s in range(3)]
    return [x for lat in await asyncio.gather(*runs) for x in lat]


async def flood(port: int, room: str, stop: asyncio.Event) -> int:
    """20 connections sending joins into ``room`` (reading their answers) until ``stop``;
    how many were sent (those over the address's rate are dropped by the server)."""
    sent = 0

    async def one() -> None:
        nonlocal sent
        # From another loopback address than the table's: one flooding client, one player.
        url = f"ws://127.0.0.1:{port}/ws/{room}"
        async with connect(url, max_size=2**22, local_addr=("127.0.0.2", 0)) as ws:
            reader = asyncio.create_task(drain(ws))
            try:
                while not stop.is_set() and not reader.done():
                    await ws.send('{"v": 1, "type": "join"}')
                    sent += 1
                    await asyncio.sleep(0.02)
            except ConnectionClosed:
                pass  # a flooder that fell behind reading is dropped by the server: fine
            reader.cancel()

    await asyncio.gather(*(one() for _ in range(20)))
    return sent


async def drain(ws: Any) -> None:
    with contextlib.suppress(ConnectionClosed):
        async for _ in ws:
            pass


async def table_beside_flood(port: int, hands: int, seed: int) -> tuple[list[float], int]:
    target = post(port, {})
    stop = asyncio.Event()
    flooding = asyncio.create_task(flood(port, target, stop))
    await asyncio.sleep(1)
    lat = await table(port, hands, seed)
    stop.set()
    return lat, await flooding


def pct(lat: list[float], q: float) -> float:
    lat = sorted(lat)
    return 1000 * lat[min(len(lat) - 1, int(q * len(lat)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot-rooms", type=int, default=5)
    parser.add_argument("--hands", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = start_server(Path(tmp) / "b.db", port)
        try:
            alone = asyncio.run(table(port, args.hands, 1))
            for _ in range(args.bot_rooms):
                post(port, {"bots": {"0": "mcts", "1": "mcts", "2": "mcts"}, "bot_delay_ms": 0})
            time.sleep(2)  # the bots' pool is started and busy
            beside = asyncio.run(table(port, args.hands, 2))
        finally:
            proc.terminate()
            proc.wait(10)
        proc = start_server(Path(tmp) / "f.db", port)
        try:
            flooded, joins = asyncio.run(table_beside_flood(port, args.hands, 3))
        finally:
            proc.terminate()
            proc.wait(10)
    a99, b99 = pct(alone, 0.99), pct(beside, 0.99)
    print(f"table alone:           p50 {pct(alone, 0.5):.1f} ms, p99 {a99:.1f} ms ({len(alone)})")
    print(
        f"beside {args.bot_rooms} mcts rooms: p50 {pct(beside, 0.5):.1f} ms, "
        f"p99 {b99:.1f} ms ({len(beside)})"
    )
    print(f"ratio p99 beside/alone: {b99 / a99:.2f}")
    f99 = pct(flooded, 0.99)
    print(
        f"beside a room flooded with {joins} joins: p50 {pct(flooded, 0.5):.1f} ms, "
        f"p99 {f99:.1f} ms ({len(flooded)}); ratio to alone {f99 / a99:.2f}"
    )


if __name__ == "__main__":
    main()
