"""What the local pieces share: a free port, a child process ended in time, and ``with``."""

from __future__ import annotations

import socket
import subprocess
from types import TracebackType
from typing import Self

#: Seconds a piece has to stop after SIGTERM before it is killed.
STOP_SECONDS = 10.0


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def end(proc: subprocess.Popen[bytes] | None, seconds: float = STOP_SECONDS) -> None:
    """Stop a child process: SIGTERM, then SIGKILL after ``seconds``; wait for it."""
    if proc is None:
        return
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Piece:
    """A piece that runs until ``close()``; as a context manager, closed on exit (a piece
    that starts on entry overrides ``__enter__``)."""

    def close(self) -> None:
        """Stop the piece for good."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


__all__ = ["STOP_SECONDS", "Piece", "end", "free_port"]
