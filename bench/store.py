"""The store under load: the write-ahead log one address can grow, and acks/s against a peer.

Run: ``.venv/bin/python bench/store.py [--seconds 60] [--store-seconds 10] [--rooms 64]``.

1. **The heaviest load one address may start**, through a real ``wmq serve`` with every limit at
   its default: from 127.0.0.1, as many rooms of three bots (no bot delay, the longest matches
   a room may ask for) as the server lets it create, then as many rooms of people as it still
   may, each sat in by three of its sockets that then hang up (托管 plays them, at the pace of
   a table nobody watches) but one, which the address plays itself as fast as it can.
   Reported after ``--seconds``: the write-ahead log's size (at the end, and the largest seen,
   sampled every 0.1 s), the database's size, the hands played, and the act→ack latency of the
   table the address plays.

2. **Acks per second against the peer**, in-process, the same closed loop for both: ``--rooms``
   rooms each acting as fast as the store lets it (an action is acknowledged once the store
   says it is written), a hand of 60 actions then its record (a real hand's) and the next
   deal, while a task measures how late the event loop wakes it (1 ms sleeps): the lag every
   other room on the loop would see. The store is ``weimaque.server.store.store.Store`` (one writer
   thread, actions appended, the log checkpointed and emptied by the writer). **The peer is
   the store as it was before**, re-implemented here in a few lines: the whole action list of
   the hand rewritten at every action (``UPDATE current SET actions = …``), the writes of one
   turn of the event loop in one transaction on the loop itself, a PASSIVE checkpoint every
   2 s in a thread of its own. Reported: acks/s, p50/p99 latency, the loop's p99/largest lag
   and the log's largest size, each, and the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
from websockets.asyncio.client import connect

from weimaque.games.maque.match import Match
from weimaque.server.store.persist import written
from weimaque.server.store.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _serve import free_port, start_server

ACTIONS_PER_HAND = 60


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values) or [0.0]
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Sizes:
    """The largest size a file reached, sampled in a thread."""

    def __init__(self, path: Path, every: float = 0.1) -> None:
        self.path, self.every = path, every
        self.largest = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def now(self) -> int:
        try:
            return self.path.stat().st_size
        except OSError:
            return 0

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.largest = max(self.largest, self.now())

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(5)
        return self.largest


# ------------------------------------------------------------------ 1. one address, a real server


def request(port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        res = conn.getresponse()
        data = res.read()
        return res.status, json.loads(data) if data else None
    finally:
        conn.close()


async def sit_and_leave(port: int, room_id: str) -> None:
    """Three seats taken by sockets that hang up: the server's 托管 plays the room."""
    uri = f"ws://127.0.0.1:{port}/ws/{room_id}"
    for seat in range(3):
        async with connect(uri) as ws:
            await ws.send(json.dumps({"v": 1, "type": "sit", "seat": seat}))
            while json.loads(await ws.recv())["type"] != "welcome":
                pass


async def play_table(port: int, room_id: str, until: float, latencies: list[float]) -> None:
    """The three seats of one room played by the address itself, as fast as it can."""

    async def seat(k: int) -> None:
        rng = random.Random(k)
        n = 0
        sent: dict[int, float] = {}
        async with connect(f"ws://127.0.0.1:{port}/ws/{room_id}", max_queue=None) as ws:

            async def send(**fields: Any) -> int:
                nonlocal n
                n += 1
                await ws.send(json.dumps({"v": 1, "id": n, **fields}, ensure_ascii=False))
                return n

            await send(type="sit", seat=k)
            while (left := until - time.monotonic()) > 0:
                try:
                    msg = orjson.loads(await asyncio.wait_for(ws.recv(), left))
                except TimeoutError:
                    return
                kind = msg["type"]
                key = msg.get("ack") if kind == "ack" else msg.get("re")
                if key in sent:
                    start = sent.pop(key)
                    if kind == "ack":
                        latencies.append(time.perf_counter() - start)
                if kind == "hand_end" and not msg["match_over"]:
                    await send(type="next")
                elif kind in ("snapshot", "events") and msg["legal_actions"] and not sent:
                    action = rng.choice(msg["legal_actions"])["text"]
                    i = await send(type="act", action=action, decision=msg["decision"])
                    sent[i] = time.perf_counter()

    await asyncio.gather(*(seat(k) for k in range(3)))


def heaviest_load(seconds: float) -> dict[str, Any]:
    """Part 1: what one address can make a server write in ``seconds``."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "load.db"
        proc = start_server(db, port, log=Path(tmp) / "server.log")
        wal = Sizes(Path(str(db) + "-wal"))
        try:
            bots = {"0": "random", "1": "random", "2": "random"}
            bot_rooms: list[str] = []
            while True:
                body = {"bots": bots, "bot_delay_ms": 0, "options": {"match_hands": 100}}
                status, data = request(port, "POST", "/api/rooms", body)
                if status != 201:
                    break
                bot_rooms.append(data["room_id"])
            people: list[str] = []
            while True:
                body = {"bot_delay_ms": 0, "next_seconds": 3, "options": {"match_hands": 100}}
                status, data = request(port, "POST", "/api/rooms", body)
                if status != 201:
                    refusal = data
                    break
                people.append(data["room_id"])
            latencies: list[float] = []
            start = time.monotonic()

            async def run() -> None:
                await asyncio.gather(*(sit_and_leave(port, r) for r in people[1:]))
                await play_table(port, people[0], start + seconds, latencies)

            asyncio.run(run())
            elapsed = time.monotonic() - start
            hands = 0
            for room_id in bot_rooms + people:
                hands += request(port, "GET", f"/api/rooms/{room_id}")[1]["room"]["hands_played"]
            wal_end = wal.now()
            db_size = db.stat().st_size
        finally:
            largest = wal.stop()
            proc.terminate()
            proc.wait(20)
    return {
        "seconds": round(elapsed, 1),
        "bot_rooms": len(bot_rooms),
        "people_rooms": len(people),
        "refused_with": (refusal or {}).get("error", {}).get("message"),
        "hands_played": hands,
        "wal_bytes_at_end": wal_end,
        "wal_bytes_largest": largest,
        "db_bytes": db_size,
        "played_table_acks": len(latencies),
        "played_table_ack_p50_ms": round(1000 * statistics.median(latencies or [0.0]), 2),
        "played_table_ack_p99_ms": round(1000 * percentile(latencies, 0.99), 2),
    }


# ------------------------------------------------------------------ 2. the store and its peer


def a_record() -> dict[str, Any]:
    """A real finished hand's record (the size of what a hand writes when it ends)."""
    match = Match.new("anxiang", 7)
    state = match.start_hand()
    rng = random.Random(7)
    while not state.is_terminal():
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    match.finish_hand()
    return match.hands[0]


class PeerStore:
    """THE PEER: the store as it was, in a few lines. The hand's whole action list is rewritten
    at every action; the rooms' writes of one turn of the event loop go in one transaction, on
    the loop; a thread folds the log into the file with PASSIVE checkpoints every 2 s."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE current (room_id TEXT PRIMARY KEY, actions TEXT NOT NULL)")
        self.db.execute(
            "CREATE TABLE hands (room_id TEXT, number INTEGER, record TEXT, "
            "PRIMARY KEY (room_id, number))"
        )
        self.pending: dict[str, list[list[Any]]] = {}
        self.waiting: list[asyncio.Future[None]] = []
        self.scheduled = False
        self.path = path
        self._stop = threading.Event()
        self._checkpointer = threading.Thread(target=self._checkpoint, daemon=True)
        self._checkpointer.start()

    def _checkpoint(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None)
        while not self._stop.wait(2.0):
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        conn.close()

    def start_hand(self, room_id: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO current VALUES (?, '[]')", (room_id,))

    def action(self, room_id: str, actions: list[list[Any]]) -> asyncio.Future[None]:
        self.pending[room_id] = actions
        done = asyncio.get_running_loop().create_future()
        self.waiting.append(done)
        if not self.scheduled:
            self.scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)
        return done

    def flush(self) -> None:
        self.scheduled = False
        items, self.pending = self.pending, {}
        waiting, self.waiting = self.waiting, []
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "UPDATE current SET actions = ? WHERE room_id = ?",
                [(orjson.dumps(a).decode(), r) for r, a in items.items()],
            )
        for done in waiting:
            done.set_result(None)

    def finish_hand(self, room_id: str, number: int, record: str) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO hands VALUES (?, ?, ?)", (room_id, number, record))
            self.db.execute("DELETE FROM current WHERE room_id = ?", (room_id,))

    def close(self) -> None:
        self._stop.set()
        self._checkpointer.join(5)
        self.db.close()


async def closed_loop(
    rooms: int,
    seconds: float,
    start_hand: Callable[[str, int], None],
    act: Callable[[str, int, int, list[list[Any]]], Awaitable[None]],
    finish_hand: Callable[[str, int], None],
    lags: list[float],
) -> list[float]:
    """Every room acts as soon as its last action is acknowledged; the latencies (and the
    event loop's lags in ``lags``)."""
    latencies: list[float] = []
    until = time.monotonic() + seconds

    async def room(r: int) -> None:
        room_id = f"room{r}"
        number = 1
        start_hand(room_id, number)
        actions: list[list[Any]] = []
        while time.monotonic() < until:
            actions.append([len(actions) % 3, "出三"])
            sent = time.perf_counter()
            await act(room_id, number, len(actions) - 1, actions)
            latencies.append(time.perf_counter() - sent)
            if len(actions) == ACTIONS_PER_HAND:
                finish_hand(room_id, number)
                number += 1
                start_hand(room_id, number)
                actions = []

    async def lag() -> None:
        while time.monotonic() < until:
            sent = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append(time.perf_counter() - sent - 0.001)

    await asyncio.gather(lag(), *(room(r) for r in range(rooms)))
    return latencies


def measure(name: str, rooms: int, seconds: float, record: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.db"
        wal = Sizes(Path(str(path) + "-wal"), every=0.05)
        lags: list[float] = []
        if name == "store":
            store = Store(path)
            for r in range(rooms):
                store.create_room(f"room{r}", {}, {}, "anxiang", {}, r)
            store.flush()
            parsed = json.loads(record)

            async def act(room_id: str, number: int, seq: int, actions: list[list[Any]]) -> None:
                seat, text = actions[-1]
                await written(store.append_action(room_id, number, seq, seat, text))

            def start(room_id: str, number: int) -> None:
                store.start_hand(room_id, number, "anxiang", {}, number, 0)

            def finish(room_id: str, number: int) -> None:
                store.finish_hand(room_id, number, parsed, {}, False)

            try:
                latencies = asyncio.run(closed_loop(rooms, seconds, start, act, finish, lags))
            finally:
                store.close()
        else:
            peer = PeerStore(path)

            async def act(room_id: str, number: int, seq: int, actions: list[list[Any]]) -> None:
                await peer.action(room_id, list(actions))

            def start(room_id: str, number: int) -> None:
                peer.start_hand(room_id)

            def finish(room_id: str, number: int) -> None:
                peer.finish_hand(room_id, number, record)

            try:
                latencies = asyncio.run(closed_loop(rooms, seconds, start, act, finish, lags))
            finally:
                peer.close()
        largest = wal.stop()
    return {
        "acks_per_s": round(len(latencies) / seconds),
        "ack_p50_ms": round(1000 * statistics.median(latencies), 3),
        "ack_p99_ms": round(1000 * percentile(latencies, 0.99), 3),
        "loop_lag_p99_ms": round(1000 * percentile(lags, 0.99), 3),
        "loop_lag_largest_ms": round(1000 * max(lags or [0.0]), 3),
        "wal_bytes_largest": largest,
    }


def main() -> None:
    """Parse arguments, run both parts, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="part 1's load")
    parser.add_argument("--store-seconds", type=float, default=10.0, help="part 2, each store")
    parser.add_argument("--rooms", type=int, default=64, help="part 2's rooms")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load = heaviest_load(args.seconds)
    record = orjson.dumps(a_record()).decode()
    new = measure("store", args.rooms, args.store_seconds, record)
    peer = measure("peer", args.rooms, args.store_seconds, record)
    report = {
        "one_address": load,
        "store": new,
        "peer_rewrite_per_action": peer,
        "ratio_acks_per_s": round(new["acks_per_s"] / max(1, peer["acks_per_s"]), 2),
        "ratio_p99": round(new["ack_p99_ms"] / max(1e-9, peer["ack_p99_ms"]), 2),
        "record_bytes": len(record),
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    if args.json:
        print(json.dumps(report))
        return
    for key, value in report.items():
        if isinstance(value, dict):
            print(f"{key}:")
            for k, v in value.items():
                print(f"  {k:>26}: {v}")
        else:
            print(f"{key:>28}: {value}")


if __name__ == "__main__":
    main()
