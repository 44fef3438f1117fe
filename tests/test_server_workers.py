"""The processes a real ``wmq serve`` starts (bot pool, 复盘) end when it is killed with SIGKILL.

Linux only: the workers are found by their parent in ``/proc`` before the kill.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from tests import serverkit

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not Path("/proc/self/stat").exists(),
    reason="finds the workers in /proc",
)


def stat(pid: int) -> tuple[str, int] | None:
    """A live process's state letter and parent pid (None when gone or a zombie)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return None if fields[0] in ("Z", "X") else (fields[0], int(fields[1]))


def children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            found = stat(int(entry.name))
            if found is not None and found[1] == pid:
                out.append(int(entry.name))
    return out


def cmdline(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


def test_kill_9_of_the_server_ends_its_bot_and_review_workers(tmp_path: Path) -> None:
    server = serverkit.Server(tmp_path)
    workers: list[int] = []
    try:
        bots = {"0": "greedy", "1": "greedy", "2": "greedy"}
        body = {"bots": bots, "bot_delay_ms": 0, "options": {"match_hands": 2}}
        room = server.room(**body)["room_id"]
        deadline = time.monotonic() + 60
        while not server.get(f"/api/rooms/{room}/hands")["hands"]:
            assert time.monotonic() < deadline, "no hand finished"
            time.sleep(0.2)

        # A 复盘 keeps its worker busy for seconds: it must end mid-search too.
        def ask() -> None:
            with contextlib.suppress(OSError):  # the server is killed before it answers
                server.request(f"/api/rooms/{room}/hands/1/review?seat=0")

        review = threading.Thread(target=ask, daemon=True)
        review.start()
        pid = server.proc.pid
        while True:
            workers = [c for c in children(pid) if "multiprocessing" in cmdline(c)]
            spawned = [c for c in workers if "spawn_main" in cmdline(c)]
            if len(spawned) >= 2:  # the bot pool's worker and the review's
                break
            assert time.monotonic() < deadline, f"workers not started: {workers}"
            time.sleep(0.05)
        time.sleep(0.3)  # the review is under way
        assert all(stat(w) is not None for w in workers)
        server.proc.kill()
        server.proc.wait(10)
        killed = time.monotonic()
        while (left := [w for w in workers if stat(w) is not None]) and time.monotonic() < (
            killed + 5
        ):
            time.sleep(0.05)
        assert not left, [(w, cmdline(w)) for w in left]
    finally:
        server.stop()
        for w in workers:  # what a failed check left behind
            if stat(w) is not None:
                with contextlib.suppress(OSError):
                    os.kill(w, signal.SIGKILL)


WATCHED = """
import os, sys, threading, time
from weimaque.server.table.botpool import BotPool

def start() -> None:
    pool = BotPool(1)
    pool._get().submit(time.sleep, 60).add_done_callback(lambda f: None)

thread = threading.Thread(target=start)  # not the main thread: no PR_SET_PDEATHSIG
thread.start()
thread.join()
print("ready", flush=True)
time.sleep(60)
"""


def test_the_watchdog_ends_a_worker_started_off_the_main_thread() -> None:
    proc = subprocess.Popen([sys.executable, "-c", WATCHED], stdout=subprocess.PIPE, text=True)
    workers: list[int] = []
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 30
        while not (workers := [c for c in children(proc.pid) if "spawn_main" in cmdline(c)]):
            assert time.monotonic() < deadline, "no worker"
            time.sleep(0.05)
        proc.kill()
        proc.wait(10)
        killed = time.monotonic()
        while [w for w in workers if stat(w) is not None] and time.monotonic() < killed + 5:
            time.sleep(0.02)
        assert all(stat(w) is None for w in workers), [cmdline(w) for w in workers]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        for w in workers:
            if stat(w) is not None:
                with contextlib.suppress(OSError):
                    os.kill(w, signal.SIGKILL)


def test_a_dead_bot_worker_is_replaced_and_the_bot_keeps_thinking() -> None:
    # A worker killed (out of memory, by hand) breaks its process pool; the next decision gets a
    # fresh pool instead of the random fallback for the rest of the server's life.
    from weimaque.games import get_game
    from weimaque.server.table.botpool import BotPool

    game = get_game("maque")
    hand = game.new_hand("anxiang", None, 3, 0)
    seat = hand.to_act()[0]
    view = hand.bot_view(seat)
    pool = BotPool(1)

    async def decide() -> None:
        action = await pool.decide(game, "greedy", "anxiang", {}, view, 1)
        assert action in hand.legal_actions(seat)

    def workers() -> set[int]:
        executor = pool._executor
        assert isinstance(executor, ProcessPoolExecutor)
        return set(executor._processes)

    try:
        asyncio.run(decide())
        first = workers()
        assert first, "the pool started no worker"
        for pid in first:
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while any(stat(pid) is not None for pid in first) and time.monotonic() < deadline:
            time.sleep(0.05)
        asyncio.run(decide())  # the broken pool is replaced and the decision asked again
        fresh = workers() - first
        assert fresh, "no fresh worker"
        asyncio.run(decide())
    finally:
        pool.close()


def test_a_bot_view_travels_to_a_worker_whole() -> None:
    # Bots think in worker processes on their seat's bot view, pickled (docs/scale.md): 偎麻雀's
    # rule sets (whose 名堂 tables are read-only mappings) and the 留子 pool arrive as they left.
    import pickle

    from weimaque.games import get_game
    from weimaque.games.maque.rules.registry import list_rules

    game = get_game("maque")
    for config in list_rules(app=True):
        assert pickle.loads(pickle.dumps(config)) == config, config.id
    options = {"liuzi": True, "liuzi_choice": True}
    hand = game.new_hand("quanmingtang", options, 11, 0)
    seat = hand.to_act()[0]
    view = hand.bot_view(seat)
    back = pickle.loads(pickle.dumps(view))
    assert back == view and back.pool == view.pool and back.rules.options() == view.rules.options()
