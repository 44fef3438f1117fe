"""Bot thinking off the event loop, in a bounded pool shared by every room of the server.

A bot decision is pure computation on the seat's bot view (``Hand.bot_view``, docs/new-game.md).
Run in the server's own thread it would hold the interpreter lock and slow every table; here it runs
in worker processes (``Limits.bot_workers`` of them, started on the first decision), so the event
loop keeps its core however many bots think. Decisions wait their turn in the pool's queue; each
room has at most one in flight. ``random`` is instant and is played inline.

A worker never outlives its server, however the server ends (a ``kill -9`` runs no shutdown):
on Linux the kernel kills it when the server dies (``PR_SET_PDEATHSIG``), and everywhere a
watchdog thread in the worker ends it once its parent is gone (:func:`_watch_parent`). A worker
that dies (killed, out of memory) breaks its pool: the pool is replaced by a fresh one and the
bot's decision asked again once, so the server's bots never stay broken.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, TypeVar

from weimaque.games.protocol import Game, Reviewing, SeatBot
from weimaque.games.registry import get_game

log = logging.getLogger("weimaque.server")
T = TypeVar("T")

#: How often a worker's watchdog looks whether its server is still there.
WATCH_INTERVAL_S: Final = 0.25
#: ``prctl`` option: the signal a process gets when the thread that started it dies.
_PR_SET_PDEATHSIG: Final = 1


def _die_with(parent: int, pdeathsig: bool) -> None:
    """In a new worker: end when process ``parent`` (the server) ends, however it ends.

    ``PR_SET_PDEATHSIG`` is tied to the *thread* that started the worker, so the server asks
    for it only when that is its main thread (``pdeathsig``); the watchdog covers the rest.
    """
    if pdeathsig and sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watchdog still runs
    if os.getppid() != parent:  # the server died before the signal was asked for
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="watchdog", daemon=True).start()


def _watch_parent(parent: int) -> None:
    """A worker's watchdog thread: exit the worker, mid-decision or not, once ``parent`` is gone.

    It waits on the sentinel ``multiprocessing`` gives a spawned child (ready when its parent
    ends, on every platform) and, on POSIX, also sees the worker handed to another parent.
    """
    from multiprocessing.connection import wait

    process = multiprocessing.parent_process()
    sentinel = None if process is None else process.sentinel
    while os.getppid() == parent or sys.platform == "win32":
        if sentinel is None:
            time.sleep(WATCH_INTERVAL_S)
        elif wait([sentinel], WATCH_INTERVAL_S):
            break
    os._exit(1)


@functools.lru_cache(maxsize=64)
def _seat_bot(game_id: str, spec: str, variant: str, options: str) -> SeatBot:
    import json

    return get_game(game_id).bot(spec, variant, json.loads(options))


def decide_job(job: tuple[Any, ...]) -> int:
    """In a worker: a bot of a game (``Game.bot``) acts on a seat's bot view; its action id."""
    game_id, spec, variant, options, view, seed = job
    return _seat_bot(game_id, spec, variant, options).act(view, random.Random(seed))


def review_job(job: tuple[dict[str, Any], int, str]) -> dict[str, Any]:
    """In a worker: the 复盘 of one seat of a recorded hand, by the game its record names (else
    the default game) through its ``"review"`` capability (``Reviewing.review``)."""
    record, seat, spec = job
    named = record.get("game")
    game = get_game(named if isinstance(named, str) else "maque")
    if not isinstance(game, Reviewing):
        raise ValueError(f"game {game.info.id!r} offers no 复盘")
    return game.review(record, seat, spec)


class BotPool:
    """``workers`` processes (or threads, ``processes=False``) thinking for bots."""

    def __init__(self, workers: int = 1, processes: bool = True) -> None:
        """A pool, started on the first decision."""
        self.workers = max(1, workers)
        self.processes = processes
        self._executor: Executor | None = None

    def _get(self) -> Executor:
        if self._executor is None:
            if self.processes:
                context = multiprocessing.get_context("spawn")
                # Workers are started by the thread that submits (the event loop's).
                main = threading.current_thread() is threading.main_thread()
                self._executor = ProcessPoolExecutor(
                    self.workers,
                    mp_context=context,
                    initializer=_die_with,
                    initargs=(os.getpid(), main),
                )
            else:
                self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="bot")
        return self._executor

    async def _run(self, fn: Callable[[Any], T], job: Any, again: bool) -> T:
        """``fn(job)`` in a worker; a broken pool is replaced (and, ``again``, tried once more)."""
        loop = asyncio.get_running_loop()
        executor = self._get()
        try:
            return await loop.run_in_executor(executor, fn, job)
        except BrokenProcessPool:
            self._replace(executor)
            if not again:
                raise
            return await loop.run_in_executor(self._get(), fn, job)

    def _replace(self, broken: Executor) -> None:
        """Drop a pool whose worker died; the next job starts a fresh one."""
        if self._executor is broken:
            log.warning("a bot worker died: starting a fresh pool")
            broken.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def decide(
        self,
        game: Game,
        spec: str,
        variant: str,
        options: dict[str, Any],
        view: object,
        seed: int,
    ) -> int:
        """The action id a bot of ``game`` (``Game.bot(spec, variant, options)``) takes on a
        seat's bot view (``Hand.bot_view``), thought in a worker; ``random`` inline."""
        if spec == "random":
            return game.bot(spec, variant, options).act(view, random.Random(seed))
        import json

        opts = json.dumps(options, sort_keys=True)
        job = (game.info.id, spec, variant, opts, view, seed)
        return await self._run(decide_job, job, again=True)

    async def review(self, record: dict[str, Any], seat: int, spec: str) -> dict[str, Any]:
        """The 复盘 of ``seat`` in a finished hand's record, by ``spec``, as a dict.

        Not tried again when its worker dies: a review that kills workers must not do it twice.
        """
        result: dict[str, Any] = await self._run(review_job, (record, seat, spec), again=False)
        return result

    def close(self) -> None:
        """Stop the workers (decisions in flight are dropped)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


#: The pool of this server process (``create_app`` sizes it).
POOL = BotPool()


def configure(workers: int, processes: bool = True) -> BotPool:
    """Replace the server's pool."""
    global POOL
    if POOL.workers != workers or POOL.processes != processes:
        POOL.close()
        POOL = BotPool(workers, processes)
    return POOL


__all__ = ["POOL", "BotPool", "configure", "decide_job", "review_job"]
