"""A local Redis for a cluster of ``wmq serve`` processes: who owns each live room.

Debian's ``redis-server`` runs as this user in a folder it is given, bound to 127.0.0.1 on a
free port, with nothing persisted: a room's lease is renewed by its owner every few seconds, so a
Redis that comes back empty only makes the owners take their leases again.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path
from typing import IO, Self

from weimaque.deploy.process import Piece, end, free_port

REDIS_SERVER = "/usr/bin/redis-server"
START_SECONDS = 15.0


def available(binary: str = REDIS_SERVER) -> bool:
    """Whether Debian's ``redis-server`` is installed (``apt-get install redis-server``)."""
    return os.access(binary, os.X_OK)


def ping(port: int, timeout: float = 1.0) -> bool:
    """Whether a Redis on 127.0.0.1:``port`` answers ``PING`` with ``PONG``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class LocalRedis(Piece):
    """An unprivileged ``redis-server`` on 127.0.0.1 with its log in ``folder``.

    ``stop()`` then ``start()`` brings it back on the same port, empty (an outage); ``close()``
    stops it for good. As a context manager it is started on entry and closed on exit.
    """

    def __init__(
        self, folder: str | os.PathLike[str], port: int | None = None, binary: str = REDIS_SERVER
    ) -> None:
        self.folder = Path(folder)
        self.port = port if port is not None else free_port()
        self.binary = binary
        self.log = self.folder / "redis.log"
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        """The running server's process id, or None while stopped."""
        return None if self._proc is None else self._proc.pid

    def __repr__(self) -> str:
        return f"LocalRedis({str(self.folder)!r}, port={self.port})"

    def start(self) -> None:
        """Start ``redis-server`` (on the same port as before, if it ran) and wait for PONG."""
        if self._proc is not None:
            return
        if not available(self.binary):
            raise RuntimeError(f"redis-server is not installed at {self.binary!r}")
        self.folder.mkdir(parents=True, exist_ok=True)
        args = [
            self.binary,
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--dir",
            str(self.folder),
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
            "--logfile",
            "",
        ]
        out: IO[bytes] = self.log.open("ab")
        try:
            proc = subprocess.Popen(
                args,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                # Its own process group: a terminal's Ctrl-C reaches only the parent, which
                # stops the pieces in order (weimaque.deploy.local).
                process_group=0,
            )
        finally:
            out.close()
        deadline = time.monotonic() + START_SECONDS
        while not ping(self.port):
            if proc.poll() is not None or time.monotonic() > deadline:
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
                raise RuntimeError(
                    f"redis-server did not start on 127.0.0.1:{self.port} "
                    f"(exit {proc.returncode}); its output:\n{self._output()}"
                )
            time.sleep(0.05)
        self._proc = proc

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s); ``start()`` brings it back."""
        proc, self._proc = self._proc, None
        end(proc)

    def close(self) -> None:
        """Stop the server for good."""
        self.stop()

    def __enter__(self) -> Self:
        self.start()
        return self

    def _output(self) -> str:
        try:
            return self.log.read_text("utf-8", "replace")[-4000:]
        except OSError:
            return ""
