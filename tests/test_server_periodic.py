"""A periodic background job ends when its task is cancelled, even when the job swallows the
cancel (as redis-py's asyncio client sometimes does under load) or turns it into an error."""

from __future__ import annotations

import asyncio
import logging

import pytest

from weimaque.server.base.periodic import every


async def _cancel_during_a_round(job_behaviour: str) -> tuple[asyncio.Task[None], list[int]]:
    rounds: list[int] = []
    inside = asyncio.Event()

    async def job() -> None:
        rounds.append(len(rounds))
        inside.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            if len(rounds) > 1:
                raise  # only the first round misbehaves, so that a failing test ends
            if job_behaviour == "swallow":
                return  # takes the cancel up and returns, as if the call had gone through
            if job_behaviour == "error":
                raise ConnectionError("the connection went down") from None
            raise

    task = asyncio.get_running_loop().create_task(every(0.01, job, "test job"))
    await asyncio.wait_for(inside.wait(), 5)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=2)
    assert task in done, "the task ran on after cancel()"
    return task, rounds


@pytest.mark.parametrize("behaviour", ["propagate", "swallow", "error"])
def test_a_cancel_during_a_round_ends_the_task(
    behaviour: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="weimaque.server"):
        task, rounds = asyncio.run(_cancel_during_a_round(behaviour))
    assert task.cancelled() and rounds == [0]
    assert not [r for r in caplog.records if "test job failed" in r.getMessage()]


def test_a_failing_round_is_logged_and_the_next_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    async def run() -> int:
        calls: list[int] = []

        async def job() -> None:
            calls.append(1)
            if len(calls) == 1:
                raise ValueError("bad data")

        task = asyncio.get_running_loop().create_task(every(0.01, job, "test job"))
        while len(calls) < 3:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return len(calls)

    with caplog.at_level(logging.ERROR, logger="weimaque.server"):
        assert asyncio.run(run()) >= 3
    failed = [r.getMessage() for r in caplog.records if "test job failed" in r.getMessage()]
    assert failed == ["test job failed: ValueError: bad data"]
