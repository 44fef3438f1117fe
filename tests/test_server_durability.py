"""Durability against a real ``wmq serve`` (docs/protocol.md §4, §6).

An action is acknowledged only once it is in the store: when the disk fails, the acting player
is told ``storage_unavailable`` and nothing is applied, ``/api/health`` says the store is
failing, the table plays on once the disk writes again, and a server killed by SIGKILL comes
back at exactly the last acknowledged action. The disk fails for real: a small tmpfs filled up
(where the test may mount one) and a file-size limit set on the server process from outside.
The write-ahead log stays bounded under the heaviest load one address may start, a lock another
process holds on the database file stalls only the room that writes, and restoring a long match
holds up no other room.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import random
import resource
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from tests.serverkit import Server, Table
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.match import Match
from weimaque.server.base.limits import Limits
from weimaque.server.edge.context import Server as ServerParts
from weimaque.server.store.store import Store, StoreUnavailable

#: What the store keeps the write-ahead log under (store.WAL_LIMIT_BYTES), with one batch of
#: writes on top.
WAL_BOUND = 4 * 1024 * 1024 + 1024 * 1024


# ------------------------------------------------------------------ disks that fail on demand


class Disk:
    """The folder of a server's database, on a disk the test makes fail and recover."""

    dir: Path

    def attach(self, pid: int) -> None:
        """The server process writing to the disk."""

    def fill(self) -> None:
        """From now on, writes that need more room fail."""

    def free(self) -> None:
        """Writes go through again."""

    def close(self) -> None:
        """Undo what the disk needed."""


class FullTmpfs(Disk):
    """A 4 MiB tmpfs the test mounts, filled to the last page by a file of zeros."""

    def __init__(self, tmp: Path) -> None:
        self.dir = tmp / "disk"
        self.dir.mkdir()
        self.filler = tmp / "disk" / "filler"
        if os.geteuid() != 0:
            pytest.skip("mounting a tmpfs needs root")
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(self.dir)],
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace')}")

    def fill(self) -> None:
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            for size in (1 << 16, 1 << 12):
                chunk = bytes(size)
                while True:
                    try:
                        if os.write(fd, chunk) < size:
                            break
                    except OSError as exc:
                        if exc.errno != errno.ENOSPC:
                            raise
                        break
        finally:
            os.close(fd)

    def free(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.filler.unlink()

    def close(self) -> None:
        subprocess.run(["umount", "-l", str(self.dir)], capture_output=True, check=False)


class FileSizeLimit(Disk):
    """RLIMIT_FSIZE of the server set to 0 from outside (prlimit): every write fails, EFBIG."""

    def __init__(self, tmp: Path) -> None:
        if not hasattr(resource, "prlimit"):
            pytest.skip("resource.prlimit is Linux only")
        self.dir = tmp / "db"
        self.dir.mkdir()
        self.pid = 0

    def attach(self, pid: int) -> None:
        self.pid = pid

    def fill(self) -> None:
        resource.prlimit(self.pid, resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))

    def free(self) -> None:
        limit = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
        with contextlib.suppress(ProcessLookupError):  # a server killed meanwhile
            resource.prlimit(self.pid, resource.RLIMIT_FSIZE, limit)


@pytest.fixture(params=["tmpfs", "file_size_limit"])
def disk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Disk]:
    made: Disk = FullTmpfs(tmp_path) if request.param == "tmpfs" else FileSizeLimit(tmp_path)
    try:
        yield made
    finally:
        made.close()


def crash(server: Server) -> None:
    """SIGKILL the server, then the worker processes it leaves behind (by their ids)."""
    pid = server.proc.pid
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                children.append(int(stat.parent.name))
    server.proc.kill()
    server.proc.wait(10)
    for child in children:
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)
    server.stop()


def health(server: Server) -> tuple[int, dict[str, Any]]:
    status, _, body = server.request("/api/health")
    return status, json.loads(body)


# ------------------------------------------------------------------ a failing disk


def test_a_failing_disk_loses_no_acknowledged_action(tmp_path: Path, disk: Disk) -> None:
    db = disk.dir / "server.db"
    server = Server(tmp_path, db=db)
    disk.attach(server.proc.pid)
    try:
        # Hands are played until two of them were ended by an action refused first: a write
        # that fits in pages the files already have goes through on a full disk, so which
        # actions are refused is the disk's choice, not the test's.
        options = {"match_hands": 12}
        room = server.room(seed=23, turn_seconds=None, next_seconds=None, options=options)
        room_id = room["room_id"]
        table = Table(server, room_id)
        refused = ends_after_refusal = 0
        seen_ends: set[int] = set()
        last = "ack"
        playing = 1
        # Every action is tried first on a full disk, then again once it has room.
        while ends_after_refusal < 2 or len(table.acked.get(playing, [])) < 6:
            k = table.to_act()
            assert k is not None, "the match ended before two hands ended on a refusal"
            for number in table.ended.keys() - seen_ends:  # the last action ended a hand
                seen_ends.add(number)
                ends_after_refusal += last == "storage_unavailable"
            playing = max(seen_ends, default=0) + 1
            assert table.view[k] is not None
            # Each seat's own decision (decisions count per seat, docs/protocol.md §2.2), once
            # the news of the last action has reached every seat (a ping answered after it: a
            # quiet spell of a few ms is no proof on a loaded machine).
            table.settle()
            asked = [None if view is None else view["decision"] for view in table.view]
            disk.fill()
            last = table.act(k)
            if last == "storage_unavailable":
                refused += 1
                # Nothing was applied: no seat hears of a later decision, and the table stays
                # where it was.
                news = []
                for j, before in enumerate(asked):
                    while (m := table.recv(j, 0.05)) is not None:
                        later = m["type"] == "events" and (before is None or m["decision"] > before)
                        if m["type"] == "hand_end" or later:
                            news.append(m)
                assert news == [], news
                status, body = health(server)
                assert status == 503 and body["store"] == "failing" and body["reason"], body
            disk.free()
            if last != "ack":
                assert last == "storage_unavailable", last
                assert table.act(k) == "ack"  # the same decision, the same action: written now
        assert refused >= 20, refused
        status, body = health(server)
        assert status == 200 and body["store"] == "ok", body
        crash(server)  # mid-hand, right after an acknowledged action
        table.close()
        server = Server(tmp_path, db=db)
        for number in range(1, playing):
            record = server.get(f"/api/rooms/{room_id}/hands/{number}")["record"]
            assert record["actions"] == table.acked[number], number
        info = server.get(f"/api/rooms/{room_id}")["room"]
        assert (info["status"], info["hand_number"]) == ("playing", playing), info
        again = Table(server, room_id, tokens=table.tokens)
        while (k := again.to_act()) is not None and playing not in again.ended:
            assert again.act(k) == "ack"
        record = server.get(f"/api/rooms/{room_id}/hands/{playing}")["record"]
        # Resumed at exactly the last acknowledged action: nothing lost, nothing added.
        assert record["actions"] == table.acked[playing] + again.acked[playing]
        again.close()
    finally:
        disk.free()
        server.stop()


def test_the_store_keeps_what_follows_and_refuses_what_a_player_waits_for(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "rooms.db", busy_seconds=0.2)
    try:
        store.create_room("r", {}, {"seats": []}, "anxiang", {}, 1)
        store.start_hand("r", 1, "anxiang", {}, 1, 0)
        store.append_action("r", 1, 0, 0, "出三").result(5)
        # Another connection holds the write lock: nothing can be written.
        lock = sqlite3.connect(store.path, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        try:
            seats = store.save_seats("r", {"seats": [], "name": "p1"})  # follows: kept
            refused = store.append_action("r", 1, 1, 1, "过")  # a player waits: refused
            with pytest.raises(StoreUnavailable, match="locked"):
                refused.result(5)
            assert store.failing is not None and "locked" in store.failing
            assert not seats.done()
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        seats.result(5)  # written, in its order, once the lock is gone
        assert store.failing is None
        store.append_action("r", 1, 1, 1, "过").result(5)
        loaded = store.load("r")
        assert loaded is not None and loaded.current is not None
        assert loaded.current["actions"] == [[0, "出三"], [1, "过"]]
        assert loaded.seats["name"] == "p1"
    finally:
        store.close()


# ------------------------------------------------------------------ the write-ahead log


async def play_seat(port: int, room_id: str, seat: int, address: str, until: float) -> int:
    """One seat of a table of people playing as fast as they can; how many actions it made."""
    rng = random.Random(f"{room_id}:{seat}")
    made = n = 0
    uri = f"ws://127.0.0.1:{port}/ws/{room_id}"
    async with connect(uri, max_queue=None, local_addr=(address, 0)) as ws:

        async def send(**fields: Any) -> int:
            nonlocal n
            n += 1
            await ws.send(json.dumps({"v": 1, "id": n, **fields}, ensure_ascii=False))
            return n

        await send(type="sit", seat=seat)
        waiting: int | None = None
        while time.monotonic() < until:
            try:
                raw = await asyncio.wait_for(ws.recv(), max(0.01, until - time.monotonic()))
            except TimeoutError:
                break
            msg = json.loads(raw)
            if msg["type"] == "ack" and msg.get("ack") == waiting:
                made, waiting = made + 1, None
            elif msg["type"] == "error" and msg.get("re") == waiting:
                waiting = None
            elif msg["type"] == "hand_end" and not msg["match_over"]:
                await send(type="next")
            elif msg["type"] in ("snapshot", "events") and msg["legal_actions"] and not waiting:
                action = rng.choice(msg["legal_actions"])["text"]
                waiting = await send(type="act", action=action, decision=msg["decision"])
    return made


def test_the_write_ahead_log_stays_bounded_under_the_heaviest_load(tmp_path: Path) -> None:
    server = Server(tmp_path, {"room_burst": 1000})
    wal = Path(str(server.db) + "-wal")
    sizes: list[int] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.05):
            with contextlib.suppress(OSError):
                sizes.append(wal.stat().st_size)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        # What one address may start: rooms of three bots without a delay, the longest
        # matches, as many as it is let create...
        bots = {"0": "random", "1": "random", "2": "random"}
        body = {"bots": bots, "bot_delay_ms": 0, "options": {"match_hands": 100}}
        codes = [server.post("/api/rooms", body)[0] for _ in range(30)]
        longest = server.post("/api/rooms", {"bots": bots, "options": {"match_hands": 10**6}})
        # ... and, beside it, tables of people playing as fast as they can.
        tables = [
            server.room(seed=60 + t, turn_seconds=None, options={"match_hands": 100})["room_id"]
            for t in range(8)
        ]

        async def load() -> list[int]:
            until = time.monotonic() + 12
            seats = [
                play_seat(server.port, room_id, s, f"127.0.{t + 1}.{s + 2}", until)
                for t, room_id in enumerate(tables)
                for s in range(3)
            ]
            return await asyncio.gather(*seats)

        made = asyncio.run(load())
    finally:
        stop.set()
        watcher.join(5)
        server.stop()
    assert sum(made) > 1000, made  # the tables did play
    assert max(sizes) <= WAL_BOUND, f"the log reached {max(sizes)} bytes"
    # The bounds that keep one address's load down.
    assert codes.count(201) == 4 and codes[4:] == [429] * 26, codes
    assert longest[0] == 400 and "match_hands" in longest[1]["error"]["message"], longest


# ------------------------------------------------------------------ the event loop


def test_an_outside_write_lock_stalls_only_the_room_that_writes(tmp_path: Path) -> None:
    server = Server(tmp_path)
    try:
        room = server.room(seed=31, turn_seconds=None, next_seconds=None)["room_id"]
        table = Table(server, room)
        other = server.room(seed=32)["room_id"]
        watcher = server.ws(other)
        watcher.reply(watcher.send(type="join"), "snapshot")
        k = table.to_act()
        assert k is not None
        view = table.view[k]
        assert view is not None
        time.sleep(0.3)  # what the table wrote so far is written
        # Another process takes the database's write lock and keeps it 3 s.
        lock = sqlite3.connect(server.db, timeout=5, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        try:
            action = view["legal_actions"][0]["text"]
            i = table.seats[k].send(
                type="act", action=action, hand=view["hand_number"], decision=view["decision"]
            )
            pongs = []
            held = time.monotonic()
            while time.monotonic() - held < 3.0:
                sent = time.monotonic()
                watcher.reply(watcher.send(type="ping", t=1), "pong", timeout=10)
                pongs.append(time.monotonic() - sent)
                time.sleep(0.05)
            early = [m for m in table.drain(0.01) if m.get("ack") == i or m.get("re") == i]
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        # A loop that waited on the lock would hold a ping for the lock's 3 s; half of that is
        # far above what a loaded machine adds.
        assert max(pongs) < 1.5, f"another room's ping took {max(pongs):.2f} s"
        assert early == []  # not acknowledged before it could be written
        reply = table.wait(k, lambda m: m.get("ack") == i or m.get("re") == i)
        assert reply["type"] == "ack", reply  # written once the lock was gone
        table.close()
        watcher.close()
    finally:
        server.stop()


def played_record(seed: int) -> dict[str, Any]:
    """A finished hand's record, played by the engine with random legal actions."""
    match = Match.new("anxiang", seed)
    state = match.start_hand()
    rng = random.Random(seed)
    while not state.is_terminal():
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    match.finish_hand()
    record = match.hands[0]
    assert all(Action.parse(a) for _, a in record["actions"])
    return record


def test_restoring_a_long_match_holds_up_no_other_room(tmp_path: Path) -> None:
    server = Server(tmp_path)
    big = server.room(seed=41)["room_id"]
    server.stop()
    # The room is given 1,500 finished hands (the same one) and leaves the rooms restored at
    # start-up: it comes back from the store when it is asked for.
    record = json.dumps(played_record(41), ensure_ascii=False)
    db = sqlite3.connect(server.db)
    db.execute(
        "UPDATE rooms SET status = 'over', config = json_set(config, "
        "'$.options.match_hands', 5000, '$.options.score_target', 0) WHERE id = ?",
        (big,),
    )
    db.executemany(
        "INSERT INTO hands (room_id, number, record, finished, match) VALUES (?, ?, ?, 0, 1)",
        [(big, n, record) for n in range(1, 1501)],
    )
    db.commit()
    db.close()
    server = Server(tmp_path, db=server.db)
    try:
        watcher = server.ws(server.room(seed=42)["room_id"])
        watcher.reply(watcher.send(type="join"), "snapshot")
        took: list[float] = []

        def fetch() -> None:
            start = time.monotonic()
            status, _, _ = server.request(f"/r/{big}")
            took.append(time.monotonic() - start)
            assert status == 200

        getter = threading.Thread(target=fetch)
        getter.start()
        pongs = []
        while getter.is_alive():
            sent = time.monotonic()
            watcher.reply(watcher.send(type="ping", t=1), "pong", timeout=10)
            pongs.append(time.monotonic() - sent)
            time.sleep(0.02)
        getter.join()
        info = server.get(f"/api/rooms/{big}")["room"]
        assert info["hands_played"] == 1500
        assert took[0] > 0.3, f"the restore took only {took[0]:.2f} s: not a long one"
        # A restore on the loop would hold a ping for about its whole length; in a thread the
        # loop answers throughout (bounded by the restore's own length, which a machine under
        # load stretches as much as it stretches a ping).
        bound = max(0.25, took[0] / 3)
        assert max(pongs) < bound, f"another room's ping took {max(pongs):.2f} s of {took[0]:.2f}"
        watcher.close()
    finally:
        server.stop()


def test_a_read_of_zhanji_waits_for_the_writes_queued_before_it(tmp_path: Path) -> None:
    """A hand's record is written after its end is shown (docs/protocol.md §5); 战绩, totals and
    leaderboards are read after the writes the server queued before the read, so a player told
    of a hand's end finds it there (§7.3), even while another program holds the write lock."""
    store = Store(tmp_path / "rooms.db", busy_seconds=5.0)
    server = ServerParts(store, Limits())
    try:
        store.create_room("r", {}, {"seats": []}, "anxiang", {}, 1).result(5)
        lock = sqlite3.connect(store.path, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        store.save_seats("r", {"seats": [], "name": "p1"})  # queued behind the lock

        def seats(db: Any) -> Any:
            return json.loads(db.execute("SELECT seats FROM rooms WHERE id = 'r'").fetchone()[0])

        async def read_while_locked() -> tuple[Any, Any]:
            booked = asyncio.ensure_future(server.read_booked(seats))
            plain = await server.read(seats)  # a read that waits for nothing
            await asyncio.sleep(0.2)
            assert not booked.done()  # still waiting for the queued write
            lock.execute("ROLLBACK")
            return plain, await booked

        plain, booked = asyncio.run(read_while_locked())
        lock.close()
        assert plain == {"seats": []}
        assert booked == {"seats": [], "name": "p1"}
    finally:
        store.close()
