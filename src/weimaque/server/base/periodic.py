"""A background job run every so often until its task is cancelled."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("weimaque.server")


async def every(period: float, job: Callable[[], Awaitable[None]], what: str) -> None:
    """Run ``job`` every ``period`` seconds for ever: a failure is logged and the next round
    goes on; a cancel ends it.

    A cancel that arrives while ``job`` waits does not always come out of it: redis-py's
    asyncio client, cancelled inside a call on a busy machine, sometimes swallows the cancel
    and returns (2 rounds in 60 of the cluster's lease renewal, both cores loaded), and a
    library may as well turn it into an error of its own. Carried on from, either would leave
    the task running after ``cancel()``, and whoever awaits its end waiting for ever. The
    task's own count of cancel requests tells: after each round, a task asked to stop stops.
    """
    task = asyncio.current_task()
    while True:
        await asyncio.sleep(period)
        try:
            await job()
        except Exception as exc:
            if task is None or not task.cancelling():
                log.error("%s failed: %s: %s", what, type(exc).__name__, exc)
        if task is not None and task.cancelling():
            raise asyncio.CancelledError(f"{what}: cancelled during a round")
