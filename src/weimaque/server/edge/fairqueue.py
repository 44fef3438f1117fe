"""Slow jobs (复盘) for one worker: a budget per client address and a fair turn between them.

Each address may have ``per_address`` jobs computing or waiting, the whole server ``total`` (so
memory stays bounded however many addresses ask). The worker takes the addresses that wait in
turn (round-robin): an address that queued several jobs gets its next one only after every other
waiting address has had one, so one address can neither refuse nor delay everyone else's (and,
with one worker, an address never has two jobs computing at once). A
result is kept (the last ``kept``) and served to anyone who asks for its key without spending a
budget; a job already computing or waiting is joined, not queued twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, Generic, TypeVar

log = logging.getLogger("weimaque.server")

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class Refused(Exception):
    """A job not taken: its address, or the whole server, has as many as it may."""

    def __init__(self, message: str, retry_after: int) -> None:
        """The explanation and the seconds after which asking again may succeed."""
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class FairQueue(Generic[K, T]):
    """Jobs ``run(key, payload)`` done one at a time, addresses served in turn."""

    def __init__(
        self,
        run: Callable[[K, Any], Awaitable[T]],
        per_address: int,
        total: int,
        kept: int,
        what: str = "jobs",
    ) -> None:
        """A queue whose one worker runs ``run``; ``what`` names the jobs in refusals."""
        self.run = run
        self.per_address = per_address
        self.total = total
        self.kept = kept
        self.what = what
        self.results: OrderedDict[K, T] = OrderedDict()
        #: every job computing or waiting, by key
        self.jobs: dict[K, asyncio.Future[T]] = {}
        #: per address, in the order it came: the jobs it waits for
        self.waiting: OrderedDict[str, deque[tuple[K, Any, str]]] = OrderedDict()
        #: jobs computing or waiting per address
        self.owed: dict[str, int] = {}
        #: the turn at which each address that is owed a job was last served
        self.served: dict[str, int] = {}
        self.turn = 0
        #: seconds one job takes, a running mean (for ``Retry-After``)
        self.mean = 5.0
        self._worker: asyncio.Task[None] | None = None

    async def get(self, key: K, payload: Any, address: str) -> T:
        """The result of ``key``: kept, joined, or queued for ``address`` (or :class:`Refused`)."""
        if key in self.results:
            self.results.move_to_end(key)
            return self.results[key]
        future = self.jobs.get(key)
        if future is None:
            future = self._queue(key, payload, address)
        return await asyncio.shield(future)

    def _queue(self, key: K, payload: Any, address: str) -> asyncio.Future[T]:
        mine = self.owed.get(address, 0)
        if mine >= self.per_address:
            # The address's oldest job is done within about one turn of every waiting address.
            wait = self._seconds(min(len(self.jobs), len(self.waiting) + 1))
            raise Refused(
                f"{mine} {self.what} of this address are being computed or wait already "
                f"(at most {self.per_address}); retry in {wait} s",
                wait,
            )
        if len(self.jobs) >= self.total:
            wait = self._seconds(1)
            raise Refused(
                f"the server computes or queues {len(self.jobs)} {self.what} already "
                f"(at most {self.total}); retry in {wait} s",
                wait,
            )
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        # A failure nobody waits for any more is logged here, not as "never retrieved".
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self.jobs[key] = future
        self.owed[address] = mine + 1
        self.waiting.setdefault(address, deque()).append((key, payload, address))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._work())
        return future

    def _seconds(self, jobs: int) -> int:
        return max(1, math.ceil(self.mean * max(1, jobs)))

    def _next(self) -> tuple[K, Any, str]:
        # The waiting address served longest ago (or never) goes first, the first come of
        # those: with several waiting, each gets one job before any gets a second.
        address = min(self.waiting, key=lambda a: self.served.get(a, -1))
        queue = self.waiting[address]
        job = queue.popleft()
        if not queue:
            del self.waiting[address]
        self.turn += 1
        self.served[address] = self.turn
        return job

    async def _work(self) -> None:
        while self.waiting:
            key, payload, address = self._next()
            future = self.jobs[key]
            start = time.monotonic()
            try:
                result = await self.run(key, payload)
            except asyncio.CancelledError:
                future.cancel()
                raise
            except Exception as exc:
                log.error("%s %r failed: %s: %s", self.what, key, type(exc).__name__, exc)
                future.set_exception(exc)
            else:
                self.results[key] = result
                while len(self.results) > self.kept:
                    self.results.popitem(last=False)
                future.set_result(result)
            finally:
                self.jobs.pop(key, None)
                left = self.owed.get(address, 1) - 1
                if left > 0:
                    self.owed[address] = left
                else:
                    self.owed.pop(address, None)
                    self.served.pop(address, None)
                self.mean = 0.8 * self.mean + 0.2 * (time.monotonic() - start)

    async def close(self) -> None:
        """Stop the worker; jobs still waiting are cancelled."""
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(BaseException):
                await self._worker
        for future in self.jobs.values():
            future.cancel()
        self.jobs.clear()
        self.waiting.clear()
        self.owed.clear()
        self.served.clear()


__all__ = ["FairQueue", "Refused"]
